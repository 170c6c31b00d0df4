"""Figures with their noise bands, and the one rule that compares two of them.

A measured figure is never one number: run the same measurement again and it moves. :class:`Figure` keeps the
figure (the median of its samples) together with an interval that says how far it can be trusted, and
:func:`compare` is the one rule by which attnprof says that one figure is lower or higher than another. Every
ordering the site states (a claim's "flash is fastest", "cuDNN costs the most CPU", the sweep's "SDPA picked the
fastest backend") goes through it, so that a difference smaller than the noise is reported as a tie, "too close to
call on this build", instead of an order that the next build may reverse.

Where the intervals come from:

* **GPU times** (CUDA events around single calls, :func:`attnprof.measure.timing.time_shape`): tens to hundreds of
  samples, so the interval is a distribution-free confidence interval of the median (:func:`median_interval`):
  two order statistics chosen so that the true median lies between them with at least 95% probability, whatever
  the distribution of the samples.
* **CPU times** (dispatch cost, the forcing context, profiled CPU time) drift with the state of the machine by more
  than they vary from call to call, so single calls are not independent samples of one figure. They are measured
  in interleaved rounds (:func:`attnprof.measure.cpucosts.measure_cpu_costs`); each round gives one median, and the
  interval is the confidence interval of the median over the rounds' medians. Rounds capture drift within a
  build, not between builds.
* **A handful of samples** (the three active profiler steps): the interval is the whole range, which is all that
  three samples can say.

A confidence interval describes one build. Two builds minutes apart differ by more than that (clocks, other
processes, which CPU core the thread runs on). So :func:`compare` also takes a *floor*: each figure's band is at
least ``±floor`` of its median. The floors used by the site are :data:`GPU_FLOOR` and :data:`CPU_FLOOR`; a rule that
compares figures states which floor it uses.

Two more guards keep a verdict from flipping between two builds of one machine:

* **A minimum effect size** (``min_effect`` of :func:`compare`): two figures whose medians differ by less than that
  fraction are a tie, however narrow their bands (:data:`GPU_MIN_EFFECT`, :data:`CPU_MIN_EFFECT`). A difference
  the site calls is one that the next build will see too.
* **A band too wide to decide anything** (:func:`too_wide`, :data:`WIDE_BAND`): a figure measured under
  contention spreads so widely that comparing it says nothing. The measurement re-measures it
  (:mod:`attnprof.measure.sweeprun`), and what is still too wide afterwards is shown as unreliable and kept out of
  every verdict, instead of being called "too close to call".

:func:`margin` gives the difference between two figures as a fraction, with the band the two figures' bands allow,
so that a page can show the reader what a verdict rests on: the order is called only when that band lies wholly on
one side of zero (and the median difference reaches the minimum effect).

This module imports neither torch nor anything else of attnprof.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The outcomes of :func:`compare`.
OUTCOMES: tuple[str, ...] = ("lower", "higher", "tie")
#: Coverage of the confidence interval of a median (:func:`median_interval`).
CONFIDENCE = 0.95
#: The least half-width of a GPU time's band, as a fraction of its median. Two measurements of one shape by the
#: same timer agree within 3% (the target the GPU tests hold the sweep and the variant pages to), so a smaller
#: difference between two GPU times is not a difference.
GPU_FLOOR = 0.03
#: The least half-width of a CPU time's band, as a fraction of its median. CPU times of one call moved by 0.8x to
#: 2.2x between two cold builds of the same machine; measured side by side the ratios between backends hold much
#: better, but not to a few percent.
CPU_FLOOR = 0.10
#: The least difference between two GPU times that the site calls, as a fraction of the lower one: two builds of one
#: machine put the same shape up to 3% apart (:data:`GPU_FLOOR`), so a smaller difference is not one the next build
#: is sure to see.
GPU_MIN_EFFECT = 0.05
#: The least difference between two CPU times that the site calls, as a fraction of the lower one.
CPU_MIN_EFFECT = 0.25
#: A band that reaches further than this fraction of its median on either side is too wide to decide anything
#: (:func:`too_wide`): a time measured while something else ran.
WIDE_BAND = 0.25
#: Samples are unstable when their 10th-90th percentile range is wider than this fraction of the 10th percentile
#: (and wider than the absolute floor :func:`unstable` is given): a kernel that sometimes takes 13 ms and sometimes
#: 16 ms has no single time to report.
UNSTABLE_SPREAD = 0.10


def percentile(xs: Iterable[float], p: float) -> float:
    """The ``p``-th percentile of ``xs`` (nearest rank).

    Raises:
        ValueError: for no samples.
    """
    xs = sorted(xs)
    if not xs:
        raise ValueError("percentile of no samples")
    i = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[i]


@dataclass(frozen=True)
class Figure:
    """A measured figure and its noise band.

    Attributes:
        median: The figure: the median of the samples (of the rounds' medians, for CPU times).
        lo: Lower end of the interval (see the module docstring for where it comes from).
        hi: Upper end of the interval.
        n: Samples (or rounds) behind the figure.
    """

    median: float
    lo: float
    hi: float
    n: int

    def band(self, floor: float = 0.0) -> tuple[float, float]:
        """The interval, widened where needed to at least ``±floor`` of the median."""
        half = floor * abs(self.median)
        return min(self.lo, self.median - half), max(self.hi, self.median + half)

    def scaled(self, factor: float) -> Figure:
        """The same figure times a positive ``factor`` (a tolerance applied to one side of a comparison)."""
        if not factor > 0:
            raise ValueError(f"bad factor {factor!r}; expected a positive number")
        return Figure(self.median * factor, self.lo * factor, self.hi * factor, self.n)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return {"median": self.median, "lo": self.lo, "hi": self.hi, "n": self.n}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Figure | None:
        """Rebuild a figure from :meth:`to_dict` output (``None`` stays ``None``)."""
        return None if data is None else cls(**data)


def exact(value: float) -> Figure:
    """A figure without noise (a count, a published number): its band is the value itself."""
    return Figure(value, value, value, 1)


def _binomial_tail(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def median_interval(samples: Iterable[float], confidence: float = CONFIDENCE) -> Figure:
    """The median of ``samples`` and a distribution-free confidence interval of it (order statistics).

    For sorted samples ``x(1) <= ... <= x(n)``, the interval ``[x(j), x(n+1-j)]`` holds the true median with
    probability ``1 - 2 P(B <= j-1)``, ``B ~ Binomial(n, 1/2)``, whatever the distribution. The narrowest such
    interval with at least ``confidence`` is taken; with too few samples for that (five or fewer at 95%) the
    interval is the whole range.

    Raises:
        ValueError: for no finite sample.
    """
    xs = sorted(x for x in samples if math.isfinite(x))
    n = len(xs)
    if n == 0:
        raise ValueError("no finite sample to take a median of")
    return Figure(statistics.median(xs), xs[(j := order_statistic(n, confidence)) - 1], xs[n - j], n)


def order_statistic(n: int, confidence: float = CONFIDENCE) -> int:
    """The ``j`` of :func:`median_interval` for ``n`` samples: the interval is ``[x(j), x(n+1-j)]``.

    The binomial sums grow one term at a time (``C(n, j) = C(n, j-1) (n-j+1) / j``, exact integers), so a few
    thousand samples take milliseconds; each sum is divided by ``2**n`` exactly as :func:`_binomial_tail` does.
    """
    j, term, total, whole = 1, n, 1 + n, 2**n  # term = C(n, j), total = P(B <= j) * 2**n
    while j < (n + 1) // 2 and 1 - 2 * (total / whole) >= confidence:
        j += 1
        term = term * (n - j + 1) // j
        total += term
    return j


def span(samples: Iterable[float]) -> Figure:
    """The median of a few samples and their whole range (what three profiler steps can say)."""
    xs = sorted(x for x in samples if math.isfinite(x))
    if not xs:
        raise ValueError("no finite sample to take a median of")
    return Figure(statistics.median(xs), xs[0], xs[-1], len(xs))


def compare(a: Figure, b: Figure, floor: float = 0.0, *, min_effect: float = 0.0) -> str:
    """The one comparison rule: ``"lower"`` when ``a``'s band lies wholly below ``b``'s, ``"higher"`` when wholly
    above, ``"tie"`` when they overlap (too close to call).

    Args:
        a: One figure.
        b: The other.
        floor: Each band is at least ``±floor`` of its figure's median (see :data:`GPU_FLOOR`, :data:`CPU_FLOOR`).
        min_effect: The minimum effect size: medians that differ by less than this fraction of the smaller one (in
            size) are a tie even when their bands are apart (see :data:`GPU_MIN_EFFECT`, :data:`CPU_MIN_EFFECT`).
    """
    a_lo, a_hi = a.band(floor)
    b_lo, b_hi = b.band(floor)
    if a_lo <= b_hi and b_lo <= a_hi:
        return "tie"
    if min_effect > 0 and abs(a.median - b.median) < min_effect * min(abs(a.median), abs(b.median)):
        return "tie"
    return "lower" if a_hi < b_lo else "higher"


def margin(a: Figure, b: Figure, floor: float = 0.0) -> Figure:
    """How much higher ``a`` is than ``b``, as a fraction of ``b`` (``0.05``: 5% higher), with the band that the two
    figures' bands allow (each at least ``±floor``): from ``a``'s low end over ``b``'s high end to ``a``'s high end
    over ``b``'s low end. :func:`compare` calls ``a`` higher exactly when this band lies wholly above zero (and
    lower when wholly below), so a reader can check a verdict from it. For positive figures.

    Raises:
        ValueError: when ``b``'s band reaches zero or below (no ratio to take).
    """
    a_lo, a_hi = a.band(floor)
    b_lo, b_hi = b.band(floor)
    if not (b_lo > 0 and b.median > 0):
        raise ValueError(f"no margin over a figure whose band reaches {b_lo!r}; expected a positive figure")
    return Figure(a.median / b.median - 1, a_lo / b_hi - 1, a_hi / b_lo - 1, min(a.n, b.n))


def half_width(f: Figure) -> float:
    """How far the band reaches from the median on its wider side, as a fraction of the median (``inf`` for a
    median of zero with a band around it)."""
    reach = max(f.median - f.lo, f.hi - f.median)
    if f.median == 0:
        return 0.0 if reach == 0 else math.inf
    return reach / abs(f.median)


def too_wide(f: Figure, limit: float = WIDE_BAND) -> bool:
    """Whether ``f``'s band reaches further than ``limit`` of its median on either side: too wide to decide
    anything (see the module docstring)."""
    return half_width(f) > limit


def extreme(
    figures: Mapping[str, Figure], floor: float = 0.0, *, lowest: bool = True, min_effect: float = 0.0
) -> tuple[str, ...]:
    """The lowest (or highest) figure's key, followed by every key whose figure ties with it.

    One key means a clear winner; several mean that the data cannot tell them apart. Keys keep their order in
    ``figures`` after the winner.

    Raises:
        ValueError: for no figures.
    """
    if not figures:
        raise ValueError("no figures to compare")
    pick = min if lowest else max
    best = pick(figures, key=lambda k: figures[k].median)
    tied = [
        k for k in figures if k != best and compare(figures[k], figures[best], floor, min_effect=min_effect) == "tie"
    ]
    return (best, *tied)


def unstable(samples: Sequence[float], abs_floor: float = 0.0) -> bool:
    """Whether the samples spread too widely to stand for one figure: their 10th-90th percentile range exceeds
    :data:`UNSTABLE_SPREAD` of the 10th percentile and ``abs_floor`` (in the samples' unit; it keeps the timer's
    resolution from flagging very short calls)."""
    if len(samples) < 2:
        return False
    p10, p90 = percentile(samples, 10), percentile(samples, 90)
    return p90 - p10 > max(UNSTABLE_SPREAD * abs(p10), abs_floor)


class CpuMedians:
    """The medians of a CPU cost's three figures (``profiled``, ``dispatch``, ``context``: :class:`Figure` or
    ``None``), shared by the CPU-cost file's rows (:class:`attnprof.records.results.CpuCostRow`) and the analysis's
    view of them (:class:`attnprof.analysis.summary.CpuCost`)."""

    profiled: Figure | None
    dispatch: Figure | None
    context: Figure | None

    @property
    def profiled_us(self) -> float | None:
        """The median of :attr:`profiled`."""
        return None if self.profiled is None else self.profiled.median

    @property
    def dispatch_us(self) -> float | None:
        """The median of :attr:`dispatch`."""
        return None if self.dispatch is None else self.dispatch.median

    @property
    def context_us(self) -> float | None:
        """The median of :attr:`context`."""
        return None if self.context is None else self.context.median
