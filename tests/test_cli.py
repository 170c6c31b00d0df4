"""attnprof.cli: ``main(argv)``, the program: exit statuses, one line for bad input, ``python -m attnprof`` and the
console script. Each command's work is in test_cli_commands.py, the parser in test_cli_args.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from helpers import run_cli as run

SMALL = ["--device", "cpu", "--shape", "1,2,32,16"]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["profile", "flsh"], ["'flsh'", "naive, naive_inplace, sdpa_math"]),
        (["profile", "naive", "--shape", "8,16,1024"], ["'8,16,1024'", "B,H,S,D"]),
        (["profile", "naive", "--shape", "a,b,c,d"], ["'a,b,c,d'", "four positive integers"]),
        (["profile", "naive", "--dtype", "bf8"], ["'bf8'", "bf16, bfloat16, fp16"]),
        (["profile", "naive", "--device", "tpu"], ["'tpu'", "cuda, cpu"]),
        (["compare", "naive", "flsh", "--device", "cpu"], ["'flsh'", "naive, naive_inplace"]),
        (["compare", "--dtype", "int8", "--device", "cpu"], ["'int8'", "bf16"]),
        (["sweep", "--seqs", "512,abc", "--device", "cpu"], ["'abc'", "positive integer"]),
        (["sweep", "--variants", "flsh", "--device", "cpu"], ["'flsh'", "naive, naive_inplace"]),
        (["sweep", "--head-dims", "0", "--device", "cpu"], ["0", "positive integer"]),
        (["sweep", "--dtype", "bf8", "--device", "cpu"], ["'bf8'", "bf16"]),
        (["sweep", "--budget-s", "soon", "--device", "cpu"], ["'soon'", "positive number of seconds"]),
        (["list", "--device", "gpu"], ["'gpu'", "cuda, cpu"]),
        (["bogus"], ["'bogus'", "'list', 'profile', 'compare', 'sweep'"]),
        (["profile"], ["required: variant", "usage: attnprof profile"]),
        (["profile", "naive", "--frobnicate"], ["--frobnicate", "usage: attnprof"]),
    ],
)
def test_bad_input_is_one_line_naming_the_value_and_the_choices_and_exit_2(argv, names):
    code, out, err = run(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n") and err.startswith("attnprof: ")
    for name in names:
        assert name in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="describes a machine without CUDA")
@pytest.mark.parametrize("command", [["profile", "naive"], ["compare"], ["sweep"], ["list"]])
def test_asking_for_cuda_without_it_is_bad_input(command):
    code, _, err = run(*command, "--device", "cuda")
    assert code == 2
    assert err.count("\n") == 1
    assert "device 'cuda' is not available here" in err and "torch.cuda.is_available() is False" in err
    assert err.rstrip().endswith("choose one of: cpu")


@pytest.mark.slow
def test_python_dash_m_runs_the_same_command():
    ok = subprocess.run(
        [sys.executable, "-m", "attnprof", "profile", "naive", *SMALL, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["status"] == "ok"
    bad = subprocess.run(
        [sys.executable, "-m", "attnprof", "profile", "naive", "--dtype", "bf8"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == [bad.stderr.strip()] and "unknown dtype 'bf8'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_console_script_is_declared():
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "attnprof"]
    assert ep.value == "attnprof.cli:main"
