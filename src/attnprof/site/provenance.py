"""No recorded figure called this build's: a check of the built site.

A page shows figures of three provenances: measured by this build, recorded on another machine (a bundle's results,
the recorded context-parallel run) or published. Whatever a page shows of other machines sits in boxes of the class
``attnprof-elsewhere`` (:data:`attnprof.sphinxext.bundles.ELSEWHERE`), labelled with the machine and the date. The
words the package uses to say that a figure is this build's own (:data:`OWN_KEYS`, :data:`OWN_LABELS`: "Measured
by this build", "このビルドの計測値", ...) must never appear inside such a box: this module reads every page of every
language and lists each box that holds them.

Command line (``python -m attnprof.site.builder`` runs it after the last language)::

    python -m attnprof.site.provenance _build/html [--languages en ja]

prints each page with the offending words and exits 1 if there is any.
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

#: The class of everything a page shows of other machines.
ELSEWHERE_CLASS = "attnprof-elsewhere"
#: Word keys whose text says that a figure was measured by this build: none of them may be read inside a box of
#: another machine's figures, whatever fills its placeholders.
OWN_KEYS: tuple[str, ...] = ("par.status.ok", "par.model.basis", "par.model.check", "par.model.assumed")
#: The labels of this build's own figures, in every language, wherever they come from: never beside a recorded one.
OWN_LABELS: dict[str, tuple[str, ...]] = {"en": ("Measured by this build",), "ja": ("このビルドの計測値",)}
#: Elements without an end tag: they open nothing.
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})


def _pattern(template: str) -> re.Pattern[str]:
    """A word-table text as a pattern: its placeholders match anything, its spaces any spacing."""
    parts = re.split(r"(\{[^}]*\})", " ".join(template.split()))
    body = "".join(".+?" if p.startswith("{") else r"\s*".join(map(re.escape, p.split(" "))) for p in parts)
    return re.compile(body)


def own_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """What says "measured by this build" in ``lang``: each text of :data:`OWN_KEYS` as a pattern, and the labels of
    :data:`OWN_LABELS`, each with the name a report gives it."""
    lang = words.language(lang)
    found = [(key, _pattern(words.TABLE[key][lang])) for key in OWN_KEYS]
    return found + [(label, re.compile(re.escape(label))) for label in OWN_LABELS.get(lang, ())]


@dataclass(frozen=True)
class Mislabel:
    """A page where words that say "this build" sit inside a box of another machine's figures."""

    page: str
    lang: str
    phrase: str

    def __str__(self) -> str:
        return f"{self.lang}/{self.page}: {self.phrase!r} inside an {ELSEWHERE_CLASS} box"


class _Boxes(HTMLParser):
    """The text inside every box of :data:`ELSEWHERE_CLASS` (nested ones counted once)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        if self.depth:
            self.depth += 1
        elif ELSEWHERE_CLASS in (dict(attrs).get("class") or "").split():
            self.depth = 1
            self.texts.append("")

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in _VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.texts[-1] += data


def elsewhere_texts(html: str) -> list[str]:
    """The text of each box of other machines' figures on one page."""
    parser = _Boxes()
    parser.feed(html)
    return parser.texts


def mislabels_in(html: str, lang: str) -> list[str]:
    """The names of :func:`own_patterns` found inside the page's boxes of other machines' figures."""
    texts = [" ".join(t.split()) for t in elsewhere_texts(html)]
    return [name for name, pattern in own_patterns(lang) if any(pattern.search(t) for t in texts)]


def check_site(html_root: Path, languages: Sequence[str] = words.LANGUAGES) -> tuple[list[Mislabel], int]:
    """Every page of every language of ``html_root``; returns what is mislabelled and how many boxes were read."""
    found, boxes = [], 0
    for lang, rel, html in pages.each(html_root, languages):
        boxes += len(elsewhere_texts(html))
        found += [Mislabel(rel, lang, p) for p in mislabels_in(html, lang)]
    return found, boxes


def report(found: list[Mislabel], boxes: int) -> str:
    """The mislabels, then one line: ``recorded figures called this build's: N in M box(es)``."""
    return "\n".join([*map(str, found), f"recorded figures called this build's: {len(found)} in {boxes} box(es)"])


def main(argv: Sequence[str] | None = None) -> int:
    """``HTML_ROOT [--languages en ja]``; see the module docstring."""

    def check(html: Path, languages: list[str]) -> tuple[str, bool]:
        found, boxes = check_site(html, languages)
        return report(found, boxes), bool(found)

    return pages.command("python -m attnprof.site.provenance", __doc__.splitlines()[0], argv, check)


if __name__ == "__main__":
    sys.exit(main())
