"""attnprof.records.trainscale: the FLOP count by pass and mask, rates with their bands, shares of the ceiling and of
the published peak, the peak table, and the file format."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from attnprof import workloads
from attnprof.noise import Figure
from attnprof.records import files, results
from attnprof.records import trainscale as ts
from attnprof.records.results import Environment
from attnprof.records.sweep import Ceilings


def env(name: str = "NVIDIA H200") -> Environment:
    return Environment(device_name=name, torch_version="2.11.0+cu130", python_version="3.12.3",
                       date="2026-12-03T00:00:00+00:00")  # fmt: skip


def grid(device: str = "cuda", name: str = "NVIDIA H200") -> ts.TrainScale:
    """Two points of one line with made times: 16384 tokens, head_dim 128, causal and not."""
    points = [
        ts.TrainPoint("sdpa_flash", 128, True, 16384, 1, 16, fwd=Figure(2.0, 1.9, 2.2, 5),
                      bwd=Figure(5.0, 4.8, 5.5, 5)),
        ts.TrainPoint("sdpa_flash", 128, False, 16384, 1, 16, fwd=Figure(4.0, 3.9, 4.1, 5),
                      bwd=Figure(10.0, 9.0, 11.0, 5)),
        ts.TrainPoint("sdpa_math", 128, True, 16384, 1, 16, status="skipped", reason="skipped: a step took 114 ms"),
    ]  # fmt: skip
    ceilings = Ceilings(matmul_tflops=800.0, matmul_n=8192, bandwidth_gbs=4000.0, copy_bytes=2**31, repetitions=10)
    gpu = device == "cuda"
    return ts.TrainScale(device, "bfloat16", ["sdpa_flash", "sdpa_math"], [16384], [128], [True, False], env(name),
                         points, ceilings if gpu else None, "sweep" if gpu else None, 5)  # fmt: skip


def test_the_count_halves_for_causal_and_the_backward_is_two_and_a_half_forwards():
    shape = (1, 16, 16384, 128)
    full = 4.0 * 16 * 16384**2 * 128
    assert workloads.forward_flops(shape, causal=False) == full
    assert workloads.forward_flops(shape, causal=True) == full / 2
    assert workloads.backward_flops(shape, causal=True) == 2.5 * full / 2
    p = grid().points[0]
    assert p.flops("fwd") == full / 2 and p.flops("bwd") == 2.5 * full / 2


def test_a_rate_carries_the_band_of_its_time_upside_down():
    p = grid().points[0]
    r = p.tflops("fwd")
    flops = p.flops("fwd")
    assert r.median == pytest.approx(flops / 2.0e-3 / 1e12)
    assert r.lo == pytest.approx(flops / 2.2e-3 / 1e12) and r.hi == pytest.approx(flops / 1.9e-3 / 1e12)
    assert grid().points[2].tflops("fwd") is None


def test_shares_of_the_ceiling_and_of_the_published_peak():
    g = grid()
    p = g.points[1]
    rate = p.tflops("bwd").median
    assert g.share_of_ceiling(p, "bwd") == pytest.approx(rate / 800.0)
    assert g.share_of_peak(p, "bwd") == pytest.approx(rate / 989.5)
    assert g.share_of_peak(g.points[2], "fwd") is None
    cpu = grid("cpu", "CPU (x86_64, 2 cores)")
    assert cpu.peak is None and cpu.share_of_ceiling(cpu.points[0], "fwd") is None


@pytest.mark.parametrize(
    ("name", "peak"),
    [("NVIDIA H200", 989.5), ("NVIDIA H100 80GB HBM3", 989.5), ("NVIDIA A100-SXM4-80GB", 312.0),
     ("NVIDIA H100 PCIe", None), ("NVIDIA GeForce RTX 4090", None)],
)  # fmt: skip
def test_the_published_peak_table(name, peak):
    found = ts.published_peak(name)
    assert (found.tflops if found else None) == peak
    if found:
        assert found.source.startswith("https://www.nvidia.com/")


def test_unknown_pass_is_one_line():
    with pytest.raises(ValueError, match=r"^unknown pass 'both'; choose one of: fwd, bwd$"):
        grid().points[0].tflops("both")


def test_the_file_round_trips_and_refuses_another_kind(tmp_path):
    g = grid()
    path = ts.save(g, tmp_path)
    assert path.name == "trainscale__cuda.json"
    back = ts.load(path)
    assert back == g and back.line("sdpa_flash", 128, True) == [g.points[0]]
    assert back.point("sdpa_math", 128, True, 16384).reason == "skipped: a step took 114 ms"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"kind": "sweep", "schema_version": 1}))
    with pytest.raises(results.StaleResultError, match=r"other\.json: training-scale schema version 1"):
        ts.load(other)
    assert isinstance(results.StaleResultError("x"), files.UnreadableFile)


# --- the grid recorded on an H200 -----------------------------------------------------------------------------------

H200 = Path(__file__).parent / "data" / "trainscale__cuda.json.gz"


@pytest.fixture(scope="module")
def h200(tmp_path_factory) -> ts.TrainScale:
    """The default grid recorded on an H200 by scripts/probe_trainscale.py (torch 2.11+cu130, cuDNN 9.19)."""
    path = tmp_path_factory.mktemp("h200") / ts.filename("cuda")
    path.write_bytes(gzip.decompress(H200.read_bytes()))
    return ts.load(path)


def test_the_h200_recording_reads_with_its_ceiling_and_peak(h200):
    assert h200.environment.device_name == "NVIDIA H200" and h200.peak is not None and h200.peak.tflops == 989.5
    assert h200.ceilings is not None and h200.timer == "cuda_event_prefilled"
    assert len(h200.points) == len(h200.variants) * len(h200.head_dims) * len(h200.causal) * len(h200.seqs)
    for p in h200.points:
        if p.ok:
            for phase in ts.PASSES:
                # no pass beats the matmul ceiling measured beside it, nor the published peak
                assert h200.share_of_ceiling(p, phase) < 1.0 and h200.share_of_peak(p, phase) < 1.0


def test_on_the_h200_every_fused_backend_reaches_16k_and_math_says_why_it_stops(h200):
    longest = max(h200.seqs)
    for p in h200.points:
        if p.variant != "sdpa_math" and p.seq == longest:
            assert p.ok, (p.variant, p.reason)
    stopped = [p for p in h200.points if p.variant == "sdpa_math" and not p.ok]
    assert stopped and all(p.status == "skipped" and "a step took" in (p.reason or "") for p in stopped)
    for p in stopped:  # the line stops after the first step over the limit, and only then
        before = [q for q in h200.line(p.variant, p.head_dim, p.causal) if q.seq < p.seq and q.ok]
        assert before and before[-1].fwd.median + before[-1].bwd.median > workloads.TRAIN_SCALE_SLOW_MS


def test_the_h200_rates_grow_toward_a_plateau_with_length(h200):
    # the fused kernels keep the GPU busier as the work per call grows: the 16k rate beats the 1k rate
    for v in ("sdpa_flash", "sdpa_cudnn", "sdpa_efficient"):
        for d in h200.head_dims:
            for m in h200.causal:
                line = [p for p in h200.line(v, d, m) if p.ok]
                assert line[-1].tflops("fwd").lo > line[0].tflops("fwd").hi, (v, d, m)
