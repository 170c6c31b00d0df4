"""attnprof.noise: figures with their bands, the confidence interval of a median, the one comparison rule, and the
check for unstable samples."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnprof import noise
from attnprof.noise import Figure, compare, extreme, median_interval

finite = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


def test_median_interval_picks_the_order_statistics_of_95_percent():
    xs = [float(x) for x in range(1, 11)]  # n = 10: ranks 2 and 9 cover the median with 97.9%
    assert median_interval(reversed(xs)) == Figure(5.5, 2.0, 9.0, 10)
    # n = 30: ranks 10 and 21 (98.6%); ranks 11 and 20 would cover only 95.1% ... and 12, 19 less than 95%
    xs = [float(x) for x in range(1, 31)]
    f = median_interval(xs)
    assert (f.lo, f.hi, f.n) == (10.0, 21.0, 30)
    # five or fewer samples: no pair reaches 95%, so the whole range
    assert median_interval([3.0, 1.0, 2.0]) == Figure(2.0, 1.0, 3.0, 3)
    assert median_interval([7.0]) == Figure(7.0, 7.0, 7.0, 1)
    # non-finite samples are left out; none at all is an error
    assert median_interval([1.0, float("nan"), 3.0]).n == 2
    with pytest.raises(ValueError, match="no finite sample"):
        median_interval([float("inf")])


def test_the_order_statistic_is_the_binomial_rule_computed_one_term_at_a_time():
    """The running sums give the j of the definition (each tail summed afresh) for every n up to 300, and stay
    fast where the definition is not (thousands of calls in one trace): j/n tends to 1/2 - 0.98/sqrt(n)."""
    for n in range(1, 301):
        j = 1
        while j < (n + 1) // 2 and 1 - 2 * noise._binomial_tail(n, j) >= noise.CONFIDENCE:
            j += 1
        assert noise.order_statistic(n) == j, n
    j = noise.order_statistic(40_000)
    assert abs(j - (20_000 - 0.98 * 200)) < 3


def test_the_interval_covers_the_true_median_as_often_as_it_promises():
    rng = random.Random(0)
    for n in (7, 30, 101):
        hits = 0
        for _ in range(1500):
            f = median_interval(rng.lognormvariate(0, 0.5) for _ in range(n))
            hits += f.lo <= 1.0 <= f.hi  # the median of lognormal(0, s) is exp(0) = 1
        assert hits / 1500 >= 0.93, n


@given(st.lists(finite, min_size=1, max_size=60))
def test_the_interval_holds_the_median_and_lies_within_the_samples(xs):
    f = median_interval(xs)
    assert min(xs) <= f.lo <= f.median <= f.hi <= max(xs)
    assert f.median == statistics.median(xs) and f.n == len(xs)


def test_compare_is_the_one_rule():
    a, b = Figure(100.0, 98.0, 102.0, 30), Figure(110.0, 108.0, 112.0, 30)
    assert compare(a, b) == "lower" and compare(b, a) == "higher"
    assert compare(a, Figure(103.0, 101.0, 105.0, 30)) == "tie"  # the intervals overlap
    # the floor widens each band to at least ±floor of its median: 100 ± 5 and 110 ± 5.5 overlap
    assert compare(a, b, floor=0.05) == "tie"
    assert compare(a, b, floor=0.04) == "lower"  # 104 < 105.6
    # an interval wider than the floor is kept as measured
    wide = Figure(120.0, 100.0, 140.0, 10)
    assert wide.band(0.03) == (100.0, 140.0) and compare(a, wide, 0.03) == "tie"
    assert compare(noise.exact(1.0), noise.exact(1.0)) == "tie"


@given(finite, finite, st.floats(min_value=0, max_value=0.5))
def test_compare_is_antisymmetric(x, y, floor):
    a, b = noise.exact(x), noise.exact(y)
    flipped = {"lower": "higher", "higher": "lower", "tie": "tie"}
    assert compare(b, a, floor) == flipped[compare(a, b, floor)]
    margin = abs(x - y) - floor * (x + y)
    if abs(margin) > 1e-9 * (x + y):  # away from the boundary, where rounding may go either way
        assert (compare(a, b, floor) == "tie") == (margin <= 0)


def test_a_minimum_effect_size_makes_a_small_difference_a_tie_however_narrow_the_bands():
    # the decision page's runner-up at KV 131072 on the H200: 1.3% apart, bands of a few tenths of a percent each
    a, b = Figure(100.0, 99.9, 100.1, 100), Figure(101.3, 101.2, 101.4, 100)
    assert compare(a, b) == "lower"  # the bands alone would call it
    assert compare(a, b, min_effect=noise.GPU_MIN_EFFECT) == "tie"  # the minimum effect does not
    # a difference beyond the minimum effect and beyond the bands is called, either way round
    c = Figure(110.0, 109.9, 110.1, 100)
    assert compare(a, c, min_effect=0.05) == "lower" and compare(c, a, min_effect=0.05) == "higher"
    # the minimum effect never turns a tie into an order
    assert compare(a, Figure(130.0, 90.0, 170.0, 5), min_effect=0.05) == "tie"
    assert extreme({"a": a, "b": b}, min_effect=0.05) == ("a", "b") and extreme({"a": a, "b": b}) == ("a",)


@given(finite, finite, st.floats(min_value=0, max_value=0.3), st.floats(min_value=0, max_value=0.3),
       st.floats(min_value=0, max_value=0.3))  # fmt: skip
def test_the_margin_band_says_what_compare_says(x, y, spread, floor, min_effect):
    a, b = Figure(x, x * (1 - spread), x * (1 + spread), 9), Figure(y, y / (1 + spread), y * (1 + spread / 2), 9)
    m = noise.margin(a, b, floor)
    assert m.lo <= m.median <= m.hi
    outcome = compare(a, b, floor)
    if m.lo > 1e-9:
        assert outcome == "higher"
    elif m.hi < -1e-9:
        assert outcome == "lower"
    elif m.lo < -1e-9 and m.hi > 1e-9:
        assert outcome == "tie"
    # the minimum effect only ever adds ties
    with_min = compare(a, b, floor, min_effect=min_effect)
    assert with_min in (outcome, "tie")
    if outcome != "tie" and abs(x - y) >= min_effect * min(x, y) * (1 + 1e-9):
        assert with_min == outcome


def test_margin_and_bands_too_wide_to_decide_anything():
    win, run = Figure(0.931, 0.925, 0.936, 40), Figure(0.989, 0.982, 0.995, 40)
    m = noise.margin(run, win)
    assert m.median == pytest.approx(0.0623, abs=1e-4) and m.lo == pytest.approx(0.982 / 0.936 - 1)
    # with the ±3% floors the band is wider, here only just clear of zero
    assert noise.margin(run, win, noise.GPU_FLOOR).lo == pytest.approx(0.989 * 0.97 / (0.931 * 1.03) - 1)
    with pytest.raises(ValueError, match="positive figure"):
        noise.margin(win, noise.exact(0.0))
    # a CPU sweep point measured while other processes ran: 40 ms at seq 128, against 0.37 ms a moment later
    contended = Figure(40.0, 0.41, 52.0, 12)
    assert noise.too_wide(contended) and noise.half_width(contended) == pytest.approx((40 - 0.41) / 40)
    assert not noise.too_wide(win) and not noise.too_wide(noise.exact(0.0))
    assert noise.half_width(Figure(0.0, -1.0, 1.0, 3)) == float("inf")


def test_extreme_names_the_winner_and_everything_tied_with_it():
    figs = {
        "efficient": Figure(237.0, 236.0, 238.0, 100),
        "flash": Figure(145.0, 144.0, 146.0, 100),
        "cudnn": Figure(140.0, 139.0, 141.0, 100),
    }
    assert extreme(figs) == ("cudnn",)
    assert extreme(figs, noise.GPU_FLOOR) == ("cudnn", "flash")  # 3.6% apart: within ±3% bands
    assert extreme(figs, lowest=False) == ("efficient",)
    with pytest.raises(ValueError, match="no figures"):
        extreme({})


def test_unstable_samples():
    steady = [15.5, 15.6, 15.6, 15.7, 15.5, 15.6, 15.8]
    bimodal = [13.2, 13.3, 15.6, 15.7, 15.6, 13.2, 15.5]  # the H200's cuDNN at seq 16384, head_dim 128
    assert not noise.unstable(steady) and noise.unstable(bimodal)
    # a 20 µs kernel jittering by 3 µs is within the timer's floor
    jitter = [0.018, 0.020, 0.023, 0.020, 0.024, 0.019, 0.020]
    assert noise.unstable(jitter) and not noise.unstable(jitter, abs_floor=0.005)
    assert not noise.unstable([1.0])


def test_figures_serialise_scale_and_span():
    f = Figure(2.0, 1.5, 2.5, 7)
    assert Figure.from_dict(f.to_dict()) == f and Figure.from_dict(None) is None
    assert f.scaled(1000) == Figure(2000.0, 1500.0, 2500.0, 7)
    with pytest.raises(ValueError, match="bad factor 0"):
        f.scaled(0)
    assert noise.span([322.3, 156.9, 143.3]) == Figure(156.9, 143.3, 322.3, 3)
    with pytest.raises(ValueError, match="percentile of no samples"):
        noise.percentile([], 50)
    assert noise.percentile([3.0, 1.0, 2.0, 4.0, 5.0], 90) == 5.0
