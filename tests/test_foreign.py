"""records.foreign: reading any PyTorch profiler trace, in every layout PyTorch has written, and refusing bad input in
one line with bounded memory."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnprof.records import files, foreign
from helpers import older_layout

DATA = Path(__file__).parent / "data"
SITE = DATA / "traces"


def write(path: Path, doc: object, gz: bool = False) -> Path:
    data = json.dumps(doc).encode()
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return path


def events(trace: foreign.ForeignTrace) -> tuple[list, list]:
    return [(e.name, e.kind, e.ts, e.dur, e.correlation) for e in trace.cpu], [
        (g.name, g.kind, g.ts, g.dur, g.correlation, g.grid, g.registers) for g in trace.gpu
    ]


def test_a_site_trace_reads_whole_and_in_pieces_alike(monkeypatch):
    whole = foreign.load(SITE / "sdpa_math.json.gz")
    monkeypatch.setattr(foreign, "_CHUNK", 1500)  # a few events a piece: many cuts, some inside nested objects
    pieces = foreign.load(SITE / "sdpa_math.json.gz")
    assert events(whole) == events(pieces) and whole.events == pieces.events == 543
    assert whole.device_properties[0]["name"] == "NVIDIA H200" and whole.meta["schemaVersion"] == 1
    assert len(whole.gpu) == 60 and all(g.correlation is not None for g in whole.gpu)
    assert whole.shapes and any(e.dims for e in whole.cpu)


def test_a_cut_inside_a_string_is_joined_with_the_next_piece(tmp_path, monkeypatch):
    tricky = {"ph": "X", "cat": "cpu_op", "name": "a}, {b", "pid": 1, "tid": 1, "ts": 1.0, "dur": 1.0}
    doc = {"traceEvents": [tricky] * 50 + [dict(tricky, name="ok")], "deviceProperties": []}
    monkeypatch.setattr(foreign, "_CHUNK", 30)
    trace = foreign.load(write(tmp_path / "t.json", doc))
    assert [e.name for e in trace.cpu] == ["a}, {b"] * 50 + ["ok"]


def test_the_bare_list_layout_and_keys_after_the_events(tmp_path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 2}]
    assert [e.name for e in foreign.load(write(tmp_path / "a.json", ev)).cpu] == ["aten::mm"]
    doc = {"traceEvents": ev, "ERROR": ["x]"], "deviceProperties": [{"id": 0, "name": "G"}], "traceName": "n"}
    trace = foreign.load(write(tmp_path / "b.json", doc))
    assert trace.device_properties == [{"id": 0, "name": "G"}] and trace.meta["traceName"] == "n"


def launches(trace: foreign.ForeignTrace) -> list[tuple[str, str, float]]:
    """Each GPU activity with the call that launched it (linked by correlation id)."""
    by = {e.correlation: e for e in trace.cpu if e.correlation is not None and e.kind in ("runtime", "driver")}
    return [(g.name, by[g.correlation].name, by[g.correlation].ts) for g in trace.gpu]


@pytest.mark.parametrize("links", ["flows", "args"])
@pytest.mark.parametrize("name", ["sdpa_flash", "sdpa_math", "compiled_naive"])
def test_an_older_layout_links_launches_through_the_flows_or_the_args(tmp_path, name, links):
    doc = json.loads(gzip.decompress((SITE / f"{name}.json.gz").read_bytes()))
    new = foreign.load(SITE / f"{name}.json.gz")
    old = foreign.load(write(tmp_path / "old.json", older_layout(doc, links)))
    assert [(e.name, e.kind, e.ts, e.dims) for e in old.cpu] == [(e.name, e.kind, e.ts, e.dims) for e in new.cpu]
    assert [(g.name, g.kind, g.ts) for g in old.gpu] == [(g.name, g.kind, g.ts) for g in new.gpu]
    assert launches(old) == launches(new) and len(launches(new)) == len(new.gpu) > 0


def one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\x00\x01 not json at all", "not valid JSON"),
        (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur"', "not valid JSON"),
        (b'{"traceEvents": 5}', "no traceEvents list"),
        (b'{"other": []}', "no traceEvents list"),
        (b"[1, 2]", "event 1 is int"),
        (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": "abc"}]}', "'ts' is 'abc', not a number"),
        (b'{"traceEvents": [{"ph": "X", "cat": "v8", "name": "Run", "ts": 1, "dur": 2}]}', "without PyTorch"),
        (b'{"traceEvents": []}', "without PyTorch"),
        (b'"a string"', "not a Chrome trace"),
    ],
)
def test_bad_input_is_one_line(tmp_path, content, expected):
    path = tmp_path / "t.json"
    path.write_bytes(content)
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(path)
    assert expected in one_line(exc) and "t.json" in str(exc.value)


def test_a_truncated_gzip_file_is_one_line(tmp_path):
    data = (SITE / "sdpa_flash.json.gz").read_bytes()
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(path)
    assert "truncated" in one_line(exc)


def test_a_trace_over_the_bounds_is_refused_naming_the_limit(tmp_path):
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(SITE / "sdpa_math.json.gz", max_bytes=4096)
    assert "4096" in one_line(exc)
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(SITE / "sdpa_math.json.gz", max_events=100)
    assert "more than 100 events" in one_line(exc) and "--max-mb" in str(exc.value)


# The child's own peak (VmHWM: ru_maxrss would carry over the parent's from before exec).
BOMB = """
import re, sys
from attnprof.records import files, foreign
try:
    foreign.load(sys.argv[1], max_bytes=16 << 20)
except files.UnreadableFile as exc:
    print(exc)
with open("/proc/self/status") as f:
    print(int(re.search(r"VmHWM:\\s+(\\d+) kB", f.read()).group(1)) // 1024)
"""


@pytest.mark.parametrize("kind", ["zeros", "empty_objects"])
def test_a_gzip_bomb_is_refused_with_bounded_memory(tmp_path, kind):
    path = tmp_path / "bomb.json.gz"
    with gzip.open(path, "wb", compresslevel=9) as f:  # 256 MB out of a few hundred KB
        f.write(b'{"traceEvents": [')
        for _ in range(256):
            f.write(b"0" * (1 << 20) if kind == "zeros" else b"{}," * ((1 << 20) // 3))
        f.write(b"{}]}")
    assert path.stat().st_size < 2 << 20
    run = subprocess.run([sys.executable, "-c", BOMB, str(path)], capture_output=True, text=True, timeout=120)
    message, peak_mib = run.stdout.strip().splitlines()
    assert "more than the 16777216 bytes" in message and run.returncode == 0, run.stderr
    assert int(peak_mib) < 250  # the interpreter and its imports, plus at most a small multiple of the 16 MiB bound


def test_empty_objects_in_bulk_keep_nothing(tmp_path):
    path = write(tmp_path / "e.json", {"traceEvents": [{}] * 200_000 + [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]})  # fmt: skip
    trace = foreign.load(path)
    assert trace.events == 200_001 and len(trace.cpu) == 1


def test_only_the_ops_asked_for_keep_their_inputs():
    trace = foreign.load(SITE / "sdpa_math.json.gz", inputs_of=lambda name: name == "aten::bmm")
    kept = {e.name for e in trace.cpu if e.dims is not None}
    assert kept == {"aten::bmm"} and trace.shapes


# --- any value in any field: a trace or one UnreadableFile ----------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=5,
)
EVENT_KEYS = ["ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id"]
ARG_KEYS = ["correlation", "grid", "block", "registers per thread", "Input Dims", "Input type", "Concrete Inputs",
            "device", "stream", "Sequence number", "Fwd thread id", "name", "Input Strides", "bytes",
            "blocks per SM"]  # fmt: skip


@st.composite
def any_event(draw) -> dict:
    """A plausible event (kept kinds, flows, metadata) with a few fields replaced by anything JSON holds."""
    e = {"ph": draw(st.sampled_from(["X", "M", "s", "f"])), "cat": draw(st.sampled_from(["cpu_op", "kernel", "ac2g",
         "cuda_runtime"])), "name": draw(st.sampled_from(["aten::mm", "thread_name"])), "pid": 1, "tid": 1, "ts": 1.0,
         "dur": 1.0, "args": {}}  # fmt: skip
    for key in draw(st.lists(st.sampled_from(EVENT_KEYS), max_size=2)):
        e[key] = draw(JSON)
    if isinstance(e.get("args"), dict):
        for key in draw(st.lists(st.sampled_from(ARG_KEYS), max_size=3)):
            e["args"][key] = draw(JSON)
    return e


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(found=st.lists(any_event(), min_size=1, max_size=4), wrapped=st.booleans())
def test_any_value_in_any_field_gives_a_trace_or_one_unreadable_file(tmp_path, found, wrapped):
    path = write(tmp_path / "t.json", {"traceEvents": found} if wrapped else found)
    try:
        foreign.load(path)
    except files.UnreadableFile as exc:
        assert str(exc).startswith("t.json: ") and "\n" not in str(exc)


def test_a_list_where_a_thread_id_belongs_is_named(tmp_path):
    op = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1}
    path = write(tmp_path / "t.json", {"traceEvents": [op, {**op, "tid": ["a"]}]})
    with pytest.raises(files.UnreadableFile, match=r"^t.json: event 2 \('aten::mm'\): 'tid' is \"\['a'\]\", not"):
        foreign.load(path)
