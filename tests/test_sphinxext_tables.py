"""attnprof.sphinxext tables and pictures as a reader needs them: key columns first, the full kernel name behind a
disclosure, words in the page's language, honest labels on a CPU-only build, the article section of each claim."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from docutils import nodes

from attnprof import words
from attnprof.analysis import claims, kernels
from attnprof.records import results
from attnprof.render import pictures
from attnprof.sphinxext.nodes import disclosure
from helpers import analysed, body_rows, doctree, html, tables, trace_result


def cpu_result(variant: str, folder: Path):
    """``(result, folder, raw trace)`` for :func:`attnprof.records.results.save`: a result of ``variant`` as a
    CPU-only build records it, run on the CPU, its steps with CPU ops and no GPU activity."""
    result, raw = trace_result(variant)
    steps = [dataclasses.replace(s, activities=[], gpu_time_us=0.0, gpu_span_us=0.0) for s in result.steps]
    return dataclasses.replace(result, device="cpu", steps=steps, device_properties={}), folder, raw


def _header(table: nodes.table) -> list[str]:
    return [entry.astext() for entry in next(iter(table.findall(nodes.thead))).findall(nodes.entry)]


# --- kernel-table -------------------------------------------------------------------------------------------------


def test_kernel_table_puts_the_label_and_the_time_first_and_the_full_name_behind_a_disclosure(project):
    app = project({"index.md": "# Flash\n\n```{kernel-table} sdpa_flash\n```\n"})
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-kernel-table")
    # the family and the launch API stacked under the kernel, so that the table keeps to the text column
    assert _header(table)[:4] == ["Kernel\n\nFamily · Launch API", "Avg. time (µs)", "Launches per step",
                                  "Registers per thread"]  # fmt: skip
    (row,) = body_rows(table)
    (name,) = row[0].findall(disclosure)
    row_ = analysed("sdpa_flash").rows[0]
    assert name[0].astext() == row_.info.short and row_.name in name[1].astext()
    assert row[0][-1]["classes"] == ["attnprof-stacked"] and row[0][-1].astext() == f"flash · {row_.launch_api}"
    assert float(row[1].astext()) == round(row_.avg_us, 1)
    page = html(app)
    # HTML: <details>, the label as its summary, closed before the stacked line (which shows without a click); key
    # columns marked (the CSS keeps the first in view)
    assert f'<details class="attnprof-disclosure attnprof-kernel-name"><summary><strong>{row_.info.short}' in page
    assert page.index("</details>") < page.index('<p class="attnprof-stacked">flash')
    assert page.count("attnprof-key") == 2 * 2  # two key columns, in the header and in the one row
    index = (Path(app.outdir) / "searchindex.js").read_text(encoding="utf-8")
    assert '"flash_fwd_kernel_trait"' in index  # a word only the full name has, stemmed: searchable


def test_kernel_table_words_are_japanese_on_a_japanese_page(project):
    app = project({"index.md": "# Naive\n\n```{kernel-table} naive\n```\n"}, language="ja")
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-kernel-table")
    cells = [[c.astext() for c in r] for r in body_rows(table)]
    labels = [c[0].split("\n")[0] for c in cells]
    assert "nvjet gemm 256x128 (bf16、Tensor コア)" in labels
    assert "memcpy DtoD (デバイス → デバイス)" in labels
    assert {c[0].split("\n")[-1].split(" · ")[0] for c in cells} >= {"gemm", "要素ごと", "Memcpy", "Memset"}
    assert not any("tensor core" in label or "Device" in label for label in labels)


# --- compare-table --------------------------------------------------------------------------------------------------

COMPARE = """\
# Glance

```{compare-table} naive sdpa_flash
- naive: The copy shows on the GPU lane.
- sdpa_flash: One fused kernel on the GPU lane.
```
"""


def test_compare_table_on_a_gpu_build_says_gpu_time_and_shows_what_the_trace_reveals(project):
    app = project({"index.md": COMPARE}, variants=("naive", "sdpa_flash"))
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-compare-table")
    assert _header(table)[:2] == ["Variant", "GPU time per forward (median, ms)"]
    cells = [[c.astext() for c in r] for r in body_rows(table)]
    assert cells[0][-1] == "The copy shows on the GPU lane."
    assert cells[1][-1] == "One fused kernel on the GPU lane."
    assert cells[1][-2] == kernels.decode(analysed("sdpa_flash").main_kernel().name).short


def test_compare_table_on_a_cpu_build_says_cpu_time_and_no_gpu_trace_sentences(project, tmp_path):
    folder = tmp_path / "results"
    results.save(*cpu_result("naive", folder))
    results.save(*cpu_result("sdpa_flash", folder))
    for language, header in (("en", "CPU time per forward (median, ms)"), ("ja", "フォワード 1 回の CPU 時間")):
        app = project({"index.md": COMPARE}, variants=(), language=language)
        assert app.warning.getvalue() == ""
        (table,) = tables(app, "attnprof-compare-table")
        assert _header(table)[1].startswith(header)
        page = html(app)
        assert "GPU time per forward" not in page and "GPU lane" not in page
        assert page.count(words.text("reveals.no_gpu", language)) == 2
    # the items stay in the catalog: a GPU build of the same page shows them, translated
    app = project({"index.md": COMPARE}, variants=(), builder="gettext")
    pot = (Path(app.outdir) / "index.pot").read_text(encoding="utf-8")
    assert 'msgid "The copy shows on the GPU lane."' in pot and 'msgid "One fused kernel on the GPU lane."' in pot


# --- timeline -------------------------------------------------------------------------------------------------------

TIMELINE = "# T\n\n```{timeline} naive\nThe copy between scaling and masking on the GPU row.\n```\n"


def test_timeline_is_shown_at_its_css_width(project):
    app = project({"index.md": TIMELINE}, variants=("naive",))
    assert app.warning.getvalue() == ""
    width = round(pictures.MAX_WIDTH_IN * pictures.SHOWN_PX_PER_IN)
    assert f'style="width: {width}px;"' in html(app)
    (png,) = (Path(app.outdir) / "_images").glob("*.png")
    assert pictures.shown_width_px(png) == width and pictures.DPI == 2 * pictures.SHOWN_PX_PER_IN


def test_timeline_of_a_cpu_run_tells_what_it_shows_instead_of_the_gpu_caption(project, tmp_path):
    results.save(*cpu_result("naive", tmp_path / "results"))
    app = project({"index.md": TIMELINE}, variants=(), language="ja")
    assert app.warning.getvalue() == ""
    page = html(app)
    assert "GPU row" not in page and "GPU アクティビティなし" in page  # the generated caption, in Japanese
    (figure,) = doctree(app).findall(nodes.figure)
    assert "GPU アクティビティなし" in figure.next_node(nodes.caption).astext()
    app = project({"index.md": TIMELINE}, variants=(), builder="gettext")
    assert 'msgid "The copy between scaling and masking on the GPU row."' in (
        Path(app.outdir) / "index.pot"
    ).read_text(encoding="utf-8")


# --- claims ---------------------------------------------------------------------------------------------------------


def test_each_claim_names_the_part_of_the_article_it_comes_from(project):
    app = project({"index.md": "# C\n\n```{claims} C1 C10 C17\n```\n"}, language="ja")
    (table,) = tables(app, "attnprof-claims-table")
    for row, claim_id in zip(body_rows(table), ("C1", "C10", "C17"), strict=True):
        (link,) = row[0].findall(nodes.reference)
        assert link["refuri"] == claims.ARTICLE_URL
        assert link.astext() == claims.get(claim_id).source("ja")
    assert [c.astext() for c in body_rows(table)[1]][1] in {words.text(f"verdict.{v}", "ja") for v in claims.VERDICTS}


def test_the_cpu_only_banner_links_the_gallery_to_get_the_gpu_guide(project, tmp_path):
    results.save(*cpu_result("naive", tmp_path / "results"))
    gallery = {"auto_examples/index.md": "# Run it yourself\n\nScripts.\n"}
    index = "# Home\n\n```{toctree}\nauto_examples/index\n```\n"
    app = project({"index.md": index}, variants=(), extra=gallery)
    assert app.warning.getvalue() == ""
    page = html(app)
    assert "build the site on a machine with a CUDA GPU" in page
    assert 'href="auto_examples/index.html"' in page and ">Run it yourself</span></a>" in page


def test_sections_of_the_article_have_words_in_every_language():
    assert {c.section for c in claims.CLAIMS.values()} == set(claims.SECTIONS)
    for section in claims.SECTIONS:
        for language in words.LANGUAGES:
            text = words.text(f"article.section.{section}", language)
            assert text.startswith("§ ") or section == "site"  # this site's own guesses name no section
    assert json.dumps(claims.ARTICLE_URL).startswith('"https://huggingface.co/blog/')


def test_pytorchs_reason_stays_as_recorded_and_what_attnprof_added_is_in_the_pages_language(project, tmp_path):
    flash, _ = trace_result("sdpa_flash")
    pytorch = "RuntimeError: No viable backend for scaled_dot_product_attention was found."
    reason = f"{pytorch} (SDPA, memory-efficient backend runs on: cuda)"
    refused = dataclasses.replace(flash, variant="sdpa_efficient", device="cpu", status="no_cuda", reason=reason,
                                  steps=[], timing=None)  # fmt: skip
    results.save(refused, tmp_path / "results")
    app = project({"index.md": "# R\n\n```{compare-table} sdpa_efficient\n```\n"}, variants=(), language="ja")
    assert app.warning.getvalue() == ""
    page = html(app)
    assert f'<span class="attnprof-message">{pytorch}</span> (sdpa_efficient の実行環境: cuda)' in page
    assert "runs on" not in page
