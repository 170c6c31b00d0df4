"""Measure a sweep: every variant of a :class:`SweepConfig` at every ``(head_dim, seq)``, and the device's ceilings.

How a point is measured (no profiler): by :func:`attnprof.measure.timing.time_shape`, the timer of every variant page,
with the same :class:`attnprof.measure.timing.Plan`, so that a shape present on both agrees within the noise:

* inputs are made on the device (making gigabytes of random numbers on the CPU would take longer than the sweep);
* warm-up calls (at least 2, and at least 25 ms of them), the last one estimating the time per call; then timed
  calls, at least 10 and more while their summed time is under 50 ms (at most 100), or 7 for calls slower than
  20 ms; the median is reported with its confidence interval;
* on CUDA each timed call is bracketed by CUDA events with the GPU pre-filled
(:func:`attnprof.measure.timing.timed_calls`),
  so the events measure GPU execution alone; the same call's CPU time up to its return is its dispatch cost;
* samples that spread too widely (10th to 90th percentile more than 10% apart) are measured once more; if they
  spread again, the point is flagged ``unstable`` and the pages say so instead of using it silently;
* peak extra memory is the allocator's peak over the warm-up and timed calls above what was allocated before them;
* when every point is measured, the points the sweep itself contradicts (:meth:`attnprof.records.sweep.Sweep.
  suspects`: a band too wide to decide anything, a time longer than at a longer sequence, ``sdpa_auto`` and the forced
  backend it runs disagreeing, a variant page's measurement of the same shape disagreeing) are measured once more,
  at most ``recheck`` of them, after every other point (the GPU's clocks and the allocator in another state); the
  faster of the two measurements is kept, and the point records that it was re-measured, why, and its first figure.

Failure is data, as in :mod:`attnprof.measure.profiling`: a point that cannot run records why. Once a variant runs out
of memory at some ``seq``, its larger ``seq`` values (same head_dim) are marked ``oom`` without running; so are points
whose estimated memory (:func:`attnprof.measure.cost.variant_bytes`) exceeds ``memory_limit``, when one is given.
Points not reached within ``budget_s`` are ``skipped`` (and, with ``strict_budget``, so is a point under way when the
budget runs out between two of its calls); the sweep then says ``complete=False`` and ``stopped`` says where. An
interrupt (Ctrl-C) is never a point's failure: it stops the sweep. Variants that compile (``flex``) recompile for
every new shape, seconds each, so they run only at ``compiled_seqs``; their other sequence lengths have no point at
all.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof import inputs, settings, variants
from attnprof.analysis import summary
from attnprof.measure import cost
from attnprof.measure.failure import attempt
from attnprof.measure.interrupts import interrupts_seen, raise_if_interrupted
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import replayed_sweep, reusable_sweep
from attnprof.measure.timing import (
    DEFAULT_PLAN,
    GpuSleep,
    PeakMemory,
    Plan,
    capture_trace,
    gpu_sleeper,
    time_shape,
    timed_calls,
    timer_name,
)
from attnprof.noise import Figure
from attnprof.records import results, trace
from attnprof.records.files import UnreadableFile
from attnprof.records.sweep import Ceilings, Sweep, SweepPoint
from attnprof.words.fmt import quoted

if TYPE_CHECKING:
    import torch

#: The GPU sweep (:func:`default_config` on CUDA).
GPU_VARIANTS = ("sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto", "flex", "naive",
                "naive_inplace")  # fmt: skip
GPU_SEQS = (512, 1024, 2048, 4096, 8192, 16384)
GPU_HEAD_DIMS = (64, 128)
GPU_BATCH, GPU_HEADS, GPU_DTYPE = 8, 16, "bfloat16"
#: Sequence lengths at which variants that compile are measured: each new shape costs a recompilation.
COMPILED_SEQS = (1024, 4096, 16384)
#: Time budget of the default GPU sweep, seconds: no point starts later (ceilings and the point under way not
#: counted). The variants that do not compile take most of it; flex's six compilations share the rest.
GPU_BUDGET_S = 45.0

#: The most points a sweep measures a second time (:meth:`attnprof.records.sweep.Sweep.suspects`).
RECHECK = 12

#: The CPU sweep: small, eager variants that run on the CPU only.
CPU_VARIANTS = ("sdpa_math", "sdpa_flash", "sdpa_auto", "naive", "naive_inplace")
CPU_SEQS = (128, 256, 512)
CPU_HEAD_DIMS = (64,)
CPU_BATCH, CPU_HEADS, CPU_DTYPE = 1, 2, "float32"
CPU_BUDGET_S = 60.0
CPU_NOTE = (
    "A sweep on the CPU (batch {batch}, {heads} heads, {dtype}, seq {seqs}, head_dim {head_dims}). Times are the "
    "CPU's wall-clock times and say nothing about a GPU; there is no memory counter, no ceiling to compare with, "
    "and no CPU-bound region (the CPU does all the work)."
)

# --- configuration --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepConfig:
    """What a sweep runs, and how carefully.

    Attributes:
        variants: Registry names, in the order of the sweep's tables.
        seqs: Sequence lengths, ascending.
        head_dims: Head dimensions.
        batch: Batch size.
        heads: Number of heads.
        dtype: Canonical dtype name.
        device: ``"cuda"`` or ``"cpu"``.
        compiled_seqs: Sequence lengths for variants that compile (``None``: all of ``seqs``).
        plan: How each point is timed: :data:`attnprof.measure.timing.DEFAULT_PLAN`, the plan of the variant pages.
        budget_s: Points not started within this many seconds are ``skipped`` (see ``strict_budget`` of
            :func:`run_sweep` for a point under way).
        seed: Seed of the random inputs.
        recheck: The most points measured a second time because the sweep contradicts them (0: none).
    """

    variants: tuple[str, ...]
    seqs: tuple[int, ...]
    head_dims: tuple[int, ...]
    batch: int
    heads: int
    dtype: str
    device: str
    compiled_seqs: tuple[int, ...] | None = None
    plan: Plan = DEFAULT_PLAN
    budget_s: float = GPU_BUDGET_S
    seed: int = 0
    recheck: int = RECHECK

    def seqs_for(self, variant: str) -> tuple[int, ...]:
        """The sequence lengths ``variant`` runs at (fewer for variants that compile)."""
        if variants.get(variant).compiled and self.compiled_seqs is not None:
            return tuple(s for s in self.seqs if s in self.compiled_seqs)
        return self.seqs


def _positive(name: str, value: Any, example: str) -> int:
    n = int(value) if isinstance(value, float) and value.is_integer() else inputs.plain_int(value)
    if n is None or n <= 0:
        raise ValueError(f"bad {name} {quoted(value)}; expected a positive integer such as {example}")
    return n


def make_config(
    variants_: Sequence[str] | None = None,
    seqs: Sequence[int] | None = None,
    head_dims: Sequence[int] | None = None,
    *,
    batch: int | None = None,
    heads: int | None = None,
    dtype: str | None = None,
    device: str | None = None,
    compiled_seqs: Sequence[int] | None = (),
    budget_s: float | None = None,
    **timing: Any,
) -> SweepConfig:
    """Validate arguments and fill what is left out from the defaults of the device (:func:`default_config`).

    Args:
        variants_: Registry names (default: the device's default list).
        seqs: Sequence lengths (sorted and deduplicated).
        head_dims: Head dimensions.
        batch: Batch size.
        heads: Number of heads.
        dtype: Any spelling :func:`attnprof.inputs.canonical_dtype` accepts.
        device: ``"cuda"`` or ``"cpu"``; CUDA when available if left out.
        compiled_seqs: Sequence lengths for variants that compile; ``()`` (the default) keeps the device default
            when ``seqs`` is also left out and means "all of ``seqs``" when ``seqs`` is given; ``None`` means all.
        budget_s: Time budget in seconds.
        **timing: ``seed``, ``recheck``, and fields of :class:`attnprof.measure.timing.Plan` that differ from the
            pages' plan (for tests and quick looks: ``warmup``, ``warmup_ms``, ``reps``, ``budget_ms``, ``max_reps``,
            ``reps_slow``, ``slow_ms``, ``retries``).

    Raises:
        ValueError: for an unknown variant, dtype or device, a sequence length, head dim, batch or head count that
            is not a positive integer, or an unknown timing option; the message names the value and what is
            accepted.
    """
    if device is not None and device not in inputs.DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(inputs.DEVICES)}")
    base = default_config(device)
    plan_fields = [f.name for f in dataclasses.fields(Plan)]
    unknown = set(timing) - {*plan_fields, "seed", "recheck"}
    if unknown:
        raise ValueError(
            f"unknown option {sorted(unknown)[0]!r}; choose from: {', '.join(plan_fields)}, seed, recheck"
        )
    names = tuple(variants.get(v).name for v in variants_) if variants_ else base.variants
    if seqs:
        seq_list = tuple(sorted({_positive("sequence length", s, "1024") for s in seqs}))
    else:
        seq_list = base.seqs
    dims = tuple(sorted({_positive("head_dim", d, "64") for d in head_dims})) if head_dims else base.head_dims
    if compiled_seqs == ():
        compiled: tuple[int, ...] | None = base.compiled_seqs if not seqs else None
    elif compiled_seqs is None:
        compiled = None
    else:
        compiled = tuple(sorted({_positive("sequence length", s, "1024") for s in compiled_seqs}))
    budget = base.budget_s if budget_s is None else inputs.plain_number(budget_s)
    if budget is None or not (math.isfinite(budget) and budget > 0):
        raise ValueError(f"bad time budget {quoted(budget_s)}; expected a positive number of seconds such as 45")
    for key in ("reps", "reps_slow", "max_reps"):
        if key in timing:
            timing[key] = _positive(f"number of {key}", timing[key], "5")
    if "warmup" in timing and timing["warmup"] != 0:
        timing["warmup"] = _positive("number of warm-up calls", timing["warmup"], "2")
    plan = dataclasses.replace(DEFAULT_PLAN, **{k: v for k, v in timing.items() if k in plan_fields})
    seed = {k: timing[k] for k in ("seed", "recheck") if k in timing}
    if "recheck" in seed and (not isinstance(seed["recheck"], int) or seed["recheck"] < 0):
        raise ValueError(f"bad recheck {seed['recheck']!r}; expected a number of points such as 12 (0: none)")
    return SweepConfig(
        variants=names,
        seqs=seq_list,
        head_dims=dims,
        batch=base.batch if batch is None else _positive("batch size", batch, "8"),
        heads=base.heads if heads is None else _positive("number of heads", heads, "16"),
        dtype=base.dtype if dtype is None else inputs.canonical_dtype(dtype),
        device=base.device,
        compiled_seqs=compiled,
        plan=plan,
        budget_s=budget,
        **seed,
    )


def default_config(device: str | None = None) -> SweepConfig:
    """The GPU sweep on CUDA (CUDA when available if ``device`` is left out), the tiny CPU sweep on the CPU."""
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda":
        return SweepConfig(GPU_VARIANTS, GPU_SEQS, GPU_HEAD_DIMS, GPU_BATCH, GPU_HEADS, GPU_DTYPE, "cuda",
                           compiled_seqs=COMPILED_SEQS, budget_s=GPU_BUDGET_S)  # fmt: skip
    if device == "cpu":
        return SweepConfig(CPU_VARIANTS, CPU_SEQS, CPU_HEAD_DIMS, CPU_BATCH, CPU_HEADS, CPU_DTYPE, "cpu",
                           budget_s=CPU_BUDGET_S)  # fmt: skip
    raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(inputs.DEVICES)}")


# --- measuring ------------------------------------------------------------------------------------------------------


class BudgetSpent(Exception):
    """The sweep's time budget ran out between two calls of a point."""

    def __init__(self, calls: int) -> None:
        super().__init__(f"stopped after {calls} calls: the time budget was spent during this point")
        self.calls = calls


def _within(fn: Callable[[], Any], deadline: float) -> Callable[[], Any]:
    """``fn``, refusing to start a call after ``deadline`` (a ``perf_counter`` time): raises :class:`BudgetSpent`."""
    calls = [0]
    seen = interrupts_seen()

    def call() -> Any:
        raise_if_interrupted(seen)
        if time.perf_counter() > deadline:
            raise BudgetSpent(calls[0])
        calls[0] += 1
        return fn()

    return call


#: The annotation around the one profiled call that tells which backend ``sdpa_auto`` picked.
SDPA_CHOICE_ANNOTATION = "sdpa_auto_choice"


def _sdpa_choice(fn: Callable[[], Any], device: str) -> tuple[str, str]:
    """Run ``fn`` once under the profiler; the backend the trace shows
    (:func:`attnprof.analysis.summary.sdpa_backend`)."""
    _, parsed = capture_trace(fn, SDPA_CHOICE_ANNOTATION, device, schedule=None, record_shapes=False)
    return summary.sdpa_backend(trace.parse_trace(parsed, SDPA_CHOICE_ANNOTATION))


def sweep_inputs(cfg: SweepConfig, seq: int, head_dim: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal ``q, k, v`` made on the device itself (same seed, same inputs for every variant)."""
    import torch

    gen = torch.Generator(device=cfg.device).manual_seed(cfg.seed)
    shape = (cfg.batch, cfg.heads, seq, head_dim)
    dtype = getattr(torch, cfg.dtype)
    return tuple(torch.randn(shape, generator=gen, device=cfg.device, dtype=dtype) for _ in range(3))  # type: ignore[return-value]


def _run_point(cfg: SweepConfig, variant: variants.Variant, seq: int, head_dim: int, sleep: GpuSleep | None,
               deadline: float = float("inf")) -> SweepPoint:  # fmt: skip
    """Measure one point; never raises for a variant that cannot run, stops between calls after ``deadline``."""
    import torch

    t0 = time.perf_counter()
    seen = interrupts_seen()
    point = SweepPoint(variant.name, seq, head_dim, "ok")
    if cfg.device == "cuda":
        torch.cuda.empty_cache()
    with torch.no_grad(), attempt(variant, cfg.device, since=seen) as outcome:  # failure is data: the point says why
        q, k, v = sweep_inputs(cfg, seq, head_dim)
        fn = variant.build(seq, cfg.device)

        def call() -> torch.Tensor:
            return fn(q, k, v)

        try:
            with PeakMemory(cfg.device) as peak:
                timed = time_shape(_within(call, deadline), cfg.device, cfg.plan, sleep)
        except BudgetSpent as spent:
            point.status = "skipped"
            point.reason = (
                f"skipped: the time budget of {cfg.budget_s:g} s ran out during this point ({spent.calls} calls made)"
            )
        else:
            gpu, ms = timed.gpu, timed.samples.gpu_ms
            point.gpu_ms, point.gpu_ms_lo, point.gpu_ms_hi = gpu.median, gpu.lo, gpu.hi
            point.gpu_ms_min, point.gpu_ms_max = min(ms), max(ms)
            point.gpu_ms_p10, point.gpu_ms_p90 = timed.p10, timed.p90
            point.repetitions, point.attempts, point.unstable = gpu.n, timed.attempts, timed.unstable
            point.tflops = inputs.causal_flops((cfg.batch, cfg.heads, seq, head_dim)) / (gpu.median * 1e-3) / 1e12
            point.dispatch_us = statistics.median(timed.samples.issue_us)
            point.peak_extra_bytes = peak.bytes
            if variant.sdpa_chooses:
                point.sdpa_choice, point.sdpa_evidence = _sdpa_choice(call, cfg.device)
    if not outcome.ok:
        point.status, point.reason = outcome.status, outcome.reason
    if point.status == "oom" and cfg.device == "cuda":
        gc.collect()  # the traceback held the frames that held the tensors
        torch.cuda.empty_cache()
    point.wall_s = time.perf_counter() - t0
    return point


def dynamo_limits() -> Any:
    """Room for one compiled entry per shape: the default limit (8 per function) could send flex back to eager."""
    import contextlib

    try:
        import torch._dynamo

        config = torch._dynamo.config
        name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
        return config.patch(**{name: max(64, getattr(config, name))})
    except (ImportError, AttributeError, RuntimeError):  # pragma: no cover - a torch without dynamo
        return contextlib.nullcontext()


def _cpu_note(cfg: SweepConfig) -> str:
    return CPU_NOTE.format(batch=cfg.batch, heads=cfg.heads, dtype=cfg.dtype, seqs=", ".join(map(str, cfg.seqs)),
                           head_dims=", ".join(map(str, cfg.head_dims)))  # fmt: skip


def run_sweep(
    config: SweepConfig | None = None,
    *,
    ceilings: Ceilings | None = None,
    progress: Callable[[int, int, SweepPoint], None] | None = None,
    memory_limit: cost.Limit | None = None,
    strict_budget: bool = False,
    reuse_from: str | Path | None = None,
    references: Mapping[tuple[str, int, int], Figure] | None = None,
) -> Sweep:
    """Run a sweep; never raises for a point that cannot run.

    Variants that do not compile run first, then those that do (so that the time budget, if it runs out, cuts
    the expensive compilations rather than the cheap points). The points come back in table order: variants as
    configured, then head_dim, then sequence length.

    Args:
        config: What to run; :func:`default_config` when omitted.
        ceilings: The device's ceilings (:func:`measure_ceilings`), stored with the sweep.
        progress: Called after every point with ``(done, total, point)``.
        memory_limit: Points whose estimated memory (:func:`attnprof.measure.cost.variant_bytes`) exceeds it are
        marked
            ``oom`` without running (the command line passes what the machine has, unless ``--force``).
        strict_budget: Also stop a point under way when the budget runs out, between two of its calls (``skipped``);
            without it (the docs build's sweep, whose budget is tuned for this) the point under way finishes. The
            command line's ``--budget-s`` is strict.
        reuse_from: A folder whose saved sweep is returned instead of measuring again when it stands for this
            one (:func:`attnprof.measure.reuse.reusable_sweep`), with ``ceilings`` (when given) in place of its own;
            by default the results folder when ``$ATTNPROF_REUSE`` asks for it (the docs build's first language).
            With ``$ATTNPROF_REUSE=replay`` (its other languages) the saved sweep is returned as it is, its ceilings
            included (:func:`attnprof.measure.reuse.replayed_sweep`).
        references: The same shapes measured elsewhere by the same timer, ``(variant, head_dim, seq)`` -> GPU time
            (ms), such as the variant pages' (:func:`page_references`): a point slower than its reference beyond
            the noise is measured again.

    Returns:
        The sweep, with ``elapsed_s``, ``complete`` (False when the time budget skipped points) and ``stopped``
        (where it stopped and how many points were skipped).
    """
    cfg = config or default_config()
    if settings.replaying():  # the docs build's other languages: the first one's sweep, ceilings and all
        return replayed_sweep(cfg.device, reuse_from if reuse_from is not None else settings.results_dir())
    if reuse_from is None and settings.reuse_measurements():
        reuse_from = settings.results_dir()
    here = environment(cfg.device)
    saved = reusable_sweep(cfg, reuse_from, here, Path(__file__)) if reuse_from is not None else None
    if saved is not None:
        return saved if ceilings is None else dataclasses.replace(saved, ceilings=ceilings)
    t_start = time.perf_counter()
    plan = [(variants.get(n), d, s) for n in cfg.variants for d in cfg.head_dims for s in cfg.seqs_for(n)]
    order = sorted(range(len(plan)), key=lambda i: plan[i][0].compiled)
    found: dict[int, SweepPoint] = {}
    missing = cuda_missing_reason() if cfg.device == "cuda" else None
    sleep = None if missing else gpu_sleeper(cfg.device)
    oom_at: dict[tuple[str, int], int] = {}
    stopped: str | None = None
    seen = interrupts_seen()
    with dynamo_limits():
        for done, i in enumerate(order, start=1):
            raise_if_interrupted(seen)
            v, d, s = plan[i]
            need = cost.variant_bytes(v.name, (cfg.batch, cfg.heads, s, d), cfg.dtype)
            if missing:
                point = SweepPoint(v.name, s, d, "no_cuda", missing)
            elif (v.name, d) in oom_at:
                point = SweepPoint(v.name, s, d, "oom", f"skipped: out of memory at seq {oom_at[(v.name, d)]}")
            elif memory_limit is not None and need > memory_limit.bytes:
                point = SweepPoint(v.name, s, d, "oom", (
                    f"not run: needs about {cost.human_bytes(need)} (estimated), more than the "
                    f"{cost.human_bytes(memory_limit.bytes)} of {memory_limit.source}"))  # fmt: skip
            elif time.perf_counter() - t_start > cfg.budget_s:
                point = SweepPoint(
                    v.name, s, d, "skipped", f"skipped: the time budget of {cfg.budget_s:g} s was spent"
                )
            else:
                deadline = t_start + cfg.budget_s if strict_budget else float("inf")
                point = _run_point(cfg, v, s, d, sleep, deadline=deadline)
                if point.status == "oom":
                    oom_at[(v.name, d)] = s
            if point.status == "skipped" and stopped is None:
                stopped = f"the time budget of {cfg.budget_s:g} s ran out at {v.name} hd{d} seq{s}"
            found[i] = point
            if progress is not None:
                progress(done, len(plan), point)
    env_device = cfg.device if not missing else "cpu"
    timer = timer_name(cfg.device if not missing else "cpu", sleep)
    result = Sweep(
        device=cfg.device,
        dtype=cfg.dtype,
        batch=cfg.batch,
        heads=cfg.heads,
        seqs=list(cfg.seqs),
        head_dims=list(cfg.head_dims),
        variants=list(cfg.variants),
        environment=environment(env_device),
        points=[found[i] for i in range(len(plan))],
        ceilings=ceilings,
        compiled_seqs=None if cfg.compiled_seqs is None else list(cfg.compiled_seqs),
        plan=cfg.plan.to_dict(),
        timer=timer,
        budget_s=cfg.budget_s,
        complete=stopped is None,
        stopped=_stopped(stopped, found.values()),
        note=_cpu_note(cfg) if cfg.device == "cpu" else None,
        recheck=cfg.recheck,
    )
    if not missing and stopped is None:
        with dynamo_limits():
            _recheck(result, cfg, sleep, references)
    result.elapsed_s = time.perf_counter() - t_start
    return result


def _recheck(sw: Sweep, cfg: SweepConfig, sleep: GpuSleep | None,
             references: Mapping[tuple[str, int, int], Figure] | None) -> None:  # fmt: skip
    """Measure the points the sweep contradicts once more (at most ``cfg.recheck``), keeping the faster measurement
    of each and recording that it was re-measured (see the module docstring)."""
    seen = interrupts_seen()
    for point, why in sw.suspects(references)[: cfg.recheck]:
        raise_if_interrupted(seen)
        again = _run_point(cfg, variants.get(point.variant), point.seq, point.head_dim, sleep)
        keep = again if again.ok and again.gpu_ms is not None and again.gpu_ms < (point.gpu_ms or 0.0) else point
        merged = dataclasses.replace(keep, remeasured=why, first_gpu_ms=point.gpu_ms, first_gpu_ms_lo=point.gpu_ms_lo,
                                     first_gpu_ms_hi=point.gpu_ms_hi, wall_s=point.wall_s + again.wall_s)  # fmt: skip
        sw.points[sw.points.index(point)] = merged


def page_references(folder: str | Path, config: SweepConfig) -> dict[tuple[str, int, int], Figure]:
    """The GPU times the variant pages measured in ``folder`` at a shape of the sweep (same batch, heads, dtype and
    device), by ``(variant, head_dim, seq)``: the references of :func:`run_sweep`. Files that cannot be read are left
    out (the pages that show them warn)."""
    out: dict[tuple[str, int, int], Figure] = {}
    for name in config.variants:
        for path in results.find(Path(folder), name):
            try:
                r = results.load(path)
            except (OSError, UnreadableFile):
                continue
            b, h, s, d = r.shape
            same = (b, h, r.dtype, r.device) == (config.batch, config.heads, config.dtype, config.device)
            if same and r.ok and r.timing is not None and s in config.seqs and d in config.head_dims:
                out[(name, d, s)] = r.timing.gpu
    return out


def _stopped(where: str | None, points: Any) -> str | None:
    """``"the time budget of 1 s ran out at naive hd64 seq512; 4 points skipped: naive hd64 seq512, ..."``."""
    if where is None:
        return None
    skipped = [f"{p.variant} hd{p.head_dim} seq{p.seq}" for p in points if p.status == "skipped"]
    return f"{where}; {len(skipped)} points skipped: {', '.join(skipped)}"


def _median_event_ms(fn: Callable[[], Any], reps: int, warmup: int) -> float:
    """Median CUDA-event time of ``fn`` over ``reps`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    return statistics.median(timed_calls(fn, "cuda", min_reps=reps).gpu_ms)


def _matmul_ms(n: int, reps: int, warmup: int) -> float:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    a, b = (torch.randn(n, n, generator=gen, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    c = torch.empty_like(a)
    return _median_event_ms(lambda: torch.matmul(a, b, out=c), reps, warmup)


def _copy_ms(nbytes: int, reps: int, warmup: int) -> float:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    src = torch.rand(nbytes // 4, generator=gen, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    return _median_event_ms(lambda: dst.copy_(src), reps, warmup)


def measure_ceilings(
    device: str, *, matmul_n: int = 8192, copy_bytes: int = 2 * 2**30, reps: int = 10, warmup: int = 3
) -> Ceilings | None:
    """The device's matmul and bandwidth ceilings; ``None`` on the CPU (or without CUDA).

    Matmul: ``[n, n] @ [n, n]`` in bf16 on random data (random, not zeros: zeros draw less power and can run
    faster), ``2 n³`` FLOPs per call. Bandwidth: a device-to-device copy of ``copy_bytes`` (float32 elements),
    counting the bytes read and the bytes written. Each is the median of ``reps`` calls timed with CUDA events
    after ``warmup`` calls. Takes well under a second on an H200. With ``$ATTNPROF_REUSE=replay`` (the docs build's
    languages after the first), the ceilings of the sweep the first language saved in the results folder.
    """
    if settings.replaying():
        return replayed_sweep(device, settings.results_dir()).ceilings
    if device != "cuda":
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    nbytes = copy_bytes // 4 * 4
    mm_ms = _matmul_ms(matmul_n, reps, warmup)
    copy_ms = _copy_ms(nbytes, reps, warmup)
    torch.cuda.empty_cache()
    return Ceilings(
        matmul_tflops=2.0 * matmul_n**3 / (mm_ms * 1e-3) / 1e12,
        matmul_n=matmul_n,
        bandwidth_gbs=2.0 * nbytes / (copy_ms * 1e-3) / 1e9,
        copy_bytes=nbytes,
        repetitions=reps,
    )
