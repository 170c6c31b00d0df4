"""The sweep directives of attnprof.sphinxext: tiny Sphinx projects built against a sweep file made here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from docutils import nodes

from attnprof.measure import sweeprun
from attnprof.records.results import Environment
from attnprof.records.sweep import Sweep, SweepPoint
from attnprof.render import pictures
from attnprof.words import fmt
from helpers import (
    STUB_GALLERY_CONF,
    assert_warned,
    doctree,
    example_stubs,
    h200_sweep,
    html,
    rows,
    tables,
    write_catalog,
)

PAGE = """\
# How cost grows

```{scaling-plot}
:metric: gpu_ms
:head-dim: 64

Time per forward call against sequence length.
```

```{scaling-table}
:head-dim: 64
```

```{roofline-table}
:head-dim: 128
```

```{sdpa-choice-table}
:caption: SDPA's pick
```
"""


def cpu_sweep() -> Sweep:
    """A CPU sweep like the docs build makes without a GPU: head_dim 64 only, no memory counter, no ceilings."""
    env = Environment(
        device_name="CPU (x86_64, 2 cores)",
        torch_version="2.13.0+cpu",
        python_version="3.11.7",
        date="2026-11-30T03:00:00+00:00",
    )
    points = []
    for v in sweeprun.CPU_VARIANTS:
        for s in sweeprun.CPU_SEQS:
            ms = 0.001 * s * (3 if v.startswith("naive") or v == "sdpa_math" else 1)
            points.append(
                SweepPoint(
                    v,
                    s,
                    64,
                    "ok",
                    gpu_ms=ms,
                    repetitions=10,
                    tflops=1e-3,
                    dispatch_us=ms * 1e3,
                    sdpa_choice="flash" if v == "sdpa_auto" else None,
                )
            )
    return Sweep(
        device="cpu",
        dtype="float32",
        batch=1,
        heads=2,
        seqs=list(sweeprun.CPU_SEQS),
        head_dims=[64],
        variants=list(sweeprun.CPU_VARIANTS),
        environment=env,
        points=points,
        note="CPU",
    )


@pytest.fixture
def project(project):
    """The shared project builder for sweep pages: ``project(pages, data=None, **kw)``, no variant results and no
    banner."""

    def build(pages: dict[str, str], data: Sweep | None = None, conf: str = "", **kw):
        return project(pages, (), sweep_data=data, conf="attnprof_env_banner = False\n" + conf, **kw)

    return build


def test_all_four_directives_render_without_warnings(project, tmp_path):
    app = project({"index.md": PAGE}, h200_sweep())
    assert app.warning.getvalue() == ""
    page = html(app)

    png = tmp_path / "results" / "plots" / "scaling__cuda__gpu_ms__hd64__en.png"
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"
    assert 'alt="Time per forward call against sequence length."' in page
    assert "<figcaption>" in page and list(
        (Path(app.outdir) / "_images").glob("scaling__cuda__gpu_ms__hd64__en*.png")
    )

    (table,) = tables(app, "attnprof-scaling-table")
    body = {r[0]: r[1:] for r in rows(table)}
    assert list(body) == list(sweeprun.GPU_VARIANTS)
    assert body["sdpa_math"][-1] == "out of memory"
    assert body["flex"][0] == "–" and body["flex"][1] != "–"  # flex runs at 1024, 4096 and 16384 only
    assert "GPU time per forward (median, ms), head_dim 64" in table.next_node(nodes.title).astext()
    note = "Compiled variants (flex) build a new kernel for every new shape, so the sweep measures them at seq 1024"
    assert note in page
    # PyTorch's reason as recorded (marked), the sweep's own reason in words
    assert (
        'sdpa_math at seq 16384: <span class="attnprof-message">CUDA out of memory. Tried to allocate 128.00 GiB'
        in page
    )

    assert "bf16 matrix multiply (8192×8192×8192) 720\u00a0TFLOP/s" in page
    assert "4.10\u00a0TB/s" in page and "176\u00a0FLOP/byte" in page
    (roof,) = tables(app, "attnprof-roofline-table")
    roof_rows = {r[0]: r for r in rows(roof)}
    assert roof_rows["sdpa_math"][1] == "8192" and roof_rows["sdpa_math"][-1] == "memory"
    assert roof_rows["sdpa_flash"][1] == "16384" and roof_rows["sdpa_flash"][-1] == "compute"

    (choice,) = tables(app, "attnprof-sdpa-choice-table")
    choice_rows = rows(choice)
    assert len(choice_rows) == 12
    # SDPA's time and the fastest backend's, each with its band (±3% at least), and the margin of the one over the
    # other with the band both allow: a reader can check "yes" and "too close to call" from the row
    first = [c.replace("\u00a0", " ") for c in choice_rows[0]]
    ms = h200_sweep().point("sdpa_auto", 64, 512).gpu_ms
    band = f"{fmt.number(ms)} ms, {fmt.number(ms * 0.97)}–{fmt.number(ms * 1.03)}"
    assert first[:5] == ["64", "512", f"cudnn ({band})", f"sdpa_cudnn ({band})", "yes: 0 % (−5.8 % to +6.2 %)"]
    assert choice.next_node(nodes.title).astext() in ("SDPA's pick", "SDPA\u2019s pick")  # smart quotes
    assert "CPU-bound points, where issuing the call takes the CPU longer" in page
    assert "sdpa_math, head_dim 64, seq 512: 900\u00a0µs to issue" in page


def test_unstable_points_are_flagged_not_used_silently(project):
    # cuDNN at head_dim 128, seq 16384, whose samples split between 13.2 and 15.6 ms: the roofline row that rests
    # on it, its cell in the scaling table and SDPA's row there carry the mark, and a note names the point.
    data = h200_sweep()
    for v in ("sdpa_cudnn", "sdpa_auto"):
        p = data.point(v, 128, 16384)
        p.unstable, p.attempts, p.gpu_ms_p10, p.gpu_ms_p90 = True, 2, 13.2, 15.6
    page = (
        "# S\n\n```{scaling-table}\n:head-dim: 128\n```\n\n```{roofline-table}\n:head-dim: 128\n```\n\n"
        "```{sdpa-choice-table}\n:head-dim: 128\n```\n\n```{scaling-table}\n:head-dim: 64\n```\n"
    )
    for language, note in (("en", "† Unstable: the timed calls spread by more than 10%"), ("ja", "† 不安定: ")):
        app = project({"index.md": page}, data, language=language)
        assert app.warning.getvalue() == ""
        scaling_128, scaling_64 = tables(app, "attnprof-scaling-table")
        cudnn = next(r for r in rows(scaling_128) if r[0] == "sdpa_cudnn")
        assert cudnn[-1].endswith("†") and not cudnn[-2].endswith("†")
        assert not any(c.endswith("†") for r in rows(scaling_64) for c in r)
        (roof,) = tables(app, "attnprof-roofline-table")
        roof_cudnn = next(r for r in rows(roof) if r[0] == "sdpa_cudnn")
        assert roof_cudnn[1] == "16384" and all(c.endswith("†") for c in roof_cudnn[2:4])
        (choice,) = tables(app, "attnprof-sdpa-choice-table")
        assert next(r for r in rows(choice) if r[1] == "16384")[2].endswith("†")
        notes = [n.astext() for n in doctree(app).findall(nodes.paragraph) if "attnprof-unstable" in n["classes"]]
        assert len(notes) == 3 and all(n.startswith(note) for n in notes)
        assert "sdpa_cudnn" in notes[0] and "13.2\u00a0ms–15.6\u00a0ms" in notes[0]


def test_a_pick_slower_within_the_noise_is_too_close_to_call(project):
    data = h200_sweep()
    data.point("sdpa_flash", 128, 2048).gpu_ms = data.point("sdpa_cudnn", 128, 2048).gpu_ms / 1.02
    page = {"index.md": "# S\n\n```{sdpa-choice-table}\n:head-dim: 128\n```\n"}
    for language, expected in (("en", "too close to call: +2.0\u00a0% (−3.9\u00a0% to +8.3\u00a0%)"),
                               ("ja", "僅差で判定できない: +2.0\u00a0% (−3.9\u00a0%〜+8.3\u00a0%)")):  # fmt: skip
        app = project(page, data, language=language)
        (choice,) = tables(app, "attnprof-sdpa-choice-table")
        assert next(r for r in rows(choice) if r[1] == "2048")[4] == expected


def test_a_pick_that_is_not_the_fastest_says_by_how_much(project):
    data = h200_sweep()
    flash = data.point("sdpa_flash", 128, 2048)
    flash.gpu_ms = data.point("sdpa_cudnn", 128, 2048).gpu_ms / 1.5
    app = project({"index.md": "# S\n\n```{sdpa-choice-table}\n:head-dim: 128\n```\n"}, data)
    assert app.warning.getvalue() == ""
    (choice,) = tables(app, "attnprof-sdpa-choice-table")
    row = next(r for r in rows(choice) if r[1] == "2048")
    assert (
        row[3].startswith("sdpa_flash")
        and row[4] == "no: SDPA's call is slower by +50\u00a0% (+41\u00a0% to +59\u00a0%)"
    )
    assert len(rows(choice)) == 6


def test_japanese_build_uses_japanese_words_and_its_own_picture(project, tmp_path):
    project({"index.md": PAGE}, h200_sweep())
    app = project({"index.md": PAGE}, h200_sweep(), language="ja")
    assert app.warning.getvalue() == ""
    plots = tmp_path / "results" / "plots"
    assert (plots / "scaling__cuda__gpu_ms__hd64__ja.png").exists()
    assert (plots / "scaling__cuda__gpu_ms__hd64__en.png").exists()  # not overwritten by the ja build
    page = html(app)
    for words in (
        "メモリ不足",
        "最速の SDPA バックエンド",
        "実行できた最長シーケンス",
        "このビルドで計測した上限",
        "CPU 律速の点",
    ):
        assert words in page
    (table,) = tables(app, "attnprof-scaling-table")
    assert "フォワード 1 回の GPU 時間" in table.next_node(nodes.title).astext()


def test_plot_caption_is_translated_and_becomes_the_alt_text(project, tmp_path):
    page = {"index.md": "# S\n\n```{scaling-plot}\n:metric: peak_mib\n\nMemory against length.\n```\n"}
    app = project(page, h200_sweep(), builder="gettext")
    assert 'msgid "Memory against length."' in (Path(app.outdir) / "index.pot").read_text(encoding="utf-8")
    write_catalog(tmp_path / "src", {"Memory against length.": "メモリとシーケンス長。"})
    app = project(page, h200_sweep(), language="ja")
    assert app.warning.getvalue() == ""
    assert 'alt="メモリとシーケンス長。"' in html(app)
    assert (tmp_path / "results" / "plots" / "scaling__cuda__peak_mib__hd64__ja.png").exists()


def test_picture_is_not_rewritten_when_nothing_changed(project, tmp_path):
    page = {"index.md": "# S\n\n```{scaling-plot}\n:metric: tflops\n:head-dim: 128\n\nRate.\n```\n"}
    app = project(page, h200_sweep())
    png = tmp_path / "results" / "plots" / "scaling__cuda__tflops__hd128__en.png"
    before = png.stat().st_mtime_ns
    later = before + 5_000_000_000
    for path in (tmp_path / "src" / "index.md", tmp_path / "results" / "sweep__cuda.json"):
        os.utime(path, ns=(later, later))
    app.build()
    assert app.warning.getvalue() == ""
    assert png.stat().st_mtime_ns == before


def test_cpu_sweep_shows_what_a_cpu_build_can(project):
    app = project({"index.md": PAGE.replace(":head-dim: 128", ":head-dim: 64")}, cpu_sweep())
    assert app.warning.getvalue() == ""
    page = html(app)
    assert "No ceilings: this sweep ran on the CPU" in page
    assert "This sweep ran on the CPU, which does the work itself" in page
    (table,) = tables(app, "attnprof-scaling-table")
    assert "CPU time per forward (median, ms)" in table.next_node(nodes.title).astext()
    assert not tables(app, "attnprof-roofline-table")


def test_head_dim_missing_from_the_sweep_is_a_note_not_a_warning(project):
    app = project({"index.md": "# S\n\n```{scaling-plot}\n:head-dim: 128\n\nC.\n```\n"}, cpu_sweep())
    assert app.warning.getvalue() == ""
    page = html(app)
    assert "head_dim 128 is not part of this build" in page and "sweep (measured: 64)." in page


def test_missing_sweep_file_warns_with_location(project):
    app = project(
        {"index.md": "# S\n\nText.\n\n```{scaling-table}\n```\n"}, conf=STUB_GALLERY_CONF, extra=example_stubs()
    )
    parts = ("no sweep file (sweep__cuda.json or sweep__cpu.json)", "examples/10-scaling.py writes it", "index.md:5")
    assert_warned(app, *parts, marker="attnprof-problem")


def test_stale_sweep_file_warns(project, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "sweep__cpu.json").write_text('{"schema_version": 0, "kind": "sweep"}')
    app = project({"index.md": "# S\n\n```{roofline-table}\n```\n"})
    warnings = app.warning.getvalue()
    assert "stale or unreadable sweep file" in warnings and "schema version 0" in warnings
    assert "index.md:3" in warnings


def test_unknown_metric_is_reported_by_docutils(project):
    app = project({"index.md": "# S\n\n```{scaling-plot}\n:metric: ms\n\nC.\n```\n"}, h200_sweep())
    warnings = app.warning.getvalue()
    assert "index.md:4" in warnings and "'metric'" in warnings and '"ms" unknown; choose from "gpu_ms"' in warnings


def test_picture_language_falls_back_to_english_without_japanese_glyphs(monkeypatch):
    monkeypatch.setattr(pictures, "cjk_font", lambda: None)
    assert pictures.picture_language("ja") == "en"
    assert pictures.picture_language("en") == "en"


def test_reasons_the_sweep_gave_itself_are_words_and_pytorchs_are_recorded():
    from attnprof.sphinxext.scaling import SweepDirective

    skipped = SweepPoint("naive", 32768, 64, "oom", "skipped: out of memory at seq 16384")
    budget = SweepPoint("flex", 16384, 64, "skipped", "skipped: the time budget of 45 s was spent")
    oom = SweepPoint("naive", 16384, 64, "oom", "CUDA out of memory. Tried to allocate 128.00 GiB")
    assert SweepDirective.why(skipped) == ("words", "scaling.cell.oom_skipped")
    assert SweepDirective.why(budget) == ("words", "scaling.cell.skipped")
    assert SweepDirective.why(oom) == ("recorded", "CUDA out of memory. Tried to allocate 128.00 GiB")


def test_remeasured_and_unreliable_points_are_marked_and_named(project):
    # the H200's slow naive_inplace point, measured again and kept at the faster figure; a CPU point under contention
    # whose band is still too wide: it is marked, named with its band, and decides nothing
    data = h200_sweep()
    again = data.point("naive_inplace", 64, 1024)
    again.remeasured, again.first_gpu_ms = "reference", 0.989
    wide = data.point("sdpa_flash", 64, 2048)
    wide.gpu_ms_lo, wide.gpu_ms_hi = wide.gpu_ms * 0.2, wide.gpu_ms * 3
    page = "# S\n\n```{scaling-table}\n:head-dim: 64\n```\n\n```{sdpa-choice-table}\n:head-dim: 64\n```\n"
    for language, words_ in (("en", ("‡ Re-measured", "§ Unreliable")), ("ja", ("‡ 再計測", "§ 信頼できない"))):
        app = project({"index.md": page}, data, language=language)
        assert app.warning.getvalue() == ""
        (scaling,) = tables(app, "attnprof-scaling-table")
        by = {r[0]: r for r in rows(scaling)}
        assert by["naive_inplace"][2].endswith("‡") and by["sdpa_flash"][3].endswith("§")
        text = doctree(app).astext().replace("\u00a0", " ")
        assert words_[0] in text and "0.989 ms" in text and words_[1] in text
        (choice,) = tables(app, "attnprof-sdpa-choice-table")
        row = next(r for r in rows(choice) if r[1] == "2048")
        assert not row[3].startswith("sdpa_flash")  # a point that decides nothing is not the fastest
