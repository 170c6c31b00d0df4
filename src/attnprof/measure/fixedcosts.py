"""Measure the CPU costs that do not depend on the shape, once per build, directly (:func:`measure_fixed_costs`):
the ``sdpa_kernel`` context that forces a backend, and what the profiler adds to each op it records. The file
format is :mod:`attnprof.records.fixedcosts`.

Why directly: the cost of forcing could be read off as the dispatch cost of a forced variant minus SDPA's own, at
each shape. Those two are measured in different runs, seconds or minutes apart, and CPU times drift by more than the
cost itself; the difference then came out anywhere between 8 and 224 µs on one build of an H200 for a context that
does the same work at every shape. Entered alone thousands of times, it gives one figure with a tight band.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from attnprof.measure.failure import attempt
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import measured_by_this_code, same_machine
from attnprof.measure.timing import recording, sync
from attnprof.noise import Figure, median_interval
from attnprof.records import fixedcosts
from attnprof.records.files import UnreadableFile
from attnprof.records.fixedcosts import FixedCosts
from attnprof.settings import reuse_measurements

#: The backends the forcing context is entered with, in turn (``torch.nn.attention.SDPBackend`` members).
BACKENDS: tuple[str, ...] = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")


def measure_fixed_costs(
    device: str = "cpu",
    *,
    rounds: int = 20,
    calls: int = 200,
    profiled_rounds: int = 8,
    save_to: str | Path | None = None,
    reuse: bool | None = None,
) -> FixedCosts:
    """The shape-independent CPU costs of this machine (see :class:`attnprof.records.fixedcosts.FixedCosts`).

    Forcing: in each of ``rounds`` rounds, ``calls`` times entering and leaving ``sdpa_kernel(backend)`` with
    nothing inside, the backends of :data:`BACKENDS` in turn, each timed alone. The profiler: in each of
    ``profiled_rounds`` rounds, ``calls`` calls of a one-element ``torch.add`` on ``device`` timed as one block
    without the profiler, then as one block inside a profiler session that records as the pages' sessions do
    (:func:`attnprof.measure.timing.recording`); the difference per call is what the profiler adds to one op.

    With ``reuse`` (by default when ``$ATTNPROF_REUSE`` asks for it, as the docs build does), a file saved in
    ``save_to`` by the same code on the same machine, with the same rounds and calls, is returned instead of
    measuring again. Never raises for a measurement that cannot be made: the file says why.

    Raises:
        ValueError: for a number of rounds or calls that is not a positive integer.
    """
    for name, n in (("rounds", rounds), ("calls", calls), ("profiled_rounds", profiled_rounds)):
        if not isinstance(n, int) or n <= 0:
            raise ValueError(f"bad number of {name} {n!r}; expected a positive integer such as 10")
    if (reuse_measurements() if reuse is None else reuse) and save_to is not None:
        saved = _reusable(device, rounds, calls, Path(save_to))
        if saved is not None:
            return saved
    missing = cuda_missing_reason() if device == "cuda" else None
    costs = FixedCosts(device, environment("cpu" if missing else device), rounds, calls, backends=list(BACKENDS))
    with attempt() as forcing:  # a torch without torch.nn.attention: the file says why
        costs.forcing = _forcing(rounds, calls)
    reasons = [forcing.reason]
    if missing is None:
        with attempt() as profiler:
            costs.op_us, costs.profiled_op_us, costs.profiler_per_op, costs.events_per_call = _profiler(
                device, profiled_rounds, calls
            )
        reasons.append(profiler.reason)
    else:
        reasons.append(missing)
    costs.reason = "; ".join(r for r in reasons if r) or None
    if save_to is not None:
        fixedcosts.save(costs, save_to)
    return costs


def _forcing(rounds: int, calls: int) -> Figure:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backends = [getattr(SDPBackend, b) for b in BACKENDS]
    for b in backends:  # warm up: the first entry imports and caches
        with sdpa_kernel(b):
            pass
    medians = []
    for r in range(rounds):
        samples = []
        for c in range(calls):
            b = backends[(r + c) % len(backends)]
            t0 = time.perf_counter()
            with sdpa_kernel(b):
                pass
            samples.append((time.perf_counter() - t0) * 1e6)
        medians.append(statistics.median(samples))
    return median_interval(medians)


def _profiler(device: str, rounds: int, calls: int) -> tuple[Figure, Figure, Figure, float]:
    import torch

    x, y, out = (torch.ones(1, device=device) for _ in range(3))

    def block() -> float:
        sync(device)
        t0 = time.perf_counter()
        for _ in range(calls):
            torch.add(x, y, out=out)
        elapsed = time.perf_counter() - t0
        sync(device)
        return elapsed * 1e6 / calls

    block()  # warm up
    plain, profiled, events = [], [], None
    for _ in range(rounds):
        plain.append(block())
        with recording(device) as prof:
            profiled.append(block())
        if events is None:  # the events of one block, counted once
            events = sum(1 for e in prof.events() if e.device_type.name == "CPU") / calls
    added = [p - q for p, q in zip(profiled, plain, strict=True)]
    return median_interval(plain), median_interval(profiled), median_interval(added), events or 0.0


def _reusable(device: str, rounds: int, calls: int, folder: Path) -> FixedCosts | None:
    """The fixed costs saved in ``folder`` when they can stand for a new measurement (same rounds and calls, this
    machine, written after the last change to the measuring code and to this module)."""
    path = folder / fixedcosts.filename(device)
    try:
        saved = fixedcosts.load(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    if (saved.rounds, saved.calls) != (rounds, calls) or not measured_by_this_code(path, Path(__file__)):
        return None
    here = environment("cpu" if device == "cuda" and cuda_missing_reason() else device)
    return saved if same_machine(saved.environment, here) else None
