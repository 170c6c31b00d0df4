"""attnprof.measure.steps: one step of each workload built for a variant and a setup, on the CPU at small shapes
(real autograd, real GQA broadcasting), and the figures only one workload measures."""

from __future__ import annotations

import math

import pytest
import torch

from attnprof import inputs, variants, workloads
from attnprof.measure import steps, timing
from attnprof.records import trace

DECODE = inputs.make_setup((2, 8, 1, 16), "float32", "cpu", kv_heads=2, kv_len=40)
TRAIN = inputs.make_setup((1, 2, 32, 16), "float32", "cpu")
PREFILL = inputs.make_setup((1, 2, 32, 16), "float32", "cpu")


def test_every_workload_has_a_step():
    assert set(steps.BUILDERS) == set(workloads.WORKLOADS)


def test_a_prefill_step_is_the_variants_forward_and_checks_against_float64():
    step = steps.prepare(workloads.get("prefill"), variants.get("naive"), PREFILL)
    assert step.body is step.call and step.forward is None
    with torch.no_grad():
        out = step.call()
        err, grad_err = step.error()
    assert out.shape == PREFILL.shape and err < 1e-5 and grad_err is None


def test_a_training_step_profiles_its_forward_and_backward_in_their_own_annotations():
    step = steps.prepare(workloads.get("train"), variants.get("sdpa_math"), TRAIN)
    _, parsed = timing.capture_trace(step.body, "sdpa_math_train", "cpu")
    (fwd,) = trace.parse_trace(parsed, "sdpa_math_fwd")[:1]
    (bwd,) = trace.parse_trace(parsed, "sdpa_math_bwd")[:1]
    assert fwd.cpu_time_us > 0 and bwd.cpu_time_us > 0
    assert step.tensors[0].grad is not None  # the body ran the backward


def test_the_forward_of_a_training_step_is_timed_alone_on_the_cpu():
    step = steps.prepare(workloads.get("train"), variants.get("naive"), TRAIN)
    figures = steps.train_figures(step, TRAIN, grad_error=2e-6)
    assert figures.fwd_repetitions >= 15 and figures.fwd_ms_p10 <= figures.fwd_ms_median <= figures.fwd_ms_p90
    assert figures.saved_bytes is None  # no allocator to ask on the CPU
    assert figures.grad_rel_error == 2e-6
    assert math.isnan(steps.train_figures(step, TRAIN, grad_error=None).grad_rel_error)  # none was checked


def test_a_cuda_graph_needs_a_cuda_device():
    step = steps.prepare(workloads.get("decode"), variants.get("sdpa_math"), DECODE)
    with pytest.raises(RuntimeError, match="CUDA graphs need a CUDA device"):
        steps.graph_figures(step, "sdpa_math_decode_graph", "cpu")


def test_decode_inputs_are_made_on_the_device_and_repeat_with_their_seed():
    a, b = steps.decode_inputs(DECODE, seed=1), steps.decode_inputs(DECODE, seed=1)
    assert [t.shape for t in a] == [DECODE.shape, DECODE.kv_shape, DECODE.kv_shape]
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert not torch.equal(a[0], steps.decode_inputs(DECODE, seed=2)[0])


def test_the_reference_broadcasts_kv_heads_like_repeat_interleave():
    q, k, v = steps.decode_inputs(DECODE)
    group = 8 // 2
    kk, vv = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    expected = torch.softmax(q @ kk.transpose(-2, -1) / 16**0.5, dim=-1) @ vv
    torch.testing.assert_close(steps.decode_reference(q, k, v), expected)
    # and query head 5 uses KV head 1: changing KV head 0 leaves it alone
    k2 = k.clone()
    k2[:, 0] += 3.0
    out, out2 = steps.decode_reference(q, k, v), steps.decode_reference(q, k2, v)
    torch.testing.assert_close(out[:, 4:], out2[:, 4:])
    assert not torch.allclose(out[:, :4], out2[:, :4])


@pytest.mark.parametrize("name", ["naive", "sdpa_math", "sdpa_flash", "sdpa_auto"])
def test_decode_forms_match_the_reference_on_the_cpu(name):
    q, k, v = steps.decode_inputs(DECODE, seed=3)
    with torch.no_grad():
        out = variants.get(name).build_decode(40, "cpu")(q, k, v)
    assert out.shape == (2, 8, 1, 16)
    assert inputs.relative_error(out, steps.decode_reference(q, k, v)) < 1e-5


def test_is_causal_with_one_query_row_is_the_pitfall_the_pages_describe():
    q, k, v = steps.decode_inputs(DECODE, seed=4)
    wrong = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    first_key = v[:, :, :1].repeat_interleave(4, dim=1)
    torch.testing.assert_close(wrong, first_key)  # top-left aligned: the token sees key 0 only
    assert inputs.relative_error(wrong, steps.decode_reference(q, k, v)) > 0.5


@pytest.mark.parametrize("name", ["naive", "naive_inplace", "sdpa_math", "sdpa_flash"])
def test_training_steps_give_the_float64_gradients(name):
    step = steps.prepare(workloads.get("train"), variants.get(name), TRAIN)
    out_err, grad_err = step.error()
    assert out_err < 1e-5 and grad_err < 1e-5
    q = step.tensors[0]
    step.call()
    assert q.grad is not None and q.grad.shape == TRAIN.shape
    first = q.grad.clone()
    step.call()  # gradients are cleared each step, not accumulated
    torch.testing.assert_close(q.grad, first)


def test_in_place_masking_trains_like_out_of_place():
    grads = {}
    for name in ("naive", "naive_inplace"):
        step = steps.prepare(workloads.get("train"), variants.get(name), TRAIN)
        step.call()
        grads[name] = [t.grad.clone() for t in step.tensors[:3]]
    for a, b in zip(grads["naive"], grads["naive_inplace"], strict=True):
        torch.testing.assert_close(a, b)
