"""Asking PyTorch's SDPA checks for real on the CPU: verdicts in PyTorch's words, SDPA's pick, and the calls that
confirm them."""

from __future__ import annotations

import os

import pytest
import torch

from attnprof.measure import backends
from attnprof.records.eligibility import BACKENDS, Answer, Operand

Q = Operand((1, 2, 16, 32), "bfloat16")


def test_causal_cpu_inputs_flash_and_math_accept_and_flash_is_what_runs():
    a = backends.ask(Q, Q, Q, is_causal=True, device="cpu", call=True)
    assert [v.backend for v in a.verdicts] == list(BACKENDS)
    assert a.verdict("FLASH_ATTENTION").check == "accepts"
    assert a.verdict("FLASH_ATTENTION").call == "ran"
    assert a.verdict("MATH").check == "accepts" and a.verdict("MATH").call == "ran"
    for backend in ("EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
        v = a.verdict(backend)
        assert v.check == "cuda_only" and v.call is None  # SDPA's CPU dispatch never asks them
    assert a.pick == "FLASH_ATTENTION"
    assert a.ran == "FLASH_ATTENTION"  # read from the operators the unforced call dispatched
    assert a.disagreements == ()


def test_dropout_refuses_cpu_flash_in_pytorchs_words_and_the_call_agrees():
    a = backends.ask(Q, Q, Q, dropout_p=0.1, device="cpu", call=True)
    flash = a.verdict("FLASH_ATTENTION")
    assert flash.check == "refuses"
    assert "dropout" in flash.reason
    assert flash.call == "unsupported" and "dropout" in flash.call_reason
    assert flash.agrees is True
    assert a.pick == "MATH" and a.ran == "MATH"


def test_training_inputs_run_the_backward_of_the_forced_backend():
    a = backends.ask(Q, Q, Q, is_causal=True, requires_grad=True, device="cpu", call=True)
    assert a.requires_grad
    assert a.verdict("FLASH_ATTENTION").call == "ran"
    assert a.verdict("MATH").call == "ran"


def test_last_dimension_not_contiguous_refuses_flash():
    t = torch.randn(1, 2, 32, 16).transpose(-1, -2)  # stride 16 along head_dim
    a = backends.ask_tensors(backends.Inputs(t, t, t), call=True)
    assert a.query.stride == (1024, 512, 1, 16)
    flash = a.verdict("FLASH_ATTENTION")
    assert flash.check == "refuses" and "stride" in flash.reason
    assert flash.call == "unsupported"
    assert a.pick == "MATH" and a.ran == "MATH"


def test_nested_cpu_inputs_take_the_nested_selector():
    values = torch.randn(26, 2, 32)
    nt = torch.nested.nested_tensor_from_jagged(values, offsets=torch.tensor([0, 10, 26])).transpose(1, 2)
    a = backends.ask_tensors(backends.Inputs(nt, nt, nt), call=True)
    assert a.nested
    assert a.query.shape == (2, 2, 16, 32)  # the ragged dimension at its longest
    assert a.verdict("MATH").check == "accepts"
    assert a.verdict("MATH").asked.startswith("torch.nested._internal.sdpa")
    flash = a.verdict("FLASH_ATTENTION")
    assert flash.check in ("refuses", "error")  # the nested selector asks the CUDA check, even for CPU tensors
    assert flash.call == "unsupported"
    assert a.pick == "MATH" and a.ran == "MATH"


def test_what_cannot_be_asked_is_data(monkeypatch):
    assert backends.ask(None, Q, Q, device="cpu").unasked == "no_shapes"
    # whatever this machine has, the answer of a machine without CUDA
    monkeypatch.setattr(backends, "cuda_missing_reason", lambda: "no CUDA device: torch.cuda.is_available() is False")
    a = backends.ask(Q, Q, Q, device="cuda")
    assert a.unasked == "no_cuda" and "torch.cuda.is_available() is False" in a.unasked_reason
    assert a.verdicts == []


def test_inputs_that_cannot_be_made_say_why():
    a = backends.ask(Operand((1, 2, 16, 32), "no_such_dtype"), Q, Q, device="cpu")
    assert a.unasked == "error" and "no_such_dtype" in a.unasked_reason


def test_the_cuda_check_writes_its_reason_to_stderr_and_is_read_from_there():
    q = torch.randn(1, 2, 16, 32)
    v = backends.check_cuda("FLASH_ATTENTION", backends.Inputs(q, q, q))
    assert v.check == "refuses"
    assert v.asked == "torch.backends.cuda.can_use_flash_attention"
    if torch.version.cuda is not None:  # a CUDA build says why; a CPU-only build answers False without words
        assert "cuda device" in v.reason
        assert v.failed == ("check_all_tensors_on_device",)
    else:
        assert v.reason is None


def test_hearing_restores_stderr_and_parses_cpp_warnings(capfd):
    with backends.hearing() as heard:
        os.write(2, b"[W1202 01:24:37.57 sdp_utils.cpp:574] Warning: Flash needs X. Got Y (function check_x)\n")
        os.write(2, b"[W sdp_utils.cpp:9] Warning: second\nline (function check_y)\n")
    os.write(2, b"after\n")
    assert heard.messages == [("Flash needs X. Got Y", "check_x"), ("second line", "check_y")]
    assert heard.functions == ("check_x", "check_y")
    assert capfd.readouterr().err == "after\n"


def test_ran_backend_reads_operator_names():
    assert backends.ran_backend(["aten.transpose.int", "aten._scaled_dot_product_cudnn_attention.default"]) == (
        "CUDNN_ATTENTION"
    )
    assert backends.ran_backend(["aten._efficient_attention_forward.default"]) == "EFFICIENT_ATTENTION"
    assert backends.ran_backend(["aten._scaled_dot_product_flash_attention_for_cpu.default"]) == "FLASH_ATTENTION"
    assert backends.ran_backend(["aten.bmm.default", "aten._softmax.default"]) == "MATH"


def test_answer_round_trips_through_json():
    a = backends.ask(Q, Q, Q, attn_mask=Operand((1, 1, 16, 16), "bool"), device="cpu", call=True)
    again = Answer.from_dict(a.to_dict())
    assert again == a
    assert again.mask == Operand((1, 1, 16, 16), "bool")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_every_dtype_gets_an_answer_from_each_cpu_backend(dtype):
    op = Operand((1, 2, 16, 32), dtype)
    a = backends.ask(op, op, op, device="cpu", call=True)
    for backend in backends.CPU_BACKENDS:
        v = a.verdict(backend)
        assert v.check in ("accepts", "refuses")
        assert v.agrees is True, (v.check, v.reason, v.call, v.call_reason)


def test_a_cpp_warning_is_its_text_with_or_without_its_header():
    from attnprof.measure.backends import _cpp_lines

    text = (
        "[W1203 09:54:01.123 sdp_utils.cpp:12] Warning: Flash attention requires q,k,v to have the same last "
        "dimension (function check_head_dim_size_flash)\n"
        "Warning: Both fused kernels do not support non-zero dropout.\n"
    )
    assert list(_cpp_lines(text)) == [
        ("Flash attention requires q,k,v to have the same last dimension", "check_head_dim_size_flash"),
        ("Both fused kernels do not support non-zero dropout.", None),
    ]
