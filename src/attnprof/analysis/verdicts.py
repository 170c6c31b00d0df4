"""The one rule that turns measurements into advice: what a way of calling attention costs per step, which way wins,
by how much and in which regime, and whether forcing an SDPA backend pays.

**What a step costs.** Calls issued one after another overlap two kinds of work: while the GPU runs one call's
kernels, the CPU issues the next call. So a step takes the longer of the two times, the GPU's time for its kernels
and the CPU's time to issue them (:class:`Cost`): the shorter one hides behind the longer. Where the CPU's issue time
is the longer one, the GPU waits for the CPU and the step is **CPU-bound**: a faster kernel does not make it faster,
a call that issues faster does. Where the GPU's time is the longer one the step is **GPU-bound**, and the CPU's time
does not show. Each time is a median with its band: the GPU's at least ±3 % (:data:`attnprof.noise.GPU_FLOOR`), the
CPU's at least ±10 % (:data:`attnprof.noise.CPU_FLOOR`); the regime is called only when the two bands do not overlap,
and is **balanced** otherwise (both times matter). On a build without a GPU there is one time, the CPU's, and no
regime.

**Which way wins** (:func:`rank`): the lowest step cost, by the site's one comparison rule
(:func:`attnprof.noise.compare`) on the step bands, with the minimum effect of GPU times (5 %) where both steps are
GPU-bound and of CPU times (25 %) otherwise. An option measured with a band too wide to decide anything
(:func:`attnprof.noise.too_wide`) is not ranked.

**Forcing a backend** (:func:`sdpa_advice`): SDPA's own choice runs one of the backends; forcing that same backend
runs the same kernel and adds the CPU time of forcing, which is measured as the whole difference between the forced
call and SDPA's own choice at the same shape, side by side (:mod:`attnprof.records.forcing`). Forcing another
backend pays only where its whole step (GPU and CPU) is lower than SDPA's own choice's beyond the noise.

This module imports neither torch nor Sphinx.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from attnprof import noise, variants
from attnprof.noise import Figure

#: The regimes a step can be in (see the module docstring).
REGIMES: tuple[str, ...] = ("gpu", "cpu", "balanced")
#: What the advice about forcing can be: ``keep`` (SDPA already picks the best backend: do not force), ``force``
#: (forcing another backend lowers the step beyond the noise), ``no_gain`` (forcing another backend changes the step
#: by nothing beyond the noise), ``costs`` (forcing it makes the step longer beyond the noise: where the step is
#: CPU-bound, a faster kernel issued more slowly), ``unknown`` (SDPA's own choice or its backend not measured).
ADVICE: tuple[str, ...] = ("keep", "force", "no_gain", "costs", "unknown")


def _widened(f: Figure, floor: float) -> Figure:
    lo, hi = f.band(floor)
    return Figure(f.median, lo, hi, f.n)


@dataclass(frozen=True)
class Cost:
    """What one step of one way of calling attention costs: the GPU's time and the CPU's issue time, µs.

    Attributes:
        gpu: The GPU's time per step (on a build without a GPU: the CPU's time for the whole call), µs, median and
            band.
        issue: The CPU's time to issue one step (until the call returns, the device idle before it), µs; ``None``
            where it was not measured.
        side_by_side: The issue time was measured in the same rounds as the other options of its row
            (:mod:`attnprof.records.forcing`), not in a run of its own.
        on_gpu: Measured on a GPU.
        extra: What a step pays besides the call, µs: building a mask that changes with every batch (timed apart,
            the device waited for); added to the step, not part of its regime.
    """

    gpu: Figure
    issue: Figure | None = None
    side_by_side: bool = False
    on_gpu: bool = True
    extra: Figure | None = None

    @property
    def gpu_band(self) -> Figure:
        """:attr:`gpu` with its band at least ±3 %."""
        return _widened(self.gpu, noise.GPU_FLOOR)

    @property
    def issue_band(self) -> Figure | None:
        """:attr:`issue` with its band at least ±10 %."""
        return None if self.issue is None else _widened(self.issue, noise.CPU_FLOOR)

    @property
    def call(self) -> Figure:
        """What the call costs, µs: the longer of the GPU's and the CPU's time, band by band (on a build without a
        GPU, and where the issue time was not measured, the GPU's time)."""
        g, i = self.gpu_band, self.issue_band
        if not self.on_gpu or i is None:
            return g
        return Figure(max(g.median, i.median), max(g.lo, i.lo), max(g.hi, i.hi), min(g.n, i.n))

    @property
    def step(self) -> Figure:
        """What one step costs, µs: the call, and what it pays besides (:attr:`extra`), bands added."""
        c, e = self.call, self.extra
        if e is None:
            return c
        lo, hi = e.band(noise.CPU_FLOOR)
        return Figure(c.median + e.median, c.lo + lo, c.hi + hi, min(c.n, e.n))

    @property
    def regime(self) -> str | None:
        """``"cpu"`` (the issue time's band lies wholly above the GPU time's), ``"gpu"`` (wholly below),
        ``"balanced"`` (they overlap), or ``None`` (no GPU, or no issue time)."""
        g, i = self.gpu_band, self.issue_band
        if not self.on_gpu or i is None:
            return None
        if i.lo > g.hi:
            return "cpu"
        if i.hi < g.lo:
            return "gpu"
        return "balanced"


@dataclass(frozen=True)
class Option:
    """One way of calling attention at one workload and length.

    Attributes:
        variant: The registry name.
        cost: What a step costs.
        backend: The backend SDPA ran (SDPA's own choice only), as the trace names its family (``"cudnn"``).
    """

    variant: str
    cost: Cost
    backend: str | None = None

    @property
    def too_wide(self) -> bool:
        """Measured with a band too wide to decide anything: the GPU's time, or the issue time where its band reaches
        the GPU's (where it lies wholly below, it cannot decide the step)."""
        c = self.cost
        i = c.issue_band
        wide_issue = i is not None and c.on_gpu and noise.too_wide(c.issue) and i.hi >= c.gpu_band.lo  # type: ignore[arg-type]
        return noise.too_wide(c.gpu) or wide_issue


def compare(a: Cost, b: Cost) -> str:
    """``"lower"``, ``"higher"`` or ``"tie"``: the site's one rule on the two steps' bands, with the GPU's minimum
    effect where both are GPU-bound (or neither has a GPU), the CPU's otherwise."""
    both_gpu = a.regime in ("gpu", None) and b.regime in ("gpu", None)
    effect = noise.GPU_MIN_EFFECT if both_gpu else noise.CPU_MIN_EFFECT
    return noise.compare(a.step, b.step, min_effect=effect)


def margin(a: Cost, b: Cost) -> Figure | None:
    """How much more ``a``'s step costs than ``b``'s, as a fraction of ``b``'s, with its band; ``None`` where
    ``b``'s band reaches zero."""
    s = b.step
    return noise.margin(a.step, s) if s.lo > 0 and s.median > 0 else None


@dataclass
class Verdict:
    """The options of one workload at one length, ranked by what a step costs.

    Attributes:
        ranked: Options that can decide something, cheapest step first.
        unreliable: Options measured with a band too wide to decide anything: named, not ranked.
        too_close: The first two are too close to call (:func:`compare`).
        margin: How much more the second's step costs than the first's, with its band.
    """

    ranked: list[Option] = field(default_factory=list)
    unreliable: list[Option] = field(default_factory=list)
    too_close: bool = False
    margin: Figure | None = None

    @property
    def winner(self) -> Option | None:
        return self.ranked[0] if self.ranked else None

    @property
    def runner_up(self) -> Option | None:
        return self.ranked[1] if len(self.ranked) > 1 else None

    @property
    def regime(self) -> str | None:
        """The winner's regime."""
        return self.winner.cost.regime if self.winner else None


def rank(options: Iterable[Option]) -> Verdict:
    """Rank ``options`` by their step's median; the first two compared by :func:`compare`."""
    options = list(options)
    wide = [o for o in options if o.too_wide]
    ranked = sorted((o for o in options if o not in wide), key=lambda o: o.cost.step.median)
    verdict = Verdict(ranked, wide)
    if len(ranked) > 1:
        verdict.too_close = compare(ranked[1].cost, ranked[0].cost) == "tie"
        verdict.margin = margin(ranked[1].cost, ranked[0].cost)
    return verdict


@dataclass
class SdpaAdvice:
    """Whether to force an SDPA backend at one workload and length.

    Attributes:
        advice: One of :data:`ADVICE`.
        auto: SDPA's own choice.
        picked: The variant that forces the backend SDPA's own choice ran (``"sdpa_cudnn"``), if known.
        same: That forced variant's option, if measured.
        forcing_cpu: What forcing the backend SDPA picks adds to the CPU's issue time per call, µs: the whole
            difference between the forced call and SDPA's own choice, measured side by side (``None`` where it was
            not).
        forcing_share: That difference as a share of SDPA's own choice's step, where the step is CPU-bound (where it
            is GPU-bound the CPU's time hides behind the GPU's, and this is ``None``).
        best: The forced backend whose step costs least, where it is not the one SDPA picks.
        saving: The share of SDPA's own choice's step that forcing ``best`` saves (negative: it costs more), with
            its band.
    """

    advice: str = "unknown"
    auto: Option | None = None
    picked: str | None = None
    same: Option | None = None
    forcing_cpu: Figure | None = None
    forcing_share: Figure | None = None
    best: Option | None = None
    saving: Figure | None = None

    @property
    def regime(self) -> str | None:
        """SDPA's own choice's regime."""
        return self.auto.cost.regime if self.auto else None


def sdpa_advice(options: Iterable[Option], forcing_cpu: dict[str, Figure] | None = None) -> SdpaAdvice:
    """The advice about forcing a backend, from every option of one row (SDPA's own choice among them) and the whole
    CPU difference of each forced call against SDPA's own choice (``forcing_cpu``, µs, by variant, measured side by
    side)."""
    by = {o.variant: o for o in options}
    out = SdpaAdvice(auto=by.get(variants.sdpa_chooser()))
    forced = [o for o in by.values() if o.variant in variants.forced() and not o.too_wide]
    if out.auto is None or out.auto.too_wide or not forced:
        return out
    out.picked = variants.by_sdpa_family(out.auto.backend)
    out.same = by.get(out.picked) if out.picked else None
    if out.picked is not None and forcing_cpu and out.picked in forcing_cpu:
        out.forcing_cpu = forcing_cpu[out.picked]
        step = out.auto.cost.step
        if out.auto.cost.regime == "cpu" and step.median > 0:
            f = out.forcing_cpu
            out.forcing_share = Figure(f.median / step.median, f.lo / step.median, f.hi / step.median, f.n)
    best = min(forced, key=lambda o: o.cost.step.median)
    if best.variant == out.picked or (out.same is not None and compare(best.cost, out.same.cost) == "tie"):
        out.advice = "keep"  # the kernel SDPA runs is (as good as) the best: forcing it only adds CPU time
        return out
    out.best = best
    m = margin(best.cost, out.auto.cost)
    out.saving = None if m is None else Figure(-m.median, -m.hi, -m.lo, m.n)
    out.advice = {"lower": "force", "higher": "costs"}.get(compare(best.cost, out.auto.cost), "no_gain")
    return out
