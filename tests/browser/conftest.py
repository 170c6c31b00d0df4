"""Fixtures of the browser tests: the built site served on localhost, Debian's Chromium driven by Playwright, and
one visit per page whose findings the tests read.

The site is ``_build/html`` (what ``nox -s docs`` builds), or the folder named by ``ATTNPROF_SITE``. Chromium is
``/usr/bin/chromium`` (Debian's package ``chromium``), or the executable named by ``ATTNPROF_CHROMIUM``;
Playwright's own browser download is not used. A missing site, Playwright or Chromium fails every test with a
message that says what to do: nothing is skipped.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .pages import LANGUAGES, VIEWPORT, VIEWPORTS, Visit, discover_pages, site_dir, viewer_pages, visit
from .viewer_site import LARGE as H200_LARGE
from .viewer_site import VARIANTS as H200_VARIANTS
from .viewer_site import ViewOnPage, page_of
from .viewer_site import build as build_h200_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

CHROMIUM = "/usr/bin/chromium"
#: Without the networking flags Chromium keeps calling home, and this machine's closed network refuses it.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Stands in for the pages when there is no built site, so that the tests fail (``site``) instead of vanishing.
NO_SITE = "(no built site)"


# --- collection: one test per page, and the count in CI's output -------------------------------------------------


#: Marks the pages of the site built from the H200 fixtures (:mod:`.viewer_site`) among the built site's pages.
H200 = "h200:"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``page_path`` with every page of the site, ``variant_page`` with its variant pages, ``ja_page``
    with its Japanese pages, ``gallery_page`` with the gallery's pages (its index too), and ``viewer_page`` with the
    built site's pages that show a trace view and the variant pages of the site built from the H200 fixtures
    (``h200:en/variants/sdpa-math.html``), so that the viewer's checks meet GPU traces here too."""
    pages = discover_pages(site_dir())
    h200 = [f"{H200}{lang}/{page}" for lang in LANGUAGES for page in [*map(page_of, H200_VARIANTS), H200_LARGE]]
    for name, selected in (
        ("page_path", pages),
        ("variant_page", [p for p in pages if p.split("/")[1:2] == ["variants"]]),
        ("viewer_page", [*(viewer_pages(site_dir(), pages) or [NO_SITE]), *h200]),
        ("ja_page", [p for p in pages if p.startswith("ja/")]),
        ("gallery_page", [p for p in pages if p.split("/")[1:2] == ["auto_examples"]]),
    ):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, selected or [NO_SITE])
    if "viewport" in metafunc.fixturenames:
        metafunc.parametrize("viewport", list(VIEWPORTS))


#: The node ids of the selected tests marked ``browser``: a report is counted by its test's marker, not by the word
#: "browser" among its keywords (which every test under tests/browser/, and any test named for the browser, has).
_SELECTED: set[str] = set()


def _is_browser_test(item: Any) -> bool:
    return getattr(item, "nodeid", None) in _SELECTED


def pytest_collection_finish(session: pytest.Session) -> None:
    _SELECTED.clear()
    _SELECTED.update(item.nodeid for item in session.items if item.get_closest_marker("browser") is not None)
    count = len(_SELECTED)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if count and reporter is not None:
        reporter.write_line(
            f"browser tests: {count} selected (site: {site_dir()}, languages: {', '.join(LANGUAGES)})"
        )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    counts = {
        outcome: sum(1 for report in terminalreporter.stats.get(outcome, []) if _is_browser_test(report))
        for outcome in ("passed", "failed", "error")
    }
    if any(counts.values()):
        terminalreporter.write_line(
            f"browser tests: {counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors"
        )


# --- the site, the server, the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site; fails when there is none."""
    path = site_dir()
    missing = [f"{lang}/index.html" for lang in LANGUAGES if not (path / lang / "index.html").is_file()]
    if missing:
        pytest.fail(
            f"no built site at {path} (no {', '.join(missing)}): build it first with `nox -s docs`, or point "
            "ATTNPROF_SITE at a built site",
            pytrace=False,
        )
    return path


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the test output is no access log
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP on localhost, from a thread; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, name=f"server of {folder}", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    """The site served over HTTP on localhost."""
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def h200_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ViewOnPage]]:
    """The site built from the H200 fixtures (:mod:`.viewer_site`): its folder and its views by variant."""
    folder = tmp_path_factory.mktemp("h200-site")
    return folder, build_h200_site(folder)


@pytest.fixture(scope="session")
def h200_url(h200_site: tuple[Path, dict[str, ViewOnPage]]) -> Iterator[str]:
    """The H200 site served over HTTP on localhost (its ``html`` folder; the notebook page one level up)."""
    with serve(h200_site[0]) as url:
        yield url + "html/"


def chromium_path() -> str:
    """Debian's Chromium (or ``ATTNPROF_CHROMIUM``); fails with what to install when it is not there."""
    wanted = os.environ.get("ATTNPROF_CHROMIUM") or CHROMIUM
    found = shutil.which(wanted)
    if found is None:
        pytest.fail(
            f"Chromium not found at {wanted}: install Debian's package (apt-get install -y chromium) or set "
            "ATTNPROF_CHROMIUM to a Chromium executable. The browser tests never skip, and Playwright's own "
            "browser download (playwright install) does not work on these machines.",
            pytrace=False,
        )
    return found


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium, launched through Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        pytest.fail(
            f"Playwright for Python is missing ({exc}): run the browser tests with `nox -s browser`, or "
            "`pip install playwright` (its browser download is not needed)",
            pytrace=False,
        )
    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def contexts(browser: Browser, context: BrowserContext) -> Iterator[dict[str, BrowserContext]]:
    """A browser context per reader's width (:data:`.pages.VIEWPORTS`): the desktop one is ``context``."""
    made = {name: browser.new_context(viewport=size) for name, size in VIEWPORTS.items() if size != VIEWPORT}
    for ctx in made.values():
        ctx.set_default_timeout(15_000)
    yield {name: made.get(name, context) for name in VIEWPORTS}
    for ctx in made.values():
        ctx.close()


@pytest.fixture
def ctx(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser context for one test, 1280 x 900 (routes and popups stay in the test)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser context for one test, 390 x 844 with a touch screen."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.fixture
def tab(context: BrowserContext) -> Iterator[Page]:
    """A fresh tab for one test."""
    page = context.new_page()
    yield page
    page.close()


@pytest.fixture(scope="session")
def visits(context: BrowserContext, base_url: str) -> Callable[[str], Visit]:
    """``visits(path) -> Visit``: each page is loaded once, in its own tab, by whichever test asks first."""

    @functools.cache
    def get(path: str) -> Visit:
        page = context.new_page()
        try:
            return visit(page, base_url, path)
        finally:
            page.close()

    return get
