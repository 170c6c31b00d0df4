"""Finding what a page shows: result files (each analysed), the CPU-cost and fixed-cost files, the sweep, the
context-parallel run and the eligibility map, behind one cache.

Every file of every kind (:data:`KINDS`: results, CPU costs, sweeps, context-parallel runs, traces, eligibility
maps) is read the same way, by :func:`read`: once per process and version (its modification time), so that a result
is loaded and analysed (:func:`attnprof.analysis.summary.analyse`) once, however many directives and roles of however
many pages show it; noted as a dependency of the page that asked, so the page is read again when the file changes; and
verified before it is used or published (by the kind's reader, which raises
:class:`attnprof.records.files.UnreadableFile` for truncated gzip, bad JSON or another schema). A file that cannot
be read is one Sphinx warning at the directive's location (so ``-W`` fails the build), naming the file, what is
wrong and the fix (:func:`attnprof.sphinxext.gallery.fix_for`: delete it and build again, which re-runs the script
that writes it); the returned value carries the message for the page, and the build goes on.

Which result is used for a variant: of its result files (:func:`attnprof.records.results.find`), the first that ran
(``status == "ok"``), CUDA results before CPU ones; else the first one. For the training and decoding workloads,
:func:`find_build` gathers every result of the build (all variants, all cache lengths), analysed, into one
:class:`attnprof.analysis.workload_rows.Build`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from docutils import nodes
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from attnprof import workloads
from attnprof.analysis import attention, explain, summary
from attnprof.analysis.explain import Explanation
from attnprof.analysis.summary import Analysis
from attnprof.analysis.workload_rows import DECISION_WORKLOADS, Build
from attnprof.records import (
    eligibility,
    files,
    fixedcosts,
    forcing,
    foreign,
    masks,
    parallel,
    results,
    sweep,
    trace,
    trainscale,
)
from attnprof.records.eligibility import Grid
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.forcing import Forcing
from attnprof.records.masks import MaskRun
from attnprof.records.parallel import ParallelRun
from attnprof.records.results import CpuCosts, Result
from attnprof.records.sweep import Sweep
from attnprof.records.trainscale import TrainScale
from attnprof.sphinxext import depends, gallery
from attnprof.variants import VARIANTS

logger = logging.getLogger(__name__)

T = TypeVar("T")
Location = str | nodes.Node | None


@dataclass(frozen=True)
class FileKind(Generic[T]):
    """One kind of file a page reads.

    Attributes:
        what: What a warning calls it (``"sweep file"``).
        load: Reads a file of the kind; raises :class:`attnprof.records.files.UnreadableFile` (or ``OSError``) for
            one it cannot use.
    """

    what: str
    load: Callable[[Path], T]


def _analysed(path: Path) -> Analysis:
    return summary.analyse(results.load(path))


def _explained(path: Path) -> Explanation:
    return explain.explain(foreign.load(path, inputs_of=attention.wants_inputs))


def _whole_trace(path: Path) -> bool:
    trace.read_trace(path)  # gzip integrity, JSON, a trace
    return True


# the readers are looked up when called (not bound here), so that a test can count the reads
RESULT: FileKind[Analysis] = FileKind("result file", _analysed)
CPU_COSTS: FileKind[CpuCosts] = FileKind("CPU-cost file", lambda path: results.load_cpu_costs(path))
FIXED_COSTS: FileKind[FixedCosts] = FileKind("fixed-cost file", lambda path: fixedcosts.load(path))
SWEEP: FileKind[Sweep] = FileKind("sweep file", lambda path: sweep.load(path))
PARALLEL: FileKind[ParallelRun] = FileKind("context-parallel run file", lambda path: parallel.load(path))
TRACE: FileKind[bool] = FileKind("trace file", _whole_trace)
ELIGIBILITY: FileKind[Grid] = FileKind("eligibility map", lambda path: eligibility.load(path))
#: A PyTorch profiler trace recorded by anyone's code, read as ``attnprof explain`` reads it.
FOREIGN: FileKind[Explanation] = FileKind("profiler trace", _explained)
TRAIN_SCALE: FileKind[TrainScale] = FileKind("training-scale file", lambda path: trainscale.load(path))
MASKS: FileKind[MaskRun] = FileKind("mask run", lambda path: masks.load(path))
FORCING: FileKind[Forcing] = FileKind("forcing file", lambda path: forcing.load(path))
#: Every kind of file a page reads.
KINDS: tuple[FileKind[Any], ...] = (
    RESULT,
    CPU_COSTS,
    FIXED_COSTS,
    SWEEP,
    PARALLEL,
    TRACE,
    ELIGIBILITY,
    FOREIGN,
    TRAIN_SCALE,
    MASKS,
    FORCING,
)

#: (kind, path) -> (modification time, what was loaded from the file)
_CACHE: dict[tuple[str, Path], tuple[int, Any]] = {}


@dataclass(frozen=True)
class Read(Generic[T]):
    """What :func:`read` found: the file's content, or the one-line warning that says why there is none.

    Attributes:
        value: What the kind's reader made of the file, or ``None``.
        problem: The warning (``stale or unreadable sweep file: PATH: WHAT IS WRONG; HOW TO FIX IT``), or ``None``.
    """

    value: T | None
    problem: str | None = None


def read(
    env: BuildEnvironment,
    kind: FileKind[T],
    path: Path,
    location: Location,
    *,
    note: bool = True,
    quiet: bool = False,
) -> Read[T]:
    """The one way a page reads a file: ``kind``'s reader on ``path``, reused while the file keeps its
    modification time.

    Args:
        env: The build environment (its configuration says which script writes the file, for the fix).
        kind: The kind of file, one of :data:`KINDS`.
        path: The file.
        location: Where a warning points (a directive's location, or ``None``).
        note: Note the file as a dependency of the page being read (not for writers, which run after reading).
        quiet: Return the problem without logging it (for callers that read several files and warn once).

    Returns:
        The content, or the problem: a missing file (``KIND PATH is missing; FIX``), or an unreadable one
        (``stale or unreadable KIND: PATH: WHAT IS WRONG; FIX``). Never raises for a bad file.
    """
    path = Path(path)
    if note:
        env.note_dependency(str(path))
    try:
        mtime = path.stat().st_mtime_ns
        hit = _CACHE.get((kind.what, path))
        if hit is None or hit[0] != mtime:
            hit = (mtime, kind.load(path))
            _CACHE[(kind.what, path)] = hit
        return Read(hit[1])
    except FileNotFoundError:
        problem, subtype = f"{kind.what} {path} is missing", "missing"
    except (files.UnreadableFile, OSError) as exc:
        text = str(exc) if str(path) in str(exc) else f"{path}: {exc}"  # the path said once
        problem, subtype = f"stale or unreadable {kind.what}: {text}", "stale"
    problem += f"; {gallery.fix_for(env.config, env.srcdir, path)}"
    if not quiet:
        warn(problem, subtype, location)
    return Read(None, problem)


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
        found = read(env, RESULT, path, None, quiet=True)
        if found.value is not None:
            loaded.append((path, found.value))
        problem = problem or found.problem
    return loaded, problem


def find_result(
    env: BuildEnvironment, variant: str, location: Location, workload: str = "prefill", kv_len: int | None = None
) -> Found:
    """The analysed result to show for ``variant`` in ``workload`` (see the module docstring); for decoding, the one
    with a cache of ``kv_len`` positions (the longest that ran when ``None``).

    An unknown variant, a missing file and a stale file are logged as warnings at ``location``; the returned
    :class:`Found` then carries the message in ``problem``.
    """
    if variant not in VARIANTS:
        message = f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}"
        return Found(None, None, warn(message, "unknown", location))
    directory = results_dir(env)
    paths = results.find(directory, variant, workload)
    if not paths:
        # depending on the folder re-reads the page once results appear there
        depends.note_results_folder(env)
        name = results.result_filename(variant, (1, 1, 1, 1), "x", "cpu")
        script = gallery.script_for(env.config, env.srcdir, name)
        if script is None:
            fix = "the gallery script that profiles it writes one; did it run?"
        else:
            fix = f"{script.name} writes it: build again, which re-runs it"
        message = f"no result file for variant {variant!r} ({workload}) in {directory} ({fix})"
        return Found(None, None, warn(message, "missing", location))
    loaded, problem = _readable(env, paths)
    if problem is not None:
        return Found(None, None, warn(problem, "stale", location))
    if workloads.get(workload).kv_cache:
        loaded.sort(key=lambda pa: -(pa[1].result.kv_len or 0))
        if kv_len is not None:
            loaded = [(p, a) for p, a in loaded if a.result.kv_len == kv_len]
            if not loaded:
                message = f"no decode result of {variant!r} with a KV cache of {kv_len} in {directory}"
                return Found(None, None, warn(message, "missing", location))
    path, picked = next(((p, a) for p, a in loaded if a.result.ok), loaded[0])
    if picked.result.trace_file:
        env.note_dependency(str(path.parent / picked.result.trace_file))
    return Found(picked, path)


def all_results(env: BuildEnvironment) -> list[Analysis]:
    """Every readable result in the results folder, one per variant (as :func:`find_result` picks), registry order.

    Unreadable files are skipped here (the directives that show them warn).
    """
    directory = results_dir(env)
    depends.note_results_folder(env)
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
    return read(env, CPU_COSTS, path, location).value


def find_fixed_costs(env: BuildEnvironment, location: Location, needed: bool = False) -> FixedCosts | None:
    """The shape-independent CPU costs of this build (``fixed_costs__<device>.json``), if it measured them.

    A missing file is a warning only when ``needed`` (a role that cites a figure of it); an unreadable one always.
    """
    directory = results_dir(env)
    path = fixedcosts.find(directory)
    if path is None:
        env.note_dependency(str(directory))
        if needed:
            warn(f"no fixed-cost file ({fixedcosts.filename('cuda')}) in {directory} (examples/11-cpu-overhead.py "
                 "writes it; did it run?)", "missing", location)  # fmt: skip
        return None
    return read(env, FIXED_COSTS, path, location).value


@dataclass
class FoundSweep:
    """The sweep a page shows, with its file; or why there is none."""

    sweep: Sweep | None
    path: Path | None
    problem: str | None = None


def _sweep_path(directory: Path) -> Path | None:
    """``sweep__cuda.json`` when there is one, else ``sweep__cpu.json``, else ``None``."""
    return next((p for p in (directory / sweep.filename(d) for d in ("cuda", "cpu")) if p.exists()), None)


def find_sweep(env: BuildEnvironment, location: Location) -> FoundSweep:
    """The sweep of the results folder: ``sweep__cuda.json`` when there is one, else ``sweep__cpu.json``.

    The file read is noted as a dependency of the page. A missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    paths = [directory / sweep.filename(d) for d in ("cuda", "cpu")]
    path = _sweep_path(directory)
    if path is None:
        depends.note_results_folder(env)
        message = (
            f"no sweep file ({paths[0].name} or {paths[1].name}) in {directory} (examples/10-scaling.py writes it; "
            "did it run?)"
        )
        return FoundSweep(None, None, warn(message, "missing", location))
    found = read(env, SWEEP, path, location)
    return FoundSweep(found.value, path if found.value is not None else None, found.problem)


def quietly(env: BuildEnvironment, kind: FileKind[T], path: Path | None) -> T | None:
    """The file ``path`` of ``kind`` when it is there and readable, else ``None``, without a warning (for a page
    that sums up what other pages show: those warn about the file)."""
    return None if path is None else read(env, kind, path, None, quiet=True).value


def extra_sources(env: BuildEnvironment) -> tuple[TrainScale | None, MaskRun | None, Grid | None]:
    """The training-scale grid, the mask run and the eligibility map of the results folder, those that are there
    (quietly: :func:`quietly`)."""
    directory = results_dir(env)
    grid_path = next((p for p in (directory / trainscale.filename(d) for d in ("cuda", "cpu")) if p.exists()), None)
    return (quietly(env, TRAIN_SCALE, grid_path), quietly(env, MASKS, masks.find(directory)),
            quietly(env, ELIGIBILITY, eligibility.find(directory)))  # fmt: skip


def sweep_if_any(env: BuildEnvironment) -> Sweep | None:
    """The sweep of the results folder when there is a readable one, else ``None``, without a warning (for a page
    that only mentions it; the pages that show it warn through :func:`find_sweep`)."""
    path = _sweep_path(results_dir(env))
    return None if path is None else read(env, SWEEP, path, None, quiet=True).value


def verified_trace(env: BuildEnvironment, path: Path, location: Location) -> str | None:
    """Check the trace file ``path`` before a page publishes it: ``None`` when it is whole, else the warning
    (logged at ``location``): missing, truncated or corrupt gzip, not JSON, not a trace."""
    return read(env, TRACE, path, location).problem


def find_build(env: BuildEnvironment, location: Location, needed: tuple[str, ...] = ()) -> Build:
    """Every readable result of the build, analysed, by workload, with the sweep and the side-by-side issue times
    (:mod:`attnprof.records.forcing`) when there are some.

    Each workload of ``needed`` without a result file is a warning at ``location`` (its gallery script did not
    run); unreadable files are warnings too, and are left out.
    """
    directory = results_dir(env)
    depends.note_results_folder(env)
    by_workload: dict[str, list[Analysis]] = {}
    for workload in DECISION_WORKLOADS:
        loaded, problem = _readable(env, results.find(directory, "*", workload))
        if problem is not None:
            warn(problem, "stale", location)
        if loaded:
            by_workload[workload] = [a for _, a in loaded]
        elif workload in needed:
            script = {"train": "12-training.py", "decode": "13-decoding.py"}.get(workload, "01-naive.py")
            warn(f"no result file of the {workload} workload in {directory} (examples/{script} writes them; did it "
                 "run?)", "missing", location)  # fmt: skip
    sweep_path = _sweep_path(directory)
    found_sweep = read(env, SWEEP, sweep_path, location).value if sweep_path is not None else None
    forcing_path = forcing.find(directory)
    found_forcing = read(env, FORCING, forcing_path, location).value if forcing_path is not None else None
    return Build(by_workload, found_sweep, found_forcing)


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
        depends.note_results_folder(env)
        message = (
            f"no context-parallel run file ({parallel.filename('cuda')}) in {directory} "
            "(examples/14-context-parallel.py writes it; did it run?)"
        )
        return FoundParallel(None, None, warn(message, "missing", location))
    found = read(env, PARALLEL, path, location)
    return FoundParallel(found.value, path if found.value is not None else None, found.problem)


@dataclass
class FoundGrid:
    """The eligibility map a page shows, with its file; or why there is none."""

    grid: Grid | None
    path: Path | None
    problem: str | None = None


def find_grid(env: BuildEnvironment, location: Location) -> FoundGrid:
    """The eligibility map of the results folder (``eligibility__cuda.json``, else ``eligibility__cpu.json``).

    The file read is noted as a dependency of the page; a missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    path = eligibility.find(directory)
    if path is None:
        env.note_dependency(str(directory))
        message = (
            f"no eligibility map ({eligibility.filename('cuda')} or {eligibility.filename('cpu')}) in {directory} "
            "(examples/15-eligibility.py writes it; did it run?)"
        )
        return FoundGrid(None, None, warn(message, "missing", location))
    found = read(env, ELIGIBILITY, path, location)
    return FoundGrid(found.value, path if found.value is not None else None, found.problem)


@dataclass
class FoundTrainScale:
    """The training-scale grid a page shows, with its file; or why there is none."""

    grid: TrainScale | None
    path: Path | None
    problem: str | None = None


def find_trainscale(env: BuildEnvironment, location: Location) -> FoundTrainScale:
    """The training-scale grid of the results folder (``trainscale__cuda.json``, else ``trainscale__cpu.json``).

    The file read is noted as a dependency of the page; a missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    paths = [directory / trainscale.filename(d) for d in ("cuda", "cpu")]
    path = next((p for p in paths if p.exists()), None)
    if path is None:
        env.note_dependency(str(directory))
        message = (f"no training-scale file ({paths[0].name} or {paths[1].name}) in {directory} "
                   "(examples/12-training.py writes it; did it run?)")  # fmt: skip
        return FoundTrainScale(None, None, warn(message, "missing", location))
    found = read(env, TRAIN_SCALE, path, location)
    return FoundTrainScale(found.value, path if found.value is not None else None, found.problem)


@dataclass
class FoundMasks:
    """The mask run of the results folder, or why there is none."""

    run: MaskRun | None
    path: Path | None
    problem: str | None = None


def find_masks(env: BuildEnvironment, location: Location) -> FoundMasks:
    """The mask run of the results folder (``masks__cuda.json``, else ``masks__cpu.json``).

    The file read is noted as a dependency of the page; a missing or stale file is a warning at ``location``.
    """
    directory = results_dir(env)
    path = masks.find(directory)
    if path is None:
        env.note_dependency(str(directory))
        message = (
            f"no mask run ({masks.filename('cuda')} or {masks.filename('cpu')}) in {directory} "
            "(examples/16-masks.py writes it; did it run?)"
        )
        return FoundMasks(None, None, warn(message, "missing", location))
    found = read(env, MASKS, path, location)
    return FoundMasks(found.value, path if found.value is not None else None, found.problem)
