"""attnprof.analysis.occupancy: known H200 cases, every limiter, the calculator's rounding rules, bad input, and a
cross-check against the occupancy Kineto estimated for every kernel of the fixture traces."""

from __future__ import annotations

import dataclasses
import doctest
import functools
import gzip
import json
from pathlib import Path

import pytest

from attnprof.analysis import occupancy
from attnprof.analysis.occupancy import explain, theoretical

TRACES = Path(__file__).parent / "data" / "traces"


@functools.cache
def _raw(variant: str) -> dict:
    with gzip.open(TRACES / f"{variant}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


H200 = _raw("sdpa_flash")["deviceProperties"][0]

# An A10-like sm86 part: 1536 threads and 16 blocks per SM, 100 KiB of shared memory.
SM86 = {
    "computeMajor": 8,
    "computeMinor": 6,
    "maxThreadsPerBlock": 1024,
    "maxThreadsPerMultiprocessor": 1536,
    "regsPerBlock": 65536,
    "regsPerMultiprocessor": 65536,
    "warpSize": 32,
    "sharedMemPerMultiprocessor": 102400,
    "sharedMemPerBlockOptin": 101376,
}
# A V100-like sm70 part: no per-block reservation, 256-byte shared-memory granularity.
SM70 = {**SM86, "computeMajor": 7, "computeMinor": 0, "maxThreadsPerMultiprocessor": 2048,
        "sharedMemPerMultiprocessor": 98304, "sharedMemPerBlockOptin": 98304}  # fmt: skip


def test_fixture_device_is_an_h200():
    assert (H200["name"], H200["computeMajor"], H200["computeMinor"]) == ("NVIDIA H200", 9, 0)


def test_flash_on_h200_is_register_limited_at_one_eighth():
    o = theoretical(255, 128, 49152, H200)
    assert (o.blocks_per_sm, o.active_warps, o.max_warps, o.percent, o.limiter) == (2, 8, 64, 12.5, "registers")
    assert o.limits == {"registers": 2, "shared memory": 4, "threads": 16, "blocks per SM": 32}
    assert explain(o) == (
        "2 blocks/SM x 4 warps = 8 of 64 warps (12.5%), limited by registers: "
        "256 regs/thread x 128 threads = 32768 of 65536"
    )


def test_cudnn_sm90_kernel_fits_one_block():
    o = theoretical(168, 384, 134144, H200)
    assert (o.blocks_per_sm, o.active_warps, o.percent) == (1, 12, 18.75)
    # registers and shared memory both allow exactly one block: both are named, registers first
    assert o.limits["registers"] == o.limits["shared memory"] == 1
    assert o.limiters == ("registers", "shared memory") and o.limiter == "registers"
    assert o.shared_memory_per_block == 134144 + 1024
    assert "limited by registers and shared memory: 168 regs/thread" in explain(o)
    assert explain(o).endswith("; 135168 B/block, 1024 reserved included, of 233472 B per SM")


def test_each_limiter_can_win():
    assert theoretical(16, 1024, 0, H200).limiter == "threads"  # 2 blocks of 32 warps
    assert theoretical(32, 128, 100_000, H200).limiter == "shared memory"  # 2 x (100000 + 1024 -> 101120)
    o = theoretical(16, 32, 0, H200)
    assert (o.limiter, o.blocks_per_sm, o.percent) == ("blocks per SM", 32, 50.0)
    assert theoretical(64, 128, 0, H200).limiter == "registers"


def test_limiter_is_always_the_smallest_limit_first_in_order():
    for regs in (0, 32, 64, 96, 128, 168, 200, 255):
        for threads in (32, 96, 128, 256, 384, 1024):
            for smem in (0, 1, 16_000, 49152, 114688, 232448):
                o = theoretical(regs, threads, smem, H200)
                assert o.blocks_per_sm == min(o.limits.values())
                assert o.limiter == next(r for r in occupancy.RESOURCES if o.limits[r] == o.blocks_per_sm)
                assert o.limiters == tuple(r for r in occupancy.RESOURCES if o.limits[r] == o.blocks_per_sm)
                assert o.active_warps == o.blocks_per_sm * o.warps_per_block <= o.max_warps
                assert o.percent == pytest.approx(100 * o.active_warps / o.max_warps)


def test_more_resources_never_mean_more_blocks():
    for threads in (32, 128, 384):
        blocks = [theoretical(r, threads, 0, H200).blocks_per_sm for r in range(0, 256)]
        assert blocks == sorted(blocks, reverse=True)
    blocks = [theoretical(32, 128, s, H200).blocks_per_sm for s in range(0, 232449, 1000)]
    assert blocks == sorted(blocks, reverse=True)


def test_registers_are_allocated_per_warp_in_units_of_256():
    # 255 and 249 registers both round to 256 per thread (8192 per warp); 248 is exactly 7936 per warp
    assert theoretical(255, 128, 0, H200).registers_per_warp == 8192
    assert theoretical(249, 128, 0, H200).registers_per_warp == 8192
    assert theoretical(248, 128, 0, H200).registers_per_warp == 248 * 32


def test_register_sub_partitions_cost_warps():
    # 200 regs -> 6400 per warp. The register file alone would hold 65536 // 6400 = 10 warps, but each of the
    # 4 sub-partitions (16384 registers) holds only 2, so 8 one-warp blocks fit (cuda_occupancy.h).
    o = theoretical(200, 32, 0, H200)
    assert 65536 // o.registers_per_warp == 10
    assert (o.blocks_per_sm, o.limiter) == (8, "registers")
    assert "sub-partitions" in explain(o)
    assert "sub-partitions" not in explain(theoretical(255, 128, 0, H200))


def test_a_block_too_big_for_the_register_file_cannot_launch():
    o = theoretical(255, 1024, 0, H200)  # 32 warps x 8192 registers > regsPerBlock
    assert (o.blocks_per_sm, o.active_warps, o.percent, o.limiter) == (0, 0, 0.0, "registers")
    assert "cannot launch" in explain(o)


def test_shared_memory_reservation_and_granularity():
    # cc >= 8.0: 1 KiB reserved per block, then rounded up to 128 B
    assert theoretical(32, 128, 1, H200).shared_memory_per_block == 1024 + 128
    assert theoretical(32, 128, 0, H200).limits["shared memory"] == 233472 // 1024
    # cc 7.x: nothing reserved, 256-byte granularity
    o = theoretical(32, 128, 1, SM70)
    assert (o.shared_memory_per_block, o.reserved_shared_memory) == (256, 0)
    assert theoretical(32, 128, 0, SM70).limits["shared memory"] == 2**31 - 1
    # a reservation the device reports wins over the default
    assert theoretical(32, 128, 0, {**H200, "reservedSharedMemPerBlock": 0}).limits["shared memory"] == 2**31 - 1


def test_per_architecture_block_limit():
    o = theoretical(16, 32, 0, SM86)
    assert (o.blocks_per_sm, o.max_warps, o.limiter) == (16, 48, "blocks per SM")
    assert o.percent == pytest.approx(100 * 16 / 48)
    assert theoretical(16, 32, 0, {**SM86, "computeMinor": 9}).blocks_per_sm == 24  # Ada
    assert theoretical(16, 32, 0, H200).blocks_per_sm == 32


@pytest.mark.parametrize(
    ("args", "pieces"),
    [
        ((32, 0, 0), ["threads_per_block=0", "1..1024"]),
        ((32, -4, 0), ["threads_per_block=-4", "1..1024"]),
        ((32, 1025, 0), ["threads_per_block=1025", "1..1024", "maxThreadsPerBlock"]),
        ((256, 128, 0), ["registers_per_thread=256", "0..255"]),
        ((-1, 128, 0), ["registers_per_thread=-1", "0..255"]),
        ((32, 128, 232449), ["shared_memory=232449", "0..232448", "sharedMemPerBlockOptin"]),
        ((32, 128, -1), ["shared_memory=-1"]),
    ],
)
def test_bad_input_names_value_and_range(args, pieces):
    with pytest.raises(ValueError) as err:
        theoretical(*args, H200)
    for piece in pieces:
        assert piece in str(err.value)


def test_the_largest_legal_values_are_accepted():
    assert theoretical(255, 1024 // 4, 232448, H200).blocks_per_sm == 1
    assert theoretical(0, 1, 0, H200).blocks_per_sm == 32


def test_missing_properties_and_unknown_devices():
    with pytest.raises(ValueError, match="lack regsPerMultiprocessor, warpSize"):
        theoretical(32, 128, 0, {k: v for k, v in H200.items() if k not in ("regsPerMultiprocessor", "warpSize")})
    with pytest.raises(ValueError, match="has: nothing"):
        theoretical(32, 128, 0, {})
    with pytest.raises(ValueError, match=r"compute capability 9\.9 .*known: .*9\.0"):
        theoretical(32, 128, 0, {**H200, "computeMinor": 9})


def test_occupancy_is_frozen_and_hashable():
    o = theoretical(255, 128, 49152, H200)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.percent = 100.0  # type: ignore[misc]
    assert hash(o) == hash(theoretical(255, 128, 49152, H200))
    assert o == theoretical(255, 128, 49152, H200) != theoretical(255, 256, 49152, H200)


def test_explain_covers_every_limiter():
    assert explain(theoretical(16, 1024, 0, H200)).endswith(
        "limited by threads: 32 warps/block, of 64 warp slots per SM"
    )
    assert "limited by shared memory: 101120 B/block, 1024 reserved included, of 233472 B per SM" in explain(
        theoretical(32, 128, 100_000, H200)
    )
    assert "limited by blocks per SM: at most 32" in explain(theoretical(16, 32, 0, H200))
    assert explain(theoretical(16, 32, 0, H200)).startswith("32 blocks/SM x 1 warp = 32 of 64 warps (50%)")
    assert explain(theoretical(168, 384, 134144, H200)).startswith("1 block/SM x 12 warps = 12 of 64 warps (18.75%)")


def test_doctests():
    assert doctest.testmod(occupancy).failed == 0


# --- against Kineto's estimate --------------------------------------------------------------------------------------


def _kernels():
    """Each distinct (trace, kernel, launch configuration) of the fixtures."""
    seen = set()
    for path in sorted(TRACES.glob("*.json.gz")):
        raw = _raw(path.name.removesuffix(".json.gz"))
        props = raw["deviceProperties"][0]
        for e in raw["traceEvents"]:
            if e.get("cat") == "kernel":
                key = (path.name, e["name"], json.dumps(e["args"].get("grid")), json.dumps(e["args"].get("block")))
                if key not in seen:
                    seen.add(key)
                    yield path.name, e["name"], e["args"], props


@pytest.mark.parametrize("kernel", list(_kernels()), ids=lambda k: f"{k[0]}:{k[1][:40]}")
def test_kineto_estimate_is_theory_capped_by_the_grid(kernel):
    """Kineto's "est. achieved occupancy %" = min(theoretical warps, the grid's warps per SM) / max warps,
    rounded, except that it reports 0 when a block uses more than the 48 KiB default shared memory (it does not
    model the opt-in). A wrong register, shared-memory or thread rule would break the equality."""
    _, _, args, props = kernel
    threads = args["block"][0] * args["block"][1] * args["block"][2]
    o = theoretical(args["registers per thread"], threads, args["shared memory"], props)
    assert o.blocks_per_sm >= 1  # the kernel did run
    reported = args["est. achieved occupancy %"]
    if args["shared memory"] > props["sharedMemPerBlock"]:
        assert reported == 0
        return
    grid_warps = args["warps per SM"]  # Kineto: grid blocks x warps per block / SM count
    expected = 100 * min(o.active_warps, grid_warps) / o.max_warps
    assert abs(reported - expected) <= 0.5 + 1e-9, (reported, expected, explain(o))


def test_matches_the_cuda_runtime_on_h200():
    """``tests/data/h200-occupancy-sweep.txt.gz``: what cudaOccupancyMaxActiveBlocksPerMultiprocessor answered on
    the H200 for ~5000 configurations (19 register counts from 24 to 255, block sizes 1..1024, shared memory 0 to
    the opt-in maximum, around every allocation boundary)."""
    path = Path(__file__).parent / "data" / "h200-occupancy-sweep.txt.gz"
    with gzip.open(path, "rt") as f:
        rows = [tuple(map(int, line.split())) for line in f if not line.startswith("#")]
    assert len(rows) > 5000
    assert len({r[0] for r in rows}) >= 19 and max(r[0] for r in rows) == 255
    wrong = [
        (regs, threads, smem, want, theoretical(regs, threads, smem, H200).blocks_per_sm)
        for regs, threads, smem, want in rows
        if theoretical(regs, threads, smem, H200).blocks_per_sm != want
    ]
    assert wrong == []
