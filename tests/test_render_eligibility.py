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


def test_pytorchs_words_say_where_they_begin():
    assert mapreport.recorded("Flash needs fp16.") == "PyTorch: Flash needs fp16."
    assert mapreport.recorded("RuntimeError: No available kernel. | Both fused kernels do not support dropout.") == (
        "RuntimeError: No available kernel. | PyTorch: Both fused kernels do not support dropout."
    )
    assert mapreport.recorded("UserWarning: x") == "UserWarning: x"


def test_attnprofs_own_reasons_follow_the_language():
    cuda_only = Verdict("CUDNN_ATTENTION", "cuda_only", "SDPA's CPU dispatch has only FLASH_ATTENTION and MATH")
    assert mapreport.reason_words(cuda_only, "ja") == "SDPA の CPU ディスパッチには flash と math しかありません"
    missing = Verdict("CUDNN_ATTENTION", "no_check", "x", asked="torch.backends.cuda.can_use_cudnn_attention")
    assert mapreport.reason_words(missing) == "this torch has no torch.backends.cuda.can_use_cudnn_attention"
    assert mapreport.reason_words(Verdict("FLASH_ATTENTION", "refuses")) == "PyTorch gave no reason"


def test_a_forced_call_quotes_pytorchs_warnings_without_their_category():
    from attnprof.site import outputs

    warned = [("UserWarning", "Flash attention kernel not used because: (Triggered internally at x.cpp:12.)")]
    for lang in ("en", "ja"):
        text = mapreport.forced_lines(RuntimeError("No available kernel. Aborting execution."), warned, lang)
        assert "Flash attention kernel not used because:" in text and "Triggered" not in text
        assert "UserWarning" not in text and not outputs.MARKS.search(text)
