"""attnprof.cli.commands: list, profile, compare and sweep of the article's workload, run in-process on the CPU at
small shapes (the other workloads: test_cli_workload.py)."""

from __future__ import annotations

import json

from attnprof import variants
from attnprof.records import sweep
from helpers import run_cli as run

SMALL = ["--device", "cpu", "--shape", "1,2,32,16"]


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
