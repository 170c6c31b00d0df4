"""Planning ``explain --measure`` from real traces of code nobody here wrote (transformers, torch.nn), and judging
what the options measured by the noise rules."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from attnprof import noise
from attnprof.analysis import advice, attention
from attnprof.analysis import explain as ex
from attnprof.noise import Figure
from attnprof.records import foreign
from attnprof.records.advice import FLEX, Case, Measured, Option, Spec

DATA = Path(__file__).parent / "data" / "foreign"
ADVICE = DATA / "cpu-advice"


def read(path: Path) -> ex.Explanation:
    return ex.explain(foreign.load(path, inputs_of=attention.wants_inputs))


def keys(case: Case) -> list[str]:
    return [m.option.key for m in case.options]


def test_a_padded_batch_with_expanded_kv_gets_gqa_causal_and_flex_options():
    plan = advice.plan(read(ADVICE / "hf_padded_infer.json.gz"), "cpu")
    assert plan.status == "dry_run" and plan.device == "cpu" and plan.trace_device is None
    (case,) = plan.cases
    s = case.spec
    assert (case.kind, case.backend, s.train, s.dtype) == ("sdpa", "flash", False, "bf16")
    assert (s.mask, s.mask_shape, s.mask_fill, s.expanded_from) == ("bool", (2, 1, 32, 32), "causal", 2)
    assert s.key == (2, 4, 32, 16) and s.strides is not None  # the call's (expanded) keys, as recorded
    assert case.notes == ["mask_fill"] and case.trace_us > 0 and case.calls_per_step == 2
    assert keys(case) == ["recorded", "sdpa:MATH", "sdpa:auto", "sdpa:auto+gqa", "sdpa:auto+causal",
                          "sdpa:auto+gqa+causal", "flex+gqa"]  # fmt: skip
    gqa = case.option("sdpa:auto+gqa").option.spec
    assert gqa.key == (2, 2, 32, 16) and gqa.gqa and gqa.expanded_from is None and gqa.mask == "bool"
    assert case.option("sdpa:auto+causal").option.spec.mask == "causal"
    assert case.option("recorded").option.backend == "FLASH_ATTENTION"
    assert case.option("flex+gqa").option.flex


def test_on_cuda_every_backend_is_an_option():
    plan = advice.plan(read(ADVICE / "hf_padded_infer.json.gz"), "cuda")
    assert keys(plan.cases[0])[:4] == ["recorded", "sdpa:EFFICIENT_ATTENTION", "sdpa:CUDNN_ATTENTION", "sdpa:MATH"]


def test_a_hand_written_call_with_dropout_is_rebuilt_from_its_products():
    (case,) = advice.plan(read(ADVICE / "mha_dropout_train.json.gz"), "cpu").cases
    s = case.spec
    # nn.MultiheadAttention's bmm of [batch * heads, seq, head_dim]: one batch of 8 heads
    assert (s.query, s.key, s.value) == ((1, 8, 32, 16),) * 3
    assert (s.dropout, s.train, s.mask, s.dtype) == (0.1, True, "none", "fp32")
    assert keys(case) == ["recorded", "sdpa:FLASH_ATTENTION", "sdpa:MATH", "sdpa:auto", "sdpa:auto+bf16"]
    assert case.option("recorded").option.method == "handwritten"
    assert case.option("sdpa:auto").option.changes == ("sdpa",)
    assert not any(m.option.flex for m in case.options)  # FlexAttention has no dropout


def test_eager_attention_in_fp32_points_to_every_change_and_all_together():
    (case,) = advice.plan(read(ADVICE / "hf_eager_fp32_train.json.gz"), "cpu").cases
    s = case.spec
    assert (s.mask, s.expanded_from, s.train, s.dtype) == ("float", 2, True, "fp32")
    assert "mask_assumed" in case.notes
    every = case.option("sdpa:auto+gqa+causal+bf16").option.spec
    assert (every.dtype, every.mask, every.gqa, every.key[1]) == ("bf16", "causal", True, 2)
    # the trace's time is forward and backward together
    x = read(ADVICE / "hf_eager_fp32_train.json.gz")
    fwd, bwd = (x.groups[g] for g in case.groups)
    assert case.trace_us == pytest.approx(fwd.cpu_us + bwd.cpu_us, rel=1e-3)


def test_an_fp32_sdpa_call_with_gqa_gets_the_bf16_change_only():
    (case,) = advice.plan(read(ADVICE / "hf_fp32_gqa_train.json.gz"), "cpu").cases
    assert case.spec.gqa and case.spec.mask == "causal"
    assert keys(case) == ["recorded", "sdpa:MATH", "sdpa:auto", "sdpa:auto+bf16"]


def test_the_multi_head_attention_fast_path_is_rebuilt_from_the_sdpa_op_inside():
    (case,) = advice.plan(read(DATA / "h200" / "encoder_infer.json.gz"), "cuda").cases
    assert case.kind == "mha" and case.spec.query == (2, 4, 32, 16) and case.spec.dtype == "fp32"


def test_flex_and_gpu_facts():
    (case,) = advice.plan(read(DATA / "cpu" / "flex.json.gz"), "cpu").cases
    s = case.spec  # the block mask is not in the trace: it stands as a dense mask of --mask's fill
    assert case.kind == FLEX and case.notes == ["block_mask"]
    assert (s.query, s.mask, s.mask_shape, s.mask_fill, s.dtype) == ((2, 4, 128, 16), "bool", (1, 1, 128, 128),
                                                                     "causal", "fp32")  # fmt: skip
    assert keys(case) == ["recorded", "sdpa:FLASH_ATTENTION", "sdpa:MATH", "sdpa:auto", "sdpa:auto+causal",
                          "sdpa:auto+bf16", "sdpa:auto+causal+bf16"]  # fmt: skip
    assert case.option("recorded").option.flex and case.option("sdpa:auto").option.changes == ("sdpa",)
    plan = advice.plan(read(DATA / "h200" / "hf_sdpa_train.json.gz"), "cuda")
    assert (plan.trace_device, plan.trace_cuda) == ("NVIDIA H200", "13.0")
    assert plan.cases[0].trace_us == pytest.approx(5.51 + 11.9, abs=0.05)  # GPU µs of the forward and its backward


def test_a_trace_without_shapes_says_so(tmp_path):
    raw = json.loads(gzip.decompress((ADVICE / "hf_padded_infer.json.gz").read_bytes()))
    for e in raw["traceEvents"]:
        for k in ("Input Dims", "Input type", "Concrete Inputs", "Input Strides"):
            e.get("args", {}).pop(k, None)
    raw["record_shapes"] = 0
    path = tmp_path / "noshapes.json"
    path.write_text(json.dumps(raw))
    (case,) = advice.plan(read(path), "cpu").cases
    assert case.unmeasured == "no_shapes" and case.spec is None and case.options == []


def test_max_calls_keeps_the_costliest():
    x = read(DATA / "cpu" / "hf_generate.json.gz")
    plan = advice.plan(x, "cpu", max_calls=1)
    assert [c.unmeasured for c in plan.cases] == [None, "max_calls"]
    costs = [c.trace_us * c.calls_per_step for c in plan.cases]
    assert costs == sorted(costs, reverse=True)


def test_decoding_against_a_growing_cache_is_measured_at_its_median_length():
    plan = advice.plan(read(DATA / "cpu" / "hf_generate.json.gz"), "cpu")
    prefill, decode = sorted(plan.cases, key=lambda c: c.spec.query[2], reverse=True)
    assert prefill.spec.query == (1, 4, 8, 16) and prefill.spec.mask == "causal" and prefill.kv is None
    assert decode.kv == [9, 11, 10] and decode.spec.key == (1, 2, 10, 16) and "decode" in decode.notes
    assert decode.calls_per_step == 6


def test_mask_fill_takes_three_forms_and_names_a_bad_one():
    assert advice.mask_fill(" Sliding=256 ") == "sliding=256"
    assert advice.mask_fill("documents=4") == "documents=4" and advice.mask_fill("causal") == "causal"
    for bad in ("sliding", "sliding=0", "documents=x", "window=3"):
        with pytest.raises(ValueError, match="expected causal, sliding=W"):
            advice.mask_fill(bad)
    plan = advice.plan(read(ADVICE / "hf_padded_infer.json.gz"), "cpu", fill="sliding=8")
    case = plan.cases[0]
    assert case.spec.mask_fill == "sliding=8" and "sdpa:auto+causal" not in keys(case)  # not a causal mask


# --- verdicts -------------------------------------------------------------------------------------------------------

SPEC = Spec((1, 8, 1024, 64), (1, 8, 1024, 64), (1, 8, 1024, 64), "bf16")


def case_of(**times: tuple[float, float, float] | None) -> Case:
    opts = []
    for key, t in times.items():
        code = "recorded" if key == "recorded" else "backend"
        o = Option(code, "sdpa", key.upper() if code == "backend" else "MATH", (), SPEC)
        opts.append(Measured(o, "ok" if t else "failed", None, Figure(*t, 30) if t else None))
    return Case(1, [0], "sdpa", "math", False, SPEC, 4.0, 50.0, opts)


def test_a_clear_winner_saves_its_difference_per_step_with_the_band():
    c = case_of(recorded=(100.0, 98.0, 102.0), flash=(40.0, 39.0, 41.0), cudnn=(41.0, 40.0, 42.0))
    v = advice.verdict(c, "cuda", 2000.0)
    assert v.outcome == "faster"
    assert [m.option.key for m in v.fastest] == ["sdpa:FLASH", "sdpa:CUDNN"]  # tied with each other
    here, best = Figure(100.0, 98.0, 102.0, 30), Figure(40.0, 39.0, 41.0, 30)
    lo = (here.band(noise.GPU_FLOOR)[0] - best.band(noise.GPU_FLOOR)[1]) * 4
    assert v.saves_us.median == pytest.approx(240.0) and v.saves_us.lo == pytest.approx(lo)
    assert v.share.median == pytest.approx(240.0 / 2000.0)
    total, share = advice.total([v], 2000.0)
    assert total.median == pytest.approx(240.0) and share.median == pytest.approx(0.12)


def test_overlapping_bands_are_too_close_to_call_and_save_nothing():
    v = advice.verdict(case_of(recorded=(100.0, 96.0, 104.0), flash=(98.0, 95.0, 101.0)), "cuda", 2000.0)
    assert v.outcome == "tie" and v.saves_us is None
    assert advice.total([v], 2000.0) == (None, None)
    # a difference within the minimum effect is a tie however narrow the bands
    v = advice.verdict(case_of(recorded=(100.0, 99.9, 100.1), flash=(97.0, 96.9, 97.1)), "cuda", None)
    assert v.outcome == "tie"
    # on the CPU the floor is wider: 15 % apart is still a tie
    assert (
        advice.verdict(case_of(recorded=(100.0, 99.0, 101.0), flash=(85.0, 84.0, 86.0)), "cpu", None).outcome == "tie"
    )


def test_the_recorded_call_fastest_unreliable_or_missing():
    assert advice.verdict(case_of(recorded=(40.0, 39.0, 41.0), math=(90.0, 88.0, 92.0)), "cuda", 1.0).outcome == (
        "recorded")  # fmt: skip
    wide = advice.verdict(case_of(recorded=(40.0, 10.0, 90.0), math=(90.0, 88.0, 92.0)), "cuda", 1.0)
    assert wide.outcome == "unreliable" and [m.option.key for m in wide.unreliable] == ["recorded"]
    gone = advice.verdict(case_of(recorded=None, math=(90.0, 88.0, 92.0)), "cuda", 1.0)
    assert gone.outcome == "unmeasured" and gone.here is None


def test_floors_follow_the_device():
    assert advice.floors("cuda") == (noise.GPU_FLOOR, noise.GPU_MIN_EFFECT)
    assert advice.floors("cpu") == (noise.CPU_FLOOR, noise.CPU_MIN_EFFECT)
    assert FLEX == "flex"
