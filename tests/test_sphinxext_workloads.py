"""attnprof.sphinxext.workloads and the workload options of kernel-table and timeline: tiny Sphinx projects built
against results made from the 2xH200 recordings, in English and Japanese."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from attnprof import words
from attnprof.noise import Figure
from attnprof.records import results
from helpers import (
    STUB_GALLERY_CONF,
    assert_warned,
    decode_result,
    doctree,
    example_stubs,
    fixed_costs,
    h200_sweep,
    html,
    rows,
    tables,
)

PAGE = """\
# Workloads

```{train-table}
:caption: One training step per variant
```

```{decode-table}
:metric: read_pct
```

```{decode-table}
:metric: gpu_us
```

```{decode-kernel-table}
:kv-len: 131072
```

```{graph-table}
```

```{decision}
```

```{decision-summary}
:link: other
```

```{kernel-table} sdpa_flash
:workload: train
:phase: bwd
```

```{kernel-table} sdpa_flash
:workload: decode
:kv-len: 8192
```

```{timeline} sdpa_flash
:workload: train

A training step.
```
"""
OTHER = "# Other\n\nThe decision.\n"


@pytest.fixture
def built(built_once):
    pages = {"index.md": PAGE + "\n```{toctree}\nother\n```\n", "other.md": OTHER}
    fixed = fixed_costs(Figure(8.01, 7.93, 8.12, 20))
    return lambda language="en": built_once(pages, workloads=True, sweep_data=h200_sweep(), fixed=fixed,
                                         language=language)  # fmt: skip


def test_every_workload_directive_builds_warning_free(built):
    app = built()
    assert app.warning.getvalue() == ""
    for cls in ("attnprof-train-table", "attnprof-decode-table", "attnprof-decode-kernel-table",
                "attnprof-graph-table", "attnprof-decision-table", "attnprof-kernel-table"):  # fmt: skip
        assert tables(app, cls), cls


def test_the_training_table(built):
    app = built()
    (table,) = tables(app, "attnprof-train-table")
    by = {r[0]: r for r in rows(table)}
    assert set(by) == {"naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn",
                       "sdpa_auto", "flex", "compiled_naive"}  # fmt: skip
    # the step's time with its band (±3% at least: the recording kept no interval), as the decision compares it
    # the forward and the backward under the step, what is kept for the backward under the peak
    assert by["sdpa_cudnn"][1:3] == ["0.258 (0.250–0.266)\n\n0.0639 · 0.194", "3.04"]
    assert by["sdpa_math"][4] == "2160\n\n624"
    assert by["sdpa_cudnn"][5] == "1 + 3"
    assert by["sdpa_auto"][6] == "cuDNN sdpa flash bprop sm90 wgmma 64x64x64 (SDPA ran cudnn)"


def test_the_decoding_tables(built):
    app = built()
    pct, gpu = tables(app, "attnprof-decode-table")
    assert "Share of the read bandwidth" in pct.astext() and "GPU time per step" in gpu.astext()
    flash = next(r for r in rows(pct) if r[0] == "sdpa_flash")
    assert flash[-1] == "96.8"  # 4550.4 GB/s of 4700 at KV cache 131072
    times = {r[0]: r for r in rows(gpu)}
    assert times["sdpa_cudnn"][-1] == "942 (914–970)"  # the time the decision compares, with its band
    page = html(app)
    assert "Read bandwidth of this GPU, measured by the build: 4700 GB/s" in page
    # the refusal of grouped heads, in PyTorch's words, once, under the time table
    assert page.count("sdpa_efficient did not run at any cache length") == 1
    assert "both fused kernels require query, key and value to have the same num_heads" in page
    (kernels,) = tables(app, "attnprof-decode-kernel-table")
    by = {r[0]: r for r in rows(kernels)}
    assert (
        by["sdpa_flash"][2].split() == "flash split-KV fwd hd128 (bf16) flash split-KV combine hd128 (bf16)".split()
    )
    assert by["sdpa_auto"][1] == "2"


def test_the_graph_table(built):
    app = built()
    (table,) = tables(app, "attnprof-graph-table")
    auto = next(r for r in rows(table) if r[0] == "sdpa_auto")
    assert auto[1:] == ["4096", "64.4 → 9.31", "93.4 → 52.6", "42.0 → 41.1", "2 → 2", "2 → 1 (cudaGraphLaunch)"]


def test_kernel_tables_and_timelines_of_a_workload(built, tmp_path):
    app = built()
    bwd, decode = tables(app, "attnprof-kernel-table")
    names = [r[0] for r in rows(bwd)]
    assert any("flash bwd dQ dK dV" in n for n in names) and not any("flash_fwd" in n for n in names)
    assert any("split-KV fwd" in r[0] for r in rows(decode))
    png = (
        Path(app.config.attnprof_results_dir)
        / "timelines"
        / "sdpa_flash__train__8x16x1024x64__bfloat16__cuda.stepmid.en.png"
    )
    assert png.exists()


def test_japanese_words(built):
    app = built("ja")
    assert app.warning.getvalue() == ""
    page = html(app)
    for key in ("col.step_ms", "col.bwd_over_fwd", "col.cpu_eager_graph", "decision.tie"):
        assert words.text(key, "ja") in page, key
    # the decoded kernel labels in the page's language too, not the English ones
    (table,) = tables(app, "attnprof-train-table")
    flash = next(r for r in rows(table) if r[0] == "sdpa_flash")
    assert flash[6] == "flash バックワード dQ dK dV hd64 128x128 (bf16)"


def test_missing_workload_results_and_a_bad_phase_warn(project):
    page = "# Page\n\n```{train-table}\n```\n\n```{decision}\n:workload: decode\n```\n"
    app = project({"index.md": page}, conf=STUB_GALLERY_CONF, extra=example_stubs())
    assert_warned(app, "no result file of the train workload", "examples/12-training.py writes it",
                  "no result file of the decode workload", marker="attnprof-problem")  # fmt: skip
    app = project({"index.md": "# P\n\n```{kernel-table} sdpa_flash\n:workload: train\n:phase: sideways\n```\n"},
                  workloads=True)  # fmt: skip
    assert_warned(app, "kernel-table 'sdpa_flash': no phase 'sideways'; choose one of: fwd, bwd")


def test_a_decode_result_of_a_length_that_was_not_measured_warns(project):
    app = project({"index.md": "# P\n\n```{kernel-table} sdpa_flash\n:workload: decode\n:kv-len: 7\n```\n"},
                  workloads=True)  # fmt: skip
    assert_warned(app, "no decode result of 'sdpa_flash' with a KV cache of 7")


def test_pages_depend_on_the_results_folder(built):
    app = built()
    deps = {Path(p).name for p in app.env.dependencies["index"]}
    # the list of the folder's files (a new result re-reads the page), not the folder (which would on every build)
    assert "attnprof-results-listing.txt" in deps and "results" not in deps
    assert "sdpa_flash__train__8x16x1024x64__bfloat16__cuda.json" in deps


def test_profiled_kernels_longer_than_the_timed_step_are_explained(project, tmp_path):
    # a build where the profiled kernels of a step took longer than the step's median without the profiler (the
    # H200 build's decoding page showed a kernel average above the step median without a word)
    r = decode_result("sdpa_flash", 131072)
    r.timing = dataclasses.replace(r.timing, gpu_ms_median=0.80, gpu_ms_lo=0.79, gpu_ms_hi=0.81)
    results.save(r, tmp_path / "results")
    page = {"index.md": "# D\n\n```{decode-kernel-table}\n:kv-len: 131072\n```\n"}
    for language, words_ in (("en", "Two measurements of one step"), ("ja", "1 つのステップの 2 通りの計測です")):
        app = project(page, (), language=language)
        assert app.warning.getvalue() == ""
        text = doctree(app).astext().replace("\u00a0", " ")
        assert words_ in text and "sdpa_flash" in text and "936" in text and "800" in text
