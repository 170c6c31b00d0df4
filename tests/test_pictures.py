"""attnprof.render.pictures: the text colour every picture and the trace viewer write on coloured bars."""

from __future__ import annotations

import pytest

from attnprof.render import pictures, timeline


def test_contrast_is_wcag_s():
    assert pictures.contrast("#000000", "#ffffff") == pytest.approx(21)
    assert pictures.contrast("#ffffff", "#777777") == pytest.approx(4.48, abs=0.01)
    assert pictures.contrast("#0072B2", "#0072B2") == 1


def test_ink_is_readable_on_every_colour_of_the_timelines():
    for background in (*timeline.FAMILY_COLORS.values(), *timeline.CPU_COLORS, timeline.RUNTIME_COLOR):
        ink = pictures.ink(background)
        assert ink in ("#000000", "#ffffff")
        other = "#ffffff" if ink == "#000000" else "#000000"
        assert pictures.contrast(ink, background) >= max(4.5, pictures.contrast(other, background)), background
