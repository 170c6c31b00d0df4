"""The built site, in English and Japanese, as a reader's browser shows it: pages load cleanly, images and links
work, the language switcher and the search work, the variant pages show their measurements, and a screenshot of
each landing page lands in ``_build/screenshots``.

Run ``nox -s docs`` first, then ``nox -s browser`` (or ``pytest -m browser`` with Playwright installed).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .pages import LANGUAGES, SCREENSHOTS, VIEWPORT, Visit, broken, discover_pages, other_language

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

#: Language, what the reader types, the word as searchindex.js holds it (English is stemmed), the page the search
#: must find, and where the word comes from. Japanese is matched by the words the indexer segmented, so the term is
#: one such word. The test checks the index first, so a changed text fails with a message that says so.
SEARCHES = [
    ("ja", "コピー", "コピー", "variants/naive", "docs/locales/ja/LC_MESSAGES/variants/naive.po"),
    ("en", "memcpy", "memcpi", "variants/naive", "docs/variants/naive.md"),
]

# What the directives of a variant page rendered (classes set by attnprof.sphinxext).
_VARIANT_JS = """() => ({
    kernelTables: document.querySelectorAll("table.attnprof-kernel-table").length,
    kernelRows: document.querySelectorAll("table.attnprof-kernel-table tbody tr").length,
    noGpuNotes: document.querySelectorAll(".attnprof-no-gpu").length,
    notRunNotes: document.querySelectorAll(".admonition.attnprof-not-run").length,
    claimsTables: document.querySelectorAll("table.attnprof-claims-table").length,
    problems: [...document.querySelectorAll(".attnprof-problem")].map((box) => box.innerText),
    cpuOnlyBuild: document.querySelectorAll(".attnprof-env-banner.attnprof-cpu-only").length > 0,
    timelines: [...document.querySelectorAll("figure.attnprof-timeline img.attnprof-timeline-image")].map(
        (img) => ({src: img.currentSrc, width: img.naturalWidth, alt: img.alt})),
})"""


def _open(tab: Page, base_url: str, path: str) -> None:
    tab.goto(base_url + path, wait_until="load")


# --- every page ------------------------------------------------------------------------------------------------


def test_same_pages_in_both_languages(site: Path) -> None:
    pages = {
        lang: {p.split("/", 1)[1] for p in discover_pages(site) if p.startswith(f"{lang}/")} for lang in LANGUAGES
    }
    first, second = LANGUAGES
    assert pages[first], f"no pages under {site / first}"
    only_first, only_second = sorted(pages[first] - pages[second]), sorted(pages[second] - pages[first])
    assert not only_first and not only_second, f"only in {first}: {only_first}; only in {second}: {only_second}"


def test_page_loads_without_errors(page_path: str, visits: Callable[[str], Visit]) -> None:
    found = visits(page_path)
    assert not found.console_errors, "console errors:\n" + "\n".join(found.console_errors)
    assert not found.failed_requests, "failed requests to the site:\n" + "\n".join(found.failed_requests)


def test_html_lang(page_path: str, visits: Callable[[str], Visit]) -> None:
    found = visits(page_path)
    assert found.html_lang == found.lang


def test_images_load_and_have_alt_text(page_path: str, visits: Callable[[str], Visit]) -> None:
    """Every image loads and says what it shows. The one exception is sphinx-gallery's thumbnails, decorative by
    design (``alt=""``, so a screen reader does not read the title twice): their card must carry the title."""
    found = visits(page_path)
    not_loaded = [img["src"] for img in found.images if not img["width"]]
    no_alt = [
        img["src"]
        for img in found.images
        if not (img["alt"] or "").strip() and not (img["thumbnailTitle"] and img["alt"] == "")
    ]
    assert not not_loaded, f"images that did not load: {not_loaded}"
    assert not no_alt, f"images without alt text: {no_alt}"


def test_internal_links_resolve(page_path: str, visits: Callable[[str], Visit], site: Path, base_url: str) -> None:
    found = visits(page_path)
    local = sorted({href for href in found.links if href.startswith(base_url)})
    problems = [why for href in local if (why := broken(site, base_url, href))]
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems)


def test_language_switcher_opens_same_page(
    page_path: str, visits: Callable[[str], Visit], tab: Page, base_url: str
) -> None:
    found = visits(page_path)
    other = other_language(found.lang)
    links = [link for link in found.switcher if link["lang"] == other]
    assert len(links) == 1, f"switcher links to {other}: {found.switcher}"
    _open(tab, base_url, page_path)
    with tab.expect_navigation():
        tab.locator(f"nav.attnprof-languages a[hreflang={other}]").click()
    counterpart = other + page_path.removeprefix(found.lang)
    assert tab.url.split("#")[0] == base_url + counterpart
    assert tab.evaluate("document.documentElement.lang") == other


# --- the site as a whole ---------------------------------------------------------------------------------------


def test_root_redirects_to_english(tab: Page, base_url: str) -> None:
    _open(tab, base_url, "")
    tab.wait_for_url(f"{base_url}{LANGUAGES[0]}/index.html")
    assert tab.evaluate("document.documentElement.lang") == LANGUAGES[0]


def _search_index(site: Path, lang: str) -> dict[str, Any]:
    """``searchindex.js`` parsed (it escapes non-ASCII, so grepping it finds no Japanese)."""
    text = (site / lang / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.parametrize(("lang", "term", "indexed_as", "expected", "source"), SEARCHES, ids=[s[0] for s in SEARCHES])
def test_search_finds_page(
    lang: str, term: str, indexed_as: str, expected: str, source: str, site: Path, tab: Page, base_url: str
) -> None:
    index = _search_index(site, lang)
    doc = index["docnames"].index(expected)
    indexed = {
        kind: docs if isinstance(docs, list) else [docs]
        for kind in ("terms", "titleterms")
        if (docs := index[kind].get(indexed_as)) is not None
    }
    assert any(doc in docs for docs in indexed.values()), (
        f"{term!r} is no word of {expected} in {lang}/searchindex.js: the text changed; pick another word of that "
        f"page from {source}"
    )
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # not at the top: `nox -s tests` lacks it

    _open(tab, base_url, f"{lang}/search.html?q={term}")
    expected_url = f"{base_url}{lang}/{expected}.html"
    hits_js = (
        "() => [...document.querySelectorAll('#search-results ul.search li a')].map((a) => a.href.split('#')[0])"
    )
    try:  # results arrive one by one; wait for the expected one (the summary line is empty in Sphinx's ja catalog)
        tab.wait_for_function(f"(url) => ({hits_js})().includes(url)", arg=expected_url)
    except PlaywrightTimeout:
        pytest.fail(f"search for {term!r} did not find {expected_url}; it found {tab.evaluate(hits_js)}")


# Two different kanji drawn in the page's font: without a font that has them, both are the same missing-glyph box.
_KANJI_DIFFER_JS = """() => {
    const font = getComputedStyle(document.body).font;
    const draw = (text) => {
        const canvas = document.createElement("canvas");
        canvas.width = canvas.height = 64;
        const ctx = canvas.getContext("2d");
        ctx.font = font.replace(/\\d+(\\.\\d+)?px/, "48px");
        ctx.fillText(text, 4, 52);
        return canvas.toDataURL();
    };
    return draw("日") !== draw("本");
}"""


def test_japanese_text_has_glyphs(tab: Page, base_url: str) -> None:
    _open(tab, base_url, "ja/index.html")
    assert tab.evaluate(_KANJI_DIFFER_JS), (
        "Chromium has no font with Japanese glyphs: the ja pages (and landing-ja.png) show empty boxes. Install one, "
        "e.g. Debian's fonts-ipafont-gothic"
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_landing_page_screenshot(lang: str, tab: Page, base_url: str) -> None:
    """A full-page screenshot of each landing page: ``_build/screenshots/landing-{en,ja}.png``."""
    _open(tab, base_url, f"{lang}/index.html")
    tab.evaluate("document.fonts.ready.then(() => true)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"landing-{lang}.png"
    png = tab.screenshot(path=str(path), full_page=True)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert width == VIEWPORT["width"] and height >= VIEWPORT["height"], (width, height)


# --- the variant pages -----------------------------------------------------------------------------------------


def test_variant_page_shows_measurements(variant_page: str, tab: Page, base_url: str) -> None:
    """The kernel table and the timeline, or a note in their place that says why (no GPU, or the variant did not
    run); never a problem box. A claims table is on every variant page."""
    _open(tab, base_url, variant_page)
    found = tab.evaluate(_VARIANT_JS)
    assert not found["problems"], f"problem boxes: {found['problems']}"
    assert found["claimsTables"] >= 1, "no claims table"
    if found["notRunNotes"]:  # the variant could not run here: the notes say why
        return
    if found["cpuOnlyBuild"]:
        assert found["kernelTables"] or found["noGpuNotes"], "neither a kernel table nor the no-GPU note"
    else:
        assert found["kernelTables"] and found["kernelRows"], "no kernel table (or an empty one) on a GPU build"
    assert len(found["timelines"]) == 1, f"timeline images: {found['timelines']}"
    image = found["timelines"][0]
    assert image["width"] > 0 and image["alt"].strip(), image


@pytest.mark.parametrize("lang", LANGUAGES)
def test_naive_variant_ran(lang: str, tab: Page, base_url: str) -> None:
    """Naive attention runs on any device: its page has a timeline and its kernel table (no-GPU note on a CPU build),
    so a site whose variant pages all say 'did not run' fails here."""
    _open(tab, base_url, f"{lang}/variants/naive.html")
    found = tab.evaluate(_VARIANT_JS)
    assert not found["notRunNotes"], "naive did not run"
    assert found["kernelTables"] or (found["cpuOnlyBuild"] and found["noGpuNotes"])
    assert [img["width"] > 0 for img in found["timelines"]] == [True]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_site_declares_an_icon_that_loads(lang: str, tab: Page, base_url: str) -> None:
    """Browsers ask every site for an icon: without one declared, /favicon.ico is a 404 on every page."""
    _open(tab, base_url, f"{lang}/index.html")
    href = tab.evaluate("() => (document.querySelector('link[rel~=icon]') || {}).href || ''")
    assert href.startswith(base_url) and href.split("?")[0].endswith(".svg"), href
    response = tab.request.get(href)
    assert response.status == 200 and response.body().startswith(b"<svg"), (response.status, href)
