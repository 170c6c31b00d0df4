"""Reading a trace view in a loaded page: its data, its tooltip, its visible range, its slices, the published trace,
and the page's kernel table; and a stand-in for ui.perfetto.dev. Shared by the viewer's browser tests. No Playwright
import here: ``nox -s tests`` collects this package without it."""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnprof import variants, workloads
from attnprof.records import trace

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

PERFETTO = "https://ui.perfetto.dev"
#: Stands in for ui.perfetto.dev: answers PING with PONG and keeps what it is handed.
PERFETTO_STUB = """<!doctype html><title>Perfetto stub</title><script>
window.pings = 0; window.received = null;
window.addEventListener("message", (e) => {
  if (e.data === "PING") { window.pings++; e.source.postMessage("PONG", "*"); return; }
  const p = e.data && e.data.perfetto;
  if (p) window.received = {bytes: Array.from(new Uint8Array(p.buffer)), title: p.title, fileName: p.fileName,
                            isArrayBuffer: p.buffer instanceof ArrayBuffer, fromOpener: e.source === window.opener};
});
</script>"""

_TOOLTIP_JS = """(tip) => ({
    hidden: tip.hidden,
    short: (tip.querySelector(".attnprof-viewer-tip-short") || {}).textContent,
    full: (tip.querySelector(".attnprof-viewer-tip-full code") || {}).textContent,
    rows: Object.fromEntries([...tip.querySelectorAll("dt")].map((dt) => [dt.textContent,
                                                                      dt.nextElementSibling.textContent])),
    box: tip.getBoundingClientRect().toJSON(),
})"""

# The kernel table as the page shows it: per row, the short and full name, and each cell under its header's text.
_KERNEL_TABLE_JS = """() => [...document.querySelectorAll("table.attnprof-kernel-table")].map((table) => {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    return [...table.querySelectorAll("tbody tr")].map((tr) => {
        const cells = [...tr.children].map((td) => td.textContent.trim());
        return {short: tr.children[0].querySelector("strong").textContent,
                full: tr.children[0].querySelector(".attnprof-fullname").textContent,
                cells: Object.fromEntries(heads.slice(1).map((h, i) => [h, cells[i + 1]]))};
    });
})"""

# The trace the view's download link gives (a published file, or the bytes an embedded view carries), base64.
_TRACE_JS = """async (a) => {
    const bytes = new Uint8Array(await (await fetch(a.href)).arrayBuffer());
    let text = "";
    bytes.forEach((b) => (text += String.fromCharCode(b)));
    return btoa(text);
}"""


def us(x: float) -> str:
    """A time as the viewer writes it (the trace's precision, no trailing zeros)."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def watch(page: Page) -> list[str]:
    """Collects the page's console errors and uncaught exceptions (not Chromium's own favicon request)."""
    errors: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def open_views(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    """Open ``url`` and wait until every trace view on it has started; returns the page and its error list."""
    page = context.new_page()
    errors = watch(page)
    page.goto(url, wait_until="load")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.attnprof-trace-view')].every((v) => v.dataset.ready)"
    )
    return page, errors


def kernel_tables(page: Page) -> list[list[dict[str, Any]]]:
    """Every kernel table of the page: rows of ``{"short", "full", "cells": {header: text}}``."""
    return page.evaluate(_KERNEL_TABLE_JS)


@dataclass
class View:
    """One trace view of a loaded page."""

    page: Page
    id: str

    def locator(self, selector: str = "") -> Locator:
        return self.page.locator(f'.attnprof-trace-view[data-view="{self.id}"] {selector}'.rstrip())

    @property
    def data(self) -> dict[str, Any]:
        """The payload the page registered for this view."""
        return self.page.evaluate("(id) => window.attnprofViewerData[id]", self.id)

    @property
    def variant(self) -> str:
        return self.id.split("__")[0]

    @property
    def annotation(self) -> str:
        """The annotation each profiled step of the view ran in: its workload's (the view id names the workload)."""
        parts = self.id.split("__")
        if len(parts) > 1 and parts[1] in workloads.WORKLOADS:
            return workloads.get(parts[1]).annotation(self.variant)
        return variants.get(self.variant).annotation

    def tooltip(self) -> dict[str, Any]:
        """The tooltip: hidden or not, short name, full name, rows (label -> text), and its box."""
        return self.locator(".attnprof-viewer-tip").evaluate(_TOOLTIP_JS)

    def visible_range(self) -> tuple[float, float]:
        root = self.locator(".attnprof-viewer")
        return float(root.get_attribute("data-visible-start")), float(root.get_attribute("data-visible-end"))

    def ctrl_wheel(self, x: float, y: float, delta: float = -300) -> None:
        """Ctrl + wheel at ``(x, y)`` of the page (how a trackpad's pinch arrives too); negative zooms in."""
        self.page.mouse.move(x, y)
        self.page.keyboard.down("Control")
        self.page.mouse.wheel(0, delta)
        self.page.keyboard.up("Control")
        self.page.wait_for_timeout(100)

    def shown_step(self) -> int:
        return int(self.locator("select.attnprof-viewer-step").input_value())

    def show_step(self, step: int) -> None:
        self.locator("select.attnprof-viewer-step").select_option(str(step))

    def slice(self, lane: int, index: int) -> Locator:
        """The slice ``index`` of lane ``lane`` (indexes into the payload's step) of the step shown."""
        lanes = self.locator(".attnprof-viewer-plot > .attnprof-viewer-lane:not(.attnprof-viewer-axis)")
        return lanes.nth(lane).locator(".attnprof-viewer-slice").nth(index)

    def widest_slice(self, lane: str = "") -> Locator:
        """The widest slice on screen (narrow ones may sit under their neighbours), of lanes of kind ``lane``."""
        slices = self.locator(f"{'.attnprof-viewer-' + lane if lane else ''} .attnprof-viewer-slice".strip())
        widths = slices.evaluate_all("(ss) => ss.map((s) => (s.hidden ? 0 : s.getBoundingClientRect().width))")
        return slices.nth(widths.index(max(widths)))

    def find(self, step: int, kind: str, match: Any) -> list[tuple[int, int, list[Any]]]:
        """``(lane, index, slice)`` of the slices of lane ``kind`` in payload step ``step`` for which
        ``match(slice, data)`` holds."""
        data = self.data
        lanes = data["steps"][step]["lanes"]
        return [
            (i, j, s)
            for i, lane in enumerate(lanes)
            if lane["kind"] == kind
            for j, s in enumerate(lane["slices"])
            if match(s, data)
        ]

    def published_trace(self) -> bytes | None:
        """The bytes of the trace the download link gives; ``None`` for a view without one (an embedded view whose
        trace was too large to carry), which then offers neither the link nor "Open in Perfetto"."""
        link = self.locator("a.attnprof-viewer-download")
        if link.get_attribute("href") is None:
            assert link.is_hidden() and self.locator("button.attnprof-viewer-perfetto").is_hidden()
            assert "trace" not in self.data
            return None
        return base64.b64decode(link.evaluate(_TRACE_JS))

    def parsed_steps(self) -> tuple[list[Any], dict[str, Any]] | None:
        """The published trace read by :mod:`attnprof.records.trace`: its steps and device properties (``None``: no
        trace)."""
        published = self.published_trace()
        if published is None:
            return None
        parsed = json.loads(gzip.decompress(published))
        return trace.parse_trace(parsed, self.annotation), trace.device_properties(parsed)

    def durations(self, step: int, kind: str, match: Any) -> list[float]:
        """The durations the payload gives the slices of :meth:`find` (the truth of a view without a trace)."""
        return [s[1] for _, _, s in self.find(step, kind, match)]


def views(page: Page) -> list[View]:
    """The trace views of a loaded page."""
    return [
        View(page, v) for v in page.eval_on_selector_all(".attnprof-trace-view", "vs => vs.map(v => v.dataset.view)")
    ]


def kernel_named(name: str):
    """A :meth:`View.find` matcher: GPU slices of the kernel called ``name``."""
    return lambda s, data: data["strings"][data["kernels"][s[2]]["n"]] == name


def op_at(start_us: float, name: str):
    """A :meth:`View.find` matcher: the CPU op ``name`` that starts at ``start_us``."""
    return lambda s, data: s[0] == start_us and data["strings"][s[2]] == name


def correlated(correlation: int, kind: str):
    """A :meth:`View.find` matcher: launch (``kind="launch"``) or GPU slices with ``correlation``."""
    at = 4 if kind == "launch" else 3
    return lambda s, data: s[at] == correlation


def stub_perfetto(context: BrowserContext) -> None:
    """Route ui.perfetto.dev to :data:`PERFETTO_STUB` in ``context``."""
    context.route(
        lambda url: url.startswith(PERFETTO), lambda r: r.fulfill(body=PERFETTO_STUB, content_type="text/html")
    )
