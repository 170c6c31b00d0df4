"""Measure once: when a measurement saved earlier can stand for a new one, and the docs build's replay.

The docs build runs every gallery script once per language, and both languages must show one experiment: the same
figures, traces, pictures and verdicts. :func:`attnprof.settings.reuse_measurements` and
:func:`attnprof.settings.replaying` (``$ATTNPROF_REUSE``) say how a run treats what is already saved:

``1`` (the first language)
    Reuse what the same code measured on the same machine (:func:`reusable_result`, :func:`reusable_costs`,
    :func:`reusable_sweep`); measure the rest; save everything, including what a script prints from a
    measurement of its own (:func:`once`).
``replay`` (every other language)
    Measure nothing and write nothing: every measuring function returns what the first language saved
    (:func:`replayed_result`, :func:`replayed_costs`, :func:`replayed_sweep`, :func:`replayed_parallel`), and
    :func:`once` hands back the value the first language printed. The scripts still run, so that they print and draw
    in their own language; their own profiler runs are thrown away (:func:`attnprof.measure.profiling.from_trace`
    puts the first language's trace back where the script exported its own). A missing saved copy is an error
    (:class:`NotRecorded`), never a silent new measurement.

A saved measurement stands for a new one (``1``) only when nothing that decides its numbers changed: the same
variant, shape, dtype and device (or the same sweep plan), the same device name, torch and attnprof, and a file
written after the last change to the measuring code (:data:`MEASURING_CODE`). Anything else measures again.

No torch here: the callers pass the :class:`~attnprof.records.results.Environment` of this machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof import settings
from attnprof.records import files, forcing, parallel, results, trainscale
from attnprof.records.files import UnreadableFile
from attnprof.records.forcing import Forcing
from attnprof.records.parallel import ParallelRun
from attnprof.records.results import CpuCosts, Environment, Result
from attnprof.records.sweep import Sweep
from attnprof.records.sweep import filename as sweep_filename
from attnprof.records.sweep import load as load_sweep
from attnprof.records.trainscale import TrainScale

if TYPE_CHECKING:
    from attnprof.inputs import Setup

#: The modules whose code decides a measurement (paths in the package): a file older than any of them is never reused.
MEASURING_CODE = ("measure/timing", "measure/steps", "measure/profiling", "measure/cpucosts", "measure/reuse",
                  "noise", "inputs", "variants", "workloads", "records/results")  # fmt: skip
#: What a saved sweep must share with a configuration to stand for it.
SWEEP_PLAN = ("variants", "seqs", "head_dims", "batch", "heads", "dtype", "device", "compiled_seqs", "plan",
              "budget_s", "recheck")  # fmt: skip


def measured_by_this_code(path: Path, *more_code: Path) -> bool:
    """Whether ``path`` was written after the last change to the measuring code (and to ``more_code``)."""
    package = Path(__file__).parent.parent
    code = [package / f"{name}.py" for name in MEASURING_CODE] + list(more_code)
    return path.stat().st_mtime_ns >= max(f.stat().st_mtime_ns for f in code)


def same_machine(saved: Environment, here: Environment) -> bool:
    """Whether ``saved`` describes the machine ``here`` describes: the same device, torch and attnprof."""
    return all(getattr(saved, f) == getattr(here, f) for f in ("device_name", "torch_version", "attnprof_version"))


def reusable_result(variant: str, setup: Setup, folder: str | Path, here: Environment,
                    *more_code: Path) -> Result | None:  # fmt: skip
    """The result of ``variant`` on ``setup`` saved in ``folder``, when its measurements can stand for a new run: it
    ran (status ``ok``, with a timing), on this machine, after the last change to the measuring code (and to
    ``more_code``: the file that defines the measured callable, a gallery script)."""
    path = Path(folder) / results.result_filename(variant, setup.shape, setup.dtype, setup.device)
    try:
        saved = results.load(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    if not saved.ok or saved.timing is None or not measured_by_this_code(path, *more_code):
        return None
    return saved if same_machine(saved.environment, here) else None


def reusable_costs(names: list[str], setup: Setup, rounds: int, folder: str | Path,
                   here: Environment) -> CpuCosts | None:  # fmt: skip
    """The CPU costs saved in ``folder`` when they measured the same variants, shape, dtype and rounds on this
    machine, after the last change to the measuring code."""
    path = Path(folder) / f"cpu_costs__{setup.device}.json"
    try:
        saved = results.load_cpu_costs(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    same = (saved.shape, saved.dtype, saved.rounds, [r.variant for r in saved.rows]) == (
        list(setup.shape), setup.dtype, rounds, list(names))  # fmt: skip
    if not same or not measured_by_this_code(path):
        return None
    return saved if same_machine(saved.environment, here) else None


def reusable_sweep(config: Any, folder: str | Path, here: Environment, *more_code: Path) -> Sweep | None:
    """The sweep saved in ``folder`` when it was planned like ``config`` (a
    :class:`attnprof.measure.sweeprun.SweepConfig`; the fields of :data:`SWEEP_PLAN`) and ran on this machine after
    the last change to the measuring code (and to ``more_code``, the sweep's own module)."""
    path = Path(folder) / sweep_filename(config.device)
    try:
        saved = load_sweep(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    for name in SWEEP_PLAN:
        wanted = getattr(config, name)
        wanted = wanted.to_dict() if hasattr(wanted, "to_dict") else wanted  # the timing plan, as the file holds it
        if getattr(saved, name) != (list(wanted) if isinstance(wanted, tuple) else wanted):
            return None
    if not measured_by_this_code(path, *more_code):
        return None
    return saved if same_machine(saved.environment, here) else None


# --- replay: the docs build's other languages --------------------------------------------------------------------


class NotRecorded(RuntimeError):
    """Replaying (``$ATTNPROF_REUSE=replay``), a measurement that the first language should have saved is not there
    or cannot be read: build the first language first (``python -m attnprof.site.builder`` does)."""


def _replayed(what: str, path: Path, load: Any) -> Any:
    try:
        return load(path)
    except (FileNotFoundError, UnreadableFile) as exc:
        raise NotRecorded(
            f"replaying {what}, but {path} {'is missing' if isinstance(exc, FileNotFoundError) else 'is unreadable'}:"
            " the first language's build saves it (python -m attnprof.site.builder builds the languages in order)"
        ) from exc


def replayed_result(variant: str, setup: Setup, folder: str | Path, workload: str = "prefill") -> Result:
    """The result of ``variant`` on ``setup`` (and ``workload``) that the first language saved in ``folder``.

    Raises:
        NotRecorded: if there is none, or it cannot be read.
    """
    name = results.result_filename(variant, setup.shape, setup.dtype, setup.device, workload, setup.kv_heads,
                                   setup.kv_len)  # fmt: skip
    return _replayed(f"{variant} ({workload})", Path(folder) / name, results.load)


def replayed_costs(device: str, folder: str | Path) -> CpuCosts:
    """The side-by-side CPU costs the first language saved in ``folder`` (raises :class:`NotRecorded`)."""
    return _replayed("the CPU costs", Path(folder) / f"cpu_costs__{device}.json", results.load_cpu_costs)


def replayed_forcing(device: str, folder: str | Path) -> Forcing:
    """The side-by-side issue times at the decision table's shapes that the first language saved in ``folder``
    (raises :class:`NotRecorded`)."""
    return _replayed("the issue times of the decision table", Path(folder) / forcing.filename(device), forcing.load)


def replayed_sweep(device: str, folder: str | Path) -> Sweep:
    """The sweep the first language saved in ``folder`` (raises :class:`NotRecorded`)."""
    return _replayed("the sweep", Path(folder) / sweep_filename(device), load_sweep)


def replayed_parallel(device: str, folder: str | Path) -> ParallelRun:
    """The context-parallel run the first language saved in ``folder`` (raises :class:`NotRecorded`)."""
    return _replayed("the context-parallel run", Path(folder) / parallel.filename(device), parallel.load)


def replayed_trainscale(device: str, folder: str | Path) -> TrainScale:
    """The training-scale grid the first language saved in ``folder`` (raises :class:`NotRecorded`)."""
    return _replayed("the training-scale grid", Path(folder) / trainscale.filename(device), trainscale.load)


#: Names :func:`once` accepts: they name files.
_ONCE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: The folder of the results folder where :func:`once` keeps what scripts printed.
SHOWN = "shown"


def once_path(name: str, folder: str | Path | None = None) -> Path:
    """Where :func:`once` keeps the value called ``name``: ``<results folder>/shown/<name>.json``."""
    if not _ONCE_NAME.match(name):
        raise ValueError(f"bad name {name!r} for a printed measurement: use letters, digits, '_', '.' and '-'")
    return Path(folder if folder is not None else settings.results_dir()) / SHOWN / f"{name}.json"


def once(name: str, value: Any, folder: str | Path | None = None) -> Any:
    """A value a script prints from a measurement of its own (a profiler table's text, a time taken by hand, an
    error against a reference), taken once for every language of the docs build.

    Run by hand, it returns ``value``. In the docs build's first language (``$ATTNPROF_REUSE=1``) it also saves
    ``value`` (JSON: text, numbers, lists, dicts) as ``name`` in the results folder; in the other languages
    (``replay``) it returns the value the first language saved instead of ``value``, so both pages print one
    measurement. A function as ``value`` is called for the value, except when replaying, where it is not called at
    all: a figure computed by attnprof's measuring code (``lambda: inputs.relative_error(out, ref)``) must be passed
    that way, since measuring while replaying fails the build (:class:`attnprof.settings.MeasuredWhileReplaying`).

    Args:
        name: What the value is, unique across the gallery (``"naive_table"``): a file name.
        value: The value measured in this run, or a function of no arguments that measures it.
        folder: The results folder (:func:`attnprof.settings.results_dir` when omitted).

    Raises:
        NotRecorded: replaying, when the first language saved no value called ``name``.
        ValueError: for a name that is not a plain file name, or a value JSON cannot hold.
    """
    path = once_path(name, folder)
    if settings.replaying():
        return _replayed(f"the printed {name!r}", path, lambda p: files.read_json(p)["value"])
    if callable(value):
        value = value()
    if not settings.reuse_measurements():
        return value
    try:
        data = files.json_bytes({"name": name, "value": value})
    except TypeError as exc:
        raise ValueError(f"{name!r}: JSON cannot hold {type(value).__name__} ({exc})") from exc
    files.write_if_changed(path, data)
    return json.loads(data)["value"]  # what the other languages will get: the same value, through JSON
