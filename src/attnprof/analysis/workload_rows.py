"""What the results of the training, decoding and CUDA-graph runs say together, worked out once: one row per variant
(training), per variant and cache length (decoding), per captured variant (CUDA graphs), and the decision table
(which attention wins each workload at each length, by how much, and whether forcing a backend helps).

The input is a :class:`Build`: every analysed result of the build, by workload
(:func:`attnprof.analysis.summary.analyse`, one analysis per file), and the sweep for prefill at several lengths.
Pages, claims and the terminal tables read the rows made here, so one rule decides, for instance, which variant wins
and when two are too close to call.

Too close to call: two medians whose noise bands overlap, or that differ by less than the minimum effect size
(:func:`attnprof.analysis.decision.too_close_to_call`, which is :func:`attnprof.noise.compare` with the GPU floor
of ±3 % and the GPU minimum effect of 5 %). The band of a result or a sweep point is the 95 % confidence interval of
its median, as everywhere on the site. A candidate whose band is too wide to decide anything
(:func:`attnprof.noise.too_wide`: a time measured while something else ran) is not ranked: the row names it instead
of letting it decide. The decision table itself (what a step costs, GPU and CPU, and whether forcing a backend pays)
is :mod:`attnprof.analysis.decision`.

This module does not import torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from attnprof import noise, variants, workloads
from attnprof.analysis.decision import Band, DecisionRow, Entry, band_of, decision_row, entry, sweep_rows
from attnprof.analysis.kernels import KernelInfo
from attnprof.analysis.summary import Analysis, KernelRow
from attnprof.records.forcing import Forcing, ForcingCase
from attnprof.records.sweep import Sweep

#: The workloads of the decision table, in the order it lists them.
DECISION_WORKLOADS: tuple[str, ...] = ("train", "prefill", "decode")
MIB = 2**20


# --- one row per result ---------------------------------------------------------------------------------------------


def _mib(n: int | None) -> float | None:
    return None if n is None else n / MIB


def _main(rows: Iterable[KernelRow]) -> KernelRow | None:
    ks = [r for r in rows if r.kind == "kernel"]
    return max(ks, key=lambda r: r.total_us) if ks else None


def _per_step(rows: Iterable[KernelRow]) -> float:
    return sum(r.per_step for r in rows if r.kind == "kernel")


def _gpu_per_step(rows: Iterable[KernelRow]) -> float:
    """Summed duration of the kernels per profiled step, µs."""
    return sum(r.per_step * r.avg_us for r in rows if r.kind == "kernel")


@dataclass
class TrainRow:
    """One variant's training step: times (ms, medians without the profiler), the backward's share, memory.

    The backward's time is the step's median minus the forward's; ``None`` where that is not positive (the two
    medians are noise apart, as on a busy CPU)."""

    variant: str
    status: str
    reason: str | None
    seq: int
    step_ms: float | None = None
    fwd_ms: float | None = None
    bwd_ms: float | None = None
    bwd_over_fwd: float | None = None
    tflops: float | None = None
    peak_mib: float | None = None
    saved_mib: float | None = None
    fwd_kernels: float | None = None
    bwd_kernels: float | None = None
    bwd_main: KernelInfo | None = None
    device: str = "cuda"
    backend: str | None = None
    grad_error: float | None = None
    band: Band | None = None


def train_row(a: Analysis) -> TrainRow:
    """The training row of one analysed training result."""
    r = a.result
    row = TrainRow(r.variant, r.status, r.reason, r.shape[2], device=r.device)
    t, f = r.timing, r.train_figures
    if not r.ok or t is None:
        return row
    row.step_ms, row.tflops, row.peak_mib, row.band = t.gpu_ms_median, t.tflops, _mib(t.peak_extra_bytes), band_of(a)
    if f is not None:
        row.fwd_ms = f.fwd_ms_median
        # a step measured no longer than its forward (CPU noise) has no backward time to show
        bwd = t.gpu_ms_median - f.fwd_ms_median
        row.bwd_ms = bwd if bwd > 0 else None
        row.bwd_over_fwd = bwd / f.fwd_ms_median if bwd > 0 and f.fwd_ms_median > 0 else None
        row.saved_mib, row.grad_error = _mib(f.saved_bytes), f.grad_rel_error
    if a.phases:
        row.fwd_kernels = _per_step(a.phases.get("fwd", ()))
        row.bwd_kernels = _per_step(a.phases.get("bwd", ()))
        main = _main(a.phases.get("bwd", ()))
        row.bwd_main = main.info if main else None
    if r.variant == variants.sdpa_chooser():
        row.backend = a.sdpa[0]
    return row


@dataclass
class DecodeRow:
    """One variant at one cache length: GPU time (µs), bandwidth, the CPU's issue time, the kernels it ran.

    ``gpu_us`` is the median of timed calls without the profiler (the figure every comparison uses);
    ``profiled_us`` the summed duration of the kernels per profiled step, with the profiler recording (what the
    kernel tables show, launch by launch)."""

    variant: str
    kv_len: int
    status: str
    reason: str | None
    gpu_us: float | None = None
    gbs: float | None = None
    read_fraction: float | None = None
    dispatch_us: float | None = None
    kernels_per_step: float | None = None
    kernels: tuple[KernelInfo, ...] = ()
    backend: str | None = None
    peak_mib: float | None = None
    band: Band | None = None
    device: str = "cuda"
    profiled_us: float | None = None

    @property
    def profiled_longer(self) -> bool:
        """The kernels of the profiled steps took longer per step than the step's median without the profiler,
        beyond that median's band (±3 % at least): two measurements of one step that a page must not leave
        side by side unexplained."""
        if self.profiled_us is None or self.band is None:
            return False
        return self.profiled_us > 1e3 * self.band.figure.band(noise.GPU_FLOOR)[1]

    @property
    def launch_bound(self) -> bool | None:
        """Issuing the step takes the CPU longer than the GPU takes to run it (``None`` on the CPU, which does all
        the work itself, or where either was not measured)."""
        if self.device != "cuda" or self.dispatch_us is None or self.gpu_us is None:
            return None
        return self.dispatch_us > self.gpu_us


def decode_row(a: Analysis) -> DecodeRow:
    """The decoding row of one analysed decoding result."""
    r = a.result
    row = DecodeRow(r.variant, r.kv_len or 0, r.status, r.reason, device=r.device)
    t, d = r.timing, r.decode_figures
    if not r.ok or t is None:
        return row
    row.gpu_us, row.dispatch_us, row.band = t.gpu_ms_median * 1e3, t.dispatch_us_median, band_of(a)
    row.peak_mib = _mib(t.peak_extra_bytes)
    if d is not None:
        row.gbs, row.read_fraction = d.gbs, d.read_fraction
    row.kernels_per_step = a.summary.kernels_per_step
    row.kernels = tuple(k.info for k in a.kernels)
    row.profiled_us = _gpu_per_step(a.rows) or None
    if r.variant == variants.sdpa_chooser():
        row.backend = a.sdpa[0]
    return row


@dataclass
class GraphRow:
    """One variant's decoding step replayed from a CUDA graph beside the eager step (medians, µs)."""

    variant: str
    kv_len: int
    status: str
    reason: str | None
    eager_cpu_us: float | None = None
    graph_cpu_us: float | None = None
    eager_wall_us: float | None = None
    graph_wall_us: float | None = None
    eager_gpu_us: float | None = None
    graph_gpu_us: float | None = None
    eager_kernels: float | None = None
    graph_kernels: float | None = None
    eager_launches: float | None = None
    graph_launches: float | None = None
    graph_launch_api: str | None = None
    replay_matches: bool | None = None


def _launches(steps: Sequence) -> tuple[float | None, str | None]:
    """Mean launch calls per step (runtime or driver calls that launched GPU work), and the first one's name."""
    if not steps:
        return None, None
    counts, name = [], None
    for s in steps:
        apis = {(a.launch_api, a.launch_start_us) for a in s.activities if a.launch_api}
        counts.append(len(apis))
        name = name or next((api for api, _ in sorted(apis, key=lambda x: x[1] or 0)), None)
    return sum(counts) / len(counts), name


def graph_row(a: Analysis) -> GraphRow | None:
    """The CUDA-graph row of one analysed decoding result, or ``None`` when it has no graph comparison."""
    r = a.result
    g = r.decode_figures.graph if r.decode_figures is not None else None
    if g is None:
        return None
    row = GraphRow(r.variant, r.kv_len or 0, g.status if r.ok else r.status, g.reason if r.ok else r.reason)
    if not r.ok or g.status != "ok":
        return row
    for key in ("eager_cpu_us", "graph_cpu_us", "eager_wall_us", "graph_wall_us", "eager_gpu_us", "graph_gpu_us"):
        setattr(row, key, getattr(g, key))
    row.replay_matches = g.replay_matches
    row.eager_kernels = a.summary.kernels_per_step
    row.eager_launches, _ = _launches(r.steps)
    if g.steps:
        row.graph_kernels = sum(len(s.kernels) for s in g.steps) / len(g.steps)
        row.graph_launches, row.graph_launch_api = _launches(g.steps)
    return row


@dataclass(frozen=True)
class Conditions:
    """What a workload's decision rows were measured on: the shape but for its length, the dtype, the mask.

    Attributes:
        workload: The workload.
        device: The device's recorded name (``NVIDIA H200``, or the CPU's name).
        on_gpu: Measured on a GPU (``False``: a build without one, whose times describe its CPU).
        batch: Batch size.
        heads: Query heads.
        kv_heads: Key and value heads (decoding: grouped; ``None`` where they are the query heads).
        head_dim: Head dimension.
        dtype: Canonical dtype name.
        causal: The causal mask (:attr:`attnprof.workloads.Workload.causal`).
        lengths: The lengths of its rows (sequence, or cache for decoding), ascending.
    """

    workload: str
    device: str
    on_gpu: bool
    batch: int
    heads: int
    kv_heads: int | None
    head_dim: int
    dtype: str
    causal: bool
    lengths: tuple[int, ...]


# --- a whole build --------------------------------------------------------------------------------------------------


@dataclass
class Build:
    """Every analysed result of a build, by workload, the sweep (prefill at several lengths) and the side-by-side
    issue times at the decision table's shapes (:mod:`attnprof.records.forcing`), if any."""

    by_workload: dict[str, list[Analysis]] = field(default_factory=dict)
    sweep: Sweep | None = None
    forcing: Forcing | None = None

    def forcing_case(self, a: Analysis) -> ForcingCase | None:
        """The side-by-side issue times measured at the shape of ``a``'s result, if the build measured them."""
        r = a.result
        return self.forcing.case(r.workload, r.shape, r.dtype, r.kv_len) if self.forcing is not None else None

    def of(self, workload: str) -> list[Analysis]:
        """The analysed results of ``workload`` (in registry order of their variants, then by length)."""
        order = {n: i for i, n in enumerate(variants.VARIANTS)}
        return sorted(self.by_workload.get(workload, []),
                      key=lambda a: (order.get(a.variant, 99), a.result.kv_len or 0, a.result.shape[2]))  # fmt: skip

    def train_rows(self) -> list[TrainRow]:
        """One row per training result."""
        return [train_row(a) for a in self.of("train")]

    def decode_rows(self) -> list[DecodeRow]:
        """One row per decoding result."""
        return [decode_row(a) for a in self.of("decode")]

    def decode_lengths(self) -> list[int]:
        """The cache lengths of the decoding results, ascending."""
        return sorted({a.result.kv_len or 0 for a in self.of("decode")})

    def graph_rows(self) -> list[GraphRow]:
        """One row per decoding result with a CUDA-graph comparison."""
        return [g for a in self.of("decode") if (g := graph_row(a)) is not None]

    def decision_rows(self, workload: str | None = None) -> list[DecisionRow]:
        """The decision table (every workload of :data:`DECISION_WORKLOADS` with results, or just ``workload``):
        training by sequence length, prefill by sequence length from the sweep (at the prefill results' head dim)
        or from the prefill results when there is no sweep, decoding by cache length."""
        out: list[DecisionRow] = []
        for w in (workload,) if workload else DECISION_WORKLOADS:
            analyses = self.of(w)
            if workloads.get(w).sweeps and self.sweep is not None:
                head_dim = analyses[0].result.shape[3] if analyses else self.sweep.head_dims[0]
                hd = head_dim if head_dim in self.sweep.head_dims else self.sweep.head_dims[0]
                out += sweep_rows(self.sweep, hd, self.forcing)
                continue
            by_length: dict[int, list[tuple[Analysis, Entry]]] = {}
            for a in analyses:
                length = a.result.kv_len if workloads.get(w).kv_cache else a.result.shape[2]
                e = entry(a)
                if e is not None and length:
                    by_length.setdefault(length, []).append((a, e))
            for n, found in sorted(by_length.items()):
                first = found[0][0]
                out.append(decision_row(w, n, [e for _, e in found], self.forcing_case(first),
                                        first.result.device == "cuda"))  # fmt: skip
        return out

    def conditions(self, workload: str) -> Conditions | None:
        """What the decision rows of ``workload`` were measured on, or ``None`` without rows: from its results (the
        first that ran), or for prefill from the sweep when the rows come from it."""
        lengths = tuple(r.length for r in self.decision_rows(workload))
        if not lengths:
            return None
        causal = workloads.get(workload).causal
        analyses = [a for a in self.of(workload) if a.result.ok]
        if workloads.get(workload).sweeps and self.sweep is not None:  # the rows come from the sweep
            sw = self.sweep
            head_dim = analyses[0].result.shape[3] if analyses else sw.head_dims[0]
            head_dim = head_dim if head_dim in sw.head_dims else sw.head_dims[0]
            return Conditions(workload, sw.environment.device_name, sw.device == "cuda", sw.batch, sw.heads, None,
                              head_dim, sw.dtype, causal, lengths)  # fmt: skip
        if not analyses:
            return None
        r = analyses[0].result
        b, h, _, d = r.shape
        kv = r.kv_heads if r.kv_heads not in (None, h) else None
        return Conditions(workload, r.environment.device_name, r.device == "cuda", b, h, kv, d, r.dtype, causal,
                          lengths)  # fmt: skip

    def result(self, workload: str, variant: str, length: int | None = None) -> Analysis | None:
        """The analysed result of ``variant`` in ``workload`` (at cache ``length`` for decoding; the longest when
        ``None``)."""
        found = [a for a in self.of(workload) if a.variant == variant]
        if length is not None:
            found = [a for a in found if (a.result.kv_len or a.result.shape[2]) == length]
        return found[-1] if found else None
