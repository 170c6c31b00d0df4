"""Nothing of a library's stderr on a page: what the gallery scripts printed must be their own words.

A warning of torch, Inductor or Triton printed while a script runs lands in that script's output on its page (a
raw ``UserWarning`` with the builder's paths in it, once in one language only). Such warnings are caught where they
arise; this module checks the built site for any that got through: every output block of every page
(``sphx-glr-script-out``), in every language, is searched for the marks of a warning or a traceback
(:data:`MARKS`).

Command line (``python -m attnprof.site.builder`` runs it after the last language)::

    python -m attnprof.site.outputs _build/html [--languages en ja]

prints each page with the first offending line and exits 1 if there is any.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from attnprof import words
from attnprof.site import pages

#: What a library's stderr looks like in a script's output: a warning's category or its source line, a traceback.
MARKS = re.compile(r"Warning\b|_warn_once\(|UserWarning|Traceback \(most recent call last\)")
#: The class of the blocks that hold what a gallery script printed.
OUTPUT_CLASS = "sphx-glr-script-out"


@dataclass(frozen=True)
class Leak:
    """A page whose script output holds a library's stderr: the page, its language and the first such line."""

    page: str
    lang: str
    line: str

    def __str__(self) -> str:
        return f"{self.lang}/{self.page}: {self.line}"


class _Outputs(HTMLParser):
    """The text inside every output block of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open elements inside the current output block (0: outside any)
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += 1
        elif OUTPUT_CLASS in (dict(attrs).get("class") or "").split():
            self.depth = 1
            self.texts.append("")

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.texts[-1] += data


def outputs(html: str) -> list[str]:
    """What the scripts printed on one page: the text of each output block."""
    parser = _Outputs()
    parser.feed(html)
    return parser.texts


def leak_in(html: str) -> str | None:
    """The first line of a page's script output that holds a library's stderr, or ``None``."""
    for text in outputs(html):
        for line in text.splitlines():
            if MARKS.search(line):
                return line.strip()
    return None


def check_site(html_root: Path, languages: Sequence[str] = words.LANGUAGES) -> tuple[list[Leak], int]:
    """Every page of every language of ``html_root``; returns the leaks and the number of pages read."""
    leaks, read = [], 0
    for lang, rel, html in pages.each(html_root, languages):
        read += 1
        line = leak_in(html)
        if line is not None:
            leaks.append(Leak(rel, lang, line))
    return leaks, read


def report(leaks: list[Leak], read: int) -> str:
    """The leaks, then one line: ``library output on pages: N page(s) of M``."""
    return "\n".join([*map(str, leaks), f"library output on pages: {len(leaks)} page(s) of {read}"])


def main(argv: Sequence[str] | None = None) -> int:
    """``HTML_ROOT [--languages en ja]``; see the module docstring."""

    def check(html: Path, languages: list[str]) -> tuple[str, bool]:
        leaks, read = check_site(html, languages)
        return report(leaks, read), bool(leaks)

    return pages.command("python -m attnprof.site.outputs", __doc__.splitlines()[0], argv, check)


if __name__ == "__main__":
    sys.exit(main())
