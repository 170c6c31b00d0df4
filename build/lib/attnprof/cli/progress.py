"""Progress for the command line: a bar over a sweep's points, and a line per profiled variant with its elapsed and
expected time.

On a terminal both redraw one line in place (the per-variant line every half second, so a long call still shows
time passing); written to a file or a pipe they print plain lines, one per point or per variant, and nothing is
redrawn. No torch here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from attnprof.measure.cost import human_seconds
from attnprof.records.sweep import SweepPoint

#: A variant expected to take less than this (seconds) gets no line when the output is not a terminal.
QUIET_BELOW_S = 2.0


def is_tty(stream: IO[str]) -> bool:
    """Whether ``stream`` is a terminal."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """A plain-text progress bar over a sweep's points: redrawn in place on a terminal, one line per point
    otherwise."""

    def __init__(self, stream: IO[str], width: int = 28) -> None:
        self.stream = stream
        self.width = width
        self.tty = is_tty(stream)
        self._last = 0

    def __call__(self, done: int, total: int, point: SweepPoint) -> None:
        filled = round(self.width * done / total) if total else self.width
        what = f"{point.gpu_ms:.3f} ms" if point.ok and point.gpu_ms is not None else point.status
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {point.variant} hd{point.head_dim} "
        text += f"seq{point.seq}: {what}"
        if self.tty:
            self.stream.write("\r" + text.ljust(self._last) + ("\n" if done == total else ""))
            self._last = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


class Ticker:
    """One line per variant of a run: ``[2/9] naive_inplace: about 45 s`` when it starts; on a terminal the line
    is redrawn every ``interval`` seconds with the time spent (``[2/9] naive_inplace: 12 s of about 45 s``) and
    ends with the time it took.

    Args:
        stream: Where to write (standard error).
        total: How many variants the run has.
        interval: Seconds between redraws on a terminal.
    """

    def __init__(self, stream: IO[str], total: int, interval: float = 0.5) -> None:
        self.stream = stream
        self.total = total
        self.interval = interval
        self.tty = is_tty(stream)

    def _line(self, head: str, elapsed: float | None, expected: float | None) -> str:
        about = f"about {human_seconds(expected)}" if expected is not None else ""
        if elapsed is None:
            return f"{head}: {about}" if about else head
        spent = human_seconds(elapsed)
        return f"{head}: {spent} of {about}" if about else f"{head}: {spent}"

    @contextmanager
    def item(self, index: int, label: str, expected: float | None = None) -> Iterator[None]:
        """Show the variant ``label`` (the ``index``-th) while the block runs; ``expected`` in seconds or ``None``."""
        head = f"[{index}/{self.total}] {label}"
        if not self.tty:
            if self.total > 1 or expected is None or expected >= QUIET_BELOW_S:
                self.stream.write(self._line(head, None, expected) + "\n")
                self.stream.flush()
            yield
            return
        stop = threading.Event()
        start = time.perf_counter()
        width = [0]

        def draw(text: str, end: str = "") -> None:
            self.stream.write("\r" + text.ljust(width[0]) + end)
            self.stream.flush()
            width[0] = len(text)

        def tick() -> None:
            while not stop.wait(self.interval):
                draw(self._line(head, time.perf_counter() - start, expected))

        draw(self._line(head, None, expected))
        thread = threading.Thread(target=tick, name="attnprof-progress", daemon=True)
        thread.start()
        finished = False
        try:
            yield
            finished = True
        finally:
            stop.set()
            thread.join()
            if finished:
                draw(f"{head}: took {human_seconds(time.perf_counter() - start)}", "\n")
            else:  # interrupted or failed: end the line, so the next message starts on its own
                self.stream.write("\n")
                self.stream.flush()
