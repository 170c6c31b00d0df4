"""The built site as files and as loaded pages: where it is, its pages, what a page did when it loaded, and which of
its links are broken. No Playwright import here: ``nox -s tests`` collects this package without it."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("en", "ja")
#: Folders of a built language that hold assets, not pages.
ASSET_DIRS = frozenset({"_static", "_sources", "_downloads", "_images"})
SCREENSHOTS = ROOT / "_build" / "screenshots"
VIEWPORT = {"width": 1280, "height": 800}
#: The two widths a reader brings: a laptop, and a phone.
VIEWPORTS = {"desktop": VIEWPORT, "phone": {"width": 390, "height": 844}}


def site_dir() -> Path:
    """The built site: ``ATTNPROF_SITE``, else ``_build/html`` of this checkout."""
    return Path(os.environ.get("ATTNPROF_SITE") or ROOT / "_build" / "html").resolve()


def discover_pages(site: Path) -> list[str]:
    """Every HTML page of every language, as paths relative to the site (``en/variants/naive.html``)."""
    pages = []
    for lang in LANGUAGES:
        for path in sorted((site / lang).rglob("*.html")):
            rel = path.relative_to(site)
            if not ASSET_DIRS & set(rel.parts):
                pages.append(rel.as_posix())
    return pages


#: For every table under ``root`` (a CSS selector; the article): its box (furo's ``.table-wrapper``, else its
#: parent), whether it is wider than that box, whether the box scrolls, whether its key columns (``th.attnprof-key``;
#: the first column of other tables) are in view before and after scrolling to its end, and the scroll cue: whether
#: the box is marked ``attnprof-scrolls`` and a visible ``p.attnprof-scroll-cue`` with words in it stands right
#: above the box, inside the page. Synchronous on purpose: a test may change the page and look in the same call.
TABLES_JS = """(root) => {
    const page = document.documentElement;
    const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1;
    return [...document.querySelectorAll(`${root} table`)].map((table, index) => {
        const box = table.closest(".table-wrapper") || table.parentElement;
        const scrolls = box.scrollWidth > box.clientWidth + 1;
        const marked = [...table.querySelectorAll("thead th.attnprof-key")];
        const keys = marked.length ? marked : [...table.querySelectorAll("thead th:first-child")];
        const name = `${index + 1}: ${table.className} "${(keys[0] || table).innerText.trim().slice(0, 30)}"`;
        const bounds = () => box.getBoundingClientRect();
        const seenAtStart = keys.map((th) => inside(th.getBoundingClientRect(), bounds()));
        const left = box.scrollLeft;
        box.scrollLeft = box.scrollWidth;
        const firstSeenAtEnd = keys.length > 0 && inside(keys[0].getBoundingClientRect(), bounds());
        box.scrollLeft = left;
        const before = box.previousElementSibling;
        const cue = before && before.classList.contains("attnprof-scroll-cue") ? before : null;
        const cueBox = cue ? cue.getBoundingClientRect() : null;
        const cueShown = !!cue && cue.checkVisibility({visibilityProperty: true, opacityProperty: true}) &&
            cue.innerText.trim().length > 0 && cueBox.height > 0 && cueBox.left >= -1 &&
            cueBox.right <= page.clientWidth + 1;
        return {name, scrolls, marked: marked.length > 0, overflowX: getComputedStyle(box).overflowX,
                seenAtStart, firstSeenAtEnd, boxInPage: bounds().right <= page.clientWidth + 1,
                width: Math.round(table.getBoundingClientRect().width), boxWidth: box.clientWidth,
                boxMarked: box.classList.contains("attnprof-scrolls"), cueShown,
                cueText: cue ? cue.innerText.trim() : ""};
    });
}"""


def table_problems(tables: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the tables :data:`TABLES_JS` measured: a box wider than the page; a table wider than its
    box where the box does not scroll, where no key column is marked or in view, or where nothing says that it
    scrolls (the scroll cue and the box's class); a cue over a table that fits."""
    problems = []
    for t in tables:
        if not t["boxInPage"]:
            problems.append(f"{t['name']}: its box is wider than the page")
        if not t["scrolls"]:
            if t["cueShown"] or t["boxMarked"]:
                problems.append(f"{t['name']}: it fits its box, yet a scroll cue says it scrolls")
            continue
        over = f"{t['width']} px in a {t['boxWidth']} px box"
        if t["overflowX"] not in ("auto", "scroll"):
            problems.append(f"{t['name']}: {over}, which does not scroll (overflow-x {t['overflowX']})")
        elif not t["cueShown"] or not t["boxMarked"]:
            problems.append(f"{t['name']}: {over}, and no scroll cue says so (cue shown: {t['cueShown']}, box "
                            f"marked attnprof-scrolls: {t['boxMarked']})")  # fmt: skip
        elif not t["marked"]:
            problems.append(f"{t['name']}: {over}, and no key columns are marked (th.attnprof-key)")
        elif not all(t["seenAtStart"]):
            problems.append(f"{t['name']}: key columns out of view before scrolling: {t['seenAtStart']}")
        elif not t["firstSeenAtEnd"]:
            problems.append(f"{t['name']}: the first key column scrolls out of view (not sticky)")
    return problems


#: Waits two frames, so that the scroll cue's observers (attnprof-tables.js) have seen the page as it is drawn.
SETTLED_JS = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


#: The class of a trace view's HTML (:func:`attnprof.render.viewer.fragment`).
VIEW_CLASS = "attnprof-trace-view"


def viewer_pages(site: Path, pages: list[str]) -> list[str]:
    """Those of ``pages`` (paths relative to ``site``) that show a trace view."""
    return [p for p in pages if f'class="{VIEW_CLASS}"' in (site / p).read_text(encoding="utf-8")]


def other_language(lang: str) -> str:
    return next(code for code in LANGUAGES if code != lang)


@dataclass
class Visit:
    """What a page did when it loaded, and what it holds."""

    path: str
    lang: str
    html_lang: str = ""
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    switcher: list[dict[str, str]] = field(default_factory=list)


# Make every image load (lazy ones too), then report its size and alt text.
_IMAGES_JS = """async () => Promise.all([...document.images].map(async (img) => {
    img.loading = "eager";
    if (!img.complete) {
        await new Promise((done) => {
            img.addEventListener("load", done, {once: true});
            img.addEventListener("error", done, {once: true});
            setTimeout(done, 10000);
        });
    }
    const thumbnail = img.closest(".sphx-glr-thumbcontainer");
    return {src: img.currentSrc || img.src, width: img.naturalWidth, alt: img.getAttribute("alt"),
            thumbnailTitle: thumbnail ? thumbnail.innerText.trim() : null};
}))"""

_SWITCHER_JS = """() => [...document.querySelectorAll("nav.attnprof-languages a[hreflang]")].map(
    (a) => ({lang: a.hreflang, href: a.href}))"""


def visit(page: Page, base_url: str, path: str) -> Visit:
    """Load ``path`` and record console errors, failed requests to the site, images, links and the switcher."""
    found = Visit(path=path, lang=path.split("/")[0])
    # The site declares its icon (attnprof.sphinxext): a request for it that fails counts like any other.

    def on_console(message: Any) -> None:
        if message.type == "error":
            found.console_errors.append(f"{message.text} ({message.location.get('url', '')})")

    def on_failed(request: Any) -> None:
        if request.url.startswith(base_url):
            found.failed_requests.append(f"{request.url}: {request.failure}")

    def on_response(response: Any) -> None:
        if response.url.startswith(base_url) and response.status >= 400:
            found.failed_requests.append(f"{response.url}: HTTP {response.status}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: found.console_errors.append(f"uncaught: {error}"))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    page.goto(base_url + path, wait_until="load")
    found.images = page.evaluate(_IMAGES_JS)
    found.html_lang = page.evaluate("document.documentElement.lang")
    found.links = page.eval_on_selector_all("a[href]", "els => els.map((a) => a.href)")
    found.switcher = page.evaluate(_SWITCHER_JS)
    return found


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value or "")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    """The ids (and ``<a name>``) of an HTML file: the fragments a link to it may name."""
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


def broken(site: Path, base_url: str, href: str) -> str | None:
    """Why the link ``href`` into the site served at ``base_url`` is broken (no file, no anchor), else None."""
    parts = urlsplit(href)
    target = site / unquote(parts.path).removeprefix(urlsplit(base_url).path)
    if target.is_dir():
        target = target / "index.html"
    if not target.resolve().is_relative_to(site):
        return f"{href}: outside the site"
    if not target.is_file():
        return f"{href}: no file {target.relative_to(site)}"
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in anchors(target):
        return f"{href}: no id {fragment!r} in {target.relative_to(site)}"
    return None
