"""attnprof.measure.fixedcosts and attnprof.records.fixedcosts: the shape-independent CPU costs measured once, on the
CPU at small sizes, saved, read back and reused."""

from __future__ import annotations

import json

import pytest

from attnprof.measure import fixedcosts as measure
from attnprof.records import fixedcosts
from attnprof.records.files import UnreadableFile
from attnprof.records.results import StaleResultError


def test_the_forcing_context_and_the_profiler_measured_directly(tmp_path):
    costs = measure.measure_fixed_costs("cpu", rounds=6, calls=40, profiled_rounds=3, save_to=tmp_path, reuse=False)
    assert costs.reason is None and costs.backends == list(measure.BACKENDS)
    f = costs.forcing
    # one median per round, the figure their median with its interval over the rounds
    assert f.n == 6 and 0 < f.lo <= f.median <= f.hi and costs.forcing_calls == 240
    assert costs.op_us.n == costs.profiled_op_us.n == costs.profiler_per_op.n == 3
    assert costs.op_us.median > 0 and costs.profiled_op_us.median > 0
    assert costs.events_per_call == pytest.approx(1.0, abs=0.1)  # one aten::add per call, on the CPU
    path = tmp_path / "fixed_costs__cpu.json"
    assert fixedcosts.find(tmp_path) == path and fixedcosts.load(path) == costs


def test_a_saved_measurement_stands_in_only_for_the_same_plan(tmp_path):
    first = measure.measure_fixed_costs("cpu", rounds=3, calls=10, profiled_rounds=1, save_to=tmp_path, reuse=False)
    again = measure.measure_fixed_costs("cpu", rounds=3, calls=10, profiled_rounds=1, save_to=tmp_path, reuse=True)
    assert again == first  # read back, not measured again (a new measurement would differ in its medians)
    other = measure.measure_fixed_costs("cpu", rounds=4, calls=10, profiled_rounds=1, save_to=tmp_path, reuse=True)
    assert other.rounds == 4 and other.forcing.n == 4


def test_without_cuda_the_profiler_figures_say_why(tmp_path):
    costs = measure.measure_fixed_costs("cuda", rounds=2, calls=5, profiled_rounds=1)
    assert costs.forcing is not None  # the context is CPU work: measured anyway
    assert costs.profiler_per_op is None and "no CUDA device" in costs.reason


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_bad_counts_are_refused(bad):
    with pytest.raises(ValueError, match=f"bad number of rounds {bad!r}"):
        measure.measure_fixed_costs("cpu", rounds=bad)


def test_files_of_another_kind_or_version_are_stale(tmp_path):
    path = tmp_path / "fixed_costs__cpu.json"
    path.write_text(json.dumps({"kind": "sweep", "schema_version": 1}))
    with pytest.raises(StaleResultError, match=r"fixed_costs__cpu\.json: fixed-cost schema version 1"):
        fixedcosts.load(path)
    path.write_text("{not json")
    with pytest.raises(UnreadableFile):
        fixedcosts.load(path)
    assert fixedcosts.find(tmp_path / "none") is None
