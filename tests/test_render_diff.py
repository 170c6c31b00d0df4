"""render.diff: the comparison as text, in English and Japanese, each figure the comparison's own."""

from __future__ import annotations

import re

from attnprof import words
from attnprof.analysis import diff
from attnprof.render import diff as report
from attnprof.words import fmt
from helpers import FOREIGN, explained

H200 = FOREIGN / "h200"


def compared() -> diff.Diff:
    return diff.diff(diff.side(explained(H200 / "hf_sdpa_train.json.gz")),
                     diff.side(explained(H200 / "hf_eager_train.json.gz")))  # fmt: skip


def test_the_text_says_what_changed_with_the_comparisons_figures():
    d = compared()
    out = report.text(d, "en")
    att = d.steps.figures["attention_gpu_us"]
    line = (f"Attention's GPU time per step: {fmt.number(att.before.median)} → {fmt.number(att.after.median)} µs, "
            f"higher ({fmt.signed_percent(att.change.median)}")  # fmt: skip
    assert line in out
    assert "Backend of scaled_dot_product_attention (fwd): cudnn → unfused." in out
    assert out.count("replaced") == 2 + 1  # two rows, and the line that counts the kinds
    for title in ("In short", "Profiler steps", "Steps side by side", "Attention calls, matched", "Their time",
                  "Kernels of each call"):  # fmt: skip
        assert title in out
    fwd = d.rows[0]
    assert f"{fmt.number(fwd.gpu_us.before.median)} → {fmt.number(fwd.gpu_us.after.median)}" in out
    assert "cuDNN sdpa flash fprop" in out and "only before" in out and "only after" in out  # decoded, by side
    assert report.rules("en") in out.replace("\n  ", " ")


def test_japanese_text_has_the_same_numbers_and_japanese_words():
    d = compared()
    en, ja = report.text(d, "en"), report.text(d, "ja")
    numbers = re.compile(r"\d[\d.]*")  # the same figures, whatever the words around them
    assert set(numbers.findall(en.replace("\n  ", " "))) == set(numbers.findall(ja))
    for key in ("tracediff.short", "tracediff.verdict.higher", "tracediff.match.replaced", "tracediff.kernels"):
        assert words.text(key, "ja") in ja and words.text(key, "en") not in ja
    assert "cudnn → 非融合" in ja


def test_notes_and_an_empty_comparison():
    cpu = diff.side(explained(FOREIGN / "cpu" / "encoder_infer.json.gz"))
    d = diff.diff(cpu, cpu)
    assert report.notes(d, "en") == [words.text("tracediff.note.cpu_only", "en")]
    empty = diff.Diff(cpu, cpu, d.steps, [], [("no_shapes", {"which": "before+after"})])
    out = report.text(empty, "en")
    assert "Neither trace has an attention call." in out and "Their time" not in out
    assert "Input shapes were not recorded in both traces" in out
    assert "両方のトレース" in report.text(empty, "ja")
