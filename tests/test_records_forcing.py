"""attnprof.records.forcing: the file of side-by-side issue times, round trip and refusals."""

from __future__ import annotations

import json

import pytest

from attnprof.noise import Figure
from attnprof.records import forcing
from attnprof.records.files import UnreadableFile
from attnprof.records.forcing import Forcing, ForcingCase, IssueRow
from attnprof.records.results import StaleResultError
from helpers import h200_environment


def run() -> Forcing:
    refusal = "RuntimeError: No available kernel. Aborting execution."
    rows = [IssueRow("sdpa_auto", issue=Figure(33.0, 31.0, 35.0, 12)),
            IssueRow("sdpa_cudnn", issue=Figure(85.0, 82.0, 88.0, 12), over_auto=Figure(52.1, 48.0, 55.0, 12)),
            IssueRow("sdpa_efficient", "unsupported", refusal)]  # fmt: skip
    return Forcing("cuda", h200_environment(), [ForcingCase("decode", [8, 32, 1, 128], "bfloat16", 8, 1024, 12, 3,
                                                            rows, 0.2)], 2.5)  # fmt: skip


def test_round_trip_and_lookup(tmp_path):
    r = run()
    path = forcing.save(r, tmp_path)
    assert path.name == "forcing__cuda.json" and forcing.load(path) == r
    case = r.case("decode", (8, 32, 1, 128), "bfloat16", 1024)
    assert case is r.cases[0] and case.length == 1024
    assert case.row("sdpa_cudnn").ok and not case.row("sdpa_efficient").ok and case.row("flex") is None
    assert r.case("decode", [8, 32, 1, 128], "float16", 1024) is None
    written = path.stat().st_mtime_ns
    forcing.save(r, tmp_path)
    assert path.stat().st_mtime_ns == written  # unchanged content is not written again


def test_another_kind_or_version_is_stale(tmp_path):
    path = tmp_path / "forcing__cuda.json"
    path.write_text(json.dumps({"kind": "forcing", "schema_version": 99}))
    with pytest.raises(StaleResultError, match="schema version 99"):
        forcing.load(path)
    path.write_text(json.dumps({**run().to_dict(), "cases": [{"workload": "decode"}]}))
    with pytest.raises(UnreadableFile, match=r"forcing__cuda\.json: not a forcing file"):
        forcing.load(path)
    assert forcing.find(tmp_path) == path and forcing.find(tmp_path / "none") is None
