"""render.explain: the reading as text for the terminal, in English and Japanese."""

from __future__ import annotations

import gzip
import json

import pytest

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


# --- what ran, in words (the H200 recordings of code nobody here wrote) ------------------------------------------

H200 = FOREIGN / "h200"


@pytest.mark.parametrize(
    ("name", "lang", "words"),
    [
        ("hf_generate", "en", ["Generate loop per step: 1 prefill + 3 decode steps, KV 9 → 11, 2 attention calls a "
                               "pass.", "scaled_dot_product_attention, prefill", "k 1×2×9…11×64",
                               "scaled_dot_product_attention, decode"]),
        ("hf_generate", "ja", ["ステップあたりの生成ループ: プリフィル 1 回、デコードステップ 3 回、KV 9 → 11。",
                               "scaled_dot_product_attention、デコード"]),
        ("flex", "en", ["FlexAttention, compiled", "q 2×4×128×16, k 2×4×128×16, v 2×4×128×16 fp32"]),
        ("mha_train", "en", ["nn.MultiheadAttention: hand-written (matmul, softmax, matmul)", "projections µs",
                             "counted apart (projections µs)"]),
        ("encoder_infer", "en", ["nn.TransformerEncoderLayer: multi-head attention fast path", "projections µs"]),
        ("encoder_infer", "ja", ["nn.TransformerEncoderLayer: マルチヘッドアテンションの高速パス", "射影 µs"]),
        ("hf_eager_train", "en", ["(+2 kernels)", "(+4 kernels)"]),
        ("hf_eager_train", "ja", ["(ほかにカーネル 2 個)"]),
    ],
)  # fmt: skip
def test_the_text_names_what_ran(name, lang, words):
    out = report.text(explained(H200 / f"{name}.json.gz"), lang=lang)
    for w in words:
        assert w in out, w
    assert "not recorded" not in out and "記録なし" not in out  # every call's inputs were in the trace


def test_a_cut_kernel_table_says_how_many_it_left_out():
    x = explained(H200 / "hf_eager_train.json.gz")
    rows = report.kernels_section(x).rows
    for n, g in enumerate(x.groups, start=1):
        shown = [r for r in rows if r[0] == str(n)]
        assert len(shown) == min(len(g.kernels), report.MAX_KERNELS) + (len(g.kernels) > report.MAX_KERNELS)
    assert "(+" not in "".join(r[1] for r in report.kernels_section(explained(H200 / "flex.json.gz")).rows)


def test_the_json_array_form_names_its_gpu_by_id(tmp_path):
    doc = json.loads(gzip.decompress((H200 / "flex.json.gz").read_bytes()))
    path = tmp_path / "array.json"
    path.write_text(json.dumps(doc["traceEvents"]))
    head = report.head(explained(path))
    assert "GPU 0 (its name is not in this form of trace" in head and "no GPU" not in head
    assert "トレースに GPU なし" not in report.head(explained(path), "ja")
