"""attnprof.records.parallel: the context-parallel run file (one versioned JSON file, traces beside it) and what a
case says, on the run recorded on 2 x H200; and its plain-text view in attnprof.render.report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnprof.records import parallel, results
from attnprof.records.parallel import ParallelCase, RankRun
from attnprof.render import workloadreport
from helpers import CP_SEQS, cp_facts, h200x2_run, no_gpu_run, runner_h200x2


def _probe_row(method: str, seq: int) -> dict:
    key = ("main", "FLASH_ATTENTION", method, seq)
    return next(r for r in cp_facts()["cp"]["summary"] if (r["case"], r["backend"], r["method"], r["S"]) == key)


def test_save_and_load_round_trip(tmp_path: Path):
    run = h200x2_run(folder=tmp_path)
    path = tmp_path / "parallel__cuda.json"
    assert parallel.load(path) == run
    mtime = path.stat().st_mtime_ns
    assert parallel.save(run, tmp_path) == path and path.stat().st_mtime_ns == mtime  # unchanged: not rewritten
    assert json.loads(path.read_text())["schema_version"] == parallel.SCHEMA_VERSION
    for case in run.cases:
        for r in case.ranks:
            assert (tmp_path / r.trace_file).exists()


def test_another_schema_or_another_document_is_refused(tmp_path: Path):
    data = h200x2_run().to_dict()
    data["schema_version"] = 99
    (tmp_path / "parallel__cuda.json").write_text(json.dumps(data))
    with pytest.raises(results.StaleResultError, match="schema version 99 is not the supported version 1"):
        parallel.load(tmp_path / "parallel__cuda.json")
    (tmp_path / "parallel__cuda.json").write_text(json.dumps({"schema_version": 1, "device": "cuda"}))
    with pytest.raises(results.StaleResultError, match="not a context-parallel run file"):
        parallel.load(tmp_path / "parallel__cuda.json")


def test_find_prefers_the_cuda_file(tmp_path: Path):
    assert parallel.find(tmp_path) is None
    parallel.save(no_gpu_run(), tmp_path)
    cpu = no_gpu_run()
    cpu.device = "cpu"
    parallel.save(cpu, tmp_path)
    assert parallel.find(tmp_path) == tmp_path / "parallel__cuda.json"


@pytest.mark.parametrize("method", parallel.METHODS)
@pytest.mark.parametrize("seq", CP_SEQS)
def test_a_case_says_what_the_probe_summarised(method, seq):
    """The probe summarised its run with its own code: slowest rank, speed-up, efficiency, shares per rank."""
    case = h200x2_run().case(method, seq)
    probe = _probe_row(method, seq)
    assert case.ok and case.step_ms == probe["step_ms"] == max(probe["rank_ms"])
    assert case.speedup == pytest.approx(probe["speedup"], abs=1e-3)
    assert case.efficiency == pytest.approx(probe["efficiency"], abs=1e-3)
    assert case.comm_share == pytest.approx(max(probe["comm_share"]), abs=1e-4)
    assert case.overlap == pytest.approx(min(probe["overlap_of_comm"]), abs=1e-4)
    assert case.peak_extra_bytes == max(probe["peak_extra_MiB"]) * 2**20
    attention = [t.median("attention_us") for t in case.traces()]
    assert case.balance == pytest.approx(min(attention) / max(attention)) and 0.95 < case.balance <= 1


def test_a_case_without_every_rank_has_no_figures():
    case = ParallelCase("flash", "allgather", 32768, "ok", single_ms=14.0,
                        ranks=[RankRun(0, step_ms=8.0), RankRun(1)])  # fmt: skip
    assert (case.step_ms, case.speedup, case.efficiency, case.comm_share, case.overlap, case.balance) == (None,) * 6


def test_cases_are_found_by_method_and_length():
    run = h200x2_run()
    assert run.case("alltoall", 65536).method == "alltoall"
    assert run.case("alltoall", 65536, "flash") is run.case("alltoall", 65536)
    assert run.case("alltoall", 1024) is None and run.case("alltoall", 65536, "cudnn") is None
    assert len(run.ran()) == 6 and run.collective("all_to_all_single").busbw_gbs == 268.6


def test_a_run_that_could_not_happen_keeps_its_reason(tmp_path: Path):
    run = no_gpu_run()
    parallel.save(run, tmp_path)
    back = parallel.load(tmp_path / "parallel__cuda.json")
    assert not back.ok and back.status == "no_cuda" and "at least 2 CUDA GPUs" in back.reason
    assert back.cases == [] and back.ran() == []
    assert set(parallel.STATUSES) >= {"ok", "no_cuda", "too_few_gpus", "unsupported", "oom", "error", "skipped"}


def test_config_shape():
    assert parallel.ParallelConfig(seqs=(32768,)).shape(32768) == (2, 16, 32768, 64)


def test_the_text_table():
    text = workloadreport.parallel_table(h200x2_run())
    lines = text.splitlines()
    assert lines[0].startswith("2 x NVIDIA H200, NCCL 2.28.9")
    assert len(lines) == 3 + 6 and "allgather  131072  ok      226.07    117.72     1.92" in text
    ranks = workloadreport.rank_table(h200x2_run().case("allgather", 32768))
    assert ranks.splitlines()[3].split()[:3] == ["0", "7281", "562"]
    missing = workloadreport.parallel_table(no_gpu_run())
    assert "not measured (no_cuda)" in missing and parallel.TORCHRUN_COMMAND in missing


def test_a_case_that_failed_shows_its_reason_in_the_text_table():
    run = h200x2_run()
    run.cases.append(ParallelCase("math", "allgather", 32768, "unsupported", reason="RuntimeError: mixed DTensor"))
    assert "math" not in workloadreport.parallel_table(run).splitlines()[0]
    table = workloadreport.parallel_table(run)
    assert "unsupported  -" in table and "mixed DTensor" in table


def test_the_file_the_runner_wrote_on_2_x_h200():
    """Written by ``attnprof.measure.parallelrun`` (spawned ranks, NCCL) through the gallery script on the 2-GPU
    builder."""
    run = runner_h200x2()
    assert run.ok and run.world == 2 and run.launcher == "torch.multiprocessing (spawn)"
    assert run.config == parallel.ParallelConfig(seqs=(32768, 65536), bandwidth_bytes=256 * 2**20)
    assert run.environment.torch_version == "2.11.0+cu130" and run.nccl_version == "2.28.9"
    assert run.elapsed_s < 20  # the docs build's budget for this script
    assert {c.op for c in run.collectives} == {"all_gather_into_tensor", "all_to_all_single"}
    assert [(c.method, c.seq) for c in run.cases] == [(m, s) for s in (32768, 65536) for m in parallel.METHODS]
    for c in run.cases:
        assert c.ok and c.rel_error < 2e-3 and 1.5 < c.speedup < 2 and c.balance > 0.95
        for r in c.ranks:
            assert r.local_seq == c.seq // 2 and r.peak_extra_bytes > c.single_peak_extra_bytes
            assert r.trace_file == parallel.trace_name("cuda", "flash", c.method, c.seq, r.rank)
            step = r.trace.middle()
            assert [k.family for k in step.of("attention")] == ["flash", "flash"] and step.of("comm")
    # the same two kernels per rank as in the probe's traces: rank 0's second pass covers half the queries
    grids = [[k.grid[0] for k in r.trace.middle().of("attention")] for r in run.case("allgather", 65536).ranks]
    assert grids == [[256, 128], [256, 256]]
