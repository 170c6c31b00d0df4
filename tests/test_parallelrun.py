"""attnprof.measure.parallelrun on the CPU: the configuration's one-line errors, failure as data on a machine without
two GPUs, merging what the ranks recorded, and real runs of two ranks joined by gloo: spawned from a plain script and
from inside a Sphinx build, and started by torchrun (PyTorch refuses context parallelism on the CPU, so every case
records PyTorch's words)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch

from attnprof.measure import parallelrun
from attnprof.records import parallel
from attnprof.records.results import Environment

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src"
ENV = Environment("a GPU", "2.11.0", "3.12.3", "2026-12-01T00:00:00+00:00")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seqs": "32k"}, "bad sequence lengths '32k'; expected a non-empty list of positive integers"),
        ({"seqs": []}, "bad sequence lengths []"),
        ({"seqs": [32768, 0]}, "bad sequence length 0; expected a positive integer such as 32768"),
        ({"seqs": [2.5]}, "bad sequence length 2.5"),
        ({"methods": ["ring"]}, "unknown method 'ring'; choose from: allgather, alltoall"),
        ({"methods": "allgather"}, "bad methods 'allgather'; expected a non-empty list of: allgather, alltoall"),
        ({"backends": ["fast"]}, "unknown backend 'fast'; choose from: flash, efficient, cudnn, math, auto"),
        ({"world": 1}, "bad world size 1; context parallelism needs at least 2 ranks"),
        ({"world": 0}, "bad world size 0; expected a positive integer such as 2"),
        ({"dtype": "fp8"}, "unknown dtype 'fp8'; choose one of:"),
        ({"device": "tpu"}, "unknown device 'tpu'; choose one of: cuda, cpu"),
        ({"budget_s": 0}, "bad time budget 0; expected a positive number of seconds such as 60"),
        ({"causal": "yes"}, "bad causal 'yes'; expected True or False"),
        ({"reps": 0}, "bad number of timed calls 0; expected a positive integer such as 5"),
        ({"batch": -2}, "bad batch size -2"),
        ({"bandwidth_bytes": 0}, "bad bandwidth size 0"),
    ],
)
def test_bad_configurations_are_one_line_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        parallelrun.make_config(**kwargs)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_the_default_configuration():
    cfg = parallelrun.default_config()
    assert cfg.seqs == parallelrun.DEFAULT_SEQS and cfg.methods == ("allgather", "alltoall")
    assert (cfg.backends, cfg.world, cfg.batch, cfg.heads, cfg.head_dim) == (("flash",), None, 2, 16, 64)
    assert (cfg.dtype, cfg.causal, cfg.load_balance, cfg.device) == ("bfloat16", True, True, "cuda")
    assert cfg.bandwidth_bytes == 256 * 2**20
    cpu = parallelrun.make_config([128, 64, 64], ["alltoall"], ["math", "auto"], device="cpu", dtype="fp32")
    assert (cpu.seqs, cpu.methods, cpu.backends, cpu.dtype, cpu.bandwidth_bytes) == (
        (64, 128), ("alltoall",), ("math", "auto"), "float32", 4 * 2**20)  # fmt: skip


def test_torchrun_is_recognised_by_its_environment(monkeypatch):
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(key, raising=False)
    assert not parallelrun.launched_by_torchrun()
    for key, value in {
        "RANK": "0",
        "WORLD_SIZE": "2",
        "LOCAL_RANK": "0",
        "MASTER_ADDR": "x",
        "MASTER_PORT": "1",
    }.items():
        monkeypatch.setenv(key, value)
    assert parallelrun.launched_by_torchrun()


def test_the_calling_script_is_hidden_from_the_spawned_ranks_while_they_start(monkeypatch):
    script = types.ModuleType("__main__")
    script.__file__ = "/somewhere/14-context-parallel.py"
    script.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", script)
    with parallelrun._main_script_hidden():
        assert not hasattr(script, "__file__")
    assert script.__file__ == "/somewhere/14-context-parallel.py"
    module_run = types.ModuleType("__main__")  # python -m sphinx: the children import it by name, guarded
    module_run.__file__ = "/venv/sphinx/__main__.py"
    module_run.__spec__ = types.SimpleNamespace(name="sphinx.__main__")
    monkeypatch.setitem(sys.modules, "__main__", module_run)
    with parallelrun._main_script_hidden():
        assert module_run.__file__ == "/venv/sphinx/__main__.py"


def test_without_cuda_nothing_starts_and_the_file_says_why(tmp_path: Path):
    assert not torch.cuda.is_available()  # the CPU test machine
    run = parallelrun.run(parallelrun.default_config(), save_to=tmp_path)
    assert run.status == "no_cuda" and run.world == 0 and run.cases == []
    assert run.reason.startswith("torch.cuda.is_available() is False")
    assert run.reason.endswith("context parallelism needs at least 2 CUDA GPUs")
    assert parallel.load(tmp_path / "parallel__cuda.json") == run
    assert [p.name for p in tmp_path.iterdir()] == ["parallel__cuda.json"]


def test_one_gpu_is_too_few_and_more_than_the_machine_has_is_refused(tmp_path: Path, monkeypatch):
    from attnprof.measure import profiling

    monkeypatch.setattr(profiling, "environment", lambda device: ENV)  # no GPU here to name
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    run = parallelrun.run(parallelrun.default_config(), save_to=tmp_path)
    assert (run.status, run.reason) == (
        "too_few_gpus",
        "context parallelism needs at least 2 GPUs; torch.cuda.device_count() = 1",
    )
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    run = parallelrun.run(parallelrun.make_config(world=4))
    assert (run.status, run.reason) == ("too_few_gpus", "world size 4 asks for more GPUs than the 2 here")


def _rank(rank: int, **case: object) -> dict:
    base = {"backend": "flash", "method": "allgather", "seq": 64, "status": "ok", "reason": None, "single_ms": 2.0,
            "rank_run": {"rank": rank, "step_ms": 1.0 + rank}}  # fmt: skip
    return {"rank": rank, "init_s": 0.5, "device_name": "GPU", "cases": [{**base, **case}], "collectives": []}


def test_merging_takes_a_case_status_from_its_first_failing_rank():
    cfg = parallelrun.make_config([64], ["allgather"], device="cpu")
    base = {"device": "cpu", "config": cfg, "environment": ENV}
    run = parallelrun.merge(cfg, base, [_rank(1), _rank(0)], 2, "spawn", None)
    (case,) = run.cases
    assert run.ok and case.ok and case.step_ms == 2.0 and case.speedup == 1.0 and run.init_s == [0.5, 0.5]
    bad = _rank(1, status="oom", reason="CUDA out of memory")
    (case,) = parallelrun.merge(cfg, base, [_rank(0), bad], 2, "spawn", None).cases
    assert (case.status, case.reason) == ("oom", "CUDA out of memory")
    lost = parallelrun.merge(cfg, base, [_rank(0)], 2, "spawn", "ProcessExitedException: process 1 terminated")
    assert (lost.status, lost.reason) == ("error", "ProcessExitedException: process 1 terminated")
    silent = parallelrun.merge(cfg, base, [_rank(0)], 2, "spawn", None)
    assert (silent.status, silent.reason) == ("error", "only 1 of 2 ranks reported")


# --- real ranks on the CPU, joined by gloo --------------------------------------------------------------------------

SCRIPT = """\
from attnprof.measure import parallelrun
from attnprof.render import workloadreport
cfg = parallelrun.make_config([64, 62], ["allgather", "alltoall"], ["flash", "math"], device="cpu", dtype="fp32",
                              batch=1, heads=2, head_dim=16, warmup=1, reps=2, bandwidth_bytes=2**16)
run = parallelrun.run(cfg, save_to={out!r})
print(workloadreport.parallel_table(run))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def _check_cpu_run(out: Path, launcher: str) -> None:
    run = parallel.load(out / "parallel__cpu.json")
    assert run.ok and run.world == 2 and run.launcher == launcher and len(run.init_s) == 2
    assert {c.op for c in run.collectives} == {"all_gather_into_tensor", "all_to_all_single"}
    assert all(c.ms > 0 and c.busbw_gbs == pytest.approx(c.algbw_gbs / 2) for c in run.collectives)
    assert [(c.backend, c.method, c.seq) for c in run.cases] == [
        (b, m, s) for b in ("flash", "math") for s in (62, 64) for m in ("allgather", "alltoall")]  # fmt: skip
    for c in run.cases:
        assert c.status == "unsupported" and len(c.ranks) == 2, c
        if c.seq == 62:  # checked before PyTorch was asked
            assert c.reason.startswith("sequence length 62 cannot be split over 2 ranks")
            assert c.single_ms is None
        elif c.backend == "flash":  # PyTorch's words: no CPU kernel under DTensor
            assert "does not have a sharding strategy registered" in c.reason and c.single_ms > 0
        else:  # the math backend mixes plain tensors with DTensors
            assert "got mixed torch.Tensor and DTensor" in c.reason
    assert not list(out.glob("*.trace.json.gz"))  # nothing ran under the profiler


@pytest.mark.slow
def test_a_plain_script_spawns_two_gloo_ranks_and_records_pytorchs_refusal(tmp_path: Path):
    script = tmp_path / "cp_script.py"  # no __main__ guard, like a gallery script
    script.write_text(SCRIPT.format(out=str(tmp_path / "out")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_env(), timeout=400,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("unsupported") == 8 and "bootstrapping phase" not in done.stderr
    _check_cpu_run(tmp_path / "out", "torch.multiprocessing (spawn)")


@pytest.mark.slow
def test_torchrun_makes_each_process_a_rank_and_rank_0_saves(tmp_path: Path):
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).parent / "torchrun")
    script = tmp_path / "cp_script.py"
    script.write_text(SCRIPT.format(out=str(tmp_path / "out")))
    done = subprocess.run([torchrun, "--standalone", "--nproc-per-node=2", str(script)], capture_output=True,
                          text=True, env=_env(), timeout=400, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("2 x CPU") == 0 and done.stdout.count("torchrun") == 2  # both ranks print the run
    _check_cpu_run(tmp_path / "out", "torchrun")
    data = json.loads((tmp_path / "out" / "parallel__cpu.json").read_text())
    assert data["schema_version"] == parallel.SCHEMA_VERSION


@pytest.mark.slow
def test_a_gallery_script_spawns_its_ranks_from_inside_a_sphinx_build(tmp_path: Path):
    """The docs build runs the gallery scripts inside the Sphinx process (``python -m sphinx``): the ranks must start
    from there without running Sphinx, or the script, again."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "examples").mkdir(parents=True)
    (src / "conf.py").write_text(
        'extensions = ["sphinx_gallery.gen_gallery"]\n'
        'sphinx_gallery_conf = {"examples_dirs": ["examples"], "gallery_dirs": ["auto"], "filename_pattern": "/01",'
        ' "download_all_examples": False, "show_memory": False}\n'
    )
    (src / "index.rst").write_text("Site\n====\n\n.. toctree::\n\n   auto/index\n")
    (src / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    script = 'r"""\nRanks from Sphinx\n=================\n\nText.\n"""\n\n' + SCRIPT.format(out=str(out))
    (src / "examples" / "01-cp.py").write_text(script)
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(tmp_path / "html")],
                          capture_output=True, text=True, env=_env(), timeout=400, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    _check_cpu_run(out, "torch.multiprocessing (spawn)")
