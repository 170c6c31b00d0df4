"""The page "Read your own trace" in Chromium, in both languages at 1280 and 390 px: a trace chosen in its drop-in
reader (the H200 transformers training fixture, gzip) is read in the page with no request at all, and the report
shows the attention calls ``attnprof explain`` finds, with their backend; the page never scrolls sideways; a bad
file gets one line that says what is wrong, in the page's language."""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING

import pytest

from attnprof import words
from attnprof.analysis import attention, explain
from attnprof.records import foreign
from helpers import DATA

from .pages import LANGUAGES, VIEWPORTS
from .viewers import watch

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser
TRACE = DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz"
PAGE = "guide/own-trace.html"
WIDGET = ".attnprof-dropin"


def open_reader(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    page = context.new_page()
    errors = watch(page)
    page.goto(url, wait_until="load")
    page.wait_for_selector(f"{WIDGET}:not([hidden])")
    return page, errors


def choose(page: Page, files: object) -> str:
    """Give the reader ``files`` and wait until it has read them; returns its state (``done`` or ``error``)."""
    page.evaluate(f"() => {{ document.querySelector('{WIDGET}').dataset.state = ''; }}")
    page.set_input_files(f"{WIDGET} input[type=file]", files)
    page.wait_for_function(f"() => ['done', 'error'].includes(document.querySelector('{WIDGET}').dataset.state)")
    return page.evaluate(f"() => document.querySelector('{WIDGET}').dataset.state")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_a_chosen_trace_is_read_in_the_page(base_url, contexts: dict[str, BrowserContext], lang, width):
    x = explain.explain(foreign.load(TRACE, inputs_of=attention.wants_inputs))
    page, errors = open_reader(contexts[width], f"{base_url}{lang}/{PAGE}")
    try:
        assert page.locator(".attnprof-dropin-fallback").first.is_hidden()
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        assert choose(page, str(TRACE)) == "done", page.locator(f"{WIDGET} .attnprof-dropin-status").inner_text()
        report = page.locator(f"{WIDGET} .attnprof-dropin-report")
        assert report.get_attribute("data-calls") == str(len(x.calls)) == "8"
        rows = report.locator("table.attnprof-dropin-calls tbody tr")
        assert rows.count() == len(x.groups)
        backends = {rows.nth(k).locator("td").nth(2).inner_text() for k in range(rows.count())}
        assert backends == {words.text("explain.backend.cudnn", lang)}
        assert report.locator("table.attnprof-dropin-steps tbody tr").count() == len(x.steps) == 2
        titles = report.locator("table.attnprof-dropin-kernels td[title]")
        shown = {titles.nth(k).get_attribute("title") for k in range(titles.count())}
        assert shown == {x.rows[k].name for c in x.calls for k, _ in c.kernels}  # full names, decoded on screen
        assert words.text("explain.steps", lang) in report.inner_text()
        assert requests == [], requests  # nothing uploaded, nothing fetched
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_bad_file_is_one_line_in_the_pages_language(base_url, context: BrowserContext, lang):
    page, errors = open_reader(context, f"{base_url}{lang}/{PAGE}")
    try:
        cases = {
            "not_json": {"name": "notes.json", "mimeType": "application/json", "buffer": b"not a trace"},
            "not_pytorch": {"name": "chrome.json", "mimeType": "application/json",
                            "buffer": b'{"traceEvents": [{"ph": "X", "cat": "v8", "name": "x", "ts": 1, "dur": 1}]}'},
            "bad_gzip": {"name": "cut.json.gz", "mimeType": "application/gzip",
                         "buffer": gzip.compress(TRACE.read_bytes())[:3000]},
            "no_events_list": {"name": "meta.json", "mimeType": "application/json", "buffer": b'{"a": 1}'},
        }  # fmt: skip
        for code, file in cases.items():
            assert choose(page, file) == "error"
            assert page.evaluate(f"() => document.querySelector('{WIDGET}').dataset.error") == code
            line = page.locator(f"{WIDGET} .attnprof-dropin-status").inner_text()
            assert line.startswith(f"{file['name']}: ") and "\n" not in line.strip()
            assert words.text(f"dropin.error.{code}", lang).split("(")[0].split("{")[0][:12] in line
            assert page.locator(f"{WIDGET} .attnprof-dropin-report").inner_text() == ""
        # a trace recorded on the CPU alone is read, and the status line says there is no GPU work in it
        assert choose(page, str(DATA / "foreign" / "cpu" / "hf_eager_train.json.gz")) == "done"
        assert (
            words.text("explain.note.cpu_only", lang)[:12]
            in page.locator(f"{WIDGET} .attnprof-dropin-status").inner_text()
        )
        # a good file after bad ones is read as usual
        assert choose(page, str(TRACE)) == "done"
        assert page.locator(f"{WIDGET} .attnprof-dropin-status").inner_text().strip() == ""
        assert errors == []
    finally:
        page.close()


DIFF = ".attnprof-dropdiff"
EAGER = DATA / "foreign" / "h200" / "hf_eager_train.json.gz"


def compare_in_page(page: Page, before: object, after: object) -> str:
    """Give the comparison BEFORE and AFTER, one zone each, and wait until it has compared them."""
    page.evaluate(f"() => {{ document.querySelector('{DIFF}').dataset.state = ''; }}")
    page.set_input_files(f"{DIFF} .attnprof-dropdiff-before input[type=file]", before)
    page.wait_for_function(
        f"() => ['waiting', 'done', 'error'].includes(document.querySelector('{DIFF}').dataset.state)"
    )
    page.set_input_files(f"{DIFF} .attnprof-dropdiff-after input[type=file]", after)
    page.wait_for_function(f"() => ['done', 'error'].includes(document.querySelector('{DIFF}').dataset.state)")
    return page.evaluate(f"() => document.querySelector('{DIFF}').dataset.state")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_two_traces_are_compared_in_the_page_as_attnprof_diff_does(base_url, contexts, lang, width):
    from attnprof.analysis import diff

    d = diff.diff(diff.side(explain.explain(foreign.load(TRACE, inputs_of=attention.wants_inputs))),
                  diff.side(explain.explain(foreign.load(EAGER, inputs_of=attention.wants_inputs))))  # fmt: skip
    page = contexts[width].new_page()
    errors = watch(page)
    try:
        page.goto(f"{base_url}{lang}/{PAGE}", wait_until="load")
        page.wait_for_selector(f"{DIFF}:not([hidden])")
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        assert compare_in_page(page, str(TRACE), str(EAGER)) == "done", page.locator(
            f"{DIFF} .attnprof-dropin-status"
        ).inner_text()
        report = page.locator(f"{DIFF} .attnprof-dropin-report")
        assert report.get_attribute("data-rows") == str(len(d.rows)) == "2"
        rows = report.locator("table.attnprof-dropdiff-calls tbody tr")
        assert rows.count() == len(d.rows)
        for k, r in enumerate(d.rows):
            cells = rows.nth(k).locator("td")
            assert cells.nth(1).inner_text() == words.text(f"tracediff.match.{r.match}", lang)
            assert words.text("explain.backend.cudnn", lang) in cells.nth(3).inner_text()
            assert words.text("explain.backend.unfused", lang) in cells.nth(4).inner_text()
        times = report.locator("table.attnprof-dropdiff-times tbody tr")
        for k, r in enumerate(d.rows):  # the page's verdicts are the command's
            assert times.nth(k).locator("td").nth(3).inner_text() == words.text(
                f"tracediff.verdict.{r.gpu_us.verdict}", lang
            )
        titles = report.locator("table.attnprof-dropdiff-kernels span[title]")
        shown = {titles.nth(k).get_attribute("title") for k in range(titles.count())}
        assert shown == {k.name for r in d.rows for k in r.kernels}  # full names, decoded on screen
        text = report.inner_text()
        assert words.text("tracediff.short", lang) in text and words.text("tracediff.steps", lang) in text
        assert requests == [], requests  # nothing uploaded, nothing fetched
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        # a bad AFTER is one line (an input given the file it holds fires nothing: only AFTER changes here)
        bad = {"name": "notes.json", "mimeType": "application/json", "buffer": b"not a trace"}
        page.evaluate(f"() => {{ document.querySelector('{DIFF}').dataset.state = ''; }}")
        page.set_input_files(f"{DIFF} .attnprof-dropdiff-after input[type=file]", bad)
        page.wait_for_function(f"() => document.querySelector('{DIFF}').dataset.state === 'error'")
        line = page.locator(f"{DIFF} .attnprof-dropin-status").inner_text()
        assert line.startswith("notes.json: ") and "\n" not in line.strip() and report.inner_text() == ""
        # the other way round compares again: eager to SDPA is faster
        assert compare_in_page(page, str(EAGER), str(TRACE)) == "done"
        first = report.locator("table.attnprof-dropdiff-times tbody tr").first.locator("td").nth(3).inner_text()
        assert first == words.text("tracediff.verdict.lower", lang)  # the other way round: eager to SDPA is faster
        assert errors == []
    finally:
        page.close()
