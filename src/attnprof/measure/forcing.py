"""Measure what each call costs the CPU at every shape of the decision table, side by side (:func:`measure_forcing`;
the file is :mod:`attnprof.records.forcing`).

At each shape (training at its length, prefill at the sweep's lengths and head dim, decoding at each cache length:
:func:`cases`), SDPA's own choice, every backend it can be forced to and the naive code are prepared on the same
inputs and warmed up; then, in each of a few rounds (the order rotated by one each round), each call is issued
``calls`` times, the device idle before each (:func:`attnprof.measure.timing.time_dispatch_us`). A round gives one
median per call, and one difference per forced call against SDPA's own choice: what forcing that backend adds to
the CPU's work per call, the context and the other dispatch together. The figures are medians over the rounds with
their intervals.

It is cheap because it only needs a few rounds: a call slower than :data:`SLOW_MS` is not timed (its step is so
GPU-bound that its issue time cannot matter), the rounds shrink to fit :data:`BUDGET_MS` of calls per shape, and the
variants that compile are left out (their own runs give their issue time). On one H200 the whole table is ten shapes
of a few hundred milliseconds each.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from attnprof import inputs, settings, variants, workloads
from attnprof.inputs import Setup
from attnprof.measure import steps
from attnprof.measure.failure import attempt
from attnprof.measure.interrupts import interrupts_seen, raise_if_interrupted
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import measured_by_this_code, replayed_forcing, same_machine
from attnprof.measure.sweeprun import default_config
from attnprof.measure.timing import sync, time_dispatch_us, warm_up
from attnprof.noise import median_interval
from attnprof.records import forcing as records
from attnprof.records.files import UnreadableFile
from attnprof.records.forcing import Forcing, ForcingCase, IssueRow

#: Most rounds per shape, and the fewest that a band is taken over.
ROUNDS = 12
MIN_ROUNDS = 6
#: Calls per variant and round (1 where a round of them would take longer than :data:`LONG_ROUND_MS`).
CALLS = 3
LONG_ROUND_MS = 30.0
#: Time a shape's rounds may take, ms (the calls' wall times, summed): the rounds shrink to fit, down to
#: :data:`MIN_ROUNDS`.
BUDGET_MS = 250.0
#: A warmed call that takes longer than this (ms, until the device finished) is not timed: its GPU time is hundreds of
#: times any issue time, so its step is GPU-bound whatever the CPU does.
SLOW_MS = 20.0
#: A variant that writes the score matrix is not even warmed up where that matrix is larger than this (bytes): its
#: call takes tens of milliseconds there (the same holds for the decoding variants the build decodes at short caches
#: only, :data:`attnprof.workloads.DECODE_SLOW_MAX_LEN`).
MAX_SCORE_BYTES = 1 << 30


def candidates(workload: str, device: str) -> tuple[str, ...]:
    """The calls measured for ``workload``: SDPA's own choice, the forced backends and the naive code that take part
    in it and can run on ``device``, in registry order; nothing that compiles."""
    return tuple(
        n
        for n in variants.for_workload(workload)
        if not variants.get(n).compiled
        and (variants.get(n).sdpa_family is not None or variants.get(n).sdpa_chooses or n.startswith("naive"))
    )


def too_slow(workload: str, variant: str, setup: Setup) -> str | None:
    """Why ``variant`` is not timed at ``setup`` without even a warm-up call, or ``None``: a score matrix over
    :data:`MAX_SCORE_BYTES`, or a decoding cache longer than the build decodes that variant at."""
    v = variants.get(variant)
    if workloads.get(workload).kv_cache:
        if v.slow_decode and (setup.kv_len or 0) > workloads.DECODE_SLOW_MAX_LEN:
            limit = workloads.DECODE_SLOW_MAX_LEN
            return f"not timed at a cache of {setup.kv_len}: the build decodes it up to {limit} only"
        return None
    b, h, s, _ = setup.shape
    size = b * h * s * s * (4 if v.scores_in_float32 else inputs.element_bytes(setup.dtype))
    if v.materializes_scores and size > MAX_SCORE_BYTES:
        return f"not timed: one call writes a {s}x{s} score matrix per head, {size / 2**30:.0f} GiB in all"
    return None


def cases(device: str) -> list[tuple[str, Setup]]:
    """The shapes of the decision table on ``device``, as ``(workload, setup)``: training at its build setup, prefill
    at the sweep's lengths (its batch, heads and dtype, at the head dim of the prefill results), decoding at each
    cache length of the build."""
    out: list[tuple[str, Setup]] = []
    train = workloads.plan("train", device)
    if train:
        out.append(("train", train[0].setup))
    sw = default_config(device)
    head_dim = inputs.default_setup(device).shape[3]
    head_dim = head_dim if head_dim in sw.head_dims else sw.head_dims[0]
    for seq in sw.seqs:
        out.append(("prefill", inputs.make_setup((sw.batch, sw.heads, seq, head_dim), sw.dtype, device)))
    seen: set[int] = set()
    for p in workloads.plan("decode", device):
        if p.setup.kv_len not in seen:
            seen.add(p.setup.kv_len or 0)
            out.append(("decode", p.setup))
    return out


def measure_case(
    workload: str,
    setup: Setup,
    names: tuple[str, ...] | None = None,
    *,
    rounds: int = ROUNDS,
    calls: int = CALLS,
    budget_ms: float = BUDGET_MS,
    slow_ms: float = SLOW_MS,
) -> ForcingCase:
    """One shape, every call side by side (see the module docstring); never raises for a call that cannot run."""
    import torch

    w = workloads.get(workload)
    chooser = variants.sdpa_chooser()
    t0 = time.perf_counter()
    case = ForcingCase(w.name, list(setup.shape), setup.dtype, setup.kv_heads, setup.kv_len)
    rows = {n: IssueRow(n) for n in (names or candidates(w.name, setup.device))}
    live: dict[str, object] = {}
    walls: dict[str, float] = {}
    seen = interrupts_seen()
    grad = torch.enable_grad() if w.grad else torch.no_grad()
    with grad:
        for n in rows:
            v = variants.get(n)
            why = too_slow(w.name, n, setup)
            if why is not None:
                rows[n] = IssueRow(n, "slow", why)
                continue
            with attempt(v, setup.device, since=seen) as outcome:
                step = steps.prepare(w, v, setup)
                _, wall = warm_up(step.call, setup.device, 2)
            if not outcome.ok:
                rows[n] = IssueRow(n, outcome.status, outcome.reason)
                continue
            rows[n].wall_ms = wall
            if wall > slow_ms and n != chooser:
                rows[n].status = "slow"
                rows[n].reason = f"one call takes {wall:.0f} ms, over the {slow_ms:.0f} ms this measurement times"
                del step
                continue
            live[n], walls[n] = step, wall
        round_ms = sum(walls.values())
        per = calls if round_ms * calls <= LONG_ROUND_MS else 1
        n_rounds = max(MIN_ROUNDS, min(rounds, int(budget_ms / max(round_ms * per, 1e-3))))
        medians: dict[str, list[float]] = {n: [] for n in live}
        order = list(live)
        for r in range(n_rounds if order else 0):
            raise_if_interrupted(seen)
            for n in order[r % len(order) :] + order[: r % len(order)]:
                medians[n].append(statistics.median(time_dispatch_us(live[n].call, setup.device, reps=per)))  # type: ignore[attr-defined]
        sync(setup.device)
    live.clear()
    if setup.device == "cuda":
        torch.cuda.empty_cache()
    auto = medians.get(chooser)
    for n, ms in medians.items():
        rows[n].issue = median_interval(ms)
        if auto and n != chooser:
            rows[n].over_auto = median_interval([a - b for a, b in zip(ms, auto, strict=True)])
    case.rounds, case.calls = (n_rounds, per) if order else (0, 0)
    case.rows = list(rows.values())
    case.seconds = time.perf_counter() - t0
    return case


def measure_forcing(device: str | None = None, *, save_to: str | Path | None = None, reuse: bool | None = None,
                    plan: list[tuple[str, Setup]] | None = None) -> Forcing:  # fmt: skip
    """Every shape of the decision table (:func:`cases`, or ``plan``), measured side by side; saved in ``save_to``.

    With ``reuse`` (by default when ``$ATTNPROF_REUSE`` asks for it, as the docs build does), a file saved in
    ``save_to`` by the same code on the same machine for the same shapes is returned instead of measuring again;
    replaying (the docs build's other languages), the file the first language saved, never a new measurement.
    """
    import torch

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    folder = Path(save_to) if save_to is not None else settings.results_dir()
    if settings.replaying():
        return replayed_forcing(device, folder)
    planned = plan if plan is not None else cases(device)
    missing = cuda_missing_reason() if device == "cuda" else None
    here = environment("cpu" if missing else device)
    if (settings.reuse_measurements() if reuse is None else reuse) and save_to is not None:
        saved = _reusable(device, planned, folder, here)
        if saved is not None:
            return saved
    t0 = time.perf_counter()
    run = Forcing(device, here)
    for workload, setup in planned:
        if missing:
            rows = [IssueRow(n, "no_cuda", missing) for n in candidates(workload, device)]
            run.cases.append(ForcingCase(workload, list(setup.shape), setup.dtype, setup.kv_heads, setup.kv_len,
                                         rows=rows))  # fmt: skip
            continue
        run.cases.append(measure_case(workload, setup))
    run.seconds = time.perf_counter() - t0
    if save_to is not None:
        records.save(run, folder)
    return run


def _spec(c: ForcingCase) -> tuple:
    return (c.workload, list(c.shape), c.dtype, c.kv_heads, c.kv_len, [r.variant for r in c.rows])


def _reusable(device: str, planned: list[tuple[str, Setup]], folder: Path, here: object) -> Forcing | None:
    """The file saved in ``folder`` when it measured the same shapes and calls on this machine after the last change
    to the measuring code (this module among it)."""
    path = folder / records.filename(device)
    try:
        saved = records.load(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    wanted = [(w, list(s.shape), s.dtype, s.kv_heads, s.kv_len, list(candidates(w, device))) for w, s in planned]
    if [_spec(c) for c in saved.cases] != wanted or not measured_by_this_code(path, Path(__file__)):
        return None
    return saved if same_machine(saved.environment, here) else None  # type: ignore[arg-type]
