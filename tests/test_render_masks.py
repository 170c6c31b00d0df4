"""The mask run as tables (the gallery script's text, the page's cells), from the CPU recording in tests/data."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnprof import workloads
from attnprof.analysis import kernels
from attnprof.records import masks as records
from attnprof.render import masks as report

CPU_RUN = Path(__file__).parent / "data" / "masks" / "cpu" / records.filename("cpu")


@pytest.fixture(scope="module")
def run():
    return records.load(CPU_RUN)


def test_a_mask_table_has_a_row_per_case_and_numbers_its_reasons_once(run):
    t = report.mask_table(run, "documents", "en")
    cases = [c for c in run.cases if c.mask == "documents"]
    assert len(t.rows) == len(cases) and all(len(r) == len(t.headers) for r in t.rows)
    refused = [r[-1] for r in t.rows if "(" in r[-1]]
    assert refused and all(r.split("(")[1].rstrip(")").isdigit() for r in refused)
    texts = [n for n, _ in t.notes]
    assert len(texts) == len(set(texts))  # one number per reason
    # PyTorch's refusal of causal nested tensors is recorded as PyTorch wrote it; attnprof's own notes are not
    assert any(rec and "is_causal=True" in n for n, rec in t.notes)
    assert any(not rec and "FlexAttention" in n for n, rec in t.notes)
    ran = next(r for r, c in zip(t.rows, cases, strict=True) if c.status == "ok" and c.ran)
    assert ran[-1].startswith("ran ")
    assert ran[-2].startswith("aten::")  # the longest operator of the traced call (a CPU recording)
    assert report.longest([]) == ""
    # a name no rule reads: the decoder's label, cut, that keeps the whole name for the page's hover
    named = report.longest([("x" * 100, 1.0)])
    assert named == "x" * (kernels.SHORT_MAX - 1) + "…" and named.full == "x" * 100
    cutlass = (
        "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
        "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)"
    )
    assert report.longest([(cutlass, 1.0)], "ja") == "mem-efficient フォワード 64x64 (bf16、出力はレジスタ)"


def test_the_words_follow_the_language(run):
    en, ja = report.mask_table(run, "prefix_lm", "en"), report.mask_table(run, "prefix_lm", "ja")
    assert en.headers[0] == "Size" and ja.headers[0] == "サイズ"
    assert ja.rows[0][0].startswith("プレフィックス")
    assert [n for n, rec in ja.notes if rec] == [n for n, rec in en.notes if rec]  # PyTorch's words stay as written


def test_the_block_masks_and_the_verdicts(run):
    builds = report.builds_table(run, "en")
    assert len(builds.rows) == len(run.builds) and all(r[3].count("[") == 1 for r in builds.rows)
    verdicts = report.verdicts_table(run, "en")
    assert len(verdicts.rows) == len(workloads.MASKS) * 2  # a mask, one size each on the CPU, two steps
    assert {r[6] for r in verdicts.rows} == {"only dense-mask SDPA ran"}  # no FlexAttention on the CPU


def test_the_text_report_and_the_summary(run):
    text = report.report(run, "en")
    assert "Mask: sliding window" in text and "Why a case did not run:" in text
    assert "FlexAttention against the fastest dense-mask SDPA" in text
    fields = report.summary_fields(run, "en")
    assert fields["seqs"] == "128" and fields["heads"] == "2" and int(fields["reps"]) > 0
    assert report.size_words("documents", 0, 0, 4096, "en") == "documents 1792+1024+768+512"
    assert report.band(None) == "—"


def test_a_verdict_says_how_much_faster_the_winner_is():
    run = records.load(Path(__file__).parent / "data" / "masks" / "h200" / records.filename("cuda"))
    for lang, word in (("en", "× faster"), ("ja", " 倍速い")):
        decided = [r[6] for r in report.verdicts_table(run, lang).rows if "×" in r[6] or "倍" in r[6]]
        assert decided and all(v.endswith(word) for v in decided), decided
