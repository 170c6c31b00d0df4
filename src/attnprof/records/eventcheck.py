"""The checks :mod:`attnprof.records.foreign` makes of a trace while it reads it, in the same pass, and the one line
of each refusal: times that are no times (:class:`Times`), events seen twice (:func:`twice`), and a file that does
not parse (:func:`not_json`: what it is instead, from :mod:`.sniff`).

Times: every kept event's duration is finite, not negative and at most :data:`MAX_SPAN_US` (a day); its start is
finite, not negative, at most :data:`MAX_TS_US`, and within :data:`MAX_SPAN_US` of the first kept event's (the
anchor): a profiler records seconds to minutes, so an event a day away from the rest is not a time of this trace.
Where most events lie far from the anchor, the anchor is the odd one out and is the event named. ``NaN``,
``Infinity`` and integers beyond a double (``10**400``) are JSON that orjson refuses: :func:`lenient` reads such a
piece again with the standard library's json, so that the event and its bad value are named.

Events seen twice: an op's or annotation's ``External id`` and a launch's ``correlation`` id are unique within one
process's export; the same id twice is the events of two exports in one file.

No torch here.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from attnprof.records import files, sniff

#: The longest a kept event may last, and the farthest its start may lie from the trace's first, microseconds (a
#: day: a profiler records seconds to minutes).
MAX_SPAN_US = 86_400e6
#: The latest start a kept event may have, microseconds from the profiler clock's zero (about the year 5100 as Unix
#: time; PyTorch writes microseconds since boot or since 1970).
MAX_TS_US = 1e17
#: What a reader of traces accepts, said after each refusal of a file.
ACCEPTED = "expected a .json or .json.gz file from torch.profiler's export_chrome_trace"


def bad(path: Path, what: str) -> files.UnreadableFile:
    """The one line of a refused trace: its file's name and what is wrong."""
    return files.UnreadableFile(f"{path.name}: {what}", path)


def name(e: dict) -> str:
    """An event's name as a message quotes it: its ``repr``, 60 characters at most."""
    return repr(str(e.get("name"))[:60])


def show(v: float) -> str:
    """A number as a message shows it: ``1e+300``, ``-5``, a huge integer by its first digits and its length."""
    if isinstance(v, int) and abs(v) >= 10**15:
        return f"{str(v)[:8]}… ({len(str(abs(v)))} digits)"
    return f"{v:g}" if isinstance(v, float) else str(v)


def span(us: float) -> str:
    """A long time in words: ``2854 years``, ``57.9 days``, ``30 hours``."""
    for unit, size in (("years", 365 * 86_400e6), ("days", 86_400e6)):
        if us >= size:
            return f"{_number(us / size)} {unit}"
    return f"{_number(us / 3600e6)} hours"


def _number(x: float) -> str:
    return f"{x:.3g}" if x < 1000 else f"{x:.0f}"


class Times:
    """The window every kept event's start must lie in, anchored at the first kept event with a plausible start.

    Attributes:
        lo, hi: The window (absolute bounds until an anchor is found): the reader's hot loop compares each start
            with them and calls :meth:`odd` only for what falls outside.
        anchor: ``(event number, quoted name, start)`` of the anchor, ``None`` before one is found.
        far: The events whose start lies outside the window but is a time: ``(number, quoted name, start)``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lo, self.hi = 0.0, MAX_TS_US
        self.anchor: tuple[int, str, float] | None = None
        self.far: list[tuple[int, str, float]] = []

    def find_anchor(self, events: list[Any], n: int, kept: dict[str, str]) -> None:
        """Anchor the window at the first event of ``events`` (numbered from ``n + 1``) of a kept category (the
        keys of ``kept``, lower case) with a plausible start."""
        for e in events:
            n += 1
            cat = e.get("cat") if type(e) is dict and e.get("ph") == "X" else None
            if isinstance(cat, str) and cat.lower() in kept:
                ts = e.get("ts")
                if (type(ts) is float or type(ts) is int) and 0 <= ts <= MAX_TS_US:
                    self.anchor = (n, name(e), ts)
                    self.lo, self.hi = max(0.0, ts - MAX_SPAN_US), min(MAX_TS_US, ts + MAX_SPAN_US)
                    return

    def odd(self, e: dict, n: int, ts: float, dur: float) -> None:
        """An event outside the window, or of a duration out of bounds: refused at once when a value is no time
        at all (NaN, infinite, negative, a duration of more than a day, a start past :data:`MAX_TS_US`); a start
        merely far from the anchor is noted for :meth:`finish`."""
        what = f"event {n} ({name(e)})"
        for key, v in (("dur", dur), ("ts", ts)):
            if isinstance(v, float) and not math.isfinite(v):
                raise bad(self.path, f"{what}: {key!r} is {v}, not a finite number of microseconds")
            if v < 0:
                raise bad(self.path, f"{what}: {key!r} is {show(v)}, negative; a trace's times are microseconds "
                                     "from its clock's zero, and durations are never negative")  # fmt: skip
        if dur > MAX_SPAN_US:
            raise bad(self.path, f"{what}: 'dur' is {show(dur)} µs, more than a day; a profiler records seconds to "
                                 "minutes")  # fmt: skip
        if ts > MAX_TS_US:
            raise bad(self.path, f"{what}: 'ts' is {show(ts)}, past any clock a trace is written with (at most "
                                 f"{MAX_TS_US:.0e} µs)")  # fmt: skip
        self.far.append((n, name(e), ts))

    def finish(self, kept: int) -> None:
        """Refuse a trace of ``kept`` events whose starts lie more than :data:`MAX_SPAN_US` apart, naming the first
        odd event: the first far from the anchor, or the anchor itself when most events lie far from it."""
        if not self.far or self.anchor is None:
            return
        (n, quoted, ts), others = self.far[0], self.anchor[2]
        if len(self.far) > kept / 2:
            (n, quoted, ts), others = self.anchor, self.far[0][2]
        raise bad(self.path, f"event {n} ({quoted}): 'ts' {show(ts)} lies {span(abs(ts - others))} from the rest of "
                             "the trace; a profiler records seconds to minutes, so one of them is not a time of this "
                             "trace")  # fmt: skip


def twice(path: Path, e: dict, n: int, first: int, key: int, launch: bool) -> files.UnreadableFile:
    """The refusal of event ``n``, which repeats event ``first``'s id ``key`` (a launch's correlation id, or an
    op's External id): two exports in one file."""
    which = f"correlation id {key}" if launch else f"External id {key}"
    return bad(path, f"event {n} ({name(e)}) repeats event {first} (the same {which}): the events of two exports in "
                     "one file? attnprof reads one export at a time")  # fmt: skip


def lenient(data: bytes, parser: Any) -> Any:
    """``data`` parsed by the standard library's json, which also takes ``NaN``, ``Infinity`` and integers beyond
    a double (orjson refuses them), when ``parser`` (the reader's) is another one. Raises ``ValueError`` (or
    ``RecursionError``) when it fails too."""
    if parser is json.loads:
        raise ValueError("already parsed by json")
    return json.loads(data)


def cut_short(exc: Exception, data: bytes | bytearray) -> bool:
    """Whether the parse error ``exc`` says that ``data`` ends before its JSON does (a trace cut short), whichever
    parser raised it: orjson's "end of data", or the standard library's error at the last byte (or a string left
    open, which it reports where the string starts)."""
    text = str(exc)
    if "end of data" in text or text.startswith("Unterminated string"):
        return True
    pos = getattr(exc, "pos", None)
    return isinstance(pos, int) and pos >= len(data.rstrip())


def not_json(data: bytes | bytearray, path: Path, error: str, gzipped: bool = False, *, cut: bool | None = None
             ) -> files.UnreadableFile:  # fmt: skip
    """The one line for a file that does not parse: what it is when :func:`attnprof.records.sniff.what` knows it, a
    trace cut short when the JSON error is at its end (``cut``; from ``error``'s words when not given), else the
    parser's words; each with what is accepted."""
    kind = sniff.what(data, gzipped)
    if kind is not None:
        return bad(path, f"not a trace: the file is {kind}; {ACCEPTED}")
    if cut is None:
        cut = "end of data" in error or ("Expecting" in error and _at_end(error, len(data)))
    if cut:
        return bad(path, f"not valid JSON: it ends before the JSON does ({error}): a trace cut short (an export or "
                         f"a copy interrupted?); {ACCEPTED}")  # fmt: skip
    return bad(path, f"not valid JSON ({error}); {ACCEPTED}")


def _at_end(error: str, size: int) -> bool:
    m = re.search(r"\(char (\d+)\)", error)
    return m is not None and int(m.group(1)) >= size - 2
