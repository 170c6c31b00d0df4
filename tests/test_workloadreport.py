"""attnprof.render.workloadreport in both languages: the training, decoding and context-parallel text tables and the
lines of the gallery scripts 12 to 14, from the 2 x H200 recordings; English exactly as before the tables learned
Japanese."""

from __future__ import annotations

import pytest

from attnprof import inputs, words
from attnprof.analysis.workload_rows import GraphRow
from attnprof.records import parallel
from attnprof.render import workloadreport
from attnprof.render.report import display_width
from helpers import GRAPH_LEN, decode_result, h200x2_run, no_gpu_run, train_result, workload_build


def _columns_line_up(text: str) -> None:
    """Every column starts at the display column its rule starts it at: the two columns before it are blank in
    every row (wide characters take two columns)."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    starts = [i for i, c in enumerate(lines[rule]) if c == "-" and i > 0 and lines[rule][i - 1] == " "]
    for line in [lines[rule - 1], *lines[rule + 1 :]]:
        cells = "".join(c * display_width(c) for c in line)  # one character per display column
        for s in starts:
            if len(cells) > s - 2:  # the row reaches the gap before this column
                assert cells[s - 2 : s].ljust(2) == "  ", (line, s)


# --- English: unchanged --------------------------------------------------------------------------------------------


def test_english_is_the_default_and_shows_the_compared_times_with_their_bands():
    build = workload_build()
    train = workloadreport.train_table(build.train_rows())
    assert train.splitlines()[0].split("  ")[0] == "variant"
    assert train.splitlines()[0] == (
        "variant         seq   step ms              fwd ms  bwd ms  bwd/fwd  TFLOP/s  peak MiB  main bwd kernel"
    )
    # the step's time with its band (±3% at least), as the decision compares it
    assert "sdpa_flash      1024  0.407 (0.395-0.420)  0.098   0.309   3.14     147.6    129       flash bwd" in train
    decode = workloadreport.decode_table(build.decode_rows())
    assert decode.splitlines()[0].split() == ["variant", "KV", "len", "GPU", "us", "GB/s", "of", "read", "issue",
                                              "us", "kernels", "decoded"]  # fmt: skip
    assert "sdpa_flash      1024    20.0 (19.4-20.6)           1687  36%      79.3 (CPU-bound)" in decode
    assert "sdpa_efficient  1024    unsupported                -" in decode
    summary = workloadreport.workload_summary(decode_result("sdpa_auto", GRAPH_LEN))
    assert summary.splitlines()[0] == "sdpa_auto: [8, 32, 1, 128] bfloat16 on cuda, KV cache 8 heads x 4096"
    assert " 0.042 ms per decode step (median of 300" in summary
    assert "  decoding step: 128.1 MiB moved at 3190 GB/s, 68% of 4700 GB/s" in summary
    assert "  CUDA graph: CPU 64.4 -> 9.3 us, wall 93.4 -> 52.6 us, GPU 42.0 -> 41.1 us" in summary
    trained = workloadreport.workload_summary(train_result("sdpa_flash"))
    assert " 0.407 ms per train step (median of 300" in trained
    assert ("  training step: forward 0.098 ms + backward 0.309 ms (backward/forward 3.14); kept for the backward "
            "16.5 MiB; gradient error 2.5e-03") in trained  # fmt: skip
    for lang in ("en", "en_US", "de"):
        assert workloadreport.train_table(build.train_rows(), lang) == train
        assert workloadreport.decode_table(build.decode_rows(), lang=lang) == decode
        assert workloadreport.workload_summary(decode_result("sdpa_auto", GRAPH_LEN), lang) == summary


def test_english_parallel_tables_are_unchanged():
    run = h200x2_run()
    text = workloadreport.parallel_table(run)
    assert text.splitlines()[:2] == [
        "2 x NVIDIA H200, NCCL 2.28.9, torch.multiprocessing (spawn); run took 14.2 s",
        "method     seq     status  1 GPU ms  2 GPUs ms  speed-up  NCCL share  overlapped  balance  error vs 1 GPU",
    ]
    ranks = workloadreport.rank_table(run.case("allgather", 32768))
    assert ranks.splitlines()[:2] == [
        "allgather, seq 32768",
        "rank  attention us  NCCL us  other us  idle us  GPU span us",
    ]
    assert workloadreport.parallel_table(no_gpu_run()) == (
        "context parallelism not measured (no_cuda): torch.cuda.is_available() is False; context parallelism needs "
        f"at least 2 CUDA GPUs\non a machine with 2 or more GPUs: {parallel.TORCHRUN_COMMAND}\n"
        f"  or: {parallel.PLAIN_COMMAND}"
    )
    assert workloadreport.parallel_table(run, "en") == text


# --- Japanese ----------------------------------------------------------------------------------------------------


def test_the_training_table_in_japanese():
    rows = workload_build().train_rows()
    en, ja = workloadreport.train_table(rows), workloadreport.train_table(rows, "ja")
    head = ja.splitlines()[0].split()
    assert head[:3] == ["バリアント", "シーケンス長", "ステップ"] and "バックワードの主カーネル" in head
    assert [line.split()[2:8] for line in ja.splitlines()[2:]] == [line.split()[2:8] for line in en.splitlines()[2:]]
    assert (
        "flash バックワード dQ dK dV hd64 128x128 (bf16)" in ja
    )  # decoded labels in the page's language, as in the kernel table
    assert "flash bwd dQ dK dV hd64 128x128 (bf16)" in en
    _columns_line_up(ja)


def test_the_decoding_table_in_japanese():
    rows = workload_build().decode_rows()
    ja = workloadreport.decode_table(rows, "ja")
    head = ja.splitlines()[0]
    assert head.startswith("バリアント") and "KV キャッシュ長" in head and "読み出し帯域比" in head
    assert "79.3 (CPU 律速)" in ja and "CPU-bound" not in ja
    refused = next(line for line in ja.splitlines() if line.startswith("sdpa_efficient  1024"))
    assert "この環境では非対応" in refused and "No available kernel" in refused  # PyTorch's words stay
    _columns_line_up(ja)


def test_a_result_summary_in_japanese():
    decode = workloadreport.workload_summary(decode_result("sdpa_auto", GRAPH_LEN), "ja")
    lines = decode.splitlines()
    assert lines[0] == "sdpa_auto: [8, 32, 1, 128] bfloat16、cuda 上、KV キャッシュ: ヘッド 8 x 長さ 4096"
    assert "デコードステップ 1 回 0.042 ms" in lines[2] and "フォワード" not in lines[2]
    assert lines[3] == "  デコードステップ: 128.1 MiB を 3190 GB/s で転送 (4700 GB/s の 68%)"
    assert lines[4] == "  CUDA グラフ: CPU 64.4 -> 9.3 us、経過時間 93.4 -> 52.6 us、GPU 42.0 -> 41.1 us"
    train = workloadreport.workload_summary(train_result("sdpa_flash"), "ja").splitlines()
    assert "学習ステップ 1 回 0.407 ms" in train[2]
    assert train[3] == ("  学習ステップ: フォワード 0.098 ms + バックワード 0.309 ms (バックワード/フォワード 3.14)、"
                        "バックワード用に保持 16.5 MiB、勾配の誤差 2.5e-03")  # fmt: skip
    refused = workloadreport.workload_summary(decode_result("sdpa_efficient", 8192), "ja").splitlines()
    assert refused[1].startswith("  実行できません (この環境では非対応): RuntimeError: No available kernel.")


def test_the_parallel_tables_in_japanese():
    run = h200x2_run()
    ja = workloadreport.parallel_table(run, "ja")
    lines = ja.splitlines()
    assert lines[0] == "2 x NVIDIA H200、NCCL 2.28.9、torch.multiprocessing (spawn)、実行時間 14.2 秒"
    assert lines[1].split()[:5] == ["回転方式", "シーケンス長", "状態", "GPU", "1"]
    assert "GPU 2 基 ms" in lines[1] and "高速化率" in lines[1] and "GPU 1 基との誤差" in lines[1]
    assert lines[-2].split() == ["allgather", "131072", "計測済み", "226.07", "117.72", "1.92", "1.9%", "95.5%",
                                 "0.994", "1.1e-03"]  # fmt: skip
    _columns_line_up("\n".join(lines[1:]))
    ranks = workloadreport.rank_table(run.case("allgather", 32768), "ja").splitlines()
    assert ranks[0] == "allgather、シーケンス長 32768"
    assert ranks[1].split()[:3] == ["ランク", "アテンション", "us"] and ranks[3].split()[:3] == ["0", "7281", "562"]
    missing = workloadreport.parallel_table(no_gpu_run(), "ja")
    assert missing.startswith("コンテキスト並列は計測されていません (CUDA デバイスなし): torch.cuda.is_available()")
    assert f"GPU が 2 基以上あるマシンで実行します: {parallel.TORCHRUN_COMMAND}" in missing
    assert f"  または: {parallel.PLAIN_COMMAND}" in missing


def test_a_failed_case_shows_its_status_in_japanese():
    run = h200x2_run()
    run.cases.append(parallel.ParallelCase("math", "allgather", 32768, "unsupported", reason="RuntimeError: mixed"))
    assert "この環境では非対応  -" in workloadreport.parallel_table(run, "ja")


# --- the lines of the gallery scripts ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_script_lines(lang):
    cpu = inputs.make_setup((1, 8, 1, 64), "bfloat16", "cpu", kv_heads=2, kv_len=256)
    setup = workloadreport.setup_line(cpu, "decode", lang)
    train = workloadreport.setup_line(inputs.make_setup((1, 4, 256, 64), "bfloat16", "cpu"), "train", lang)
    needs = workloadreport.parallel_run_line(no_gpu_run(), lang)
    if lang == "en":
        assert setup.splitlines() == [
            "running: [1, 8, 1, 64] bfloat16 on cpu, KV cache [1, 2, 256, 64]",
            "no GPU here: the times describe this CPU; there are no kernels and no CUDA graph",
        ]
        assert train.endswith("and the backward runs on the main thread")
        assert needs.startswith("context parallelism needs 2 or more CUDA GPUs, so nothing ran here (no_cuda): ")
        assert workloadreport.grad_error_line("q", 0.0025, lang) == "relative error of dq against float64: 2.5e-03"
        assert workloadreport.parallel_run_line(h200x2_run(), lang) == "2 ranks ran in 14.2 s"
    else:
        assert setup.splitlines() == [
            "実行: [1, 8, 1, 64] bfloat16、cpu 上、KV キャッシュ [1, 2, 256, 64]",
            "GPU がないため、時間はこの CPU のものです。カーネルも CUDA グラフもありません",
        ]
        assert train.endswith("バックワードはメインスレッドで実行されます")
        assert (
            needs.startswith("コンテキスト並列には CUDA GPU が 2 基以上必要なため") and "(CUDA デバイスなし)" in needs
        )
        assert workloadreport.grad_error_line("q", 0.0025, lang) == "dq の float64 との相対誤差: 2.5e-03"
        assert workloadreport.parallel_run_line(h200x2_run(), lang) == "ランク 2 個が 14.2 秒で実行されました"
    gpu = inputs.make_setup((8, 16, 1024, 64), "bfloat16", "cuda")
    assert len(workloadreport.setup_line(gpu, "train", lang).splitlines()) == 1  # no CPU note on a GPU
    refused = workloadreport.causal_pitfall_line(RuntimeError("flash refuses it\nmore detail"), lang)
    assert refused.endswith(": flash refuses it")
    assert "0.50" in workloadreport.causal_pitfall_line(0.5, lang)
    crashed = workloadreport.parallel_run_line(no_gpu_run("error", "rank 1 died"), lang)
    assert crashed.endswith(": rank 1 died") and "2" not in crashed  # no claim about GPUs for a crash
    plan = workloadreport.parallel_plan(h200x2_run().config, lang).splitlines()
    layout = {"en": "[batch, heads, S, head_dim]", "ja": "[バッチ, ヘッド, S, head_dim]"}[lang]
    assert "[32768, 65536, 131072]" in plan[0] and plan[1].startswith(f"{layout} = [2, 16, S, 64]")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_cuda_graph_lines(lang):
    rows = workload_build().graph_rows()
    lines = [workloadreport.graph_line(r, lang) for r in rows]
    ok = next(line for line in lines if line.startswith("sdpa_auto"))
    assert "64.4 -> 9.3 us" in ok and "93.4 -> 52.6 us" in ok and "42.0 -> 41.1 us" in ok
    missing = workloadreport.graph_line(
        GraphRow("sdpa_math", 4096, "no_cuda", "CUDA graphs need a CUDA device"), lang
    )
    assert missing.endswith(": CUDA graphs need a CUDA device")
    assert ("(no_cuda)" in missing) == (lang == "en") and ("(CUDA デバイスなし)" in missing) == (lang == "ja")


def test_every_word_has_both_languages_and_japanese_shows_no_english_headers():
    keys = [k for k in words.TABLE if k.startswith("wreport.")]
    assert keys and all(words.placeholders(k, "en") == words.placeholders(k, "ja") for k in keys)
    ja = workloadreport.train_table(workload_build().train_rows(), "ja").splitlines()[0]
    for english in ("variant", "step ms", "fwd ms", "bwd ms", "peak MiB", "main bwd kernel"):
        assert english not in ja
