"""attnprof.records.trace against the H200 fixture traces, cross-checked with the raw events, and against small
synthetic traces for the edge cases the fixtures do not have."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from attnprof import variants
from attnprof.analysis import summary
from attnprof.records import trace
from attnprof.records.results import Environment, Result, StepTrace
from helpers import TRACE_VARIANTS, TRACES
from helpers import annotation_marks as _marks
from helpers import fixture_steps as _steps
from helpers import raw_events as _x
from helpers import raw_trace as _raw

VARIANTS = list(TRACE_VARIANTS)
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
B, H, S, D = 8, 16, 1024, 64  # the fixtures' shape


def test_fixtures_are_all_there():
    assert set(VARIANTS) >= set(variants.VARIANTS)


# --- parse_trace on the fixtures: cross-checks with the raw events --------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_step_per_annotation_in_time_order(variant):
    marks = _marks(variant)
    steps = _steps(variant)
    assert len(marks) == 3  # schedule(wait=1, warmup=1, active=3)
    assert [s.index for s in steps] == list(range(len(marks)))
    assert [s.cpu_time_us for s in steps] == pytest.approx([m["dur"] for m in marks], abs=1e-3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_activities_are_the_gpu_events_launched_inside_the_annotation(variant):
    """Recompute the step's GPU events the plain way (absolute times, no nesting) and compare."""
    events = _x(variant)
    for mark, step in zip(_marks(variant), _steps(variant), strict=True):
        lo, hi = mark["ts"], mark["ts"] + mark["dur"]
        launches = {
            e["args"]["correlation"]: e
            for e in events
            if e["cat"] in ("cuda_runtime", "cuda_driver")
            and (e["pid"], e["tid"]) == (mark["pid"], mark["tid"])
            and lo <= e["ts"]
            and e["ts"] + e["dur"] <= hi
        }
        expected = [e for e in events if e["cat"] in GPU_CATS and e["args"]["correlation"] in launches]
        assert sorted(a.correlation for a in step.activities) == sorted(e["args"]["correlation"] for e in expected)
        for a in step.activities:
            launch = launches[a.correlation]
            assert a.launch_api == launch["name"]
            assert a.launch_start_us == pytest.approx(launch["ts"] - lo, abs=2e-3)
            assert a.launch_duration_us == pytest.approx(launch["dur"], abs=1e-3)
            # causality: the GPU cannot start the work before the CPU began asking for it
            assert a.start_us >= a.launch_start_us


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_gpu_event_belongs_to_exactly_one_step(variant):
    # In these traces every launch happens inside the annotated call (the rest of a step is only synchronize).
    n_gpu = sum(1 for e in _x(variant) if e["cat"] in GPU_CATS)
    corrs = [a.correlation for s in _steps(variant) for a in s.activities]
    assert len(corrs) == n_gpu == len(set(corrs))


@pytest.mark.parametrize("variant", VARIANTS)
def test_activity_fields_mirror_the_raw_event(variant):
    raw = {e["args"]["correlation"]: e for e in _x(variant) if e["cat"] in GPU_CATS}
    for mark, step in zip(_marks(variant), _steps(variant), strict=True):
        starts = [a.start_us for a in step.activities]
        assert starts == sorted(starts)
        for a in step.activities:
            e = raw[a.correlation]
            args = e["args"]
            assert a.name == e["name"]
            assert a.kind == {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}[e["cat"]]
            assert a.start_us == pytest.approx(e["ts"] - mark["ts"], abs=2e-3)
            assert a.duration_us == pytest.approx(e["dur"], abs=1e-3)
            assert a.stream == args["stream"]
            if a.kind == "kernel":
                assert a.grid == args["grid"] and a.block == args["block"]
                assert a.registers_per_thread == args["registers per thread"]
                assert a.shared_memory == args["shared memory"]
                assert a.blocks_per_sm == args["blocks per SM"]
                assert a.warps_per_sm == args["warps per SM"]
                assert a.reported_occupancy == args["est. achieved occupancy %"]
                assert a.bytes is None
            else:
                assert a.bytes == args["bytes"]
                assert a.grid is a.block is a.registers_per_thread is a.reported_occupancy is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_gpu_time_and_span(variant):
    for step in _steps(variant):
        assert step.gpu_time_us == pytest.approx(sum(a.duration_us for a in step.activities), abs=1e-3)
        first = min(a.start_us for a in step.activities)
        last = max(a.start_us + a.duration_us for a in step.activities)
        assert step.gpu_span_us == pytest.approx(last - first, abs=1e-3)
        # the GPU's busy time cannot exceed its span (a single stream here: no overlap)
        assert step.gpu_time_us <= step.gpu_span_us + 1e-3


@pytest.mark.parametrize("variant", VARIANTS)
def test_cpu_ops_are_the_thread_events_inside_the_annotation(variant):
    events = _x(variant)
    for mark, step in zip(_marks(variant), _steps(variant), strict=True):
        lo, hi = mark["ts"], mark["ts"] + mark["dur"]
        expected = Counter(
            (e["cat"], e["name"])
            for e in events
            if e["cat"] in trace.CPU_CATEGORIES
            and (e["pid"], e["tid"]) == (mark["pid"], mark["tid"])
            and e is not mark
            and lo <= e["ts"]
            and e["ts"] + e["dur"] <= hi
        )
        assert Counter((o.category, o.name) for o in step.cpu_ops) == expected
        assert all(0 <= o.start_us and o.start_us + o.duration_us <= step.cpu_time_us + 1e-3 for o in step.cpu_ops)


@pytest.mark.parametrize("variant", VARIANTS)
def test_cpu_op_tree_is_consistent(variant):
    for step in _steps(variant):
        ops = step.cpu_ops
        assert [o.start_us for o in ops] == sorted(o.start_us for o in ops)
        for i, o in enumerate(ops):
            if o.parent is None:
                assert o.depth == 0
                continue
            p = ops[o.parent]
            assert o.parent < i
            assert o.depth == p.depth + 1
            assert p.start_us <= o.start_us + 1e-3
            assert o.start_us + o.duration_us <= p.start_us + p.duration_us + 1e-3
        # the parent is the innermost container: no later sibling of the parent also contains the op
        for i, o in enumerate(ops):
            containers = [
                j
                for j, p in enumerate(ops[:i])
                if p.start_us <= o.start_us + 1e-3 and o.start_us + o.duration_us <= p.start_us + p.duration_us + 1e-3
            ]
            assert o.parent == (max(containers, key=lambda j: ops[j].depth) if containers else None)


def _ancestors(step: StepTrace, i: int) -> list[str]:
    names = []
    while step.cpu_ops[i].parent is not None:
        i = step.cpu_ops[i].parent
        names.append(step.cpu_ops[i].name)
    return names


def _launch_index(step: StepTrace, api: str) -> int:
    return next(i for i, o in enumerate(step.cpu_ops) if o.name == api)


def test_flash_launch_sits_under_the_flash_op():
    for step in _steps("sdpa_flash"):
        chain = _ancestors(step, _launch_index(step, "cudaLaunchKernel"))
        assert chain == [
            "aten::_flash_attention_forward",
            "aten::_scaled_dot_product_flash_attention",
            "aten::scaled_dot_product_attention",
        ]


def test_naive_memcpy_comes_from_masked_fill_cloning_its_input():
    for step in _steps("naive"):
        chain = _ancestors(step, _launch_index(step, "cudaMemcpyAsync"))
        assert chain == ["aten::copy_", "aten::clone", "aten::masked_fill"]


def test_compiled_graph_annotation_nests_the_triton_launch():
    for step in _steps("flex"):
        chain = _ancestors(step, _launch_index(step, "cuLaunchKernel"))
        assert chain[0] == "triton_tem_fused_flex_attention_0"
        assert chain[1].startswith("## Call CompiledFxGraph")
        graph = next(o for o in step.cpu_ops if o.name == chain[1])
        assert graph.category == "user_annotation"


# --- known facts about the variants ---------------------------------------------------------------------------------


def test_sdpa_flash_is_one_kernel_per_step_launched_by_cudaLaunchKernel():
    for step in _steps("sdpa_flash"):
        assert len(step.activities) == len(step.kernels) == 1
        k = step.kernels[0]
        assert k.launch_api == "cudaLaunchKernel"
        assert k.registers_per_thread == 255
        assert k.threads_per_block == 128
        assert "flash_fwd_kernel" in k.name


@pytest.mark.parametrize("variant", ["sdpa_cudnn", "sdpa_auto"])
def test_cudnn_kernel_is_launched_by_cuLaunchKernelEx(variant):
    for step in _steps(variant):
        (k,) = step.kernels
        assert k.name.startswith("cudnn_generated_fort_native_sdpa")
        assert k.launch_api == "cuLaunchKernelEx"


def test_naive_copies_the_score_matrix_once_per_step_and_inplace_does_not():
    for step in _steps("naive"):
        (copy,) = [a for a in step.activities if a.kind == "memcpy"]
        assert copy.name == "Memcpy DtoD (Device -> Device)"
        assert copy.launch_api == "cudaMemcpyAsync"
        assert copy.bytes == B * H * S * S * 2  # the bf16 score matrix that masked_fill clones
    for step in _steps("naive_inplace"):
        assert not [a for a in step.activities if a.kind == "memcpy"]
        assert "aten::clone" not in step.op_counts()


def test_transpose_counts():
    # sdpa_math transposes K once for Q @ K^T; the fused backends transpose q, k, v in and the output back out
    assert summary.op_counts(list(_steps("sdpa_math")))["aten::transpose"] == 1
    assert summary.op_counts(list(_steps("sdpa_flash")))["aten::transpose"] == 4
    assert summary.op_counts(list(_steps("sdpa_efficient")))["aten::transpose"] == 4


def test_sdpa_math_launches_twenty_kernels_two_of_them_gemms_via_ExC():
    for step in _steps("sdpa_math"):
        assert len(step.kernels) == 20
        apis = Counter(k.launch_api for k in step.kernels)
        assert apis == {"cudaLaunchKernel": 18, "cudaLaunchKernelExC": 2}
        assert all("gemm" in k.name for k in step.kernels if k.launch_api == "cudaLaunchKernelExC")


def test_compiled_kernels_launch_through_the_driver_api():
    for variant in ("flex", "compiled_naive"):
        for step in _steps(variant):
            for k in step.kernels:
                assert k.launch_api in ("cuLaunchKernel", "cuLaunchKernelEx")
                if k.name.startswith("triton_"):
                    assert k.launch_api == "cuLaunchKernel"


# --- errors and synthetic traces ------------------------------------------------------------------------------------


def test_unknown_annotation_names_the_ones_that_exist():
    with pytest.raises(ValueError) as err:
        trace.parse_trace(_raw("sdpa_flash"), "sdpa_flsh_fwd")
    msg = str(err.value)
    assert "'sdpa_flsh_fwd'" in msg
    assert "sdpa_flash_fwd" in msg
    assert "ProfilerStep#*" in msg and "ProfilerStep#2" not in msg


def test_no_events_at_all():
    with pytest.raises(ValueError, match="annotations present: none"):
        trace.parse_trace({"traceEvents": []}, "x")


def _ev(cat, name, ts, dur, pid=1, tid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def _synthetic() -> dict:
    t = 1_000_000_000.0
    return {
        "deviceProperties": [{"id": 0, "name": "A"}, {"id": 1, "name": "B"}],
        "cupti_version": 130001,
        "traceEvents": [
            _ev("user_annotation", "fwd", t + 100, 50),
            _ev("user_annotation", "fwd", t, 50),  # out of order on purpose
            _ev("cpu_op", "aten::outer", t + 5, 40),
            _ev("cpu_op", "aten::inner", t + 10, 10),
            _ev("cuda_runtime", "cudaLaunchKernel", t + 12, 3, correlation=1),
            _ev("cuda_runtime", "cudaMemcpyAsync", t + 30, 2, correlation=2),
            _ev("cuda_driver", "cuGraphLaunch", t + 110, 5, correlation=3),
            _ev("cpu_op", "aten::other_thread", t + 10, 5, tid=2),
            _ev("cpu_op", "aten::straddles", t + 45, 10),
            _ev("cuda_runtime", "cudaLaunchKernel", t + 60, 3, correlation=4),  # between the annotations
            _ev("kernel", "k1", t + 20, 4, pid=0, tid=7, correlation=1, stream=7, grid=[1, 1, 1], block=[64, 1, 1]),
            _ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", t + 33, 2, pid=0, tid=7, correlation=2, bytes=8),
            _ev("kernel", "g2", t + 130, 1, pid=0, tid=7, correlation=3),
            _ev("kernel", "g1", t + 120, 1, pid=0, tid=7, correlation=3),
            _ev("kernel", "orphan", t + 70, 1, pid=0, tid=7, correlation=4),
            {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
        ],
    }


def test_synthetic_nesting_threads_and_edges():
    s0, s1 = trace.parse_trace(_synthetic(), "fwd")
    assert (s0.index, s0.cpu_time_us, s1.index) == (0, 50.0, 1)
    names = [o.name for o in s0.cpu_ops]
    assert names == ["aten::outer", "aten::inner", "cudaLaunchKernel", "cudaMemcpyAsync"]
    assert [o.depth for o in s0.cpu_ops] == [0, 1, 2, 1]
    assert [o.parent for o in s0.cpu_ops] == [None, 0, 1, 0]
    assert [o.start_us for o in s0.cpu_ops] == [5.0, 10.0, 12.0, 30.0]
    k, m = s0.activities
    assert (k.kind, k.name, k.start_us, k.launch_start_us, k.grid, k.block) == (
        "kernel",
        "k1",
        20.0,
        12.0,
        [1, 1, 1],
        [64, 1, 1],
    )
    assert k.registers_per_thread is None and k.reported_occupancy is None
    assert (m.kind, m.bytes, m.launch_api) == ("memcpy", 8, "cudaMemcpyAsync")
    assert (s0.gpu_time_us, s0.gpu_span_us) == (6.0, 15.0)


def test_synthetic_one_launch_many_kernels():
    _, s1 = trace.parse_trace(_synthetic(), "fwd")
    assert [a.name for a in s1.activities] == ["g1", "g2"]  # sorted by start, both from the one graph launch
    assert {a.launch_api for a in s1.activities} == {"cuGraphLaunch"}
    assert s1.gpu_span_us == 11.0 and s1.gpu_time_us == 2.0


def test_same_start_nests_the_longer_event_outside():
    t = {
        "traceEvents": [
            _ev("user_annotation", "fwd", 0.0, 100),
            _ev("cpu_op", "aten::_to_copy", 10.0, 20),  # listed first, but the shorter one
            _ev("cpu_op", "aten::to", 10.0, 30),
            _ev("cpu_op", "aten::copy_", 10.0, 20),  # identical interval: nests under the earlier-listed one
        ]
    }
    (s,) = trace.parse_trace(t, "fwd")
    assert [(o.name, o.depth, o.parent) for o in s.cpu_ops] == [
        ("aten::to", 0, None),
        ("aten::_to_copy", 1, 0),
        ("aten::copy_", 2, 1),
    ]


def test_step_without_gpu_work():
    t = {"traceEvents": [_ev("user_annotation", "fwd", 0.0, 10), _ev("cpu_op", "aten::add", 1.0, 2)]}
    (s,) = trace.parse_trace(t, "fwd")
    assert s.activities == [] and s.gpu_time_us == 0.0 and s.gpu_span_us == 0.0
    assert [o.name for o in s.cpu_ops] == ["aten::add"]


def test_device_properties_and_metadata():
    raw = _raw("sdpa_flash")
    props = trace.device_properties(raw)
    assert props == raw["deviceProperties"][0]
    assert props["name"] == "NVIDIA H200" and props["numSms"] == 132
    props["numSms"] = 0  # a copy: the trace is untouched
    assert raw["deviceProperties"][0]["numSms"] == 132
    assert trace.device_properties({}) == {}
    assert trace.device_properties({"deviceProperties": []}) == {}
    assert trace.device_properties(_synthetic(), device=1)["name"] == "B"
    assert trace.device_properties(_synthetic(), device=9)["name"] == "A"

    meta = trace.trace_metadata(raw)
    assert meta == {k: raw[k] for k in ("cuda_driver_version", "cuda_runtime_version", "cupti_version")}
    assert trace.trace_metadata(_synthetic()) == {"cupti_version": 130001}


def test_read_trace_reads_gzip_and_plain(tmp_path):
    assert trace.read_trace(TRACES / "flex.json.gz") == _raw("flex")
    plain = tmp_path / "t.json"
    plain.write_text(json.dumps(_synthetic()))
    assert trace.read_trace(plain) == _synthetic()


def test_steps_round_trip_through_the_result_format():
    env = Environment(device_name="NVIDIA H200", torch_version="2.11", python_version="3.11", date="2026")
    res = Result("naive", [B, H, S, D], "bfloat16", "cuda", "ok", env, steps=list(_steps("naive")))
    again = Result.from_dict(json.loads(json.dumps(res.to_dict())))
    assert again.steps == res.steps


# --- launch calls ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_launch_call_is_linked_to_what_it_launched(variant: str):
    for step in _steps(variant):
        calls = trace.launch_calls(step)
        assert [c.start_us for c in calls] == sorted(c.start_us for c in calls)
        linked = {c.correlation: c for c in calls if c.correlation is not None}
        assert set(linked) == {a.correlation for a in step.activities}
        for a in step.activities:
            call = linked[a.correlation]
            assert (call.start_us, call.name) == (a.launch_start_us, a.launch_api)
        runtime = [o for o in step.cpu_ops if o.category in trace.LAUNCH_CATEGORIES]
        assert [c for c in calls if c.category is not None] == [
            trace.LaunchCall(o.start_us, o.duration_us, o.name, o.category, linked_to(o, step)) for o in runtime
        ]


def linked_to(op, step: StepTrace) -> int | None:
    return next((a.correlation for a in step.activities if a.launch_start_us == op.start_us), None)


def test_a_launch_only_the_activity_records_is_added_under_its_api():
    step = _steps("sdpa_flash")[0]
    runtime = {o.start_us for o in step.cpu_ops if o.category in trace.LAUNCH_CATEGORIES}
    # drop the runtime calls from the CPU side: the activities still name and time them
    bare = StepTrace(step.index, step.cpu_time_us, step.gpu_time_us, step.gpu_span_us, step.activities,
                     [o for o in step.cpu_ops if o.start_us not in runtime])  # fmt: skip
    calls = trace.launch_calls(bare)
    assert [(c.name, c.category, c.correlation) for c in calls] == [
        (a.launch_api, None, a.correlation) for a in step.activities
    ]
