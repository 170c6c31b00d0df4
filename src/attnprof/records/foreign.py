"""Read any PyTorch profiler trace (``torch.profiler`` / ``export_chrome_trace``), recorded by anyone's code.

:mod:`attnprof.records.trace` reads the site's own traces, cut at its own ``record_function`` annotations. This
module reads a trace it knows nothing about: every CPU op, annotation and CUDA runtime or driver call of every
thread, and every kernel, memcpy and memset, into compact typed events (:class:`ForeignTrace`) for
:mod:`attnprof.analysis.explain` to read. It knows the layouts PyTorch has written over the years:

* categories ``cpu_op``, ``user_annotation``, ``cuda_runtime``, ``cuda_driver``, ``kernel``, ``gpu_memcpy``,
  ``gpu_memset`` and the older spellings ``Operator``, ``Runtime``, ``Kernel``, ``Memcpy``, ``Memset`` (any case);
* a launch linked to its GPU work by ``args.correlation`` on both, or, where a trace lacks it, by its ``ac2g`` flow
  (``ph`` ``s`` at the launch, ``f`` at the kernel, sharing an ``id``);
* ``Input Dims`` (or the older ``Input dims``), ``Input type``, ``Concrete Inputs``, ``Sequence number`` and
  ``Fwd thread id`` where the trace recorded them (``record_shapes=True``);
* the ``traceEvents`` list inside an object (with ``deviceProperties``, ``distributedInfo``, version keys), or a
  bare JSON list of events.

Reading is bounded: at most ``max_bytes`` of (decompressed) JSON and ``max_events`` kept events, refused with
:class:`~attnprof.records.files.UnreadableFile` naming the limit and how to raise it. The events are parsed a few
megabytes at a time, so the memory a 100 MB trace takes stays a small multiple of its size (about 250 MB at its
peak), with the garbage collector off (building the events otherwise sets it off again and again: it took most of
the time). orjson parses when it is installed, the standard library's json otherwise; with the collector off the two
read a 100 MB trace within 10 % of each other, so orjson is not a dependency.
Every problem is one :class:`~attnprof.records.files.UnreadableFile` line naming the file and what is wrong: not
JSON (and what the file is instead: a tar archive, a Perfetto protobuf trace, ...), a truncated file, a Chrome trace
that is not PyTorch's, an event that is not an object, a time that is not a number or no time at all (NaN, infinite,
negative, a day away from the rest), the events of two exports in one file; each names the first bad event
(:mod:`attnprof.records.eventcheck`, checked in the same pass as the reading).

No torch here.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprof.records import eventcheck, files
from attnprof.records.eventcheck import MAX_SPAN_US

try:  # the fast parser; the standard library's json is the fallback
    import orjson as _orjson

    _loads: Callable[[bytes], Any] = _orjson.loads
    _DecodeError: type[Exception] = _orjson.JSONDecodeError
except ImportError:  # pragma: no cover - exercised where orjson is missing
    _loads = json.loads
    _DecodeError = ValueError

#: Default bound on the JSON read from one trace (decompressed), bytes: every reader's
#: (:func:`attnprof.records.files.max_read_bytes`, raised by ``$ATTNPROF_MAX_READ_MB``).
MAX_BYTES = files.MAX_READ_BYTES
#: Default bound on the events kept from one trace.
MAX_EVENTS = 4_000_000
#: How the limits are raised.
RAISE_HINT = (
    f"raise the limit with --max-mb (attnprof explain), {files.MAX_READ_MB_ENV}=<megabytes> or max_bytes= "
    "(records.foreign.load)"
)

#: Category (lower case) -> what the event is, for the categories kept.
CATEGORIES: dict[str, str] = {
    "cpu_op": "op",
    "operator": "op",
    "user_annotation": "annotation",
    "cuda_runtime": "runtime",
    "runtime": "runtime",
    "cuda_driver": "driver",
    "driver": "driver",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
}
#: The kinds of CPU-side events, and of GPU-side ones.
CPU_KINDS = ("op", "annotation", "runtime", "driver")
GPU_KINDS = ("kernel", "memcpy", "memset")
#: What a reader of traces accepts (:data:`attnprof.records.eventcheck.ACCEPTED`).
ACCEPTED = eventcheck.ACCEPTED
_CHUNK = 4 << 20
#: The key :func:`_whole` marks the JSON Array Format with, in the top-level keys it returns.
ARRAY = "\0array"
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


@dataclass(slots=True)
class CpuEvent:
    """One CPU-side event: an op (ATen op, autograd node, compiled region...), an annotation (``record_function``,
    ``ProfilerStep#N``), or a CUDA runtime or driver call. Times are the trace's, microseconds."""

    name: str
    kind: str
    pid: Any
    tid: Any
    ts: float
    dur: float
    correlation: int | None = None
    sequence: int | None = None
    backward: bool = False  # ``Fwd thread id`` is non-zero (1): an op that autograd's backward ran
    dims: tuple | None = None
    types: tuple | None = None
    concrete: tuple | None = None
    strides: tuple | None = None


@dataclass(slots=True)
class GpuEvent:
    """One kernel, memcpy or memset on a GPU stream, with what the trace says of its launch."""

    kind: str
    name: str
    device: Any
    stream: Any
    ts: float
    dur: float
    correlation: int | None = None
    grid: tuple | None = None
    block: tuple | None = None
    registers: int | None = None
    shared_memory: int | None = None
    blocks_per_sm: float | None = None
    warps_per_sm: float | None = None
    occupancy: float | None = None
    bytes: int | None = None


@dataclass
class ForeignTrace:
    """A PyTorch profiler trace, read.

    Attributes:
        name: The file's name.
        cpu: The CPU-side events, in the file's order.
        gpu: The GPU-side events, in the file's order.
        threads: ``(pid, tid) -> name`` from the ``thread_name`` metadata.
        device_properties: The trace's ``deviceProperties`` entries.
        meta: The top-level keys other than ``traceEvents`` and ``deviceProperties`` (versions,
            ``distributedInfo``, ...), as the trace has them.
        categories: How many ``X`` events of each category the trace holds (kept or not).
        events: How many events the trace holds.
        shapes: Whether the trace recorded input shapes (``record_shapes=True``); only the ops ``inputs_of``
            asked for (:func:`load`) keep theirs.
        layout: ``"object"`` (``traceEvents`` inside an object, as ``export_chrome_trace`` writes it) or
            ``"array"`` (the JSON Array Format: the events alone, without ``deviceProperties``).
    """

    name: str
    cpu: list[CpuEvent] = field(default_factory=list)
    gpu: list[GpuEvent] = field(default_factory=list)
    threads: dict[tuple[Any, Any], str] = field(default_factory=dict)
    device_properties: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    categories: Counter = field(default_factory=Counter)
    events: int = 0
    shapes: bool = False
    layout: str = "object"


# --- the bytes ------------------------------------------------------------------------------------------------------


def read_document(path: Path, max_bytes: int) -> bytearray:
    """The JSON bytes of ``path`` (gunzipped as they stream in when the file is gzip), at most ``max_bytes`` and at
    most :func:`~attnprof.records.files.max_objects` objects, refused as soon as either is passed: the one place this
    module reads a file."""
    return files.read_document(path, max_bytes, gz=None, hint=RAISE_HINT)


_bad = eventcheck.bad


def _parse(data: bytes, path: Path, gzipped: bool = False) -> Any:
    try:
        return _loads(data)
    except _DecodeError as exc:
        error = str(exc)
        cut = eventcheck.cut_short(exc, data)
    except RecursionError:
        raise _bad(path, "not valid JSON: nested too deeply") from None
    except UnicodeDecodeError as exc:
        error = f"not UTF-8 text: {exc.reason} at byte {exc.start}"
        raise eventcheck.not_json(data, path, error, gzipped) from None
    if not cut:
        try:
            return eventcheck.lenient(data, _loads)
        except (ValueError, RecursionError):
            pass
    raise eventcheck.not_json(data, path, error, gzipped, cut=cut) from None


def _top(head: bytes, tail: bytes) -> dict[str, Any] | None:
    """The top-level keys around ``traceEvents``, from the bytes before its key and after its list; ``None`` when
    they do not parse as the rest of one object (then the file is parsed whole)."""
    try:
        before = _loads(head.rstrip().rstrip(b",") + b"}") if head.strip() != b"{" else {}
        after = _loads(b'{"_": null' + tail)
    except (_DecodeError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(before, dict) or not isinstance(after, dict):
        return None
    after.pop("_", None)
    return before | after


def _chunks(data: bytes, path: Path, gzipped: bool = False) -> tuple[dict[str, Any], Iterator[list[Any]]]:
    """The top-level object without its events, and the events a few megabytes at a time.

    The list is cut where ``}`` ``,`` ``{`` meet; a cut that falls inside a string or a nested object leaves a piece
    that does not parse, and that piece is joined with the next. A file this does not fit is parsed whole.
    """
    key = data.find(b'"traceEvents"')
    m = _KEY.match(data, key) if key >= 0 else None
    end, top = len(data), None
    while m is not None and top is None and len(data) - end < 16 << 20:
        end = data.rfind(b"]", m.end() - 1, end)
        if end < m.end() - 1:
            break
        last = data[max(m.end() - 1, end - 64) : end].rstrip()[-1:]  # the list ends after an event, or is empty
        if last in (b"}", b"["):
            top = _top(data[:key], data[end + 1 :])
    if m is None or top is None:
        return _whole(data, path, gzipped)
    return top, _pieces(data, m.end(), end, path)


def _whole(data: bytes, path: Path, gzipped: bool = False) -> tuple[dict[str, Any], Iterator[list[Any]]]:
    """The trace parsed in one piece (a layout :func:`_chunks` does not cut)."""
    doc = _parse(data, path, gzipped)
    if isinstance(doc, list):  # the JSON Array Format: the events alone
        return {ARRAY: True}, iter([doc])
    if not isinstance(doc, dict):
        raise _bad(path, f"not a Chrome trace: the JSON is {type(doc).__name__}, not an object with traceEvents")
    events = doc.pop("traceEvents", None)
    if not isinstance(events, list):
        raise _bad(path, "not a Chrome trace: no traceEvents list")
    return doc, iter([events])


class _Uncut(Exception):
    """The last piece of the list did not parse: the list was not cut where it ends."""


def _pieces(data: bytes, start: int, stop: int, path: Path) -> Iterator[list[Any]]:
    view = memoryview(data)
    a = start
    while a < stop:
        b = a + _CHUNK
        while True:
            cut = _BOUNDARY.search(data, b, stop) if b < stop else None
            b = cut.start() + 1 if cut else stop
            piece = view[a:b].tobytes()
            if not piece.strip():
                return
            try:
                got = _loads(b"[" + piece + b"]")
                break
            except (_DecodeError, UnicodeDecodeError):
                with contextlib.suppress(ValueError, RecursionError):
                    got = eventcheck.lenient(b"[" + piece + b"]", _loads)  # NaN, Infinity, 10**400: named later
                    break
                if cut is None:
                    raise _Uncut from None
        yield got
        a = cut.end() - 1 if cut else stop


# --- the events -----------------------------------------------------------------------------------------------------


def _num(e: dict, key: str, path: Path, n: int) -> float:
    v = e.get(key, 0.0)
    if type(v) is float or type(v) is int:
        return v
    raise _bad(path, f"event {n} ({str(e.get('name'))[:60]!r}): {key!r} is {str(v)[:40]!r}, not a number")


def _int(v: Any) -> int | None:
    return v if type(v) is int else (int(v) if type(v) is float and v == int(v) else None)


class _Reader:
    """Turns parsed events into :class:`CpuEvent` and :class:`GpuEvent`, sharing repeated values."""

    def __init__(self, trace: ForeignTrace, path: Path, max_events: int, inputs_of: Callable[[str], bool]) -> None:
        self.t, self.path, self.max_events, self.inputs_of = trace, path, max_events, inputs_of
        self.wanted: dict[str, bool] = {}
        self.shared: dict[Any, Any] = {}
        self.flows_s: dict[int, tuple] = {}
        self.flows_f: dict[Any, int] = {}
        self.kind_of: dict[Any, str | None] = {}
        # the checks of the events' times, and of events seen twice (an op's External id, a launch's correlation id)
        self.times = eventcheck.Times(path)
        self.seen: dict[str, dict[Any, int]] = {k: {} for k in CPU_KINDS}  # id (or (pid, id)) -> event number
        self.main_pid: Any = None

    def share(self, v: Any) -> Any:
        """One object for equal values (shapes, type lists and names repeat thousands of times); lists become
        tuples."""
        if type(v) is list:
            try:
                v = tuple(map(tuple, v)) if v and type(v[0]) is list else tuple(v)
            except TypeError:  # a list of lists and scalars
                v = tuple(tuple(x) if type(x) is list else x for x in v)
        try:
            return self.shared.setdefault(v, v)
        except TypeError:  # nested deeper (a list of tensor lists): frozen all the way down
            return self.shared.setdefault(_freeze(v), _freeze(v))

    def kind(self, cat: Any) -> str | None:
        k = CATEGORIES.get(cat.lower()) if isinstance(cat, str) else None
        self.kind_of[cat] = k
        return k

    def read(self, events: list[Any]) -> None:
        """Read one piece of the event list (every problem one :class:`~attnprof.records.files.UnreadableFile`)."""
        start = self.t.events
        if self.times.anchor is None:
            self.times.find_anchor(events, start, CATEGORIES)
            if self.main_pid is None and self.times.anchor is not None:
                self.main_pid = events[self.times.anchor[0] - start - 1].get("pid")  # ids of other pids keyed apart
        try:
            self._read(events, start, self.max_events - len(self.t.cpu) - len(self.t.gpu))
        except (TypeError, ValueError, AttributeError) as exc:  # a list or an object where a number or name belongs
            if isinstance(exc, files.UnreadableFile):
                raise
            n = self.t.events  # the event being read
            e = events[n - start - 1]
            what = _odd(e) or f"a field of the wrong kind ({exc})"
            raise _bad(self.path, f"event {n} ({str(e.get('name'))[:60]!r}): {what}") from None

    def _read(
        self, events: list[Any], n: int, limit: int
    ) -> None:  # the hot loop of a large trace: locals, few calls
        t, path, cats, share, shared = self.t, self.path, self.t.categories, self.share, self.shared
        kind_of, wanted_of, cpu, gpu = self.kind_of, self.wanted, t.cpu, t.gpu
        times, seen_by = self.times, self.seen
        lo, hi = times.lo, times.hi
        main_pid = self.main_pid
        for e in events:
            n += 1
            t.events = n
            if type(e) is not dict:
                raise _bad(path, f"event {n} is {type(e).__name__} {str(e)[:40]!r}, not an object")
            ph = e.get("ph")
            if ph == "X":
                cat = e.get("cat")
                try:
                    cats[cat] += 1
                    kind = kind_of[cat]
                except (KeyError, TypeError):
                    if not isinstance(cat, str):
                        cat = repr(cat)
                        cats[cat] += 1
                    kind = self.kind(cat)
                if kind is None:
                    continue
                ts, dur = e.get("ts"), e.get("dur", 0.0)
                if type(ts) is not float and type(ts) is not int:
                    ts = _num(e, "ts", path, n)
                if type(dur) is not float and type(dur) is not int:
                    dur = _num(e, "dur", path, n)
                if not (0.0 <= dur <= MAX_SPAN_US and lo <= ts <= hi):  # NaN fails every comparison
                    times.odd(e, n, ts, dur)
                args = e.get("args")
                if type(args) is not dict:
                    args = {}
                name = e.get("name")
                if type(name) is not str:
                    name = str(name)
                name = shared.setdefault(name, name)
                corr = args.get("correlation")
                if type(corr) is not int:
                    corr = _int(corr)
                limit -= 1
                if limit < 0:
                    raise _bad(path, f"holds more than {self.max_events} events, the most attnprof reads; "
                                     f"{RAISE_HINT}")  # fmt: skip
                if kind in CPU_KINDS:
                    pid, tid, seq, fwd = (
                        e.get("pid"),
                        e.get("tid"),
                        args.get("Sequence number"),
                        args.get("Fwd thread id"),
                    )
                    event = CpuEvent(name, kind, shared.setdefault(pid, pid), shared.setdefault(tid, tid), ts, dur,
                                     corr, seq if type(seq) is int else _int(seq), bool(fwd))  # fmt: skip
                    key = corr if kind == "runtime" or kind == "driver" else args.get("External id")
                    if type(key) is int:  # unique within one process's export (ranks merged: refused later)
                        first = seen_by[kind].setdefault(key if pid == main_pid else (pid, key), n)
                        if first != n:
                            raise eventcheck.twice(path, e, n, first, key, key is corr)
                    dims = args.get("Input Dims") or args.get("Input dims")
                    if dims:
                        t.shapes = True
                        wanted = wanted_of.get(name)
                        if wanted is None:
                            wanted = wanted_of[name] = bool(self.inputs_of(name))
                        if wanted:
                            event.dims = share(dims)
                            event.types = share(args.get("Input type")) or None
                            event.concrete = share(args.get("Concrete Inputs")) or None
                            event.strides = share(args.get("Input Strides")) or None
                    cpu.append(event)
                else:
                    grid, block = args.get("grid"), args.get("block")
                    gpu.append(
                        GpuEvent(kind, name, share(args.get("device", e.get("pid"))),
                                 share(args.get("stream", e.get("tid"))), ts, dur, corr,
                                 share(grid) if grid else None, share(block) if block else None,
                                 _int(args.get("registers per thread")), _int(args.get("shared memory")),
                                 _float(args.get("blocks per SM")), _float(args.get("warps per SM")),
                                 _float(args.get("est. achieved occupancy %")), _int(args.get("bytes")))
                    )  # fmt: skip
            elif ph == "M":
                if e.get("name") == "thread_name" and isinstance(e.get("args"), dict):
                    t.threads[(share(e.get("pid")), share(e.get("tid")))] = str(e["args"].get("name", ""))
            elif (ph == "s" or ph == "f") and e.get("cat") == "ac2g":
                fid = _int(e.get("id"))
                if fid is not None:
                    if ph == "s":
                        start = (e.get("pid"), e.get("tid"), e.get("ts"))
                        hash(start)  # a list where a number belongs: refused here, named by read()
                        self.flows_s[fid] = start
                    else:
                        self.flows_f[e.get("ts")] = fid  # the kernel's start: its pid and tid may be spelt otherwise
        t.events = n

    def link_flows(self) -> None:
        """Give launches and GPU work without ``args.correlation`` the id of their ``ac2g`` flow (older layouts)."""
        if not self.flows_s:
            return
        starts = {v: k for k, v in self.flows_s.items()}
        for c in self.t.cpu:
            if c.correlation is None and c.kind in ("runtime", "driver"):
                c.correlation = starts.get((c.pid, c.tid, c.ts))
        for g in self.t.gpu:
            if g.correlation is None:
                g.correlation = self.flows_f.get(g.ts)


_SCALARS = (int, float, str, bool, type(None))


def _odd(e: dict) -> str | None:
    """What, in an event, is a list or an object where a number or a name belongs (``None``: nothing)."""
    args = e.get("args") if type(e.get("args")) is dict else {}
    for where, v in (("pid", e.get("pid")), ("tid", e.get("tid")), ("ts", e.get("ts")), ("id", e.get("id")),
                     ("args.device", args.get("device")), ("args.stream", args.get("stream"))):  # fmt: skip
        if type(v) not in _SCALARS:
            return f"{where!r} is {str(v)[:40]!r}, not a number or a string"
    return None


def _freeze(v: Any) -> Any:
    return (
        tuple(_freeze(x) for x in v)
        if isinstance(v, (list, tuple))
        else v
        if isinstance(v, (str, int, float, bool))
        else None
    )


def _float(v: Any) -> float | None:
    return float(v) if type(v) is float or type(v) is int else None


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (as it was, after): building hundreds of thousands of
    objects that hold no cycles otherwise sets it off again and again, which takes most of the time of a large
    trace."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def events_bound(max_bytes: int) -> int:
    """The most events a read of at most ``max_bytes`` keeps: one per 128 bytes (the smallest event PyTorch writes
    is about that), at least 1000 (what ``attnprof explain`` and :func:`attnprof.explain` pass as ``max_events``)."""
    return max(max_bytes // 128, 1000)


def load(
    path: str | os.PathLike[str],
    max_bytes: int | None = None,
    max_events: int = MAX_EVENTS,
    inputs_of: Callable[[str], bool] = lambda name: True,
) -> ForeignTrace:
    """Read the PyTorch profiler trace at ``path`` (``.json`` or gzipped, whatever its name says).

    Args:
        path: The trace file.
        max_bytes: The most JSON bytes read (decompressed); a larger trace is refused. By default every reader's
            bound (:func:`attnprof.records.files.max_read_bytes`).
        max_events: The most events kept; a trace with more is refused.
        inputs_of: Which ops (by name) keep their input shapes, types and concrete values: the shapes of every op
            of a large trace take more memory than the rest of it.

    Returns:
        The :class:`ForeignTrace`.

    Raises:
        FileNotFoundError: if there is no such file.
        attnprof.records.files.UnreadableFile: for a file that is not a regular file, too large (compressed or
            not), corrupt or truncated gzip, not JSON, not a Chrome trace, a Chrome trace with no PyTorch events,
            or an event that is not an object or whose time is not a number.
    """
    with no_gc():
        return _load(Path(path), files.max_read_bytes() if max_bytes is None else max_bytes, max_events, inputs_of)


def _load(path: Path, max_bytes: int, max_events: int, inputs_of: Callable[[str], bool]) -> ForeignTrace:
    data = read_document(path, max_bytes)
    with open(path, "rb") as f:  # whether the file was gzip, for a refusal to say what was inside
        gzipped = f.read(2) == b"\x1f\x8b"
    top, pieces = _chunks(data, path, gzipped)
    trace = ForeignTrace(name=path.name)
    reader = _Reader(trace, path, max_events, inputs_of)
    try:
        for piece in pieces:
            reader.read(piece)
    except _Uncut:  # start again from the whole document, which names the JSON error if there is one
        trace = ForeignTrace(name=path.name)
        reader = _Reader(trace, path, max_events, inputs_of)
        top, pieces = _whole(data, path, gzipped)
        for piece in pieces:
            reader.read(piece)
    del data
    reader.times.finish(len(trace.cpu) + len(trace.gpu))
    reader.link_flows()
    trace.layout = "array" if top.pop(ARRAY, False) else "object"
    props = top.pop("deviceProperties", None)
    trace.device_properties = [p for p in props if isinstance(p, dict)] if isinstance(props, list) else []
    trace.meta = {k: v for k, v in top.items() if not isinstance(v, (list, dict)) or k == "distributedInfo"}
    if not trace.cpu and not trace.gpu:
        seen = ", ".join(f"{c} ({n})" for c, n in trace.categories.most_common(6)) or "none"
        raise _bad(
            path,
            f"a Chrome trace without PyTorch profiler events (no cpu_op, kernel or CUDA runtime events; "
            f"categories seen: {seen}); record it with torch.profiler and export_chrome_trace",
        )
    return trace
