"""attnprof.analysis.workload_rows on the 2xH200 recordings: the phases of a training step, the rows of the training,
decoding and CUDA-graph tables, the conditions of each workload (the decision table is test_decision.py)."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof.analysis import summary
from attnprof.analysis.workload_rows import Build
from helpers import decode_result, train_result, workload_build, workload_facts

FACTS = workload_facts()


def test_a_training_step_splits_into_its_annotated_phases():
    a = summary.analyse(train_result("sdpa_flash"))
    assert list(a.phases) == ["fwd", "bwd"]
    fwd = [r.info.short for r in a.phases["fwd"] if r.kind == "kernel"]
    bwd = [r.info.short for r in a.phases["bwd"] if r.kind == "kernel"]
    assert fwd == ["flash_fwd hd64 128x128 (bf16 causal)"]
    assert bwd[1:] == ["flash bwd dot(dO, O) hd64 (bf16)", "flash bwd dQ dK dV hd64 128x128 (bf16)",
                       "flash bwd convert dQ hd64 (bf16)"]  # fmt: skip
    assert sum(r.count for r in a.rows) == sum(r.count for p in a.phases.values() for r in p)
    assert a.phase_gpu_us["bwd"] > a.phase_gpu_us["fwd"] > 0


def test_training_rows_from_the_recorded_figures():
    rows = {r.variant: r for r in workload_build().train_rows()}
    facts = FACTS["train"]["variants"]
    for v, r in rows.items():
        assert r.step_ms == facts[v]["fwd_bwd_ms"]["median"] and r.fwd_ms == facts[v]["fwd_ms"]["median"]
        assert r.bwd_over_fwd == pytest.approx(
            facts[v]["bwd_over_fwd"], abs=5e-3
        )  # the probe's ratio, of rounded medians
        assert r.peak_mib == facts[v]["peak_fwd_bwd_MiB"] and r.saved_mib == facts[v]["saved_after_fwd_MiB"]
    assert rows["sdpa_auto"].backend == "cudnn"  # SDPA's pick for training on the H200, from the backward kernels
    assert rows["sdpa_cudnn"].bwd_main.short == "cuDNN sdpa flash bprop sm90 wgmma 64x64x64"
    assert (rows["sdpa_cudnn"].fwd_kernels, rows["sdpa_cudnn"].bwd_kernels) == (1, 3)
    assert rows["flex"].bwd_main.short == "triton template: flex_attention_backward"


def test_a_step_no_longer_than_its_forward_has_no_backward_time():
    r = train_result("naive")
    r.train_figures = dataclasses.replace(r.train_figures, fwd_ms_median=r.timing.gpu_ms_median * 1.01)
    row = Build({"train": [summary.analyse(r)]}).train_rows()[0]
    assert row.bwd_ms is None and row.bwd_over_fwd is None


def test_decoding_rows():
    rows = {(r.variant, r.kv_len): r for r in workload_build().decode_rows()}
    flash = rows[("sdpa_flash", 131072)]
    assert tuple(k.short for k in flash.kernels) == (
        "flash split-KV fwd hd128 (bf16)",
        "flash split-KV combine hd128 (bf16)",
    )
    assert flash.kernels[0].text("ja") == "flash split-KV フォワード hd128 (bf16)"  # shown in the page's language
    assert flash.gbs == 4550.4 and flash.read_fraction == pytest.approx(4550.4 / 4700)
    assert rows[("sdpa_auto", 8192)].backend == "cudnn"
    assert rows[("sdpa_efficient", 8192)].status == "unsupported" and rows[("sdpa_efficient", 8192)].gpu_us is None
    # short caches are launch-bound for SDPA's choice (24.9 us to issue, 15.6 us on the GPU), long ones are not
    assert rows[("sdpa_auto", 1024)].launch_bound is True and rows[("sdpa_auto", 131072)].launch_bound is False
    cpu = dataclasses.replace(flash, device="cpu")
    assert cpu.launch_bound is None  # the CPU does the work itself


def test_profiled_kernels_longer_than_the_timed_step():
    rows = {(r.variant, r.kv_len): r for r in workload_build().decode_rows()}
    flash = rows[("sdpa_flash", 131072)]
    assert flash.profiled_us == pytest.approx(935.6, abs=0.1) and not flash.profiled_longer  # 943.9 us timed
    r = decode_result("sdpa_flash", 131072)
    r.timing = dataclasses.replace(r.timing, gpu_ms_median=0.80, gpu_ms_lo=0.79, gpu_ms_hi=0.81)
    (row,) = Build({"decode": [summary.analyse(r)]}).decode_rows()
    assert row.profiled_longer  # 935.6 us profiled against 800 us (834 us at the top of its band)


def test_graph_rows():
    rows = {r.variant: r for r in workload_build().graph_rows()}
    assert set(rows) == {"sdpa_flash", "sdpa_cudnn", "sdpa_auto"}
    auto = rows["sdpa_auto"]
    g = FACTS["graph"]["sdpa_auto"]
    assert (auto.eager_cpu_us, auto.graph_cpu_us) == (g["eager"]["cpu_us"], g["graph"]["cpu_us"])
    assert (auto.eager_launches, auto.graph_launches, auto.graph_launch_api) == (2, 1, "cudaGraphLaunch")
    assert auto.eager_kernels == auto.graph_kernels == 2 and auto.replay_matches is True


def test_the_conditions_of_each_workload():
    b = workload_build()
    train, prefill, decode = (b.conditions(w) for w in ("train", "prefill", "decode"))
    assert (train.batch, train.heads, train.kv_heads, train.head_dim, train.dtype) == (8, 16, None, 64, "bfloat16")
    assert train.causal and train.on_gpu and train.device == "NVIDIA H200" and train.lengths == (1024,)
    assert prefill.lengths == (512, 1024, 2048, 4096, 8192, 16384)  # from the sweep, at the pages' head_dim
    assert (decode.heads, decode.kv_heads, decode.head_dim, decode.causal) == (32, 8, 128, False)
    assert Build().conditions("train") is None


def test_a_build_picks_results_by_workload_and_length():
    b = workload_build()
    assert b.decode_lengths() == [1024, 4096, 8192, 16384, 131072]
    assert b.result("decode", "sdpa_flash").result.kv_len == 131072
    assert b.result("decode", "sdpa_flash", 8192).result.kv_len == 8192
    assert b.result("train", "naive").result.workload == "train"
    assert Build().decision_rows() == [] and Build().train_rows() == []


def test_a_refused_variant_has_no_entry():
    row = Build({"decode": [summary.analyse(decode_result("sdpa_efficient", 8192))]}).decision_rows("decode")
    assert row == []
