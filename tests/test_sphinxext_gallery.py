"""The docs build and the files it reads: a truncated trace, a corrupt result and a deleted result each end with a
clear message (and the deleted one is made again), gallery scripts declare what they write, and Ctrl-C stops the
build. Tiny Sphinx projects in tmp_path; the gallery ones run sphinx-gallery for real."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import attnprof
from attnprof import variants
from attnprof.records import results
from attnprof.sphinxext import gallery
from helpers import html, trace_result

EXAMPLES = Path(__file__).parent.parent / "examples"

GALLERY_CONF = """
extensions.append("sphinx_gallery.gen_gallery")
sphinx_gallery_conf = {
    "examples_dirs": ["examples"], "gallery_dirs": ["auto_examples"], "filename_pattern": r"/\\d\\d-",
    "remove_config_comments": True, "min_reported_time": 10**9, "write_computation_times": False,
    "download_all_examples": False, "show_memory": False,
}
exclude_patterns += ["examples", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                     "auto_examples/*.md5", "auto_examples/*.json", "auto_examples/*.pickle", "sg_execution_times.*"]
"""

WRITER = '''\
"""
Writer
======

Writes a result file, and counts its runs.
"""

from attnprof import settings
from attnprof.records import results
from attnprof.records.results import Environment, Result

folder = settings.results_dir()
env = Environment("CPU", "test", "3.11", "2026-12-01T00:00:00+00:00")
results.save(Result("naive", [1, 1, 8, 8], "float32", "cpu", "unsupported", env, reason="made by the test"), folder)
# sphinx_gallery_attnprof_writes = ["naive__*.json"]
with open(folder / "runs.txt", "a") as f:
    f.write("ran\\n")
'''

INDEX = """\
# Results

```{toctree}
auto_examples/index
```

```{kernel-table} naive
```
"""


def _gallery(tmp_path: Path, script: str = WRITER) -> dict[str, str]:
    return {"examples/GALLERY_HEADER.rst": "Gallery\n=======\n", "examples/01-writer.py": script}


def test_a_deleted_result_makes_the_next_build_rerun_the_script_that_writes_it(project, tmp_path):
    runs = tmp_path / "results" / "runs.txt"
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert app.warning.getvalue() == ""
    assert runs.read_text() == "ran\n" and "made by the test" in html(app)
    assert "sphinx_gallery_attnprof_writes" not in html(app, "auto_examples/01-writer")  # declared, not shown
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert runs.read_text() == "ran\n"  # unchanged script, results there: not run again
    (result,) = (tmp_path / "results").glob("naive__*.json")
    result.unlink()
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert runs.read_text() == "ran\nran\n" and result.exists()
    assert app.warning.getvalue() == ""
    assert "attnprof: re-running 01-writer.py: naive__*.json missing from" in app.status.getvalue()


def test_a_corrupt_result_is_a_warning_naming_the_file_and_the_fix(project, tmp_path):
    project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    (result,) = (tmp_path / "results").glob("naive__*.json")
    written = result.stat().st_mtime_ns
    result.write_text('{"schema_version": 2, "variant": "naive", "shape": [1, 1, 8, ')  # cut off mid-write
    # spoilt in place, before its script's page was made (a newer file would make the script run again)
    os.utime(result, ns=(written - 10**9, written - 10**9))
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    warnings = app.warning.getvalue()
    assert f"stale or unreadable result file: {result}: {result.name} is not valid JSON" in warnings
    assert "delete it and build again: the build then re-runs" in warnings and "01-writer.py" in warnings
    assert "index.md:7" in warnings and "WARNING" in warnings  # -W turns it into a failed build
    result.unlink()  # the fix the message gives
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert app.warning.getvalue() == "" and result.exists()


def test_a_deleted_result_without_a_gallery_still_says_what_is_missing(project):
    app = project({"index.md": "# Page\n\n```{kernel-table} naive\n```\n"}, variants=())
    assert "no result file for variant 'naive'" in app.warning.getvalue()


def test_a_truncated_trace_is_a_warning_and_is_not_published(project, tmp_path):
    page = {"index.md": "# Naive\n\n```{timeline} naive\n```\n"}
    app = project(page)
    assert app.warning.getvalue() == "" and "attnprof-viewer-download" in html(app)  # the viewer's download link
    result, _ = trace_result("naive")
    trace = tmp_path / "results" / f"{result.stem}.trace.json.gz"
    whole = trace.read_bytes()
    trace.write_bytes(whole[: len(whole) // 2])
    os.utime(trace, ns=(trace.stat().st_mtime_ns + 10**9,) * 2)  # a different file, whatever the clock says
    app = project(page, variants=())
    warnings = app.warning.getvalue()
    assert f"stale or unreadable trace file: {trace} is a truncated gzip file" in warnings
    assert "delete it and run again the script that wrote it" in warnings and "index.md:3" in warnings
    page = html(app)
    assert "attnprof-viewer-download" not in page and "attnprof-trace-download" not in page
    assert "attnprof-problem" in page


def test_every_gallery_script_declares_the_results_it_writes():
    declared = {p.name: gallery.declared_outputs(p) for p in sorted(EXAMPLES.glob("[0-9][0-9]-*.py"))}
    assert all(declared.values()), declared
    names = [results.result_filename(v, (8, 16, 1024, 64), "bfloat16", "cuda") for v in variants.VARIANTS]
    names += ["sweep__cuda.json", "cpu_costs__cpu.json"]
    for name in names:  # every file the site reads has exactly one script that writes it
        writers = [s for s, patterns in declared.items() if any(Path(name).match(p) for p in patterns)]
        assert len(writers) == 1, (name, writers)


@pytest.mark.slow
def test_ctrl_c_stops_the_docs_build(tmp_path):
    src = tmp_path / "src"
    interrupted = '''\
"""
Interrupted
===========

Ctrl-C arrives while the profiler records.
"""

import os
import signal
import time

from attnprof.measure import timing

calls = [0]


def call():
    calls[0] += 1
    if calls[0] == 3:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


timing.capture_trace(call, "x_fwd", "cpu")
print("still running after Ctrl-C")
'''
    for name, text in {
        "conf.py": f'extensions = ["myst_parser", "attnprof.sphinxext"]\nexclude_patterns = ["_build"]\n'
        f"attnprof_results_dir = {str(tmp_path / 'results')!r}\n{GALLERY_CONF}",
        "index.md": "# Home\n\n```{toctree}\nauto_examples/index\n```\n",
        **_gallery(tmp_path, interrupted),
    }.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(textwrap.dedent(text))
    env = {**os.environ, "PYTHONPATH": str(Path(attnprof.__file__).parent.parent)}
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-b", "html", str(src), str(tmp_path / "out")],
                         env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Interrupted!" in run.stderr and "still running" not in run.stdout + run.stderr
    assert not (src / "auto_examples" / "01-writer.py.md5").exists()  # so the next build runs it again
    assert not re.search(r"AssertionError|Profiler must be initialized", run.stdout + run.stderr)


def test_a_result_naming_a_missing_trace_counts_as_missing(tmp_path):
    result, raw = trace_result("naive")
    results.save(result, tmp_path, raw)
    assert gallery.missing_outputs(["naive__*.json", "sweep__*.json"], tmp_path) == ["sweep__*.json"]
    (tmp_path / result.trace_file).unlink()
    assert gallery.missing_outputs(["naive__*.json"], tmp_path) == [result.trace_file]
    assert gallery.declared_outputs(tmp_path / "none.py") == []


def test_results_newer_than_a_scripts_page_make_it_run_again(project, tmp_path):
    runs = tmp_path / "results" / "runs.txt"
    project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    (result,) = (tmp_path / "results").glob("naive__*.json")
    page = tmp_path / "src" / "auto_examples" / "01-writer.py.md5"  # sphinx-gallery's mark of the script's page
    later = page.stat().st_mtime_ns + 10**6  # another build (another language's, say) wrote it after the page
    os.utime(result, ns=(later, later))
    app = project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert runs.read_text() == "ran\nran\n"
    assert f"attnprof: re-running 01-writer.py: {result.name} newer than its page, in" in app.status.getvalue()
    project({"index.md": INDEX}, variants=(), conf=GALLERY_CONF, extra=_gallery(tmp_path))
    assert runs.read_text() == "ran\nran\n"  # its page is newer now: not run again
