"""The training-scale directives in a tiny Sphinx project, from a made H200 grid and one measured on the CPU."""

from __future__ import annotations

import pytest

from attnprof.measure import trainscale as measure
from attnprof.records import trainscale as records
from helpers import STUB_GALLERY_CONF, example_stubs
from test_records_trainscale import grid

PAGE = """\
# Training across lengths

```{train-scale-plot}
:pass: bwd

The backward of each backend.
```

```{train-scale-table}
:caption: At the longest length
```
"""


def test_plot_and_table_render_without_warnings(project, tmp_path):
    records.save(grid(), tmp_path / "results")
    app = project({"index.md": PAGE}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert 'class="attnprof-train-scale-image"' in html and 'alt="The backward of each backend."' in html
    assert (tmp_path / "results" / "plots" / "trainscale__cuda__bwd__en.png").exists()
    assert '<table class="attnprof-table attnprof-train-scale-table' in html
    assert "At the longest length" in html and "Matmul ceiling measured in this build: 800 TFLOP/s" in html
    assert "https://www.nvidia.com/en-us/data-center/h200/" in html
    assert "skipped: a step took 114 ms" in html  # the reason of the point that did not run


def test_japanese_words(project, tmp_path):
    records.save(grid(), tmp_path / "results")
    app = project({"index.md": PAGE}, variants=(), language="ja")
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "公表ピーク" in html and "マスクなし" in html and "バックワード TFLOP/s" in html


@pytest.mark.parametrize("phase", ["fwd", "bwd"])
def test_a_cpu_grid_renders_and_says_it_is_the_cpus(project, tmp_path, phase):
    g = measure.measure_grid("cpu", variants_=["sdpa_math"], seqs=[16, 32], head_dims=[8], reps=1,
                             slow_ms=float("inf"))  # fmt: skip
    records.save(g, tmp_path / "results")
    app = project({"index.md": PAGE.replace(":pass: bwd", f":pass: {phase}")}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "No matmul ceiling: measured on the CPU." in html and "No published peak for CPU" in html


def test_a_missing_grid_is_a_warning_naming_the_script(project):
    app = project({"index.md": PAGE}, variants=(), conf=STUB_GALLERY_CONF, extra=example_stubs())
    assert "no training-scale file (trainscale__cuda.json or trainscale__cpu.json)" in app._warning.getvalue()
    assert "examples/12-training.py writes it" in app._warning.getvalue()


def test_the_published_peaks_are_listed_once_each_with_their_source(project):
    app = project({"index.md": "# Peaks\n\n```{published-peaks}\n```\n"}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert html.count("NVIDIA H100 SXM") == 1 and "NVIDIA H200" in html and "NVIDIA A100" in html
    assert '<a class="reference external" href="https://www.nvidia.com/en-us/data-center/h200/">' in html
    assert "989.5" in html and "312" in html and "Dense bf16 TFLOP/s, as published" in html
