"""render.explain: the reading as text for the terminal, in English and Japanese."""

from __future__ import annotations

from attnprof.analysis.explain import Asked
from attnprof.render import explain as report
from helpers import FOREIGN, TRACES, explained


def test_the_text_has_every_section_in_both_languages():
    x = explained(TRACES / "sdpa_math.json.gz")
    en, ja = report.text(x, Asked(note=("no_sdpa", {})), "en"), report.text(x, None, "ja")
    for title in ("Profiler steps", "Attention calls", "Kernels of the attention calls", "What to look at",
                  "Why this backend?"):  # fmt: skip
        assert title in en
    assert en.startswith("sdpa_math.json.gz: 3 profiler steps, 543 events, NVIDIA H200 (compute capability 9.0)")
    assert "math backend: 3 calls in 3 steps" in en and "No scaled_dot_product_attention call to ask about" in en
    assert "プロファイラのステップ" in ja and "math バックエンド: 3 ステップで 3 回" in ja and "Why this" not in ja
    prose = en.split("What to look at")[1].split("Why this backend?")[0]  # tables are as wide as they are
    assert max(len(line) for line in prose.splitlines()) <= report.WIDTH


def test_inputs_read_as_shapes_dtype_and_what_was_asked():
    x = explained(FOREIGN / "cpu" / "hf_sdpa_train.json.gz")
    i = x.calls[0].inputs
    assert report.inputs_text(i) == "q 2×4×32×16, k 2×2×32×16, v 2×2×32×16 bf16, causal, GQA"
    assert report.inputs_text(i, "ja") == "q 2×4×32×16, k 2×2×32×16, v 2×2×32×16 bf16, 因果, GQA"


def test_pytorchs_answers_are_printed_in_its_words():
    x = explained(FOREIGN / "cpu" / "hf_sdpa_train.json.gz")
    asked = Asked({0: [("flash", "accepts", ""), ("cudnn", "refuses", "PyTorch says no")]}, {0: "flash"})
    section = report.why_section(x, asked, "en")
    assert section.before == (
        "scaled_dot_product_attention with q 2×4×32×16, k 2×2×32×16, v 2×2×32×16 bf16, causal, GQA: ran flash",
        "  flash: accepts these inputs",
        "  cudnn: refuses: PyTorch says no",
        "  SDPA's own choice for these inputs here: flash",
    )
