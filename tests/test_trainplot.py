"""attnprof.render.trainplot: the kernel-benchmark figure of the training-scale grid (lines, bands, ceiling and peak,
points that did not run), its words in both languages, and the table at the longest length."""

from __future__ import annotations

import matplotlib
import pytest

from attnprof.render import trainplot
from test_records_trainscale import grid

matplotlib.use("Agg")


@pytest.fixture
def figure():
    import matplotlib.pyplot as plt

    made = []

    def make(*args, **kwargs):
        made.append(trainplot.figure(*args, **kwargs))
        return made[-1]

    yield make
    for fig in made:
        plt.close(fig)


def test_one_panel_per_head_dim_and_mask_with_lines_ceiling_and_peak(figure):
    g = grid()
    fig = figure(g, "bwd")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in panels] == ["head_dim 128, causal", "head_dim 128, no mask"]
    flash = [ln for ln in panels[0].get_lines() if ln.get_label() == "sdpa_flash"]
    assert flash and flash[0].get_ydata()[0] == pytest.approx(g.points[0].tflops("bwd").median)
    levels = {round(ln.get_ydata()[0], 1) for ln in panels[0].get_lines() if ln.get_label().startswith("_")}
    assert {800.0, 989.5} <= levels  # the ceiling and the published peak
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "matmul ceiling, measured (800)" in legend and "published peak (989.5)" in legend
    assert "did not run" in legend  # the math point


def test_words_follow_the_language_and_the_cpu_says_so(figure):
    ja = figure(grid(), "fwd", lang="ja")
    assert ja._suptitle.get_text().startswith("フォワード")
    cpu = figure(grid("cpu", "CPU (x86_64, 2 cores)"), "fwd")
    assert "these rates describe the CPU" in cpu._suptitle.get_text()
    assert not any("ceiling" in t.get_text() for t in cpu.legends[0].get_texts())


def test_the_report_gives_scales_rates_shares_and_reasons():
    text = trainplot.report(grid())
    assert "Matmul ceiling measured in this build: 800 TFLOP/s (from the sequence-length sweep)." in text
    assert "989.5 TFLOP/s dense bf16, as published by NVIDIA (https://www.nvidia.com/en-us/data-center/h200/)" in text
    rows = trainplot.longest_rows(grid())
    flash = rows[0]
    rate = grid().points[0].tflops("fwd")
    assert flash[:4] == ["sdpa_flash", "128", "causal", "16384"]
    assert flash[4] == f"{rate.median:.0f} [{rate.lo:.0f}–{rate.hi:.0f}]"
    assert flash[6] == f"{100 * rate.median / 800:.0f}% / {100 * grid().points[0].tflops('bwd').median / 800:.0f}%"
    assert rows[1][:2] == ["sdpa_math", "128"] and rows[1][4:] == ["skipped", "-", "-", "-"]
    assert rows[2][2] == "no mask"
    assert "- sdpa_math: skipped: a step took 114 ms" in text


def test_the_same_grid_gives_the_same_bytes(tmp_path):
    a = trainplot.png_bytes(grid(), "fwd")
    assert a == trainplot.png_bytes(grid(), "fwd") and a != trainplot.png_bytes(grid(), "bwd")
    path = trainplot.save(grid(), "fwd", tmp_path / "f.png")
    mtime = path.stat().st_mtime_ns
    trainplot.save(grid(), "fwd", path)
    assert path.stat().st_mtime_ns == mtime


def test_unknown_pass_is_one_line():
    with pytest.raises(ValueError, match=r"^unknown pass 'x'; choose one of: fwd, bwd$"):
        trainplot.png_bytes(grid(), "x")
