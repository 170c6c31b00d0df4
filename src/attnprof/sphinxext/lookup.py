"""Finding what a page shows: result files (each analysed), the CPU-cost file, the sweep and the context-parallel
run, behind one cache.

Every file is read once per process and version (its modification time): a result is loaded and analysed
(:func:`attnprof.analysis.analyse`) once, however many directives and roles of however many pages show it. Every
file read is noted as a dependency of the page that asked, so the page is read again when the file changes. A
missing or unreadable file is a Sphinx warning at the directive's location (so ``-W`` fails the build) and the
returned value carries the message for the page.

Which result is used for a variant: of its result files (:func:`attnprof.results.find`), the first that ran
(``status == "ok"``), CUDA results before CPU ones; else the first one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from .. import analysis, parallel, results, sweep
from ..analysis import Analysis
from ..parallel import ParallelRun
from ..results import CpuCosts, Result
from ..sweep import Sweep
from ..variants import VARIANTS

logger = logging.getLogger(__name__)

T = TypeVar("T")
Location = str | nodes.Node | None

#: (kind, path) -> (modification time, what was loaded from the file)
_CACHE: dict[tuple[str, Path], tuple[int, Any]] = {}


def _cached(kind: str, path: Path, load: Callable[[Path], T]) -> T:
    """``load(path)``, reused while the file keeps its modification time."""
    mtime = path.stat().st_mtime_ns
    hit = _CACHE.get((kind, path))
    if hit is not None and hit[0] == mtime:
        return hit[1]
    value = load(path)
    _CACHE[(kind, path)] = (mtime, value)
    return value


def _analysed(path: Path) -> Analysis:
    return analysis.analyse(results.load(path))


def results_dir(env: BuildEnvironment) -> Path:
    """The folder the build reads results from (``attnprof_results_dir``)."""
    return Path(env.config.attnprof_results_dir)


def warn(message: str, subtype: str, location: Location) -> str:
    """Log ``message`` as an attnprof warning at ``location``; returns it for the page."""
    logger.warning(message, location=location, type="attnprof", subtype=subtype)
    return message


@dataclass
class Found:
    """A result picked for a variant, analysed, with the file it came from; or why there is none."""

    analysis: Analysis | None
    path: Path | None
    problem: str | None = None

    @property
    def result(self) -> Result | None:
        return None if self.analysis is None else self.analysis.result


def _readable(env: BuildEnvironment, paths: list[Path]) -> tuple[list[tuple[Path, Analysis]], str | None]:
    loaded, problem = [], None
    for path in paths:
        env.note_dependency(str(path))
        try:
            loaded.append((path, _cached("result", path, _analysed)))
        except (results.StaleResultError, OSError, TypeError, KeyError) as exc:
            problem = problem or f"stale or unreadable result file {path}: {exc}"
    return loaded, problem


def find_result(env: BuildEnvironment, variant: str, location: Location) -> Found:
    """The analysed result to show for ``variant`` (see the module docstring).

    An unknown variant, a missing file and a stale file are logged as warnings at ``location``; the returned
    :class:`Found` then carries the message in ``problem``.
    """
    if variant not in VARIANTS:
        message = f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}"
        return Found(None, None, warn(message, "unknown", location))
    directory = results_dir(env)
    paths = results.find(directory, variant)
    if not paths:
        # depending on the folder re-reads the page once results appear there
        env.note_dependency(str(directory))
        message = (
            f"no result file for variant {variant!r} in {directory} (the gallery script that profiles it writes "
            "one; did it run?)"
        )
        return Found(None, None, warn(message, "missing", location))
    loaded, problem = _readable(env, paths)
    if problem is not None:
        return Found(None, None, warn(problem, "stale", location))
    path, picked = next(((p, a) for p, a in loaded if a.result.ok), loaded[0])
    if picked.result.trace_file:
        env.note_dependency(str(path.parent / picked.result.trace_file))
    return Found(picked, path)


def all_results(env: BuildEnvironment) -> list[Analysis]:
    """Every readable result in the results folder, one per variant (as :func:`find_result` picks), registry order.

    Unreadable files are skipped here (the directives that show them warn).
    """
    directory = results_dir(env)
    env.note_dependency(str(directory))
    picked = []
    for variant in VARIANTS:
        loaded, _ = _readable(env, results.find(directory, variant))
        if loaded:
            picked.append(next((a for _, a in loaded if a.result.ok), loaded[0][1]))
    return picked


def has_result(env: BuildEnvironment, variant: str) -> bool:
    """Whether the results folder has a file for ``variant`` (readable or not)."""
    return bool(results.find(results_dir(env), variant))


def find_cpu_costs(env: BuildEnvironment, location: Location) -> CpuCosts | None:
    """The side-by-side CPU-cost measurement of this build (``cpu_costs__<device>.json``), if it made one.

    Optional: without it, CPU figures come from each variant's own result. A file that cannot be read is a
    warning, like a stale result.
    """
    path = results.find_cpu_costs(results_dir(env))
    if path is None:
        return None
    env.note_dependency(str(path))
    try:
        return _cached("cpu_costs", path, results.load_cpu_costs)
    except (OSError, results.StaleResultError) as exc:
        warn(f"{path.name}: {exc}", "stale", location)
        return None


@dataclass
class FoundSweep:
    """The sweep a page shows, with its file; or why there is none."""

    sweep: Sweep | None
    path: Path | None
    problem: str | None = None


def find_sweep(env: BuildEnvironment, location: Location) -> FoundSweep:
    """The sweep of the results folder: ``sweep__cuda.json`` when there is one, else ``sweep__cpu.json``.

    The file read is noted as a dependency of the page. A missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    paths = [directory / sweep.filename(d) for d in ("cuda", "cpu")]
    path = next((p for p in paths if p.exists()), None)
    if path is None:
        env.note_dependency(str(directory))
        message = (
            f"no sweep file ({paths[0].name} or {paths[1].name}) in {directory} (examples/10-scaling.py writes it; "
            "did it run?)"
        )
        return FoundSweep(None, None, warn(message, "missing", location))
    env.note_dependency(str(path))
    try:
        return FoundSweep(_cached("sweep", path, sweep.load), path)
    except (results.StaleResultError, OSError) as exc:
        return FoundSweep(None, None, warn(f"stale or unreadable sweep file {path}: {exc}", "stale", location))


@dataclass
class FoundParallel:
    """The context-parallel run a page shows, with its file; or why there is none."""

    run: ParallelRun | None
    path: Path | None
    problem: str | None = None


def find_parallel(env: BuildEnvironment, location: Location) -> FoundParallel:
    """The context-parallel run of the results folder (``parallel__cuda.json``, else ``parallel__cpu.json``).

    A build that could not run it still has the file (its status says why). The file read is noted as a dependency
    of the page; a missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    path = parallel.find(directory)
    if path is None:
        env.note_dependency(str(directory))
        message = (
            f"no context-parallel run file ({parallel.filename('cuda')}) in {directory} "
            "(examples/14-context-parallel.py writes it; did it run?)"
        )
        return FoundParallel(None, None, warn(message, "missing", location))
    env.note_dependency(str(path))
    try:
        return FoundParallel(_cached("parallel", path, parallel.load), path)
    except (results.StaleResultError, OSError) as exc:
        return FoundParallel(None, None, warn(f"stale or unreadable run file {path}: {exc}", "stale", location))
