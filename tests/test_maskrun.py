"""Measuring attention under masks on the CPU, at small sizes: every case either ran (with a time, an error against
the float64 reference and a trace) or says why in PyTorch's words; the dense mask is the mask_mod evaluated; the
block mask skips what the mask leaves out; nested tensors compute the packed documents' attention."""

from __future__ import annotations

import gzip
import json

import pytest

from attnprof import inputs, workloads
from attnprof.measure import maskrun
from attnprof.records import masks as records
from attnprof.workloads import Geometry


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("masks")
    plan = maskrun.default_plan("cpu")
    plan = maskrun.MaskPlan("cpu", plan.bhd, plan.seqs, plan.windows, trace_seqs=plan.seqs, check_seqs=plan.seqs)
    return maskrun.run(plan, save_to=out), out


def _case(run, mask, method, workload="prefill"):
    return next(c for c in run.cases if (c.mask, c.method, c.workload) == (mask, method, workload))


def test_every_case_ran_or_says_why(cpu_run):
    run, _ = cpu_run
    assert len(run.cases) == len(workloads.MASKS) * len(workloads.METHODS) * len(maskrun.WORKLOADS)
    for case in run.cases:
        assert case.status in records.STATUSES
        assert (case.time_ms is not None) == (case.status == "ok"), case
        assert (case.issue_us is not None) == (case.status == "ok"), case  # the CPU's issue time, beside the time
        assert case.status == "ok" or case.reason, case


def test_what_the_cpu_cannot_run_is_named(cpu_run):
    run, _ = cpu_run
    flex = _case(run, "documents", "flex")
    assert flex.status == "not_measured" and "CPU" in (flex.reason or "")
    efficient = _case(run, "prefix_lm", "sdpa_efficient")
    assert efficient.status == "no_cuda" and "cuda" in (efficient.reason or "")
    nested = _case(run, "documents", "nested", "train")  # math, the CPU's only nested path, refuses causal
    assert nested.status == "unsupported" and "is_causal" in (nested.reason or "")
    assert _case(run, "sliding_window", "nested").status == "not_applicable"


def test_what_ran_computes_the_masked_attention(cpu_run):
    run, _ = cpu_run
    checked = [c for c in run.cases if c.rel_error is not None]
    assert {c.method for c in checked} >= {"sdpa_math", "sdpa_auto", "naive"}
    assert all(c.rel_error < 2e-2 for c in checked), [(c.mask, c.method, c.rel_error) for c in checked]
    assert _case(run, "sliding_window", "sdpa_math").ran == "MATH"


def test_traces_and_the_file_are_written(cpu_run):
    run, out = cpu_run
    path = records.save(run, out)
    back = records.load(path)
    traced = [c for c in back.cases if c.trace_file]
    assert traced and all((out / c.trace_file).is_file() for c in traced)
    assert all(any(n.startswith("aten::") for n, _ in c.kernels) for c in traced)
    trace = json.loads(gzip.decompress((out / traced[0].trace_file).read_bytes()))
    assert any(traced[0].mask in str(e.get("name", "")) for e in trace["traceEvents"])
    assert all(b.status == "ok" and b.time_ms and b.launches > 0 and b.trace_file for b in back.builds)
    # the dense mask's build is timed beside the block mask's: what a new batch costs the dense-mask methods
    assert all(b.dense_ms is not None and b.dense_ms.median > 0 for b in back.builds)
    assert back.cases == run.cases and back.builds == run.builds  # every figure read back as written


def test_the_dense_mask_is_the_mask_mod_evaluated():
    g = Geometry(2, 32, window=5, prefix=8)
    for mask in workloads.MASKS.values():
        dense = maskrun.dense_mask(mask, g, "cpu")
        assert int(dense.expand(2, 1, 32, 32).sum()) == mask.pairs(g), mask.name


def test_the_block_mask_skips_blocks_the_mask_leaves_out():
    g = Geometry(1, 1024, window=128)
    build = maskrun.measure_build(workloads.get_mask("sliding_window"), g, "cpu")
    assert build.status == "ok"
    assert build.kept_blocks == pytest.approx(15 / 64)  # 8 query blocks of 128: the diagonal and the one before
    assert build.density == pytest.approx(workloads.get_mask("sliding_window").density(g))


def test_nested_tensors_compute_each_document_on_its_own(monkeypatch):
    import torch
    import torch.nn.functional as F

    # the CPU refuses causal nested tensors; without is_causal, nested attention is each whole document's
    monkeypatch.setattr(maskrun, "nested_sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v))
    g = Geometry(2, 64)
    setup = inputs.make_setup((2, 2, 64, 8), "float32", "cpu")
    p = maskrun.prepare(workloads.get_method("nested"), workloads.get_mask("documents"), g, setup, True, {})
    maskrun.step(p, True)()
    assert all(t.grad is not None and t.grad.shape == (2, 64, 2, 8) for t in p.leaves)
    with torch.no_grad():
        out = p.output(p.forward())
    doc = maskrun.document_tensor(g, "cpu")
    same_doc = doc[:, None, :, None] == doc[:, None, None, :]
    ref = maskrun.reference(*p.heads_first(), same_doc)
    assert inputs.relative_error(out, ref) < 1e-5


def test_bad_arguments_are_named():
    assert maskrun.seqs_arg("4096,8192", "--seqs") == (4096, 8192)
    with pytest.raises(ValueError, match=r"bad --seqs '4k'; expected comma-separated positive integers"):
        maskrun.seqs_arg("4k", "--seqs")
    with pytest.raises(ValueError, match=r"bad --windows '0'"):
        maskrun.seqs_arg("0", "--windows")
    with pytest.raises(ValueError, match=r"unknown method 'flx'; choose from: flex, "):
        maskrun.names_arg("flex,flx", tuple(workloads.METHODS), "method")
