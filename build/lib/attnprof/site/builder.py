"""Build the site in every language, one after another, in one Python process (the nox session ``docs`` runs this).

English is built from ``docs/``; every other language from its own source tree, which :mod:`attnprof.site.localize`
writes first (``<out>/src/<lang>``: a copy of ``docs/`` and the gallery scripts translated), because sphinx-gallery
writes its pages, notebooks and checksums into the source folder. Each language's gallery runs its own scripts.

One process for all languages, because the gallery scripts run inside Sphinx: torch, CUDA, the kernels
``torch.compile`` generated and matplotlib are set up once, and the second language's scripts find them ready. With
the measurements reused too (:mod:`attnprof.measure.reuse`), the second language costs little more than its own short
profiler runs and its pages. Sphinx keeps each build's registries apart (``docutils_namespace``), and the extension
tells the scripts the language of the build it runs in.

Command line::

    python -m attnprof.site.builder [--root .] [--out _build] [SPHINX OPTIONS ...]

builds ``<out>/html/<lang>`` for every language of :data:`attnprof.words.LANGUAGES` with ``-W --keep-going`` and
the options given; the exit status is the first failing build's (1 when a translation is missing).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from attnprof import words
from attnprof.site import localize


def sphinx_args(root: Path, out: Path, lang: str, source: Path, extra: Sequence[str] = ()) -> list[str]:
    """The ``sphinx-build`` arguments of one language's HTML build."""
    return ["-b", "html", "-W", "--keep-going", "-c", str(root), "-D", f"language={lang}", "-d",
            str(out / "doctrees" / lang), str(source), str(out / "html" / lang), *extra]  # fmt: skip


def source_of(lang: str, root: Path, out: Path) -> Path:
    """Where ``lang`` is built from: ``docs/`` for the first language, else its translated tree under ``out``."""
    return root / "docs" if lang == words.LANGUAGES[0] else out / "src" / lang / "docs"


def build(root: Path, out: Path, extra: Sequence[str] = (), languages: Sequence[str] = words.LANGUAGES) -> int:
    """Build every language in turn; stop at the first that fails. Returns the exit status."""
    from sphinx.cmd.build import build_main

    # The translated trees first: a translated script must not be newer than the measurements the first language's
    # scripts save, or it would not reuse them (attnprof.measure.reuse compares the script's time with the result's).
    for lang in languages:
        if lang != words.LANGUAGES[0]:
            missing = localize.prepare_source(lang, out / "src" / lang, root)
            for m in missing:
                print(m, file=sys.stderr)
            if missing:
                print(f"{len(missing)} messages without a {lang} translation: run `nox -s i18n` and translate them",
                      file=sys.stderr)  # fmt: skip
                return 1
    for lang in languages:
        status = build_main(sphinx_args(root, out, lang, source_of(lang, root, out), extra))
        if status:
            return status
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``[--root DIR] [--out DIR] [SPHINX OPTIONS ...]``; see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m attnprof.site.builder", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--out", type=Path, default=None, help="the build folder (default: <root>/_build)")
    args, extra = parser.parse_known_args(argv)
    root = args.root.resolve()
    return build(root, (args.out or root / "_build").resolve(), extra)


if __name__ == "__main__":
    sys.exit(main())
