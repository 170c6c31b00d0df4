"""Profiling for real on the CPU at small shapes; failure as data; argument checking."""

import json
import os
import signal
import time
import warnings

import pytest
import torch

from attnprof import inputs, variants
from attnprof.measure import cost, interrupts, profiling
from attnprof.measure.timing import DEFAULT_PLAN
from attnprof.records import results
from attnprof.render import report

SMALL = inputs.make_setup((1, 2, 64, 32), "float32", "cpu")


@pytest.fixture(scope="module")
def naive_pair(tmp_path_factory):
    out = tmp_path_factory.mktemp("res")
    return (
        profiling.profile("naive", SMALL, save_to=out),
        profiling.profile("naive_inplace", SMALL, save_to=out),
        out,
    )


def test_profile_records_three_active_steps_of_the_annotation(naive_pair):
    naive, _, _ = naive_pair
    assert naive.status == "ok", naive.reason
    assert len(naive.steps) == 3
    for step in naive.steps:
        assert step.cpu_time_us > 0
        names = {op.name for op in step.cpu_ops}
        assert {"aten::matmul", "aten::softmax", "aten::masked_fill"} <= names
        # nesting: every op with a parent starts inside it
        for op in step.cpu_ops:
            if op.parent is not None:
                parent = step.cpu_ops[op.parent]
                assert parent.start_us <= op.start_us <= parent.start_us + parent.duration_us
                assert op.depth == parent.depth + 1


def test_out_of_place_masked_fill_copies_and_inplace_does_not(naive_pair):
    # The CPU analogue of the article's hidden Memcpy: masked_fill clones the scores first.
    naive, inplace, _ = naive_pair
    assert naive.steps[0].op_counts().get("aten::clone", 0) == 1
    assert "aten::clone" not in inplace.steps[0].op_counts()
    # the clone (and its copy) sits under masked_fill, not elsewhere
    ops = naive.steps[0].cpu_ops
    clone = next(op for op in ops if op.name == "aten::clone")
    assert ops[clone.parent].name == "aten::masked_fill"
    assert inplace.steps[0].op_counts().get("aten::masked_fill_", 0) == 1


def test_timing_fields_are_measured(naive_pair):
    naive, _, _ = naive_pair
    t = naive.timing
    # the plan the sweep uses too: at least `reps` calls, or `reps_slow` when a call takes `slow_ms` or more (a busy
    # machine can make even this tiny call that slow)
    assert t.timer == "perf_counter" and t.repetitions >= min(DEFAULT_PLAN.reps, DEFAULT_PLAN.reps_slow)
    assert 0 < t.gpu_ms_p10 <= t.gpu_ms_median <= t.gpu_ms_p90
    assert t.gpu_ms_lo <= t.gpu_ms_median <= t.gpu_ms_hi and t.gpu.n == t.repetitions
    assert t.dispatch_us_lo <= t.dispatch_us_median <= t.dispatch_us_hi and t.attempts in (1, 2)
    assert t.dispatch_us_median > 0
    assert t.context_us_median is None  # naive forces no backend
    assert t.peak_extra_bytes is None  # no allocator counter on the CPU
    assert t.flops == 2 * 1 * 2 * 64 * 64 * 32
    assert t.tflops == pytest.approx(t.flops / (t.gpu_ms_median * 1e-3) / 1e12)
    assert t.rel_error < 1e-5


def test_forced_backend_measures_its_context():
    res = profiling.profile("sdpa_math", SMALL)
    assert res.ok, res.reason
    assert res.timing.context_us_median > 0
    assert (
        res.steps[0].op_counts().get("aten::_safe_softmax", 0) + res.steps[0].op_counts().get("aten::softmax", 0) >= 1
    )


def test_saved_result_and_trace_load_back(naive_pair):
    naive, _, out = naive_pair
    path = out / results.result_filename("naive", SMALL.shape, SMALL.dtype, SMALL.device)
    loaded = results.load(path)
    assert loaded == naive
    trace = results.load_trace(path, loaded)
    assert any(e.get("name") == "naive_fwd" for e in trace["traceEvents"])


@pytest.mark.parametrize("name", ["sdpa_cudnn", "sdpa_efficient"])
def test_cuda_only_backend_on_cpu_is_a_result_with_pytorchs_reason(name, tmp_path):
    res = profiling.profile(name, SMALL, save_to=tmp_path)
    assert res.status == "no_cuda"
    assert "No viable backend" in res.reason or "No available kernel" in res.reason
    assert "runs on: cuda" in res.reason
    assert results.load(tmp_path / (res.stem + ".json")).reason == res.reason


def test_asking_for_cuda_without_one_says_so():
    if torch.cuda.is_available():
        pytest.fail("this test describes a CPU-only machine; run the gpu selection on the GPU builder")
    res = profiling.profile("sdpa_flash", inputs.make_setup((1, 1, 8, 8), "bf16", "cuda"))
    assert res.status == "no_cuda"
    assert "torch.cuda.is_available() is False" in res.reason


def test_out_of_memory_is_a_status(monkeypatch):
    def boom(seq, device):
        def fn(q, k, v):
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")

        return fn

    fake = variants.Variant("boom", "Boom", "raises OOM", ("cpu",), ("float32",), "none", boom)
    monkeypatch.setitem(variants.VARIANTS, "boom", fake)
    res = profiling.profile("boom", SMALL)
    assert res.status == "oom"
    assert "Tried to allocate 64.00 GiB" in res.reason


def test_unexpected_failure_is_an_error_result(monkeypatch):
    def broken(seq, device):
        return lambda q, k, v: q @ k  # wrong inner dimensions for [.., 64, 32] @ [.., 64, 32]

    monkeypatch.setitem(
        variants.VARIANTS, "broken", variants.Variant("broken", "B", "d", ("cpu",), ("float32",), "none", broken)
    )
    res = profiling.profile("broken", SMALL)
    assert res.status == "error"
    assert "RuntimeError" in res.reason


def test_profile_all_never_raises():
    out = profiling.profile_all(["naive_inplace", "sdpa_cudnn"], SMALL)
    assert [r.status for r in out] == ["ok", "no_cuda"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: profiling.profile("flsh", SMALL), "unknown variant 'flsh'"),
        (lambda: profiling.profile("naive", SMALL, workload="trian"), "unknown workload 'trian'"),
        (lambda: profiling.profile("naive_inplace", workload="decode"), "does not take part in the decode workload"),
    ],
)
def test_bad_arguments_raise_one_line_naming_the_value(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# --- honest status: out of memory on the CPU, the reference check apart, interrupts --------------------------------


def _fake(monkeypatch, name, call):
    """Register a test double whose call is ``call(q, k, v, calls_so_far)``."""
    count = [0]

    def prepare(seq, device):
        def fn(q, k, v):
            count[0] += 1
            return call(q, k, v, count[0])

        return fn

    monkeypatch.setitem(
        variants.VARIANTS,
        name,
        variants.Variant(name, name, "a test double", ("cpu",), ("float32",), "none", prepare),
    )


def test_cpu_out_of_memory_is_oom_with_pytorchs_first_line():
    # the score matrix of this shape is 64 TiB: the CPU allocator refuses it at once
    res = profiling.profile("naive", inputs.make_setup((1, 1, 2**22, 1), "float32", "cpu"))
    assert res.status == "oom"
    assert res.reason.startswith("RuntimeError: [enforce fail at alloc_cpu.cpp")
    assert "DefaultCPUAllocator: can't allocate memory" in res.reason and "\n" not in res.reason
    assert res.reference_check is None  # the variant never ran, so there was nothing to check


def test_memory_error_is_oom_and_unrelated_warnings_stay_out_of_the_reason(monkeypatch):
    def call(q, k, v, n):
        warnings.warn("some unrelated deprecation", DeprecationWarning, stacklevel=1)
        raise MemoryError("no room")

    _fake(monkeypatch, "hog", call)
    res = profiling.profile("hog", SMALL)
    assert (res.status, res.reason) == ("oom", "MemoryError: no room")


def test_a_failing_reference_check_is_recorded_apart_and_the_variant_stays_ok(monkeypatch):
    def reference(q, k, v):
        return torch.empty(2**62, dtype=torch.uint8)  # the real CPU allocator's refusal

    monkeypatch.setattr(inputs, "reference_attention", reference)  # the workloads' check calls it through inputs
    res = profiling.profile("naive", SMALL)
    assert res.status == "ok" and res.steps and res.timing is not None
    assert res.reference_check == "oom" and res.timing.rel_error is None
    assert res.reference_reason.startswith("RuntimeError: [enforce fail at alloc_cpu.cpp")
    assert "reference check oom: RuntimeError" in report.summary(res)
    assert results.Result.from_dict(json.loads(results.dumps(res))) == res


def test_a_reference_that_cannot_fit_is_skipped_not_attempted(monkeypatch):
    monkeypatch.setattr(cost, "available", lambda device: cost.Limit(1000, "available RAM (test)"))
    res = profiling.profile("naive_inplace", SMALL)
    assert res.status == "ok" and res.reference_check == "skipped"
    assert res.reference_reason.startswith("not run: the float64 reference needs about")
    assert "more than the 1000 B of available RAM (test)" in res.reference_reason


def test_a_passing_reference_check_is_ok(naive_pair):
    naive, _, _ = naive_pair
    assert naive.reference_check == "ok" and naive.reference_reason is None and naive.timing.rel_error < 1e-5


@pytest.mark.parametrize("how", ["raised", "swallowed by the profiler"])
def test_an_interrupt_stops_profile_and_is_never_a_variants_failure(monkeypatch, how):
    def call(q, k, v, n):
        if n < 5:  # after the warm-up, inside the profiled steps
            return q + k + v
        if how == "raised":
            raise KeyboardInterrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:  # what the profiler does on its way out of an interrupted session
            raise AssertionError("Profiler must be initialized before exiting") from None

    _fake(monkeypatch, "interrupted", call)
    with pytest.raises(KeyboardInterrupt):
        profiling.profile("interrupted", SMALL)


def test_a_sigint_swallowed_by_a_library_still_stops_the_run(monkeypatch):
    def call(q, k, v, n):
        if n < 5:
            return q + k + v
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass  # a library that eats the interrupt and fails afterwards
        raise RuntimeError("something broke afterwards")

    _fake(monkeypatch, "eaten", call)
    with interrupts.counting_interrupts(), pytest.raises(KeyboardInterrupt):
        profiling.profile("eaten", SMALL)


# --- a trace recorded by the caller (the gallery scripts) -------------------------------------------------------


def _record(tmp_path, attention, annotation, setup=SMALL, name="trace.json"):
    """What a gallery script does: warm up, profile five steps with the article's schedule, export the trace."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    q, k, v = inputs.make_inputs(setup)
    with torch.no_grad():
        for _ in range(3):
            attention(q, k, v)
        plan = schedule(wait=1, warmup=1, active=3)
        with profile(activities=[ProfilerActivity.CPU], schedule=plan, record_shapes=True) as prof:
            for _ in range(5):
                with record_function(annotation):
                    attention(q, k, v)
                prof.step()
    path = tmp_path / name
    prof.export_chrome_trace(str(path))
    return path


def test_from_trace_reads_the_callers_trace_and_measures_the_call(tmp_path):
    attention = variants.get("naive_inplace").build(SMALL.shape[2], SMALL.device)
    path = _record(tmp_path, attention, "naive_inplace_fwd")
    res = profiling.from_trace("naive_inplace", SMALL, path, attention=attention, save_to=tmp_path / "out")
    assert res.ok and len(res.steps) == 3
    assert res.steps[0].op_counts().get("aten::masked_fill_", 0) == 1
    t = res.timing
    assert t.repetitions >= DEFAULT_PLAN.reps_slow and t.gpu_ms_median > 0 and t.rel_error < 1e-5  # the pages' plan
    assert (t.warmup_s, t.profile_s) == (None, None)  # the caller warmed up and profiled, not attnprof
    saved = tmp_path / "out" / (res.stem + ".json")
    assert results.load(saved) == res
    trace = results.load_trace(saved, res)  # the caller's trace, gzipped beside the result
    assert trace == json.loads(path.read_text())


def test_from_trace_takes_gzipped_traces_and_bytes(tmp_path):
    attention = variants.get("sdpa_math").build(SMALL.shape[2], SMALL.device)
    gz = _record(tmp_path, attention, "sdpa_math_fwd", name="trace.json.gz")
    by_path = profiling.from_trace("sdpa_math", SMALL, gz, measure=False)
    import gzip

    by_bytes = profiling.from_trace("sdpa_math", SMALL, gzip.decompress(gz.read_bytes()), measure=False)
    assert by_path.steps == by_bytes.steps and len(by_path.steps) == 3 and by_path.timing is None


def test_from_trace_without_a_trace_records_why_the_variant_cannot_run(tmp_path):
    res = profiling.from_trace("sdpa_efficient", SMALL, None, save_to=tmp_path)
    assert res.status == "no_cuda" and "runs on: cuda" in res.reason
    assert results.load(tmp_path / (res.stem + ".json")).status == "no_cuda"


def test_from_trace_refuses_a_missing_trace_of_a_call_that_runs_and_a_foreign_trace(tmp_path):
    with pytest.raises(ValueError, match="no trace of 'naive' given, yet it runs here"):
        profiling.from_trace("naive", SMALL, None)
    attention = variants.get("naive").build(SMALL.shape[2], SMALL.device)
    path = _record(tmp_path, attention, "my_fwd")
    with pytest.raises(ValueError, match=r"no user_annotation named 'naive_fwd'.*annotations present: .*my_fwd"):
        profiling.from_trace("naive", SMALL, path, measure=False)
    with pytest.raises(FileNotFoundError):
        profiling.from_trace("naive", SMALL, tmp_path / "nope.json")
