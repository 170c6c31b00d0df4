"""The trace viewer's interactions in Chromium, English and Japanese, on the site built from the H200 fixtures
(:mod:`.viewer_site`, the real extension and theme): zoom and pan by buttons, wheel, keys, drag and pinch; launches
and kernels highlighting each other; the keyboard; small type at 390 px; the dark theme; pages opened from
``file://``; the PNG without script and in print; and the view a gallery script embeds, on a site page and in a
notebook. What every page of every build must do is in :mod:`.test_viewer_site`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

import pytest

from attnprof.analysis import summary
from attnprof.render import pictures, viewer
from helpers import TRACES

from .pages import LANGUAGES, SCREENSHOTS
from .viewer_site import EMBEDDED, ViewOnPage
from .viewer_site import VARIANTS as H200_VARIANTS
from .viewers import View, correlated, kernel_named, open_views, stub_perfetto, us, views

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser


@pytest.fixture
def site_views(h200_site: tuple[Path, dict[str, ViewOnPage]]) -> dict[str, ViewOnPage]:
    return h200_site[1]


def open_variant(context: BrowserContext, base: str, v: ViewOnPage, lang: str) -> tuple[Page, list[str], View]:
    page, errors = open_views(context, v.url(base, lang))
    return page, errors, View(page, v.view_id)


def main_slice(view: View, v: ViewOnPage, step: int):
    """The slice of the main kernel's first launch in ``step``, and that activity."""
    name = summary.analyse(v.result).main_kernel().name
    lane, index, s = view.find(step, "gpu", kernel_named(name))[0]
    activity = next(a for a in v.result.steps[step].activities if a.correlation == s[3])
    return view.slice(lane, index), activity


def launch_of(view: View, step: int, correlation: int):
    (lane, index, _), *_ = view.find(step, "launch", correlated(correlation, "launch"))
    return view.slice(lane, index)


# --- the tooltip --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", H200_VARIANTS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_tooltip_has_the_launchs_own_start_correlation_and_launch_api(ctx, h200_url, site_views, lang, variant):
    w = viewer.viewer_words(lang)
    v = site_views[variant]
    _, errors, view = open_variant(ctx, h200_url, v, lang)
    for step in (1, 0):  # the step shown first, then another one picked in the switcher
        if step != 1:
            view.show_step(step)
        node, activity = main_slice(view, v, step)
        node.hover()
        tip = view.tooltip()
        assert tip["rows"][w["tip.start"]] == f"{us(activity.start_us)} µs"
        assert tip["rows"][w["tip.correlation"]] == str(activity.correlation)
        assert tip["rows"][w["col.launch_api"]] == activity.launch_api
        assert tip["rows"][w["tip.launched_by"]] == activity.launch_api
        assert 0 <= tip["box"]["x"] and tip["box"]["x"] + tip["box"]["width"] <= 1280
    assert errors == []


# --- zoom and pan -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_zoom_and_pan_by_buttons_wheel_keys_and_drag(ctx, h200_url, site_views, lang):
    v = site_views["sdpa_math"]
    page, errors, view = open_variant(ctx, h200_url, v, lang)
    start, end = view.visible_range()
    assert start < 0 < end and end >= v.result.steps[1].cpu_time_us
    w = viewer.viewer_words(lang)
    view.locator(f'button[aria-label="{w["viewer.zoom_in"]}"]').click()
    zoomed = view.visible_range()
    assert zoomed[1] - zoomed[0] == pytest.approx((end - start) / 1.5, rel=1e-3)

    # Ctrl + wheel (a trackpad's pinch arrives so too) zooms around the pointer
    box = view.locator(".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    view.ctrl_wheel(box["x"] + box["width"] / 2, box["y"] + 5)
    wheeled = view.visible_range()
    assert wheeled[1] - wheeled[0] < (zoomed[1] - zoomed[0]) * 0.7

    # arrow keys pan, dragging pans (and is no click), 0 shows all
    view.locator(".attnprof-viewer-plot").focus()
    page.keyboard.press("ArrowRight")
    panned = view.visible_range()
    assert panned[0] > wheeled[0] and panned[1] - panned[0] == pytest.approx(wheeled[1] - wheeled[0], rel=1e-6)
    view.locator(".attnprof-viewer-gpu .attnprof-viewer-slice:not([hidden])").first.click()
    assert view.locator(".attnprof-viewer-slice.is-linked").count() == 2
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert view.visible_range()[0] < panned[0]
    assert view.locator(".attnprof-viewer-slice.is-linked").count() == 2
    page.keyboard.press("0")
    assert view.visible_range() == pytest.approx((start, end))

    # with the timeline focused, the wheel alone zooms; + and - zoom from the keyboard
    page.mouse.move(box["x"] + 10, box["y"] + 5)
    page.mouse.wheel(0, -200)
    page.wait_for_timeout(100)
    assert view.visible_range()[1] - view.visible_range()[0] < end - start
    page.keyboard.press("0")
    page.keyboard.press("+")
    assert view.visible_range()[1] - view.visible_range()[0] == pytest.approx((end - start) / 1.5, rel=1e-3)
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert view.visible_range() == pytest.approx((start, end))  # never wider than the whole step
    assert errors == []


def test_two_fingers_pinch_zoom(ctx, h200_url, site_views):
    _, errors, view = open_variant(ctx, h200_url, site_views["sdpa_flash"], "en")
    start, end = view.visible_range()
    box = view.locator(".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + 5
    # Playwright has no multi-touch: the pointer events a touch screen sends, two fingers moving apart
    view.locator(".attnprof-viewer-plot").evaluate(
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
    pinched = view.visible_range()
    assert pinched[1] - pinched[0] == pytest.approx((end - start) / 2, rel=1e-3)
    assert start < pinched[0] and pinched[1] < end  # around the fingers, in the middle
    assert errors == []


def test_the_wheel_alone_scrolls_the_page_until_the_timeline_has_focus(ctx, h200_url, site_views):
    page, _, view = open_variant(ctx, h200_url, site_views["sdpa_cudnn"], "en")
    before = view.visible_range()
    scrolled = page.evaluate("window.scrollY")
    box = view.locator(".attnprof-viewer-gpu .attnprof-viewer-track").bounding_box()
    page.mouse.move(box["x"] + 50, box["y"] + 5)
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(200)
    assert view.visible_range() == before
    assert page.evaluate("window.scrollY") > scrolled


# --- links and keyboard -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["sdpa_cudnn", "sdpa_math"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_launch_and_its_kernel_highlight_each_other(ctx, h200_url, site_views, lang, variant):
    v = site_views[variant]
    _, errors, view = open_variant(ctx, h200_url, v, lang)
    kernel, activity = main_slice(view, v, 1)
    launch = launch_of(view, 1, activity.correlation)
    launch.click()
    assert "is-linked" in kernel.get_attribute("class") and "is-linked" in launch.get_attribute("class")
    assert view.locator(".attnprof-viewer-slice.is-linked").count() == 2  # nothing else
    short = summary.analyse(v.result).main_kernel().info.text(lang)  # the label in the page's language
    live = view.locator(".attnprof-viewer-live").text_content()
    assert activity.launch_api in live and short in live and str(activity.correlation) in live
    launch.hover()
    assert view.tooltip()["rows"][viewer.viewer_words(lang)["tip.launches"]] == short
    launch.click()  # a second click clears the highlight
    assert view.locator(".attnprof-viewer-slice.is-linked").count() == 0
    kernel.click()
    assert "is-linked" in launch.get_attribute("class") and "is-linked" in kernel.get_attribute("class")
    assert errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_keyboard_reaches_the_slices_with_a_focus_ring_and_a_described_tooltip(ctx, h200_url, site_views, lang):
    v = site_views["sdpa_flash"]
    page, errors, view = open_variant(ctx, h200_url, v, lang)
    plot = view.locator(".attnprof-viewer-plot")
    view.locator("select.attnprof-viewer-step").focus()
    for _ in range(6):  # the step switcher, three zoom buttons, then the timeline
        if plot.evaluate("(p) => p === document.activeElement"):
            break
        page.keyboard.press("Tab")
    assert plot.evaluate("(p) => p === document.activeElement")
    page.keyboard.press("Enter")  # into the slices
    for _ in range(len(view.data["steps"][1]["lanes"]) - 1):
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
    row = summary.analyse(v.result).main_kernel()
    assert "attnprof-viewer-gpu" in focused["lane"] and focused["text"] == row.info.text(lang)
    assert not focused["tipHidden"] and focused["role"] == "tooltip"
    activity = v.result.steps[1].kernels[0]
    assert row.name in focused["tipText"] and f"{us(activity.duration_us)} µs" in focused["tipText"]
    assert focused["outline"] != "none" and focused["outlineWidth"] >= 2 and focused["tabIndex"] == 0
    page.keyboard.press("Enter")  # links it to its launch
    assert view.locator(".attnprof-viewer-launch .attnprof-viewer-slice.is-linked").count() == 1
    page.keyboard.press("Escape")
    assert plot.evaluate("(p) => p === document.activeElement")
    page.keyboard.press("Tab")  # Tab from the timeline lands on the slice last visited
    assert page.evaluate("document.activeElement.textContent") == row.info.text(lang)
    assert errors == []


# --- small screens, themes, no script, print ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_390_px_keeps_the_type_readable_and_the_tooltip_on_screen(phone, h200_url, site_views, lang):
    page, errors, view = open_variant(phone, h200_url, site_views["sdpa_math"], lang)
    slices = view.locator(".attnprof-viewer-gpu .attnprof-viewer-slice")
    for node in (slices.first, slices.last):  # at either edge
        node.hover()
        box = view.tooltip()["box"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    font_sizes = page.evaluate(
        """() => [...document.querySelectorAll('.attnprof-viewer *')]
            .filter((el) => el.childElementCount === 0 && el.textContent.trim() && el.getClientRects().length)
            .map((el) => parseFloat(getComputedStyle(el).fontSize))"""
    )
    assert min(font_sizes) >= 11
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []


def contrast(a: list[float], b: list[float]) -> float:
    """:func:`attnprof.render.pictures.contrast` of two colours given as 0-255 channels (as computed styles give
    them)."""
    return pictures.contrast(*("#" + "".join(f"{round(c):02x}" for c in rgb[:3]) for rgb in (a, b)))


def test_furos_dark_theme_changes_the_viewer_and_keeps_its_text_readable(ctx, h200_url, site_views):
    page, errors, view = open_variant(ctx, h200_url, site_views["sdpa_math"], "en")
    colours_js = """(root) => {
        const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const name = root.querySelector('.attnprof-viewer-name');
        return {background: rgb(getComputedStyle(root).backgroundColor), name: rgb(getComputedStyle(name).color),
                slices: [...root.querySelectorAll('.attnprof-viewer-slice:not(.is-narrow):not([hidden])')].map(
                    (s) => [rgb(getComputedStyle(s).color), rgb(getComputedStyle(s).backgroundColor)])};
    }"""
    root = view.locator(".attnprof-viewer")
    light = root.evaluate(colours_js)
    page.evaluate("document.body.dataset.theme = 'dark'")
    dark = root.evaluate(colours_js)
    assert light["background"] == [255, 255, 255] and sum(dark["background"]) < 3 * 60
    for theme in (light, dark):
        assert contrast(theme["name"], theme["background"]) >= 4.5
        assert theme["slices"] and all(contrast(fg, bg) >= 4.5 for fg, bg in theme["slices"])
    main_slice(view, site_views["sdpa_math"], 1)[0].hover()
    tip = view.locator(".attnprof-viewer-tip").evaluate(
        "(t) => [getComputedStyle(t).color, getComputedStyle(t).backgroundColor]"
        ".map((c) => c.match(/\\d+/g).map(Number))"
    )
    assert contrast(tip[0][:3], tip[1][:3]) >= 4.5
    assert errors == []


def test_without_script_the_png_and_the_download_link_stay(browser, h200_url, site_views):
    context = browser.new_context(java_script_enabled=False)
    try:
        for v in site_views.values():
            page = context.new_page()
            page.goto(v.url(h200_url, "en"))
            view = View(page, v.view_id)
            assert view.locator(".attnprof-viewer").is_hidden()
            assert view.locator("button.attnprof-viewer-perfetto").is_hidden()
            assert view.locator("a.attnprof-viewer-download").is_visible()
            image = page.locator("figure.attnprof-timeline img")
            assert image.evaluate("(img) => img.naturalWidth > 0 && img.offsetHeight > 0")
    finally:
        context.close()


def test_with_script_the_viewer_stands_for_the_png_on_screen_and_not_in_print(ctx, h200_url, site_views):
    page, _, _ = open_variant(ctx, h200_url, site_views["sdpa_cudnn"], "en")
    assert page.locator("figure.attnprof-viewer-replaced").count() == 1
    assert page.locator("figure.attnprof-timeline img").is_hidden()
    assert page.locator("figure.attnprof-timeline figcaption").is_visible()  # the caption still reads
    page.emulate_media(media="print")
    assert page.locator("figure.attnprof-timeline img").is_visible()
    assert page.locator(".attnprof-viewer").is_hidden()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_from_a_file_url_it_works_and_says_how_to_reach_perfetto(ctx, h200_site, site_views, lang):
    v = site_views["sdpa_flash"]
    page, errors = open_views(ctx, (h200_site[0] / "html" / lang / v.page).as_uri())
    view = View(page, v.view_id)
    node, activity = main_slice(view, v, 1)
    node.hover()
    assert view.tooltip()["rows"][viewer.viewer_words(lang)["tip.duration"]] == f"{us(activity.duration_us)} µs"
    popups: list[Page] = []
    ctx.on("page", lambda p: popups.append(p))
    view.locator("button.attnprof-viewer-perfetto").click()
    assert view.locator(".attnprof-viewer-status").text_content() == viewer.viewer_words(lang)["perfetto.file"]
    assert popups == []  # no tab opened that could not be fed
    href = view.locator("a.attnprof-viewer-download").evaluate("(a) => a.href")
    assert Path(unquote(urlsplit(href).path)).read_bytes() == v.trace_bytes  # the download link still gives it
    assert errors == []


# --- the view a gallery script embeds -----------------------------------------------------------------------------


def test_an_embedded_view_works_and_hands_its_inline_trace_to_perfetto(ctx, h200_url, site_views):
    stub_perfetto(ctx)
    page, errors = open_views(ctx, f"{h200_url}en/gallery.html")
    (view,) = views(page)
    assert view.id == site_views[EMBEDDED].view_id
    assert page.locator(".attnprof-viewer-noscript").count() == 0  # the site's script took over
    gz = (TRACES / f"{EMBEDDED}.json.gz").read_bytes()
    assert view.published_trace() == gz  # the download link serves the inline bytes
    with page.expect_popup() as opened_tab:
        view.locator("button.attnprof-viewer-perfetto").click()
    stub = opened_tab.value
    stub.wait_for_function("window.received !== null")
    assert bytes(stub.evaluate("window.received.bytes")) == gz
    assert errors == []


def test_an_embedded_view_without_the_sites_script_says_so(ctx, h200_url):
    page = ctx.new_page()
    page.goto(h200_url.removesuffix("html/") + "notebook.html")
    message = page.locator(".attnprof-viewer-noscript")
    assert message.is_visible() and message.text_content() == viewer.viewer_words("en")["viewer.no_script"]
    assert page.locator(".attnprof-viewer").is_hidden() and page.locator("button").first.is_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "viewer-notebook.png")
