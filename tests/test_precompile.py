"""Compile ahead (attnprof.measure.precompile): the build's compiles as jobs, run in worker processes whose on-disk
caches the build then reads (a real compile on the CPU: Inductor's C++ backend)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attnprof import variants, workloads
from attnprof.measure import maskrun, precompile


def test_the_cpu_build_compiles_nothing_ahead():
    assert precompile.jobs("cpu") == []


def test_the_cuda_jobs_mirror_the_plans_of_the_build():
    todo = precompile.jobs("cuda")
    names = [j.name for j in todo]
    assert len(names) == len(set(names))
    assert all(j.kind in precompile.KINDS and j.args[0] == "cuda" for j in todo)
    plan = maskrun.build_plan("cuda")
    cases = sum(len(workloads.get_mask(m).geometries(plan.bhd[0], s, plan.windows)) for m in plan.masks
                for s in plan.seqs) * len(plan.workloads)  # fmt: skip
    assert sum(j.kind == "mask" for j in todo) == cases
    compiled = {v.name for v in variants.VARIANTS.values() if v.compiled}
    assert {j.args[1] for j in todo if j.kind == "prefill"} == compiled
    assert [j.args[1:] for j in todo if j.kind == "decode"] == [
        (p.variant, p.setup.kv_len) for p in workloads.plan("decode", "cuda") if p.variant in compiled
    ]


def test_a_job_that_fails_says_why_in_pytorchs_words():
    done = precompile.run_job(precompile.Job("mask nowhere", "mask", ("cpu", "no-such-mask", 64, 0, "prefill")))
    assert done.status == "error" and "no-such-mask" in (done.reason or "")


@pytest.mark.slow
def test_what_a_worker_compiled_the_build_finds_in_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import torch
    from torch._dynamo.utils import counters

    monkeypatch.setenv(precompile.CACHE_ENV, str(tmp_path / "old"))  # warm() points this process at its own
    job = precompile.Job("prefill compiled_naive", "prefill", ("cpu", "compiled_naive"))
    warmed = precompile.warm("cpu", tmp_path / "cache", workers=1, todo=[job])
    assert warmed.workers == 1 and [d.status for d in warmed.done] == ["ok"], warmed.done
    assert warmed.done[0].misses >= 1  # the worker compiled it
    assert os.environ[precompile.CACHE_ENV] == str(tmp_path / "cache")
    torch._dynamo.reset()
    counters.clear()
    precompile.KINDS["prefill"]("cpu", "compiled_naive")  # what script 09 compiles, in this process
    assert counters["inductor"]["fxgraph_cache_hit"] >= 1
    assert counters["inductor"]["fxgraph_cache_miss"] == 0


def test_a_cache_filled_by_the_same_jobs_and_code_is_not_filled_again(tmp_path, monkeypatch):
    monkeypatch.setenv(precompile.CACHE_ENV, str(tmp_path))
    job = precompile.Job("prefill naive", "prefill", ("cpu", "naive"))  # a real job that compiles nothing: quick
    first = precompile.warm("cpu", tmp_path, workers=1, todo=[job])
    assert not first.skipped and [d.status for d in first.done] == ["ok"]
    assert (tmp_path / precompile.STAMP).is_file()
    again = precompile.warm("cpu", tmp_path, workers=1, todo=[job])
    assert again.skipped and again.done == [] and again.workers == 0
    other = precompile.warm("cpu", tmp_path, workers=1, todo=[job, precompile.Job("y", "prefill", ("cpu", "naive"))])
    assert not other.skipped and len(other.done) == 2
