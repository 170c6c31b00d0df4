"""The cross-GPU view (attnprof.analysis.crossgpu): a bundle's results and the article's figures grouped by workload
and shape, each machine's own ceiling and fastest variant."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof import inputs
from attnprof.analysis import crossgpu
from attnprof.noise import Figure
from attnprof.records import bundle, published
from helpers import H200_CEILINGS, SHAPE, h200_bundle, trace_result


@pytest.fixture
def h200(tmp_path) -> crossgpu.Machine:
    return crossgpu.from_bundle(bundle.read(h200_bundle(tmp_path / "h200.tar.gz")))


def test_a_bundle_becomes_a_machine_with_rates_and_shares_of_its_own_ceilings(h200):
    assert (h200.name, h200.date, h200.source) == ("NVIDIA H200", "2026-11-30", "bundle")
    flash = next(e for e in h200.entries if e.variant == "sdpa_flash" and e.workload == "prefill")
    result, _ = trace_result("sdpa_flash")
    assert flash.ms == result.timing.gpu_ms_median and flash.rate == pytest.approx(result.timing.tflops)
    assert flash.share == pytest.approx(result.timing.tflops / H200_CEILINGS.matmul_tflops) and not flash.bandwidth
    decode = [e for e in h200.entries if e.workload == "decode"]
    assert decode and all(e.bandwidth and e.kv_len for e in decode)
    assert all(e.share is not None and 0 < e.share < 1.5 for e in decode)


def test_a_result_that_did_not_run_has_no_entry():
    result, _ = trace_result("sdpa_flash")
    assert crossgpu.entry(dataclasses.replace(result, status="unsupported", timing=None), 700.0) is None
    assert crossgpu.entry(result, None).share is None


def test_the_published_source_has_tflops_but_no_ceiling():
    a100 = crossgpu.from_published(published.ARTICLE)
    flash = next(e for e in a100.entries if e.variant == "sdpa_flash")
    assert flash.rate == pytest.approx(inputs.causal_flops(SHAPE) / 0.1468e-3 / 1e12) and flash.share is None
    assert (a100.source, a100.date) == ("published", "2026-07-10")


def test_compare_groups_by_workload_and_shape_and_marks_each_machines_fastest(h200):
    a100 = crossgpu.from_published(published.ARTICLE)
    groups = crossgpu.compare([h200, a100])
    prefill = next(g for g in groups if g.workload == "prefill")
    assert prefill.shape == tuple(SHAPE) and prefill.machines == [h200, a100]
    fastest = {c.machine.name: c.entry.variant for _, cells in prefill.rows for c in cells if c.fastest}
    h200_best = min((e for e in h200.entries if e.key == prefill.rows[0][1][0].entry.key), key=lambda e: e.ms)
    assert fastest == {"NVIDIA H200": h200_best.variant, "NVIDIA A100-SXM4-80GB": "sdpa_flash"}
    decode = [g for g in groups if g.workload == "decode"]
    assert len(decode) == len({g.kv_len for g in decode}) >= 2
    assert [g.kv_len for g in decode] == sorted(g.kv_len for g in decode)
    assert [g.workload for g in crossgpu.compare([h200, a100], "train")] == ["train"]
    assert crossgpu.compare([a100], "decode") == []


def test_times_too_close_to_call_are_tied_fastest():
    def e(variant: str, ms: float, lo: float, hi: float) -> crossgpu.Entry:
        return crossgpu.Entry(
            "prefill", tuple(SHAPE), "bfloat16", None, variant, ms, None, time=Figure(ms, lo, hi, 30)
        )

    m = crossgpu.Machine("GPU X", "2026-12-01", "bundle", "x", entries=[
        e("sdpa_cudnn", 0.0598, 0.0596, 0.0600), e("sdpa_auto", 0.0604, 0.0602, 0.0606),
        e("sdpa_flash", 0.0968, 0.0965, 0.0971)])  # fmt: skip
    (group,) = crossgpu.compare([m])
    marks = {v: (c.fastest, c.tied) for v, (c,) in group.rows}
    assert marks == {"sdpa_flash": (False, False), "sdpa_cudnn": (True, True), "sdpa_auto": (True, True)}
    m.entries[1] = e("sdpa_auto", 0.0704, 0.0702, 0.0706)  # 18% slower, bands apart: one winner
    (group,) = crossgpu.compare([m])
    assert {v: (c.fastest, c.tied) for v, (c,) in group.rows}["sdpa_cudnn"] == (True, False)
