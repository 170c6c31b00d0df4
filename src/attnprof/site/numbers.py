"""One build, one answer: the numbers every language's page of a built site shows must be the same.

The pages of a build are measured once (:mod:`attnprof.measure.reuse`); the languages differ in words only. This
module reads the main content of each page (``role="main"``: furo's ``<article>``) in every language, takes the
numbers out of what the build generated there, and compares them page by page with the first language's. Generated is
anything inside an element whose class starts with ``attnprof-`` (the extension's tables, figures and their alt
text, values inside sentences, banners) and the output the gallery scripts printed (``sphx-glr-script-out``). The
prose around them is left out: the site never types a measured number into prose, and a translator may well write
"3 ステップ" for "three steps".

Every number counts, with its unit when one follows (``µs``, ``%``, ``×``, ``GiB``, ...), and numbers are compared
as a multiset per page, not in order (a Japanese sentence may name two figures in the other order):

* every number the first language shows, the other must show as many times: with the same unit, or with the same
  value where one language writes a unit and the other a word ("7.239 vs 1.955 ms" against "7.239 ms 対 1.955 ms",
  "1.5 times" against "1.5 倍"). A figure measured again shows here, as the first language's value missing;
* a number with a unit that the first language does not show at all is a difference too; a bare number is not,
  because Japanese writes digits where English writes words ("one forward call" is "フォワード 1 回"), nor is a
  number the first language shows, shown once more (a Japanese sentence may repeat "0%" where English says
  "does").

Formatting is not a difference: thousands separators, the minus sign (``−`` or ``-``), a plus sign, a space or none
before the unit, and the Japanese unit words (秒, 倍, ...) are normalised away; ``×`` between two numbers is a
product, not a unit; and the count of a label cut to fit (:data:`LABEL_WORDS`) is no number. The raw traces a page
offers for download (``_downloads/**.trace.json.gz``) are compared byte for byte.

Command line (``python -m attnprof.site.builder`` runs it after the last language)::

    python -m attnprof.site.numbers _build/html [--languages en ja]

prints each difference (the page, the numbers only one language shows, with the words around them) and exits 1 if
there is any.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from attnprof import words
from attnprof.site import pages

#: Units a number may carry, longest first (the regular expression tries them in this order).
UNITS = ("TFLOP/s", "GFLOP/s", "GB/s", "TB/s", "MiB", "GiB", "KiB", "TiB", "kB", "MB", "GB", "µs", "us", "ms", "ns",
         "s", "%", "×", "B")  # fmt: skip
#: Unit words of other languages, and the unit each stands for.
UNIT_WORDS = {"マイクロ秒": "µs", "ミリ秒": "ms", "ナノ秒": "ns", "秒": "s", "倍": "×", "x": "×"}
_UNIT = "|".join(re.escape(u) for u in sorted([*UNITS, *UNIT_WORDS], key=len, reverse=True))
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])([−\-+]?\d[\d,]*(?:\.\d+)?(?:[eE][+\-]?\d+)?)"  # a number (no Latin letter or dot before)
    rf"(?:[ \u00a0\u2009\u202f]?({_UNIT})(?![A-Za-z]))?"  # its unit, if one follows
    r"(?![A-Za-z0-9_])"  # a number inside a name (sm90, bf16, 128x64) is no number
)
#: Words whose number is how a label was cut to fit, not a figure: a kernel's label lists as many of its fused ops as
#: its width allows, and the Japanese label fits another number of them ("+4 more" against "ほか 3 件").
LABEL_WORDS = ("kernel.more",)
_LABEL = re.compile(
    "|".join(
        re.escape(words.text(key, lang, n=987654321)).replace("987654321", r"\d+")
        for key in LABEL_WORDS
        for lang in words.LANGUAGES
    )
)
#: Classes whose elements the build generated (every number in them counts).
GENERATED = ("attnprof-", "sphx-glr-script-out")
#: Pages with no content of their own.
SKIPPED = ("search.html", "genindex.html", "py-modindex.html")


@dataclass(frozen=True)
class Number:
    """A number on a page: its value as written (normalised), its unit (``""`` for none), and the words around it."""

    value: str
    unit: str
    context: str = field(compare=False, hash=False)

    @property
    def key(self) -> tuple[str, str]:
        return self.value, self.unit

    def __str__(self) -> str:
        return f"{self.value}{' ' + self.unit if self.unit else ''} (…{self.context}…)"


#: HTML's void elements: they have no end tag and hold nothing.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


class _MainEnded(Exception):
    """The main content ended: the rest of the page is not read."""


class _Main(HTMLParser):
    """The text of the main content (``role="main"``: furo's ``<article>``, the basic theme's ``<div>``) in runs, each
    marked generated or not, with the pictures' alt text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, generated) of each open element inside the article
        self.inside = False
        self.runs: list[tuple[str, bool]] = []

    def _generated(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, void=tag in VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, void=True)  # <img ... />: opens nothing (the default would close it again)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], void: bool) -> None:
        a = dict(attrs)
        if not self.inside:
            if a.get("role") == "main" and not void:
                self.inside, self.stack = True, [(tag, False)]
            return
        classes = (a.get("class") or "").split()
        generated = self._generated() or any(c.startswith(GENERATED) for c in classes)
        if tag == "img":
            self.runs.append((f" {a.get('alt') or ''} ", generated))
        if not void:
            self.stack.append((tag, generated))
        self.runs.append((" ", generated))

    def handle_endtag(self, tag: str) -> None:
        if not self.inside or tag not in (t for t, _ in self.stack):
            return  # an end tag that closes nothing open (a stray </p>) ends nothing
        while self.stack.pop()[0] != tag:
            pass
        if not self.stack:
            raise _MainEnded
        self.runs.append((" ", self._generated()))

    def handle_data(self, data: str) -> None:
        if self.inside and not any(t in ("script", "style") for t, _ in self.stack):
            self.runs.append((data, self._generated()))


def _normalised(value: str) -> str:
    return value.replace("−", "-").replace(",", "").lstrip("+")


def numbers(html: str) -> list[Number]:
    """The numbers of a page's main content (see the module docstring for which count)."""
    parser = _Main()
    at = html.find('role="main"')
    try:
        parser.feed(html[html.rfind("<", 0, at) :] if at >= 0 else html)  # from the main content's own tag
    except _MainEnded:
        pass
    found = []
    for text, generated in _merged(parser.runs):
        text = _LABEL.sub(" ", text)
        for m in NUMBER.finditer(text):
            if generated:
                unit = UNIT_WORDS.get(m.group(2) or "", m.group(2) or "")
                if unit == "×" and re.match(r"\s*\d", text[m.end() :]):
                    unit = ""  # "2 × 4": a product, not a ratio
                before = " ".join(text[max(0, m.start() - 200) : m.start()].split())[-40:]
                context = f"{before} {m.group(0)} {' '.join(text[m.end() : m.end() + 200].split())[:40]}".strip()
                found.append(Number(_normalised(m.group(1)), unit, context))
    return found


def _merged(runs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Neighbouring runs of the same kind joined, so a number and its unit split across elements stay together."""
    out: list[tuple[str, bool]] = []
    for text, generated in runs:
        if out and out[-1][1] == generated:
            out[-1] = (out[-1][0] + text, generated)
        else:
            out.append((text, generated))
    return out


@dataclass
class Difference:
    """A page whose languages show different numbers (or a download that differs, or a page one language lacks)."""

    page: str
    language: str
    only_first: list[Number] = field(default_factory=list)
    only_other: list[Number] = field(default_factory=list)
    problem: str | None = None

    def __str__(self) -> str:
        if self.problem:
            return f"{self.page} ({self.language}): {self.problem}"
        lines = [f"{self.page}: {len(self.only_first) + len(self.only_other)} number(s) differ"]
        lines += [f"    only in the first language: {n}" for n in self.only_first]
        lines += [f"    only in {self.language}: {n}" for n in self.only_other]
        return "\n".join(lines)


def compare_pages(first: str, other: str) -> tuple[list[Number], list[Number]]:
    """The numbers of the ``first`` page that the ``other`` lacks, and the numbers with a unit that only the other
    shows (see the module docstring)."""
    a, b = numbers(first), numbers(other)
    keys_a, keys_b = Counter(n.key for n in a), Counter(n.key for n in b)
    left, matched = keys_a - keys_b, keys_a & keys_b
    # a value one language gives a unit and the other a word for: matched by value, out of what is left over
    spare = Counter(n.value for n in b)
    for (value, _), count in matched.items():
        spare[value] -= count
    for key in sorted(left):
        k = min(left[key], spare[key[0]])
        left[key] -= k
        spare[key[0]] -= k
    shown = {n.value for n in a}
    return _pick(a, +left), [n for n in b if n.unit and n.value not in shown]


def _pick(found: list[Number], wanted: Counter[tuple[str, str]]) -> list[Number]:
    out = []
    for n in reversed(found):  # the last occurrences: the extra ones
        if wanted[n.key] > 0:
            wanted[n.key] -= 1
            out.append(n)
    return out[::-1]


def compare_site(html_root: Path, languages: Sequence[str] = words.LANGUAGES) -> tuple[list[Difference], int]:
    """Every page of ``html_root/<first language>`` against the same page of each other language, and every
    downloadable trace. Returns the differences and the number of pages compared."""
    first, *others = languages
    base = html_root / first
    differences, compared = [], 0
    for path in sorted(base.rglob("*.html")):
        rel = path.relative_to(base)
        if rel.parts[0].startswith("_") or rel.name in SKIPPED:
            continue
        compared += 1
        for lang in others:
            twin = html_root / lang / rel
            if not twin.is_file():
                differences.append(Difference(rel.as_posix(), lang, problem="no such page"))
                continue
            only_first, only_other = compare_pages(path.read_text(encoding="utf-8"), twin.read_text(encoding="utf-8"))
            if only_first or only_other:
                differences.append(Difference(rel.as_posix(), lang, only_first, only_other))
    for path in sorted(base.glob("_downloads/*/*.trace.json.gz")):
        rel = path.relative_to(base)
        for lang in others:
            twin = html_root / lang / rel
            if twin.is_file() and twin.read_bytes() != path.read_bytes():
                differences.append(Difference(rel.as_posix(), lang, problem="the trace differs from the first one's"))
    return differences, compared


def report(differences: list[Difference], compared: int, languages: Sequence[str] = words.LANGUAGES) -> str:
    """The differences, then one line: ``numbers of en and ja: N difference(s) over M pages``."""
    summary = f"numbers of {' and '.join(languages)}: {len(differences)} difference(s) over {compared} pages"
    return "\n".join([*map(str, differences), summary])


def main(argv: Sequence[str] | None = None) -> int:
    """``HTML_ROOT [--languages en ja]``; see the module docstring."""

    def check(html: Path, languages: list[str]) -> tuple[str, bool]:
        differences, compared = compare_site(html, languages)
        return report(differences, compared, languages), bool(differences)

    return pages.command("python -m attnprof.site.numbers", __doc__.splitlines()[0], argv, check,
                         found_on_stderr=False, languages_help="first the reference")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
