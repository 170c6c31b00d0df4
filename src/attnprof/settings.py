"""What the docs build tells a script through the environment: where results go, the language to print in, and
whether measurements already saved may be reused, or must be replayed.

A gallery script runs inside the Sphinx process, which cannot pass it arguments; the extension
(:mod:`attnprof.sphinxext`) sets these variables from ``conf.py`` instead. Run by hand, a script finds none of them
set and takes the defaults: results in ``./attnprof-results``, English, everything measured.
"""

from __future__ import annotations

import os
from pathlib import Path

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
