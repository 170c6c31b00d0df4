"""``attnprof why``, in-process: the answer for the reader's own inputs on the CPU, and bad input."""

from __future__ import annotations

import io
import json

import pytest

from attnprof import cli
from attnprof.records.eligibility import Answer, Case

SMALL = ["--device", "cpu", "--shape", "1,4,32,64"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_why_names_each_backend_its_answer_and_sdpas_pick():
    code, out, err = run("why", *SMALL, "--dropout", "0.1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("inputs: [1, 4, 32, 64] bfloat16, is_causal=True")
    flash = next(line for line in lines if line.startswith("flash "))
    assert "refuses" in flash and "not supported here" in flash  # the call failed: the status in words
    assert "Both fused kernels do not support non-zero dropout" in flash
    math = next(line for line in lines if line.startswith("math "))
    assert "accepts" in math and " ran " in math and "\u00a0ms" in math  # confirmed by a call, and timed
    assert "CUDA only" in next(line for line in lines if line.startswith("cuDNN "))
    assert "SDPA picks: math" in out and "the unforced call ran: math" in out
    assert "first condition that fails" in out


def test_why_json_is_the_case_and_its_answer():
    code, out, _ = run("why", *SMALL, "--mask", "bool", "--kv-heads", "2", "--train", "--json")
    assert code == 0
    data = json.loads(out)
    case = Case.from_dict(data["case"])
    assert case.mask == "bool" and case.kv_heads == 2 and case.requires_grad
    answer = Answer.from_dict(data["answer"])
    assert answer.enable_gqa and answer.requires_grad and answer.mask.dtype == "bool"
    assert answer.verdict("MATH").call == "ran"


def test_no_call_asks_the_checks_only():
    code, out, _ = run("why", *SMALL, "--layout", "strided", "--no-call", "--json")
    assert code == 0
    answer = Answer.from_dict(json.loads(out)["answer"])
    assert all(v.call is None and v.time_ms is None for v in answer.verdicts)
    assert "stride" in answer.verdict("FLASH_ATTENTION").reason
    assert answer.pick == "MATH" and answer.ran is None


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--mask", "causl"], "unknown --mask 'causl'; choose one of: none, causal, bool, float"),
        (["--layout", "jagged"], "unknown --layout 'jagged'; choose one of: contiguous, transposed, strided, nested"),
        (["--dropout", "1"], "bad dropout '1'; expected a probability from 0 up to (not including) 1"),
        (["--dropout", "nan"], "bad dropout 'nan'"),
        (["--dropout", "-0.1"], "bad dropout '-0.1'"),
        (["--dropout", ""], "empty value ''; expected a probability such as 0.1"),
        (["--kv-heads", "3"], "bad kv_heads 3: the 4 query heads must share the KV heads in equal groups"),
        (["--kv-heads", "0"], "bad kv_heads '0'; expected a positive integer"),
        (["--shape", "1,4,32"], "bad shape '1,4,32'; expected four positive integers"),
        (["--dtype", "fp8"], "unknown dtype 'fp8'; choose one of: bf16"),
        (["--device", "tpu"], "unknown device 'tpu'; choose one of: cuda, cpu"),
    ],
)
def test_bad_input_is_one_line_naming_the_value_and_exit_2(argv, words):
    code, out, err = run("why", *SMALL, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("attnprof: ") and words in err, err


def test_calls_too_large_for_the_machine_are_refused_before_any_work():
    huge = ["why", "--device", "cpu", "--shape", "64,64,8192,128"]
    code, _, err = run(*huge)
    assert code == 2 and "needs about" in err and "--force" in err and "--no-call" in err
    code, out, _ = run(*huge, "--no-call", "--dry-run")
    assert code == 0 and out.startswith("dry run; would ask the checks only: [64, 64, 8192, 128]")


def test_dry_run_says_what_would_be_asked():
    code, out, err = run("why", *SMALL, "--dry-run")
    assert code == 0 and err == ""
    assert out.startswith("dry run; would ask the checks and one call of each backend, timed: [1, 4, 32, 64]")
    assert "the math backend needs about" in out


def test_help_gives_every_default_and_the_accepted_values():
    code, out, err = run("why", "--help")
    assert code == 0 and err == ""
    _, example, options = cli.args.COMMANDS["why"]
    assert f"example:\n  {example}" in out
    for flag, keywords in options:
        assert "default" in keywords["help"], flag
        assert flag in out
    for accepted in ("none, causal (is_causal=True), bool", "contiguous, transposed", "bf16, bfloat16, fp16"):
        assert accepted in " ".join(out.split())
