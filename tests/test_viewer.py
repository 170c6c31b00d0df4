"""attnprof.render.viewer: the trace viewer's payload, data file, markup, served script and gallery embed, built from
the real H200 traces."""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnprof import words
from attnprof.analysis import summary
from attnprof.records import trace
from attnprof.records.results import Environment, Result
from attnprof.render import columns, pictures, timeline, viewer
from attnprof.words import viewer as viewer_words
from helpers import TRACE_VARIANTS, TRACES, trace_result

#: The issue's budget for one trace view: its data, its markup and the shared script and stylesheet.
BUDGET_BYTES = 150_000
SHARED_BYTES = sum(len(viewer.served(name).encode()) for name in viewer.STATIC_FILES)


def view_bytes(result: Result, language: str) -> int:
    """What one view on a site page costs a reader: data file, markup, and the shared script and stylesheet."""
    vid = viewer.view_id(result)
    markup = viewer.fragment(vid, f"_viewer/{vid}.js", f"_downloads/{result.stem}.trace.json.gz", language)
    return len(viewer.data_script(result, language).encode()) + len(markup.encode()) + SHARED_BYTES


def gpu_slices(step: dict) -> list[list]:
    return [s for lane in step["lanes"] if lane["kind"] == "gpu" for s in lane["slices"]]


def launch_slices(step: dict) -> list[list]:
    return [s for lane in step["lanes"] if lane["kind"] == "launch" for s in lane["slices"]]


def registered(html: str) -> dict:
    """The payload an inline data script of ``html`` registers."""
    body = re.search(r"<script>\(window\.attnprofViewerData = .*?\] = (\{.*\});\n</script>", html, re.S).group(1)
    return json.loads(body.replace("<\\/", "</"))


def cpu_only(result: Result) -> Result:
    """``result`` as a CPU run records it: no GPU activity, no runtime calls."""
    steps = [
        dataclasses.replace(
            st, activities=[], cpu_ops=[o for o in st.cpu_ops if o.category not in trace.LAUNCH_CATEGORIES]
        )
        for st in result.steps
    ]
    return dataclasses.replace(result, device="cpu", device_properties={}, steps=steps)


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_every_step_every_lane_and_every_event_is_there(variant: str):
    result, _ = trace_result(variant)
    data = viewer.payload(result)
    assert len(data["steps"]) == len(result.steps) == 3
    assert data["step"] == 1  # the middle step, as the PNG
    for step, st in zip(data["steps"], result.steps, strict=True):
        assert [(lane["kind"], lane["name"]) for lane in step["lanes"]] == [
            (lane.kind, lane.name) for lane in timeline.lanes(st)
        ]
        kinds = [lane["kind"] for lane in step["lanes"]]
        depths = sorted({op.depth for op in st.cpu_ops if op.category not in trace.LAUNCH_CATEGORIES})
        assert kinds == ["cpu"] * len(depths) + ["launch", "gpu"]
        assert sum(len(lane["slices"]) for lane in step["lanes"] if lane["kind"] != "gpu") == len(st.cpu_ops)
        assert len(gpu_slices(step)) == len(st.activities) > 0
        assert step["span"] >= st.cpu_time_us
        assert all(0 <= s[0] and s[0] + s[1] <= step["span"] + 1e-9 for lane in step["lanes"] for s in lane["slices"])
    assert "note" not in data


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_main_kernel_durations_are_the_traces(variant: str):
    result, raw = trace_result(variant)
    data = viewer.payload(result)
    main = summary.analyse(result).main_kernel()
    names = data["strings"]
    found = [
        (s[1], s[3])
        for step in data["steps"]
        for s in gpu_slices(step)
        if names[data["kernels"][s[2]]["n"]] == main.name
    ]
    assert len(found) == main.count
    assert sum(d for d, _ in found) == pytest.approx(main.total_us, abs=1e-6)
    # and each equals the kernel's event in the raw trace, found by its correlation id
    events = {
        e["args"]["correlation"]: e
        for e in json.loads(raw)["traceEvents"]
        if e.get("cat") == "kernel" and e.get("name") == main.name
    }
    assert [d for d, _ in found] == [pytest.approx(events[corr]["dur"], abs=1e-3) for _, corr in found]


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_the_tooltip_says_what_the_kernel_table_says(variant: str):
    result, _ = trace_result(variant)
    a = summary.analyse(result)
    for lang in words.LANGUAGES:
        data = viewer.payload(a, lang)
        by_name = {}
        for k in data["kernels"]:
            by_name.setdefault(data["strings"][k["n"]], []).append(k)
        assert set(by_name) == {r.name for r in a.rows}
        for row in a.rows:
            cells = columns.kernel_cells(row, lang)
            said = [
                (data["strings"][e["s"]], dict(zip(data["columns"], e["c"], strict=True))) for e in by_name[row.name]
            ]  # one entry per launch configuration of the name: the row's own is among them
            assert (cells["col.kernel"], {k: cells[k] for k in viewer.TIP_COLUMNS}) in said


def test_a_launch_with_another_grid_gets_its_own_cells():
    result, _ = trace_result("sdpa_math")
    a = summary.analyse(result)
    data = viewer.payload(a)
    varying = [r for r in a.rows if r.configs > 1]
    assert varying  # sdpa_math launches two kernels with two grids each: a kernel-table row per grid
    grid = data["columns"].index("col.grid_block")
    for row in varying:
        entries = [k for k in data["kernels"] if data["strings"][k["n"]] == row.name]
        grids = {
            f"{'×'.join(map(str, act.grid))} × {'×'.join(map(str, act.block))}"
            for st in result.steps
            for act in st.activities
            if act.name == row.name
        }
        assert {k["c"][grid] for k in entries} == grids and len(entries) == len(grids) == 2
    assert len(data["kernels"]) == len(a.rows)


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_launches_and_what_they_launched_share_correlation_ids(variant: str):
    result, _ = trace_result(variant)
    data = viewer.payload(result)
    names = data["strings"]
    for step, st in zip(data["steps"], result.steps, strict=True):
        launches = {s[4]: s for s in launch_slices(step) if s[4] is not None}
        work = {s[3] for s in gpu_slices(step)}
        assert set(launches) == work == {a.correlation for a in st.activities}
        for a in st.activities:
            launch = launches[a.correlation]
            assert launch[0] == a.launch_start_us and names[launch[2]] == a.launch_api


def test_calls_that_launch_nothing_have_no_correlation_id():
    result, _ = trace_result("sdpa_cudnn")
    data = viewer.payload(result)
    unlinked = [data["strings"][s[2]] for s in launch_slices(data["steps"][0]) if s[4] is None]
    assert unlinked == ["cudaStreamIsCapturing", "cudaGetErrorString", "cudaGetErrorString"]


def test_a_cpu_run_has_cpu_lanes_and_says_there_is_no_gpu_activity():
    result = cpu_only(trace_result("naive")[0])
    for lang in words.LANGUAGES:
        data = viewer.payload(result, lang)
        assert all(lane["kind"] == "cpu" for step in data["steps"] for lane in step["lanes"])
        assert data["kernels"] == [] and data["families"] == []
        assert data["note"] == words.text("viewer.no_gpu", lang, variant="naive", device="CPU")
    assert "naive ran on CPU" in viewer.payload(result)["note"]


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_a_view_fits_the_budget(variant: str):
    result, _ = trace_result(variant)
    for lang in words.LANGUAGES:
        size = view_bytes(result, lang)
        assert size <= BUDGET_BYTES, f"{variant} ({lang}): {size} bytes per view, budget {BUDGET_BYTES}"
        embedded = len(viewer.embed(result, lang=lang, trace=TRACES / f"{variant}.json.gz").html.encode())
        assert embedded + SHARED_BYTES <= BUDGET_BYTES, f"{variant} ({lang}): embed {embedded} bytes"
    assert view_bytes(result, "en") < 60_000  # room to spare: the largest fixture (sdpa_math) is about 50 KB


def test_the_served_script_and_stylesheet_are_small_and_keep_every_statement(tmp_path: Path):
    assert SHARED_BYTES <= 25_000, f"script and stylesheet: {SHARED_BYTES} bytes served"
    for name in viewer.STATIC_FILES:
        source = (viewer.ASSETS_DIR / name).read_text(encoding="utf-8")
        text = viewer.served(name)
        assert "/*" not in text and not re.search(r"^\s|^//", text, re.M)
        assert len(text) < 0.9 * len(source)
        # nothing but comments and blanks went: the words that remain are the source's, in its order
        code = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
        code = "\n".join(
            re.sub(r"\s+//[^\"'`]*$", "", line) for line in code.splitlines() if not line.strip().startswith("//")
        )
        assert text.split() == code.split()
    assert "https://ui.perfetto.dev" in viewer.served("attnprof-viewer.js")  # a // inside a string stays
    paths = viewer.write_static(tmp_path)
    before = [p.stat().st_mtime_ns for p in paths]
    viewer.write_static(tmp_path)
    assert [p.stat().st_mtime_ns for p in paths] == before and paths[0].read_text() == viewer.served(paths[0].name)


def test_the_payload_has_the_words_the_script_uses_and_no_others():
    script = (viewer.ASSETS_DIR / "attnprof-viewer.js").read_text(encoding="utf-8")
    used = set(re.findall(r"\bw(?:ords)?\[\"([\w.]+)\"\]", script))
    data = viewer.payload(trace_result("naive")[0], "ja")
    assert used <= set(data["words"]) == set(viewer.SCRIPT_WORDS)
    # the rest is looked up through keys the payload names: its table columns, the tooltip's link rows, and the
    # legend's kernel families (each family's name in the page's language: the Japanese legend said "elementwise")
    assert set(data["words"]) - used == set(viewer.TIP_COLUMNS) | {"tip.launches", "tip.launched_by"} | set(
        viewer.FAMILY_KEYS
    )
    assert '"tip.launches" : "tip.launched_by"' in script and 'w["family." + f]' in script
    assert data["words"]["family.elementwise"] == "要素ごと"


def test_strings_and_kernels_are_stored_once():
    result, _ = trace_result("sdpa_math")
    data = viewer.payload(result)
    assert len(data["strings"]) == len(set(data["strings"]))
    launched = sum(len(gpu_slices(step)) for step in data["steps"])
    assert launched == 60 and len(data["kernels"]) == 15  # 20 activities x 3 steps, 13 rows + 2 other grids
    text = viewer.data_script(result)
    longest = max(data["strings"], key=len)
    assert text.count(json.dumps(longest)) == 1


def test_colors_are_the_timelines_and_their_text_is_the_pictures():
    result, _ = trace_result("naive")
    data = viewer.payload(result)
    colors = data["colors"]
    assert set(colors["families"]) == set(data["families"])
    assert {f: bg for f, (bg, _) in colors["families"].items()} == {
        f: timeline.FAMILY_COLORS[f] for f in data["families"]
    }
    assert [bg for bg, _ in colors["cpu"]] == list(timeline.CPU_COLORS)
    assert colors["runtime"][0] == timeline.RUNTIME_COLOR
    for bg, ink in [*colors["families"].values(), *colors["cpu"], colors["runtime"]]:
        assert ink == pictures.ink(bg)


def test_families_in_the_legend_are_those_present():
    result, _ = trace_result("naive")
    data = viewer.payload(result)
    present = {timeline.family_of(a) for st in result.steps for a in st.activities}
    assert data["families"] == [f for f in timeline.FAMILY_COLORS if f in present]


def test_theoretical_occupancy_is_the_analysiss_with_its_limiter():
    result, _ = trace_result("sdpa_flash")
    row = summary.analyse(result).main_kernel()
    assert row.theoretical.percent < 100
    for lang in words.LANGUAGES:
        data = viewer.payload(result, lang)
        cells = dict(zip(data["columns"], data["kernels"][0]["c"], strict=True))
        limiter = words.text(f"limiter.{row.theoretical.limiter}", lang)
        assert cells["col.theoretical_occupancy"] == f"{columns.fmt.percent(row.theoretical.percent)} ({limiter})"


def test_theoretical_occupancy_is_null_when_the_calculator_cannot_tell():
    result, _ = trace_result("sdpa_flash")
    result.device_properties = {}  # no deviceProperties in the trace
    data = viewer.payload(result)
    cells = dict(zip(data["columns"], data["kernels"][0]["c"], strict=True))
    assert cells["col.theoretical_occupancy"] is None and cells["col.reported_occupancy"]


def test_the_viewers_words_come_from_the_one_table():
    for lang in words.LANGUAGES:
        w = viewer.viewer_words(lang)
        assert set(w) == set(viewer_words.VIEWER) | set(viewer.TIP_COLUMNS) | set(viewer.SITE_KEYS)
        assert all(w[k] == words.TABLE[k][lang] for k in w)
    assert viewer.viewer_words("ja")["tip.duration"] == "所要時間"
    assert viewer.viewer_words("ja_JP") == viewer.viewer_words("ja")
    assert viewer.viewer_words("fr") == viewer.viewer_words("en")  # as every word of the package


def test_data_file_registers_itself_and_is_written_only_when_changed(tmp_path: Path):
    result, _ = trace_result("sdpa_cudnn")
    path = tmp_path / "v" / f"{viewer.view_id(result)}.js"
    assert viewer.write_data(result, path, "ja")
    before = path.stat().st_mtime_ns
    assert not viewer.write_data(result, path, "ja")
    assert path.stat().st_mtime_ns == before
    text = path.read_text(encoding="ascii")
    prefix = f'(window.attnprofViewerData = window.attnprofViewerData || {{}})["{viewer.view_id(result)}"] = '
    assert text.startswith(prefix) and text.endswith(";\n")
    data = json.loads(text[len(prefix) : -2])
    assert data == viewer.payload(result, "ja")
    assert data["words"]["perfetto.sent"] == "新しいタブの Perfetto UI でトレースを開きました。"
    assert viewer.write_data(result, path, "en")  # other words, other bytes


def test_view_ids_follow_the_png_names():
    result, _ = trace_result("naive")
    assert viewer.view_id(result) == "naive__prefill__8x16x1024x64__bfloat16__cuda.stepmid"
    assert viewer.view_id(result, 0) == "naive__prefill__8x16x1024x64__bfloat16__cuda.step0"
    assert viewer.payload(result, step=2)["step"] == 2
    assert viewer.payload(result, step=-1)["step"] == 2


def test_fragment_markup():
    markup = viewer.fragment("v.stepmid", "_viewer/v.js", "../_downloads/a b&c.trace.json.gz", "ja")
    assert markup.startswith('<div class="attnprof-trace-view" data-view="v.stepmid">')
    assert '<div class="attnprof-viewer" hidden>' in markup  # shown by the script, so the PNG stays without it
    assert markup.endswith('<script src="_viewer/v.js"></script></div>')
    assert 'href="../_downloads/a b&amp;c.trace.json.gz" download="a b&amp;c.trace.json.gz"' in markup
    assert 'class="attnprof-viewer-perfetto" data-trace="../_downloads/a b&amp;c.trace.json.gz" hidden>' in markup
    assert "Perfetto で開く" in markup and words.text("timeline.download", "ja") in markup
    assert 'role="status"' in markup and 'tabindex="0"' in markup
    assert "attnprof-viewer-noscript" not in markup  # the PNG before it is the fallback on a site page
    assert "Open in Perfetto" in viewer.fragment("v", "d.js", "t.json.gz", "en")


def test_embed_carries_its_data_and_the_trace_inline():
    result, _ = trace_result("sdpa_flash")
    gz = (TRACES / "sdpa_flash.json.gz").read_bytes()
    shown = viewer.embed(result, trace=gz)
    page = shown._repr_html_()
    assert shown.view == viewer.view_id(result) and "<script src" not in page
    assert page.startswith(f'<div class="attnprof-trace-view" data-view="{shown.view}">')
    # what a notebook without the site's script shows
    assert f'<p class="attnprof-viewer-noscript">{html.escape(words.text("viewer.no_script", "en"))}</p>' in page
    assert "</" not in re.search(r"<script>(.*)</script>", page, re.S).group(1)
    data = registered(page)
    assert base64.b64decode(data["trace"]) == gz
    assert data == viewer.payload(result) | {"trace": data["trace"]}
    assert f'download="{result.stem}.trace.json.gz"' in page and '<a class="attnprof-viewer-download" hidden' in page
    assert "attnprof trace view" in repr(shown)


def test_embed_finds_the_saved_trace_and_leaves_a_large_one_out(tmp_path: Path, monkeypatch):
    result, raw = trace_result("naive")
    from attnprof import settings
    from attnprof.records import results

    results.save(result, tmp_path, raw)
    monkeypatch.setenv(settings.RESULTS_ENV, str(tmp_path))
    data = registered(viewer.embed(result, lang="ja").html)
    assert base64.b64decode(data["trace"]) == (tmp_path / result.trace_file).read_bytes()
    assert data["words"]["perfetto.sent"] == "新しいタブの Perfetto UI でトレースを開きました。"
    big = viewer.embed(result, trace=b"x" * (viewer.INLINE_TRACE_MAX + 1)).html
    assert '"trace"' not in big and 'download=""' in big


def _not_run() -> Result:
    env = Environment(device_name="cpu", torch_version="2.13", python_version="3.11", date="2026-12-01")
    return Result("sdpa_flash", [1, 2, 64, 64], "bfloat16", "cpu", "unsupported", env, reason="No available kernel.")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda r: viewer.payload(_not_run()), "result of 'sdpa_flash' has status 'unsupported' (No available"),
        (lambda r: viewer.view_id(_not_run()), "only results with status 'ok' can be viewed"),
        (lambda r: viewer.embed(_not_run()), "only results with status 'ok' can be viewed"),
        (lambda r: viewer.payload(r, step=3), "step 3 out of range; choose 0 to 2"),
        (lambda r: viewer.write_data(r, "x.js", step=-4), "step -4 out of range; choose 0 to 2"),
        (lambda r: viewer.embed(r, trace="nowhere.json.gz"), "trace 'nowhere.json.gz' is not a file"),
        (lambda r: viewer.fragment("v", "", "t.json.gz"), "data_url ''"),
        (lambda r: viewer.fragment("v", "d.js", None, inline="x"), "either the page-relative URL"),
    ],
)
def test_bad_input_is_refused_in_one_line(call, message: str):
    result, _ = trace_result("naive")
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        call(result)
    assert "\n" not in str(info.value)


def test_importing_the_viewer_imports_no_torch_matplotlib_or_sphinx():
    code = "import sys, attnprof.render.viewer; print(sorted({'torch', 'matplotlib', 'sphinx'} & set(sys.modules)))"
    src = Path(viewer.__file__).parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(src)})  # fmt: skip
    assert out.stdout.strip() == "[]"
