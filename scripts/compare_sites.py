"""Compare what two built sites show: the text of every page's main content and every picture's bytes.

Used to check that a change of code that should not change the pages (a refactoring) indeed changes nothing:
build the site before and after against the same results folder, then

    python scripts/compare_sites.py BEFORE/_build/html AFTER/_build/html [--skip auto_examples] [--drop-class C]

``--drop-class attnprof-elsewhere`` leaves out what a page shows of other machines (the sections that bundles fill),
so that a site built with bundles compares with one built without them.

Prints one line per page that differs (with the first differing lines) and exits 1 if any does, 0 otherwise. The
main content is furo's ``<article role="main">`` with whitespace normalised; pictures are compared by the bytes
of the ``_images`` each page references.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import sys
from html.parser import HTMLParser
from pathlib import Path


class _Main(HTMLParser):
    """The text of ``<article role="main">`` (one line per block element) and the images it references."""

    BLOCKS = frozenset({"p", "div", "tr", "li", "h1", "h2", "h3", "h4", "pre", "caption", "dt", "dd", "figcaption"})

    def __init__(self, drop: tuple[str, ...] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.lines: list[str] = [""]
        self.images: list[str] = []
        self.drop = drop
        self.dropping: tuple[str, int] | None = None  # the tag of the element left out, and its nesting

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self.dropping is not None:
            if tag == self.dropping[0]:
                self.dropping = (tag, self.dropping[1] + 1)
            return
        if self.depth and set((a.get("class") or "").split()) & set(self.drop):
            self.dropping = (tag, 1)
            return
        if self.depth:
            self.depth += tag == "article"
            if tag in self.BLOCKS or tag in ("td", "th"):
                self.lines.append("")
            if tag == "img":
                self.images.append(a.get("src") or "")
                self.lines[-1] += f"[img alt={a.get('alt')!r}]"
        elif tag == "article" and a.get("role") == "main":
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.dropping is not None:
            if tag == self.dropping[0]:
                self.dropping = (tag, self.dropping[1] - 1) if self.dropping[1] > 1 else None
            return
        if self.depth and tag == "article":
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and self.dropping is None:
            self.lines[-1] += data

    def text(self) -> list[str]:
        return [" ".join(line.split()) for line in self.lines if line.split()]


def page(path: Path, drop: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The normalised lines of a page's main content (less the elements of the classes ``drop``), and the digests of
    the pictures it shows."""
    parser = _Main(drop)
    parser.feed(path.read_text(encoding="utf-8"))
    digests = []
    for src in parser.images:
        image = (path.parent / src).resolve()
        digests.append(hashlib.sha256(image.read_bytes()).hexdigest()[:16] if image.is_file() else f"missing {src}")
    return parser.text(), digests


def compare(before: Path, after: Path, skip: list[str], drop: tuple[str, ...] = ()) -> list[str]:
    """One message per page that differs between the two sites (missing on either side included)."""
    pages = sorted({p.relative_to(root) for root in (before, after) for p in root.rglob("*.html")})
    problems = []
    for rel in pages:
        if any(part in skip for part in rel.parts) or rel.parts[-1] in ("search.html", "genindex.html"):
            continue
        a, b = before / rel, after / rel
        if not a.exists() or not b.exists():
            problems.append(f"{rel}: only in {'after' if not a.exists() else 'before'}")
            continue
        (ta, ia), (tb, ib) = page(a, drop), page(b, drop)
        if ta != tb:
            diff = [d for d in difflib.unified_diff(ta, tb, lineterm="", n=0) if d[:1] in "+-"][2:8]
            problems.append(f"{rel}: text differs\n    " + "\n    ".join(diff))
        if ia != ib:
            problems.append(f"{rel}: pictures differ ({len(ia)} before, {len(ib)} after)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--skip", action="append", default=[], help="skip pages under this folder name")
    parser.add_argument("--drop-class", action="append", default=[], help="leave out elements of this CSS class")
    args = parser.parse_args(argv)
    problems = compare(args.before, args.after, args.skip, tuple(args.drop_class))
    for p in problems:
        print(p)
    n = len(list(args.before.rglob("*.html")))
    print(f"{len(problems)} difference(s) over {n} pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
