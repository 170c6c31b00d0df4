"""The gallery as a reader sees it, in both languages: every page says how to install attnprof and links a wheel
that downloads; the Japanese gallery prints, titles and describes its scripts in Japanese; no two sidebar entries
read alike; and a gallery page fits a phone. Screenshots of one gallery page land in ``_build/screenshots``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .pages import LANGUAGES, SCREENSHOTS, discover_pages, site_dir

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
GALLERY_PAGES = [p for p in discover_pages(site_dir()) if p.split("/")[1:2] == ["auto_examples"]] or ["(no site)"]
SHOWN = "05-sdpa-flash"

_INSTALL_JS = """() => [...document.querySelectorAll("p.attnprof-install")].map((p) => ({
    text: p.innerText, wheels: [...p.querySelectorAll("a.attnprof-wheel")].map((a) => a.href)}))"""


def _open(tab: Page, base_url: str, path: str, width: int = 1280) -> None:
    tab.set_viewport_size({"width": width, "height": 800 if width > 600 else 844})
    tab.goto(base_url + path, wait_until="load")


@pytest.mark.parametrize("path", GALLERY_PAGES)
def test_every_gallery_page_says_how_to_install_attnprof(path: str, site: Path, tab: Page, base_url: str) -> None:
    _open(tab, base_url, path)
    (line,) = tab.evaluate(_INSTALL_JS)
    (wheel,) = line["wheels"]
    assert re.search(r"pip install torch matplotlib attnprof-[\w.]+-py3-none-any\.whl", line["text"]), line["text"]
    script = Path(path).stem
    assert ("python NN-topic.py" if script == "index" else f"python {script}.py") in line["text"]
    response = tab.request.get(wheel)
    assert response.ok and response.body()[:2] == b"PK", f"{wheel}: {response.status}"


@pytest.mark.parametrize("path", [p for p in GALLERY_PAGES if p.startswith("ja/") and not p.endswith("index.html")])
def test_japanese_gallery_pages_print_in_japanese(path: str, tab: Page, base_url: str) -> None:
    _open(tab, base_url, path)
    printed = tab.eval_on_selector_all(".sphx-glr-script-out pre", "els => els.map((e) => e.innerText)")
    assert printed, "no printed output"
    english = [text.splitlines()[0] for text in printed if not JAPANESE.search(text) and "Self CPU" not in text]
    assert not english, f"printed output without Japanese (the profiler's own table aside): {english}"
    title = tab.inner_text("h1")
    assert title.startswith("実行する: "), title


def test_japanese_thumbnails_and_tooltips(tab: Page, base_url: str) -> None:
    _open(tab, base_url, "ja/auto_examples/index.html")
    cards = tab.eval_on_selector_all(
        ".sphx-glr-thumbcontainer",
        "els => els.map((e) => ({title: e.innerText.trim(), tooltip: e.getAttribute('tooltip') || ''}))",
    )
    assert cards and all(c["title"].startswith("実行する: ") for c in cards), cards
    assert all(JAPANESE.search(c["tooltip"]) for c in cards), [c["tooltip"][:40] for c in cards]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_two_sidebar_entries_read_alike(lang: str, tab: Page, base_url: str) -> None:
    _open(tab, base_url, f"{lang}/auto_examples/index.html")
    entries = tab.eval_on_selector_all(".sidebar-tree a", "els => els.map((a) => a.innerText.trim())")
    assert len(entries) > 10
    seen: dict[str, str] = {}
    for entry in entries:
        key = re.sub(r"\W+", " ", entry.lower()).strip()
        assert key not in seen, f"{entry!r} reads like {seen[key]!r}"
        seen[key] = entry


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", [1280, 390])
def test_gallery_page_fits_and_screenshot(lang: str, width: int, tab: Page, base_url: str) -> None:
    """The body never scrolls sideways (wide printed tables scroll inside their own block); a full-page screenshot
    goes to ``_build/screenshots/gallery-<lang>-<width>.png``."""
    _open(tab, base_url, f"{lang}/auto_examples/{SHOWN}.html", width)
    tab.evaluate("document.fonts.ready.then(() => true)")
    overflow = tab.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width} px"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    png = tab.screenshot(path=str(SCREENSHOTS / f"gallery-{lang}-{width}.png"), full_page=True)
    assert int.from_bytes(png[16:20], "big") == width


_TIMING = {
    "en": re.compile(r"without profiler: ([\d.]+) ms per forward \(median of (\d+)"),
    "ja": re.compile(r"プロファイラなし: フォワード 1 回 ([\d.]+) ms \(中央値、(\d+) 回"),
}


def test_the_japanese_gallery_measured_nothing_again(site: Path) -> None:
    """Measure once: the Japanese scripts print the very timing the English scripts measured (reused, not measured
    again: a second measurement would differ in its last digits)."""
    found = {}
    for lang, pattern in _TIMING.items():
        for page in sorted((site / lang / "auto_examples").glob("[0-9][0-9]-*.html")):
            match = pattern.search(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
            if match:
                found.setdefault(page.stem, {})[lang] = match.groups()
    both = {stem: t for stem, t in found.items() if len(t) == 2}
    assert len(both) >= 5, found  # every variant that runs on the build's device
    differ = {stem: t for stem, t in both.items() if t["en"] != t["ja"]}
    assert not differ, f"measured again in Japanese: {differ}"
