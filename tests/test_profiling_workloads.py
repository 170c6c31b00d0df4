"""attnprof.measure.profiling.profile with a workload: training and decoding profiled for real on the CPU at small
shapes, their own figures, failure as data, and the arguments it refuses."""

from __future__ import annotations

import pytest

from attnprof import inputs, workloads
from attnprof.analysis import summary
from attnprof.measure import profiling
from attnprof.records import results

TRAIN = inputs.make_setup((1, 2, 32, 16), "float32", "cpu")
DECODE = inputs.make_setup((1, 8, 1, 16), "float32", "cpu", kv_heads=2, kv_len=48)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("train")
    return {v: profiling.profile(v, TRAIN, workload="train", save_to=out) for v in ("naive", "sdpa_math")}, out


def test_a_training_step_is_profiled_with_its_forward_and_backward(trained):
    res, _ = trained
    r = res["naive"]
    assert r.ok, r.reason
    assert (r.workload, r.kv_heads, r.kv_len) == ("train", None, None)
    assert len(r.steps) == 3
    names = {o.name for o in r.steps[0].cpu_ops}
    assert {"naive_fwd", "naive_bwd", "aten::matmul"} <= names
    assert any(n.endswith("Backward0") for n in names)  # the autograd engine's ops
    a = summary.analyse(r)
    assert list(a.phases) == ["fwd", "bwd"]
    # on the CPU the backward runs on the calling thread, nested under the naive_bwd annotation
    bwd = next(i for i, o in enumerate(r.steps[0].cpu_ops) if o.name == "naive_bwd")
    under = [o for o in r.steps[0].cpu_ops if o.parent == bwd]
    assert under and all(o.thread == "" for o in r.steps[0].cpu_ops)


def test_training_figures(trained):
    res, _ = trained
    for r in res.values():
        t, f = r.timing, r.train_figures
        assert t.flops == workloads.train_flops(TRAIN) and t.rel_error < 1e-5
        assert f.grad_rel_error < 1e-5 and f.fwd_repetitions >= 15
        assert 0 < f.fwd_ms_p10 <= f.fwd_ms_median <= f.fwd_ms_p90
        assert f.saved_bytes is None  # no allocator counter on the CPU
        assert r.decode_figures is None


def test_training_results_are_saved_under_their_workload(trained):
    res, out = trained
    path = out / results.result_filename("naive", TRAIN.shape, TRAIN.dtype, TRAIN.device, "train")
    assert path.name == "naive__train__1x2x32x16__float32__cpu.json"
    assert results.load(path) == res["naive"]
    assert results.find(out, "naive", "train") == [path] and results.find(out, "naive") == []


def test_a_decoding_step_with_grouped_heads():
    r = profiling.profile("sdpa_math", DECODE, workload="decode", graph=True)
    assert r.ok, r.reason
    assert (r.workload, r.shape, r.kv_heads, r.kv_len) == ("decode", [1, 8, 1, 16], 2, 48)
    assert r.timing.rel_error < 1e-5 and r.timing.flops == workloads.decode_flops(DECODE)
    d = r.decode_figures
    assert d.bytes == workloads.decode_bytes(DECODE)
    assert d.gbs == pytest.approx(d.bytes / (r.timing.gpu_ms_median * 1e-3) / 1e9)
    assert d.read_ceiling_gbs is None and d.read_fraction is None  # no ceiling on the CPU
    assert d.graph.status == "no_cuda" and "CUDA device" in d.graph.reason  # failure is data
    assert r.stem == "sdpa_math__decode__1x8x1x16_kv2x48__float32__cpu"
    assert all(o.name != "sdpa_math_decode" for o in r.steps[0].cpu_ops)  # the annotation is the step itself
    assert "aten::scaled_dot_product_attention" in r.steps[0].op_counts()


def test_a_cuda_only_variant_records_why_it_cannot_decode_here():
    r = profiling.profile("sdpa_cudnn", DECODE, workload="decode")
    assert r.status == "no_cuda" and "runs on: cuda" in r.reason
    assert r.workload == "decode" and r.kv_len == 48


def test_refused_arguments():
    with pytest.raises(ValueError, match="does not take part in the decode workload"):
        profiling.profile("naive_inplace", DECODE, workload="decode")
    with pytest.raises(ValueError, match="unknown workload 'inference'"):
        profiling.profile("naive", TRAIN, workload="inference")
    with pytest.raises(ValueError, match="belongs to the decode workload, not 'train'"):
        profiling.profile("naive", DECODE, workload="train")
