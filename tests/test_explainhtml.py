"""render.explainhtml: one self-contained page per reading (what a browser makes of it:
tests/browser/test_explain_page.py)."""

from __future__ import annotations

import json
import re

import pytest

from attnprof.render import explainhtml, viewer
from helpers import FOREIGN, TRACES, explained


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_page_carries_its_script_style_and_data_and_fetches_nothing(lang):
    x = explained(TRACES / "sdpa_math.json.gz")
    page = explainhtml.page(x, None, lang)
    assert page.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in page
    assert viewer.served("attnprof-viewer.js") in page and viewer.served("attnprof-viewer.css") in page
    assert not re.search(r"""(src|href)=["']?https?:|<link|@import|<script src""", page)
    data = json.loads(re.search(r'\["explain"\] = (\{.*?\});\n', page).group(1))
    assert data["id"] == explainhtml.VIEW_ID and len(data["steps"]) == 3
    assert page.count("<table>") == 3  # steps, calls, kernels (the flags are prose)


def test_the_timeline_shows_at_most_four_steps_spread_over_the_trace():
    x = explained(TRACES / "sdpa_math.json.gz")
    assert explainhtml.view_steps(x) == [0, 1, 2]
    x.steps = x.steps * 5  # 15 steps: the first, the last and two between
    assert explainhtml.view_steps(x) == [0, 5, 9, 14] and explainhtml.view_steps(x, 2) == [0, 14]


def test_a_cpu_recording_says_why_its_timeline_has_no_gpu_lane():
    x = explained(FOREIGN / "cpu" / "encoder_infer.json.gz")
    heading, view = explainhtml.timeline(x, "en")
    assert heading == "Timeline of 2 of 2 steps" and "Recorded on the CPU alone" in view
