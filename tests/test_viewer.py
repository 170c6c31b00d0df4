"""attnprof.viewer: the trace viewer's payload, data file and markup, built from the real H200 traces."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnprof import labels, occupancy, timeline, trace, viewer
from attnprof.results import Environment, Result
from attnprof.sphinxext import NBSP, fmt_g
from attnprof.viewer_words import VIEWER_WORDS
from conftest import TRACE_VARIANTS, trace_result

#: The issue's budget for one trace view: its data, its markup and the shared script and stylesheet.
BUDGET_BYTES = 150_000


def view_bytes(result: Result, language: str) -> int:
    """What one view costs a reader: data file, markup, and the shared script and stylesheet."""
    vid = viewer.view_id(result)
    markup = viewer.fragment(vid, f"_viewer/{vid}.js", f"_downloads/{result.stem}.trace.json.gz", language)
    shared = sum((viewer.STATIC_DIR / name).stat().st_size for name in viewer.STATIC_FILES)
    return len(viewer.data_script(result, language).encode()) + len(markup.encode()) + shared


def gpu_slices(step: dict) -> list[list]:
    return [s for lane in step["lanes"] if lane["kind"] == "gpu" for s in lane["slices"]]


def launch_slices(step: dict) -> list[list]:
    return [s for lane in step["lanes"] if lane["kind"] == "launch" for s in lane["slices"]]


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_every_step_every_lane_and_every_event_is_there(variant: str):
    result, _ = trace_result(variant)
    data = viewer.payload(result)
    assert len(data["steps"]) == len(result.steps) == 3
    assert data["step"] == 1  # the middle step, as the PNG
    for step, st in zip(data["steps"], result.steps, strict=True):
        kinds = [lane["kind"] for lane in step["lanes"]]
        depths = sorted({op.depth for op in st.cpu_ops if op.category not in trace.LAUNCH_CATEGORIES})
        assert kinds == ["cpu"] * len(depths) + ["launch", "gpu"]
        assert sum(len(lane["slices"]) for lane in step["lanes"] if lane["kind"] != "gpu") == len(st.cpu_ops)
        assert len(gpu_slices(step)) == len(st.activities) > 0
        assert step["span"] >= st.cpu_time_us
        # every slice inside the step
        assert all(0 <= s[0] and s[0] + s[1] <= step["span"] + 1e-9 for lane in step["lanes"] for s in lane["slices"])


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_main_kernel_durations_are_the_traces(variant: str):
    result, raw = trace_result(variant)
    data = viewer.payload(result)
    rows = [r for r in trace.kernel_table(result.steps, result.device_properties) if r.kind == "kernel"]
    main = max(rows, key=lambda r: r.total_us)
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
    kernel = next(k for k in data["kernels"] if names[k["n"]] == main.name)
    assert names[kernel["s"]] == main.info.short


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


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_a_view_fits_the_budget(variant: str):
    result, _ = trace_result(variant)
    for lang in labels.LANGUAGES:
        size = view_bytes(result, lang)
        assert size <= BUDGET_BYTES, f"{variant} ({lang}): {size} bytes per view, budget {BUDGET_BYTES}"
    assert view_bytes(result, "en") < 60_000  # room to spare: the largest fixture (sdpa_math) is about 50 KB


def test_strings_and_kernels_are_stored_once():
    result, _ = trace_result("sdpa_math")
    data = viewer.payload(result)
    assert len(data["strings"]) == len(set(data["strings"]))
    launched = sum(len(gpu_slices(step)) for step in data["steps"])
    assert launched == 60 and len(data["kernels"]) == 15  # 20 activities x 3 steps, 15 distinct
    text = viewer.data_script(result)
    longest = max(data["strings"], key=len)
    assert text.count(json.dumps(longest)) == 1


def test_colors_are_the_timelines_and_their_text_is_readable():
    result, _ = trace_result("naive")
    colors = viewer.payload(result)["colors"]
    assert {f: bg for f, (bg, _) in colors["families"].items()} == timeline.FAMILY_COLORS
    assert [bg for bg, _ in colors["cpu"]] == list(timeline.CPU_COLORS)
    assert colors["runtime"][0] == timeline.RUNTIME_COLOR

    for bg, ink in [*colors["families"].values(), *colors["cpu"], colors["runtime"]]:
        assert viewer.contrast(ink, bg) >= 4.5, f"{ink} on {bg}"


def test_contrast_is_wcag_s():
    assert viewer.contrast("#000000", "#ffffff") == pytest.approx(21)
    assert viewer.contrast("#ffffff", "#777777") == pytest.approx(4.48, abs=0.01)
    assert viewer.contrast("#0072B2", "#0072B2") == 1


def test_families_in_the_legend_are_those_present():
    result, _ = trace_result("naive")
    data = viewer.payload(result)
    present = {timeline.family_of(a) for st in result.steps for a in st.activities}
    assert set(data["families"]) == present
    assert data["families"] == [f for f in timeline.FAMILY_COLORS if f in present]


def test_theoretical_occupancy_comes_from_the_calculator_with_its_limiter():
    result, _ = trace_result("sdpa_flash")
    a = result.steps[0].kernels[0]
    occ = occupancy.theoretical(
        a.registers_per_thread, a.threads_per_block, a.shared_memory, result.device_properties
    )
    assert occ.percent < 100
    for lang in labels.LANGUAGES:
        kernel = viewer.payload(result, lang)["kernels"][0]
        limiter = labels.label(f"limiter.{occ.limiter}", lang)
        assert kernel["theo"] == f"{fmt_g(occ.percent)}{NBSP}% ({limiter})"
        assert kernel["occ"] == f"{fmt_g(a.reported_occupancy)}{NBSP}%"
        assert kernel["gb"] == "×".join(map(str, a.grid)) + " × " + "×".join(map(str, a.block))


def test_theoretical_occupancy_is_null_when_the_calculator_cannot_tell():
    result, _ = trace_result("sdpa_flash")
    result.device_properties = {}  # no deviceProperties in the trace
    kernel = viewer.payload(result)["kernels"][0]
    assert "theo" not in kernel and kernel["occ"]


def test_words_exist_in_every_language_and_do_not_clash_with_the_site_words():
    for key, texts in VIEWER_WORDS.items():
        assert set(texts) == set(labels.LANGUAGES), key
        assert all(t.strip() for t in texts.values()), key
        fields = {lang: set(re.findall(r"\{(\w+)\}", t)) for lang, t in texts.items()}
        assert len({frozenset(f) for f in fields.values()}) == 1, f"{key}: placeholders differ {fields}"
    assert not set(VIEWER_WORDS) & set(labels.LABELS)
    assert VIEWER_WORDS["perfetto.open"]["ja"] != VIEWER_WORDS["perfetto.open"]["en"]
    for lang in labels.LANGUAGES:
        w = viewer.words(lang)
        assert set(w) == set(VIEWER_WORDS) | set(viewer.LABEL_KEYS)
    assert viewer.words("ja")["tip.duration"] == "所要時間"
    assert viewer.words("ja_JP") == viewer.words("ja")


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
    assert data["words"]["perfetto.open"] == "Perfetto で開く"
    assert viewer.write_data(result, path, "en")  # other words, other bytes


def test_view_ids_follow_the_png_names():
    result, _ = trace_result("naive")
    assert viewer.view_id(result) == "naive__8x16x1024x64__bfloat16__cuda.stepmid"
    assert viewer.view_id(result, 0) == "naive__8x16x1024x64__bfloat16__cuda.step0"
    assert viewer.payload(result, step=2)["step"] == 2
    assert viewer.payload(result, step=-1)["step"] == 2


def test_fragment_markup():
    html = viewer.fragment("v.stepmid", "_viewer/v.js", "../_downloads/a b&c.trace.json.gz", "ja")
    assert html.startswith('<div class="attnprof-trace-view" data-view="v.stepmid">')
    assert '<div class="attnprof-viewer" hidden>' in html  # shown by the script, so the PNG stays without it
    assert '<script src="_viewer/v.js"></script>' in html
    assert 'href="../_downloads/a b&amp;c.trace.json.gz" download="a b&amp;c.trace.json.gz"' in html
    assert 'class="attnprof-viewer-perfetto" data-trace="../_downloads/a b&amp;c.trace.json.gz" hidden>' in html
    assert "Perfetto で開く" in html and labels.label("timeline.download", "ja") in html
    assert 'role="status"' in html and 'tabindex="0"' in html
    assert "Open in Perfetto" in viewer.fragment("v", "d.js", "t.json.gz", "en")


def _not_run() -> Result:
    env = Environment(device_name="cpu", torch_version="2.13", python_version="3.11", date="2026-12-01")
    return Result("sdpa_flash", [1, 2, 64, 64], "bfloat16", "cpu", "unsupported", env, reason="No available kernel.")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda r: viewer.payload(_not_run()), "result of 'sdpa_flash' has status 'unsupported' (No available"),
        (lambda r: viewer.view_id(_not_run()), "only results with status 'ok' can be viewed"),
        (lambda r: viewer.payload(r, step=3), "step 3 out of range; choose 0 to 2"),
        (lambda r: viewer.write_data(r, "x.js", step=-4), "step -4 out of range; choose 0 to 2"),
        (lambda r: viewer.payload(r, "fr"), "language 'fr' is not a site language; choose one of: en, ja"),
        (lambda r: viewer.fragment("v", "", "t.json.gz"), "data_url is empty"),
    ],
)
def test_bad_input_is_refused_in_one_line(call, message: str):
    result, _ = trace_result("naive")
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        call(result)
    assert "\n" not in str(info.value)


def test_importing_the_viewer_imports_no_torch_matplotlib_or_sphinx():
    code = "import sys, attnprof.viewer; print(sorted({'torch', 'matplotlib', 'sphinx'} & set(sys.modules)))"
    src = Path(viewer.__file__).parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(src)})  # fmt: skip
    assert out.stdout.strip() == "[]"
