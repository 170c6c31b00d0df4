"""Interrupts stay interrupts: Ctrl-C while measuring stops the run, even when the profiler or torch's C extension
turns it into another error or swallows it on the way (:mod:`attnprof.measure.timing` re-exports these for the
measuring code)."""

from __future__ import annotations

import signal
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_SIGINTS = [0]


def interrupt_in(exc: BaseException) -> BaseException | None:
    """The ``KeyboardInterrupt`` or ``SystemExit`` behind ``exc``: ``exc`` itself, or one in its chain of causes and
    contexts (the profiler, interrupted, raises ``AssertionError: Profiler must be initialized`` on its way out)."""
    stack, seen = [exc], set()
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return e
        stack += [e.__cause__, e.__context__]
    return None


def interrupts_seen() -> int:
    """How many SIGINTs :func:`counting_interrupts` has seen so far (compare before and after a call)."""
    return _SIGINTS[0]


def reraise_interrupt(exc: BaseException, since: int | None = None) -> None:
    """Raise the interrupt behind ``exc`` (see :func:`interrupt_in`), or a ``KeyboardInterrupt`` if a SIGINT
    arrived after :func:`interrupts_seen` returned ``since``; return when ``exc`` is an ordinary failure."""
    found = interrupt_in(exc)
    if found is not None:
        raise found.with_traceback(None) from None
    if since is not None and interrupts_seen() > since:
        raise KeyboardInterrupt from exc


def raise_if_interrupted(since: int) -> None:
    """Raise ``KeyboardInterrupt`` if a SIGINT arrived after :func:`interrupts_seen` returned ``since``, even one
    that was swallowed on its way (torch's C extension, importing numpy, can swallow it)."""
    if interrupts_seen() > since:
        raise KeyboardInterrupt


#: The signals that stop a run as Ctrl-C does (a ``kill``, a closed terminal): each raises ``KeyboardInterrupt``, so
#: that every ``finally`` and ``with`` on the way out runs and no temporary file or folder is left behind.
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_LAST = [signal.SIGINT]


def last_signal() -> signal.Signals:
    """The last of :data:`STOP_SIGNALS` counted (``SIGINT`` when none was)."""
    return _LAST[0]


@contextmanager
def _handling(handler: Any) -> Iterator[bool]:
    """Within the block, ``handler`` handles every one of :data:`STOP_SIGNALS`; yields whether it could be
    installed (only the main thread can)."""
    previous = {}
    try:
        for sig in STOP_SIGNALS:
            previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        for sig, old in previous.items():
            signal.signal(sig, old)
        yield False
        return
    try:
        yield True
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def counting_interrupts() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP (:data:`STOP_SIGNALS`) count themselves
    (:func:`interrupts_seen`, :func:`last_signal`) and raise ``KeyboardInterrupt``, as SIGINT does by default.

    Counting lets :func:`reraise_interrupt` recognise an interrupt that a library swallowed on its way out. Only the
    main thread can install a handler; elsewhere the block runs without one.
    """

    def handler(signum: int, frame: Any) -> None:
        _SIGINTS[0] += 1
        _LAST[0] = signal.Signals(signum)
        raise KeyboardInterrupt

    with _handling(handler):
        yield


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Within the block, the :data:`STOP_SIGNALS` are counted and held; the first is raised as
    ``KeyboardInterrupt`` when the block ends."""
    held: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        _SIGINTS[0] += 1
        _LAST[0] = signal.Signals(signum)
        held.append(signum)

    with _handling(handler):
        yield
    if held:
        raise KeyboardInterrupt


#: What torch warns at import where numpy is missing (a CPU build of torch installed alone): it says nothing to a
#: user of attnprof, which needs no numpy.
NUMPY_WARNING = "Failed to initialize NumPy"


def import_torch(*, dynamo: bool = False) -> None:
    """Import torch (and ``torch._dynamo``) with Ctrl-C held until the import is done (a second or two), without
    torch's warning about a missing numpy (:data:`NUMPY_WARNING`).

    An interrupt that lands inside torch's import can be swallowed by its C extension, abort the process, or leave
    Python resolved to end by SIGINT at exit; held, it stops the run right after the import instead.
    """
    with deferred_interrupts(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=NUMPY_WARNING, category=UserWarning)
        import torch

        if dynamo:
            import torch._dynamo  # noqa: F401
