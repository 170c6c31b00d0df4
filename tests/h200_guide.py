"""The guide's pages (``docs/``, not the gallery) built in English and Japanese from the recorded H200 results, the
way the site builds them: what a GPU build's pages hold (more columns, longer kernel names) on a machine without a
GPU. ``tests/test_site_numbers.py`` compares its numbers across languages; the browser tests read its layout
(``ATTNPROF_SITE=<folder>/html``).

Results written: the prefill results made from the H200 traces, the training and decoding results and the
context-parallel run of the 2 x H200 recordings, the made-up H200 sweep (its ceilings), the mask run and the
training-scale grid recorded on an H200, and a fixed-cost file of test inputs (:func:`helpers.fixed_costs`). No
eligibility map: none was recorded on an H200, and those pages say so. The pages link into the gallery, which is not
built here: those links, and the missing map, are the build's only warnings.

Run as a script to build it: ``PYTHONPATH=src python tests/h200_guide.py _build/h200`` (then
``ATTNPROF_SITE=_build/h200/html pytest -m browser tests/browser/test_reader.py``).
"""

from __future__ import annotations

import gzip
import shutil
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"
DOCS = Path(__file__).parent.parent / "docs"
LANGUAGES = ("en", "ja")


def write_results(folder: Path) -> Path:
    """Every recorded H200 result, written into ``folder`` as a GPU build leaves them; returns ``folder``."""
    from attnprof.noise import Figure
    from attnprof.records import fixedcosts, masks, results, sweep, trainscale
    from helpers import (
        TRACE_VARIANTS,
        TRAIN_VARIANTS,
        decode_results,
        fixed_costs,
        h200_sweep,
        h200x2_run,
        trace_result,
        train_result,
    )

    folder.mkdir(parents=True, exist_ok=True)
    for variant in TRACE_VARIANTS:
        result, raw = trace_result(variant)
        results.save(result, folder, raw)
    for result in [*map(train_result, TRAIN_VARIANTS), *decode_results()]:
        results.save(result, folder)
    sweep.save(h200_sweep(), folder)
    # the forcing cost the H200 site of issue 29 showed (15.6 µs); the profiler's cost per op is a test input
    fixedcosts.save(fixed_costs(Figure(15.6, 15.2, 16.1, 20), per_op=Figure(2.0, 1.8, 2.2, 8)), folder)
    h200x2_run(folder=folder)
    for path in (DATA / "masks" / "h200").iterdir():
        shutil.copyfile(path, folder / path.name)
    masks.load(folder / masks.filename("cuda"))  # read back through the schema: a stale fixture fails here
    grid = gzip.decompress((DATA / "trainscale__cuda.json.gz").read_bytes())
    (folder / trainscale.filename("cuda")).write_bytes(grid)
    return folder


CONF = """\
extensions = ["myst_parser", "attnprof.sphinxext"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = "furo"
attnprof_results_dir = {results!r}
locale_dirs = [{locales!r}]
gettext_compact = False
exclude_patterns = ["_build", "locales", "auto_examples"]
"""


def build(folder: Path, languages: tuple[str, ...] = LANGUAGES) -> Path:
    """Write the results into ``folder/results`` and build the guide into ``folder/html/<lang>``; returns the
    ``html`` folder. Raises ``RuntimeError`` when Sphinx fails (warnings are allowed: see the module docstring)."""
    from sphinx.cmd.build import build_main

    results = write_results(folder / "results")
    conf = folder / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "conf.py").write_text(CONF.format(results=str(results), locales=str(DOCS / "locales")))
    if not (conf / "tests").exists():  # pages name recorded traces relative to the configuration's folder
        (conf / "tests").symlink_to(Path(__file__).parent, target_is_directory=True)
    for lang in languages:
        args = ["-b", "html", "-q", "-c", str(conf), "-D", f"language={lang}", "-d", str(folder / "doctrees" / lang)]
        if build_main([*args, str(DOCS), str(folder / "html" / lang)]) != 0:
            raise RuntimeError(f"the guide from the H200 results did not build ({lang})")
    return folder / "html"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/h200_guide.py OUT_FOLDER")
    print(build(Path(sys.argv[1]).resolve()))
