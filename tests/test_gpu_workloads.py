"""The workloads on a GPU, run on the GPU builder: ``pytest -m gpu tests/test_gpu_workloads.py``.

Like every GPU test, these fail (never skip) on a machine without CUDA: a GPU run that silently tested nothing would
look green.
"""

from __future__ import annotations

import pytest
import torch

from attnprof import inputs
from attnprof.analysis import kernels, summary
from attnprof.analysis.workload_rows import Build
from attnprof.measure import profiling, timing

pytestmark = pytest.mark.gpu

TRAIN = (2, 8, 512, 64)
DECODE = (2, 32, 1, 128)


@pytest.fixture(scope="module")
def built():
    assert torch.cuda.is_available(), "the gpu selection needs a CUDA device"
    train = inputs.make_setup(TRAIN, "bf16", "cuda")
    decode = inputs.make_setup(DECODE, "bf16", "cuda", kv_heads=8, kv_len=4096)
    trained = {v: profiling.profile(v, train, workload="train") for v in ("sdpa_flash", "sdpa_cudnn", "sdpa_auto",
                                                                          "sdpa_math")}  # fmt: skip
    decoded = {v: profiling.profile(v, decode, workload="decode", graph=v == "sdpa_auto")
               for v in ("sdpa_flash", "sdpa_cudnn", "sdpa_efficient", "sdpa_auto")}  # fmt: skip
    return trained, decoded


def test_training_steps_run_and_their_backward_is_on_the_autograd_thread(built):
    trained, _ = built
    for v, r in trained.items():
        assert r.ok, f"{v}: {r.reason}"
        assert r.train_figures.grad_rel_error < 3e-2 and r.train_figures.saved_bytes > 0
        assert r.timing.gpu_ms_median > r.train_figures.fwd_ms_median
        threads = {o.thread for s in r.steps for o in s.cpu_ops}
        assert any(t.startswith("pt_autograd") for t in threads), threads
        a = summary.analyse(r)
        assert a.phases["bwd"] and a.phase_gpu_us["bwd"] > 0, v
    bwd_families = {
        v: {kernels.decode(row.name).family for row in summary.analyse(trained[v]).phases["bwd"]}
        for v in ("sdpa_flash", "sdpa_cudnn")
    }
    assert "flash" in bwd_families["sdpa_flash"] and "cudnn" in bwd_families["sdpa_cudnn"]
    # the math backend keeps the score matrix for the backward: far more memory than a fused backend
    assert trained["sdpa_math"].train_figures.saved_bytes > 4 * trained["sdpa_flash"].train_figures.saved_bytes


def test_decoding_with_grouped_heads(built):
    _, decoded = built
    eff = decoded["sdpa_efficient"]
    assert eff.status == "unsupported" and "num_heads" in eff.reason  # refuses GQA, in PyTorch's words
    for v in ("sdpa_flash", "sdpa_cudnn", "sdpa_auto"):
        r = decoded[v]
        assert r.ok, f"{v}: {r.reason}"
        assert r.timing.rel_error < 2e-2
        d = r.decode_figures
        assert d.read_ceiling_gbs and d.read_ceiling_gbs > 500 and 0 < d.read_fraction < 1.5
    flash = summary.analyse(decoded["sdpa_flash"]).kernels
    assert flash and all(k.info.family == "flash" for k in flash)
    print("\nflash decoding kernels:", [k.info.short for k in flash])


def test_the_cuda_graph_replays_the_step_with_one_launch(built):
    _, decoded = built
    g = decoded["sdpa_auto"].decode_figures.graph
    assert g.status == "ok", g.reason
    assert g.replay_matches and g.graph_cpu_us < g.eager_cpu_us
    assert abs(g.graph_gpu_us / g.eager_gpu_us - 1) < 0.5
    (row,) = Build({"decode": [summary.analyse(decoded["sdpa_auto"])]}).graph_rows()
    assert row.graph_launches == 1 and row.graph_launch_api == "cudaGraphLaunch"


def test_the_read_ceiling_is_measured_once_per_process():
    first = timing.read_bandwidth("cuda")
    assert first is not None and first[0] > 500 and first[1] == timing.READ_BYTES
    assert timing.read_bandwidth("cuda") == first
