"""Cost before work: memory from the shape (per variant, in the right dtype), CPU time, what the machine has, and
the one-line refusal."""

from __future__ import annotations

import pytest

from attnprof import inputs, variants
from attnprof.measure import cost

README = inputs.make_setup("8,16,1024,64", "bf16", "cpu")


def test_memory_is_inputs_and_output_plus_the_score_matrices_a_variant_keeps():
    b, h, s, d = 8, 16, 1024, 64
    io = 4 * b * h * s * d * 2
    scores = b * h * s * s * 2
    assert cost.variant_bytes("sdpa_flash", (b, h, s, d), "bf16") == io
    assert cost.variant_bytes("naive", (b, h, s, d), "bf16") == io + 2 * scores + s * s
    # the math backend computes the scores in float32 from bfloat16 inputs
    assert cost.variant_bytes("sdpa_math", (b, h, s, d), "bf16") == io + 2 * 2 * scores + s * s
    assert cost.variant_bytes("sdpa_math", (b, h, s, d), "fp64") == 4 * (io + 2 * scores) + s * s
    assert cost.reference_bytes((b, h, s, d)) == 4 * b * h * s * d * 8 + 3 * b * h * s * s * 8 + s * s


def test_the_registry_says_which_variants_keep_score_matrices():
    for v in variants.VARIANTS.values():
        assert (v.score_copies > 0) == v.materializes_scores, v.name
        assert not v.scores_in_float32 or v.materializes_scores


def test_cpu_time_grows_with_the_square_of_the_length_and_fused_kernels_are_cheaper():
    short = cost.call_seconds("naive", (8, 16, 1024, 64), "bf16")
    assert cost.call_seconds("naive", (8, 16, 2048, 64), "bf16") == pytest.approx(4 * short)
    assert cost.call_seconds("sdpa_flash", (8, 16, 1024, 64), "bf16") < short
    whole = cost.profile_seconds("naive", (8, 16, 1024, 64), "bf16")
    assert whole > 50 * short  # warm-up, profiler steps, timed calls, dispatch, reference
    assert cost.profile_seconds("flex", (1, 1, 8, 8), "fp32") >= cost.COMPILE_S


def test_available_memory_on_the_cpu_comes_from_the_kernel(tmp_path):
    limit = cost.available("cpu")
    assert limit is not None and limit.bytes > 0 and "available RAM" in limit.source
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemAvailable:   1000 kB\n")
    assert cost._meminfo_available(meminfo) == 1000 * 1024
    assert cost._meminfo_available(tmp_path / "missing") is None


def test_a_run_that_does_not_fit_is_refused_in_one_line_naming_estimate_limit_and_override():
    big = inputs.make_setup("8,16,65536,64", "bf16", "cpu")
    estimates = [cost.estimate(n, big) for n in ("sdpa_flash", "naive")]
    with pytest.raises(cost.TooCostly) as caught:
        cost.check(estimates, cost.Limit(16 * 2**30, "available RAM (test)"))
    message = str(caught.value)
    assert message.startswith("naive at [8, 16, 65536, 64] bfloat16 on cpu needs about 2.01 TiB (estimated)")
    assert "more than the 16 GiB of available RAM (test)" in message and "--force" in message
    assert "\n" not in message


def test_a_run_that_would_take_hours_on_the_cpu_is_refused():
    slow = inputs.make_setup("1,1,4194304,8", "fp32", "cpu")
    (est,) = [cost.estimate("sdpa_flash", slow)]
    assert est.bytes < 2**30 and est.seconds > cost.MAX_CPU_SECONDS
    with pytest.raises(cost.TooCostly, match=r"would take about .* h \(estimated\), more than the 1 h"):
        cost.check([est], cost.Limit(2**40, "test"))


def test_readmes_shape_fits_and_is_estimated_in_minutes():
    estimates = [cost.estimate(n, README, limit=cost.Limit(64 * 2**30, "test")) for n in variants.VARIANTS]
    cost.check(estimates, cost.Limit(64 * 2**30, "test"))
    total = sum(e.seconds for e in estimates) * cost.cpu_threads() / 2  # as on a 2-core machine
    assert 60 < total < 30 * 60
    assert all(e.seconds is None for e in [cost.estimate("naive", inputs.make_setup("1,1,8,8", "fp32", "cuda"))])


def test_human_units():
    assert cost.human_bytes(17179869184) == "16 GiB" and cost.human_bytes(512) == "512 B"
    assert cost.human_seconds(42.1) == "42 s" and cost.human_seconds(400) == "6.7 min"
    assert cost.human_seconds(11000) == "3.1 h"


def test_a_decoding_step_holds_its_kv_cache_and_the_copy_some_variants_make_of_it():
    q, cache = (1, 8, 1, 64), (1, 2, 10**11, 64)  # one token against a cache of 10**11 positions, 2 KV heads
    flash = cost.variant_bytes("sdpa_flash", q, "bfloat16", cache)
    assert flash == (2 * 8 * 64 + 2 * 2 * 10**11 * 64) * 2  # the query and output, the keys and values
    naive = cost.variant_bytes("naive", q, "bfloat16", cache)
    assert naive > flash + 2 * 8 * 10**11 * 64 * 2  # and the cache repeated up to the 8 query heads, and its scores
    assert cost.variant_bytes("sdpa_flash", q, "bfloat16") == 4 * 8 * 64 * 2  # without a cache: as before
    setup = inputs.make_setup("1,8,1,64", "bf16", "cpu", kv_heads=2, kv_len=10**11)
    e = cost.estimate("sdpa_flash", setup)
    assert e.bytes == flash and e.reference_bytes > 2 * 2 * 10**11 * 64 * 4 and e.seconds > 3600
    with pytest.raises(cost.TooCostly, match=r"KV cache \[1, 2, 100000000000, 64\] needs about 46.6 TiB"):
        cost.check([e], cost.Limit(64 << 30, "test"))
    short = cost.estimate("sdpa_flash", inputs.make_setup("1,8,1,64", "bf16", "cpu", kv_heads=2, kv_len=1024))
    cost.check([short], cost.Limit(64 << 30, "test"))  # a short cache fits
    assert cost.human_seconds(950_000) == "264 h"
