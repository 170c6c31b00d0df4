"""Measure training across lengths and head dims: the forward and the backward of each SDPA backend, like a kernel
benchmark (:mod:`attnprof.records.trainscale` holds the result).

The grid: every backend SDPA can be forced to (:func:`attnprof.variants.forced`) at the lengths and head dims of
:mod:`attnprof.workloads` (``TRAIN_SCALE_*``), causal and without a mask, with the tokens per batch and the model's
width fixed (:func:`attnprof.workloads.train_scale_shape`). At each point, with ``q``, ``k`` and ``v`` requiring
gradients and a fixed upstream gradient:

* one whole step (forward and backward) warms up, and more while the warm-up is under :data:`WARMUP_MS`;
* the forward alone (autograd recording, as in training) is timed over :data:`REPS` single calls (:data:`REPS_SLOW`
  for a pass slower than :data:`SLOW_PASS_MS`), then the backward
  alone over as many calls of ``out.backward(grad, retain_graph=True)`` on one forward's graph (the convention of
  FlashAttention's benchmarks): CUDA events with the GPU pre-filled (:func:`attnprof.measure.timing.timed_calls`),
  ``perf_counter`` on the CPU; medians with their bands (:func:`attnprof.noise.median_interval`);
* the same calls give the CPU's issue time of a step (the forward's and the backward's added), and SDPA's own
  selector is asked which backend it would pick for these inputs (:func:`attnprof.measure.backends.pick`, nothing
  run): what the verdicts weigh besides the GPU time.

Failure is data: a backend PyTorch refuses records PyTorch's reason (:func:`attnprof.measure.failure.attempt`);
after an out-of-memory point the longer ones of the same line are ``oom`` without running; after a step slower than
:data:`attnprof.workloads.TRAIN_SCALE_SLOW_MS` (the math backend's) the longer ones are ``skipped`` and say why;
points not reached within the time budget are ``skipped``. The backends that write the score matrix (math) run
after the others, so that the budget, if it runs out, cuts their points.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attnprof import inputs, noise, settings, variants, words, workloads
from attnprof.measure import backends
from attnprof.measure.failure import attempt
from attnprof.measure.interrupts import interrupts_seen, raise_if_interrupted
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import replayed_trainscale
from attnprof.measure.sweeprun import measure_ceilings
from attnprof.measure.timing import GpuSleep, Samples, gpu_sleeper, timed_calls, timer_name, warm_up
from attnprof.noise import Figure
from attnprof.records import sweep as sweep_records
from attnprof.records.files import UnreadableFile
from attnprof.records.results import StaleResultError
from attnprof.records.sweep import Ceilings
from attnprof.records.trainscale import TrainPoint, TrainScale

#: Timed calls per pass and point (CPU: :data:`CPU_REPS`): few, the band says how far the median can be trusted.
REPS = 5
CPU_REPS = 3
#: Passes whose warm-up call took longer than :data:`SLOW_PASS_MS` get :data:`REPS_SLOW` timed calls.
REPS_SLOW = 3
SLOW_PASS_MS = 20.0
#: Short passes get more calls, while their summed time is under this (ms), up to :data:`MAX_REPS`.
BUDGET_MS = 10.0
MAX_REPS = 15
#: Whole steps run first, at least one, and more while their wall time is under this (ms).
WARMUP_MS = 20.0
#: Time budget of the grid on CUDA and on the CPU, seconds: no point starts later.
BUDGET_S = 30.0
CPU_BUDGET_S = 60.0
#: The masks measured: causal, then none.
MASKS: tuple[bool, ...] = (True, False)


def default_variants() -> tuple[str, ...]:
    """One line per SDPA backend: the variants that force one (math, efficient, flash, cuDNN)."""
    return tuple(n for n in variants.forced() if variants.get(n).full is not None)


def build_ceilings(device: str, folder: str | Path | None = None) -> tuple[Ceilings | None, str | None]:
    """The build's ceilings and where they come from: the sequence-length sweep saved in ``folder`` (the results
    folder when omitted) when there is one for ``device`` (``"sweep"``), else measured now (``"measured"``);
    ``(None, None)`` on the CPU."""
    if device != "cuda":
        return None, None
    path = Path(folder if folder is not None else settings.results_dir()) / sweep_records.filename(device)
    try:
        saved = sweep_records.load(path).ceilings
    except (FileNotFoundError, UnreadableFile, StaleResultError):
        saved = None
    if saved is not None:
        return saved, "sweep"
    measured = measure_ceilings(device)
    return measured, "measured" if measured is not None else None


def _tensors(shape: tuple[int, int, int, int], dtype: str, device: str) -> tuple[Any, ...]:
    """``q``, ``k``, ``v`` requiring gradients and the upstream gradient, made on the device, seeded."""
    import torch

    gen = torch.Generator(device=device).manual_seed(workloads.GRAD_SEED)
    dt = getattr(torch, dtype)
    q, k, v = (torch.randn(shape, generator=gen, device=device, dtype=dt).requires_grad_() for _ in range(3))
    return q, k, v, torch.randn(shape, generator=gen, device=device, dtype=dt)


def measure_point(variant: str, head_dim: int, causal: bool, seq: int, *, device: str, dtype: str,
                  reps: int, sleep: GpuSleep | None = None) -> TrainPoint:  # fmt: skip
    """One point of the grid (see the module docstring); never raises for a backend that cannot run."""
    import torch

    v = variants.get(variant)
    t0 = time.perf_counter()
    shape = workloads.train_scale_shape(seq, head_dim, device)
    point = TrainPoint(v.name, head_dim, causal, seq, shape[0], shape[1])
    seen = interrupts_seen()
    with attempt(v, device, since=seen) as outcome:
        q, k, v_, grad = _tensors(shape, dtype, device)
        fn = v.build_masking(seq, device, causal)

        def forward() -> torch.Tensor:
            return fn(q, k, v_)

        def step() -> None:
            q.grad = k.grad = v_.grad = None
            forward().backward(grad)

        def timed(fn: Callable[[], Any], warm_ms: float) -> Samples:
            n = min(reps, REPS_SLOW) if warm_ms >= SLOW_PASS_MS else reps
            return timed_calls(fn, device, min_reps=n, budget_ms=BUDGET_MS, max_reps=MAX_REPS, sleep=sleep)

        _, step_ms = warm_up(step, device, 1, WARMUP_MS)
        point.sdpa_pick = backends.pick(backends.Inputs(q, k, v_, is_causal=causal))[0]  # asked, nothing run
        fwd = timed(forward, step_ms / (1 + workloads.BACKWARD_FLOP_FACTOR))
        graph = [forward()]  # one forward's graph, kept for the backward's calls

        def backward() -> None:
            q.grad = k.grad = v_.grad = None
            graph[0].backward(grad, retain_graph=True)

        bwd = timed(backward, warm_up(backward, device, 1)[1])
        point.fwd, point.bwd = noise.median_interval(fwd.gpu_ms), noise.median_interval(bwd.gpu_ms)
        point.repetitions = min(len(fwd.gpu_ms), len(bwd.gpu_ms))
        # what the CPU takes to issue a step: the forward's and the backward's issue times, each a median
        i, j = noise.median_interval(fwd.issue_us), noise.median_interval(bwd.issue_us)
        point.issue_us = Figure(i.median + j.median, i.lo + j.lo, i.hi + j.hi, min(i.n, j.n))
        graph.clear()
    if not outcome.ok:
        point.status, point.reason = outcome.status, outcome.reason
    if device == "cuda":
        if not outcome.ok:
            gc.collect()  # a failure's traceback held the frames that held the tensors
        torch.cuda.empty_cache()
    point.wall_s = time.perf_counter() - t0
    return point


def not_run(point: TrainPoint, line: list[TrainPoint], limit: float = workloads.TRAIN_SCALE_SLOW_MS) -> TrainPoint:
    """``point`` marked as not run when a shorter point of its line ran out of memory or took longer than ``limit``
    (ms) for a step."""
    for p in line:
        step_ms = p.fwd.median + p.bwd.median if p.ok and p.fwd is not None and p.bwd is not None else 0.0
        # recorded in English; a page shows them in its language (attnprof.words.reason)
        if p.status == "oom":
            point.status, point.reason = "oom", words.text("reason.oom_at", "en", seq=p.seq)
            return point
        if step_ms > limit:
            point.status = "skipped"
            point.reason = words.text("reason.trainscale.slow", "en", ms=f"{step_ms:.0f}", seq=p.seq,
                                      limit=f"{limit:.0f}")  # fmt: skip
            return point
    return point


def measure_grid(
    device: str | None = None,
    *,
    variants_: Sequence[str] | None = None,
    seqs: Sequence[int] | None = None,
    head_dims: Sequence[int] | None = None,
    masks: Sequence[bool] = MASKS,
    dtype: str | None = None,
    reps: int | None = None,
    budget_s: float | None = None,
    ceilings: tuple[Ceilings | None, str | None] | None = None,
    slow_ms: float | None = None,
    progress: Callable[[int, int, TrainPoint], None] | None = None,
) -> TrainScale:
    """Measure the grid; never raises for a point that cannot run.

    Args:
        device: ``"cuda"`` or ``"cpu"``; CUDA when available if left out.
        variants_: Registry names with a form without a mask (default: :func:`default_variants`).
        seqs: Sequence lengths (default: :data:`attnprof.workloads.TRAIN_SCALE_LENS`, the CPU's on the CPU).
        head_dims: Head dimensions (default: :data:`attnprof.workloads.TRAIN_SCALE_HEAD_DIMS`).
        masks: ``True`` for causal, ``False`` for none.
        dtype: bfloat16 on CUDA, float32 on the CPU by default.
        reps: Timed calls per pass (:data:`REPS`, :data:`CPU_REPS` on the CPU).
        budget_s: Points not started within this many seconds are ``skipped``.
        ceilings: ``(ceilings, where from)``; :func:`build_ceilings` when omitted.
        slow_ms: A line whose step took longer than this (ms) is not run at longer lengths (:func:`not_run`);
            :data:`attnprof.workloads.TRAIN_SCALE_SLOW_MS` (``CPU_TRAIN_SCALE_SLOW_MS`` on the CPU) by default.
        progress: Called after every point with ``(done, total, point)``.

    Returns:
        The grid. With ``$ATTNPROF_REUSE=replay`` (the docs build's languages after the first), the grid the first
        language saved in the results folder, unmeasured.

    Raises:
        ValueError: for an unknown device or variant, a variant without a form without a mask, or a length or head
            dim that is not a positive integer; the message names the value and what is accepted.
    """
    import torch

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device not in inputs.DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(inputs.DEVICES)}")
    if settings.replaying():
        return replayed_trainscale(device, settings.results_dir())
    names = tuple(variants.get(n).name for n in variants_) if variants_ else default_variants()
    for n in names:
        if variants.get(n).full is None:
            raise ValueError(
                f"variant {n!r} has no form without a mask; choose from: {', '.join(default_variants())}"
            )
    gpu = device == "cuda"
    lens = tuple(sorted({inputs.positive_int("sequence length", s, "1024") for s in seqs})) if seqs else (
        workloads.TRAIN_SCALE_LENS if gpu else workloads.CPU_TRAIN_SCALE_LENS)  # fmt: skip
    dims = tuple(sorted({inputs.positive_int("head_dim", d, "64") for d in head_dims})) if head_dims else (
        workloads.TRAIN_SCALE_HEAD_DIMS)  # fmt: skip
    dt = inputs.canonical_dtype(dtype) if dtype else ("bfloat16" if gpu else "float32")
    n_reps = reps if reps is not None else (REPS if gpu else CPU_REPS)
    budget = budget_s if budget_s is not None else (BUDGET_S if gpu else CPU_BUDGET_S)
    slow = slow_ms if slow_ms is not None else (
        workloads.TRAIN_SCALE_SLOW_MS if gpu else workloads.CPU_TRAIN_SCALE_SLOW_MS)  # fmt: skip
    missing = cuda_missing_reason() if gpu else None
    ceil, ceil_from = (None, None) if missing else (ceilings if ceilings is not None else build_ceilings(device))
    sleep = None if missing else gpu_sleeper(device)
    table = [(n, d, m, s) for d in dims for m in masks for n in names for s in lens]
    # the backends that write the score matrix last: if the budget runs out, it cuts their slow points
    plan = sorted(table, key=lambda x: variants.get(x[0]).materializes_scores)
    t_start = time.perf_counter()
    seen = interrupts_seen()
    points: list[TrainPoint] = []
    for done, (n, d, m, s) in enumerate(plan, start=1):
        raise_if_interrupted(seen)
        b, h, _, _ = workloads.train_scale_shape(s, d, device)
        line = [p for p in points if (p.variant, p.head_dim, p.causal) == (n, d, m)]
        point = not_run(TrainPoint(n, d, m, s, b, h), line, slow)
        if missing:
            point.status, point.reason = "no_cuda", missing
        elif point.status == "ok" and time.perf_counter() - t_start > budget:
            point.status, point.reason = "skipped", words.text("reason.budget_spent", "en", budget=f"{budget:g}")
        elif point.status == "ok":
            point = measure_point(n, d, m, s, device=device, dtype=dt, reps=n_reps, sleep=sleep)
        points.append(point)
        if progress is not None:
            progress(done, len(plan), point)
    env_device = device if not missing else "cpu"
    return TrainScale(
        device=device,
        dtype=dt,
        variants=list(names),
        seqs=list(lens),
        head_dims=list(dims),
        causal=list(masks),
        environment=environment(env_device),
        points=sorted(points, key=lambda p: table.index((p.variant, p.head_dim, p.causal, p.seq))),
        ceilings=ceil,
        ceilings_from=ceil_from,
        reps=n_reps,
        elapsed_s=time.perf_counter() - t_start,
        timer=timer_name(env_device, sleep),
    )
