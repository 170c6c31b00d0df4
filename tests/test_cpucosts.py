"""The side-by-side CPU costs, measured for real on the CPU at a small shape: every variant in every round, a
variant that cannot run is a row saying why, an interrupt stops the comparison."""

from __future__ import annotations

import json

import pytest

from attnprof import inputs, variants
from attnprof.measure import cpucosts
from attnprof.records import results

SMALL = inputs.make_setup((1, 2, 64, 32), "float32", "cpu")
QUICK = dict(rounds=3, calls=4, profiled_calls=2)


def _fake(monkeypatch, name, call):
    """Register a test double whose call is ``call(q, k, v)``."""
    monkeypatch.setitem(
        variants.VARIANTS,
        name,
        variants.Variant(name, name, "a test double", ("cpu",), ("float32",), "none", lambda seq, device: call),
    )


def test_cpu_costs_are_measured_side_by_side_and_load_back(tmp_path):
    costs = cpucosts.measure_cpu_costs(["sdpa_math", "sdpa_flash", "sdpa_cudnn", "sdpa_auto"], SMALL,
                                       save_to=tmp_path, **QUICK)  # fmt: skip
    rows = {r.variant: r for r in costs.rows}
    assert [r.variant for r in costs.rows] == ["sdpa_math", "sdpa_flash", "sdpa_cudnn", "sdpa_auto"]
    assert rows["sdpa_cudnn"].status == "no_cuda" and "runs on: cuda" in rows["sdpa_cudnn"].reason
    for name in ("sdpa_math", "sdpa_flash", "sdpa_auto"):
        r = rows[name]
        assert r.status == "ok"
        assert r.samples == [3 * 2, 3 * 4]  # every round measured every variant that runs
        assert r.profiled_us > 0 and r.dispatch_us > 0
        # one median per round; the figure is their median, with its interval over the rounds
        for f in (r.profiled, r.dispatch):
            assert f.n == 3 and f.lo <= f.median <= f.hi
    # the forcing context is not one of the side-by-side figures: the build measures it once (fixedcosts)
    assert all(r.context is None for r in costs.rows)
    assert (costs.device, costs.shape, costs.dtype, costs.rounds) == ("cpu", list(SMALL.shape), "float32", 3)
    path = tmp_path / "cpu_costs__cpu.json"
    assert results.find_cpu_costs(tmp_path) == path
    assert results.load_cpu_costs(path) == costs


def test_by_default_the_registrys_comparison_is_measured():
    costs = cpucosts.measure_cpu_costs(setup=SMALL, rounds=1, calls=1, profiled_calls=1)
    # every variant, so that the at-a-glance table's CPU columns share one measurement; on the CPU none that compiles
    assert [r.variant for r in costs.rows] == list(cpucosts.default_names("cpu"))
    assert cpucosts.default_names("cuda") == variants.names(cpu_cost=True) == tuple(variants.VARIANTS)
    assert "flex" not in cpucosts.default_names("cpu") and "naive" in cpucosts.default_names("cpu")


def test_a_variant_that_fails_is_a_row_with_pytorchs_reason_and_the_others_are_measured(monkeypatch):
    def broken(q, k, v):
        return q @ k[..., :3]  # wrong inner dimensions

    _fake(monkeypatch, "broken", broken)
    costs = cpucosts.measure_cpu_costs(["broken", "sdpa_math"], SMALL, **QUICK)
    rows = {r.variant: r for r in costs.rows}
    assert rows["broken"].status == "error" and rows["broken"].reason.startswith("RuntimeError: ")
    assert rows["broken"].dispatch is None and not rows["broken"].samples
    assert rows["sdpa_math"].status == "ok" and rows["sdpa_math"].samples == [3 * 2, 3 * 4]


def test_asking_for_cuda_without_one_gives_every_row_the_reason():
    costs = cpucosts.measure_cpu_costs(["sdpa_math", "sdpa_flash"], inputs.make_setup((1, 1, 8, 8), "bf16", "cuda"),
                                       rounds=1, calls=1, profiled_calls=1)  # fmt: skip
    assert [(r.status, r.reason.split(":")[0]) for r in costs.rows] == [("no_cuda", "no CUDA device")] * 2


def test_cpu_costs_reject_unknown_variants():
    with pytest.raises(ValueError, match="unknown variant 'flsh'"):
        cpucosts.measure_cpu_costs(["flsh"], SMALL)


def test_stale_cpu_cost_file_is_refused(tmp_path):
    p = tmp_path / "cpu_costs__cuda.json"
    p.write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(results.StaleResultError, match="CPU-cost schema version 99"):
        results.load_cpu_costs(p)


def test_an_interrupt_stops_the_cpu_cost_comparison(monkeypatch):
    def interrupted(q, k, v):
        raise KeyboardInterrupt

    _fake(monkeypatch, "interrupted", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cpucosts.measure_cpu_costs(["sdpa_flash", "interrupted"], SMALL, rounds=1, calls=1, profiled_calls=1)
