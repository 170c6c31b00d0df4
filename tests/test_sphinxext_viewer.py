"""attnprof.sphinxext.viewer: the trace viewer after every timeline, its data files and its static files, in tiny
Sphinx projects built against results made from the real H200 traces."""

from __future__ import annotations

import os
import re
from pathlib import Path

from attnprof.render import viewer
from attnprof.sphinxext.viewer import DATA_DIR, trace_viewer
from helpers import doctree, html, trace_result

PAGES = {
    "index.md": "# Home\n\n```{toctree}\nvariants/naive\nplain\n```\n",
    "variants/naive.md": "# Naive\n\n```{timeline} naive\nOne step of naive attention.\n```\n",
    "plain.md": "# Plain\n\nNo timeline here.\n",
}


def view_html(page: str) -> str:
    match = re.search(r'<div class="attnprof-trace-view".*?</script></div>', page, re.S)
    assert match, "no trace view on the page"
    return match.group(0)


def test_the_timeline_is_followed_by_its_viewer_with_data_and_trace_published(project):
    app = project(PAGES)
    assert app.warning.getvalue() == ""
    result, _ = trace_result("naive")
    vid = viewer.view_id(result)
    page = html(app, "variants/naive")
    # right after the PNG figure: the script hides that figure's picture on screen, and only that one
    assert re.search(r'</figure>\s*<div class="attnprof-trace-view" data-view="' + re.escape(vid) + '"', page)
    view = view_html(page)
    assert view == viewer.fragment(vid, f"../{DATA_DIR}/{vid}.js", re.search(r'data-trace="([^"]+)"', view).group(1))
    trace_url = re.search(r'data-trace="([^"]+)"', view).group(1)
    assert trace_url.startswith("../_downloads/") and trace_url.endswith(f"/{result.stem}.trace.json.gz")
    published = Path(app.outdir) / "variants" / trace_url
    assert published.resolve().is_file()
    data = Path(app.outdir) / DATA_DIR / f"{vid}.js"
    assert data.read_text(encoding="ascii") == viewer.data_script(result, "en")
    assert "Download the raw trace" in view and "(open it in Perfetto UI" not in page  # the view's link replaces it


def test_the_script_and_stylesheet_come_with_a_view_only(project):
    app = project(PAGES)
    with_view, without = html(app, "variants/naive"), html(app, "plain")
    assert re.search(r'<script defer="defer" src="../_static/attnprof-viewer\.js\?v=\w+"></script>', with_view)
    assert re.search(
        r'<link rel="stylesheet" type="text/css" href="../_static/attnprof-viewer\.css\?v=\w+"', with_view
    )
    assert "attnprof-viewer" not in without
    for name in viewer.STATIC_FILES:
        assert (Path(app.outdir) / "_static" / name).read_text(encoding="utf-8") == viewer.served(name)


def test_a_page_with_an_embedded_view_gets_them_too(project):
    # what a gallery page holds: the HTML a script's viewer.embed(...) returned, as raw HTML
    shown = viewer.embed(trace_result("sdpa_flash")[0], trace=b"")
    page = "# Gallery\n\n```{raw} html\n" + shown.html + "\n```\n"
    app = project({"index.md": page})
    assert app.warning.getvalue() == ""
    out = html(app)
    assert shown.html in out and "attnprof-viewer.js" in out and "attnprof-viewer.css" in out


def test_japanese_build_writes_japanese_data(project):
    app = project(PAGES, language="ja")
    result, _ = trace_result("naive")
    data = (Path(app.outdir) / DATA_DIR / f"{viewer.view_id(result)}.js").read_text(encoding="ascii")
    assert data == viewer.data_script(result, "ja")
    assert "Perfetto で開く" in html(app, "variants/naive")


def test_a_rebuild_leaves_the_data_file_alone(project, tmp_path):
    app = project(PAGES)
    (data,) = (Path(app.outdir) / DATA_DIR).glob("*.js")
    before = data.stat().st_mtime_ns
    later = before + 5_000_000_000
    page = tmp_path / "src" / "variants" / "naive.md"
    os.utime(page, ns=(later, later))  # the page is read and written again
    app.build()
    assert app.warning.getvalue() == ""
    assert data.stat().st_mtime_ns == before


def test_a_step_option_opens_the_viewer_there_and_two_views_are_two_files(project):
    pages = {"index.md": "# T\n\n```{timeline} naive\n:step: 0\n```\n\n```{timeline} naive\n```\n"}
    app = project(pages)
    result, _ = trace_result("naive")
    names = sorted(p.name for p in (Path(app.outdir) / DATA_DIR).glob("*.js"))
    assert names == sorted(f"{viewer.view_id(result, s)}.js" for s in (0, None))
    assert [n["view"] for n in doctree(app).findall(trace_viewer)] == [viewer.view_id(result, s) for s in (0, None)]
    assert [step for _, step in app.env.attnprof_views["index"].values()] == [0, None]


def test_data_files_follow_the_result_even_when_no_page_is_written(project, tmp_path):
    app = project(PAGES)
    (data,) = (Path(app.outdir) / DATA_DIR).glob("*.js")
    data.unlink()  # gone (or stale): the next build, with nothing to read or write, writes it again
    app.build()
    assert app.warning.getvalue() == ""
    assert data.read_text(encoding="ascii") == viewer.data_script(trace_result("naive")[0], "en")


def test_other_builders_show_the_download_paragraph(project):
    app = project({"index.md": PAGES["variants/naive.md"]}, builder="text")
    assert app.warning.getvalue() == ""
    text = " ".join((Path(app.outdir) / "index.txt").read_text(encoding="utf-8").split())
    assert (
        'Download the raw trace: "naive__prefill__8x16x1024x64__bfloat16__cuda.trace.json.gz" (open it in Perfetto'
        in text
    )
    assert "attnprof-trace-view" not in text and not (Path(app.outdir) / DATA_DIR).exists()


def test_a_variant_that_did_not_run_gets_no_viewer(project, tmp_path):
    from attnprof.records import results
    from attnprof.records.results import Result

    folder = tmp_path / "results"
    env = trace_result("naive")[0].environment
    results.save(Result("sdpa_cudnn", [8, 16, 1024, 64], "bfloat16", "cuda", "unsupported", env, reason="no"), folder)
    app = project({"index.md": "# T\n\n```{timeline} sdpa_cudnn\n```\n"}, variants=())
    assert "attnprof-trace-view" not in html(app) and not list(doctree(app).findall(trace_viewer))
