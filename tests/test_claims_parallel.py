"""The context-parallelism claims C30–C34 (attnprof.analysis.claims.parallel) on the run recorded on 2 x
H200, on runs changed so that each rule flips, and on a build that could not run."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof import words
from attnprof.analysis import claims
from attnprof.records.parallel import ParallelCase
from helpers import h200x2_run, no_gpu_run, runner_h200x2


def _verdicts(run, lang="en"):
    return {v.claim: v for v in claims.check_parallel(run, lang)}


def test_the_recorded_run():
    v = _verdicts(h200x2_run())
    assert {k: x.verdict for k, x in v.items()} == {
        "C30": "holds", "C31": "holds", "C32": "holds", "C33": "holds", "C34": "differs"}  # fmt: skip
    assert v["C30"].measured == (
        "S = 131072: all-gather 1.92× faster (efficiency 96.0%), all-to-all 1.94× faster (efficiency 96.8%)"
    )
    assert v["C31"].measured == "S = 131072, worst rank: all-gather 1.92%, all-to-all 1.41%"
    assert (
        v["C31"].detail
        == "From the shortest to the longest sequence the share went from 9.14% to 1.92% (all-gather)."
    )
    assert v["C32"].measured == "S = 131072, least overlapped rank: all-gather 95.5%, all-to-all 90.1%"
    assert v["C32"].detail == "Least overlap of all cases: 72.3% (all-gather, S = 32768)."
    assert v["C33"].measured.startswith("least even 0.983 (all-to-all, S = 131072")
    # 32768: one GPU holds 3 x 128 MiB of inputs + 132 MiB; rank 1 holds 3 x 64 MiB + 838 MiB
    assert (
        v["C34"].measured
        == "largest ratio 2.00× (all-gather, S = 32768: 1030 MiB per GPU against 516 MiB on one GPU)"
    )


def test_every_claim_speaks_both_languages():
    en, ja = _verdicts(h200x2_run(), "en"), _verdicts(h200x2_run(), "ja")
    for cid in claims.PARALLEL_CLAIMS:
        assert en[cid].verdict == ja[cid].verdict and en[cid].measured != ja[cid].measured
        assert claims.PARALLEL_CLAIMS[cid].statement("ja") == words.text(f"{cid}.statement", "ja")
        assert len(claims.PARALLEL_CLAIMS[cid].rule_text) > 60


def _slower(run, factor):
    for c in run.cases:
        for r in c.ranks:
            r.step_ms *= factor
    return run


def test_each_rule_can_fail():
    v = _verdicts(_slower(h200x2_run(), 1.4))  # efficiency 0.96 -> 0.69
    assert v["C30"].verdict == "differs"
    run = h200x2_run()
    for c in run.ran():
        for r in c.ranks:
            for step in r.trace.steps:  # stretch every NCCL kernel: a larger share of the step
                step.kernels = [dataclasses.replace(k, duration_us=k.duration_us * 20) if k.kind == "comm" else k
                                for k in step.kernels]  # fmt: skip
    assert _verdicts(run)["C31"].verdict == "differs"
    run = h200x2_run()
    for seq in (65536, 131072):
        for step in run.case("alltoall", seq).ranks[0].trace.steps:  # NCCL after the compute: no overlap
            end = max(k.end_us for k in step.kernels)
            for k in step.of("comm"):
                k.start_us = end + 1
    v = _verdicts(run)
    assert v["C32"].verdict == "differs" and v["C32"].measured.endswith("all-to-all 0%")
    assert v["C32"].detail == "Least overlap of all cases: 0% (all-to-all, S = 65536)."
    run.cases = [c for c in run.cases if c.seq != 131072]  # only the longest sequence decides
    assert _verdicts(run)["C32"].verdict == "differs"
    run = h200x2_run()
    for step in run.case("alltoall", 65536).ranks[0].trace.steps:
        end = max(k.end_us for k in step.kernels)
        for k in step.of("comm"):
            k.start_us = end + 1
    assert _verdicts(run)["C32"].verdict == "holds"  # a shorter sequence does not decide
    run = h200x2_run()
    for step in run.cases[0].ranks[1].trace.steps:  # one rank's last chunk 30% longer in every step
        step.of("attention")[-1].duration_us *= 1.3
    assert _verdicts(run)["C33"].verdict == "differs"
    run = h200x2_run()
    for c in run.cases:
        c.single_peak_extra_bytes *= 10
    assert _verdicts(run)["C34"].verdict == "holds"


def test_unmeasurable_without_a_run_or_without_a_case():
    for v in claims.check_parallel(no_gpu_run(), "en"):
        assert v.verdict == "unmeasurable" and v.reason.startswith("context parallelism did not run in this build")
        assert "at least 2 CUDA GPUs" in v.reason
    assert {v.verdict for v in claims.check_parallel(None, "ja")} == {"unmeasurable"}
    run = h200x2_run()
    run.cases = [ParallelCase("flash", "allgather", 32768, "unsupported", reason="no")]
    assert {v.reason for v in claims.check_parallel(run, "en")} == {"no case ran with its traces"}


def test_memory_needs_the_peaks():
    run = h200x2_run()
    for c in run.cases:
        c.single_peak_extra_bytes = None
    v = _verdicts(run)["C34"]
    assert v.verdict == "unmeasurable" and "peak memory was not recorded" in v.reason


@pytest.mark.parametrize("cid", list(claims.PARALLEL_CLAIMS))
def test_ids_continue_after_the_article_and_do_not_collide(cid):
    assert cid not in claims.CLAIMS and int(cid[1:]) >= 30


def test_the_run_the_runner_recorded_on_2_x_h200():
    """``attnprof.measure.parallelrun`` through ``examples/14-context-parallel.py`` on 2 x H200, default
    configuration."""
    v = _verdicts(runner_h200x2())
    assert {k: x.verdict for k, x in v.items()} == {
        "C30": "holds", "C31": "holds", "C32": "holds", "C33": "holds", "C34": "differs"}  # fmt: skip
    assert v["C30"].measured.startswith("S = 65536: all-gather 1.83×")
