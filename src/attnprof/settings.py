"""What the docs build tells a script through the environment: where results go, the language to print in, and
whether measurements already saved may be reused, or must be replayed.

A gallery script runs inside the Sphinx process, which cannot pass it arguments; the extension
(:mod:`attnprof.sphinxext`) sets these variables from ``conf.py`` instead. Run by hand, a script finds none of them
set and takes the defaults: results in ``./attnprof-results``, English, everything measured.
"""

from __future__ import annotations

import functools
import os
import re
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from attnprof import words

#: Environment variable naming the folder where results are written (the docs build sets it).
RESULTS_ENV = "ATTNPROF_RESULTS_DIR"
#: Environment variable naming the folder of results bundles the site shows beside its own figures (wins over the
#: ``attnprof_bundles_dir`` configuration value; see :mod:`attnprof.sphinxext.bundles`).
BUNDLES_ENV = "ATTNPROF_BUNDLES_DIR"
#: Environment variable naming the language the scripts print in (the docs build sets it from its ``language``).
LANGUAGE_ENV = "ATTNPROF_LANGUAGE"
#: Environment variable that lets a run reuse measurements saved in the results folder: ``1`` reuses what the same
#: code measured on the same machine (the docs build's first language); ``replay`` takes every measurement from the
#: saved files and measures nothing (the docs build's other languages: :mod:`attnprof.measure.reuse`).
REUSE_ENV = "ATTNPROF_REUSE"
#: The value of :data:`REUSE_ENV` that replays.
REPLAY = "replay"

P = ParamSpec("P")
T = TypeVar("T")


def results_dir(default: str | Path = "attnprof-results") -> Path:
    """Where results go: ``$ATTNPROF_RESULTS_DIR`` if set (the docs build sets it), else ``default``."""
    return Path(os.environ.get(RESULTS_ENV) or default)


def language(default: str = "en") -> str:
    """The language a script prints and draws in: ``$ATTNPROF_LANGUAGE`` if set (the docs build sets it), else
    ``default`` (a script translated for the Japanese gallery passes ``"ja"``); ``"en"`` or ``"ja"``."""
    return words.language(os.environ.get(LANGUAGE_ENV) or default)


def reuse_measurements() -> bool:
    """Whether ``$ATTNPROF_REUSE`` asks runs to reuse measurements already saved in the results folder (``1``, or
    ``replay``: see :func:`replaying`)."""
    return os.environ.get(REUSE_ENV, "").strip().lower() in ("1", "true", "yes", REPLAY)


def replaying() -> bool:
    """Whether ``$ATTNPROF_REUSE`` is ``replay``: every measurement comes from the results folder, none is taken."""
    return os.environ.get(REUSE_ENV, "").strip().lower() == REPLAY


# --- measured once, enforced ----------------------------------------------------------------------------------------

#: A gallery script's file name (sphinx-gallery's ``filename_pattern`` in conf.py): where a measurement was asked for.
_SCRIPT = re.compile(r"(^|[/\\])\d\d-[^/\\]+\.py$")


class MeasuredWhileReplaying(RuntimeError):
    """Replaying (``$ATTNPROF_REUSE=replay``, the docs build's languages after the first), code asked for a new
    measurement: the page of that language would show figures the first language's page does not. The message names
    the gallery script and line that asked; the fix is to pass the value through :func:`attnprof.measure.reuse.once`
    (which takes a function and calls it in the first language only), or through a measuring function that replays.
    """


def asked_from(stack: list[traceback.FrameSummary] | None = None) -> str:
    """Where a call came from, for a message: the innermost frame of a gallery script (``08-flex.py, line 57``), or
    else the innermost frame outside attnprof."""
    frames = traceback.extract_stack()[:-1] if stack is None else stack
    package = str(Path(__file__).parent)
    for frame in reversed(frames):
        if _SCRIPT.search(frame.filename):
            return f"{Path(frame.filename).name}, line {frame.lineno}"
    for frame in reversed(frames):
        if not frame.filename.startswith(package):
            return f"{frame.filename}, line {frame.lineno}"
    return "attnprof itself"


def refuse_while_replaying(what: str) -> None:
    """Raise :class:`MeasuredWhileReplaying` when replaying: ``what`` (a measuring function) was called.

    Every function that measures or computes a figure calls this first (:func:`measuring` does it for a whole
    function), so a gallery script that would compute again in the second language fails that build, naming itself.
    """
    if replaying():
        raise MeasuredWhileReplaying(
            f"{asked_from()}: {what} measures again while this language replays the first one's measurements; "
            "pass the value through attnprof.measure.reuse.once(name, lambda: ...) so it is measured once"
        )


def measuring(fn: Callable[P, T]) -> Callable[P, T]:
    """Decorate a function that measures or computes a shown figure: replaying, calling it raises
    :class:`MeasuredWhileReplaying` (see :func:`refuse_while_replaying`)."""
    what = f"{fn.__module__.removeprefix('attnprof.')}.{fn.__qualname__}"

    @functools.wraps(fn)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        refuse_while_replaying(what)
        return fn(*args, **kwargs)

    return guarded
