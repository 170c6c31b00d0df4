"""The eligibility record: a measured grid's file round trip, other versions refused, a case's bad values."""

from __future__ import annotations

import json

import pytest

from attnprof.records import eligibility as records
from attnprof.records.eligibility import Case
from attnprof.records.files import UnreadableFile


@pytest.fixture(scope="module")
def saved(tmp_path_factory, cpu_grid):
    folder = tmp_path_factory.mktemp("grid")
    records.save(cpu_grid, folder)
    return cpu_grid, folder


def test_the_grid_file_round_trips_and_refuses_other_versions(saved, tmp_path):
    grid, folder = saved
    path = folder / records.filename("cpu")
    assert records.find(folder) == path
    again = records.load(path)
    assert again == grid
    data = json.loads(path.read_text())
    data["schema_version"] = 0
    bad = tmp_path / records.filename("cpu")
    bad.write_text(json.dumps(data))
    with pytest.raises(records.StaleResultError, match="schema version 0"):
        records.load(bad)
    bad.write_text('{"schema_version": 1, "rows": 3}')
    with pytest.raises(UnreadableFile, match="field rows: 3 is not a list of objects"):
        records.load(bad)


def test_case_refuses_bad_values():
    with pytest.raises(ValueError, match="unknown mask 'x'"):
        Case((1, 2, 8, 8), "float32", mask="x")
    with pytest.raises(ValueError, match="bad dropout"):
        Case((1, 2, 8, 8), "float32", dropout=1.0)
    with pytest.raises(ValueError, match="bad kv_heads 3"):
        Case((1, 4, 8, 8), "float32", kv_heads=3)
