"""The training-scale grid on a real GPU (``pytest -m gpu`` on the GPU builder); deselected on CPU machines.

Like ``test_gpu.py`` these fail rather than skip without CUDA: a GPU run that tests nothing must not look green.
"""

from __future__ import annotations

import pytest
import torch

from attnprof import workloads
from attnprof.measure import trainscale
from attnprof.records import trainscale as records
from attnprof.render import trainplot

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def small_grid() -> records.TrainScale:
    assert torch.cuda.is_available(), "the gpu selection needs a CUDA device"
    return trainscale.measure_grid("cuda", variants_=["sdpa_flash", "sdpa_cudnn", "sdpa_math"], seqs=[1024, 4096],
                                   head_dims=[64], budget_s=120.0)  # fmt: skip


def test_every_backend_trains_both_ways_with_cuda_events(small_grid):
    g = small_grid
    assert g.timer == "cuda_event_prefilled" and g.dtype == "bfloat16" and g.ceilings is not None
    for p in g.points:
        assert p.ok, f"{p.variant} hd{p.head_dim} causal={p.causal} seq{p.seq}: {p.reason}"
        assert p.repetitions >= trainscale.REPS_SLOW
        assert (p.batch, p.heads) == workloads.train_scale_shape(p.seq, p.head_dim, "cuda")[:2]
        for phase in records.PASSES:
            rate = p.tflops(phase)
            assert 0 < rate.lo <= rate.median <= rate.hi
            # nothing computes faster than the matmul ceiling measured beside it (5 % for the ceiling's own noise)
            assert rate.median < 1.05 * g.ceilings.matmul_tflops, (p.variant, phase, rate)


def test_the_causal_mask_saves_time_in_the_fused_backends(small_grid):
    for v in ("sdpa_flash", "sdpa_cudnn"):
        causal, full = small_grid.point(v, 64, True, 4096), small_grid.point(v, 64, False, 4096)
        assert causal.fwd.hi < full.fwd.lo and causal.bwd.hi < full.bwd.lo, v


def test_the_math_backend_is_slowest(small_grid):
    for m in (True, False):
        math = small_grid.point("sdpa_math", 64, m, 4096).tflops("bwd").median
        assert all(math < small_grid.point(v, 64, m, 4096).tflops("bwd").median for v in ("sdpa_flash", "sdpa_cudnn"))


def test_known_gpus_have_their_published_peak(small_grid):
    name = small_grid.environment.device_name
    if "H200" in name:
        assert small_grid.peak.tflops == 989.5 and small_grid.peak.source.startswith("https://www.nvidia.com/")
    assert trainplot.report(small_grid).count("sdpa_flash") == 2


def test_the_default_grid_fits_its_budget_and_says_why_math_stops():
    g = trainscale.measure_grid("cuda")
    assert g.elapsed_s < trainscale.BUDGET_S + 5, g.elapsed_s
    assert not [p for p in g.points if p.status == "skipped" and "time budget" in (p.reason or "")]
    longest = max(g.seqs)
    fused = [p for p in g.points if p.seq == longest and p.variant != "sdpa_math"]
    assert fused and all(p.ok for p in fused), [(p.variant, p.reason) for p in fused if not p.ok]
    math = [p for p in g.points if p.variant == "sdpa_math" and p.seq == longest]
    assert all(p.ok or p.reason for p in math)
