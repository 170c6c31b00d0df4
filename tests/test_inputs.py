"""attnprof.inputs: what a run runs on (shape, dtype, device, a KV cache), its random inputs and the float64
yardstick; bad values are one line naming the value and what is accepted."""

from __future__ import annotations

import math

import pytest
import torch

from attnprof import inputs, variants


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: inputs.parse_shape("8,16,1024"), "bad shape '8,16,1024'; expected four positive integers"),
        (lambda: inputs.parse_shape("8,16,0,64"), "bad shape '8,16,0,64'"),
        (lambda: inputs.parse_shape("a,b,c,d"), "bad shape 'a,b,c,d'"),
        (lambda: inputs.canonical_dtype("bf8"), "unknown dtype 'bf8'; choose one of: bf16, bfloat16"),
        (lambda: inputs.make_setup("1,1,8,8", "bf16", "tpu"), "unknown device 'tpu'; choose one of: cuda, cpu"),
        (lambda: inputs.make_setup("1,6,1,8", "bf16", "cpu", kv_heads=4), "bad kv_heads 4: the 6 query heads"),
        (lambda: inputs.make_setup("1,6,1,8", "bf16", "cpu", kv_heads=4), "choose one of: 1, 2, 3, 6"),
        (
            lambda: inputs.make_setup("1,4,1,8", "bf16", "cpu", kv_len="long"),
            "bad kv_len 'long'; expected a positive",
        ),
        (lambda: inputs.positive_int("heads", "-2", "16"), "bad heads '-2'; expected a positive integer such as 16"),
        (lambda: inputs.element_bytes("int8"), "unknown dtype 'int8'"),
    ],
)
def test_bad_values_are_one_line_naming_the_value(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_shape_and_dtype_spellings():
    assert inputs.parse_shape("8,16,1024,64") == (8, 16, 1024, 64)
    assert inputs.parse_shape("8x16x1024x64") == (8, 16, 1024, 64)
    assert inputs.parse_shape([1, 2, 3, 4]) == (1, 2, 3, 4)
    assert inputs.canonical_dtype("BF16") == "bfloat16" and inputs.canonical_dtype("half") == "float16"
    assert [inputs.element_bytes(d) for d in ("bf16", "fp16", "fp32", "fp64")] == [2, 2, 4, 8]
    assert inputs.positive_int("n", " 8 ", "1") == 8


def test_a_setup_describes_itself_and_its_cache():
    plain = inputs.make_setup("1,4,256,64", "fp32", "cpu")
    assert plain.kv_shape == plain.shape and plain.describe() == "[1, 4, 256, 64] float32 on cpu"
    cache = inputs.make_setup("2,8,1,64", "bf16", "cpu", kv_heads="2", kv_len=4096)
    assert (cache.kv_heads, cache.kv_len, cache.kv_shape) == (2, 4096, (2, 2, 4096, 64))
    assert cache.describe() == "[2, 8, 1, 64] bfloat16 on cpu, KV cache [2, 2, 4096, 64]"


def test_default_setup_on_cpu_uses_the_small_shape():
    s = inputs.default_setup("cpu")
    assert s.shape == inputs.CPU_SHAPE and s.device == "cpu" and s.dtype == "bfloat16"
    assert inputs.default_setup("cuda").shape == inputs.REFERENCE_SHAPE


def test_causal_flops_counts_two_half_matmuls():
    b, h, s, d = 8, 16, 1024, 64
    assert inputs.causal_flops((b, h, s, d)) == 0.5 * (2 * (2 * b * h * s * s * d))


def test_inputs_are_random_normal_repeat_with_their_seed_and_take_the_caches_shape():
    setup = inputs.make_setup("1,4,1,16", "fp32", "cpu", kv_heads=2, kv_len=512)
    q, k, v = inputs.make_inputs(setup)
    assert (q.shape, k.shape, v.shape) == (setup.shape, setup.kv_shape, setup.kv_shape)
    assert q.dtype == torch.float32 and q.device.type == "cpu"
    assert abs(float(k.mean())) < 0.1 and 0.9 < float(k.std()) < 1.1  # standard normal, never zeros
    again = inputs.make_inputs(setup)
    assert all(torch.equal(a, b) for a, b in zip((q, k, v), again, strict=True))
    assert not torch.equal(q, inputs.make_inputs(setup, seed=1)[0])
    assert inputs.make_inputs(inputs.make_setup("1,1,8,8", "bf16", "cpu"))[0].dtype == torch.bfloat16


def test_the_float64_yardstick_is_causal_attention():
    q, k, v = inputs.make_inputs(inputs.make_setup("1,2,16,8", "fp32", "cpu"))
    ref = inputs.reference_attention(q, k, v)
    assert ref.dtype == torch.float64
    expected = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    torch.testing.assert_close(ref, expected)
    torch.testing.assert_close(ref[:, :, 0], v[:, :, 0].double())  # the first query sees the first key alone
    assert inputs.relative_error(variants.get("naive").build(16, "cpu")(q, k, v), ref) < 1e-6


def test_relative_error():
    ref = torch.ones(4, dtype=torch.float64)
    assert inputs.relative_error(ref.float(), ref) == 0.0
    assert inputs.relative_error(torch.tensor([1.0, 1.0, 1.0, 3.0]), ref) == pytest.approx(1.0)
    nan = torch.tensor([1.0, float("nan"), 1.0, 1.0])
    assert math.isnan(inputs.relative_error(nan, ref))  # NaN anywhere gives NaN


@pytest.mark.parametrize("text", ["2_56", "+8", "٣", " ", "1e3", "0x10", "8.0", "nan"])
def test_numbers_are_plain_integers_only(text):
    assert inputs.plain_int(text) is None
    with pytest.raises(ValueError, match="expected a positive integer"):
        inputs.positive_int("kv_len", text, "4096")
    with pytest.raises(ValueError, match="bad shape"):
        inputs.parse_shape(f"1,{text},8,8")


def test_plain_numbers_and_names_in_any_case():
    assert [inputs.plain_number(v) for v in ("45", "0.1", ".5", "1e3", "1_0", "inf", "-5")] == [
        45.0, 0.1, 0.5, 1000.0, None, None, None
    ]  # fmt: skip
    assert inputs.make_setup("1X1X8X8", "FP16", "CPU").describe() == "[1, 1, 8, 8] float16 on cpu"
    with pytest.raises(ValueError, match=r"^unknown device 'x{59}…'; choose one of: cuda, cpu$"):
        inputs.canonical_device("x" * 10_000)
