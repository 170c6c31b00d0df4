"""Where one language's build spent its time: each gallery script it ran, the gallery as a whole, reading and writing
the pages.

sphinx-gallery calls :func:`clock` before and after every script it runs (conf.py names it among its
``reset_modules``, with ``reset_modules_order = "both"``); the handlers here mark Sphinx's phases: the gallery (from
``builder-inited``, where sphinx-gallery runs the scripts, to the first page read), reading (to ``env-updated``) and
writing (to ``build-finished``). At the end of the build the figures go to the build's doctree folder
(:mod:`attnprof.records.buildtimes`), where :mod:`attnprof.site.builder` finds them for its table of every language; a
script that did not run (its page was up to date) is not listed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from attnprof.records import buildtimes, sweep, trainscale
from attnprof.records.files import UnreadableFile

_marks: dict[str, float] = {}
_scripts: dict[str, float] = {}
_started: dict[str, float] = {}
_read: list[str] = []


def clock(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """sphinx-gallery's ``reset_modules`` hook: time each script from before it runs to after its page is written."""
    if fname is None:
        return
    name, now = Path(fname).name, time.perf_counter()
    if when == "before":
        _started[name] = now
    elif name in _started:
        _scripts[name] = now - _started.pop(name)


def _start(app: Sphinx) -> None:
    for held in (_marks, _scripts, _started):
        held.clear()
    _read.clear()
    _marks["start"], _marks["start_ns"] = time.perf_counter(), time.time_ns()


def _reading(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    _marks.setdefault("read", time.perf_counter())
    _read[:] = list(docnames)


def _read_done(app: Sphinx, env: BuildEnvironment) -> None:
    _marks["read_done"] = time.perf_counter()


def _finished(app: Sphinx, exc: BaseException | None) -> None:
    end = time.perf_counter()
    start = _marks.get("start", end)
    read = _marks.get("read", end)
    read_done = _marks.get("read_done", read)
    times = buildtimes.LanguageTimes(app.config.language, dict(_scripts), read - start, read_done - read,
                                     end - read_done, sorted(_read), _sweep_s(app),
                                     _elapsed_s(app, trainscale.filename, trainscale.load))  # fmt: skip
    buildtimes.save(times, app.doctreedir)


def _sweep_s(app: Sphinx) -> float | None:
    """The sweep's own time, when its file was written during this build."""
    return _elapsed_s(app, sweep.filename, sweep.load)


def _elapsed_s(app: Sphinx, filename: Callable[[str], str], load: Callable[[Path], Any]) -> float | None:
    """The ``elapsed_s`` of a measurement file (named by ``filename(device)``) written during this build."""
    results_dir = Path(app.config.attnprof_results_dir)
    for device in ("cuda", "cpu"):
        path = results_dir / filename(device)
        if path.is_file() and path.stat().st_mtime_ns >= _marks.get("start_ns", 0):
            try:
                return float(load(path).elapsed_s)
            except UnreadableFile:
                return None
    return None


def setup_buildtimes(app: Sphinx) -> None:
    """Register the handlers that mark the phases of the build."""
    app.connect("builder-inited", _start, priority=1)
    app.connect("env-before-read-docs", _reading, priority=900)
    app.connect("env-updated", _read_done, priority=900)
    app.connect("build-finished", _finished)
