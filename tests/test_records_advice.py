"""The advice record (``attnprof.advice``): it survives JSON, a file of another version or with a bad field is one
unreadable-file error, and it is read back from ``explain --measure --json`` output as well as saved alone."""

from __future__ import annotations

import json

import pytest

from attnprof.noise import Figure
from attnprof.records import advice
from attnprof.records.advice import Advice, Case, Measured, Option, Spec
from attnprof.records.files import UnreadableFile
from attnprof.records.results import Environment, StaleResultError

SPEC = Spec((2, 4, 32, 16), (2, 2, 32, 16), (2, 2, 32, 16), "bf16", "bool", (2, 1, 32, 32), "sliding=8", 0.0, True,
            True, ((2048, 16, 64, 1), None, None), None, False)  # fmt: skip
ENV = Environment("NVIDIA H200", "2.11.0+cu130", "3.12.3", "2026-12-03T00:00:00+00:00", "13.0")


def record() -> Advice:
    opts = [
        Measured(Option("recorded", "sdpa", "CUDNN_ATTENTION", (), SPEC), "ok", None, Figure(10.0, 9.5, 10.4, 40)),
        Measured(Option("change", "sdpa", None, ("causal",), SPEC), "refuses", "No available kernel", None),
        Measured(Option(advice.FLEX, advice.FLEX, None, (advice.FLEX,), SPEC), "not_here", "CUDA only"),
    ]
    cases = [Case(1, [0, 1], "sdpa", "cudnn", False, SPEC, 2.0, 17.5, opts, None, ["mask_fill"]),
             Case(2, [2], "flex", "flex", True, None, 2.0, None, [], "flex_shapes")]  # fmt: skip
    return Advice("t.json.gz", "NVIDIA H200", "13.0", "cuda", "measured", None, 900.0, cases, ENV, ["gpu"],
                  "sliding=8", 120.0, 3.5, 2.25, "cuda_event_prefilled", {"reps": 15})  # fmt: skip


def test_a_record_survives_json_whole():
    a = record()
    back = Advice.from_dict(json.loads(json.dumps(a.to_dict())))
    assert back == a
    assert back.cases[0].option("recorded").time_us == Figure(10.0, 9.5, 10.4, 40)
    assert back.cases[0].spec.strides == ((2048, 16, 64, 1), None, None) and back.cases[1].spec is None


def test_option_keys_are_unique_short_names():
    keys = [m.option.key for m in record().cases[0].options]
    assert keys == ["recorded", "sdpa:auto+causal", "flex"]
    assert Option("backend", "sdpa", "MATH", ("sdpa",), SPEC).key == "sdpa:MATH"
    assert Option("change", "sdpa", None, ("sdpa", "gqa", "bf16"), SPEC).key == "sdpa:auto+gqa+bf16"
    assert Option(advice.FLEX, advice.FLEX, None, (advice.FLEX, "gqa"), SPEC).key == "flex+gqa"


def test_save_writes_once_and_load_reads_it_and_the_explain_json(tmp_path):
    a = record()
    path = advice.save(a, tmp_path)
    assert path.name == "advice__t.json" == advice.filename("some/dir/t.json.gz")
    stamp = path.stat().st_mtime_ns
    advice.save(a, tmp_path)
    assert path.stat().st_mtime_ns == stamp  # unchanged content, untouched file
    assert advice.load(path) == a
    wrapped = tmp_path / "explain.json"
    wrapped.write_text(json.dumps({"schema": "attnprof.explain", "measure": a.to_dict()}))
    assert advice.load(wrapped) == a


def test_another_version_or_a_bad_field_is_one_unreadable_line(tmp_path):
    d = record().to_dict()
    with pytest.raises(StaleResultError, match="version 1"):
        Advice.from_dict({**d, "version": 99})
    with pytest.raises(StaleResultError):
        Advice.from_dict({"schema": "attnprof.explain"})
    bad = json.loads(json.dumps(d))
    bad["cases"][0]["spec"]["query"] = "abc"
    with pytest.raises(UnreadableFile, match=r"cases\[0\]\.spec\.query"):
        Advice.from_dict(bad)
    path = tmp_path / "advice__x.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(UnreadableFile) as caught:
        advice.load(path)
    assert "advice__x.json" in str(caught.value) and "\n" not in str(caught.value)
