"""attnprof.sphinxext.buildtimes: each gallery script the build ran, with its time, the sweep's own time when a
script measured it, and the build's phases, saved in the doctree folder; a rebuild with nothing changed runs and
reads nothing. A tiny project in tmp_path with sphinx-gallery run for real."""

from __future__ import annotations

from attnprof.records import buildtimes
from conftest import CONF

SCRIPT = '''"""
Sleeper
=======

Takes its time, and saves a sweep that took 12.5 s and a training-scale grid that took 4.5 s.
"""

import dataclasses
import time

from attnprof import settings
from attnprof.records import sweep
from attnprof.records import trainscale
from helpers import h200_sweep
from test_records_trainscale import grid

time.sleep(0.2)
sweep.save(dataclasses.replace(h200_sweep(), elapsed_s=12.5), settings.results_dir())
trainscale.save(dataclasses.replace(grid(), elapsed_s=4.5), settings.results_dir())
'''

GALLERY = """
extensions.append("sphinx_gallery.gen_gallery")
sphinx_gallery_conf = {
    "examples_dirs": ["examples"], "gallery_dirs": ["auto_examples"], "filename_pattern": r"/\\d\\d-",
    "min_reported_time": 10**9, "write_computation_times": False, "download_all_examples": False,
    "show_memory": False, "reset_modules": ("matplotlib", "attnprof.sphinxext.buildtimes.clock"),
    "reset_modules_order": "both",
}
exclude_patterns += ["examples", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                     "auto_examples/*.md5", "auto_examples/*.json", "auto_examples/*.pickle", "sg_execution_times.*"]
"""


def test_a_build_times_its_scripts_and_phases_and_a_rebuild_runs_nothing(make_app, tmp_path):
    src, folder = tmp_path / "src", tmp_path / "results"
    (src / "examples").mkdir(parents=True)
    folder.mkdir()
    (src / "conf.py").write_text(CONF.format(results=str(folder), extra=GALLERY))
    (src / "index.md").write_text("# Home\n\n```{toctree}\nauto_examples/index\n```\n")
    (src / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    (src / "examples" / "01-sleeper.py").write_text(SCRIPT)
    apps: list = []

    def build() -> buildtimes.LanguageTimes:
        if apps:
            apps[-1].cleanup()
        apps.append(make_app("html", srcdir=src, builddir=src / "_build"))
        apps[-1].build()
        assert apps[-1].warning.getvalue() == ""
        return buildtimes.load(apps[-1].doctreedir)

    first = build()
    assert first.language == "en" and list(first.scripts) == ["01-sleeper.py"]
    assert 0.2 <= first.scripts["01-sleeper.py"] <= first.gallery_s
    assert first.sweep_s == 12.5  # the sweep written during this build, from its own file
    assert first.trainscale_s == 4.5  # and so the training-scale grid
    assert first.read_docs == ["auto_examples/01-sleeper", "auto_examples/index", "index"]
    assert first.read_s > 0 and first.write_s > 0
    again = build()
    assert again.scripts == {} and again.read_docs == [] and again.sweep_s is None and again.trainscale_s is None
