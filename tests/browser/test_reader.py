"""The site as a reader sees it at a laptop's and a phone's width, in both languages: the page never scrolls
sideways, a table fits its column or scrolls inside its own box with its key columns in view, pictures are drawn
large enough to read, a kernel's full name is one click away, Japanese pages hold no English prose, every gallery
page says how to install the package, the sidebar names every page differently, and screenshots of four pages at
both widths land in ``_build/screenshots``.

Run ``nox -s docs`` first, then ``nox -s browser``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from attnprof import words
from attnprof.render import pictures

from .english import english_runs
from .pages import LANGUAGES, SCREENSHOTS, SETTLED_JS, TABLES_JS, VIEWPORTS, table_problems

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

#: Smallest text on screen, CSS pixels.
LEGIBLE_PX = 11
#: Pages photographed at both widths in both languages: name -> path within a language.
SCREENSHOT_PAGES = {
    "landing": "index.html",
    "claims": "guide/claims.html",
    "variant-flash": "variants/sdpa-flash.html",
    "gallery-flash": "auto_examples/05-sdpa-flash.html",
}

# How wide the page is, every table of the article (pages.TABLES_JS), and the pictures.
_LAYOUT_JS = (
    """() => {
    const root = document.documentElement;
    const tables = ("""
    + TABLES_JS
    + """)("article");
    const shown = "figure.attnprof-timeline:not(.attnprof-viewer-replaced) img, figure.attnprof-scaling-plot img";
    const pictures = [...document.querySelectorAll(shown)].map((img) => ({
            src: img.currentSrc, shown: img.getBoundingClientRect().width, natural: img.naturalWidth}));
    return {bodyOverflow: root.scrollWidth - root.clientWidth, tables, pictures};
}"""
)

# The visible text of a page, one string per block (so that "**成立** (holds)" stays one string), without code (it
# stays as it is), messages recorded from PyTorch (class attnprof-message: PyTorch's words), and, on the glossary,
# its terms (each pairs the English term with the Japanese one). The gallery's printed output is read: it is prose
# to the reader. So is the alt text of images.
_TEXT_JS = """() => {
    // (the trace viewer's slices are ATen op names and kernel labels: identifiers, like code; "aten::to" is "to")
    const skip = "code, kbd, samp, script, style, noscript, .highlight, .math, math, svg, .headerlink, " +
        "[aria-hidden='true'], .attnprof-message, pre, .attnprof-viewer-slice";
    const block = "p, li, td, th, dd, dt, caption, figcaption, h1, h2, h3, h4, h5, h6, pre, summary, div";
    const glossary = location.pathname.endsWith("/guide/glossary.html");
    const texts = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || !n.textContent.trim()) continue;
        if (!el.closest(".sphx-glr-script-out") && el.closest(skip)) continue;
        if (glossary && el.closest("dt")) continue;
        if (!el.checkVisibility({visibilityProperty: true})) continue;
        const owner = el.closest(block) || document.body;
        texts.set(owner, (texts.get(owner) || "") + n.textContent);
    }
    return [...texts.values(), ...[...document.querySelectorAll("img[alt]")].map((img) => img.alt)];
}"""

# The lines of visible text (innerText keeps line breaks), code blocks included.
_LINES_JS = "() => document.querySelector('article').innerText.split('\\n')"


@pytest.fixture(scope="session")
def layouts(contexts: dict[str, BrowserContext], base_url: str) -> Callable[[str, str], dict[str, Any]]:
    """``layouts(viewport, path)``: the layout facts of a page at one width, measured once."""

    @functools.cache
    def get(viewport: str, path: str) -> dict[str, Any]:
        page = contexts[viewport].new_page()
        try:
            page.goto(base_url + path, wait_until="load")
            page.evaluate("document.fonts.ready.then(() => true)")
            page.evaluate(SETTLED_JS)
            return page.evaluate(_LAYOUT_JS)
        finally:
            page.close()

    return get


# --- every page, at both widths ----------------------------------------------------------------------------------


def test_the_page_never_scrolls_sideways(page_path: str, viewport: str, layouts: Callable) -> None:
    found = layouts(viewport, page_path)
    assert found["bodyOverflow"] <= 0, f"the page is {found['bodyOverflow']} px wider than the {viewport} screen"


def test_tables_fit_or_scroll_inside_with_their_key_columns_in_view_and_a_cue(
    page_path: str, viewport: str, layouts: Callable
) -> None:
    """Every table fits its column, or scrolls sideways inside its own box with its key columns in view, and a line
    above it says that it scrolls (the scroll cue of attnprof-tables.js)."""
    problems = table_problems(layouts(viewport, page_path)["tables"])
    assert not problems, f"at {viewport} width:\n" + "\n".join(problems)


#: A table wider than any column, of the kind no directive makes: planted into a page after its scripts ran.
_PLANT_WIDE_TABLE = """() => {
    const article = document.querySelector("article");
    const box = document.createElement("div");
    box.style.overflowX = "auto";
    box.innerHTML = "<table class='attnprof-table'><thead><tr><th class='attnprof-key'>planted</th>" +
        "<th>" + "unbreakable".repeat(30) + "</th></tr></thead><tbody><tr><td>x</td><td>y</td></tr>" +
        "</tbody></table>";
    article.append(box);
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_check_fails_on_a_planted_violation(lang: str, contexts: dict[str, BrowserContext],
                                                      base_url: str) -> None:  # fmt: skip
    """The check above sees a scrolling table without its cue: on the landing page at a phone's width (its table
    scrolls there), with the cue removed, with the cue hidden, and with a wide table the script never saw."""
    page = contexts["phone"].new_page()
    try:
        page.goto(f"{base_url}{lang}/index.html", wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.evaluate(SETTLED_JS)
        measure = f"() => ({TABLES_JS})('article')"
        tables = page.evaluate(measure)
        scrolling = [t for t in tables if t["scrolls"]]
        assert scrolling and table_problems(tables) == [], table_problems(tables)
        assert {t["cueText"] for t in scrolling} == {words.text("table.scrolls", lang)}  # in the page's language
        # 1. the cue hidden by a style: seen as no cue
        page.add_style_tag(content="p.attnprof-scroll-cue { visibility: hidden; }")
        hidden = table_problems(page.evaluate(measure))
        assert len(hidden) == len(scrolling) and all("no scroll cue says so" in p for p in hidden), hidden
        # 2. the cue removed (the script not run): the same
        removed = page.evaluate(
            f"() => {{ document.querySelectorAll('.attnprof-scroll-cue').forEach((c) => c.remove()); "
            f"return ({TABLES_JS})('article'); }}"
        )
        assert len(table_problems(removed)) == len(scrolling)
        # 3. a wide table the script never saw (planted and measured in one go, before its observer runs)
        planted = page.evaluate(f"() => {{ ({_PLANT_WIDE_TABLE})(); return ({TABLES_JS})('article'); }}")
        assert any("planted" in p and "no scroll cue says so" in p for p in table_problems(planted))
    finally:
        page.close()


def test_the_cue_comes_and_goes_with_the_width(tab: Page, base_url: str) -> None:
    """The script looks again when the page changes width: a table that scrolls on a phone and fits on a laptop
    gets its cue at 390 px and loses it at 1280 px, and a table added later (the drop-in reader's) gets one too."""
    tab.set_viewport_size(VIEWPORTS["phone"])
    tab.goto(f"{base_url}en/index.html", wait_until="load")
    tab.evaluate(SETTLED_JS)
    measure = f"() => ({TABLES_JS})('article')"
    narrow = tab.evaluate(measure)
    assert any(t["scrolls"] and t["cueShown"] for t in narrow), narrow
    tab.set_viewport_size(VIEWPORTS["desktop"])
    tab.evaluate(SETTLED_JS)
    wide = tab.evaluate(measure)
    assert table_problems(wide) == [], table_problems(wide)
    tab.evaluate(_PLANT_WIDE_TABLE)
    tab.evaluate(SETTLED_JS)
    assert table_problems(tab.evaluate(measure)) == []  # the observer gave the planted table its cue


def test_pictures_are_legible_and_sharp(page_path: str, viewport: str, layouts: Callable) -> None:
    """Text in the build's pictures is at least 11 CSS px on screen, and the PNG has two pixels per CSS pixel."""
    text_px = pictures.TEXT_PT * pictures.DPI / 72  # the smallest text, in PNG pixels
    problems = []
    for img in layouts(viewport, page_path)["pictures"]:
        scale = img["shown"] / img["natural"] if img["natural"] else 0
        if text_px * scale < LEGIBLE_PX:
            problems.append(f"{img['src']}: text {text_px * scale:.1f} px on screen (shown {img['shown']:.0f} px)")
        if img["natural"] < 1.9 * img["shown"]:
            problems.append(f"{img['src']}: {img['natural']} px drawn for {img['shown']:.0f} px shown (not hi-dpi)")
    assert not problems, f"at {viewport} width:\n" + "\n".join(problems)


# --- Japanese pages -------------------------------------------------------------------------------------------


def test_no_english_sentences_on_japanese_pages(ja_page: str, tab: Page, base_url: str) -> None:
    """English prose outside code on a Japanese page, counted against the allowlist of :mod:`.english` (kernel
    names, code, identifiers, product names, units, the article's English title, PyTorch's recorded messages)."""
    tab.goto(base_url + ja_page, wait_until="load")
    runs = [run for text in tab.evaluate(_TEXT_JS) for run in english_runs(text)]
    assert not runs, f"{len(runs)} English sentence(s) on {ja_page}:\n" + "\n".join(dict.fromkeys(runs))


# --- the gallery, the guide, the sidebar ------------------------------------------------------------------------


def test_gallery_page_shows_the_install_line(gallery_page: str, tab: Page, base_url: str) -> None:
    """One visible line says how to install what the script needs: ``pip install`` with torch and the attnprof
    wheel the site publishes."""
    tab.goto(base_url + gallery_page, wait_until="load")
    lines = [line for line in tab.evaluate(_LINES_JS) if "pip install" in line]
    wanted = [line for line in lines if re.search(r"\btorch\b", line) and re.search(r"attnprof\S*\.whl", line)]
    assert wanted, (
        f"{gallery_page} has no line with `pip install`, torch and the attnprof wheel (attnprof-*.whl); "
        f"lines with pip install: {lines}"
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_two_sidebar_entries_read_alike(lang: str, tab: Page, base_url: str) -> None:
    tab.goto(f"{base_url}{lang}/index.html", wait_until="load")
    entries = tab.eval_on_selector_all(".sidebar-tree a.reference", "els => els.map((a) => a.innerText.trim())")
    normalised: dict[str, list[str]] = {}
    for entry in entries:
        normalised.setdefault(re.sub(r"\W+", " ", entry.lower()).strip(), []).append(entry)
    assert len(entries) > 10, entries
    assert not [e for e in normalised.values() if len(e) > 1], [e for e in normalised.values() if len(e) > 1]


def test_guide_page_links_its_gallery_page(variant_page: str, tab: Page, base_url: str) -> None:
    tab.goto(base_url + variant_page, wait_until="load")
    hrefs = tab.eval_on_selector_all("article a[href]", "els => els.map((a) => a.href)")
    assert any("/auto_examples/" in h and re.search(r"/\d\d-[\w-]+\.html", h) for h in hrefs), hrefs


def test_full_kernel_name_is_one_click_away(tab: Page, base_url: str) -> None:
    """The kernel table shows the short label; the full demangled name opens under it, and the search index has
    it. On a CPU-only build there is no kernel to name: the page says so instead."""
    tab.goto(f"{base_url}en/variants/sdpa-flash.html", wait_until="load")
    if tab.locator(".attnprof-env-banner.attnprof-cpu-only").count():
        assert tab.locator("table.attnprof-kernel-table").count() == 0
        assert tab.locator(".attnprof-no-gpu").count() >= 1
        return
    disclosure = tab.locator("table.attnprof-kernel-table details.attnprof-kernel-name").first
    full = disclosure.locator(".attnprof-fullname")
    assert not full.is_visible()
    disclosure.locator("summary").click()
    assert full.is_visible()
    name, label = full.inner_text(), disclosure.locator("summary").inner_text()
    assert len(name) > len(label)
    # a word only the full name has, typed into the site's search, finds the page
    token = max((w for w in re.findall(r"[A-Za-z_]{8,}", name) if w.lower() not in label.lower()), key=len)
    page = f"{base_url}en/variants/sdpa-flash.html"
    tab.goto(f"{base_url}en/search.html?q={token}", wait_until="load")
    hits = "() => [...document.querySelectorAll('#search-results ul.search li a')].map((a) => a.href.split('#')[0])"
    tab.wait_for_function(f"(url) => ({hits})().includes(url)", arg=page)


# --- screenshots --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCREENSHOT_PAGES))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_screenshot(name: str, lang: str, viewport: str, contexts: dict[str, BrowserContext], base_url: str) -> None:
    """A full-page screenshot: ``_build/screenshots/<name>-<lang>-<width>.png``."""
    size = VIEWPORTS[viewport]
    page = contexts[viewport].new_page()
    try:
        page.goto(f"{base_url}{lang}/{SCREENSHOT_PAGES[name]}", wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        png = page.screenshot(path=str(SCREENSHOTS / f"{name}-{lang}-{size['width']}.png"), full_page=True)
    finally:
        page.close()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert width == size["width"] and height >= size["height"], (width, height)
