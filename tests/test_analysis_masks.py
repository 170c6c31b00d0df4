"""What a mask run says: FlexAttention against the fastest dense-mask SDPA by the noise rule (bands apart, or too
close to call), nested tensors beside them, and the block mask's build in kernel calls and in calls to repay it."""

from __future__ import annotations

import pytest

from attnprof.analysis import masks as view
from attnprof.noise import Figure
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun
from attnprof.records.results import Environment

SHAPE = [2, 16, 4096, 64]


def _case(method: str, ms: float | None, mask: str = "sliding_window", workload: str = "prefill", **kw) -> MaskCase:
    time = None if ms is None else Figure(ms, ms * 0.99, ms * 1.01, 10)
    status = "ok" if ms is not None else "unsupported"
    window = 256 if mask == "sliding_window" else 0
    return MaskCase(mask, method, workload, SHAPE, "bfloat16", window=window, time_ms=time, status=status,
                    reason=None if ms is not None else "No available kernel.", **kw)  # fmt: skip


def _run(*cases: MaskCase, builds: tuple[BlockMaskBuild, ...] = ()) -> MaskRun:
    return MaskRun("cuda", Environment("NVIDIA H200", "2.11", "3.12", "2026-12-03"), list(cases), list(builds))


def test_flex_wins_when_its_band_lies_below_the_fastest_dense_one():
    run = _run(_case("flex", 0.2), _case("sdpa_math", 3.0), _case("sdpa_efficient", 1.0), _case("sdpa_flash", None),
               _case("naive", 0.1))  # fmt: skip
    (v,) = view.verdicts(run)
    assert v.outcome == "flex_faster"
    assert v.dense is not None and v.dense.method == "sdpa_efficient"  # the naive code is not a dense-mask SDPA
    assert v.ratio == pytest.approx(5.0)


def test_overlapping_bands_are_too_close_to_call_and_one_sided_runs_say_so():
    (tie,) = view.verdicts(_run(_case("flex", 1.0), _case("sdpa_efficient", 1.01)))
    assert tie.outcome == "tie"
    (dense,) = view.verdicts(_run(_case("flex", 2.0), _case("sdpa_cudnn", 1.0)))
    assert dense.outcome == "dense_faster"
    (alone,) = view.verdicts(_run(_case("flex", None), _case("sdpa_math", 1.0)))
    assert alone.outcome == "dense_only" and alone.ratio is None
    (none,) = view.verdicts(_run(_case("flex", None), _case("sdpa_math", None)))
    assert none.outcome == "neither"


def test_one_verdict_per_mask_size_and_workload():
    run = _run(_case("flex", 1.0), _case("sdpa_efficient", 2.0), _case("flex", 3.0, workload="train"),
               _case("sdpa_efficient", 2.0, workload="train"))  # fmt: skip
    found = [(v.workload, v.outcome) for v in view.verdicts(run)]
    assert found == [("prefill", "flex_faster"), ("train", "dense_faster")]


def test_nested_tensors_are_compared_for_packed_documents():
    run = _run(_case("flex", 1.0, "documents"), _case("sdpa_efficient", 3.0, "documents"),
               _case("nested", 0.5, "documents"))  # fmt: skip
    (v,) = view.verdicts(run)
    assert v.nested is not None and v.nested_outcome == "dense_faster"  # nested is faster than flex here


def test_the_block_mask_build_in_kernel_calls_and_calls_to_repay():
    build = BlockMaskBuild("sliding_window", 4096, window=256, time_ms=Figure(2.0, 1.9, 2.2, 5))
    flex, dense = _case("flex", 0.5), _case("sdpa_efficient", 1.5)
    run = _run(flex, dense, builds=(build,))
    (v,) = view.verdicts(run)
    assert view.build_for(run, v) is build
    share = view.build_share(build, flex)
    assert share is not None and share.median == pytest.approx(4.0) and share.lo < 4.0 < share.hi
    assert view.calls_to_repay(build, flex, dense) == pytest.approx(2.0)
    assert view.calls_to_repay(build, dense, flex) is None  # no saving, nothing to repay
    line = view.summary_lines(run)[0]
    assert "-> flex_faster" in line and "build=4.0 calls" in line and "repaid after 2.0 calls" in line


def test_floors_are_the_devices_own():
    assert view.floors("cuda")[0] < view.floors("cpu")[0]
