"""Measuring what ``explain --measure`` planned, on the CPU at the sizes of the CPU traces: the real path (inputs
rebuilt, PyTorch's checks asked, calls timed by the site's timer), its refusals (memory, budget), and the pieces
(masks, the hand-written call) checked against references."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from attnprof.analysis import advice as planner
from attnprof.analysis import attention
from attnprof.analysis import explain as ex
from attnprof.measure import advice, cost
from attnprof.measure.timing import Plan
from attnprof.records import foreign
from attnprof.records.advice import Advice, Option, Spec

DATA = Path(__file__).parent / "data" / "foreign"
#: Few samples: the path is the same, the test is short.
QUICK = Plan(warmup=1, warmup_ms=0.0, reps=5, budget_ms=0.0, max_reps=5, reps_slow=3, slow_ms=1000.0, retries=0)


def plan_of(name: str, folder: str = "cpu-advice", **kw):
    x = ex.explain(foreign.load(DATA / folder / f"{name}.json.gz", inputs_of=attention.wants_inputs))
    return planner.plan(x, "cpu" if not x.trace.gpu else "cuda", **kw)


@pytest.fixture(scope="module")
def padded():
    return advice.run(plan_of("hf_padded_infer"), plan=QUICK)


def test_every_option_of_a_padded_batch_ends_timed_or_says_why(padded):
    assert padded.status == "measured" and padded.environment is not None
    assert padded.mismatch == ["cpu_unknown"] and padded.timer == "perf_counter" and padded.plan == QUICK.to_dict()
    by = {m.option.key: m for m in padded.cases[0].options}
    for key in ("recorded", "sdpa:MATH", "sdpa:auto", "sdpa:auto+gqa", "sdpa:auto+causal", "sdpa:auto+gqa+causal"):
        m = by[key]
        assert m.status == "ok", (key, m.reason)
        assert m.time_us.n == 5 and 0 < m.time_us.lo <= m.time_us.median <= m.time_us.hi
        assert m.bytes_estimate > 0 and m.seconds_estimate > 0
    assert by["sdpa:auto"].ran in ("FLASH_ATTENTION", "MATH")  # read from the call's dispatched ops
    assert by["flex+gqa"].status == "not_here" and "CUDA only" in by["flex+gqa"].reason
    assert padded.seconds > 0 and padded.estimate_s > 0
    v = planner.verdicts(padded)[0]
    assert v.outcome in ("faster", "tie", "recorded", "unreliable")


def test_a_measured_record_reads_back_as_it_is_without_a_file(padded):
    # a script keeps the record it measured (``Advice.from_dict(advice.to_dict())``), through the schema check
    back = Advice.from_dict(padded.to_dict())
    assert type(back.environment.torch_version) is str and back.environment.torch_version == torch.__version__
    assert back.to_dict() == padded.to_dict()


def test_pytorch_refuses_what_its_check_refuses():
    plan = advice.run(plan_of("mha_dropout_train"), plan=QUICK)
    flash = plan.cases[0].option("sdpa:FLASH_ATTENTION")
    assert flash.status == "refuses" and "dropout" in flash.reason  # the CPU's flash kernel takes no dropout
    assert plan.cases[0].option("recorded").status == "ok"  # the hand-written code with dropout, forward + backward


def test_options_past_the_memory_or_the_budget_are_not_run(monkeypatch):
    plan = plan_of("mha_dropout_train")
    monkeypatch.setattr(cost, "available", lambda device: cost.Limit(1000, "a test's limit"))
    done = advice.run(plan, plan=QUICK)
    statuses = {m.status for m in done.cases[0].options}
    assert statuses == {"too_big"}
    reason = done.cases[0].options[0].reason
    assert "needs about" in reason and "1000 B of a test's limit" in reason
    forced = advice.run(plan_of("mha_dropout_train"), plan=QUICK, force=True)
    assert forced.cases[0].option("recorded").status == "ok"
    late = advice.run(plan_of("mha_dropout_train"), plan=QUICK, budget_s=0.0)
    assert {m.status for m in late.cases[0].options} == {"over_budget"}
    assert "budget of 0 s" in late.cases[0].options[0].reason


def test_the_estimate_counts_every_option_and_grows_with_the_work():
    plan = plan_of("hf_eager_fp32_train")
    total = advice.estimate(plan, QUICK)
    opts = plan.cases[0].options
    assert total == pytest.approx(sum(m.seconds_estimate for m in opts)) and total > 0
    flex = plan.cases[0].option("flex+gqa")
    assert flex.status == "not_here" and flex.seconds_estimate == 0  # FlexAttention is not run on the CPU
    rec, fused = plan.cases[0].option("recorded"), plan.cases[0].option("sdpa:FLASH_ATTENTION")
    assert rec.bytes_estimate > fused.bytes_estimate  # the hand-written code writes the scores
    big = Option("recorded", "handwritten", None, (), Spec((8, 16, 4096, 64), (8, 16, 4096, 64), (8, 16, 4096, 64),
                                                          "fp32", train=True))  # fmt: skip
    assert advice.option_bytes(big) > 16 * 2**30 and advice.option_seconds(big, "cpu") > 60


def test_a_gpu_trace_needs_a_gpu_here():
    plan = plan_of("hf_sdpa_train", "h200")
    missing = advice.missing_device(plan)
    if torch.cuda.is_available():
        assert missing is None
    else:
        assert missing.startswith("no CUDA device")
    assert advice.missing_device(plan_of("hf_padded_infer")) is None  # a CPU trace runs on the CPU


@pytest.mark.parametrize(
    ("fill", "row"),
    [("causal", [1, 1, 1, 0]), ("sliding=2", [0, 1, 1, 0]), ("documents=2", [0, 0, 1, 0])],
)
def test_dense_masks_hold_what_fill_says(fill, row):
    spec = Spec((1, 1, 4, 8), (1, 1, 4, 8), (1, 1, 4, 8), "fp32", "bool", (1, 1, 4, 4), fill)
    allowed = advice.dense_mask(spec, "cpu")
    assert allowed.shape == (1, 1, 4, 4) and allowed.dtype == torch.bool
    assert allowed[0, 0, 2].int().tolist() == row  # query 2 of 4
    additive = advice.dense_mask(Spec((1, 1, 4, 8), (1, 1, 4, 8), (1, 1, 4, 8), "fp32", "float", (1, 1, 4, 4), fill),
                                 "cpu")  # fmt: skip
    assert torch.equal(additive == 0, allowed) and torch.isinf(additive[~allowed]).all()


def test_a_query_shorter_than_the_keys_is_aligned_to_the_last_key():
    spec = Spec((1, 1, 1, 8), (1, 1, 5, 8), (1, 1, 5, 8), "fp32", "bool", (1, 1, 1, 5))
    assert advice.dense_mask(spec, "cpu").all()  # one new token sees the whole cache


def test_the_hand_written_call_computes_attention():
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 4, 16, 8, generator=gen, dtype=torch.float64) for _ in range(3))
    allowed = torch.ones(16, 16, dtype=torch.bool).tril()
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert torch.allclose(advice.handwritten(q, k, v, allowed, 0.0, False, False), want)
    additive = torch.zeros(16, 16, dtype=torch.float64).masked_fill(~allowed, -math.inf)
    assert torch.allclose(advice.handwritten(q, k, v, additive, 0.0, True, False), want)


def test_expanded_keys_are_repeated_per_head_as_repeat_kv_does():
    k = torch.arange(2 * 2 * 3 * 1, dtype=torch.float32).view(2, 2, 3, 1)
    out = advice.expand_heads(k, 4)
    assert out.shape == (2, 4, 3, 1)
    assert torch.equal(out, torch.repeat_interleave(k, 2, dim=1))
