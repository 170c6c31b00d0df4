"""The page ``attnprof explain --html`` writes, opened from ``file://`` in Chromium at 1280 and 390 px, in English and
Japanese: it works offline (no request leaves the page), its timeline starts and holds the trace's steps and the
attention calls' kernels, its tables show the reading, and nothing but a table scrolls sideways on a phone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from attnprof.analysis import attention, explain
from attnprof.records import foreign
from attnprof.render import explainhtml
from helpers import DATA, TRACES

from .pages import LANGUAGES, VIEWPORTS
from .viewers import View, open_views

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = pytest.mark.browser
#: A GPU trace of the site, a CPU recording of a transformers model (several threads' worth of CPU lanes), and the
#: H200 recording of a transformers model's training (code nobody here wrote: forward and backward, cuDNN).
TRACES_READ = {"gpu": TRACES / "sdpa_math.json.gz", "cpu": DATA / "foreign" / "cpu" / "hf_eager_train.json.gz",
               "h200": DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz"}  # fmt: skip


def page_file(folder: Path, which: str, lang: str) -> tuple[Path, explain.Explanation]:
    x = explain.explain(foreign.load(TRACES_READ[which], inputs_of=attention.wants_inputs))
    path = folder / f"{which}-{lang}.html"
    path.write_text(explainhtml.page(x, None, lang), encoding="utf-8")
    return path, x


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("which", list(TRACES_READ))
@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_the_report_page_works_offline_at_every_width(tmp_path, contexts: dict[str, BrowserContext], lang, which,
                                                      width):  # fmt: skip
    path, x = page_file(tmp_path, which, lang)
    context = contexts[width]
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page, errors = open_views(context, path.as_uri())
    try:
        view = View(page, explainhtml.VIEW_ID)
        data = view.data
        assert errors == [] and not view.locator(".attnprof-viewer").is_hidden()
        assert [s["label"] for s in data["steps"]] == [f"{'step' if lang == 'en' else 'ステップ'} {k}"
                                                       for k in explainhtml.view_steps(x)]  # fmt: skip
        assert page.locator("select.attnprof-viewer-step option").count() == len(data["steps"])
        gpu_lanes = [lane for lane in data["steps"][0]["lanes"] if lane["kind"] == "gpu"]
        assert bool(gpu_lanes) == (which != "cpu")
        if which != "cpu":  # the attention calls' kernels are among the GPU lane's slices (all, for the site's trace)
            shown = {data["strings"][data["kernels"][s[2]]["n"]] for lane in gpu_lanes for s in lane["slices"]}
            called = {x.rows[k].name for c in x.calls if c.step == 0 for k, _ in c.kernels}
            assert called <= shown and (which == "h200" or shown == called) and called
        rows = page.locator("table").nth(1).locator("tbody tr")
        assert rows.count() == len(x.groups)
        if which == "h200":  # the transformers model's calls: a forward and a backward group, both cuDNN
            backends = {rows.nth(k).locator("td").nth(2).inner_text() for k in range(rows.count())}
            assert rows.count() == 2 and backends == {"cudnn"}
        assert page.evaluate("() => document.documentElement.lang") == lang
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert all(url.startswith("file://") for url in requests), requests
    finally:
        page.close()
