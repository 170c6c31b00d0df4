"""Record files, over the register of record kinds (:func:`attnprof.records.kinds.every`): every kind round-trips
through its own writer and through the commands' checked writer (plain and gzip, as the name says); every kind's
reader refuses a field of the wrong type planted in its file with one UnreadableFile naming the file and the field;
and every reader refuses content of the wrong kind with one UnreadableFile, never a raw TypeError, ValueError or
AttributeError (hand-picked cases and hypothesis)."""

from __future__ import annotations

import copy
import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnprof.records import files, kinds, parallel, results, schema, sweep, trace
from attnprof.records.files import UnreadableFile
from helpers import h200_sweep, plant_wrong_type, record_samples, runner_h200x2, trace_result

#: Every kind of the register, by what a warning calls it (the test ids).
KINDS = {k.what: k for k in kinds.every()}


@pytest.fixture(scope="module")
def samples(cpu_grid) -> dict:
    return record_samples(cpu_grid)


@pytest.mark.parametrize("what", list(KINDS))
@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_every_reader_reads_what_the_checked_writer_writes_plain_or_gzip_as_named(tmp_path, samples, what, suffix):
    kind = KINDS[what]
    record = samples[kind]
    data = kind.dumps(record)
    path = tmp_path / f"{kind.stem}{suffix}"
    files.write_output(str(path), data)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == (suffix == ".json.gz")  # the name says the format
    assert kind.load(path) == record
    out = io.StringIO()  # and "-": the same text on standard output
    files.write_output("-", data, out=out)
    assert out.getvalue().encode() == data


def test_a_trace_reads_what_the_checked_writer_writes_plain_or_gzip(tmp_path):
    _, raw = trace_result("sdpa_flash")
    for name in ("t.json", "t.json.gz"):
        files.write_output(str(tmp_path / name), raw)
        assert trace.read_trace(tmp_path / name) == json.loads(raw)


@pytest.mark.parametrize("what", list(KINDS))
def test_every_records_own_writer_round_trips_under_its_own_name(tmp_path, samples, what):
    kind = KINDS[what]
    path = kind.save(samples[kind], tmp_path)
    assert kind.holds(path.name) and kinds.kind_of(path.name) is kind
    assert kind.load(Path(path)) == samples[kind]
    if kind.devices:
        assert kind.find(tmp_path) == path


@pytest.mark.parametrize("what", list(KINDS))
def test_a_wrongly_typed_field_planted_in_a_file_of_every_kind_is_one_unreadable_file_naming_it(tmp_path, samples,
                                                                                                 what):  # fmt: skip
    kind = KINDS[what]
    doc, where = plant_wrong_type(samples[kind].to_dict())
    path = tmp_path / kind.filename_of(samples[kind])
    path.write_text(json.dumps(doc))
    with pytest.raises(UnreadableFile) as exc:
        kind.load(path)
    assert str(exc.value).startswith(f"{path.name}: field {where}: 'x' is not ") and "\n" not in str(exc.value)
    assert exc.value.path == path


@pytest.mark.parametrize("what", [w for w, k in KINDS.items() if k.version is not None])
def test_every_versioned_kind_refuses_another_version_in_one_line(tmp_path, samples, what):
    kind = KINDS[what]
    doc = samples[kind].to_dict()
    doc[kind.version] = 99
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(files.StaleResultError, match=rf"^f\.json: {kind.label} schema version 99 is not the support"):
        kind.load(path)


# --- content of the wrong kind --------------------------------------------------------------------------------------


def _result_doc() -> dict:
    result, _ = trace_result("sdpa_flash")
    return result.to_dict()


def _set(doc: dict, where: list, value) -> dict:
    doc = copy.deepcopy(doc)
    target = doc
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    return doc


BAD_RESULTS = [
    (["shape"], "abc", "field shape: 'abc' is not a list of integers"),
    (["shape"], [1, 1, "x", 8], "field shape[2]: 'x' is not an integer"),
    (["shape"], [1, 0, 8, 8], "field shape: [1, 0, 8, 8] holds a dimension that is not positive"),
    (["shape"], [1, 1, 8.5, 8], "field shape[2]: 8.5 is not an integer"),
    (["environment"], "cpu", "field environment: 'cpu' is not an object"),
    (["steps"], {"a": 1}, "field steps: {'a': 1} is not a list of objects"),
    (
        ["steps", 0, "activities", 0, "start_us"],
        "abc",
        "field steps[0].activities[0].start_us: 'abc' is not a number",
    ),
    (["steps", 0, "cpu_ops", 1, "name"], 7, "field steps[0].cpu_ops[1].name: 7 is not a string"),
    (["timing"], [], "field timing: [] is not an object or null"),
    (["kv_heads"], True, "field kv_heads: True is not an integer or null"),
    (["device_properties"], [], "field device_properties: [] is not an object"),
]


@pytest.mark.parametrize(("where", "value", "words"), BAD_RESULTS, ids=[str(c[0]) + repr(c[1]) for c in BAD_RESULTS])
def test_a_result_with_a_bad_field_is_refused_naming_the_file_and_the_field(tmp_path, where, value, words):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_set(_result_doc(), where, value)))
    with pytest.raises(UnreadableFile) as exc:
        results.load(path)
    assert str(exc.value) == f"r.json: {words}" and exc.value.path == path


def test_a_parallel_run_with_a_rank_that_is_not_an_integer_is_refused(tmp_path):
    doc = runner_h200x2().to_dict()
    doc["cases"][0]["ranks"][0]["rank"] = ["a"]
    path = tmp_path / "parallel__cuda.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(
        UnreadableFile, match=r"^parallel__cuda.json: field cases\[0\]\.ranks\[0\]\.rank: \['a'\] is not"
    ):
        parallel.load(path)


def test_a_sweep_point_with_a_text_length_is_refused(tmp_path):
    doc = h200_sweep().to_dict()
    doc["points"][3]["seq"] = "4096"
    path = tmp_path / "s.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(UnreadableFile, match=r"^s.json.gz: field points\[3\]\.seq: '4096' is not an integer$"):
        sweep.load(path)


BAD_TRACES = [
    ({"traceEvents": [1, 2, "x", None]}, "traceEvents[0] is '1', not an object"),
    ({"traceEvents": [{"ph": "X", "ts": "abc"}]}, "traceEvents[0]: field 'ts' is 'abc', not a number"),
    ({"traceEvents": [{"ph": "X", "ts": 1, "dur": [1]}]}, "traceEvents[0]: field 'dur' is '[1]', not a number"),
    ({"traceEvents": [{}, {"ph": "X", "ts": 1, "name": {"a": 1}}]}, "traceEvents[1]: field 'name' is \"{'a': 1}\""),
    ({"traceEvents": [{"ph": "X", "ts": 1, "args": []}]}, "traceEvents[0]: field 'args' is '[]', not an object"),
    ({"traceEvents": [{"ts": 1, "args": {"grid": [1, "2", 1]}}]}, "field 'args.grid' is \"[1, '2', 1]\", not a list"),
    ({"traceEvents": [{"ts": 1, "args": {"correlation": "7"}}]}, "field 'args.correlation' is '7', not a number"),
    ({"traceEvents": [{"ts": 1, "pid": [1]}]}, "field 'pid' is '[1]', not a number or a string"),
    ({"traceEvents": [{"ts": 1, "ph": True}]}, "field 'ph' is 'True', not a string"),
]


@pytest.mark.parametrize(("doc", "words"), BAD_TRACES, ids=[str(i) for i in range(len(BAD_TRACES))])
def test_a_trace_with_events_of_the_wrong_kind_is_refused_before_it_is_read(tmp_path, doc, words):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UnreadableFile) as exc:
        trace.read_trace(path)
    assert str(exc.value).startswith("t.json: traceEvents[") and words in str(exc.value)


def test_the_check_names_types_in_words():
    assert schema.problem(list[int], [1, "a"], "x") == "x[1]: 'a' is not an integer"
    assert schema.problem(int | None, "a", "x") == "x: 'a' is not an integer or null"
    assert schema.problem(dict[str, float], {"k": "v"}, "x") == "x.k: 'v' is not a number"
    assert schema.problem(tuple[int, ...], [1, 2], "x") is None
    assert schema.problem(float, float("inf"), "x") == "x: inf is not a number"
    assert schema.problem(float, 3, "x") is None and schema.problem(int, True, "x") == "x: True is not an integer"
    assert schema.problem(str, "y" * 100, "x") is None
    assert schema.problem(int, "y" * 100, "x") == f"x: {repr('y' * 100)[:37]}... is not an integer"


# --- anything in any field: UnreadableFile or a record, nothing else ------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def _paths(doc, prefix=()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in list(doc.items())[:40]:
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:2]):
            out += _paths(v, (*prefix, i))
    return out


@pytest.mark.parametrize("what", list(KINDS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=JSON)
def test_any_value_in_any_field_gives_a_record_or_one_unreadable_file(tmp_path, samples, what, data, value):
    kind = KINDS[what]
    doc = samples[kind].to_dict()
    where = data.draw(st.sampled_from(_paths(doc)))
    path = tmp_path / "f.json"
    path.write_text(json.dumps(_set(doc, list(where), value)))
    try:
        kind.load(path)
    except UnreadableFile as exc:
        assert str(exc).startswith(f"{path.name}: ") and "\n" not in str(exc)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(JSON, max_size=4))
def test_any_events_give_a_trace_or_one_unreadable_file_and_then_parse(tmp_path, events):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    try:
        doc = trace.read_trace(path)
    except UnreadableFile as exc:
        assert str(exc).startswith("t.json: ")
        return
    try:
        trace.parse_trace(doc, "x")
    except ValueError as exc:  # no annotation of that name: the one error parse_trace promises
        assert "no user_annotation named 'x'" in str(exc)
