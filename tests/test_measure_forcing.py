"""attnprof.measure.forcing: every call of the decision table's shapes issued side by side, on the CPU at small
sizes; the file saved, reused and replayed."""

from __future__ import annotations

import pytest

from attnprof import inputs, settings
from attnprof.measure import forcing
from attnprof.measure.reuse import NotRecorded
from attnprof.records import forcing as records

TINY = inputs.make_setup((1, 2, 64, 16), "float32", "cpu")


def test_the_shapes_are_those_of_the_decision_table():
    planned = forcing.cases("cuda")
    assert [w for w, _ in planned] == ["train"] + ["prefill"] * 6 + ["decode"] * 3
    train, prefill, decode = planned[0][1], planned[1][1], planned[-1][1]
    assert train.shape == (8, 16, 1024, 64) and train.dtype == "bfloat16"
    # the sweep's batch, heads and dtype, at the head dim of the variant pages
    assert [s.shape[2] for w, s in planned if w == "prefill"] == [512, 1024, 2048, 4096, 8192, 16384]
    assert prefill.shape[3] == 64
    assert (decode.shape, decode.kv_heads, decode.kv_len) == ((8, 32, 1, 128), 8, 131072)
    assert {s.device for _, s in forcing.cases("cpu")} == {"cpu"}


def test_what_is_measured_and_what_is_too_slow_to_matter():
    assert forcing.candidates("decode", "cuda") == ("naive", "sdpa_math", "sdpa_efficient", "sdpa_flash",
                                                    "sdpa_cudnn", "sdpa_auto")  # fmt: skip
    assert "flex" not in forcing.candidates("prefill", "cuda")  # it compiles: its own run gives its issue time
    long = inputs.make_setup((8, 16, 4096, 64), "bfloat16", "cuda")
    assert "4 GiB" in forcing.too_slow("prefill", "naive", long)  # 8 x 16 x 4096² bf16 scores: not timed
    assert forcing.too_slow("prefill", "sdpa_cudnn", long) is None
    cache = inputs.make_setup((8, 32, 1, 128), "bfloat16", "cuda", kv_heads=8, kv_len=131072)
    assert "up to 16384" in forcing.too_slow("decode", "sdpa_math", cache)
    assert forcing.too_slow("decode", "sdpa_flash", cache) is None


def test_one_case_side_by_side_with_differences_round_by_round():
    # no slow rule here (a shared CPU can take 30 ms for a tiny call): the next test has it
    case = forcing.measure_case("prefill", TINY, rounds=6, calls=2, slow_ms=float("inf"))
    rows = {r.variant: r for r in case.rows}
    assert list(rows) == ["naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn",
                          "sdpa_auto"]  # fmt: skip
    # 6 rounds asked, the fewest a band is taken over; 2 calls a round, or 1 where a round would take over 30 ms
    assert case.rounds == forcing.MIN_ROUNDS and case.calls in (1, 2) and case.length == 64
    auto, math = rows["sdpa_auto"], rows["sdpa_math"]
    assert auto.ok and auto.issue.n == 6 and auto.over_auto is None
    assert math.ok and math.over_auto.n == 6 and math.over_auto.lo <= math.over_auto.median <= math.over_auto.hi
    # the difference is taken round by round, not as the difference of the two medians
    assert math.wall_ms is not None and math.wall_ms > 0
    # the CUDA-only backends say why in PyTorch's words, and are not timed
    assert rows["sdpa_cudnn"].status != "ok" and rows["sdpa_cudnn"].reason and rows["sdpa_cudnn"].issue is None


def test_a_call_slower_than_the_limit_is_not_timed():
    case = forcing.measure_case("prefill", TINY, ("sdpa_math", "sdpa_auto"), rounds=6, calls=1, slow_ms=0.0)
    math, auto = case.rows
    assert math.status == "slow" and math.issue is None and "over the 0 ms" in math.reason
    assert auto.ok  # SDPA's own choice is always timed: every difference is against it


def test_the_file_is_saved_reused_and_replayed(tmp_path, monkeypatch):
    plan = [("prefill", TINY), ("decode", inputs.make_setup((1, 4, 1, 16), "float32", "cpu", kv_heads=2, kv_len=64))]
    run = forcing.measure_forcing("cpu", save_to=tmp_path, reuse=False, plan=plan)
    path = tmp_path / records.filename("cpu")
    assert records.find(tmp_path) == path and records.load(path) == run
    assert [c.workload for c in run.cases] == ["prefill", "decode"] and run.seconds > 0
    assert run.case("decode", [1, 4, 1, 16], "float32", 64) is run.cases[1]
    assert run.case("decode", [1, 4, 1, 16], "float32", 128) is None
    again = forcing.measure_forcing("cpu", save_to=tmp_path, reuse=True, plan=plan)
    assert again == run  # read back, not measured again
    other = forcing.measure_forcing("cpu", save_to=tmp_path, reuse=True, plan=plan[:1])
    assert len(other.cases) == 1  # another plan: measured anew
    monkeypatch.setenv(settings.REUSE_ENV, "replay")
    assert forcing.measure_forcing("cpu", save_to=tmp_path, plan=plan) == other
    with pytest.raises(NotRecorded, match="issue times of the decision table"):
        forcing.measure_forcing("cpu", save_to=tmp_path / "nothing", plan=plan)
