"""attnprof.sphinxext.fastest and the ``time`` metric: comparative words that come from the build's data."""

from __future__ import annotations

import dataclasses

from attnprof.analysis import summary
from attnprof.records import results
from attnprof.records.results import Result
from attnprof.words import fmt
from helpers import analysed, assert_warned, html, trace_result


def _fastest_of(*variants: str) -> summary.TimeBand:
    return summary.by_time(analysed(v) for v in variants)[0]


def test_fastest_names_the_fastest_variant_with_its_time(project):
    app = project({"index.md": "# F\n\nFastest: {fastest}`sdpa_efficient sdpa_flash sdpa_cudnn`.\n"},
                  variants=("sdpa_efficient", "sdpa_flash", "sdpa_cudnn"))  # fmt: skip
    assert app.warning.getvalue() == ""
    best = _fastest_of("sdpa_efficient", "sdpa_flash", "sdpa_cudnn")
    ms = fmt.unit(fmt.number(best.median_ms), "ms")
    assert (
        f'<code class="docutils literal notranslate"><span class="pre">{best.variant}</span></code> ({ms})'
        in html(app)
    )


def test_fastest_says_too_close_to_call_when_the_bands_overlap(project, tmp_path):
    folder = tmp_path / "results"
    for variant, ms in (("sdpa_flash", 0.150), ("sdpa_cudnn", 0.149)):
        result, raw = trace_result(variant)
        timing = dataclasses.replace(result.timing, gpu_ms_median=ms, gpu_ms_p10=ms * 0.95, gpu_ms_p90=ms * 1.05)
        results.save(dataclasses.replace(result, timing=timing), folder, raw)
    for language, words in (("en", "too close to call"), ("ja", "僅差で判定できない")):
        app = project({"index.md": "# F\n\n{fastest}`sdpa_flash sdpa_cudnn`\n"}, variants=(), language=language)
        assert app.warning.getvalue() == ""
        assert words in html(app) and "sdpa_flash" in html(app) and "sdpa_cudnn" in html(app)


def test_fastest_with_one_timed_result_says_it_cannot_be_measured(project, tmp_path):
    folder = tmp_path / "results"
    flash, raw = trace_result("sdpa_flash")
    results.save(flash, folder, raw)
    refused = Result("sdpa_cudnn", flash.shape, flash.dtype, "cuda", "unsupported", flash.environment, reason="no")
    results.save(refused, folder)
    app = project({"index.md": "# F\n\n{fastest}`sdpa_flash sdpa_cudnn`\n"}, variants=())
    assert app.warning.getvalue() == ""
    assert "not measurable in this build" in html(app)


def test_fastest_rejects_unknown_variants_and_a_single_name(project):
    app = project({"index.md": "# F\n\n{fastest}`sdpa_flsh sdpa_cudnn` and {fastest}`naive`.\n"})
    assert_warned(app, "unknown variant(s) sdpa_flsh; choose from: naive", "name at least two variants",
                  marker='class="problematic"')  # fmt: skip


def test_time_names_the_device_it_was_measured_on(project, tmp_path):
    app = project({"index.md": "# T\n\nMedian: {metric}`naive:time`.\n"}, variants=("naive",))
    ms = fmt.unit(fmt.number(analysed("naive").summary.gpu_ms), "ms")
    assert f"Median: {ms} on the GPU." in html(app).replace('<span class="attnprof-metric">', "").replace(
        "</span>", ""
    )
    app = project({"index.md": "# T\n\n{metric}`naive:time`\n"}, variants=("naive",), language="ja")
    assert f"GPU で {ms}" in html(app)


def test_by_time_orders_timed_results_and_bands_overlap_symmetrically():
    bands = summary.by_time(analysed(v) for v in ("sdpa_math", "sdpa_flash", "naive"))
    assert [b.median_ms for b in bands] == sorted(b.median_ms for b in bands)
    a, b = bands[0], bands[-1]
    assert a.overlaps(a) and a.overlaps(b) == b.overlaps(a)
    assert not a.overlaps(b)  # math and flash are far apart
