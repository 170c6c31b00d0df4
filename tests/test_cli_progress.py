"""attnprof.cli.progress: quiet lines in a pipe, a redrawn line with elapsed time on a terminal, a bar over a
sweep's points."""

from __future__ import annotations

import io
import re
import time

import pytest

from attnprof.cli import progress
from attnprof.records import sweep


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_in_a_pipe_one_line_per_variant_and_nothing_for_a_short_single_run():
    stream = io.StringIO()
    ticker = progress.Ticker(stream, 2)
    with ticker.item(1, "naive", 45.0):
        pass
    with ticker.item(2, "sdpa_flash", None):
        pass
    assert stream.getvalue() == "[1/2] naive: about 45 s\n[2/2] sdpa_flash\n"
    quiet = io.StringIO()
    with progress.Ticker(quiet, 1).item(1, "naive", 0.5):
        pass
    assert quiet.getvalue() == ""


def test_on_a_terminal_the_line_is_redrawn_with_the_time_spent_and_ends_with_the_time_taken():
    stream = Tty()
    with progress.Ticker(stream, 3, interval=0.01).item(2, "naive", 90.0):
        time.sleep(0.1)
    text = stream.getvalue()
    assert text.startswith("\r[2/3] naive: about 1.5 min")
    assert re.search(r"\r\[2/3\] naive: \d\.\d s of about 1\.5 min", text)
    assert re.search(r"\[2/3\] naive: took \d\.\d s *\n$", text)


def test_an_interrupt_ends_the_line_without_claiming_the_variant_finished():
    stream = Tty()
    with pytest.raises(KeyboardInterrupt), progress.Ticker(stream, 1, interval=0.01).item(1, "naive", 9.0):
        raise KeyboardInterrupt
    assert "took" not in stream.getvalue() and stream.getvalue().endswith("\n")


def test_progress_bar_redraws_in_place_on_a_terminal():
    stream = Tty()
    bar = progress.ProgressBar(stream, width=4)
    bar(1, 2, sweep.SweepPoint("naive", 64, 16, "ok", gpu_ms=0.5))
    bar(2, 2, sweep.SweepPoint("naive", 128, 16, "oom", "x"))
    assert stream.getvalue() == "\r[##..] 1/2 naive hd16 seq64: 0.500 ms\r[####] 2/2 naive hd16 seq128: oom    \n"
