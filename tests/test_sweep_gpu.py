"""The sweep on a real GPU (``pytest -m gpu`` on the GPU builder); deselected on CPU machines.

Like ``test_gpu.py`` these fail rather than skip without CUDA: a GPU run that tests nothing must not look green.
"""

from __future__ import annotations

import time

import pytest
import torch

from attnprof import variants
from attnprof.measure import sweeprun
from attnprof.records import sweep

pytestmark = pytest.mark.gpu

SMALL = dict(batch=2, heads=4, dtype="bf16", device="cuda", reps=5, warmup=2, budget_ms=0.0)


@pytest.fixture(scope="module")
def small_sweep() -> sweep.Sweep:
    assert torch.cuda.is_available(), "the gpu selection needs a CUDA device"
    cfg = sweeprun.make_config(["sdpa_flash", "sdpa_cudnn", "sdpa_auto", "naive"], [256, 1024], [64], **SMALL)
    return sweeprun.run_sweep(cfg)


def test_small_sweep_measures_on_the_gpu(small_sweep):
    s = small_sweep
    assert s.timer == "cuda_event_prefilled"
    for p in s.points:
        assert p.status == "ok", f"{p.variant} seq{p.seq}: {p.reason}"
        assert p.repetitions == 5 and 0 < p.gpu_ms_min <= p.gpu_ms <= p.gpu_ms_max
        assert p.gpu_ms_lo <= p.gpu_ms <= p.gpu_ms_hi and p.attempts in (1, 2)
        assert p.peak_extra_bytes > 0 and p.dispatch_us > 0
    naive = s.point("naive", 64, 1024)
    # the naive code holds at least two [B, H, S, S] bf16 score matrices at its peak
    assert naive.peak_extra_bytes >= 2 * 2 * 4 * 1024 * 1024 * 2
    assert s.point("sdpa_flash", 64, 1024).peak_extra_bytes < naive.peak_extra_bytes / 4


def test_sdpa_pick_is_a_fused_backend_named_by_its_kernel(small_sweep):
    for p in small_sweep.points:
        if p.variant == "sdpa_auto":
            assert p.sdpa_choice in ("flash", "mem_efficient", "cudnn"), p.sdpa_evidence
            assert not p.sdpa_evidence.startswith("aten::")
    assert all(c.pick_variant in small_sweep.variants for c in small_sweep.sdpa_comparisons())


def test_prefilled_queue_hides_the_launch_cost(small_sweep):
    # From an idle GPU the events also count the launch latency and the CPU's issuing; with the queue pre-filled
    # they count the kernel alone, so a tiny call measures shorter.
    import statistics

    p = small_sweep.point("sdpa_flash", 64, 256)
    q, k, v = sweeprun.sweep_inputs(sweeprun.make_config(**SMALL), 256, 64)
    fn = variants.get("sdpa_flash").build(256, "cuda")
    idle = []
    for _ in range(20):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(q, k, v)
        end.record()
        end.synchronize()
        idle.append(start.elapsed_time(end))
    print(
        f"\nflash seq256: {p.gpu_ms * 1e3:.1f} us pre-filled, {statistics.median(idle) * 1e3:.1f} us from idle, "
        f"{p.dispatch_us:.1f} us to issue"
    )
    assert p.gpu_ms < statistics.median(idle)


def test_out_of_memory_is_recorded_and_longer_sequences_skipped(monkeypatch):
    def prepare(seq: int, device: str):
        def fn(q, k, v):
            if seq >= 512:
                torch.empty(1 << 50, dtype=torch.uint8, device="cuda")  # a petabyte
            return q + k + v

        return fn

    monkeypatch.setitem(
        variants.VARIANTS, "hungry", variants.Variant("hungry", "h", "d", ("cuda",), ("bfloat16",), "none", prepare)
    )
    s = sweeprun.run_sweep(sweeprun.make_config(["hungry"], [256, 512, 1024], [64], **SMALL))
    assert [p.status for p in s.points] == ["ok", "oom", "oom"]
    assert s.points[2].reason == "skipped: out of memory at seq 512"
    assert torch.cuda.memory_allocated() < 2**30


def test_ceilings_are_plausible_and_quick():
    t0 = time.perf_counter()
    c = sweeprun.measure_ceilings("cuda")
    elapsed = time.perf_counter() - t0
    print(
        f"\nceilings: {c.matmul_tflops:.0f} TFLOP/s, {c.bandwidth_gbs:.0f} GB/s, ridge {c.ridge:.0f}; {elapsed:.2f} s"
    )
    assert 50 < c.matmul_tflops < 5000
    assert 300 < c.bandwidth_gbs < 20000
    assert elapsed < 10


def test_default_gpu_sweep_fits_its_budget():
    """The sweep the docs build runs: report its time per variant (the page's budget is about 30 s)."""
    t0 = time.perf_counter()
    s = sweeprun.run_sweep(sweeprun.default_config("cuda"), ceilings=sweeprun.measure_ceilings("cuda"))
    wall = time.perf_counter() - t0
    per_variant = {v: round(sum(p.wall_s for p in s.points if p.variant == v), 2) for v in s.variants}
    statuses = {v: [p.status for p in s.points if p.variant == v] for v in s.variants}
    print(f"\ndefault sweep: {wall:.1f} s (elapsed_s {s.elapsed_s:.1f}); per variant {per_variant}")
    print(f"statuses: {statuses}")
    for p in s.unstable():
        print(
            f"unstable: {p.variant} hd{p.head_dim} seq{p.seq}: p10 {p.gpu_ms_p10:.4g} ms, p90 {p.gpu_ms_p90:.4g} ms"
        )
    assert s.timer == "cuda_event_prefilled"
    assert wall < s.budget_s + 15
    assert all(p.status in ("ok", "oom", "skipped", "unsupported") for p in s.points)
