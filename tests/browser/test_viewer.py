"""The trace viewer in Chromium, English and Japanese: a small static page (:mod:`.viewer_site`) with three views,
served on localhost (and opened from ``file://``). Hover and focus show the kernel's own name and duration, zoom
narrows the visible range, launches and kernels highlight each other, nothing is fetched from elsewhere, 390 px
wide works, the dark theme stays readable, and "Open in Perfetto" hands a stub of ui.perfetto.dev the trace's
bytes. Needs no built site: ``pytest -m browser tests/browser/test_viewer.py``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from attnprof import trace, viewer

from .pages import LANGUAGES, SCREENSHOTS
from .viewer_site import ViewOnPage, build

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route

pytestmark = pytest.mark.browser

PERFETTO = "https://ui.perfetto.dev"
# Stands in for ui.perfetto.dev: answers PING with PONG and keeps what it is handed.
PERFETTO_STUB = """<!doctype html><title>Perfetto stub</title><script>
window.pings = 0; window.received = null;
window.addEventListener("message", (e) => {
  if (e.data === "PING") { window.pings++; e.source.postMessage("PONG", "*"); return; }
  const p = e.data && e.data.perfetto;
  if (p) window.received = {bytes: Array.from(new Uint8Array(p.buffer)), title: p.title, fileName: p.fileName,
                            isArrayBuffer: p.buffer instanceof ArrayBuffer, fromOpener: e.source === window.opener};
});
</script>"""


# --- the page, served ---------------------------------------------------------------------------------------------


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ViewOnPage]]:
    folder = tmp_path_factory.mktemp("viewer-site")
    return folder, build(folder)


@pytest.fixture(scope="module")
def views(site: tuple[Path, dict[str, ViewOnPage]]) -> dict[str, ViewOnPage]:
    return site[1]


@pytest.fixture(scope="module")
def base_url(site: tuple[Path, dict[str, ViewOnPage]]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site[0])))
    threading.Thread(target=server.serve_forever, name="viewer-site", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ctx(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    yield context
    context.close()


def watch(page: Page) -> list[str]:
    """Collects the page's console errors and uncaught exceptions."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def open_page(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    page = context.new_page()
    errors = watch(page)
    page.goto(url, wait_until="load")
    page.wait_for_function("document.querySelectorAll('.attnprof-trace-view[data-ready]').length === 3")
    return page, errors


# --- what the tests compare with ----------------------------------------------------------------------------------


def us(x: float) -> str:
    """A time as the viewer writes it (the trace's precision, no trailing zeros)."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def main_kernel(v: ViewOnPage) -> trace.KernelRow:
    """The kernel table's row of the kernel with the longest total time."""
    rows = trace.kernel_table(v.result.steps, v.result.device_properties)
    return max((r for r in rows if r.kind == "kernel"), key=lambda r: r.total_us)


def view(page: Page, v: ViewOnPage, selector: str = ""):
    return page.locator(f'.attnprof-trace-view[data-view="{v.view_id}"] {selector}'.rstrip())


def gpu_slice(page: Page, v: ViewOnPage, step: int, name: str):
    """The slice of the first activity called ``name`` in ``step``, and that activity (one GPU stream here)."""
    acts = v.result.steps[step].activities
    i = next(i for i, a in enumerate(acts) if a.name == name)
    return view(page, v, ".attnprof-viewer-gpu .attnprof-viewer-slice").nth(i), acts[i]


def launch_slice(page: Page, v: ViewOnPage, step: int, correlation: int):
    lane = next(lane for lane in viewer.payload(v.result)["steps"][step]["lanes"] if lane["kind"] == "launch")
    i = next(i for i, s in enumerate(lane["slices"]) if s[4] == correlation)
    return view(page, v, ".attnprof-viewer-launch .attnprof-viewer-slice").nth(i)


def tooltip(page: Page, v: ViewOnPage) -> dict[str, Any]:
    """The visible tooltip of a view: short name, full name, rows, and its box."""
    return view(page, v, ".attnprof-viewer-tip").evaluate(
        """(tip) => ({
            hidden: tip.hidden,
            short: tip.querySelector(".attnprof-viewer-tip-short").textContent,
            full: (tip.querySelector(".attnprof-viewer-tip-full code") || {}).textContent,
            rows: Object.fromEntries([...tip.querySelectorAll("dt")].map((dt) => [dt.textContent,
                                                                              dt.nextElementSibling.textContent])),
            box: tip.getBoundingClientRect().toJSON(),
        })"""
    )


def visible_range(page: Page, v: ViewOnPage) -> tuple[float, float]:
    root = view(page, v, ".attnprof-viewer")
    return float(root.get_attribute("data-visible-start")), float(root.get_attribute("data-visible-end"))


# --- the tests --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_hovering_the_main_kernel_shows_its_name_and_duration(ctx, base_url, views, lang):
    page, errors = open_page(ctx, f"{base_url}{lang}.html")
    w = viewer.words(lang)
    for v in views.values():
        row = main_kernel(v)
        for step in (1, 0):  # the step shown first, then another one picked in the switcher
            if step != 1:
                view(page, v, "select.attnprof-viewer-step").select_option(str(step))
            node, activity = gpu_slice(page, v, step, row.name)
            node.hover()
            tip = tooltip(page, v)
            assert not tip["hidden"]
            assert tip["short"] == row.info.short and tip["full"] == row.name
            assert tip["rows"][w["tip.duration"]] == f"{us(activity.duration_us)} µs"
            assert tip["rows"][w["tip.start"]] == f"{us(activity.start_us)} µs"
            assert tip["rows"][w["tip.correlation"]] == str(activity.correlation)
            assert tip["rows"][w["col.launch_api"]] == activity.launch_api
            assert tip["rows"][w["col.family"]] == row.info.family
            for key in ("col.grid_block", "col.registers", "col.shared_memory", "col.reported_occupancy"):
                assert tip["rows"][w[key]]
            assert w["col.theoretical_occupancy"] in tip["rows"]
            assert 0 <= tip["box"]["x"] and tip["box"]["x"] + tip["box"]["width"] <= 1280
    assert errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_zoom_narrows_the_visible_range_and_pan_moves_it(ctx, base_url, views, lang):
    page, errors = open_page(ctx, f"{base_url}{lang}.html")
    v = views["sdpa_math"]
    start, end = visible_range(page, v)
    assert start < 0 < end and end >= v.result.steps[1].cpu_time_us
    w = viewer.words(lang)
    view(page, v, f'button[aria-label="{w["viewer.zoom_in"]}"]').click()
    zoomed = visible_range(page, v)
    assert zoomed[1] - zoomed[0] == pytest.approx((end - start) / 1.5, rel=1e-3)
    assert start < zoomed[0] < zoomed[1] < end

    # Ctrl + wheel (a trackpad's pinch arrives so too) zooms around the pointer
    box = view(page, v, ".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 5)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_timeout(100)
    wheeled = visible_range(page, v)
    assert wheeled[1] - wheeled[0] < (zoomed[1] - zoomed[0]) * 0.7

    # arrow keys pan, dragging pans, 0 shows all
    view(page, v, ".attnprof-viewer-plot").focus()
    page.keyboard.press("ArrowRight")
    panned = visible_range(page, v)
    assert panned[0] > wheeled[0] and panned[1] - panned[0] == pytest.approx(wheeled[1] - wheeled[0], rel=1e-6)
    view(page, v, ".attnprof-viewer-gpu .attnprof-viewer-slice:not([hidden])").first.click()
    assert view(page, v, ".attnprof-viewer-slice.is-linked").count() == 2
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    dragged = visible_range(page, v)
    assert dragged[0] < panned[0]
    assert view(page, v, ".attnprof-viewer-slice.is-linked").count() == 2  # the end of a drag is no click
    page.keyboard.press("0")
    assert visible_range(page, v) == pytest.approx((start, end))

    # with the timeline focused, the wheel alone zooms; + and - zoom from the keyboard
    page.mouse.move(box["x"] + 10, box["y"] + 5)
    page.mouse.wheel(0, -200)
    page.wait_for_timeout(100)
    assert visible_range(page, v)[1] - visible_range(page, v)[0] < end - start
    page.keyboard.press("0")
    page.keyboard.press("+")
    assert visible_range(page, v)[1] - visible_range(page, v)[0] == pytest.approx((end - start) / 1.5, rel=1e-3)
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert visible_range(page, v) == pytest.approx((start, end))  # never wider than the whole step
    assert errors == []


def test_two_fingers_pinch_zoom(ctx, base_url, views):
    page, errors = open_page(ctx, f"{base_url}en.html")
    v = views["sdpa_flash"]
    start, end = visible_range(page, v)
    box = view(page, v, ".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + 5
    # Playwright has no multi-touch: the pointer events a touch screen sends, two fingers moving apart
    view(page, v, ".attnprof-viewer-plot").evaluate(
        """(plot, [x, y]) => {
            const send = (type, id, clientX) => plot.dispatchEvent(new PointerEvent(type, {pointerId: id,
                pointerType: "touch", isPrimary: id === 1, clientX: clientX, clientY: y, button: 0, bubbles: true}));
            send("pointerdown", 1, x - 50);
            send("pointerdown", 2, x + 50);
            send("pointermove", 1, x - 100);
            send("pointermove", 2, x + 100);
            send("pointerup", 1, x - 100);
            send("pointerup", 2, x + 100);
        }""",
        [x, y],
    )
    pinched = visible_range(page, v)
    assert pinched[1] - pinched[0] == pytest.approx((end - start) / 2, rel=1e-3)
    assert start < pinched[0] and pinched[1] < end  # around the fingers, in the middle
    assert errors == []


def test_the_wheel_alone_scrolls_the_page_until_the_timeline_has_focus(ctx, base_url, views):
    page, _ = open_page(ctx, f"{base_url}en.html")
    v = views["sdpa_cudnn"]
    before = visible_range(page, v)
    box = view(page, v, ".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    page.mouse.move(box["x"] + 50, box["y"] + 5)
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(200)
    assert visible_range(page, v) == before
    assert page.evaluate("window.scrollY") > 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_clicking_a_launch_highlights_its_kernel_and_back(ctx, base_url, views, lang):
    page, errors = open_page(ctx, f"{base_url}{lang}.html")
    for v in (views["sdpa_cudnn"], views["sdpa_math"]):
        row = main_kernel(v)
        kernel, activity = gpu_slice(page, v, 1, row.name)
        launch = launch_slice(page, v, 1, activity.correlation)
        # zoomed onto the launch so that it is wide enough to click comfortably
        view(page, v, ".attnprof-viewer-plot").focus()
        page.keyboard.press("0")
        launch.click()
        assert "is-linked" in kernel.get_attribute("class")
        assert "is-linked" in launch.get_attribute("class")
        linked = view(page, v, ".attnprof-viewer-slice.is-linked")
        assert linked.count() == 2  # the call and the one kernel it launched, nothing else
        live = view(page, v, ".attnprof-viewer-live").text_content()
        assert activity.launch_api in live and row.info.short in live and str(activity.correlation) in live
        assert view(page, v, "svg.attnprof-viewer-links-overlay line").count() == 1
        launch.hover()
        rows = tooltip(page, v)["rows"]
        assert rows[viewer.words(lang)["tip.launches"]] == row.info.short
        assert rows[viewer.words(lang)["tip.correlation"]] == str(activity.correlation)
        launch.click()  # a second click clears the highlight
        assert view(page, v, ".attnprof-viewer-slice.is-linked").count() == 0
        kernel.click()
        assert "is-linked" in launch.get_attribute("class") and "is-linked" in kernel.get_attribute("class")
    assert errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_keyboard_reaches_the_slices_with_a_focus_ring_and_a_described_tooltip(ctx, base_url, views, lang):
    page, errors = open_page(ctx, f"{base_url}{lang}.html")
    v = views["sdpa_flash"]
    plot = view(page, v, ".attnprof-viewer-plot")
    view(page, v, "select.attnprof-viewer-step").focus()
    for _ in range(6):  # the step switcher, three zoom buttons, then the timeline
        if plot.evaluate("(p) => p === document.activeElement"):
            break
        page.keyboard.press("Tab")
    assert plot.evaluate("(p) => p === document.activeElement")
    page.keyboard.press("Enter")  # into the slices
    lanes = len(viewer.payload(v.result)["steps"][1]["lanes"])
    for _ in range(lanes - 1):
        page.keyboard.press("ArrowDown")  # down to the GPU stream
    focused = page.evaluate(
        """() => {
            const el = document.activeElement, tip = document.getElementById(el.getAttribute("aria-describedby"));
            const style = getComputedStyle(el);
            return {lane: el.parentNode.parentNode.className, text: el.textContent, tipHidden: tip.hidden,
                    tipText: tip.textContent, role: tip.getAttribute("role"), outline: style.outlineStyle,
                    outlineWidth: parseFloat(style.outlineWidth), tabIndex: el.tabIndex};
        }"""
    )
    row = main_kernel(v)
    assert "attnprof-viewer-gpu" in focused["lane"] and focused["text"] == row.info.short
    assert not focused["tipHidden"] and focused["role"] == "tooltip"
    activity = v.result.steps[1].kernels[0]
    assert row.name in focused["tipText"] and f"{us(activity.duration_us)} µs" in focused["tipText"]
    assert focused["outline"] != "none" and focused["outlineWidth"] >= 2 and focused["tabIndex"] == 0
    page.keyboard.press("Enter")  # links it to its launch
    assert view(page, v, ".attnprof-viewer-launch .attnprof-viewer-slice.is-linked").count() == 1
    page.keyboard.press("Escape")
    assert plot.evaluate("(p) => p === document.activeElement")
    page.keyboard.press("Tab")  # Tab from the timeline lands on the slice last visited
    assert page.evaluate("document.activeElement.textContent") == row.info.short
    assert errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_390_px_wide_without_sideways_scrolling(browser, base_url, views, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        page, errors = open_page(context, f"{base_url}{lang}.html")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        widths = view(page, views["sdpa_math"], ".attnprof-viewer").evaluate(
            "(el) => [el.scrollWidth, el.clientWidth, el.getBoundingClientRect().right]"
        )
        assert widths[0] <= widths[1] and widths[2] <= 390
        slices = view(page, views["sdpa_math"], ".attnprof-viewer-gpu .attnprof-viewer-slice")
        for node in (slices.first, slices.last):  # at either edge, the tooltip stays on screen
            node.hover()
            box = tooltip(page, views["sdpa_math"])["box"]
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        font_sizes = page.evaluate(
            """() => [...document.querySelectorAll('.attnprof-viewer *')]
                .filter((el) => el.childElementCount === 0 && el.textContent.trim() && el.getClientRects().length)
                .map((el) => parseFloat(getComputedStyle(el).fontSize))"""
        )
        assert min(font_sizes) >= 11
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SCREENSHOTS / f"viewer-390-{lang}.png", full_page=True)
        assert errors == []
    finally:
        context.close()


def test_works_with_every_request_off_localhost_blocked(ctx, base_url, views):
    elsewhere: list[str] = []

    def only_localhost(route: Route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    ctx.route("**/*", only_localhost)
    page, errors = open_page(ctx, f"{base_url}ja.html")
    node, activity = gpu_slice(page, views["sdpa_cudnn"], 1, main_kernel(views["sdpa_cudnn"]).name)
    node.hover()
    assert tooltip(page, views["sdpa_cudnn"])["rows"][viewer.words("ja")["tip.duration"]] == (
        f"{us(activity.duration_us)} µs"
    )
    assert elsewhere == [] and errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_works_from_a_file_url_and_says_how_to_reach_perfetto_from_there(ctx, site, views, lang):
    folder, _ = site
    page, errors = open_page(ctx, (folder / f"{lang}.html").as_uri())
    v = views["sdpa_flash"]
    node, activity = gpu_slice(page, v, 1, main_kernel(v).name)
    node.hover()
    assert tooltip(page, v)["rows"][viewer.words(lang)["tip.duration"]] == f"{us(activity.duration_us)} µs"
    popups: list[Page] = []
    ctx.on("page", lambda p: popups.append(p))
    view(page, v, "button.attnprof-viewer-perfetto").click()
    assert view(page, v, ".attnprof-viewer-status").text_content() == viewer.words(lang)["perfetto.file"]
    assert popups == []  # no tab opened that could not be fed
    download = view(page, v, "a.attnprof-viewer-download")
    assert download.is_visible() and download.get_attribute("href").endswith(f"{v.result.stem}.trace.json.gz")
    assert errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_open_in_perfetto_hands_the_trace_bytes_over(ctx, base_url, views, lang):
    def stub(route: Route) -> None:
        route.fulfill(body=PERFETTO_STUB, content_type="text/html")

    ctx.route(lambda url: url.startswith(PERFETTO), stub)
    page, errors = open_page(ctx, f"{base_url}{lang}.html")
    v = views["sdpa_math"]
    with page.expect_popup() as opened:
        view(page, v, "button.attnprof-viewer-perfetto").click()
    stub = opened.value
    assert stub.url.startswith(PERFETTO)
    stub.wait_for_function("window.received !== null", timeout=15_000)
    received = stub.evaluate("window.received")
    assert bytes(received["bytes"]) == v.trace_bytes  # the .json.gz as published: Perfetto reads gzip itself
    assert received["isArrayBuffer"] and received["fromOpener"]
    assert received["fileName"] == f"{v.result.stem}.trace.json.gz"
    assert received["title"] == viewer.payload(v.result)["title"]
    assert stub.evaluate("window.pings") >= 1
    status = view(page, v, ".attnprof-viewer-status")
    status.filter(has_text=viewer.words(lang)["perfetto.sent"]).wait_for()
    assert errors == []


def test_dark_theme_changes_the_viewer_and_keeps_its_text_readable(ctx, base_url, views):
    page, errors = open_page(ctx, f"{base_url}en.html")
    v = views["sdpa_math"]
    colours_js = """(root) => {
        const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const name = root.querySelector('.attnprof-viewer-name');
        return {background: rgb(getComputedStyle(root).backgroundColor), name: rgb(getComputedStyle(name).color),
                slices: [...root.querySelectorAll('.attnprof-viewer-slice:not(.is-narrow):not([hidden])')].map(
                    (s) => [rgb(getComputedStyle(s).color), rgb(getComputedStyle(s).backgroundColor)])};
    }"""
    root = view(page, v, ".attnprof-viewer")
    light = root.evaluate(colours_js)
    page.evaluate("document.body.dataset.theme = 'dark'")
    dark = root.evaluate(colours_js)
    assert light["background"] == [255, 255, 255] and sum(dark["background"]) < 3 * 60
    for theme in (light, dark):
        assert contrast(theme["name"], theme["background"]) >= 4.5
        assert theme["slices"] and all(contrast(fg, bg) >= 4.5 for fg, bg in theme["slices"])
    node, _ = gpu_slice(page, v, 1, main_kernel(v).name)
    node.hover()
    tip = view(page, v, ".attnprof-viewer-tip").evaluate(
        "(t) => [getComputedStyle(t).color, getComputedStyle(t).backgroundColor]"
        ".map((c) => c.match(/\\d+/g).map(Number))"
    )
    assert contrast(tip[0][:3], tip[1][:3]) >= 4.5
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "viewer-1280-dark-en.png", full_page=True)
    assert errors == []


def test_without_script_the_png_and_the_download_link_stay(browser, base_url, views):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base_url}en.html")
        for v in views.values():
            assert view(page, v, ".attnprof-viewer").is_hidden()
            assert view(page, v, "button.attnprof-viewer-perfetto").is_hidden()
            assert view(page, v, "a.attnprof-viewer-download").is_visible()
        images = page.locator("figure.attnprof-timeline img")
        assert images.count() == 3
        assert all(images.nth(i).evaluate("(img) => img.naturalWidth > 0 && img.offsetHeight > 0") for i in range(3))
    finally:
        context.close()


def test_with_script_the_viewer_stands_for_the_png_on_screen(ctx, base_url):
    page, _ = open_page(ctx, f"{base_url}en.html")
    assert page.locator("figure.attnprof-viewer-replaced").count() == 3
    assert page.locator("figure.attnprof-timeline img").first.is_hidden()
    assert page.locator("figure.attnprof-timeline figcaption").first.is_visible()  # the caption still reads
    page.emulate_media(media="print")
    assert page.locator("figure.attnprof-timeline img").first.is_visible()
    assert page.locator(".attnprof-viewer").first.is_hidden()


def contrast(a: list[int], b: list[int]) -> float:
    """:func:`attnprof.viewer.contrast` of two colours given as 0-255 channels (as computed styles give them)."""
    return viewer.contrast(*("#" + "".join(f"{round(c):02x}" for c in rgb[:3]) for rgb in (a, b)))
