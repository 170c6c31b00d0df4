"""attnprof.render.report: the terminal tables and the gallery scripts' lines, in English and Japanese."""

from __future__ import annotations

import dataclasses
import re

import pytest

from attnprof import inputs, words
from attnprof.measure import sweeprun
from attnprof.noise import Figure
from attnprof.records.results import CpuCostRow, CpuCosts
from attnprof.render import report
from helpers import fixed_costs, h200_environment, h200_sweep, trace_result


def _starts(line: str, pattern: str) -> list[int]:
    """The display columns at which the matches of ``pattern`` in ``line`` start."""
    return [report.display_width(line[: m.start()]) for m in re.finditer(pattern, line)]


def test_japanese_kernel_table_lines_up_by_display_width():
    result, _ = trace_result("sdpa_flash")
    text = report.kernel_table(result, lang="ja")
    header, rule, *body = text.splitlines()
    assert header.split()[:3] == ["カーネル", "種類", "ステップあたり"]
    assert _starts(header, r"\S+(?: \S+)*") == _starts(rule, r"-+")  # each header over its column
    assert body and "flash_fwd" in body[0] and "(レジスタ)" in text  # the limiter in Japanese


def test_english_text_is_unchanged_by_the_language_support():
    result, _ = trace_result("naive")
    assert report.kernel_table(result).splitlines()[0].split("  ")[0] == "kernel"
    lines = report.summary(result).splitlines()
    assert lines[0] == "naive: [8, 16, 1024, 64] bfloat16 on cuda"
    assert lines[1].startswith("  per step: ") and "CPU time per profiled step" in lines[1]
    assert "peak extra 3 MiB, rel. error" in lines[2]


def test_japanese_summary_and_failures():
    result, _ = trace_result("naive")
    lines = report.summary(result, "ja").splitlines()
    assert lines[0] == "naive: [8, 16, 1024, 64] bfloat16、cuda 上"
    assert lines[1].startswith("  ステップあたり: GPU アクティビティ")
    assert "追加メモリのピーク 3 MiB" in lines[2] and "CUDA イベント" in lines[2]
    failed = type(result)("sdpa_cudnn", [1, 4, 256, 64], "bfloat16", "cpu", "no_cuda", h200_environment(),
                          "RuntimeError: No viable backend")  # fmt: skip
    assert (
        report.summary(failed, "ja").splitlines()[1]
        == "  実行できません (CUDA デバイスなし): RuntimeError: No viable backend"
    )
    assert report.kernel_table(failed, lang="ja") == "sdpa_cudnn: CUDA デバイスなし - RuntimeError: No viable backend"
    assert report.kernel_table(failed) == "sdpa_cudnn: no_cuda - RuntimeError: No viable backend"


def test_lines_of_the_gallery_scripts():
    cpu = inputs.make_setup((1, 4, 256, 64), "bf16", "cpu")
    assert report.setup_line(cpu, "ja").splitlines() == [
        "実行: [1, 4, 256, 64] bfloat16、cpu 上",
        words.text("report.cpu_fallback", "ja"),
    ]
    assert report.setup_line(inputs.make_setup((8, 16, 1024, 64), "bf16", "cuda")) == (
        "running: [8, 16, 1024, 64] bfloat16 on cuda"
    )
    assert report.error_line(0.00391, "ja") == "float64 との相対誤差: 3.9e-03"
    refused = RuntimeError("No available kernel. Aborting execution.\nmore")
    assert report.refused_line(refused) == "cannot run here: RuntimeError: No available kernel. Aborting execution."
    assert report.trace_line(None, "ja") == words.text("report.no_trace", "ja")
    assert report.one_point_line(1024, [3.0, 1.0, 2.0], "cuda") == (
        "one call at seq 1024, timed by hand: 2 ms (CUDA events, median of 3)"
    )
    plan = report.sweep_plan(sweeprun.default_config("cpu"), "ja").splitlines()
    assert plan[0].startswith("デバイス: cpu、バリアント: sdpa_math") and len(plan) == 2
    assert report.ceilings_line(None, "ja") == "CPU には上限の計測はありません"


def test_japanese_sweep_tables_and_summary():
    sw = h200_sweep()
    table = report.sweep_table(sw, "gpu_ms", head_dim=64, lang="ja")
    assert table.splitlines()[0].startswith("head_dim 64: フォワード 1 回の時間、中央値 (ms)、バッチ 8、ヘッド 16")
    assert "メモリ不足" in table and "数値のない点の理由:" in table
    summary = report.sweep_summary(sw, "ja")
    assert (
        "上限: bf16 行列積 720 TFLOP/s" in summary
        and "での SDPA の選択: cudnn (最速のバックエンド (SDPA の呼び出しは +0.0% [-5.8%, +6.2%]、ノイズの範囲内))"
        in summary
    )


def test_cpu_cost_table_in_japanese():
    costs = CpuCosts("cuda", [8, 16, 1024, 64], "bfloat16", 10, h200_environment(), [
        CpuCostRow("sdpa_flash", "ok", profiled=Figure(60.0, 58.0, 63.0, 10), dispatch=Figure(40.0, 39.0, 41.0, 10),
                   context=Figure(3.0, 2.9, 3.1, 10), samples=[30, 100]),
        CpuCostRow("sdpa_cudnn", "unsupported", "RuntimeError: no"),
    ])  # fmt: skip
    text = report.cpu_cost_table(costs, "ja")
    assert text.splitlines()[0].startswith("NVIDIA H200 で 10 ラウンドを交互に計測 (各ラウンドの中央値の中央値")
    assert "60 (58-63)" in text and "30 / 100 回" in text and "この環境では非対応" in text and "33%" in text


def test_the_fixed_costs_in_both_languages():
    fixed = fixed_costs(Figure(8.01, 7.93, 8.12, 20), per_op=Figure(1.5, 1.4, 1.6, 8))
    en = report.fixed_costs_lines(fixed).splitlines()
    assert en[0].startswith("forcing a backend (sdpa_kernel entered and left with nothing inside): 8.01 us per call")
    assert "(7.93-8.12), 4000 calls in 20 rounds" in en[0]
    assert en[1].endswith("1.50 us (1.40-1.60) more per op (2.0 CPU events recorded per call)")
    ja = report.fixed_costs_lines(fixed, "ja")
    assert "呼び出しごとに 8.01 us (7.93-8.12)、20 ラウンドで 4000 回" in ja
    missing = report.fixed_costs_lines(_without_profiler(fixed), "en")
    assert missing.splitlines()[-1] == "not measured: no CUDA device: torch.cuda.is_available() is False"


def _without_profiler(fixed):
    reason = "no CUDA device: torch.cuda.is_available() is False"
    return dataclasses.replace(fixed, profiler_per_op=None, reason=reason)


@pytest.mark.parametrize(("text", "width"), [("abc", 3), ("カーネル", 8), ("GPU 時間", 8), ("", 0)])
def test_display_width(text, width):
    assert report.display_width(text) == width


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_compare_table_names_the_device_that_ran_and_says_na_for_gpu_figures_on_a_cpu(lang):
    result, _ = trace_result("naive")
    gpu = report.compare_table([result], lang).splitlines()
    assert "GPU ms" in gpu[0] and "CPU ms" not in gpu[0]
    on_cpu = dataclasses.replace(result, device="cpu")
    header, _, row = report.compare_table([on_cpu], lang).splitlines()
    na = words.text("report.na", lang)
    assert "CPU ms" in header and "GPU ms" not in header
    assert row.split()[2:4] == [na, na] and "0.0" not in row.split()  # GPU activities, kernels, TFLOP/s: n/a
    assert row.split().count(na) == 3
    assert na in report.summary(on_cpu, lang).splitlines()[2] and "0.0 TFLOP/s" not in report.summary(on_cpu, lang)


def test_reasons_and_kernel_labels_are_shortened_at_a_word_never_inside_a_number():
    result, _ = trace_result("naive")
    reason = "RuntimeError: No viable backend for scaled_dot_product_attention was found on this device."
    failed = type(result)("sdpa_cudnn", [1, 4, 256, 64], "bfloat16", "cpu", "no_cuda", h200_environment(), reason)
    last = report.compare_table([failed]).splitlines()[-1]
    assert last.endswith("No viable backend for…") and "scaled_dot_product_atten" not in last
    full = report.kernel_table(result, width=200).splitlines()[2:]
    for width in (8, 12, 20, 33):
        for wide, short in zip(full, report.kernel_table(result, width=width).splitlines()[2:], strict=True):
            label, cut = wide.split("  ")[0], short.split("  ")[0]
            assert len(cut) <= width and (cut == label or cut.endswith("…"))
            for number in re.findall(r"\d+", cut.rstrip("…")):  # every number shown is one of the label's, whole
                assert re.search(rf"(?<!\d){number}(?!\d)", label), (cut, label)
