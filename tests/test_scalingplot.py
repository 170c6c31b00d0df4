"""attnprof.render.scalingplot: the scaling plot of a sweep (the H200 sweep of the helpers, and a made CPU one): what
it draws, its words in each language, and bytes that depend on nothing but the sweep."""

from __future__ import annotations

import dataclasses

import matplotlib
import pytest

from attnprof import variants
from attnprof.render import scalingplot
from helpers import h200_sweep

matplotlib.use("Agg")


@pytest.fixture
def figure():
    import matplotlib.pyplot as plt

    made = []

    def make(*args, **kwargs):
        made.append(scalingplot.figure(*args, **kwargs))
        return made[-1]

    yield make
    for fig in made:
        plt.close(fig)


def test_one_line_per_variant_that_ran_and_sdpas_choice_is_dashed(figure):
    sw = h200_sweep()
    fig = figure(sw, "gpu_ms", 64)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")}
    drawn = [v for v in sw.variants if any(p.ok for p in sw.points_of(v, 64))]
    assert set(drawn) <= set(lines)
    auto = lines[variants.sdpa_chooser()]
    assert auto.get_linestyle() == "--" and auto.get_markerfacecolor() == "white"
    assert lines["sdpa_flash"].get_linestyle() == "-"
    xs, ys = lines["sdpa_flash"].get_data()
    ok = [(p.seq, p.gpu_ms) for p in sw.points_of("sdpa_flash", 64) if p.ok]
    assert list(zip(xs, ys, strict=True)) == ok


def test_the_words_follow_the_language_and_the_device(figure):
    sw = h200_sweep()
    en = figure(sw, "gpu_ms", 64, lang="en").axes[0]
    ja = figure(sw, "gpu_ms", 64, lang="ja").axes[0]
    assert en.get_xlabel() != ja.get_xlabel() and en.get_ylabel() != ja.get_ylabel()
    cpu = dataclasses.replace(sw, device="cpu")
    assert scalingplot.metric_words(cpu, "gpu_ms", "en") != scalingplot.metric_words(sw, "gpu_ms", "en")
    assert scalingplot.metric_words(sw, "tflops", "en") != scalingplot.metric_words(sw, "gpu_ms", "en")


def test_the_summary_names_the_variants_and_counts_what_did_not_run():
    sw = h200_sweep()
    failed = sum(1 for p in sw.points if p.head_dim == 64 and not p.ok)
    assert failed > 0  # the helper's sweep has OOMs and an unsupported point
    text = scalingplot.summary(sw, "gpu_ms", 64, "en")
    assert str(failed) in text and "sdpa_flash" in text


def test_an_unknown_metric_is_one_line_naming_the_choices():
    with pytest.raises(ValueError, match=r"^unknown metric 'speed'; choose one of: gpu_ms"):
        scalingplot.png_bytes(h200_sweep(), "speed", 64)


def test_the_same_sweep_gives_the_same_bytes_and_render_writes_only_changes(tmp_path):
    sw = h200_sweep()
    png = scalingplot.png_bytes(sw, "gpu_ms", 64)
    assert png.startswith(b"\x89PNG") and scalingplot.png_bytes(sw, "gpu_ms", 64) == png
    assert scalingplot.png_bytes(sw, "gpu_ms", 128) != png
    path = tmp_path / "plot.png"
    alt = scalingplot.render(sw, "gpu_ms", 64, path)
    assert path.read_bytes() == png and alt == scalingplot.summary(sw, "gpu_ms", 64, "en")
    before = path.stat().st_mtime_ns
    scalingplot.render(sw, "gpu_ms", 64, path)
    assert path.stat().st_mtime_ns == before
