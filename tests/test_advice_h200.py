"""``attnprof explain --measure`` as it ran on an H200 (device call of 2026-12-03, scripts/probe_advice.py, torch
2.11+cu130): traces of code nobody here wrote (a transformers Llama built from a config in fp32 and bf16 with GQA,
with eager attention, a padded batch, generate with a KV cache; nn.MultiheadAttention with dropout), read here, and
the options the H200 measured for each call, judged by the noise rules. The traces and the measurements are fixtures
in tests/data/foreign/h200-advice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnprof.analysis import advice, attention
from attnprof.analysis import explain as ex
from attnprof.records import advice as records
from attnprof.records import foreign

DATA = Path(__file__).parent / "data" / "foreign" / "h200-advice"
FACTS = json.loads((DATA / "probe-facts.json").read_text())
CASES = ("hf_fp32_gqa_train", "hf_bf16_gqa_train", "hf_eager_fp32_train", "hf_padded_infer", "hf_generate",
         "mha_dropout_train")  # fmt: skip


def reading(case: str) -> ex.Explanation:
    return ex.explain(foreign.load(DATA / f"{case}.json.gz", inputs_of=attention.wants_inputs))


def measured(case: str) -> records.Advice:
    return records.load(DATA / f"advice__{case}.json.gz")


def best(case: str) -> advice.Verdict:
    found = advice.verdicts(measured(case))
    assert len(found) >= 1
    return found[0]


@pytest.mark.parametrize("case", CASES)
def test_every_measurement_ran_on_the_traces_gpu_and_loads_through_the_schema(case):
    a = measured(case)
    assert (a.device, a.status, a.trace_device) == ("cuda", "measured", "NVIDIA H200")
    assert a.environment is not None and a.environment.device_name == "NVIDIA H200" and FACTS["gpu"] == "NVIDIA H200"
    assert a.seconds <= a.budget_s and a.cases
    for c in a.cases:
        recorded = c.option("recorded")
        assert recorded is not None and recorded.status == "ok", (case, recorded)
        # measured here against the trace's own GPU time of the call: the same GPU, the same call, within 2x
        assert 0.5 < recorded.time_us.median / c.trace_us < 2.0, (case, recorded.time_us, c.trace_us)


def test_an_fp32_model_with_gqa_runs_math_and_bf16_saves_most_of_its_attention():
    x = reading("hf_fp32_gqa_train")
    assert {c.call.backend for c in x.calls} == {"math"}
    v = best("hf_fp32_gqa_train")
    assert v.outcome == "faster" and v.saves_us.lo > 0 and v.share.lo > 0.05
    assert any("bf16" in m.option.key for m in v.fastest)
    refused = {m.option.backend for m in v.case.options if m.status != "ok"}
    assert {"FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"} <= refused  # in PyTorch's words
    assert all(m.reason for m in v.case.options if m.status != "ok")


def test_the_same_model_in_bf16_already_runs_cudnn_and_nothing_beats_it_beyond_the_noise():
    assert {c.call.backend for c in reading("hf_bf16_gqa_train").calls} == {"cudnn"}
    assert best("hf_bf16_gqa_train").outcome in ("recorded", "tie")


def test_eager_attention_is_hand_written_and_sdpa_with_the_flags_it_points_to_wins():
    x = reading("hf_eager_fp32_train")
    assert all(c.call.kind == "handwritten" for c in x.calls)
    v = best("hf_eager_fp32_train")
    assert v.outcome == "faster" and v.saves_us.lo > 0
    (fastest,) = v.fastest
    assert {"causal", "bf16"} <= set(fastest.option.key.split(":")[-1].split("+"))


def test_a_padded_batch_keeps_its_mask_and_is_told_what_causal_and_gqa_would_save():
    x = reading("hf_padded_infer")
    assert {c.call.backend for c in x.calls} == {"cudnn"}
    v = best("hf_padded_infer")
    assert v.outcome == "faster" and "causal" in v.fastest[0].option.key
    assert "mask_fill" in v.case.notes  # the page says the same result needs the causal triangle


def test_generate_is_measured_as_its_prefill_and_its_decode_calls():
    a = measured("hf_generate")
    assert len(a.cases) == 2, [c.spec for c in a.cases]
    prefill, decode = sorted(a.cases, key=lambda c: -c.spec.query[2])
    assert prefill.spec.query[2] == FACTS["sizes"]["prompt"] and prefill.kv is None
    assert decode.spec.query[2] == 1 and decode.kv is not None and decode.kv[0] < decode.kv[-1]  # the growing cache


def test_multihead_attention_with_dropout_is_rebuilt_and_bf16_is_its_fastest_change():
    v = best("mha_dropout_train")
    assert v.case.spec.dropout > 0 and v.case.spec.train
    assert v.outcome == "faster" and any("bf16" in m.option.key for m in v.fastest)
