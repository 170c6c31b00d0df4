"""The trace viewer on every page of the built site that shows one (variant pages, guide pages, gallery pages), in
English and Japanese, and on the variant pages of a site built from the H200 fixtures (``h200:...``), so that the
GPU side of every check runs on a machine without a GPU too.

Each check reads its truth from the page itself: the kernel table on the page, and the trace the view publishes
(its download link). A view of a run without GPU activity (a CPU build) must say so and still work on its CPU lanes;
a view with GPU activity must show, on hovering its main kernel, the kernel table's row and the trace's durations.
"""

from __future__ import annotations

import re
import statistics
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from attnprof import words
from attnprof.analysis import summary
from attnprof.render import viewer
from attnprof.words import fmt

from .conftest import H200, NO_SITE
from .pages import SCREENSHOTS
from .viewers import (
    PERFETTO,
    View,
    correlated,
    kernel_named,
    kernel_tables,
    op_at,
    open_views,
    stub_perfetto,
    us,
    views,
)

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Route

pytestmark = pytest.mark.browser


@pytest.fixture
def page_url(viewer_page: str, request: pytest.FixtureRequest) -> str:
    """The URL of ``viewer_page``, on the built site or on the H200 fixture site."""
    if viewer_page == NO_SITE:
        site = request.getfixturevalue("site")  # fails, saying how to build the site, when there is none
        pytest.fail(f"no page of the built site at {site} shows a trace view: is it built with this extension?")
    if viewer_page.startswith(H200):
        return request.getfixturevalue("h200_url") + viewer_page.removeprefix(H200)
    return request.getfixturevalue("base_url") + viewer_page


@pytest.fixture
def lang(viewer_page: str) -> str:
    """The language of the view's words: the page's (each language's gallery runs its own scripts, and the view a
    script embeds speaks the script's language); the H200 fixture site's gallery page recorded its output once, in
    English."""
    if viewer_page.startswith(H200) and "/auto_examples/" in viewer_page:
        return words.LANGUAGES[0]
    return viewer_page.removeprefix(H200).split("/")[0]


def opened(context: BrowserContext, url: str) -> tuple[Page, list[str], list[View]]:
    page, errors = open_views(context, url)
    found = views(page)
    assert found, f"no trace view on {url}"
    return page, errors, found


def same(text: str | None) -> str | None:
    """A cell's words, whatever their layout: parentheses and line breaks as spaces."""
    return None if text is None else " ".join(re.sub(r"[()（）]", " ", text).split())


def main_row(view: View, page: Page) -> tuple[dict[str, Any] | None, str]:
    """The kernel table's row of the view's main kernel (``None`` without a table on the page), and its full name.

    The main kernel is the row with the largest launches-per-step x average time, read from the table; a page
    without a kernel table (a gallery page) takes it from the published trace, as the site's analysis would."""
    data = view.data
    in_view = {data["strings"][k["n"]] for k in data["kernels"]}
    # the page's kernel table of this view's result: one whose kernels are all in the view (a page may show tables
    # of other results, another workload or cache length, beside it)
    # the page's kernel table when it is the table of this view's result: a page with one table and one view (a
    # variant page); a page with several (a decoding page shows one cache length's table beside another's view)
    # reads the main kernel from the trace instead
    tables = [table for table in kernel_tables(page) if table and {r["full"] for r in table} <= in_view]
    if len(tables) == 1 and len(kernel_tables(page)) == 1 and page.locator(".attnprof-trace-view").count() == 1:
        w = data["words"]
        heads = w["col.per_step"], w["col.avg_us"]
        row = max(tables[0], key=lambda r: float(r["cells"][heads[0]]) * float(r["cells"][heads[1]]))
        return row, row["full"]
    parsed = view.parsed_steps()
    if parsed is None:  # neither a table nor a trace: the kernel of the longest slice
        data = view.data
        longest = max((s for st in data["steps"] for lane in st["lanes"] if lane["kind"] == "gpu"
                       for s in lane["slices"]), key=lambda s: s[1])  # fmt: skip
        return None, data["strings"][data["kernels"][longest[2]]["n"]]
    rows = summary.kernel_rows(*parsed)
    return None, max(rows, key=lambda r: r.total_us if r.kind == "kernel" else -1).name


def hover(view: View, lane: int, index: int) -> dict[str, Any]:
    view.slice(lane, index).hover()
    tip = view.tooltip()
    assert not tip["hidden"]
    return tip


# --- hovering -----------------------------------------------------------------------------------------------------


def test_hovering_the_main_kernel_shows_the_kernel_tables_row_and_the_traces_durations(ctx, page_url, lang):
    page, errors, found = opened(ctx, page_url)
    w = viewer.viewer_words(lang)
    for view in found:
        data = view.data
        parsed = view.parsed_steps()
        steps = parsed[0] if parsed else None  # the truth: the published trace, else (no trace) the view's data
        assert steps is None or len(data["steps"]) == len(steps)
        if "note" in data:  # no GPU activity: the view says so and its CPU lanes work
            assert view.locator(".attnprof-viewer-note").text_content() == data["note"]
            assert data["note"] == words.text("viewer.no_gpu", lang, variant=view.variant, device="CPU")
            assert steps is None or not any(st.activities for st in steps)
            assert set(view.locator(".attnprof-viewer-lane").evaluate_all("ls => ls.map(l => l.className)")) == {
                "attnprof-viewer-lane attnprof-viewer-axis", "attnprof-viewer-lane attnprof-viewer-cpu"
            }  # fmt: skip
            step = view.shown_step()
            if steps is None:
                lane, index, s = max(view.find(step, "cpu", lambda s, d: True), key=lambda hit: hit[2][1])
                name, duration = data["strings"][s[2]], s[1]
            else:
                op = max(steps[step].cpu_ops, key=lambda o: o.duration_us)
                lane, index, _ = view.find(step, "cpu", op_at(op.start_us, op.name))[0]
                name, duration = op.name, op.duration_us
            tip = hover(view, lane, index)
            assert tip["short"] == name.removeprefix("aten::")
            assert tip["rows"][w["tip.duration"]] == f"{us(duration)} µs"
            continue
        row, name = main_row(view, page)
        durations, cells = [], []
        for step in range(len(data["steps"])):
            view.show_step(step)
            hits = view.find(step, "gpu", kernel_named(name))
            expected = (
                view.durations(step, "gpu", kernel_named(name))
                if steps is None
                else [a.duration_us for a in steps[step].activities if a.name == name]
            )
            assert len(hits) == len(expected) > 0
            for lane, index, _ in hits:
                tip = hover(view, lane, index)
                assert tip["full"] == name or tip["short"] == name
                durations.append(float(tip["rows"][w["tip.duration"]].removesuffix(" µs")))
                cells.append(tip["rows"])
            assert durations[-len(expected) :] == pytest.approx(expected, abs=5e-4)  # the trace's, to the ns
        if row is not None:
            table = row["cells"]
            assert all(c[w["col.avg_us"]] == table[w["col.avg_us"]] for c in cells)
            assert fmt.number(round(statistics.mean(durations), 3)) == table[w["col.avg_us"]]
            assert len(durations) == pytest.approx(float(table[w["col.per_step"]]) * len(data["steps"]))
            assert tip["short"] == row["short"]
            shown = {k: same(v) for k, v in table.items() if v != words.text("not_available", lang)}
            # the launches of the row's own configuration say all the table says (others show their own grid); a
            # table cell may stack a figure's limit under it where the tip writes it in parentheses
            assert any({k: same(c.get(k)) for k in shown} == shown for c in cells), {
                k: (v, same(cells[0].get(k))) for k, v in shown.items() if same(cells[0].get(k)) != v
            }
    assert errors == []


# --- zoom, links --------------------------------------------------------------------------------------------------


def test_zoom_narrows_the_visible_range(ctx, page_url, lang):
    _, errors, found = opened(ctx, page_url)
    view = found[0]
    start, end = view.visible_range()
    w = viewer.viewer_words(lang)
    view.locator(f'button[aria-label="{w["viewer.zoom_in"]}"]').click()
    zoomed = view.visible_range()
    assert start < zoomed[0] < zoomed[1] < end
    assert zoomed[1] - zoomed[0] == pytest.approx((end - start) / 1.5, rel=1e-3)
    plot = view.locator(".attnprof-viewer-plot")
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    view.ctrl_wheel(box["x"] + box["width"] * 0.7, box["y"] + 30)  # over the first lane's track
    wheeled = view.visible_range()
    assert wheeled[1] - wheeled[0] < (zoomed[1] - zoomed[0]) * 0.7
    assert view.locator(".attnprof-viewer-range").text_content() == w["viewer.visible"].format(
        start=us(max(wheeled[0], 0)), end=us(min(wheeled[1], view.data["steps"][view.shown_step()]["span"]))
    )
    assert errors == []


def test_clicking_a_launch_highlights_its_kernel(ctx, page_url, lang):
    page, errors, found = opened(ctx, page_url)
    for view in found:
        data = view.data
        step = view.shown_step()
        if "note" in data:  # a CPU run: nothing was launched, and the view has no launch lane to click
            assert view.locator(".attnprof-viewer-launch").count() == 0
            assert view.locator(".attnprof-viewer-note").is_visible()
            continue
        _, name = main_row(view, page)
        lane, index, kernel = view.find(step, "gpu", kernel_named(name))[0]
        correlation = kernel[3]
        (launch_lane, launch_index, call), *_ = view.find(step, "launch", correlated(correlation, "launch"))
        view.slice(launch_lane, launch_index).click()
        linked = view.locator(".attnprof-viewer-slice.is-linked")
        assert "is-linked" in view.slice(lane, index).get_attribute("class")
        assert linked.count() == 1 + len(view.find(step, "gpu", correlated(correlation, "gpu")))
        live = view.locator(".attnprof-viewer-live").text_content()
        assert data["strings"][call[2]] in live and str(correlation) in live
        assert view.locator("svg.attnprof-viewer-links-overlay line").count() >= 1
        view.slice(lane, index).click()  # and back: the kernel highlights its launch
        assert "is-linked" in view.slice(launch_lane, launch_index).get_attribute("class")
    assert errors == []


# --- narrow screens, closed networks, Perfetto --------------------------------------------------------------------


def test_390_px_wide_without_sideways_scrolling(phone, page_url):
    page, errors, found = opened(phone, page_url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for view in found:
        right = view.locator(".attnprof-viewer").evaluate("(el) => el.getBoundingClientRect().right")
        assert right <= 390
        view.widest_slice().hover()
        box = view.tooltip()["box"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []


def test_works_with_the_network_blocked(ctx, page_url, lang):
    host = urlsplit(page_url).hostname
    elsewhere: list[str] = []

    def only_the_site(route: Route) -> None:
        if urlsplit(route.request.url).hostname == host:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    ctx.route("**/*", only_the_site)
    _, errors, found = opened(ctx, page_url)
    view = found[0]
    view.widest_slice().hover()
    assert view.tooltip()["rows"][viewer.viewer_words(lang)["tip.duration"]].endswith(" µs")
    assert elsewhere == [] and errors == []


def test_open_in_perfetto_hands_over_the_published_trace(ctx, page_url, lang):
    stub_perfetto(ctx)
    page, errors, found = opened(ctx, page_url)
    view = found[0]
    published = view.published_trace()
    if published is None:  # a view without its trace offers no button (published_trace checked it)
        return
    with page.expect_popup() as opened_tab:
        view.locator("button.attnprof-viewer-perfetto").click()
    stub = opened_tab.value
    assert stub.url.startswith(PERFETTO)
    stub.wait_for_function("window.received !== null")
    received = stub.evaluate("window.received")
    assert bytes(received["bytes"]) == published and len(published) > 100
    assert received["isArrayBuffer"] and received["fromOpener"] and stub.evaluate("window.pings") >= 1
    assert received["title"] == view.data["title"]
    assert received["fileName"] == view.locator("a.attnprof-viewer-download").get_attribute("download")
    view.locator(".attnprof-viewer-status").filter(has_text=viewer.viewer_words(lang)["perfetto.sent"]).wait_for()
    assert errors == []


# --- screenshots --------------------------------------------------------------------------------------------------

#: The page each site is photographed on: the built site's naive page, the H200 site's sdpa_math page.
SHOT_PAGES = {"site": "variants/naive.html", "h200": "variants/sdpa-math.html"}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("where", list(SHOT_PAGES))
def test_screenshot_of_a_variant_page(browser, request, where, lang, width, theme):
    """``_build/screenshots/viewer-<site>-<lang>-<width>-<theme>.png``: the view with the tooltip of the widest GPU
    slice (a CPU build: the widest slice) open, in furo's light or dark theme."""
    base = request.getfixturevalue("base_url" if where == "site" else "h200_url")
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=theme)
    try:
        page, errors, found = opened(context, f"{base}{lang}/{SHOT_PAGES[where]}")
        page.evaluate(f"document.body.dataset.theme = '{theme}'")
        view = found[0]
        gpu = view.locator(".attnprof-viewer-gpu .attnprof-viewer-slice").count()
        view.locator(".attnprof-viewer").scroll_into_view_if_needed()
        view.widest_slice("gpu" if gpu else "").hover()
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (theme == "light"), background
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SCREENSHOTS / f"viewer-{where}-{lang}-{width}-{theme}.png")
        assert errors == []
    finally:
        context.close()
