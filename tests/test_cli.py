"""The ``attnprof`` command, in-process through ``main(argv)`` and once as ``python -m attnprof``."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
import torch

from attnprof import cli, variants
from attnprof.records import sweep

SMALL = ["--device", "cpu", "--shape", "1,2,32,16"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_list_names_every_variant_and_whether_it_runs_here():
    code, out, _ = run("list", "--device", "cpu", "--no-compile")
    assert code == 0
    rows = {
        line.split()[0]: line for line in out.splitlines() if line.split() and line.split()[0] in variants.VARIANTS
    }
    assert set(rows) == set(variants.VARIANTS)
    assert rows["naive"].split()[-1] == "yes"
    assert "no (no_cuda): RuntimeError: No viable backend" in rows["sdpa_cudnn"]
    assert "not checked (--no-compile" in rows["flex"]
    for v in variants.VARIANTS.values():
        assert f"{v.name}: {v.title}." in out  # the descriptions follow the table


def test_profile_json_parses_as_a_result():
    code, out, _ = run("profile", "naive", "--dtype", "fp32", *SMALL, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["variant"] == "naive" and data["status"] == "ok" and data["shape"] == [1, 2, 32, 16]
    assert data["dtype"] == "float32" and len(data["steps"]) == 3 and data["timing"]["rel_error"] < 1e-5


def test_profile_prints_tables_and_writes_the_trace(tmp_path):
    trace = tmp_path / "naive.json"
    code, out, err = run("profile", "naive", *SMALL, "--trace", str(trace))
    assert code == 0
    assert "naive: [1, 2, 32, 16] bfloat16 on cpu" in out and "without profiler:" in out
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "naive_fwd" for e in events)
    assert f"Chrome trace written to {trace}" in err


def test_profile_of_a_variant_that_cannot_run_says_why_and_exits_0():
    code, out, _ = run("profile", "sdpa_efficient", *SMALL)
    assert code == 0
    assert "could not run (no_cuda)" in out and "runs on: cuda" in out


def test_compare_has_a_row_for_the_unsupported_variant():
    code, out, _ = run("compare", "naive", "sdpa_cudnn", *SMALL, "--dtype", "float32")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[3:] if line.strip()}
    assert rows["naive"][1] == "ok"
    assert rows["sdpa_cudnn"][1] == "no_cuda" and "RuntimeError:" in " ".join(rows["sdpa_cudnn"])


def test_compare_json_is_a_list_of_results():
    code, out, _ = run("compare", "naive_inplace", "sdpa_cudnn", *SMALL, "--json")
    assert code == 0
    assert [r["status"] for r in json.loads(out)] == ["ok", "no_cuda"]


def test_sweep_prints_tables_shows_progress_and_writes_the_file(tmp_path):
    path = tmp_path / "s.json"
    code, out, err = run(
        "sweep",
        "--variants",
        "naive,sdpa_auto",
        "--seqs",
        "32",
        "64",
        "--head-dims",
        "16",
        "--batch",
        "1",
        "--heads",
        "1",
        "--device",
        "cpu",
        "--out",
        str(path),
    )
    assert code == 0
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == 4 and progress[-1].startswith("[" + "#" * 28 + "] 4/4 sdpa_auto hd16 seq64: ")
    assert "head_dim 16: time per forward, median (ms), batch 1, 1 heads, float32 on cpu" in out
    assert "SDPA's pick at hd16 seq32: flash" in out
    s = sweep.load(path)
    assert [(p.variant, p.seq, p.status) for p in s.points] == [
        ("naive", 32, "ok"),
        ("naive", 64, "ok"),
        ("sdpa_auto", 32, "ok"),
        ("sdpa_auto", 64, "ok"),
    ]


def test_progress_bar_redraws_in_place_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = cli.ProgressBar(stream, width=4)
    bar(1, 2, sweep.SweepPoint("naive", 64, 16, "ok", gpu_ms=0.5))
    bar(2, 2, sweep.SweepPoint("naive", 128, 16, "oom", "x"))
    assert stream.getvalue() == "\r[##..] 1/2 naive hd16 seq64: 0.500 ms\r[####] 2/2 naive hd16 seq128: oom    \n"


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


@pytest.mark.parametrize("command", ["list", "profile", "compare", "sweep"])
def test_help_teaches_description_example_defaults_and_accepted_values(command):
    code, out, err = run(command, "--help")
    assert code == 0 and err == ""
    summary, example, options = cli.args.COMMANDS[command]
    assert summary in out and f"example:\n  {example}" in out
    out = " ".join(out.split())  # argparse wraps the help texts at a column that the longest option decides
    for flag, keywords in options:
        assert "default" in keywords["help"] or flag == "variant", (command, flag)  # one variant, no default
        assert flag in out
    if command != "list":
        assert "bf16, bfloat16, fp16" in out and "(default: cuda when available, else cpu)" in out
    assert "--device" in out
    if command in ("profile", "compare"):
        assert "8,16,1024,64 on CUDA, 1,4,256,64 on the CPU" in out
    if command == "sweep":
        assert "float32 on the CPU" in out and "60 on the CPU" in out


def test_the_examples_in_the_help_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command, (_, example, _) in cli.args.COMMANDS.items():
        argv = example.split()[1:]
        code, _, err = run(*argv, "--dry-run") if command != "list" else (0, "", "")
        assert code == 0, err


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    code, out, err = run("compare", "naive", "sdpa_flash", "--shape", "8,16,1024,64", "--device", "cpu", "--dry-run")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("dry run; would run compare: 2 variants at [8, 16, 1024, 64] bfloat16 on cpu: about ")
    assert lines[1].startswith("  naive: about 577 MiB, reference check 3.25 GiB, about ")
    assert lines[2].startswith("  sdpa_flash: about 64 MiB")


def test_force_runs_what_the_estimate_refuses_and_out_of_memory_is_a_status():
    argv = ["profile", "naive", "--device", "cpu", "--shape", "1,1,4194304,1", "--dtype", "fp32"]
    code, _, err = run(*argv)
    assert code == 2 and "needs about 144 TiB (estimated)" in err
    code, out, _ = run(*argv, "--force", "--json")
    result = json.loads(out)
    assert code == 0 and result["status"] == "oom" and "DefaultCPUAllocator" in result["reason"]
