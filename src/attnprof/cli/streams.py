"""The program's standard streams: standard output that fails in one line (a full device, a closed stream) or
silently (a reader that went away: ``attnprof compare | head -1``), standard error that never breaks a run, and the
profiler's own chatter on standard error (Kineto's ``USDT:`` lines) kept out of the user's terminal. A terminal
whose encoding cannot write a character (``PYTHONIOENCODING=ascii``, a ``C`` locale) gets its ASCII spelling
(:func:`attnprof.words.fmt.ascii_spelling`: ``µs`` as ``us``, ``×`` as ``x``, an escape for the rest) and JSON gets
``\\uXXXX`` escapes, so that it still parses to the same data. No torch here.

:func:`program_streams` is what the ``attnprof`` program runs in; :func:`attnprof.cli.main` called with streams of
its own (the tests) wraps them in :class:`Output` and :class:`BestEffort` alone.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import select
import sys
import threading
from collections.abc import Iterator
from typing import IO

from attnprof.words import fmt

#: Lines the profiler's C++ side writes straight to file descriptor 2: Kineto's probes and stage marks. They say
#: nothing to the user of a command that has its own progress lines.
NOISE = ("USDT:", "STAGE:")


def _spell(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return fmt.ascii_spelling(exc.object[exc.start : exc.end]), exc.end


def _json_escape(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for c in exc.object[exc.start : exc.end]:
        n = ord(c)
        if n > 0xFFFF:  # a surrogate pair, as JSON spells a character beyond the first plane
            n -= 0x10000
            out.append(f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}")
        else:
            out.append(f"\\u{n:04x}")
    return "".join(out), exc.end


#: The error handlers: a character the stream's encoding lacks, spelt in ASCII (text) or escaped (JSON).
SPELL, JSON_ESCAPE = "attnprof.ascii", "attnprof.json"
codecs.register_error(SPELL, _spell)
codecs.register_error(JSON_ESCAPE, _json_escape)


def _fallback(stream: IO[str], text: str, errors: str) -> str:
    """``text`` as ``stream``'s encoding can write it (``errors``: :data:`SPELL` or :data:`JSON_ESCAPE`)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, errors).decode(encoding)


def write_data(out: IO[str], text: str) -> None:
    """Write JSON text to ``out``: through :meth:`Output.write_data` when it is one (escapes where its encoding
    lacks a character), plainly otherwise."""
    getattr(out, "write_data", out.write)(text)


class OutputFailed(Exception):
    """Standard output could not be written (a full device, a closed stream): one line, exit status 1."""


class OutputGone(Exception):
    """The reader of standard output went away (a broken pipe): the command stops without a word."""


class Output:
    """A text stream whose write errors become :class:`OutputGone` (a broken pipe) or :class:`OutputFailed`."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.stream = stream

    def _fail(self, exc: OSError) -> Exception:
        if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
            return OutputGone()
        return OutputFailed(f"cannot write to standard output: {exc.strerror or exc}")

    def write(self, text: str, errors: str = SPELL) -> int:
        """Write ``text``; characters the stream's encoding lacks are spelt in ASCII (``errors``)."""
        if self.stream is None:
            raise OutputFailed("cannot write to standard output: it is closed")
        try:
            try:
                return self.stream.write(text)
            except UnicodeEncodeError:
                return self.stream.write(_fallback(self.stream, text, errors))
        except OSError as exc:
            raise self._fail(exc) from None

    def write_data(self, text: str) -> int:
        """Write JSON text: characters the stream's encoding lacks become ``\\uXXXX`` escapes, the same JSON."""
        return self.write(text, JSON_ESCAPE)

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except OSError as exc:
            raise self._fail(exc) from None

    def isatty(self) -> bool:
        return self.stream is not None and bool(getattr(self.stream, "isatty", lambda: False)())


class BestEffort:
    """A text stream for progress and errors: a write that fails (a full device, a closed stream) is dropped, and
    the run goes on; there is nowhere left to say so."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is not None:
            try:
                try:
                    self.stream.write(text)
                except UnicodeEncodeError:
                    self.stream.write(_fallback(self.stream, text, SPELL))
            except (OSError, ValueError):
                self.stream = None
        return len(text)

    def flush(self) -> None:
        if self.stream is not None:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.stream = None

    def isatty(self) -> bool:
        try:
            return self.stream is not None and bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False


def _open_fd(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def silence(fd: int) -> None:
    """Point file descriptor ``fd`` at the null device: after standard output failed, Python's own flush at exit
    then has nothing to complain about."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


class _Filter:
    """Copies what arrives on a pipe to ``target`` (a file descriptor), line by line, leaving out :data:`NOISE`.

    It stops when told to (:meth:`close`) and nothing more is waiting: a child process that still holds the pipe
    (torch's compile workers live until the interpreter exits) cannot keep the command from ending."""

    def __init__(self, read_fd: int, target: int) -> None:
        self.read_fd = read_fd
        self.target = target
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="attnprof-stderr", daemon=True)
        self.thread.start()

    def _emit(self, line: bytes) -> None:
        if not line.lstrip().startswith(tuple(p.encode() for p in NOISE)):
            with contextlib.suppress(OSError):
                os.write(self.target, line)

    def _run(self) -> None:
        pending = b""
        while True:
            ready, _, _ = select.select([self.read_fd], [], [], 0.05)
            if not ready:
                if self.stop.is_set():
                    break
                continue
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._emit(line + b"\n")
        if pending:
            self._emit(pending)

    def close(self) -> None:
        """Copy what is waiting, then stop."""
        self.stop.set()
        self.thread.join(timeout=5)
        os.close(self.read_fd)


@contextlib.contextmanager
def program_streams() -> Iterator[tuple[Output, BestEffort]]:
    """Standard output and error for the program: ``(out, err)``.

    File descriptor 2 goes through a filter that drops the profiler's :data:`NOISE` lines for the length of the
    block, while ``err`` writes to the real standard error (so a terminal is still a terminal for the progress
    lines). A closed standard output (``attnprof list >&-``) is held by the null device, so that no file the run
    opens can take its number, and writing to it is :class:`OutputFailed`.
    """
    stdout_open = sys.stdout is not None and _open_fd(1)
    if not stdout_open:
        silence(1)
    stderr_open = sys.stderr is not None and _open_fd(2)
    if not stderr_open:
        silence(2)
    out = Output(sys.stdout if stdout_open else None)
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
    saved = os.dup(2)
    read_fd, write_fd = os.pipe()
    os.dup2(write_fd, 2)
    os.close(write_fd)
    flt = _Filter(read_fd, saved)
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    real = os.fdopen(os.dup(saved), "w", buffering=1, encoding=encoding, errors=SPELL, closefd=True)
    err = BestEffort(real if stderr_open else None)
    try:
        yield out, err
    finally:
        err.flush()
        if sys.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
        os.dup2(saved, 2)
        flt.close()
        os.close(saved)
        with contextlib.suppress(OSError):
            real.close()
