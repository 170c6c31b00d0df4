"""Failure is data: run a call, and when it fails keep PyTorch's reason instead of the exception.

Every measuring module runs code that may not run here (a backend SDPA refuses for this shape or device, a kernel
that needs more memory than there is, an operator context parallelism does not shard). Such a call is not an
error of the run: its row, point or result records why, in PyTorch's words, and the run goes on. One block does
that, :func:`attempt`:

>>> with attempt() as outcome:
...     raise NotImplementedError("no kernel for this shape")
>>> outcome.status, outcome.reason
('unsupported', 'NotImplementedError: no kernel for this shape')

Inside the block every warning is recorded (SDPA explains a refused backend in warnings before it raises "No
available kernel"); an exception ends the block and becomes :attr:`Outcome.status` and :attr:`Outcome.reason`,
judged by :func:`failure` for a variant, or by the caller's own judge. An interrupt (Ctrl-C) is never a failure:
it leaves the block as an interrupt, even when the profiler or torch turned it into another error on its way
(:func:`attnprof.measure.interrupts.reraise_interrupt`).
"""

from __future__ import annotations

import gc
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from attnprof import variants
from attnprof.measure.interrupts import interrupts_seen, reraise_interrupt

#: Warnings that explain nothing about a failure (SDPA's headers, the profiler's own notices).
NOISE = ("kernel not used because", "has been runtime disabled", "Profiler clears events")
#: How running out of memory reads on each device: CUDA's message, and the CPU allocator's (Linux and Windows).
OOM_WORDS = ("out of memory", "defaultcpuallocator: can't allocate memory", "defaultcpuallocator: not enough memory")

#: ``(exception, warnings recorded before it) -> (status, reason)``: how :func:`attempt` judges a failure.
Judge = Callable[[BaseException, Sequence[warnings.WarningMessage]], tuple[str, str]]


def pytorch_reason(exc: BaseException | None, caught: Iterable[warnings.WarningMessage]) -> str:
    """PyTorch's own explanation: the first line of the error message plus the substantive warnings it emitted
    before it.

    SDPA explains a refused backend in warnings ("Flash attention requires ... Got ...") and then raises "No
    available kernel"; the headers of those warnings (:data:`NOISE`) and the ``(Triggered internally at ...)``
    suffix are dropped. Pass no warnings (``()``) for a failure they do not explain (see :func:`failure`).
    """
    parts: list[str] = []
    if exc is not None:
        parts.append(f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}")
    for w in caught:
        text = str(w.message).split(" (Triggered internally at")[0].strip()
        if text and not any(n in text for n in NOISE) and text not in parts:
            parts.append(text)
    return " | ".join(parts) if parts else "unknown reason"


def classify(exc: BaseException) -> str:
    """What kind of failure ``exc`` is: ``"oom"`` (out of memory, on any device), ``"unsupported"`` (no kernel or
    backend for this call) or ``"error"``."""
    import torch

    text = str(exc).lower()
    if isinstance(exc, (torch.OutOfMemoryError, MemoryError)) or any(w in text for w in OOM_WORDS):
        return "oom"
    text = str(exc)
    if "No available kernel" in text or "No viable backend" in text or isinstance(exc, NotImplementedError):
        return "unsupported"
    return "error"


def failure(
    exc: BaseException, caught: Iterable[warnings.WarningMessage], variant: variants.Variant, device: str
) -> tuple[str, str]:
    """The status and reason of a call of ``variant`` on ``device`` that raised ``exc``.

    Args:
        exc: What the call (or building the variant) raised.
        caught: The warnings recorded during the call (SDPA explains refusals there).
        variant: The variant that was called.
        device: ``"cuda"`` or ``"cpu"``.

    Returns:
        ``(status, reason)``: status ``oom`` (on any device), ``unsupported``, ``no_cuda`` (a CUDA-only variant
        asked to run on the CPU) or ``error``; the reason in PyTorch's words (the first line of the error, and for
        a refused backend the warnings that explain it), plus where the variant can run when ``device`` is not one
        of its devices.
    """
    status = classify(exc)
    if status == "unsupported" and device not in variant.devices and device == "cpu":
        status = "no_cuda"
    reason = pytorch_reason(exc, caught if status in ("unsupported", "no_cuda") else ())
    if device not in variant.devices:
        reason += f" ({variant.title} runs on: {', '.join(variant.devices)})"
    return status, reason


def plain(exc: BaseException, caught: Sequence[warnings.WarningMessage]) -> tuple[str, str]:
    """The judge of a call that is no variant's: its :func:`classify` status, and PyTorch's reason with the warnings
    for a refusal (``unsupported``)."""
    status = classify(exc)
    return status, pytorch_reason(exc, caught if status == "unsupported" else ())


@dataclass
class Outcome:
    """How the block of :func:`attempt` ended.

    Attributes:
        status: ``"ok"`` when the block ran to its end, else the judge's status (``oom``, ``unsupported``,
            ``no_cuda``, ``error``, ...).
        reason: ``None`` when it ran, else the judge's reason, in PyTorch's words.
        caught: The warnings recorded inside the block, in order.
    """

    status: str = "ok"
    reason: str | None = None
    caught: list[warnings.WarningMessage] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the block ran to its end."""
        return self.status == "ok"


@contextmanager
def attempt(
    variant: variants.Variant | None = None,
    device: str | None = None,
    *,
    judge: Judge | None = None,
    since: int | None = None,
) -> Iterator[Outcome]:
    """Run the block; if it raises, record why in the :class:`Outcome` instead (the exception does not leave it).

    Args:
        variant: The variant the block calls: a failure is judged by :func:`failure` for it on ``device``.
        device: Where the block runs (``"cuda"`` or ``"cpu"``); required with ``variant``.
        judge: Another judgement of a failure (``(exc, caught) -> (status, reason)``); :func:`plain` when neither
            this nor ``variant`` is given.
        since: An interrupt count (:func:`attnprof.measure.interrupts.interrupts_seen`) taken before the block:
            a SIGINT after it turns a failure into the interrupt it was; by default the count on entering.

    Yields:
        The outcome, filled in when the block ends; the exception itself is not kept (its traceback would keep the
        block's tensors alive).

    Raises:
        KeyboardInterrupt, SystemExit: the interrupt behind a failure, whatever the exception that carried it.
        ValueError: for a ``variant`` without a ``device``.
    """
    if variant is not None and device is None:
        raise ValueError(f"attempt({variant.name!r}) needs the device the variant runs on: 'cuda' or 'cpu'")
    seen = interrupts_seen() if since is None else since
    outcome = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield outcome
        except Exception as exc:  # failure is data: the outcome says why (an interrupt is not a failure)
            reraise_interrupt(exc, seen)
            if judge is not None:
                outcome.status, outcome.reason = judge(exc, caught)
            elif variant is not None:
                outcome.status, outcome.reason = failure(exc, caught, variant, device or "cpu")
            else:
                outcome.status, outcome.reason = plain(exc, caught)
            forget(exc)
            del exc
            if outcome.status == "oom":  # what a cycle through the failed call's frames still holds goes now
                gc.collect()
        finally:
            outcome.caught = list(caught)


def forget(exc: BaseException) -> None:
    """Let go of everything a caught exception holds: the locals of every finished frame its traceback (and the
    tracebacks of its cause and context) passes through, and the tracebacks themselves.

    A failed call's frames hold its tensors, and a traceback kept alive by a reference cycle would keep them, so that
    every later measurement in the process would run with less memory (26 GB stayed allocated after a naive call at
    64 x 64 x 16384 x 64 ran out of memory on an H200). Frames still running (the caller's) are left as they are.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if e.__traceback__ is not None:
            traceback.clear_frames(e.__traceback__)
            e.__traceback__ = None
        e = e.__cause__ or e.__context__
