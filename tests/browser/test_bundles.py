"""The figures of other machines in the built site, as a reader sees them in both languages: the cross-GPU page
shows every bundle the build was given (``$ATTNPROF_BUNDLES_DIR``, else docs/bundles) and the article's A100, each
row with its machine, date and source; and the context-parallel page of a build that could not run it shows the
recorded 2xH200 run, labelled, above each of its tables."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from attnprof import words
from attnprof.analysis import crossgpu
from attnprof.records import bundle, files, published

from .pages import LANGUAGES

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parent.parent.parent
_TABLES_JS = """() => [...document.querySelectorAll("table.attnprof-xgpu")].map((t) =>
    [...t.querySelectorAll("tbody tr")].map((tr) =>
        [...tr.querySelectorAll("td")].map((td) => td.innerText.trim())))"""
_ROWS_JS = """() => [...document.querySelectorAll("table.attnprof-xgpu tbody tr")].map(
    (tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim()))"""


def _given_machines() -> dict[str, str]:
    """Machine -> date of every readable bundle with per-variant results in the folder the build read."""
    folder = Path(os.environ.get("ATTNPROF_BUNDLES_DIR") or ROOT / "docs" / "bundles")
    out = {}
    for path in bundle.find(folder):
        try:
            m = crossgpu.from_bundle(bundle.read(path))
        except files.UnreadableFile:
            continue
        if m.entries:
            out[m.name] = m.date
    return out


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_cross_gpu_page_shows_every_machine_labelled(lang: str, tab: Page, base_url: str) -> None:
    tab.goto(f"{base_url}{lang}/guide/cross-gpu.html", wait_until="load")
    assert tab.evaluate("document.documentElement.lang") == lang
    rows = tab.evaluate(_ROWS_JS)
    assert rows, "no cross-GPU table on the page"
    for row in rows:
        assert row[1] and re.fullmatch(r"\d{4}-\d{2}-\d{2}", row[2]) and row[3], f"a row without its label: {row}"
    seen = {(r[1], r[2]) for r in rows}
    a100 = published.ARTICLE
    assert (a100.machine, a100.date) in seen
    assert {r[3] for r in rows if r[1] == a100.machine} == {words.text("xgpu.source.published", lang)}
    page = tab.locator("article").inner_text()
    for machine, date in _given_machines().items():
        # a bundle of the GPU model the site was built on is left out, and the page says so (an H200 build)
        said = words.text("xgpu.same_gpu", lang, bundles="\0", gpu=machine).split("\0")[1]
        if " ".join(said.split()) in " ".join(page.split()):
            assert (machine, date) not in seen
            continue
        assert (machine, date) in seen, f"bundle of {machine} ({date}) not shown"
    sources = tab.locator("ul.attnprof-xgpu-sources li").all_inner_texts()
    assert all(machine in " ".join(sources) for machine, _ in seen)
    # every machine of a table has its fastest: one, or several tied (too close to call)
    fastest, tied = words.text("xgpu.fastest", lang), words.text("xgpu.tied", lang)
    for cells in tab.evaluate(_TABLES_JS):
        for machine in {c[1] for c in cells}:
            marks = [c[-1] for c in cells if c[1] == machine and c[-1]]
            assert marks and marks in ([fastest], [tied] * len(marks)), (machine, marks)
        shares = [c[6] for c in cells if c[3] != words.text("xgpu.source.published", lang)]
        assert all(re.fullmatch(r"[\d.]+\s%", s) and 0 < float(s.split()[0]) < 150 for s in shares), shares


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_cp_page_shows_the_recorded_run_when_this_build_could_not_run_it(
    lang: str, tab: Page, base_url: str
) -> None:
    tab.goto(f"{base_url}{lang}/guide/parallel.html", wait_until="load")
    not_run = tab.locator(".attnprof-parallel-status.attnprof-not-run").count()
    tables = tab.locator("table.attnprof-parallel-table").count()
    if not not_run:  # a build with two GPUs: live, as before, with no recorded label
        assert tables == 1 and tab.locator(".attnprof-recorded-label").count() == 0
        return
    box = tab.locator(".attnprof-recorded").first.inner_text()
    assert words.text("par.recorded.title", lang) in box and "2× NVIDIA H200" in box and "2026-12-01" in box
    assert tables == 1
    labels = tab.locator("p.attnprof-recorded-label").all_inner_texts()
    assert len(labels) >= 6 and all("2× NVIDIA H200" in t and "2026-12-01" in t for t in labels)
    # the label opens the box of what was recorded elsewhere, and the table is in that box
    first = tab.evaluate(
        """() => document.querySelector("table.attnprof-parallel-table").closest(".attnprof-elsewhere")
            ?.firstElementChild?.className ?? "" """
    )
    assert "attnprof-recorded-label" in first
