"""The side-by-side CPU cost per call of several variants, with and without the profiler, in interleaved rounds
(the article's CPU-overhead comparison; :func:`measure_cpu_costs`)."""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from attnprof import settings, variants
from attnprof.inputs import Setup, default_setup, make_inputs
from attnprof.measure.failure import attempt
from attnprof.measure.interrupts import interrupts_seen
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import replayed_costs, reusable_costs
from attnprof.measure.timing import exported, recording, sync, time_dispatch_us
from attnprof.noise import Figure, median_interval
from attnprof.records import results, trace
from attnprof.records.results import CpuCostRow, CpuCosts

#: Rounds of the side-by-side measurement: the band of a median over 16 rounds runs from the fourth lowest to the
#: fourth highest round median (:func:`attnprof.noise.median_interval`), so that a few disturbed rounds cannot move
#: it.
ROUNDS = 16


def default_names(device: str) -> tuple[str, ...]:
    """The variants measured side by side on ``device``: every variant the registry marks (``Variant.cpu_cost``),
    without those that compile on the CPU (tens of seconds each there)."""
    return tuple(n for n in variants.names(cpu_cost=True) if device == "cuda" or not variants.get(n).compiled)


def measure_cpu_costs(
    names: Iterable[str] | None = None,
    setup: Setup | None = None,
    *,
    rounds: int = ROUNDS,
    calls: int = 10,
    profiled_calls: int = 3,
    save_to: str | Path | None = None,
    reuse: bool | None = None,
) -> CpuCosts:
    """CPU cost per call of several variants, with and without the profiler, measured side by side.

    Every variant is built and warmed up first. Then, in each of ``rounds`` rounds (the order of the variants
    rotated by one each round), each variant is called ``calls`` times without the profiler (the GPU idle before
    each call; the time until the call returns is its dispatch cost). The forcing context alone is not measured
    here: it costs the same for every backend and shape, and the build measures it once, directly
    (:func:`attnprof.measure.fixedcosts.measure_fixed_costs`). Afterwards one profiler session (CPU and CUDA
    activities, shapes recorded, as in :func:`attnprof.measure.profiling.profile`) runs the same rounds with
    ``profiled_calls`` calls per variant, each inside ``record_function("<variant>_fwd")``; the annotation lengths
    are the profiled CPU times.

    Each round gives one median per variant and figure; the figure reported is the median of those round medians,
    with its confidence interval over the rounds (:func:`attnprof.noise.median_interval`). The rounds, not the
    calls, are the samples: calls of one round share the machine's state, rounds do not.

    ``names`` defaults to the variants the registry marks for this comparison (:func:`default_names`: every one,
    without those that compile on the CPU); a variant that compiles reuses what this process compiled for the shape
    before (its variant page, in the docs build). A variant that cannot run gets a row saying why; it never
    stops the others. Bad names raise ``ValueError``.

    With ``reuse`` (by default when ``$ATTNPROF_REUSE`` asks for it, as the docs build does), a measurement saved in
    ``save_to`` for the same variants, shape, dtype and rounds, by the same code on the same machine, is returned
    instead of measuring again; with ``$ATTNPROF_REUSE=replay`` (its other languages) the saved measurement is
    returned whatever it measured (:func:`attnprof.measure.reuse.replayed_costs`).
    """
    import torch
    from torch.profiler import record_function

    setup = setup or default_setup()
    chosen = [variants.get(n) for n in (default_names(setup.device) if names is None else names)]
    if settings.replaying():  # the docs build's other languages: what the first one measured (attnprof.measure.reuse)
        return replayed_costs(setup.device, save_to if save_to is not None else settings.results_dir())
    if (settings.reuse_measurements() if reuse is None else reuse) and save_to is not None:
        saved = reusable_costs([v.name for v in chosen], setup, rounds, save_to, environment(setup.device))
        if saved is not None:
            return saved
    rows = {v.name: CpuCostRow(v.name, "ok") for v in chosen}
    calls_of: dict[str, Callable[[], Any]] = {}
    missing = cuda_missing_reason() if setup.device == "cuda" else None
    seen = interrupts_seen()
    with torch.no_grad():
        q, k, v_ = make_inputs(setup) if missing is None else (None, None, None)
        for v in chosen:
            if missing is not None:
                rows[v.name] = CpuCostRow(v.name, "no_cuda", missing)
                continue
            with attempt(v, setup.device, since=seen) as outcome:  # failure is data: the row says why
                fn = v.build(setup.shape[2], setup.device)
                for _ in range(3):
                    fn(q, k, v_)
                sync(setup.device)
                calls_of[v.name] = functools.partial(fn, q, k, v_)
            if not outcome.ok:
                rows[v.name] = CpuCostRow(v.name, outcome.status, outcome.reason)
        live = [n for n in rows if n in calls_of]
        # per variant, one list of samples per round
        dispatch: dict[str, list[list[float]]] = {n: [] for n in live}
        for r in range(rounds):
            for n in live[r % len(live) :] + live[: r % len(live)] if live else []:
                dispatch[n].append(time_dispatch_us(calls_of[n], setup.device, reps=calls))
        profiled: dict[str, list[list[float]]] = {n: [] for n in live}
        if live:
            with recording(setup.device) as prof:
                for r in range(rounds):
                    for n in live[r % len(live) :] + live[: r % len(live)]:
                        for _ in range(profiled_calls):
                            with record_function(variants.get(n).annotation):
                                calls_of[n]()
                            sync(setup.device)
            _, parsed = exported(prof)
            for n in live:
                # the annotations come back in time order, round after round
                steps = [s.cpu_time_us for s in trace.parse_trace(parsed, variants.get(n).annotation)]
                profiled[n] = [steps[i : i + profiled_calls] for i in range(0, len(steps), profiled_calls)]
    for n in live:
        rows[n] = CpuCostRow(
            n,
            "ok",
            profiled=_over_rounds(profiled[n]),
            dispatch=_over_rounds(dispatch[n]),
            samples=[sum(map(len, profiled[n])), sum(map(len, dispatch[n]))],
        )
    costs = CpuCosts(
        device=setup.device,
        shape=list(setup.shape),
        dtype=setup.dtype,
        rounds=rounds,
        environment=environment(setup.device),
        rows=[rows[v.name] for v in chosen],
    )
    if save_to is not None:
        results.save_cpu_costs(costs, Path(save_to))
    return costs


def _over_rounds(rounds: list[list[float]]) -> Figure | None:
    """The median of the rounds' medians with its confidence interval over the rounds; ``None`` without samples."""
    medians = [statistics.median(r) for r in rounds if r]
    return median_interval(medians) if medians else None
