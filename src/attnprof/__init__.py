"""attnprof: profile attention variants in PyTorch and read what the profiler says.

The package never imports torch at import time: ``import attnprof`` is cheap, and the Sphinx extension
(:mod:`attnprof.sphinxext`) stays torch-free.

The face for Python: the readers ``attnprof explain`` and ``attnprof diff`` run, as functions. Each reads a trace
written by ``torch.profiler``'s ``export_chrome_trace`` (``.json`` or ``.json.gz``) of any code, as the commands
read it; what they return renders as the commands print it.

>>> import attnprof
>>> reading = attnprof.explain("trace.json.gz")  # doctest: +SKIP
>>> print(attnprof.text(reading, lang="ja"))  # doctest: +SKIP
>>> changed = attnprof.diff("before.json.gz", "after.json.gz")  # doctest: +SKIP
>>> attnprof.html(changed)  # one self-contained page  # doctest: +SKIP

Errors are one line each: :class:`attnprof.records.files.UnreadableFile` (a ``ValueError``) for a file that is no
trace or one whose times are no times, ``FileNotFoundError`` for no file, ``ValueError`` for a language that is not
one of :data:`LANGUAGES`. This module imports the readers inside the functions: it is the package's face, the top
floor of its data flow (tests/test_layout.py).
"""

from __future__ import annotations

import os
from typing import Any

__version__ = "0.1.0"
__all__ = ["LANGUAGES", "Reading", "diff", "explain", "html", "text"]

#: The languages the readers write.
LANGUAGES = ("en", "ja")


class Reading:
    """One trace as ``attnprof explain`` reads it (:func:`explain`).

    Attributes:
        explanation: The reading (:class:`attnprof.analysis.explain.Explanation`: steps, attention calls, their
            kernels and flags, calls grouped).
        asked: What PyTorch on this machine said of each group of SDPA calls whose inputs the trace recorded
            (:class:`attnprof.analysis.explain.Asked`), or ``None`` when not asked (``why=False``).
    """

    __slots__ = ("asked", "explanation")

    def __init__(self, explanation: Any, asked: Any = None) -> None:
        self.explanation, self.asked = explanation, asked

    def to_dict(self) -> dict[str, Any]:
        """The reading as ``attnprof explain --json`` writes it (without ``why``)."""
        return self.explanation.to_dict()

    def __repr__(self) -> str:
        x = self.explanation
        return f"<attnprof.Reading of {x.trace.name!r}: {len(x.calls)} attention calls in {len(x.steps)} steps>"


def _trace(path: str | os.PathLike[str], max_mb: float | None) -> Any:
    from attnprof.analysis import attention
    from attnprof.records import files, foreign

    if max_mb is not None and not (isinstance(max_mb, (int, float)) and 0 < max_mb < 1 << 20):
        raise ValueError(f"bad max_mb {max_mb!r}; expected a positive number of megabytes such as 1024")
    max_bytes = files.max_read_bytes() if max_mb is None else int(max_mb * (1 << 20))
    return foreign.load(path, max_bytes=max_bytes, max_events=foreign.events_bound(max_bytes),
                        inputs_of=attention.wants_inputs)  # fmt: skip


def _explained(path: str | os.PathLike[str], gpu: int | None, max_mb: float | None) -> Any:
    from attnprof.analysis import explain as ex

    if gpu is not None and (not isinstance(gpu, int) or isinstance(gpu, bool) or gpu < 0):
        raise ValueError(f"bad gpu {gpu!r}; expected a GPU id such as 0, or None for every GPU of the trace")
    return ex.explain(_trace(path, max_mb), gpu)


def explain(trace: str | os.PathLike[str], *, why: bool = True, gpu: int | None = None,
            max_mb: float | None = None) -> Reading:  # fmt: skip
    """Read a profiler trace of any code as ``attnprof explain TRACE`` does.

    Args:
        trace: The trace file (``.json`` or ``.json.gz`` from ``export_chrome_trace``).
        why: Ask PyTorch on this machine why each backend takes or refuses the recorded inputs of each group of
            SDPA calls (imports torch; skipped, with the reason in ``asked.note``, where the trace's device cannot
            be here).
        gpu: Read this GPU's events only (a trace of several); ``None``: all.
        max_mb: Refuse a trace whose JSON is larger (megabytes); ``None``: the reader's bound
            (``$ATTNPROF_MAX_READ_MB``).
    """
    x = _explained(trace, gpu, max_mb)
    if not why:
        return Reading(x)
    import io

    from attnprof.cli import explain as cli

    return Reading(x, cli.why(x, io.StringIO(), LANGUAGES[0]))  # the command's answer; its progress lines dropped


def diff(before: str | os.PathLike[str], after: str | os.PathLike[str], *, gpu: int | None = None,
         max_mb: float | None = None) -> Any:  # fmt: skip
    """What changed from one trace to another, as ``attnprof diff BEFORE AFTER`` says it: steps, attention calls
    matched across the traces, their time and kernels by the noise rules (:class:`attnprof.analysis.diff.Diff`,
    whose ``to_dict()`` is the ``--json`` output). PyTorch is not asked."""
    from attnprof.analysis import diff as tracediff

    return tracediff.diff(tracediff.side(_explained(before, gpu, max_mb)),
                          tracediff.side(_explained(after, gpu, max_mb)))  # fmt: skip


def _lang(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown lang {lang!r}; choose one of: {', '.join(LANGUAGES)}")
    return lang


def text(result: Reading | Any, lang: str = "en") -> str:
    """What the command prints for ``result`` (a :class:`Reading` or a diff), in ``lang``."""
    lang = _lang(lang)
    if isinstance(result, Reading):
        from attnprof.render import explain as report

        return report.text(result.explanation, result.asked, lang)
    from attnprof.render import diff as report

    return report.text(result, lang)


def html(result: Reading | Any, lang: str = "en") -> str:
    """One self-contained HTML page of ``result`` (a :class:`Reading` or a diff), as ``--html`` writes it."""
    lang = _lang(lang)
    if isinstance(result, Reading):
        from attnprof.render import explainhtml

        return explainhtml.page(result.explanation, result.asked, lang)
    from attnprof.render import diffhtml

    return diffhtml.page(result, lang)
