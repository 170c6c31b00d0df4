"""Measure once: when a measurement saved earlier can stand for a new one.

The docs build runs every gallery script once per language. The first language measures and saves; the second
runs the same scripts (translated) and, told so by ``$ATTNPROF_REUSE`` (:func:`attnprof.settings.reuse_measurements`),
takes the measurements from the saved files instead of measuring again: the timing of a variant without the
profiler (:func:`attnprof.measure.profiling.from_trace`), the side-by-side CPU costs
(:func:`attnprof.measure.cpucosts.measure_cpu_costs`) and the sequence-length sweep
(:func:`attnprof.measure.sweeprun.run_sweep`). A script's own short profiler run is repeated; it is cheap, and it is
what its page prints.

A saved measurement stands for a new one only when nothing that decides its numbers changed: the same variant,
shape, dtype and device (or the same sweep plan), the same device name, torch and attnprof, and a file written
after the last change to the measuring code (:data:`MEASURING_CODE`). Anything else measures again.

No torch here: the callers pass the :class:`~attnprof.records.results.Environment` of this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof.records import results
from attnprof.records.files import UnreadableFile
from attnprof.records.results import CpuCosts, Environment, Result
from attnprof.records.sweep import Sweep
from attnprof.records.sweep import filename as sweep_filename
from attnprof.records.sweep import load as load_sweep

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
