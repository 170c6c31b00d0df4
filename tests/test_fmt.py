"""attnprof.words.fmt: one formatter per kind of number, never in scientific notation, units after a no-break
space."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnprof.words import fmt


def test_doctests():
    assert doctest.testmod(fmt).failed == 0


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.16234, "0.162"), (27.31, "27.3"), (303.4, "303"), (1250.0, "1250"), (0.000123456, "0.000123"), (0, "0")],
)
def test_numbers_keep_three_significant_digits(value, text):
    assert fmt.number(value) == text


@given(st.floats(min_value=1e-9, max_value=1e12))
def test_no_number_is_written_in_scientific_notation(value):
    assert "e" not in fmt.number(value).lower()
    assert math.isclose(float(fmt.number(value)), value, rel_tol=5e-3)


def test_non_finite_numbers_say_so():
    assert fmt.number(float("nan")) == "nan" and fmt.number(float("inf")) == "inf"


def test_ratios_percentages_counts_sizes_and_dims():
    assert [fmt.ratio(v) for v in (24.0, 18.84, 7.764, 1986.4)] == ["24", "18.8", "7.76", "1986"]
    assert fmt.percent(18.84) == "18.8\u00a0%"
    assert (fmt.count(6.0), fmt.count(6.333)) == ("6", "6.3")
    assert [fmt.size(n) for n in (0, 1023, 1024, 49152, 1536)] == ["0\u00a0B", "1023\u00a0B", "1\u00a0KiB",
                                                                   "48\u00a0KiB", "1.50\u00a0KiB"]  # fmt: skip
    assert (fmt.dims([8, 8, 16]), fmt.dims(None), fmt.dims([])) == ("8×8×16", "", "")
    assert fmt.unit("3", "ms") == "3\u00a0ms"


@given(st.text(max_size=300), st.integers(min_value=2, max_value=120))
def test_shorten_fits_the_width_and_keeps_a_prefix(text, width):
    short = fmt.shorten(text, width)
    assert len(short) <= width
    if len(text) <= width:
        assert short == text
    else:
        assert short.endswith("…") and text.startswith(short[:-1])


@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=30), st.integers(4, 80))
def test_shorten_never_cuts_a_number_in_two(numbers, width):
    text = "row <= " + " and ".join(map(str, numbers))
    kept = fmt.shorten(text, width).rstrip("…")
    assert set(kept.split()) <= set(text.split())  # every number kept is whole


def test_shorten_cuts_at_a_word_and_refuses_a_bad_width():
    reason = "No viable backend for scaled_dot_product_attention was found."
    assert fmt.shorten(reason, 50) == "No viable backend for…"
    assert fmt.shorten("kernel_row_102_tile", 12) == "kernel_row_…"
    with pytest.raises(ValueError, match="bad width 0"):
        fmt.shorten("abc", 0)


def test_a_long_bad_value_is_quoted_short():
    assert fmt.quoted("x" * 10_000) == repr("x" * 59 + "…") and fmt.quoted(12) == "12"
