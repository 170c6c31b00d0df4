"""Sphinx configuration of the attnprof site; sources in docs/, this file at the repository root.

Build (the nox session ``docs`` does this, after building the wheel the gallery publishes)::

    python -m pip wheel --no-deps --no-build-isolation -w _build/wheel .
    python -m attnprof.site.builder            # both languages, one after the other, in one process

which amounts to::

    sphinx-build -W --keep-going -c . -D language=en docs _build/html/en
    python -m attnprof.site.localize source ja _build/src/ja
    sphinx-build -W --keep-going -c . -D language=ja _build/src/ja/docs _build/html/ja

The gallery scripts in examples/ run during the build (sphinx-gallery) and save their results into
``_build/results``; the pages read them through the directives of :mod:`attnprof.sphinxext`.

Each language builds from its own source tree, because sphinx-gallery writes its pages, notebooks and checksums into
the source folder (``auto_examples``): English from ``docs/``, Japanese from ``_build/src/ja/docs``, a copy of
``docs/`` beside ``_build/src/ja/examples``, the scripts with their text blocks and comments translated through the
catalogs (:mod:`attnprof.site.localize`). So the Japanese gallery runs Japanese scripts (printed output, figures,
thumbnails and downloads in Japanese), and neither language's gallery overwrites the other's. The catalogs are found
in ``docs/locales`` from either tree. Measured once, shown twice: the second language's scripts replay everything the
first one measured and printed (``attnprof_replay_measurements``, which attnprof.site.builder sets for it; see
attnprof.measure.reuse), so both languages show one experiment.
"""

from __future__ import annotations

from pathlib import Path

import attnprof

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
# Where the gallery scripts write their results and the pages read them: passed to the extension as
# ``attnprof_results_dir`` (below), which also hands it to the scripts (they run inside this process).
RESULTS_DIR = ROOT / "_build" / "results"

# -- Project ---------------------------------------------------------------------------------------------------------

project = "attnprof"
author = "attnprof contributors"
copyright = "2026, attnprof contributors"
release = version = attnprof.__version__
language = "en"  # the nox session passes -D language=ja for the Japanese build

extensions = [
    "myst_nb",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "attnprof.sphinxext",
]

# sphinx-gallery writes auto_examples/*.ipynb, *.py, *.zip, *.md5 and *.json next to its .rst pages: without
# these patterns myst-nb would claim the notebooks as pages of their own.
exclude_patterns = [
    "_build",
    "locales",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
    "auto_examples/*.pickle",
    "sg_execution_times.rst",
]

# -- MyST and myst-nb ------------------------------------------------------------------------------------------------

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the gallery runs the examples; pages execute nothing

# -- sphinx-gallery --------------------------------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],  # relative to docs/
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/\d\d-[^/]+\.py$",  # run every NN-topic.py
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "min_reported_time": 10**9,  # no timing strings in the pages (they would churn the translation catalogs)
    "write_computation_times": False,
    # The examples re-run when they change (MD5 cache in docs/auto_examples), and when a result file they declare
    # (``# sphinx_gallery_attnprof_writes = [...]``) is missing from the results folder: attnprof.sphinxext.gallery
    # drops the cache of exactly those scripts. Deleting a stale or corrupt result file and building again is the fix.
    "run_stale_examples": False,
    "remove_config_comments": True,  # also leaves the attnprof_writes declarations out of the pages
    # a cell that ends in viewer.embed(result) shows the interactive trace viewer (its _repr_html_)
    "capture_repr": ("_repr_html_", "__repr__"),
    "show_memory": False,
    # attnprof.sphinxext.buildtimes times each script the gallery runs, for the build's table of where time went;
    # attnprof.sphinxext.scripts.fresh_compiler lets each script compile as in a fresh process (torch._dynamo.reset)
    "reset_modules": (
        "matplotlib",
        "attnprof.sphinxext.scripts.fresh_compiler",
        "attnprof.sphinxext.buildtimes.clock",
    ),
    "reset_modules_order": "both",
}

# -- Translation -----------------------------------------------------------------------------------------------------

locale_dirs = [str(DOCS / "locales")]  # docs/locales/ja/LC_MESSAGES/*.po, from either language's source tree
gettext_compact = False
gettext_uuid = False
gettext_location = True

# -- HTML ------------------------------------------------------------------------------------------------------------

html_theme = "furo"
html_title = "attnprof"
html_static_path: list[str] = []  # attnprof.sphinxext adds its stylesheet and the language-switcher template
templates_path: list[str] = []
html_context = {
    # the language switcher (attnprof-languages.html): code and name of each built language
    "attnprof_languages": [("en", "English"), ("ja", "日本語")],
}
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "attnprof-languages.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

# -- attnprof.sphinxext ----------------------------------------------------------------------------------------------

attnprof_results_dir = str(RESULTS_DIR)
# The wheel of attnprof that the gallery pages link and tell readers to install (built by the nox session docs).
attnprof_wheel_dir = str(ROOT / "_build" / "wheel")
# The first language reuses what the same code measured on the same machine (see attnprof.measure.reuse); the others
# replay what it saved (attnprof.site.builder passes -D attnprof_replay_measurements=1 for them).
attnprof_reuse_measurements = True
