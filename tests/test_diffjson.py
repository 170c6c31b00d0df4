"""analysis.diffjson: the JSON of a comparison: every field its docstring names, figures rounded, null where a
trace has nothing to compare, and the same bytes for the same traces."""

from __future__ import annotations

import json

from attnprof.analysis import diff, diffjson
from helpers import FOREIGN, explained

H200 = FOREIGN / "h200"


def to_dict(a, b) -> dict:
    return diff.diff(diff.side(explained(a)), diff.side(explained(b))).to_dict()


def test_every_documented_field_is_there():
    d = to_dict(H200 / "hf_sdpa_train.json.gz", H200 / "mha_train.json.gz")
    assert set(d) == {"schema", "version", "rules", "before", "after", "notes", "steps", "calls", "summary"}
    assert set(d["before"]) == {"name", "device", "compute_capability", "events", "shapes", "gpu", "steps", "calls"}
    assert set(d["steps"]) == {"pairs", "only_before", "only_after", "figures", "launch_bound"}
    assert set(d["steps"]["figures"]) == {name for name, _ in diff.STEP_FIGURES}
    assert set(d["steps"]["pairs"][0]) == {"before", "after", "names", "wall_us", "gpu_busy_share",
                                           "attention_gpu_us", "launch_bound"}  # fmt: skip
    for row in d["calls"]:
        assert set(row) == {"match", "before", "after", "backend_changed", "gpu_us", "cpu_us", "step_gpu_us",
                            "kernels"}  # fmt: skip
        assert (row["before"] is None) == (row["match"] == "appeared")
        assert (row["after"] is None) == (row["match"] == "vanished")
        for k in (row["before"], row["after"]):
            if k is not None:
                assert set(k) == {"kind", "direction", "compiled", "module", "phase", "op", "inputs", "backend",
                                  "backends", "calls", "per_step", "first"}  # fmt: skip
                assert k["backend"] in k["backends"] and sum(k["backends"].values()) == k["calls"]
        for c in (row["gpu_us"], row["cpu_us"], row["step_gpu_us"], *(k["us"] for k in row["kernels"])):
            assert set(c) == {"rule", "before", "after", "verdict", "change"}
            for f in (c["before"], c["after"], c["change"]):
                assert f is None or (set(f) == {"median", "lo", "hi", "n"} and f["lo"] <= f["median"] <= f["hi"])
                assert f is None or all(round(f[x], 4) == f[x] for x in ("median", "lo", "hi"))
    assert set(d["summary"]) == {"matches", "backends", "attention_gpu_us"}
    assert sum(d["summary"]["matches"].values()) == len(d["calls"])


def test_a_change_and_a_kind_in_json():
    assert diffjson.change(None) is None
    c = diff.change([1.0, 2.0, 3.0], [], "gpu")
    assert diffjson.change(c) == {"rule": "gpu", "before": {"median": 2.0, "lo": 1.0, "hi": 3.0, "n": 3},
                                  "after": None, "verdict": None, "change": None}  # fmt: skip
    assert diffjson.main_backend({"math": 2, "flash": 2, "cudnn": 1}) == "math"  # the first of equals
    d = to_dict(H200 / "hf_sdpa_train.json.gz", H200 / "hf_sdpa_train.json.gz")
    assert json.loads(json.dumps(d)) == d  # plain JSON values only
