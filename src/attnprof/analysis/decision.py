"""The decision table: which way of calling attention wins each workload at each length, by how much, in which
regime, and whether forcing an SDPA backend pays (:func:`decision_row`, one row per workload and length).

Each candidate of a row is one analysed result (training, decoding) or one sweep point (prefill), an
:class:`Entry`. Two rankings are kept:

* by **what a step costs** (:mod:`attnprof.analysis.verdicts`): the longer of the GPU's time and the CPU's issue
  time, with the regime (GPU- or CPU-bound) of the winner and the advice about forcing. This is the verdict the
  pages give. The issue times come from the side-by-side measurement at the row's shape
  (:mod:`attnprof.records.forcing`) where the build made it, else from each candidate's own run (marked so).
  SDPA's own choice is one of the options; forcing the very backend it picks is not (it runs the same kernel, and
  what it adds is the forcing advice's figure).
* by **GPU time** alone (:attr:`DecisionRow.entries`, :attr:`DecisionRow.best_forced`): what the claims about the
  kernels compare. Too close to call: two medians whose noise bands overlap, or that differ by less than the minimum
  effect size (:func:`too_close_to_call`, the GPU floor of ±3 % and the GPU minimum effect of 5 %).

A candidate whose band is too wide to decide anything (:func:`attnprof.noise.too_wide`: a time measured while
something else ran) is not ranked: the row names it instead of letting it decide.

This module does not import torch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from attnprof import inputs, noise, variants
from attnprof.analysis import verdicts
from attnprof.analysis.summary import Analysis
from attnprof.analysis.verdicts import Cost, Option, SdpaAdvice, Verdict
from attnprof.noise import Figure
from attnprof.records.forcing import Forcing, ForcingCase
from attnprof.records.sweep import Sweep

MIB = 2**20


# --- the tie rule of GPU times --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Band:
    """A median and the noise band around it (same unit, ms)."""

    median: float
    low: float
    high: float

    @property
    def figure(self) -> Figure:
        """The same as a :class:`attnprof.noise.Figure`."""
        return Figure(self.median, self.low, self.high, 0)

    @property
    def too_wide(self) -> bool:
        """Too wide to decide anything (:func:`attnprof.noise.too_wide`)."""
        return noise.too_wide(self.figure)


def too_close_to_call(a: Band, b: Band) -> bool:
    """Whether two medians are too close to call: the site's one comparison rule (:func:`attnprof.noise.compare`)
    on their confidence intervals, each at least ±3 % wide (:data:`attnprof.noise.GPU_FLOOR`), with the minimum
    effect size of GPU times (:data:`attnprof.noise.GPU_MIN_EFFECT`)."""
    return gpu_compare(a, b) == "tie"


def gpu_compare(a: Band, b: Band) -> str:
    """:func:`attnprof.noise.compare` of two GPU times (GPU floor and minimum effect)."""
    return noise.compare(a.figure, b.figure, noise.GPU_FLOOR, min_effect=noise.GPU_MIN_EFFECT)


def gpu_margin(a: Band, b: Band) -> Figure | None:
    """How much slower ``a`` is than ``b`` with its band (:func:`attnprof.noise.margin`, GPU floor)."""
    return noise.margin(a.figure, b.figure, noise.GPU_FLOOR) if b.low > 0 and b.median > 0 else None


def band_of(a: Analysis) -> Band | None:
    """The median GPU time (ms) of a result that ran, with its confidence interval; ``None`` otherwise."""
    t = a.result.timing
    if not a.result.ok or t is None:
        return None
    gpu = t.gpu
    return Band(gpu.median, gpu.lo, gpu.hi)


# --- the rows -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One candidate at one workload and length.

    Attributes:
        variant: The variant.
        band: Its median GPU time (ms) and the band around it.
        peak_mib: Peak device memory of one call (training: one step) above what was allocated before it, MiB: the
            inputs (``q``, ``k``, ``v``; for decoding, the KV cache) are not in it.
        dispatch_us: CPU time to issue one call, µs, in the candidate's own run.
        backend: The backend SDPA ran (``sdpa_auto`` only).
        dispatch: That dispatch cost with its band, where the run kept one.
        inputs_mib: What the inputs the call reads take in device memory, MiB (the KV cache, for decoding): allocated
            before the call, so not in ``peak_mib``.
    """

    variant: str
    band: Band
    peak_mib: float | None
    dispatch_us: float | None
    backend: str | None = None
    dispatch: Figure | None = None
    inputs_mib: float | None = None

    @property
    def own_issue(self) -> Figure | None:
        """The issue time of the candidate's own run, µs (a bare median where the run kept no band)."""
        if self.dispatch is not None:
            return self.dispatch
        return None if self.dispatch_us is None else noise.exact(self.dispatch_us)


@dataclass
class DecisionRow:
    """Which attention wins one workload at one length.

    Attributes:
        workload: ``"train"``, ``"prefill"`` or ``"decode"``.
        length: The sequence length (train, prefill) or cache length (decode).
        entries: Every candidate that ran and whose GPU band can decide something, lowest GPU time first; SDPA's own
            choice is not one of them (it runs one of the forced backends) but ``auto``.
        unreliable: Candidates that ran but whose band is too wide to decide anything: not ranked, named instead.
        too_close: The first two ``entries`` are too close to call (:func:`too_close_to_call`).
        margin_band: How much slower the second of ``entries`` is than the first, with its band.
        forcing: By GPU time alone: ``"helps"`` (a forced backend beats SDPA's own choice beyond the noise),
            ``"no_gain"``, ``"unreliable"`` (a band too wide) or ``"unknown"`` (SDPA's choice or every forced
            backend missing).
        best_forced: The forced SDPA backend with the lowest GPU time.
        auto: SDPA's own choice.
        saving: The share of GPU time forcing ``best_forced`` would save against SDPA's own choice, with its band.
        flex_ratio: FlexAttention's step over the winner's (what a step costs), where it ran.
        options: Every candidate as a way of calling attention, with what its step costs.
        verdict: The options ranked by what a step costs (forcing the backend SDPA picks left out: see the module
            docstring).
        advice: Whether to force a backend (:func:`attnprof.analysis.verdicts.sdpa_advice`).
        side_by_side: The issue times come from the side-by-side measurement at this shape.
    """

    workload: str
    length: int
    entries: list[Entry] = field(default_factory=list)
    too_close: bool = False
    forcing: str = "unknown"
    best_forced: Entry | None = None
    auto: Entry | None = None
    flex_ratio: float | None = None
    unreliable: list[Entry] = field(default_factory=list)
    margin_band: Figure | None = None
    saving: Figure | None = None
    options: list[Option] = field(default_factory=list)
    verdict: Verdict = field(default_factory=Verdict)
    advice: SdpaAdvice = field(default_factory=SdpaAdvice)
    side_by_side: bool = False

    @property
    def winner(self) -> Entry | None:
        """The candidate with the lowest GPU time."""
        return self.entries[0] if self.entries else None

    @property
    def runner_up(self) -> Entry | None:
        return self.entries[1] if len(self.entries) > 1 else None

    @property
    def margin(self) -> float | None:
        """How much slower the runner-up is than the winner by GPU time (0.05: 5%)."""
        w, r = self.winner, self.runner_up
        return r.band.median / w.band.median - 1 if w and r and w.band.median > 0 else None

    def entry(self, variant: str) -> Entry | None:
        """The candidate ``variant``, ranked or not."""
        return next((e for e in [*self.entries, *self.unreliable, *([self.auto] if self.auto else [])]
                     if e.variant == variant), None)  # fmt: skip


def _option(e: Entry, case: ForcingCase | None, on_gpu: bool) -> Option:
    row = case.row(e.variant) if case is not None else None
    side = row is not None and row.ok
    issue = row.issue if side and row is not None else e.own_issue
    gpu = e.band.figure.scaled(1e3)
    return Option(e.variant, Cost(gpu, issue, side, on_gpu), e.backend)


def decision_row(workload: str, length: int, entries: Iterable[Entry], case: ForcingCase | None = None,
                 on_gpu: bool = True) -> DecisionRow:  # fmt: skip
    """Rank the candidates of one workload at one length and work out the rest of the row.

    ``case`` is the side-by-side measurement of issue times at this shape (:mod:`attnprof.records.forcing`), if the
    build made one; ``on_gpu`` whether the candidates ran on a GPU.
    """
    entries = list(entries)
    wide = [e for e in entries if e.band.too_wide]
    chooser = variants.sdpa_chooser()
    ranked = sorted((e for e in entries if e.variant != chooser and e not in wide), key=lambda e: e.band.median)
    row = DecisionRow(workload, length, ranked, unreliable=wide)
    if len(ranked) > 1:
        row.too_close = too_close_to_call(ranked[1].band, ranked[0].band)
        row.margin_band = gpu_margin(ranked[1].band, ranked[0].band)
    by = {e.variant: e for e in entries}
    row.auto = by.get(chooser)
    forced = [e for e in entries if e.variant in variants.forced()]
    row.best_forced = min(forced, key=lambda e: e.band.median) if forced else None
    if row.auto is not None and row.best_forced is not None:
        if row.auto.band.too_wide or row.best_forced.band.too_wide:
            row.forcing = "unreliable"
        else:
            row.forcing = "helps" if gpu_compare(row.best_forced.band, row.auto.band) == "lower" else "no_gain"
            m = gpu_margin(row.best_forced.band, row.auto.band)
            row.saving = None if m is None else Figure(-m.median, -m.hi, -m.lo, m.n)
    # what a step costs: the verdict the pages give
    row.options = [_option(e, case, on_gpu) for e in entries]
    row.side_by_side = case is not None and any(o.cost.side_by_side for o in row.options)
    over_auto = {r.variant: r.over_auto for r in (case.rows if case else []) if r.ok and r.over_auto is not None}
    row.advice = verdicts.sdpa_advice(row.options, over_auto)
    same = row.advice.picked if row.advice.auto is not None else None
    row.verdict = verdicts.rank(o for o in row.options if o.variant != same)
    flex = {o.variant: o for o in row.options if not o.too_wide}.get("flex")
    win = row.verdict.winner
    if flex is not None and win is not None and win.cost.step.median > 0:
        row.flex_ratio = flex.cost.step.median / win.cost.step.median
    return row


def inputs_mib(a: Analysis) -> float:
    """Device memory of the inputs a result's call reads (``q``, ``k``, ``v``; the KV cache for decoding), MiB."""
    r = a.result
    b, h, s, d = r.shape
    kv = b * (r.kv_heads or h) * (r.kv_len or s) * d
    return (b * h * s * d + 2 * kv) * inputs.element_bytes(r.dtype) / MIB


def entry(a: Analysis) -> Entry | None:
    """The candidate an analysed result makes, or ``None`` for one that did not run."""
    band = band_of(a)
    if band is None:
        return None
    t = a.result.timing
    backend = a.sdpa[0] if a.variant == variants.sdpa_chooser() else None
    peak = None if t is None or t.peak_extra_bytes is None else t.peak_extra_bytes / MIB
    return Entry(a.variant, band, peak, t.dispatch_us_median if t else None, backend, t.dispatch if t else None,
                 inputs_mib(a))  # fmt: skip


def sweep_rows(sw: Sweep, head_dim: int, forcing: Forcing | None = None) -> list[DecisionRow]:
    """The prefill rows of the sweep at ``head_dim``, one per sequence length."""
    rows = []
    for seq in sw.seqs:
        entries = []
        for p in sw.points:
            if p.ok and p.head_dim == head_dim and p.seq == seq and p.gpu_ms is not None:
                low, high = p.gpu.lo, p.gpu.hi  # type: ignore[union-attr]
                peak = None if p.peak_extra_bytes is None else p.peak_extra_bytes / MIB
                size = 3 * sw.batch * sw.heads * seq * head_dim * inputs.element_bytes(sw.dtype) / MIB
                entries.append(Entry(p.variant, Band(p.gpu_ms, low, high), peak, p.dispatch_us, p.sdpa_choice,
                                     inputs_mib=size))  # fmt: skip
        if entries:
            shape = [sw.batch, sw.heads, seq, head_dim]
            case = forcing.case("prefill", shape, sw.dtype) if forcing is not None else None
            rows.append(decision_row("prefill", seq, entries, case, sw.device == "cuda"))
    return rows
