"""attnprof.render.timeline: PNGs drawn from results made from the real H200 traces."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from attnprof.analysis import kernels
from attnprof.records import trace
from attnprof.records.results import Environment, Result
from attnprof.render import pictures, timeline
from helpers import trace_result


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_render_writes_a_hidpi_png_and_returns_a_summary(tmp_path: Path):
    result, _ = trace_result("naive")
    path = tmp_path / "sub" / "naive.png"
    summary = timeline.render(result, path)
    width, height = png_size(path.read_bytes())
    assert width == timeline.WIDTH_IN * pictures.DPI and pictures.DPI >= 150
    assert height > 300
    assert summary.startswith("Timeline of naive, profiler step 1: 7 GPU activities (5 kernels)")
    assert summary == timeline.summary(result)


def test_same_result_gives_the_same_bytes(tmp_path: Path):
    result, _ = trace_result("sdpa_math")
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    timeline.render(result, a)
    timeline.render(result, b)
    assert a.read_bytes() == b.read_bytes()
    assert b"Software" not in a.read_bytes()  # no matplotlib version in the file


def test_unchanged_picture_is_not_rewritten(tmp_path: Path):
    result, _ = trace_result("sdpa_flash")
    path = tmp_path / "flash.png"
    timeline.render(result, path)
    before = path.stat().st_mtime_ns
    timeline.render(result, path)
    assert path.stat().st_mtime_ns == before
    timeline.render(result, path, step=0)  # another step: other bytes, so written
    assert path.read_bytes() == timeline.png_bytes(result, 0)[0] != timeline.png_bytes(result)[0]


def test_steps_can_be_chosen_and_are_checked(tmp_path: Path):
    result, _ = trace_result("naive_inplace")
    assert timeline.pick_step(result).index == 1
    assert timeline.pick_step(result, 2).index == 2
    with pytest.raises(ValueError, match="step 3 out of range; choose 0 to 2"):
        timeline.render(result, tmp_path / "x.png", step=3)


def test_every_family_has_a_color_and_memcpy_is_its_own_family():
    assert set(timeline.FAMILY_COLORS) == set(kernels.FAMILIES)
    assert len(set(timeline.FAMILY_COLORS.values())) == len(timeline.FAMILY_COLORS)
    result, _ = trace_result("naive")
    families = {timeline.family_of(a) for a in timeline.pick_step(result).activities}
    assert {"memcpy", "memset", "gemm", "softmax", "elementwise"} <= families


def test_launch_lines_link_each_launch_to_its_activity():
    result, _ = trace_result("sdpa_cudnn")
    layout = timeline._layout(result, None)
    runtime = [r.name for r in layout.rows].index("CUDA runtime / driver")
    assert len(layout.links) == len(timeline.pick_step(result).activities) == 2
    assert all(r0 == runtime and x0 <= x1 for r0, x0, _, x1 in layout.links)
    labels = [b.label for b in layout.rows[-1].bars]
    assert any("cuDNN" in label for label in labels)  # decoded short names on the GPU lane


def test_lanes_cpu_by_depth_then_launches_then_streams():
    result, _ = trace_result("naive")
    step = timeline.pick_step(result)
    lanes = timeline.lanes(step, "ja")
    depths = sorted({o.depth for o in step.cpu_ops if o.category not in trace.LAUNCH_CATEGORIES})
    assert [(lane.kind, lane.depth) for lane in lanes[: len(depths)]] == [("cpu", d) for d in depths]
    assert [lane.kind for lane in lanes[len(depths) :]] == ["launch", "gpu"]
    assert lanes[0].name == "CPU (深さ 0)" and lanes[-1].name == "GPU ストリーム 7"
    assert sum(len(lane.ops) for lane in lanes) + len(lanes[-2].calls) == len(step.cpu_ops)
    assert lanes[-1].activities == step.activities
    assert lanes[-2].calls == trace.launch_calls(step)
    layout = timeline._layout(result, None)
    assert [row.name for row in layout.rows] == [lane.name for lane in timeline.lanes(step)]


def test_a_step_without_gpu_work_has_cpu_lanes_only():
    result, _ = trace_result("naive")
    step = timeline.pick_step(result)
    step.activities = []
    step.cpu_ops = [o for o in step.cpu_ops if o.category not in trace.LAUNCH_CATEGORIES]
    assert {lane.kind for lane in timeline.lanes(step)} == {"cpu"}


def test_labels_are_shortened_to_fit():
    assert timeline.fit_label("softmax warp forward", 1000, 160) == "softmax warp forward"
    short = timeline.fit_label("softmax warp forward", 80, 160)
    assert short.endswith("…") and len(short) < 10
    assert timeline.fit_label("softmax warp forward", 10, 160) == ""


def test_a_result_that_did_not_run_draws_its_reason(tmp_path: Path):
    env = Environment(device_name="CPU", torch_version="2.13.0+cpu", python_version="3.11", date="2026-11-30")
    result = Result("sdpa_cudnn", [1, 4, 256, 64], "bfloat16", "cpu", "no_cuda", env, reason="no CUDA device")
    summary = timeline.render(result, tmp_path / "x.png")
    assert "did not run (no CUDA device): no CUDA device" in summary
    assert png_size((tmp_path / "x.png").read_bytes())[1] < 300


def test_figure_goes_through_pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result, _ = trace_result("flex")
    fig = timeline.figure(result)
    assert fig.number in plt.get_fignums()  # so sphinx-gallery's scraper picks it up
    plt.close(fig)


def test_japanese_words_in_the_japanese_picture():
    naive_result, _ = trace_result("naive")
    en, _ = timeline.png_bytes(naive_result, lang="en")
    ja, _ = timeline.png_bytes(naive_result, lang="ja")
    if pictures.cjk_font() is None:
        # without a Japanese font the picture falls back to English words rather than drawing empty boxes
        assert ja == en
    else:
        assert ja != en
    layout = timeline._layout(naive_result, None, "ja")
    assert layout.rows[0].name == "CPU (深さ 0)"  # half-width parentheses, as every generated Japanese word
    assert any(row.gpu and row.name.startswith("GPU ストリーム") for row in layout.rows)


def test_japanese_picture_words_come_from_the_word_table():
    naive_result, _ = trace_result("naive")
    layout = timeline._layout(naive_result, None, "ja")
    labels = [bar.label for row in layout.rows if row.gpu for bar in row.bars]
    assert "nvjet gemm 256x128 (bf16、Tensor コア)" in labels
    assert not any("tensor core" in label or "Device" in label for label in labels)
    assert layout.summary.startswith("naive のタイムライン (プロファイラのステップ 1)")
    assert kernels.family_text("elementwise", "ja") in {kernels.family_text(f, "ja") for f in layout.families}


def test_labels_fit_by_their_width_on_screen():
    latin = timeline.fit_label("abcdefghijklmnopqrstuvwxyz", 200, pictures.DPI)
    japanese = timeline.fit_label("要素ごと要素ごと要素ごと要素ごと", 200, pictures.DPI)
    assert latin.endswith("…") and japanese.endswith("…")
    assert len(japanese) < len(latin)  # a Japanese character takes a full em


def test_pictures_are_drawn_for_twelve_pixel_text_at_twice_the_pixels():
    assert pictures.TEXT_PT * pictures.SHOWN_PX_PER_IN / 72 >= 11
    assert pictures.DPI == 2 * pictures.SHOWN_PX_PER_IN
    assert timeline.WIDTH_IN <= pictures.MAX_WIDTH_IN
    rc = pictures.picture_rc("en")
    assert rc["font.size"] == rc["xtick.labelsize"] == rc["legend.fontsize"] == pictures.TEXT_PT
    with pytest.raises(ValueError, match="not a PNG file"):
        pictures.shown_width_px(b"GIF89a" + b"\0" * 30)
