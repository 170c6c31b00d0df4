"""attnprof.analysis.answers: the verdicts beside the decision table, on the H200 recordings of tests/data (the
training-scale grid, the mask run, the eligibility map of a real H200 build), and on records altered to show what
the newer runs record (issue times, SDPA's pick, the dense mask's build)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from attnprof.analysis import answers
from attnprof.noise import Figure
from attnprof.records import bundle, masks, trainscale
from attnprof.records.eligibility import Grid
from helpers import DATA, H200_BUILD

GRID = trainscale.load(DATA / "trainscale__cuda.json.gz")
MASKS = masks.load(DATA / "masks" / "h200" / "masks__cuda.json")


def _eligibility() -> Grid:
    return Grid.from_dict(json.loads(bundle.read(H200_BUILD).data["eligibility__cuda.json"]))


def test_training_across_lengths_ranks_the_forced_backends_by_forward_and_backward():
    found = answers.train_scale_answers(GRID)
    assert [(a.where["head_dim"], a.where["seq"]) for a in found] == [
        (d, s) for d in (64, 128) for s in (1024, 2048, 4096, 8192, 16384)
    ]
    first = found[0]
    p = {x.variant: x for x in GRID.points if (x.head_dim, x.causal, x.seq) == (64, True, 1024)}
    assert first.verdict.winner.variant == "sdpa_cudnn"
    cudnn = p["sdpa_cudnn"]
    assert first.verdict.winner.cost.gpu.median == pytest.approx(1e3 * (cudnn.fwd.median + cudnn.bwd.median))
    # the recording predates the issue times and SDPA's pick: no regime, no advice
    assert first.verdict.regime is None and first.advice.advice == "unknown"


def test_with_issue_times_and_sdpas_pick_the_grid_gives_a_regime_and_the_advice():
    points = [dataclasses.replace(x, issue_us=Figure(400.0, 380.0, 420.0, 5), sdpa_pick="CUDNN_ATTENTION")
              for x in GRID.points]  # fmt: skip
    found = answers.train_scale_answers(dataclasses.replace(GRID, points=points))
    assert {a.verdict.regime for a in found} == {"gpu"}  # a step of 0.7 ms and more, issued in 0.4 ms
    assert {a.advice.advice for a in found} == {"keep"} and {a.advice.picked for a in found} == {"sdpa_cudnn"}


def test_mask_answers_rank_every_method_and_leave_builds_out_when_one_was_not_timed():
    found = answers.mask_answers(MASKS)
    assert len(found) == 8
    docs = next(a for a in found if (a.where["mask"], a.where["workload"]) == ("documents", "prefill"))
    # this run timed the block mask but not the dense mask: no build is added to any step
    assert not docs.rebuilt and docs.verdict.winner.variant == "flex" and docs.verdict.winner.cost.extra is None
    # SDPA's own choice ran cuDNN: forcing cuDNN is priced by the advice, not ranked beside it
    assert docs.advice.advice == "keep" and docs.advice.picked == "sdpa_cudnn"
    assert "sdpa_cudnn" not in [o.variant for o in docs.verdict.ranked]


def test_a_mask_that_changes_every_batch_pays_its_build_in_every_step():
    builds = [dataclasses.replace(b, dense_ms=Figure(0.4, 0.38, 0.42, 5)) for b in MASKS.builds]
    found = answers.mask_answers(dataclasses.replace(MASKS, builds=builds))
    docs = next(a for a in found if (a.where["mask"], a.where["workload"]) == ("documents", "prefill"))
    block = next(b for b in MASKS.builds if b.mask == "documents").time_ms
    assert docs.rebuilt
    # FlexAttention rebuilds its block mask (15 ms) for a 0.31 ms call; the dense mask (0.4 ms) for SDPA's 2.41 ms;
    # the nested tensors, built in every step too (2.57 ms with them), need no mask at all
    flex = next(o for o in docs.verdict.ranked if o.variant == "flex")
    assert flex.cost.extra.median == pytest.approx(1e3 * block.median)
    assert flex.cost.step.median == pytest.approx(1e3 * (0.3128 + block.median), rel=1e-2)
    assert [o.variant for o in docs.verdict.ranked[:3]] == ["nested", "sdpa_auto", "sdpa_efficient"]
    window = next(a for a in found if a.where["mask"] == "sliding_window")
    assert not window.rebuilt and window.verdict.winner.cost.extra is None  # built once, for every batch


def test_grouped_heads_from_the_eligibility_map():
    grid = _eligibility()
    found = answers.gqa_answers(grid)
    assert [a.where["kv_heads"] for a in found] == [4, 1]
    assert {a.verdict.winner.variant for a in found} == {"sdpa_cudnn"}
    assert {a.advice.advice for a in found} == {"keep"}  # SDPA's selector picks cuDNN
    assert answers.refused(grid) == ["sdpa_efficient"]  # both fused kernels need as many KV heads as query heads
    assert answers.groups(found, "kv_heads").keys() == {4: None, 1: None}.keys()
    assert isinstance(H200_BUILD, Path)
