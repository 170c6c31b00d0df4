"""The eligibility map as text: a backend's cell, and the whole report in both languages."""

from __future__ import annotations

from attnprof.analysis import eligibility as view
from attnprof.noise import Figure
from attnprof.records.eligibility import Verdict
from attnprof.render import eligibility as mapreport


def test_cells_say_what_check_and_call_answered():
    assert mapreport.cell(Verdict("MATH", "accepts", call="ran", time_ms=Figure(0.5, 0.4, 0.6, 5)), None) == (
        "✓ 0.500\u00a0ms"
    )
    assert mapreport.cell(Verdict("FLASH_ATTENTION", "refuses", "x", call="unsupported"), 2) == "✗ refuses (2)"
    assert mapreport.cell(Verdict("FLASH_ATTENTION", "accepts", call="error"), 1) == "check ✓, call ✗ (1)"
    assert (
        mapreport.cell(Verdict("FLASH_ATTENTION", "refuses", "x", call="ran"), 3, "ja")
        == "チェック ✗ (3)、呼び出し ✓"
    )
    assert mapreport.cell(Verdict("CUDNN_ATTENTION", "cuda_only"), None) == "CUDA only"


def test_report_prints_every_family_in_both_languages(cpu_grid):
    grid = cpu_grid
    en, ja = mapreport.grid_report(grid), mapreport.grid_report(grid, "ja")
    for family in grid.families:
        assert view.family_view(grid, family).title() in en
        assert view.family_view(grid, family).title("ja") in ja
    assert "CUDA only" not in en.split("Dtype")[1]  # the CPU's tables show its two backends only
    assert "SDPA's CPU dispatch has two backends" in en
    assert "Every check agreed with the real call" in en
