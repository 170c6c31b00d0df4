"""Failure as data: a refused backend, running out of memory and an error become a status and PyTorch's reason; an
interrupt stays an interrupt (real calls on the CPU)."""

from __future__ import annotations

import json
import os
import signal
import time
import warnings
from pathlib import Path

import pytest
import torch

from attnprof import inputs, variants
from attnprof.measure import failure, interrupts
from attnprof.measure.failure import attempt

SMALL = inputs.make_setup((1, 2, 16, 8), "float32", "cpu")


def _call(name: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return variants.get(name).build(q.shape[-2], "cpu")(q, k, v)


def test_a_block_that_runs_is_ok_and_keeps_its_warnings():
    with attempt() as outcome:
        warnings.warn("a note from inside", UserWarning, stacklevel=1)
        out = _call("sdpa_math", *inputs.make_inputs(SMALL))
    assert outcome.ok and (outcome.status, outcome.reason) == ("ok", None)
    assert out.shape == SMALL.shape
    assert [str(w.message) for w in outcome.caught] == ["a note from inside"]


def test_a_backend_sdpa_refuses_on_the_cpu_is_unsupported_with_the_warning_that_explains_it():
    q, k, v = (t[0] for t in inputs.make_inputs(SMALL))  # three dimensions: the fused kernels want four
    flash = variants.get("sdpa_flash")
    with attempt(flash, "cpu") as outcome:
        _call("sdpa_flash", q, k, v)
    assert outcome.status == "unsupported"
    assert outcome.reason.startswith("RuntimeError: No available kernel.")
    assert "4 dimensional" in outcome.reason  # the warning SDPA gave before it raised
    assert "kernel not used because" not in outcome.reason and "Triggered internally" not in outcome.reason
    assert "runs on" not in outcome.reason  # flash runs on the CPU: no word about devices
    assert outcome.caught  # SDPA's warnings were recorded, not printed


@pytest.mark.parametrize("name", ["sdpa_efficient", "sdpa_cudnn"])
def test_a_cuda_only_backend_on_the_cpu_is_no_cuda_and_says_where_it_runs(name):
    v = variants.get(name)
    with attempt(v, "cpu") as outcome:
        _call(name, *inputs.make_inputs(SMALL))
    assert outcome.status == "no_cuda"
    assert outcome.reason.startswith("RuntimeError: No viable backend")
    assert outcome.reason.endswith(f"({v.title} runs on: cuda)")


def test_the_cpu_allocators_refusal_is_oom_in_one_line():
    with attempt() as outcome:
        torch.empty(2**62, dtype=torch.uint8)  # the real CPU allocator's refusal
    assert outcome.status == "oom"
    assert outcome.reason.startswith("RuntimeError: [enforce fail at alloc_cpu.cpp")
    assert "can't allocate memory" in outcome.reason and "\n" not in outcome.reason


def test_a_variant_running_out_of_memory_is_oom_without_unrelated_warnings():
    big = inputs.make_setup((1, 1, 2**22, 1), "float32", "cpu")  # naive's score matrix: 64 TiB
    q = k = v = torch.zeros(big.shape)
    with attempt(variants.get("naive"), "cpu") as outcome:
        warnings.warn("some unrelated deprecation", DeprecationWarning, stacklevel=1)
        _call("naive", q, k, v)
    assert outcome.status == "oom"
    assert "unrelated" not in outcome.reason and "DefaultCPUAllocator" in outcome.reason


def test_any_other_error_is_error_with_its_first_line():
    q, k, _ = inputs.make_inputs(SMALL)
    with attempt(variants.get("naive"), "cpu") as outcome:
        torch.matmul(q, k[..., :3])  # wrong inner dimensions
    assert outcome.status == "error" and outcome.reason.startswith("RuntimeError: ")
    assert "\n" not in outcome.reason


def test_a_judge_of_its_own_decides_status_and_reason():
    with attempt(judge=lambda exc, caught: ("skipped", f"{len(caught)} warnings, then {exc}")) as outcome:
        warnings.warn("one", UserWarning, stacklevel=1)
        raise ValueError("stop here")
    assert (outcome.status, outcome.reason) == ("skipped", "1 warnings, then stop here")


def test_a_variant_needs_its_device():
    with pytest.raises(ValueError, match="needs the device"), attempt(variants.get("naive")):
        pass


def test_what_the_block_raises_after_the_failure_is_not_kept():
    with attempt() as outcome:
        raise NotImplementedError("nothing for this")
    assert (outcome.status, outcome.reason) == ("unsupported", "NotImplementedError: nothing for this")
    assert not hasattr(outcome, "error")  # a kept traceback would keep the block's tensors alive


def _failing_call_that_keeps_its_exception(q: torch.Tensor) -> None:
    """Runs out of memory (in words) the way a frame that keeps its own exception does: the frame holds the
    exception, whose traceback holds the frame, and the frame holds ``q``."""
    try:
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 TiB")
    except RuntimeError as exc:
        kept = exc  # noqa: F841 - the cycle frame -> exception -> traceback -> frame
        raise


def test_a_failed_block_leaves_nothing_alive_even_through_a_reference_cycle():
    import gc
    import weakref

    gc.disable()  # no collector run may hide the leak: only letting go of the frames frees the input
    try:
        refs = []

        def measure() -> failure.Outcome:
            with attempt() as outcome:
                q = torch.ones(1024)
                refs.append(weakref.ref(q))
                _failing_call_that_keeps_its_exception(q)
            return outcome

        outcome = measure()
        assert outcome.status == "oom", outcome.reason
        assert refs[0]() is None, "the failed call's input is still alive after the measurement returned"
    finally:
        gc.enable()


def test_profile_leaves_no_input_alive_after_running_out_of_memory(monkeypatch: pytest.MonkeyPatch):
    import gc
    import weakref

    from attnprof.measure import profiling

    refs = []
    naive = variants.get("naive")

    def build(seq: int, device: str):
        def call(q, k, v):
            refs.append(weakref.ref(q))
            _failing_call_that_keeps_its_exception(q @ k.transpose(-1, -2))

        return call

    monkeypatch.setattr(type(naive), "build", lambda self, seq, device: build(seq, device))
    gc.disable()
    try:
        r = profiling.profile("naive", SMALL, measure=False)
        assert r.status == "oom", r.reason
        assert refs and refs[0]() is None, "profile() returned with the failed variant's inputs still alive"
    finally:
        gc.enable()


# --- interrupts ------------------------------------------------------------------------------------------------


def test_an_interrupt_leaves_the_block_as_an_interrupt():
    with pytest.raises(KeyboardInterrupt), attempt(variants.get("naive"), "cpu"):
        raise KeyboardInterrupt


def test_an_interrupt_another_error_carries_is_raised_again():
    def profiler_on_its_way_out():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise AssertionError("Profiler must be initialized before exiting") from None

    with pytest.raises(KeyboardInterrupt), attempt():
        profiler_on_its_way_out()


def test_a_sigint_a_library_swallowed_turns_the_failure_into_an_interrupt():
    with interrupts.counting_interrupts(), pytest.raises(KeyboardInterrupt), attempt():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass  # a library that eats the interrupt and fails afterwards
        raise RuntimeError("something broke afterwards")


def test_an_interrupt_before_the_block_counts_when_since_says_so():
    with interrupts.counting_interrupts():
        since = interrupts.interrupts_seen()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
        with attempt() as outcome:  # counted from its own entry: the earlier SIGINT is not its business
            raise RuntimeError("fails")
        assert outcome.status == "error"
        with pytest.raises(KeyboardInterrupt), attempt(since=since):
            raise RuntimeError("fails")


# --- PyTorch's words -------------------------------------------------------------------------------------------


def test_pytorch_reason_keeps_substance_and_drops_headers():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for msg in [
            "Flash attention kernel not used because: (Triggered internally at sdp_utils.cpp:988.)",
            "Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float "
            "(Triggered internally at sdp_utils_cpp.h:91.)",
            "cuDNN attention has been runtime disabled. (Triggered internally at x.cpp:1.)",
        ]:
            warnings.warn(msg, UserWarning, stacklevel=1)
    reason = failure.pytorch_reason(RuntimeError("No available kernel. Aborting execution."), caught)
    assert reason == (
        "RuntimeError: No available kernel. Aborting execution. | Expected query, key and value to all be of "
        "dtype: {Half, BFloat16}. Got Query dtype: float"
    )
    assert failure.pytorch_reason(None, ()) == "unknown reason"


def test_reasons_recorded_on_the_h200_reduce_to_their_substance():
    facts = json.loads((Path(__file__).parent / "data" / "h200-probe-facts.json").read_text())
    case = facts["reasons"]["torch.bfloat16-512-FLASH_ATTENTION"]

    class W:
        def __init__(self, m):
            self.message = m

    reason = failure.pytorch_reason(RuntimeError(case["result"].split(": ", 1)[1]), [W(m) for m in case["warnings"]])
    assert "less than or equal to 256" in reason
    assert "runtime disabled" not in reason and "Triggered internally" not in reason


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB"), "oom"),
        (MemoryError("no room"), "oom"),
        (RuntimeError("No available kernel. Aborting execution."), "unsupported"),
        (NotImplementedError("not for this dtype"), "unsupported"),
        (RuntimeError("mat1 and mat2 shapes cannot be multiplied"), "error"),
    ],
)
def test_classify_reads_the_kind_of_failure(exc, status):
    assert failure.classify(exc) == status
