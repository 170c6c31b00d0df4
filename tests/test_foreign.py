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
        (b"\x00\x01 not json at all", "not a trace: the file is binary data"),
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
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.text(max_size=3),
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


# --- times that are no times, events seen twice, files that are not JSON --------------------------------------------

KERNEL = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5e12 + 10, "dur": 3.0,
          "args": {"device": 0, "correlation": 9}}  # fmt: skip
LAUNCH = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5e12 + 2,
          "dur": 4.0, "args": {"correlation": 9, "External id": 3}}  # fmt: skip
STEP = {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 5e12, "dur": 50.0,
        "args": {"External id": 1}}  # fmt: skip
MM = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5e12 + 1, "dur": 8.0,
      "args": {"External id": 2}}  # fmt: skip
#: (id, the raw text of the kernel's bad field, the words the one line must hold)
BAD_TIMES = [
    ("NaN start", '"ts": NaN', "event 4 ('k'): 'ts' is nan, not a finite number"),
    ("infinite duration", '"dur": Infinity', "event 4 ('k'): 'dur' is inf, not a finite number"),
    ("minus infinity", '"ts": -Infinity', "'ts' is -inf, not a finite number"),
    ("negative duration", '"dur": -5', "event 4 ('k'): 'dur' is -5, negative"),
    ("negative start", '"ts": -5', "event 4 ('k'): 'ts' is -5, negative"),
    ("1e300", '"ts": 1e300', "'ts' is 1e+300, past any clock"),
    ("10**400", '"ts": 1' + "0" * 400, "'ts' is 10000000… (401 digits), past any clock"),
    ("a duration of years", '"dur": 1e15', "'dur' is 1e+15 µs, more than a day"),
    ("a start years away", '"ts": 9e16', "event 4 ('k'): 'ts' 9e+16 lies 2854 years from the rest"),
]


def _with(tmp_path: Path, field: str, first: dict | None = None) -> Path:
    text = json.dumps({"traceEvents": [first or STEP, MM, LAUNCH, KERNEL]})
    key = field.split(":")[0]
    old = f"{key}: {json.dumps(KERNEL[key.strip(chr(34))])}"
    head, tail = text.rsplit(old, 1)
    path = tmp_path / "t.json"
    path.write_text(head + field + tail)
    return path


@pytest.mark.parametrize(("field", "words"), [c[1:] for c in BAD_TIMES], ids=[c[0] for c in BAD_TIMES])
def test_a_time_that_is_no_time_is_refused_naming_its_event(tmp_path, field, words):
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(_with(tmp_path, field))
    assert words in one_line(exc), str(exc.value)


def test_when_the_first_event_is_the_odd_one_it_is_named(tmp_path):
    path = write(tmp_path / "t.json", {"traceEvents": [dict(STEP, ts=1.0), MM, LAUNCH, KERNEL]})
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(path)
    assert "event 1 ('ProfilerStep#1'): 'ts' 1 lies 57.9 days from the rest" in one_line(exc)


def test_the_events_of_two_exports_in_one_file_are_refused_naming_the_first_repeat(tmp_path):
    doc = json.loads(gzip.decompress((DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz").read_bytes()))
    n = len(doc["traceEvents"])
    doc["traceEvents"] += doc["traceEvents"]
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(write(tmp_path / "t.json", doc))
    first = next(k for k, e in enumerate(doc["traceEvents"], 1) if e.get("cat") in ("cpu_op", "user_annotation")
                 and "External id" in e.get("args", {}))  # fmt: skip
    line = one_line(exc)
    assert f"event {n + first} (" in line and f"repeats event {first} (the same External id" in line
    cpu = json.loads(gzip.decompress((DATA / "foreign" / "cpu" / "mha_train.json.gz").read_bytes()))
    cpu["traceEvents"] += cpu["traceEvents"]
    with pytest.raises(files.UnreadableFile, match="two exports in one file"):
        foreign.load(write(tmp_path / "c.json", cpu))
    launches = [LAUNCH, dict(LAUNCH, ts=LAUNCH["ts"] + 1, args={"correlation": 9})]
    with pytest.raises(files.UnreadableFile, match=r"event 2 \('cudaLaunchKernel'\) repeats event 1 \(the same corr"):
        foreign.load(write(tmp_path / "l.json", {"traceEvents": launches}))


def test_every_recorded_trace_has_unique_ids_and_plausible_times():
    for path in sorted(DATA.glob("**/*.json.gz")):
        head = gzip.decompress(path.read_bytes())[:200]
        if b"traceEvents" in head or head.lstrip().startswith(b"["):
            foreign.load(path)  # no refusal: the checks take nothing real for two exports or a bad time


def _tar(tmp_path: Path) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        data = (DATA / "foreign" / "h200" / "flex.json.gz").read_bytes()
        info = tarfile.TarInfo("trace.json.gz")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


#: (id, the file's content, the words of its one line)
NOT_JSON = [
    ("gzip of a tar", lambda t: gzip.compress(_tar(t)), "gzip-compressed tar archive (first member 'trace.json.gz')"),
    ("a tar", _tar, "the file is a tar archive (first member"),
    ("Perfetto protobuf", lambda t: b"\x0a\x8c\x01\x12\x0b\x0a\x09\x08\x01" + bytes(range(140)), "Perfetto protobuf"),
    ("zip", lambda t: b"PK\x03\x04" + b"\0" * 40, "a zip archive"),
    ("xz", lambda t: b"\xfd7zXZ\x00\x00\x04", "xz-compressed"),
    ("zstd", lambda t: b"\x28\xb5\x2f\xfd" + b"\0" * 9, "zstd-compressed"),
    ("html", lambda t: b"<!DOCTYPE html><html><body>report</body></html>", "an HTML page"),
    ("empty", lambda t: b"", "the file is empty"),
    ("gzip of nothing", lambda t: gzip.compress(b""), "gzip of an empty file"),
    ("twice gzip", lambda t: gzip.compress(gzip.compress(b"{}")), "gzip inside gzip"),
    ("sqlite", lambda t: b"SQLite format 3\x00" + b"\0" * 84, "an SQLite database"),
    ("cut short", lambda t: b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm"', "a trace cut short"),
    ("prose", lambda t: b"hello, this is not a trace\n", "not valid JSON ("),  # the parser's words (orjson or json)
]


@pytest.mark.parametrize(("content", "words"), [c[1:] for c in NOT_JSON], ids=[c[0] for c in NOT_JSON])
def test_a_file_that_is_not_json_is_named_for_what_it_is_and_says_what_is_accepted(tmp_path, content, words):
    path = tmp_path / "trace.json.gz"
    path.write_bytes(content(tmp_path))
    with pytest.raises(files.UnreadableFile) as exc:
        foreign.load(path)
    line = one_line(exc)
    assert words in line and line.endswith(f"; {foreign.ACCEPTED}")
    assert foreign.ACCEPTED == "expected a .json or .json.gz file from torch.profiler's export_chrome_trace"


def test_the_json_array_form_is_marked_as_such():
    doc = json.loads(gzip.decompress((DATA / "foreign" / "h200" / "flex.json.gz").read_bytes()))
    assert foreign.load(DATA / "foreign" / "h200" / "flex.json.gz").layout == "object"
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        trace = foreign.load(write(Path(tmp) / "a.json", doc["traceEvents"]))
    assert trace.layout == "array" and not trace.device_properties and trace.gpu
