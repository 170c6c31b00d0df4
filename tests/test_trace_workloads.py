"""attnprof.records.trace on the 2xH200 workload recordings: the backward of a training step on the autograd thread,
decoding steps, CUDA-graph replays, context-parallel traces with ``INVALID`` runtime events; and small synthetic
traces for the fallback and for threads that are not the autograd engine's."""

from __future__ import annotations

import pytest

from attnprof.records import trace
from helpers import DECODE_FIXTURES, TRACE_VARIANTS, TRAIN_VARIANTS, raw_trace, workload_trace

LAUNCH = ("cuda_runtime", "cuda_driver")
GPU = ("kernel", "gpu_memcpy", "gpu_memset")


def _x(path: str) -> list[dict]:
    return [e for e in workload_trace(path)["traceEvents"] if e.get("ph") == "X"]


def _marks(path: str, name: str) -> list[dict]:
    return sorted((e for e in _x(path) if e.get("cat") == "user_annotation" and e["name"] == name),
                  key=lambda e: e["ts"])  # fmt: skip


def test_the_training_fixtures_name_their_autograd_thread():
    for v in TRAIN_VARIANTS:
        threads = trace.autograd_threads(workload_trace(f"train/{v}"))
        assert list(threads.values()) == ["pt_autograd_0"], v
    for v in TRACE_VARIANTS:  # forward-only traces: no engine thread, nothing changes for them
        assert trace.autograd_threads(raw_trace(v)) == {}


@pytest.mark.parametrize("variant", TRAIN_VARIANTS)
def test_the_backward_step_has_the_autograd_threads_ops_and_kernels(variant):
    path = f"train/{variant}"
    events = _x(path)
    (engine,) = trace.autograd_threads(workload_trace(path))
    steps = trace.parse_trace(workload_trace(path), f"{variant}_bwd")
    assert len(steps) == 3
    for mark, step in zip(_marks(path, f"{variant}_bwd"), steps, strict=True):
        lo, hi = mark["ts"], mark["ts"] + mark["dur"]
        # the annotating thread records nothing inside the backward's range: everything is the engine's
        assert not [e for e in events if (e["pid"], e["tid"]) == (mark["pid"], mark["tid"]) and lo < e["ts"] < hi]
        assert step.cpu_ops and {o.thread for o in step.cpu_ops} == {"pt_autograd_0"}
        assert any(o.name.startswith(trace.AUTOGRAD_OP) for o in step.cpu_ops if o.depth == 0)
        launches = {e["args"]["correlation"] for e in events if e["cat"] in LAUNCH
                    and (e["pid"], e["tid"]) == engine and lo <= e["ts"] and e["ts"] + e["dur"] <= hi}  # fmt: skip
        expected = sorted(e["args"]["correlation"] for e in events if e["cat"] in GPU
                          and e["args"].get("correlation") in launches)  # fmt: skip
        assert expected and sorted(a.correlation for a in step.activities) == expected
        for o in step.cpu_ops:  # nesting stays on one thread
            if o.parent is not None:
                assert step.cpu_ops[o.parent].thread == o.thread and step.cpu_ops[o.parent].depth == o.depth - 1


@pytest.mark.parametrize("variant", TRAIN_VARIANTS)
def test_the_training_step_holds_forward_and_backward(variant):
    path = f"train/{variant}"
    whole = trace.parse_trace(workload_trace(path), f"{variant}_train")
    fwd = trace.parse_trace(workload_trace(path), f"{variant}_fwd")
    bwd = trace.parse_trace(workload_trace(path), f"{variant}_bwd")
    for w, f, b in zip(whole, fwd, bwd, strict=True):
        corr = sorted(a.correlation for a in w.activities)
        assert corr == sorted(a.correlation for a in [*f.activities, *b.activities])
        main = [o for o in w.cpu_ops if not o.thread]
        assert [o.name for o in main if o.depth == 0] == [f"{variant}_fwd", f"{variant}_bwd"]
        assert len(w.cpu_ops) == len(main) + len(b.cpu_ops)


def test_the_backward_kernels_of_flash_and_cudnn():
    names = {a.name.split("<")[0].removeprefix("void ") for s in trace.parse_trace(
        workload_trace("train/sdpa_flash"), "sdpa_flash_bwd") for a in s.kernels}  # fmt: skip
    assert {"pytorch_flash::flash_bwd_dot_do_o_kernel", "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
            "pytorch_flash::flash_bwd_convert_dq_kernel"} <= names  # fmt: skip
    cudnn = trace.parse_trace(workload_trace("train/sdpa_cudnn"), "sdpa_cudnn_bwd")[0]
    assert any(a.name.startswith("cudnn_generated_fort_native_sdpa_sm90_flash_bprop") for a in cudnn.kernels)
    assert {a.launch_api for a in cudnn.kernels} >= {"cuLaunchKernelEx"}


@pytest.mark.parametrize(("variant", "length"), [(v, n) for v in DECODE_FIXTURES for n in (8192, 131072)])
def test_decoding_steps(variant, length):
    name = DECODE_FIXTURES[variant]
    steps = trace.parse_trace(workload_trace(f"decode/{name}-L{length}"), f"{name}_decode")
    assert len(steps) == 3 and all(s.kernels for s in steps)
    kinds = {a.name.split("<")[0].removeprefix("void ") for a in steps[0].kernels}
    if variant == "sdpa_flash":
        assert kinds == {"pytorch_flash::flash_fwd_splitkv_kernel", "pytorch_flash::flash_fwd_splitkv_combine_kernel"}
    if variant in ("sdpa_cudnn", "sdpa_auto"):
        assert "cudnn::fusion::lean_reduction_kernel" in kinds
    if variant == "flex":
        assert len(steps[0].kernels) == 6  # one Triton attention kernel and five small ones for the mask


@pytest.mark.parametrize("variant", ["sdpa_auto", "sdpa_flash", "sdpa_cudnn"])
def test_a_graph_replay_is_one_launch_whose_correlation_every_kernel_shares(variant):
    raw = workload_trace(f"graph/decode_graph-{variant}")
    replays = trace.parse_trace(raw, "decode_graph")
    eager = trace.parse_trace(raw, "decode_eager")
    assert len(replays) == len(eager) == 5
    for r, e in zip(replays, eager, strict=True):
        launches = [o for o in r.cpu_ops if o.category in LAUNCH and o.name.startswith("cuda")]
        assert [o.name for o in launches if "Launch" in o.name] == ["cudaGraphLaunch"]
        assert len({a.correlation for a in r.activities}) == 1 and len(r.kernels) == len(e.kernels) == 2
        assert {a.launch_api for a in r.activities} == {"cudaGraphLaunch"}
        assert len({a.correlation for a in e.activities}) == 2  # eager: one launch per kernel


def test_context_parallel_traces_with_invalid_runtime_events_parse():
    path = "cp/fwd_bwd-allgather-S32768-rank0"
    raw = workload_trace(path)
    assert any(e.get("name") == "INVALID" for e in raw["traceEvents"])
    threads = trace.autograd_threads(raw)
    assert sorted(threads.values()) == ["pt_autograd_0"]  # gloo's run loops are not the engine
    bwd = trace.parse_trace(raw, "cp_bwd")
    assert len(bwd) == 3 and all(s.kernels for s in bwd)
    assert {o.thread for s in bwd for o in s.cpu_ops} <= {"", "pt_autograd_0"}
    fwd = trace.parse_trace(workload_trace("cp/allgather-S32768-rank0"), "cp_allgather")
    assert len(fwd) == 3 and any(a.name.startswith("ncclDevKernel") for s in fwd for a in s.kernels)


# --- synthetic: the fallback without thread names, and a thread that is not the engine's --------------------------


def _event(name, cat, ts, dur, tid, **args):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": args}


def _synthetic(with_names: bool) -> dict:
    events = [
        _event("v_bwd", "user_annotation", 100.0, 50.0, 1),
        _event("autograd::engine::evaluate_function: MulBackward0", "cpu_op", 110.0, 20.0, 2),
        _event("cudaLaunchKernel", "cuda_runtime", 115.0, 2.0, 2, correlation=7),
        _event("k_bwd", "kernel", 120.0, 5.0, 9, correlation=7, stream=7),
        _event("gloo:send", "cpu_op", 112.0, 10.0, 3),  # another thread in the window: not part of the step
        _event("cudaLaunchKernel", "cuda_runtime", 113.0, 1.0, 3, correlation=8),
        _event("k_other", "kernel", 118.0, 5.0, 9, correlation=8, stream=7),
    ]
    meta = []
    if with_names:
        meta = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": t, "args": {"name": f"thread {t} ({n})"}}
                for t, n in ((1, "python3"), (2, "pt_autograd_0"), (3, "pt_gloo_runloop"))]  # fmt: skip
    return {"traceEvents": meta + events}


@pytest.mark.parametrize("with_names", [True, False])
def test_only_the_autograd_thread_joins_the_step(with_names):
    (step,) = trace.parse_trace(_synthetic(with_names), "v_bwd")
    assert [a.name for a in step.activities] == ["k_bwd"]
    assert [o.name for o in step.cpu_ops] == ["autograd::engine::evaluate_function: MulBackward0", "cudaLaunchKernel"]
    assert step.cpu_ops[1].parent == 0 and step.cpu_ops[1].depth == 1
    assert {o.thread for o in step.cpu_ops} == {"pt_autograd_0" if with_names else "thread 2"}
