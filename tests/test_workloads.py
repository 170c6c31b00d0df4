"""attnprof.workloads: the registry and its facts, setups and their one-line errors, the build's plan, the FLOP and
byte accounting (the steps themselves: test_steps.py)."""

from __future__ import annotations

import pytest
import torch

from attnprof import inputs, variants, workloads

DECODE = inputs.make_setup((2, 8, 1, 16), "float32", "cpu", kv_heads=2, kv_len=40)
TRAIN = inputs.make_setup((1, 2, 32, 16), "float32", "cpu")


def test_registry_and_unknown_names():
    assert list(workloads.WORKLOADS) == ["prefill", "train", "decode"]
    assert workloads.get("train").annotation("sdpa_flash") == "sdpa_flash_train"
    assert workloads.get("train").phases == ("fwd", "bwd")
    assert workloads.get("decode").annotation("naive") == "naive_decode"
    assert workloads.get("prefill").annotation("naive") == variants.get("naive").annotation
    with pytest.raises(ValueError, match=r"^unknown workload 'trian'; choose one of: prefill, train, decode$"):
        workloads.get("trian")


def test_the_facts_of_each_workload_live_on_the_registry():
    facts = {
        w.name: (w.article, w.sweeps, w.backward, w.kv_cache, w.graph_replay) for w in workloads.WORKLOADS.values()
    }
    assert facts == {
        "prefill": (True, True, False, False, False),
        "train": (False, False, True, False, False),
        "decode": (False, False, False, True, True),
    }
    assert workloads.article() == "prefill" and all(w.grad == w.backward for w in workloads.WORKLOADS.values())
    assert variants.sdpa_chooser() == "sdpa_auto" and variants.names(sdpa_chooses=True) == ("sdpa_auto",)
    assert variants.names(slow_decode=True) == ("naive", "sdpa_math")


def test_which_variants_take_part_lives_on_the_registry():
    assert variants.for_workload("train") == tuple(variants.VARIANTS)
    assert set(variants.for_workload("decode")) == {"naive", "sdpa_math", "sdpa_efficient", "sdpa_flash",
                                                    "sdpa_cudnn", "sdpa_auto", "flex"}  # fmt: skip
    assert "no mask to fill" in variants.get("naive_inplace").why_not("decode")
    with pytest.raises(ValueError) as err:
        workloads.check("compiled_naive", "decode")
    message = str(err.value)
    assert "\n" not in message and "'compiled_naive'" in message and "choose one of: naive, sdpa_math" in message
    assert variants.names(graph=True) == ("sdpa_flash", "sdpa_cudnn", "sdpa_auto")


def test_naive_inplace_docstring_no_longer_claims_autograd_is_unsafe():
    doc = variants.naive_inplace_attention.__doc__ or ""
    assert "no gradient is recorded" not in doc and "autograd" in doc
    assert "only without autograd" not in variants.get("naive_inplace").requirements


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(kv_heads=3), r"^bad kv_heads 3: the 8 query heads must share .* groups; choose one of: 1, 2, 4, 8$"),
        (dict(kv_heads=0), r"^bad kv_heads 0; expected a positive integer such as 8$"),
        (dict(kv_len="long"), r"^bad kv_len 'long'; expected a positive integer such as 4096$"),
    ],
)
def test_bad_cache_sizes_give_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message):
        inputs.make_setup((1, 8, 1, 16), "bf16", "cpu", **kwargs)


def test_setups_must_fit_their_workload():
    with pytest.raises(ValueError, match=r"^a KV cache \(kv_heads, kv_len\) belongs to the decode workload, not "):
        workloads.check_setup("train", DECODE)
    with pytest.raises(ValueError, match=r"^bad decode shape \[2, 8, 3, 16\]: S is the number of new tokens"):
        workloads.check_setup("decode", inputs.make_setup((2, 8, 3, 16), "fp32", "cpu", kv_len=64))
    # B,H,L,D without a cache: one new token against a cache of L, no grouping
    s = workloads.check_setup("decode", inputs.make_setup((2, 8, 64, 16), "fp32", "cpu"))
    assert (s.shape, s.kv_heads, s.kv_len, s.kv_shape) == ((2, 8, 1, 16), 8, 64, (2, 8, 64, 16))
    assert workloads.check_setup("decode", DECODE) is DECODE
    assert DECODE.describe() == "[2, 8, 1, 16] float32 on cpu, KV cache [2, 2, 40, 16]"


def test_default_setups():
    d = workloads.default_setup("decode", "cpu")
    assert (d.shape, d.kv_heads, d.kv_len) == (workloads.CPU_DECODE_SHAPE, 2, workloads.CPU_DECODE_LENS[0])
    assert workloads.default_setup("train", "cpu") == inputs.default_setup("cpu")


def test_flop_and_byte_accounting():
    b, h, s, d = TRAIN.shape
    assert workloads.train_flops(TRAIN) == 3.5 * 2 * b * h * s * s * d
    assert workloads.BACKWARD_FLOP_FACTOR == 2.5
    assert workloads.decode_flops(DECODE) == 4 * 2 * 8 * 1 * 40 * 16
    # k and v read once (2 x 2 KV heads x 40 x 16 per sequence), q read and the output written (2 x 8 x 16)
    assert workloads.decode_bytes(DECODE) == (2 * 2 * 2 * 40 * 16 + 2 * 2 * 8 * 16) * 4
    bf16 = inputs.make_setup((8, 32, 1, 128), "bf16", "cpu", kv_heads=8, kv_len=131072)
    assert workloads.decode_bytes(bf16) == 4 * 8 * 8 * 131072 * 128 + 4 * 8 * 32 * 128  # the probe's byte count


def test_the_build_plan_on_a_gpu():
    plan = workloads.plan("decode", "cuda")
    lens = {v: sorted(p.setup.kv_len for p in plan if p.variant == v) for v in {p.variant for p in plan}}
    assert lens["sdpa_flash"] == list(workloads.DECODE_LENS) == lens["sdpa_efficient"]
    assert lens["sdpa_math"] == [n for n in workloads.DECODE_LENS if n <= workloads.DECODE_SLOW_MAX_LEN]
    assert lens["naive"] == lens["sdpa_math"]
    assert lens["flex"] == [workloads.DECODE_COMPILED_LEN]
    assert workloads.DECODE_COMPILED_LEN in workloads.DECODE_LENS and workloads.GRAPH_LEN in workloads.DECODE_LENS
    graphs = {(p.variant, p.setup.kv_len) for p in plan if p.graph}
    assert graphs == {(v, workloads.GRAPH_LEN) for v in variants.names(graph=True)}
    assert all(p.setup.shape == workloads.DECODE_SHAPE and p.setup.kv_heads == 8 for p in plan)
    train = [p.variant for p in workloads.plan("train", "cuda")]
    assert train == [v for v in variants.VARIANTS if v not in ("compiled_naive", "flex")]


def test_the_build_plan_on_the_cpu_compiles_nothing_but_keeps_the_cuda_only_variants():
    train = [p.variant for p in workloads.plan("train", "cpu")]
    assert "flex" not in train and "compiled_naive" not in train and "sdpa_cudnn" in train
    decode = workloads.plan("decode", "cpu")
    assert {p.setup.kv_len for p in decode} == set(workloads.CPU_DECODE_LENS)
    assert "flex" not in {p.variant for p in decode}
    # the CUDA-graph comparison is planned on the CPU too, where its result records why it cannot run
    assert {(p.variant, p.setup.kv_len) for p in decode if p.graph} == {
        (v, workloads.GRAPH_LEN) for v in variants.names(graph=True)
    }
    assert workloads.GRAPH_LEN in workloads.CPU_DECODE_LENS


def test_the_read_ceiling_times_a_full_reduction():
    from attnprof.measure import timing

    x = torch.arange(8, dtype=torch.float32)
    assert timing.read_all(x).item() == 28.0  # the call read_bandwidth times, on any device
    assert timing.read_bandwidth("cpu") is None
