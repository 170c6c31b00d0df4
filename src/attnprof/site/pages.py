"""The pages of a built site, for the checks that read every page of every language (:mod:`.outputs`: no library
output on a page; :mod:`.provenance`: no recorded figure called this build's; :mod:`.numbers`: one set of numbers
in every language): which pages there are, and the one command line those checks share (``HTML_ROOT [--languages
en ja]``, exit 2 when a language was not built)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from attnprof import words


def each(html_root: Path, languages: Sequence[str] = words.LANGUAGES) -> Iterator[tuple[str, str, str]]:
    """``(language, page path relative to its language's folder, the page's HTML)`` for every page of the site,
    language by language, in path order; Sphinx's own folders (``_static``, ``_sources``, ...) are not pages."""
    for lang in languages:
        base = html_root / lang
        for path in sorted(base.rglob("*.html")):
            rel = path.relative_to(base)
            if not rel.parts[0].startswith("_"):
                yield lang, rel.as_posix(), path.read_text(encoding="utf-8")


def command(prog: str, description: str, argv: Sequence[str] | None,
            check: Callable[[Path, list[str]], tuple[str, bool]], *, found_on_stderr: bool = True,
            languages_help: str | None = None) -> int:  # fmt: skip
    """Run a site check from its command line: ``check(html_root, languages)`` gives the report and whether it
    found anything; the report goes to standard output when it found nothing (exit 0), to standard error otherwise
    (exit 1; standard output too when not ``found_on_stderr``); a language with no pages is one line and exit 2."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("html", type=Path, help="the built site: one folder per language")
    parser.add_argument("--languages", nargs="+", default=list(words.LANGUAGES), help=languages_help)
    args = parser.parse_args(argv)
    missing = [lang for lang in args.languages if not (args.html / lang).is_dir()]
    if missing:
        print(f"no {', '.join(missing)} pages in {args.html}: build the site first", file=sys.stderr)
        return 2
    text, found = check(args.html, args.languages)
    print(text, file=sys.stderr if found and found_on_stderr else sys.stdout)
    return 1 if found else 0
