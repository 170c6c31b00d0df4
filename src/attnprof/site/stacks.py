"""Where a build's time went, below the table of :mod:`attnprof.site.timetable`: a sampling profiler of one thread.

A daemon thread looks at the stack of the thread that started it every ``interval_s`` and adds the wall time since its
last look (microseconds) to the stack seen, in the "collapsed" form flame-graph tools read (``outer;inner;innermost
microseconds``, one line per stack): on a busy machine it looks less often, and each look counts for longer. It
costs the sampled thread almost nothing (no tracing hook), so it can watch a whole docs build on a GPU:
compilation, timing loops, Sphinx's reading. Time spent in other processes (the compile workers of Inductor, say)
shows as the sampled thread waiting for them.

The builder starts it when ``$ATTNPROF_SAMPLE_STACKS`` names a file (``.gz`` is written gzipped)::

    ATTNPROF_SAMPLE_STACKS=_build/stacks.txt.gz nox -s docs
"""

from __future__ import annotations

import collections
import gzip
import sys
import threading
import time
from pathlib import Path
from types import FrameType

#: Seconds between two looks at the stack.
INTERVAL_S = 0.005


def frame_label(frame: FrameType) -> str:
    """One frame as ``file:function:line`` with the file shortened to its last two parts (``torch/_dynamo/x.py``)."""
    code = frame.f_code
    parts = Path(code.co_filename).parts[-2:]
    return f"{'/'.join(parts)}:{code.co_name}:{frame.f_lineno}"


def stack_of(frame: FrameType | None) -> tuple[str, ...]:
    """The stack ending in ``frame``, outermost first."""
    labels = []
    while frame is not None:
        labels.append(frame_label(frame))
        frame = frame.f_back
    return tuple(reversed(labels))


class Sampler:
    """``with Sampler() as s: ...``; then ``s.counts`` maps each stack seen to the microseconds of wall time it was
    seen for, and :meth:`collapsed` gives the flame-graph text."""

    def __init__(self, interval_s: float = INTERVAL_S) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s must be a positive number of seconds, not {interval_s!r}")
        self.interval_s = interval_s
        self.counts: collections.Counter[tuple[str, ...]] = collections.Counter()
        self._target = threading.get_ident()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="attnprof-stack-sampler", daemon=True)

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.wait(self.interval_s):
            frame = sys._current_frames().get(self._target)
            now = time.perf_counter()
            if frame is not None:  # the wall time since the last look, in µs: a busy machine looks less often
                self.counts[stack_of(frame)] += round((now - last) * 1e6)
            last = now
            del frame

    def __enter__(self) -> Sampler:
        self._started = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.seconds = time.perf_counter() - self._started

    def collapsed(self) -> str:
        """One line per stack, ``a;b;c count``, the most frequent first."""
        return "".join(f"{';'.join(stack)} {n}\n" for stack, n in self.counts.most_common())

    def save(self, path: Path) -> None:
        """Write :meth:`collapsed` to ``path`` (gzipped when it ends in ``.gz``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.collapsed().encode()
        path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
