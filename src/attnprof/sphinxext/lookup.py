"""Finding what a page shows: every kind of record file of the register (:mod:`attnprof.records.kinds`: results,
each analysed, CPU costs, fixed costs, the side-by-side issue times, the sweep, the context-parallel run, the
eligibility map, the training-scale grid, the mask run), traces, and a profiler trace of anyone's code, behind one
cache.

Every file of every kind (:data:`KINDS`) is read the same way, by :func:`read`: once per process and version (its
modification time), so that a result is loaded and analysed (:func:`attnprof.analysis.summary.analyse`) once,
however many directives and roles of however many pages show it; noted as a dependency of the page that asked, so the
page is read again when the file changes; and verified before it is used or published (by the kind's reader, which
raises :class:`attnprof.records.files.UnreadableFile` for truncated gzip, bad JSON, another schema or a field of the
wrong type). A file that cannot be read is one Sphinx warning at the directive's location (so ``-W`` fails the
build), naming the file, what is wrong and the fix (:func:`attnprof.sphinxext.gallery.fix_for`: delete it and build
again, which re-runs the script that writes it); the returned value carries the message for the page, and the build
goes on.

:func:`find_record` finds the file of one kind of the register in the results folder (its preferred device's: CUDA
before the CPU); a missing one is a warning that names the files looked for and the gallery script that declares
them (:func:`attnprof.sphinxext.gallery.writer_line`), and the page then depends on the list of the results folder
(:func:`attnprof.sphinxext.depends.note_results_folder`), so that it is read again when a file appears, and not on
every build. :func:`quietly` is its quiet form, for a page that only sums up or mentions what other pages show (those
warn about the file).

Which result is used for a variant: of its result files (:func:`attnprof.records.results.find`), the first that ran
(``status == "ok"``), CUDA results before CPU ones; else the first one. For the training and decoding workloads,
:func:`find_build` gathers every result of the build (all variants, all cache lengths), analysed, into one
:class:`attnprof.analysis.workload_rows.Build`, with the sweep and the side-by-side issue times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

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
    kinds,
    masks,
    results,
    sweep,
    trace,
    trainscale,
)
from attnprof.records.eligibility import Grid
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.kinds import Kind
from attnprof.records.masks import MaskRun
from attnprof.records.results import CpuCosts, Result
from attnprof.records.sweep import Sweep
from attnprof.records.trainscale import TrainScale
from attnprof.sphinxext import depends, gallery
from attnprof.variants import VARIANTS

logger = logging.getLogger(__name__)

T = TypeVar("T")
Location = str | nodes.Node | None


class Readable(Protocol[T]):
    """Anything :func:`read` reads: a kind of the register (:class:`attnprof.records.kinds.Kind`), or a
    :class:`FileKind` of this module."""

    what: str

    def load(self, path: Path, /) -> T: ...


@dataclass(frozen=True)
class FileKind(Generic[T]):
    """A reading of files that is not a record of the register: an analysed result, a whole trace, a trace of
    anyone's code.

    Attributes:
        what: What a warning calls it (``"trace file"``).
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


#: A result file, analysed (the readers are looked up when called, not bound here, so that a test can count reads).
RESULT: FileKind[Analysis] = FileKind(results.KIND.what, _analysed)
TRACE: FileKind[bool] = FileKind("trace file", _whole_trace)
#: A PyTorch profiler trace recorded by anyone's code, read as ``attnprof explain`` reads it.
FOREIGN: FileKind[Explanation] = FileKind("profiler trace", _explained)
#: Every kind of file a page reads: results (analysed), traces, traces of anyone's code, and every kind of the
#: register that a page looks up (those with devices).
KINDS: tuple[Readable[Any], ...] = (
    RESULT,
    TRACE,
    FOREIGN,
    *(k for k in kinds.every() if k.devices and k is not results.KIND),
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
    kind: Readable[T],
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
class Found(Generic[T]):
    """What a page found of one kind of file: its content and the file, or why there is none.

    Attributes:
        value: The record (for results: the analysis), or ``None``.
        path: The file it came from, or ``None``.
        problem: The warning already logged (missing or unreadable), or ``None``.
    """

    value: T | None
    path: Path | None
    problem: str | None = None


@dataclass
class FoundResult(Found[Analysis]):
    """A result picked for a variant, analysed, with the file it came from; or why there is none."""

    @property
    def analysis(self) -> Analysis | None:
        return self.value

    @property
    def result(self) -> Result | None:
        return None if self.value is None else self.value.result


def find_record(
    env: BuildEnvironment, kind: Kind[T], location: Location, *, needed: bool = True, quiet: bool = False
) -> Found[T]:
    """The file of ``kind`` in the results folder (:meth:`attnprof.records.kinds.Kind.find`: CUDA's before the
    CPU's), read (:func:`read`).

    A missing file is a warning at ``location`` when ``needed`` (naming the files looked for and the gallery script
    that writes them); the page then depends on the list of the results folder, so that it is read again when the
    file appears (and not on every build). An unreadable file is always a warning, unless ``quiet`` (then neither is
    one: the problem is only returned).
    """
    directory = results_dir(env)
    path = kind.find(directory)
    if path is None:
        depends.note_results_folder(env)
        if not needed:
            return Found(None, None)
        names = kind.filenames()
        writer = gallery.writer_line(env.config, env.srcdir, names[0])
        message = f"no {kind.what} ({' or '.join(names)}) in {directory} ({writer})"
        return Found(None, None, warn(message, "missing", location))
    found = read(env, kind, path, location, quiet=quiet)
    return Found(found.value, path if found.value is not None else None, found.problem)


def quietly(env: BuildEnvironment, kind: Kind[T]) -> T | None:
    """The record of ``kind`` in the results folder when there is a readable one, else ``None``, without a warning
    (:func:`find_record`, quiet): for a page that sums up or mentions what other pages show, which warn about the
    file."""
    return find_record(env, kind, None, needed=False, quiet=True).value


def extra_sources(env: BuildEnvironment) -> tuple[TrainScale | None, MaskRun | None, Grid | None]:
    """The training-scale grid, the mask run and the eligibility map of the results folder, those that are there
    and readable (:func:`quietly`)."""
    return quietly(env, trainscale.KIND), quietly(env, masks.KIND), quietly(env, eligibility.KIND)


def sweep_if_any(env: BuildEnvironment) -> Sweep | None:
    """The sweep of the results folder when there is a readable one, else ``None``, without a warning (for a page
    that only mentions it; the pages that show it warn through :func:`find_record`)."""
    return quietly(env, sweep.KIND)


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
) -> FoundResult:
    """The analysed result to show for ``variant`` in ``workload`` (see the module docstring); for decoding, the one
    with a cache of ``kv_len`` positions (the longest that ran when ``None``).

    An unknown variant, a missing file and a stale file are logged as warnings at ``location``; the returned
    :class:`FoundResult` then carries the message in ``problem``.
    """
    if variant not in VARIANTS:
        message = f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}"
        return FoundResult(None, None, warn(message, "unknown", location))
    directory = results_dir(env)
    paths = results.find(directory, variant, workload)
    if not paths:
        # depending on the list of the folder re-reads the page once results appear there
        depends.note_results_folder(env)
        writer = gallery.writer_line(env.config, env.srcdir, _a_result_name(variant, workload))
        message = f"no result file for variant {variant!r} ({workload}) in {directory} ({writer})"
        return FoundResult(None, None, warn(message, "missing", location))
    loaded, problem = _readable(env, paths)
    if problem is not None:
        return FoundResult(None, None, warn(problem, "stale", location))
    if workloads.get(workload).kv_cache:
        loaded.sort(key=lambda pa: -(pa[1].result.kv_len or 0))
        if kv_len is not None:
            loaded = [(p, a) for p, a in loaded if a.result.kv_len == kv_len]
            if not loaded:
                message = f"no decode result of {variant!r} with a KV cache of {kv_len} in {directory}"
                return FoundResult(None, None, warn(message, "missing", location))
    path, picked = next(((p, a) for p, a in loaded if a.result.ok), loaded[0])
    if picked.result.trace_file:
        env.note_dependency(str(path.parent / picked.result.trace_file))
    return FoundResult(picked, path)


def _a_result_name(variant: str, workload: str) -> str:
    """The name of a result file of ``variant`` (``"*"``: any) in ``workload``, to ask which script writes it."""
    return results.result_filename("naive" if variant == "*" else variant, (1, 1, 1, 1), "x", "cpu", workload)


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
    return find_record(env, results.CPU_COSTS, location, needed=False).value


def find_fixed_costs(env: BuildEnvironment, location: Location, needed: bool = False) -> FixedCosts | None:
    """The shape-independent CPU costs of this build (``fixed_costs__<device>.json``), if it measured them.

    A missing file is a warning only when ``needed`` (a role that cites a figure of it); an unreadable one always.
    """
    return find_record(env, fixedcosts.KIND, location, needed=needed).value


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
            writer = gallery.writer_line(env.config, env.srcdir, _a_result_name("*", workload))
            warn(f"no result file of the {workload} workload in {directory} ({writer})", "missing", location)
    found_sweep = find_record(env, sweep.KIND, location, needed=False).value
    return Build(by_workload, found_sweep, find_record(env, forcing.KIND, location, needed=False).value)
