"""What a result says, worked out once: the kernel table's rows, the main kernel, the at-a-glance figures, CPU op
counts, the SDPA backend that ran, the CPU cost of a call.

Everything that shows a result (the pages, the claims, the terminal tables) reads an :class:`Analysis` made by
:func:`analyse`, so one rule decides, for instance, which kernel is "the main kernel" and which backend SDPA
picked. The Sphinx extension keeps one analysis beside each result file it loaded, so a page that shows fifteen
figures of one variant analyses it once.

This module does not import torch.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from attnprof import noise, variants
from attnprof.analysis import kernels, occupancy
from attnprof.analysis.kernels import KernelInfo
from attnprof.analysis.occupancy import Occupancy
from attnprof.noise import CpuMedians, Figure
from attnprof.records.results import CpuCostRow, GpuActivity, Result, StepTrace

#: The ATen op each SDPA backend dispatches to (what the CPU side of a trace shows), by backend family.
SDPA_OPS: dict[str, str] = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash",
    "aten::_scaled_dot_product_efficient_attention": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable",
}
#: Kernel families that name an SDPA backend by themselves.
FUSED_FAMILIES: tuple[str, ...] = ("flash", "mem_efficient", "cudnn")
#: GPU activity kinds, in the order tables list them.
KINDS: tuple[str, ...] = ("kernel", "memcpy", "memset")
#: The launch-configuration fields of a kernel row.
CONFIG_FIELDS: tuple[str, ...] = ("grid", "block", "registers_per_thread", "shared_memory")


def _r(x: float) -> float:
    """Round to the nanosecond, so that the same trace always gives the same numbers."""
    return round(x, 3) + 0.0


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


# --- the kernel table -----------------------------------------------------------------------------------------------


@dataclass
class KernelRow:
    """One line of the kernel table: every launch of one kernel (or memcpy/memset) name with one launch
    configuration (grid, block, registers, shared memory) over the steps.

    Launches of one name with different configurations are different rows: a kernel launched with 4096 blocks
    for 4 µs and with 524288 blocks for 410 µs has no meaningful average time, blocks per SM or occupancy.

    Attributes:
        name: The activity name.
        kind: ``"kernel"``, ``"memcpy"`` or ``"memset"``.
        info: What the name decodes to (:func:`attnprof.analysis.kernels.decode`).
        count: Launches over all steps.
        per_step: ``count`` / number of steps.
        total_us: Summed duration over all steps.
        avg_us: ``total_us`` / ``count``.
        launch_api: The API call that launched it (``"cudaLaunchKernel"``), or ``"mixed: a, b"`` (most common
            first) when launches differ.
        grid: Grid of the launches (the same for every launch of the row).
        block: Block of the launches.
        registers_per_thread: Registers per thread.
        shared_memory: Shared memory per block in bytes.
        reported_occupancy: Median of Kineto's ``est. achieved occupancy %`` over the launches.
        theoretical: Theoretical occupancy of the configuration, or ``None`` for memcpy/memset, without device
            properties, or for a device the calculator does not know.
        configs: How many launch configurations the activity name has in these steps (its rows sit together in
            the table; 1 for most kernels).
        blocks_per_sm: Median of the trace's ``blocks per SM`` over the launches, or ``None``.
    """

    name: str
    kind: str
    info: KernelInfo
    count: int
    per_step: float
    total_us: float
    avg_us: float
    launch_api: str | None
    grid: list[int] | None
    block: list[int] | None
    registers_per_thread: int | None
    shared_memory: int | None
    reported_occupancy: float | None
    theoretical: Occupancy | None
    configs: int = 1
    blocks_per_sm: float | None = None

    @property
    def threads(self) -> int | None:
        """Threads per block (``block`` multiplied out), or ``None``."""
        return math.prod(self.block) if self.block else None


def _most_common(values: list[Any]) -> Any:
    """The most frequent value (the first seen among equals); ``None`` if there are none."""
    counts = Counter(repr(v) for v in values)
    if not counts:
        return None
    best = max(counts.values())
    return next(v for v in values if counts[repr(v)] == best)


def _launch_api(apis: list[str | None]) -> str | None:
    counts = Counter(a for a in apis if a)
    if not counts:
        return None
    if len(counts) == 1:
        return next(iter(counts))
    first = {a: i for i, a in reversed(list(enumerate(apis)))}
    ordered = sorted(counts, key=lambda a: (-counts[a], first[a]))
    return "mixed: " + ", ".join(ordered)


def theoretical_occupancy(
    kind: str, regs: int | None, block: list[int] | None, smem: int | None, props: dict[str, Any]
) -> Occupancy | None:
    """The theoretical occupancy of one launch configuration (:func:`attnprof.analysis.occupancy.theoretical`), or
    ``None`` for memcpy/memset, a missing field, no device properties, or a device the calculator does not cover."""
    if kind != "kernel" or not props or regs is None or not block or smem is None:
        return None
    try:
        return occupancy.theoretical(regs, math.prod(block), smem, props)
    except ValueError:
        return None  # a device or configuration the calculator does not cover: show nothing rather than a guess


def _row(name: str, acts: list[GpuActivity], n_steps: int, props: dict[str, Any], configs: int) -> KernelRow:
    kind = _most_common([a.kind for a in acts])
    config = {f: getattr(acts[0], f) for f in CONFIG_FIELDS}
    occ = [a.reported_occupancy for a in acts if a.reported_occupancy is not None]
    bps = [a.blocks_per_sm for a in acts if a.blocks_per_sm is not None]
    total = sum(a.duration_us for a in acts)
    return KernelRow(
        name=name,
        kind=kind,
        info=kernels.decode(name),
        count=len(acts),
        per_step=len(acts) / n_steps,
        total_us=_r(total),
        avg_us=_r(total / len(acts)),
        launch_api=_launch_api([a.launch_api for a in acts]),
        reported_occupancy=statistics.median(occ) if occ else None,
        theoretical=theoretical_occupancy(
            kind, config["registers_per_thread"], config["block"], config["shared_memory"], props
        ),
        configs=configs,
        blocks_per_sm=statistics.median(bps) if bps else None,
        **config,
    )


def launch_config(a: GpuActivity) -> tuple[Any, ...]:
    """What a launch is, besides its name: grid, block, registers per thread and shared memory."""
    return tuple(tuple(v) if isinstance(v, list) else v for v in (getattr(a, f) for f in CONFIG_FIELDS))


def kernel_rows(steps: Sequence[StepTrace], device_properties: dict[str, Any]) -> list[KernelRow]:
    """Aggregate the steps' GPU activities by name and launch configuration (:func:`launch_config`).

    Args:
        steps: The steps of one result (:func:`attnprof.records.trace.parse_trace`).
        device_properties: The trace's device properties, for theoretical occupancy; ``{}`` to leave it out.

    Returns:
        One :class:`KernelRow` per distinct activity name and launch configuration. Names are in order of first
        appearance in step 0 (names that step 0 lacks follow, in order of first appearance in later steps); the
        rows of one name sit together, its configurations in order of first appearance.
    """
    groups: dict[str, dict[tuple[Any, ...], list[GpuActivity]]] = {}
    for step in steps:
        for a in step.activities:
            groups.setdefault(a.name, {}).setdefault(launch_config(a), []).append(a)
    n_steps = len(steps) or 1
    return [
        _row(name, acts, n_steps, device_properties, len(by_config))
        for name, by_config in groups.items()
        for acts in by_config.values()
    ]


# --- counts over the steps ------------------------------------------------------------------------------------------


def op_counts(steps: Sequence[StepTrace]) -> dict[str, float]:
    """Mean occurrences per step of each CPU event name (ATen ops, annotations, API calls), in order of first
    appearance; a name missing from a step counts 0 there."""
    if not steps:
        return {}
    totals: dict[str, int] = {}
    for step in steps:
        for name, n in step.op_counts().items():
            totals[name] = totals.get(name, 0) + n
    return {name: n / len(steps) for name, n in totals.items()}


def kind_counts(steps: Sequence[StepTrace]) -> dict[str, float]:
    """Mean GPU activities per step by kind (``kernel``, ``memcpy``, ``memset``)."""
    return {kind: _mean(sum(1 for a in s.activities if a.kind == kind) for s in steps) for kind in KINDS}


def min_op_count(steps: Sequence[StepTrace], name: str) -> int:
    """The fewest times ``name`` occurs in a step (0 if any step lacks it)."""
    return min((s.op_counts().get(name, 0) for s in steps), default=0)


def self_share(steps: Sequence[StepTrace], op: str) -> float | None:
    """Self CPU time of ``op`` (its duration minus its children's) as a share of the annotation's CPU time, over
    all steps; ``None`` when the op never occurs."""
    own, total, seen = 0.0, 0.0, False
    for step in steps:
        total += step.cpu_time_us
        for i, o in enumerate(step.cpu_ops):
            if o.name == op:
                seen = True
                own += o.duration_us - sum(c.duration_us for c in step.cpu_ops if c.parent == i)
    return own / total if seen and total > 0 else None


def sdpa_backend(steps: Sequence[StepTrace]) -> tuple[str, str]:
    """The SDPA backend the steps show, and the name that tells.

    The GPU kernels are read first (:func:`attnprof.analysis.kernels.decode`): the longest kernel of a ``flash``,
    ``mem_efficient`` or ``cudnn`` family names its backend. Otherwise the ATen op SDPA dispatched to
    (:data:`SDPA_OPS`) decides: on the CPU there are no kernels, and the math backend runs only generic kernels
    (gemm, softmax, elementwise). Steps with GPU kernels but none of those ops are ``math``; steps with nothing are
    ``unknown``.

    Returns:
        ``(family, evidence)``: ``"flash"``, ``"mem_efficient"``, ``"cudnn"``, ``"math"``, ``"overrideable"`` or
        ``"unknown"``, and the kernel or op name.
    """
    acts = sorted((a for s in steps for a in s.kernels), key=lambda a: -a.duration_us)
    for a in acts:
        info = kernels.decode(a.name)
        if info.family in FUSED_FAMILIES:
            return info.family, info.name
    for s in steps:
        for o in s.cpu_ops:
            if o.name in SDPA_OPS:
                return SDPA_OPS[o.name], o.name
    if acts:
        return "math", acts[0].name
    return "unknown", ""


# --- phases of a step (the forward and the backward of a training step) ---------------------------------------------


def phase_windows(step: StepTrace, variant: str) -> dict[str, tuple[float, float]]:
    """The annotations nested directly in a step on its own thread, named ``<variant>_<phase>``: ``{phase: (start,
    end)}`` in the step's time (``{"fwd": ..., "bwd": ...}`` for a training step; empty when there are none)."""
    prefix = f"{variant}_"
    return {
        o.name.removeprefix(prefix): (o.start_us, o.start_us + o.duration_us)
        for o in step.cpu_ops
        if o.category == "user_annotation" and not o.thread and o.depth == 0 and o.name.startswith(prefix)
    }


def phase_steps(steps: Sequence[StepTrace], variant: str, phase: str) -> list[StepTrace]:
    """The steps with only the GPU activities launched inside the ``phase`` annotation's time window (whatever
    thread launched them: the backward's launches come from the autograd thread), and only the CPU events inside
    that window. Steps without the phase are left out."""
    out = []
    for s in steps:
        window = phase_windows(s, variant).get(phase)
        if window is None:
            continue
        lo, hi = window[0] - 1e-3, window[1] + 1e-3
        acts = [a for a in s.activities if a.launch_start_us is not None and lo <= a.launch_start_us <= hi]
        ops = [o for o in s.cpu_ops if lo <= o.start_us and o.start_us + o.duration_us <= hi]
        gpu = sum(a.duration_us for a in acts)
        span = max((a.start_us + a.duration_us for a in acts), default=0.0) - min((a.start_us for a in acts),
                                                                                  default=0.0)  # fmt: skip
        out.append(StepTrace(s.index, _r(hi - lo - 2e-3), _r(gpu), _r(span), acts, ops))
    return out


# --- the at-a-glance figures ----------------------------------------------------------------------------------------


@dataclass
class SummaryRow:
    """The at-a-glance figures of one result (all ``None`` when the variant did not run).

    Attributes:
        variant: The variant.
        status: The result's status.
        reason: Why it did not run, if it did not.
        activities_per_step: GPU activities per active step (mean).
        kernels_per_step: Kernels per active step (mean).
        gpu_ms: GPU time per forward: the median without the profiler (``Timing.gpu_ms_median``).
        cpu_us: CPU time per profiled step: the median over the active steps of the ``<variant>_fwd`` annotation's
            length (the profiler's cost included). The median, not the mean: the first active step often takes
            one and a half to three times as long as the others.
        dispatch_us: Dispatch cost: median CPU time to issue one call without the profiler, from the variant's own
            run (``Timing.dispatch_us_median``).
        tflops: Achieved TFLOP/s at the median GPU time.
        peak_mib: Peak extra device memory, MiB.
        rel_error: Error against the float64 reference.
        main_kernel: Decoded name of the kernel with the largest total time.
        cpu_step: ``cpu_us`` with the range of the active steps (:func:`attnprof.noise.span`).
    """

    variant: str
    status: str
    reason: str | None
    activities_per_step: float | None = None
    kernels_per_step: float | None = None
    gpu_ms: float | None = None
    cpu_us: float | None = None
    dispatch_us: float | None = None
    tflops: float | None = None
    peak_mib: float | None = None
    rel_error: float | None = None
    main_kernel: str | None = None
    cpu_step: Figure | None = None


def _summary(result: Result, main: KernelRow | None) -> SummaryRow:
    row = SummaryRow(result.variant, result.status, result.reason)
    if not result.ok or not result.steps:
        return row
    n = len(result.steps)
    row.activities_per_step = sum(len(s.activities) for s in result.steps) / n
    row.kernels_per_step = sum(len(s.kernels) for s in result.steps) / n
    row.cpu_step = noise.span(s.cpu_time_us for s in result.steps)
    row.cpu_us = row.cpu_step.median
    row.main_kernel = main.info.short if main is not None else None
    t = result.timing
    if t is not None:
        row.gpu_ms, row.dispatch_us, row.tflops, row.rel_error = (
            t.gpu_ms_median,
            t.dispatch_us_median,
            t.tflops,
            (t.rel_error),
        )
        row.peak_mib = None if t.peak_extra_bytes is None else t.peak_extra_bytes / 2**20
    return row


# --- CPU cost per call ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuCost(CpuMedians):
    """The CPU side of one call of one variant, with and without the profiler, each figure with its noise band.

    Attributes:
        variant: The variant.
        status: The result's status, or ``"missing"`` when there is no result.
        reason: Why it did not run, if it did not.
        profiled: CPU time of the annotated call with the profiler recording, µs.
        dispatch: CPU time to issue one call without the profiler, µs, or ``None`` when not recorded.
        profiler_share: The share of the profiled time that the profiler adds: ``1 - dispatch / profiled``
            (medians; negative if the call took longer without the profiler), or ``None``.
        context: Cost of entering and leaving the backend-forcing context alone, µs, or ``None`` for a variant that
            forces nothing or when not recorded.
        interleaved: True when the figures come from the side-by-side measurement (medians of its rounds, bands
            over the rounds); False when they come from the variant's own run (profiled: the median of the active
            steps and their range; dispatch: the median of its calls and its confidence interval).
    """

    variant: str
    status: str
    reason: str | None
    profiled: Figure | None = None
    dispatch: Figure | None = None
    profiler_share: float | None = None
    context: Figure | None = None
    interleaved: bool = False


def _share(profiled: Figure | None, dispatch: Figure | None) -> float | None:
    return 1 - dispatch.median / profiled.median if profiled and profiled.median and dispatch is not None else None


def _finite(x: float | None) -> float | None:
    return x if x is not None and x == x and abs(x) != float("inf") else None


def profiled_over_timed(a: Analysis) -> float | None:
    """How far the profiler's GPU time of a call is from the time CUDA events give without the profiler: the GPU
    activities of the profiled steps summed per step (what a profiler table's CUDA time per call is), over the median
    of the timed calls; ``None`` for a result without both (a CPU run, one not timed)."""
    r = a.result
    if not r.ok or r.device != "cuda" or r.timing is None or not r.timing.gpu_ms_median or not a.rows:
        return None
    profiled_us = sum(row.per_step * row.avg_us for row in a.rows)
    return profiled_us / 1e3 / r.timing.gpu_ms_median if profiled_us > 0 else None


def cpu_cost(variant: str, analysis: Analysis | None, measured: CpuCostRow | None = None) -> CpuCost:
    """The CPU cost of one call of ``variant``.

    Args:
        variant: The variant.
        analysis: Its analysed result, or ``None`` when it has none.
        measured: Its row of the side-by-side measurement (:func:`attnprof.measure.cpucosts.measure_cpu_costs`); when
            given, its figures are used, as they were taken in the same rounds as the other variants'. Otherwise
            the figures come from the variant's own result (the CPU time per profiled step, ``Timing``).
    """
    if measured is not None:
        if measured.status != "ok":
            return CpuCost(variant, measured.status, measured.reason)
        p, d = measured.profiled, measured.dispatch
        return CpuCost(variant, "ok", None, p, d, _share(p, d), measured.context, interleaved=True)
    if analysis is None:
        return CpuCost(variant, "missing", None)
    r = analysis.result
    if not r.ok or not r.steps:
        return CpuCost(variant, r.status, r.reason)
    profiled = analysis.summary.cpu_step
    t = r.timing
    dispatch = t.dispatch if t is not None else None
    context_us = _finite(t.context_us_median) if t is not None else None
    context = None if context_us is None else noise.exact(context_us)
    return CpuCost(variant, r.status, r.reason, profiled, dispatch, _share(profiled, dispatch), context)


# --- one result, analysed -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analysis:
    """Everything :mod:`attnprof` shows about one result, computed once by :func:`analyse`.

    Attributes:
        result: The result analysed.
        rows: The kernel table (:func:`kernel_rows`), memcpy and memset included.
        ops: Mean CPU event counts per step (:func:`op_counts`).
        kinds: Mean GPU activities per step by kind (:func:`kind_counts`).
        summary: The at-a-glance figures.
        sdpa: The SDPA backend the steps show and its evidence (:func:`sdpa_backend`).
        phases: For a step with phases (training: ``fwd``, ``bwd``), each phase's kernel table
            (:func:`phase_steps`); empty otherwise.
        phase_gpu_us: Each phase's GPU time per step, profiled (mean over the steps).
    """

    result: Result
    rows: tuple[KernelRow, ...]
    ops: dict[str, float]
    kinds: dict[str, float]
    summary: SummaryRow
    sdpa: tuple[str, str]
    phases: dict[str, tuple[KernelRow, ...]] = field(default_factory=dict)
    phase_gpu_us: dict[str, float] = field(default_factory=dict)

    @property
    def variant(self) -> str:
        return self.result.variant

    @property
    def kernels(self) -> list[KernelRow]:
        """The rows of kernels (no memcpy, no memset)."""
        return [r for r in self.rows if r.kind == "kernel"]

    def main_kernel(self, family: str | None = None) -> KernelRow | None:
        """The kernel (of ``family``, when given) with the largest total time over the steps, or ``None``."""
        rows = [r for r in self.kernels if family is None or r.info.family == family]
        return max(rows, key=lambda r: r.total_us) if rows else None

    @property
    def sdpa_variant(self) -> str | None:
        """The forced variant that runs the backend these steps show (``"sdpa_cudnn"``), or ``None``."""
        return variants.by_sdpa_family(self.sdpa[0])


def analyse(result: Result) -> Analysis:
    """Analyse ``result``; a result that did not run gives empty rows and an empty summary."""
    steps = result.steps if result.ok else []
    rows = tuple(kernel_rows(steps, result.device_properties))
    kernel_list = [r for r in rows if r.kind == "kernel"]
    main = max(kernel_list, key=lambda r: r.total_us) if kernel_list else None
    names = list(dict.fromkeys(p for s in steps[:1] for p in phase_windows(s, result.variant)))
    split = {p: phase_steps(steps, result.variant, p) for p in names}
    return Analysis(
        result=result,
        rows=rows,
        ops=op_counts(steps),
        kinds=kind_counts(steps),
        summary=_summary(result, main),
        sdpa=sdpa_backend(steps),
        phases={p: tuple(kernel_rows(ss, result.device_properties)) for p, ss in split.items()},
        phase_gpu_us={p: _mean(s.gpu_time_us for s in ss) for p, ss in split.items()},
    )


# --- order by time --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeBand:
    """The median time of one forward call without the profiler, and the band repeated calls spread over."""

    variant: str
    median_ms: float
    low_ms: float
    high_ms: float

    def overlaps(self, other: TimeBand) -> bool:
        """Whether the two bands overlap: then no order between the two medians can be claimed."""
        return self.low_ms <= other.high_ms and other.low_ms <= self.high_ms


def time_band(a: Analysis) -> TimeBand | None:
    """The :class:`TimeBand` of a result that ran and was timed (10th to 90th percentile; the median alone when
    the percentiles were not recorded), else ``None``."""
    t = a.result.timing
    median = _finite(t.gpu_ms_median) if t is not None and a.result.ok else None
    if t is None or median is None:
        return None
    low, high = _finite(t.gpu_ms_p10), _finite(t.gpu_ms_p90)
    low = median if low is None else min(low, median)
    high = median if high is None else max(high, median)
    return TimeBand(a.variant, median, low, high)


def by_time(analyses: Iterable[Analysis]) -> list[TimeBand]:
    """The timed results among ``analyses``, fastest median first."""
    bands = [b for a in analyses if (b := time_band(a)) is not None]
    return sorted(bands, key=lambda b: b.median_ms)
