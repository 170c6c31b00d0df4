"""attnprof.words: one table of generated words, complete in every language, one lookup, one normaliser."""

from __future__ import annotations

import pytest

from attnprof import words
from attnprof.analysis import claims, occupancy, zero_occupancy
from attnprof.words import advice as advice_words
from attnprof.words import claims as claim_words
from attnprof.words import crossgpu as crossgpu_words
from attnprof.words import dropin as dropin_words
from attnprof.words import eligibility as eligibility_words
from attnprof.words import explain as explain_words
from attnprof.words import figures as figure_words
from attnprof.words import kernels as kernel_words
from attnprof.words import masks as mask_words
from attnprof.words import parallel as parallel_words
from attnprof.words import report as report_words
from attnprof.words import site as site_words
from attnprof.words import tracediff as tracediff_words
from attnprof.words import trainscale as trainscale_words
from attnprof.words import verdicts as verdict_words
from attnprof.words import viewer as viewer_words
from attnprof.words import workloadreport as workloadreport_words
from attnprof.words import workloads as workload_words


def test_every_key_has_every_language_with_the_same_placeholders():
    for key, texts in words.TABLE.items():
        assert set(texts) == set(words.LANGUAGES), key
        fields = words.placeholders(key, "en")
        assert words.placeholders(key, "ja") == fields, key
        for language in words.LANGUAGES:
            text = words.text(key, language, **{f: "X" for f in fields})
            assert "{" not in text and (text or key in ("sentence.sep", "hyp.sentence_sep")), key


def test_the_table_is_the_union_of_its_parts_and_refuses_a_key_twice():
    assert len(words.TABLE) == (
        len(site_words.SITE)
        + len(claim_words.CLAIMS)
        + len(kernel_words.KERNELS)
        + len(viewer_words.VIEWER)
        + len(report_words.REPORT)
        + len(workload_words.WORKLOADS)
        + len(parallel_words.PARALLEL)
        + len(trainscale_words.TRAINSCALE)
        + len(workloadreport_words.WORKLOAD_REPORT)
        + len(eligibility_words.ELIGIBILITY)
        + len(explain_words.EXPLAIN)
        + len(figure_words.FIGURES)
        + len(dropin_words.DROPIN)
        + len(crossgpu_words.CROSSGPU)
        + len(advice_words.ADVICE)
        + len(mask_words.MASK_WORDS)
        + len(verdict_words.VERDICTS)
        + len(tracediff_words.TRACEDIFF)
    )
    with pytest.raises(KeyError, match=r"word key 'col\.kernel' is defined twice"):
        words._merge(site_words.SITE, {"col.kernel": {"en": "K", "ja": "K"}})


@pytest.mark.parametrize(
    ("given", "expected"), [("ja", "ja"), ("ja_JP", "ja"), ("ja-JP", "ja"), ("EN", "en"), ("de", "en"), (None, "en")]
)
def test_language_normaliser(given, expected):
    assert words.language(given) == expected


def test_text_falls_back_to_english_and_rejects_unknown_keys():
    assert words.text("col.kernel", "ja_JP") == "カーネル"
    assert words.text("col.kernel", "de") == "Kernel"
    assert words.text("status.not_run", "en", variant="v", status="s", reason="r") == "v did not run (s): r"
    with pytest.raises(KeyError, match="unknown word key 'nope'"):
        words.text("nope", "en")


def test_text_or_keeps_what_the_table_has_no_words_for():
    assert words.text_or("status.oom", "oom", "ja") == "メモリ不足"
    assert words.text_or("status.weird", "weird", "ja") == "weird"


def test_every_verdict_limiter_and_explanation_has_words():
    for verdict in claims.VERDICTS:
        assert words.has(f"verdict.{verdict}")
    for verdict in ("explains", "incomplete", "refuted", "untested"):
        assert words.has(f"hyp.verdict.{verdict}")
    for key in zero_occupancy.EXPLANATIONS:
        assert words.has(f"hyp.{key}")
    for resource in (*occupancy.RESOURCES, "grid"):
        assert words.has(f"limiter.{resource}")
    for claim in claims.CLAIMS:
        assert words.has(f"{claim}.published")


def test_limiters_name_every_resource_of_a_tie():
    assert words.limiters(["registers"], "en") == "registers"
    assert words.limiters(["registers", "shared memory"], "en") == "registers and shared memory"
    assert words.limiters(["registers", "shared memory"], "ja") == "レジスタと共有メモリ"
    assert words.limiters(["registers", "threads", "blocks per SM"], "en") == "registers, threads and blocks per SM"
    assert (
        words.limiters(["registers", "threads", "blocks per SM"], "ja") == "レジスタ、スレッド数とSM あたりブロック数"
    )
    assert words.limiters(["grid"], "ja") == "グリッド" and words.limiters([], "en") == ""


def test_counted_says_one_thing_in_the_singular():
    assert words.counted("explain.progress.steps", 1) == "1 step"
    assert words.counted("explain.progress.steps", 2) == words.counted("explain.progress.steps", 2, "en") == "2 steps"
    assert words.counted("explain.progress.steps", 0) == "0 steps"
    assert words.counted("explain.progress.steps", 1, "ja") == "ステップ 1 個"
    assert words.counted("explain.flags", 1) == words.text("explain.flags")  # no singular of its own: the key's


def test_a_reason_attnprof_recorded_is_shown_in_the_pages_language():
    """The training-scale grid records why a point was skipped in English; the page shows it in its language with
    the recorded values (the H200 grid's sentence, as recorded), and leaves any other text (PyTorch's) alone."""
    recorded = ("skipped: a step took 80 ms at seq 4096, more than the 60 ms this grid spends on one step; it grows "
                "with the length")  # fmt: skip
    assert words.reason(recorded, "en") == recorded
    ja = words.reason(recorded, "ja")
    assert ja == (
        "省略: 系列長 4096 で 1 ステップに 80 ms かかり、このグリッドが 1 ステップにかける 60 ms を超えました"
        " (長さとともに増えます)"
    )
    assert words.reason("skipped: out of memory at seq 16384", "ja") == "省略: 系列長 16384 でメモリ不足"
    assert words.reason("RuntimeError: No available kernel. Aborting execution.", "ja") is None
    assert words.reason(recorded + " and more", "ja") is None  # the whole text, not a part of it
    # every reason key's English text reads back its own fields
    for key in (k for k in words.TABLE if k.startswith(words.REASON_PREFIX)):
        fields = {f: f"<{f}>" for f in words.placeholders(key, "en")}
        assert words.reason(words.text(key, "en", **fields), "ja") == words.text(key, "ja", **fields), key


def test_a_ratio_of_times_says_which_way_it_goes():
    assert words.times(1.35, "en") == "1.35× slower" and words.times(1.35, "ja") == "1.35 倍遅い"
    assert words.times(1 / 1.35, "en") == "1.35× faster" and words.times(0.5, "ja") == "2.00 倍速い"
    assert words.times(1.0004, "en") == "as fast" and words.times(0.9996, "ja") == "同じ速さ"
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="is no time over another"):
            words.times(bad)
