"""records.eventcheck: the checks of a trace's times and ids, made while records.foreign reads it (the refusals
themselves, through foreign.load, are in test_foreign.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnprof.records import eventcheck, files

PATH = Path("t.json")
KEPT = {"cpu_op": "op", "kernel": "kernel"}


def test_the_window_is_anchored_at_the_first_kept_event_with_a_plausible_start():
    t = eventcheck.Times(PATH)
    events = [{"ph": "M"}, {"ph": "X", "cat": "python_function", "ts": 1.0}, {"ph": "X", "cat": "Kernel", "ts": -4},
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 5e12}]  # fmt: skip
    t.find_anchor(events, 10, KEPT)
    assert t.anchor == (14, "'aten::mm'", 5e12)
    assert (t.lo, t.hi) == (5e12 - eventcheck.MAX_SPAN_US, 5e12 + eventcheck.MAX_SPAN_US)


@pytest.mark.parametrize(
    ("ts", "dur", "words"),
    [
        (float("nan"), 1.0, "'ts' is nan, not a finite number"),
        (1.0, float("inf"), "'dur' is inf, not a finite number"),
        (-1, 1.0, "'ts' is -1, negative"),
        (1.0, -0.5, "'dur' is -0.5, negative"),
        (1.0, 2 * eventcheck.MAX_SPAN_US, "more than a day"),
        (10**40, 1.0, "'ts' is 10000000… (41 digits), past any clock"),
    ],
)
def test_no_time_at_all_is_refused_at_once(ts, dur, words):
    with pytest.raises(files.UnreadableFile, match=r"^t.json: event 3 \('k'\): ") as exc:
        eventcheck.Times(PATH).odd({"name": "k"}, 3, ts, dur)
    assert words in str(exc.value)


def test_a_start_far_from_the_anchor_is_noted_then_refused_naming_the_odd_one():
    t = eventcheck.Times(PATH)
    t.find_anchor([{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1e12}], 0, KEPT)
    t.odd({"name": "b"}, 2, 1e12 + 3 * eventcheck.MAX_SPAN_US, 1.0)  # noted, not refused yet
    assert [n for n, _, _ in t.far] == [2]
    with pytest.raises(files.UnreadableFile, match=r"event 2 \('b'\): 'ts' .* lies 3 days from the rest"):
        t.finish(kept=10)
    t.far *= 5  # most events lie far from the anchor: the anchor is the odd one
    with pytest.raises(files.UnreadableFile, match=r"event 1 \('a'\): 'ts' 1e\+12 lies 3 days from the rest"):
        t.finish(kept=6)


def test_a_repeated_id_names_both_events_and_the_id():
    line = str(eventcheck.twice(PATH, {"name": "cudaLaunchKernel"}, 9, 4, 77, True))
    assert line == ("t.json: event 9 ('cudaLaunchKernel') repeats event 4 (the same correlation id 77): the events "
                    "of two exports in one file? attnprof reads one export at a time")  # fmt: skip
    assert "External id 5" in str(eventcheck.twice(PATH, {"name": "aten::mm"}, 9, 4, 5, False))


def test_lenient_takes_what_orjson_refuses_and_refuses_what_json_refuses():
    assert eventcheck.lenient(b"[NaN, Infinity, 1" + b"0" * 30 + b"]", object())[2] == 10**30
    with pytest.raises(ValueError):
        eventcheck.lenient(b"[1,", object())
    import json

    with pytest.raises(ValueError, match="already parsed"):
        eventcheck.lenient(b"[1]", json.loads)


def test_a_file_cut_short_is_told_from_one_with_a_bad_character():
    data = b'{"traceEvents": [{"ph": "X"'
    assert "a trace cut short" in str(eventcheck.not_json(data, PATH, "unexpected end of data: line 1 column 28"))
    line = str(eventcheck.not_json(b'{"a": x}', PATH, "unexpected character: line 1 column 7 (char 6)"))
    assert line == f"t.json: not valid JSON (unexpected character: line 1 column 7 (char 6)); {eventcheck.ACCEPTED}"
    assert "Expecting" in "Expecting value" and "cut short" in str(
        eventcheck.not_json(b"[1,", PATH, "Expecting value: line 1 column 4 (char 3)"))  # fmt: skip
