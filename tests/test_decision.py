"""attnprof.analysis.decision: the decision table, on the 2xH200 recordings, on the results of a real H200 build
(tests/data/h200-build.tar.gz), and on side-by-side issue times made up for the tests (no H200 build has measured
them yet: :func:`forcing_case` says which figures are made up)."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof.analysis.decision import Band, Entry, decision_row, too_close_to_call
from attnprof.noise import Figure
from attnprof.records.forcing import Forcing, ForcingCase, IssueRow
from helpers import h200_build, h200_environment, workload_build


def forcing_case(workload: str, shape: list[int], dtype: str, kv_len: int | None = None,
                 **issue: tuple[float, float | None]) -> ForcingCase:  # fmt: skip
    """A side-by-side case made up for a test: ``variant=(issue µs, over SDPA's choice µs)``, each ±5 %."""
    rows = [IssueRow(v, issue=Figure(i, 0.95 * i, 1.05 * i, 12),
                     over_auto=None if d is None else Figure(d, d - 0.05 * abs(d), d + 0.05 * abs(d), 12))
            for v, (i, d) in issue.items()]  # fmt: skip
    return ForcingCase(workload, shape, dtype, 8 if kv_len else None, kv_len, 12, 3, rows)


def test_the_tie_rule_is_band_overlap():
    assert too_close_to_call(Band(1.0, 0.9, 1.1), Band(1.05, 1.08, 1.2))
    assert not too_close_to_call(Band(1.0, 0.9, 1.1), Band(1.3, 1.2, 1.4))
    assert too_close_to_call(Band(1.0, 1.0, 1.0), Band(1.0, 1.0, 1.0))
    # bands apart, but less than the minimum effect (5%) between the medians: a difference the next build may not see
    assert too_close_to_call(Band(1.0, 0.999, 1.001), Band(1.045, 1.044, 1.046))
    assert not too_close_to_call(Band(1.0, 0.999, 1.001), Band(1.07, 1.069, 1.071))


def test_the_decision_table():
    rows = workload_build().decision_rows()
    assert [r.workload for r in rows] == ["train"] + ["prefill"] * 6 + ["decode"] * 5
    train = rows[0]
    assert train.length == 1024 and train.winner.variant == "sdpa_cudnn"
    assert "sdpa_auto" not in [e.variant for e in train.entries]  # SDPA's choice is compared, not ranked
    assert train.auto.backend == "cudnn" and train.forcing == "no_gain"
    # FlexAttention's step against the best's: 773 µs to issue its compiled training step, 258 µs on the GPU
    assert train.flex_ratio == pytest.approx(773.1 / 258.0, rel=1e-3)
    decode = {r.length: r for r in rows if r.workload == "decode"}
    longest = decode[131072]
    assert (longest.winner.variant, longest.runner_up.variant) == ("sdpa_cudnn", "sdpa_flash")
    assert longest.too_close  # 942.1 and 943.9 us: the bands overlap
    # the margin's band, which the page shows, reaches below zero: that is what "too close to call" means
    assert longest.margin_band.lo < 0 < longest.margin_band.hi
    assert longest.margin_band.median == pytest.approx(943.9 / 942.1 - 1, abs=1e-3)
    # this build has no side-by-side issue times: no row makes up the cost of forcing from two own runs
    assert not longest.side_by_side and longest.advice.forcing_cpu is None
    assert decode[4096].margin == pytest.approx(44.8 / 42.112 - 1)
    # the decoding rows' inputs are dominated by the KV cache: 2 x 8 x 8 heads x 131072 x 128 x bf16 = 4 GiB
    assert longest.winner.inputs_mib == pytest.approx((8 * 32 * 128 + 2 * 8 * 8 * 131072 * 128) * 2 / 2**20)


def test_by_gpu_time_forcing_helps_only_beyond_the_noise():
    auto = Entry("sdpa_auto", Band(1.0, 0.98, 1.02), None, 20.0, "flash")
    cudnn = Entry("sdpa_cudnn", Band(0.8, 0.79, 0.81), None, 30.0)
    flash = Entry("sdpa_flash", Band(1.0, 0.98, 1.02), None, 28.0)
    row = decision_row("decode", 1024, [auto, cudnn, flash])
    assert row.forcing == "helps" and row.best_forced is cudnn
    # the saving, with the band the page shows: 20% (16.7% to 22.5% with the ±3% floors)
    assert row.saving.median == pytest.approx(0.2) and 0 < row.saving.lo < 0.2 < row.saving.hi
    close = decision_row("decode", 1024, [auto, dataclasses.replace(cudnn, band=Band(0.99, 0.97, 1.01)), flash])
    assert close.forcing == "no_gain" and close.saving.lo < 0 < close.saving.hi
    alone = decision_row("decode", 1024, [flash])
    assert alone.forcing == "unknown" and alone.runner_up is None and alone.margin is None


def test_a_candidate_measured_under_contention_decides_nothing():
    # the CPU build's sweep at seq 128: SDPA's choice took 40 ms in a point measured while other processes ran
    flash = Entry("sdpa_flash", Band(0.37, 0.36, 0.38), None, None)
    naive = Entry("naive", Band(0.38, 0.37, 0.39), None, None)
    auto = Entry("sdpa_auto", Band(40.0, 0.41, 52.0), None, None, "flash")
    row = decision_row("prefill", 128, [flash, naive, auto])
    assert row.forcing == "unreliable" and row.saving is None  # not "forcing saves 99%"
    slow_math = Entry("sdpa_math", Band(1.8, 0.4, 5.0), None, None)
    row = decision_row("prefill", 128, [slow_math, flash, naive])
    assert [e.variant for e in row.unreliable] == ["sdpa_math"]  # named, not ranked
    assert [e.variant for e in row.entries] == ["sdpa_flash", "naive"] and row.too_close


def test_where_the_step_is_cpu_bound_leaving_sdpa_alone_wins():
    # the 2xH200 decoding step at KV 1024: 15.6 µs on the GPU, 24.9 µs to issue SDPA's own choice, 58.4 µs to issue
    # the forced cuDNN call (each in its own run)
    row = next(r for r in workload_build().decision_rows("decode") if r.length == 1024)
    assert row.winner.variant == "sdpa_cudnn"  # by GPU time alone, what the page used to call fastest
    v = row.verdict
    assert v.winner.variant == "sdpa_auto" and v.regime == "cpu"
    assert v.winner.cost.step.median == pytest.approx(24.94, abs=0.01)
    # the advice follows the whole step: forcing the faster kernel costs more than twice as much per step
    assert row.advice.advice == "costs" and row.advice.best.variant == "sdpa_cudnn"
    assert row.advice.saving.hi < 0 and row.advice.saving.median == pytest.approx(1 - 58.36 / 24.94, abs=1e-3)


def test_side_by_side_issue_times_replace_the_own_runs_and_price_forcing():
    b = workload_build()
    case = forcing_case("decode", [8, 32, 1, 128], "bfloat16", 4096, sdpa_auto=(33.0, None),
                        sdpa_cudnn=(85.0, 52.0), sdpa_flash=(95.0, 62.0), sdpa_math=(250.0, 217.0),
                        naive=(120.0, 87.0))  # fmt: skip
    b = dataclasses.replace(b, forcing=Forcing("cuda", h200_environment(), [case]))
    row = next(r for r in b.decision_rows("decode") if r.length == 4096)
    assert row.side_by_side
    auto = next(o for o in row.options if o.variant == "sdpa_auto")
    assert auto.cost.side_by_side and auto.cost.issue.median == 33.0
    # SDPA ran cuDNN (its trace says so): forcing cuDNN is left out of the ranking, and priced instead
    assert row.advice.advice == "keep" and row.advice.picked == "sdpa_cudnn"
    assert row.advice.forcing_cpu.median == 52.0
    assert "sdpa_cudnn" not in [o.variant for o in row.verdict.ranked]
    # 42.1 µs on the GPU against 33 µs to issue: the step is GPU-bound, and forcing's 52 µs would make it CPU-bound
    assert auto.cost.regime == "gpu" and row.advice.forcing_share is None
    other = next(r for r in b.decision_rows("decode") if r.length == 131072)
    assert not other.side_by_side  # a case is used only at its own shape


def test_the_real_h200_build():
    rows = {(r.workload, r.length): r for r in h200_build().decision_rows()}
    assert set(rows) == {("train", 1024), *(("prefill", n) for n in (512, 1024, 2048, 4096, 8192, 16384)),
                         ("decode", 1024), ("decode", 16384), ("decode", 131072)}  # fmt: skip
    # SDPA picks cuDNN at every row, and cuDNN's kernel is the fastest forced one: never force
    assert {r.advice.advice for r in rows.values()} == {"keep"}
    assert {r.advice.picked for r in rows.values()} == {"sdpa_cudnn"}
    # a training step at seq 1024 takes the GPU 252 µs and the CPU 339 µs to issue: CPU-bound
    train = rows[("train", 1024)].verdict
    assert train.winner.variant == "sdpa_auto" and train.regime == "cpu"
    assert train.winner.cost.issue.median == pytest.approx(339.0, abs=0.1)
    assert {rows[("prefill", n)].verdict.regime for n in (1024, 2048, 4096, 8192, 16384)} == {"gpu"}
    assert rows[("decode", 1024)].verdict.regime == "cpu" and rows[("decode", 131072)].verdict.regime == "gpu"
    # at KV 131072 SDPA's choice (950.5 µs) and flash (964.6 µs) are too close to call
    longest = rows[("decode", 131072)].verdict
    assert longest.runner_up.variant == "sdpa_flash" and longest.too_close
