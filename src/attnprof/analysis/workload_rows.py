"""What the results of the training, decoding and CUDA-graph runs say together, worked out once: one row per variant
(training), per variant and cache length (decoding), per captured variant (CUDA graphs), and the decision table
(which attention wins each workload at each length, by how much, and whether forcing a backend helps).

The input is a :class:`Build`: every analysed result of the build, by workload
(:func:`attnprof.analysis.summary.analyse`, one analysis per file), and the sweep for prefill at several lengths.
Pages, claims and the terminal tables read the rows made here, so one rule decides, for instance, which variant wins
and when two are too close to call.

Too close to call: two medians whose noise bands overlap (:func:`too_close_to_call`, which is
:func:`attnprof.noise.compare` with the GPU floor of ±3 %). The band of a result or a sweep point is the 95 %
confidence interval of its median, as everywhere on the site.

This module does not import torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from attnprof import noise, variants, workloads
from attnprof.analysis.kernels import KernelInfo
from attnprof.analysis.summary import Analysis, KernelRow
from attnprof.noise import Figure
from attnprof.records.sweep import Sweep

#: The workloads of the decision table, in the order it lists them.
DECISION_WORKLOADS: tuple[str, ...] = ("train", "prefill", "decode")
MIB = 2**20


# --- the tie rule ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Band:
    """A median and the noise band around it (same unit, ms)."""

    median: float
    low: float
    high: float


def too_close_to_call(a: Band, b: Band) -> bool:
    """Whether two medians are too close to call: the site's one comparison rule (:func:`attnprof.noise.compare`)
    on their confidence intervals, each at least ±3 % wide (:data:`attnprof.noise.GPU_FLOOR`)."""
    return noise.compare(_figure(a), _figure(b), noise.GPU_FLOOR) == "tie"


def _figure(b: Band) -> Figure:
    return Figure(b.median, b.low, b.high, 0)


# --- one row per result ---------------------------------------------------------------------------------------------


def _band(a: Analysis) -> Band | None:
    t = a.result.timing
    if not a.result.ok or t is None:
        return None
    gpu = t.gpu  # the median with its confidence interval
    return Band(gpu.median, gpu.lo, gpu.hi)


def _mib(n: int | None) -> float | None:
    return None if n is None else n / MIB


def _main(rows: Iterable[KernelRow]) -> KernelRow | None:
    ks = [r for r in rows if r.kind == "kernel"]
    return max(ks, key=lambda r: r.total_us) if ks else None


def _per_step(rows: Iterable[KernelRow]) -> float:
    return sum(r.per_step for r in rows if r.kind == "kernel")


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
    backend: str | None = None
    grad_error: float | None = None
    band: Band | None = None


def train_row(a: Analysis) -> TrainRow:
    """The training row of one analysed training result."""
    r = a.result
    row = TrainRow(r.variant, r.status, r.reason, r.shape[2])
    t, f = r.timing, r.train_figures
    if not r.ok or t is None:
        return row
    row.step_ms, row.tflops, row.peak_mib, row.band = t.gpu_ms_median, t.tflops, _mib(t.peak_extra_bytes), _band(a)
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
    """One variant at one cache length: GPU time (µs), bandwidth, the CPU's issue time, the kernels it ran."""

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
    row.gpu_us, row.dispatch_us, row.band = t.gpu_ms_median * 1e3, t.dispatch_us_median, _band(a)
    row.peak_mib = _mib(t.peak_extra_bytes)
    if d is not None:
        row.gbs, row.read_fraction = d.gbs, d.read_fraction
    row.kernels_per_step = a.summary.kernels_per_step
    row.kernels = tuple(k.info for k in a.kernels)
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


# --- the decision table ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One candidate at one workload and length."""

    variant: str
    band: Band
    peak_mib: float | None
    dispatch_us: float | None
    backend: str | None = None
    dispatch: Figure | None = None


@dataclass
class DecisionRow:
    """Which attention wins one workload at one length.

    Attributes:
        workload: ``"train"``, ``"prefill"`` or ``"decode"``.
        length: The sequence length (train, prefill) or cache length (decode).
        entries: Every candidate that ran, fastest first (median GPU time); SDPA's own choice is not one of
            them (it runs one of the forced backends) but ``auto``.
        too_close: The winner and the runner-up are too close to call (:func:`too_close_to_call`).
        forcing: ``"helps"`` (a forced backend beats SDPA's own choice beyond the noise), ``"no_gain"`` (it does
            not), or ``"unknown"`` (SDPA's choice or every forced backend is missing).
        best_forced: The fastest forced SDPA backend.
        forcing_cpu_us: CPU time per call that forcing the backend SDPA picks costs over not forcing it (µs).
        forcing_cpu: That comparison by the site's rule (:func:`attnprof.noise.compare` of the two dispatch costs
            with their intervals, ±10 % at least): ``"higher"`` (forcing costs more), ``"lower"`` or ``"tie"``.
        flex_ratio: FlexAttention's time over the winner's, where it ran.
    """

    workload: str
    length: int
    entries: list[Entry] = field(default_factory=list)
    too_close: bool = False
    forcing: str = "unknown"
    best_forced: Entry | None = None
    auto: Entry | None = None
    forcing_cpu_us: float | None = None
    forcing_cpu: str | None = None
    flex_ratio: float | None = None

    @property
    def winner(self) -> Entry | None:
        return self.entries[0] if self.entries else None

    @property
    def runner_up(self) -> Entry | None:
        return self.entries[1] if len(self.entries) > 1 else None

    @property
    def margin(self) -> float | None:
        """How much slower the runner-up is than the winner (0.05: 5%)."""
        w, r = self.winner, self.runner_up
        return r.band.median / w.band.median - 1 if w and r and w.band.median > 0 else None


def decision_row(workload: str, length: int, entries: Iterable[Entry]) -> DecisionRow:
    """Rank the candidates of one workload at one length and work out the rest of the row."""
    entries = list(entries)
    # SDPA's own choice runs one of the forced backends: it is compared with them, not ranked among them
    ranked = sorted((e for e in entries if e.variant != variants.sdpa_chooser()), key=lambda e: e.band.median)
    row = DecisionRow(workload, length, ranked)
    if len(ranked) > 1:
        row.too_close = too_close_to_call(ranked[0].band, ranked[1].band)
    by = {e.variant: e for e in entries}
    row.auto = by.get(variants.sdpa_chooser())
    forced = [e for e in ranked if e.variant in variants.forced()]
    row.best_forced = forced[0] if forced else None
    if row.auto is not None and row.best_forced is not None:
        faster = row.best_forced.band.median < row.auto.band.median
        clear = not too_close_to_call(row.best_forced.band, row.auto.band)
        row.forcing = "helps" if faster and clear else "no_gain"
        picked = by.get(variants.by_sdpa_family(row.auto.backend) or "")
        if picked is not None and picked.dispatch_us is not None and row.auto.dispatch_us is not None:
            row.forcing_cpu_us = picked.dispatch_us - row.auto.dispatch_us
            if picked.dispatch is not None and row.auto.dispatch is not None:
                row.forcing_cpu = noise.compare(picked.dispatch, row.auto.dispatch, noise.CPU_FLOOR)
    flex, win = by.get("flex"), row.winner
    if flex is not None and win is not None and win.band.median > 0:
        row.flex_ratio = flex.band.median / win.band.median
    return row


def _entry(a: Analysis) -> Entry | None:
    band = _band(a)
    if band is None:
        return None
    t = a.result.timing
    backend = a.sdpa[0] if a.variant == variants.sdpa_chooser() else None
    return Entry(a.variant, band, _mib(t.peak_extra_bytes) if t else None, t.dispatch_us_median if t else None,
                 backend, t.dispatch if t else None)  # fmt: skip


def _sweep_rows(sw: Sweep, head_dim: int) -> list[DecisionRow]:
    rows = []
    for seq in sw.seqs:
        entries = []
        for p in sw.points:
            if p.ok and p.head_dim == head_dim and p.seq == seq and p.gpu_ms is not None:
                low, high = p.gpu.lo, p.gpu.hi  # type: ignore[union-attr]
                peak = None if p.peak_extra_bytes is None else p.peak_extra_bytes / MIB
                entries.append(Entry(p.variant, Band(p.gpu_ms, low, high), peak, p.dispatch_us, p.sdpa_choice))
        if entries:
            rows.append(decision_row("prefill", seq, entries))
    return rows


# --- a whole build --------------------------------------------------------------------------------------------------


@dataclass
class Build:
    """Every analysed result of a build, by workload, and the sweep (prefill at several lengths), if any."""

    by_workload: dict[str, list[Analysis]] = field(default_factory=dict)
    sweep: Sweep | None = None

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
                out += _sweep_rows(
                    self.sweep, head_dim if head_dim in self.sweep.head_dims else self.sweep.head_dims[0]
                )
                continue
            by_length: dict[int, list[Entry]] = {}
            for a in analyses:
                length = a.result.kv_len if workloads.get(w).kv_cache else a.result.shape[2]
                e = _entry(a)
                if e is not None and length:
                    by_length.setdefault(length, []).append(e)
            out += [decision_row(w, n, es) for n, es in sorted(by_length.items())]
        return out

    def result(self, workload: str, variant: str, length: int | None = None) -> Analysis | None:
        """The analysed result of ``variant`` in ``workload`` (at cache ``length`` for decoding; the longest when
        ``None``)."""
        found = [a for a in self.of(workload) if a.variant == variant]
        if length is not None:
            found = [a for a in found if (a.result.kv_len or a.result.shape[2]) == length]
        return found[-1] if found else None
