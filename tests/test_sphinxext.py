"""attnprof.sphinxext: tiny Sphinx projects in tmp_path, built against results made from the real H200 traces."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from docutils import nodes

from attnprof import words
from attnprof.analysis import claims, summary, zero_occupancy
from attnprof.noise import Figure
from attnprof.records import results
from attnprof.records.results import Environment, Result
from attnprof.sphinxext import metrics
from attnprof.variants import VARIANTS
from helpers import (
    NO_CUDA,
    STUB_GALLERY_CONF,
    analysed,
    analysed_build,
    assert_warned,
    body_rows,
    doctree,
    example_stubs,
    fixed_costs,
    h200_environment,
    html,
    no_gpu_run,
    tables,
    trace_result,
    write_catalog,
)

# --- kernel-table ---------------------------------------------------------------------------------------------------


def test_kernel_table_has_one_row_per_distinct_activity(project):
    app = project({"index.md": "# Naive\n\n```{kernel-table} naive\n:caption: Kernels of one step\n```\n"})
    assert app.warning.getvalue() == ""
    naive, _ = trace_result("naive")
    expected = summary.kernel_rows(naive.steps, naive.device_properties)
    (table,) = tables(app, "attnprof-kernel-table")
    assert len(body_rows(table)) == len(expected) == 7  # 5 kernels, a memcpy, a memset
    first_cells = [row[0].astext() for row in body_rows(table)]
    for row, cell in zip(expected, first_cells, strict=True):
        assert row.info.short in cell and row.name in cell  # decoded name, full name below it
    assert "Kernels of one step" in table.next_node(nodes.title).astext()
    page = html(app)
    assert "Registers per thread" in page and "Theoretical occupancy" in page


def test_kernel_table_of_flash_shows_registers_and_occupancy(project):
    app = project({"index.md": "# Flash\n\n```{kernel-table} sdpa_flash\n```\n"})
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-kernel-table")
    (row,) = body_rows(table)
    cells = [c.astext() for c in row]
    assert cells[3] == "flash"
    assert cells[5] == "255"  # registers per thread
    assert "12.5" in cells[9] and "registers" in cells[9]  # theoretical occupancy, limited by registers


def test_kernel_table_gives_each_launch_configuration_its_row_and_names_every_limiter(project):
    # math launches `where` with grid 4096 and with grid 524288: two rows, side by side, each saying so
    cases = (
        ("en", "launched with 2 configurations: one row each", "(registers and shared memory)"),
        ("ja", "2 通りの起動構成で起動 (構成ごとに 1 行)", "(レジスタと共有メモリ)"),
    )
    page = "# M\n\n```{kernel-table} sdpa_math\n```\n\n```{kernel-table} sdpa_cudnn\n```\n"
    for language, configs, limiters in cases:
        app = project({"index.md": page}, variants=("sdpa_math", "sdpa_cudnn"), language=language)
        assert app.warning.getvalue() == ""
        math_table, cudnn_table = tables(app, "attnprof-kernel-table")
        cells = [[c.astext() for c in r] for r in body_rows(math_table)]
        where = [i for i, r in enumerate(cells) if "where (bool, fp32, fp32)" in r[0]]
        assert len(where) == 2 and where[1] == where[0] + 1
        assert [cells[i][7].split(" × ")[0] for i in where] == ["4096×1×1", "524288×1×1"]
        assert all(configs in cells[i][0] for i in where)
        assert sum(configs in r[0] for r in cells) == 4  # `where` and the bf16 copy, two rows each
        (cudnn,) = [[c.astext() for c in r] for r in body_rows(cudnn_table) if "cuDNN" in r[0].astext()]
        assert cudnn[9].endswith(limiters)


# --- unsupported (missing and stale files: test_sphinxext_lookup.py) ------------------------------------------------


def _failed(variant: str, status: str, reason: str, device: str = "cuda") -> Result:
    env = Environment(device_name="CPU (x86_64, 2 cores)", torch_version="2.13.0+cpu", python_version="3.11.7",
                      date="2026-11-30T02:00:00+00:00")  # fmt: skip
    return Result(variant=variant, shape=[1, 4, 256, 64], dtype="float32", device=device, status=status,
                  environment=env, reason=reason)  # fmt: skip


REASON = "RuntimeError: No available kernel. Aborting execution. | Flash attention requires q,k,v to be half"


def test_unsupported_result_renders_its_reason_without_warning(project, tmp_path):
    folder = tmp_path / "results"
    results.save(_failed("sdpa_flash", "unsupported", REASON), folder)
    pages = {
        "index.md": """\
            # Flash

            ```{kernel-table} sdpa_flash
            ```

            ```{timeline} sdpa_flash
            Caption.
            ```

            Time: {metric}`sdpa_flash:gpu_ms`. Status: {metric}`sdpa_flash:status`.
            """
    }
    app = project(pages, variants=())
    assert app.warning.getvalue() == ""
    page = html(app)
    assert page.count("Flash attention requires q,k,v to be half") >= 2  # kernel table and timeline notes
    assert "sdpa_flash did not run (not supported here)" in page
    assert 'Time: <span class="attnprof-metric attnprof-not-run">not supported here</span>' in page


# --- compare-table --------------------------------------------------------------------------------------------------

COMPARE = """\
    # At a glance

    ```{compare-table} naive naive_inplace sdpa_flash
    :link-prefix: variants/

    - naive: The copy shows up as a memcpy.
    - sdpa_flash: One fused kernel.
    ```
    """


def test_compare_table_rows_links_and_reveals(project):
    app = project({"index.md": COMPARE}, extra={"variants/naive.md": "# Naive\n\nStub.\n"}, suppress_warnings=[])
    # variants/naive.md is not in a toctree: that is Sphinx's only complaint
    assert [w for w in app.warning.getvalue().splitlines() if "toctree" not in w] == []
    (table,) = tables(app, "attnprof-compare-table")
    rows = body_rows(table)
    assert [r[0].astext() for r in rows] == ["naive", "naive_inplace", "sdpa_flash"]
    assert rows[0][2].astext() == "5"  # kernels per step
    assert rows[0][-1].astext() == "The copy shows up as a memcpy."  # prefix stripped
    assert rows[1][-1].astext() == ""
    assert rows[2][-1].astext() == "One fused kernel."
    page = html(app)
    assert 'href="variants/naive.html"' in page  # the page exists: linked
    assert "variants/naive-inplace.html" not in page  # no such page: plain text
    # the conditions of every row, said once: the figures depend on the shape
    text = doctree(app).astext().replace("\xa0", " ")
    assert "Every row at shape [8, 16, 1024, 64], bfloat16, on NVIDIA H200, causal mask: each figure depends" in text


def test_compare_table_item_for_unknown_variant_warns(project):
    text = "# T\n\n```{compare-table} naive\n\n- flash: nope\n```\n"
    app = project({"index.md": text})
    assert "does not start with one of the table's variants (naive)" in app.warning.getvalue()


def test_compare_table_items_are_extracted_and_translated(project, tmp_path):
    app = project({"index.md": COMPARE}, builder="gettext")
    pot = (Path(app.outdir) / "index.pot").read_text(encoding="utf-8")
    assert 'msgid "The copy shows up as a memcpy."' in pot  # without the "naive:" prefix
    assert 'msgid "One fused kernel."' in pot
    assert "Kernels per step" not in pot  # generated labels are not messages
    write_catalog(tmp_path / "src", {"The copy shows up as a memcpy.": "コピーが memcpy として現れる。"})
    app = project({"index.md": COMPARE}, language="ja")
    (table,) = tables(app, "attnprof-compare-table")
    assert body_rows(table)[0][-1].astext() == "コピーが memcpy として現れる。"
    assert "ステップあたりカーネル数" in html(app)  # Japanese column header from the label table


def test_cpu_cost_table(project, tmp_path):
    results.save(_failed("sdpa_cudnn", "no_cuda", "no CUDA device"), tmp_path / "results")
    app = project({"index.md": "# C\n\n```{cpu-cost-table} naive sdpa_flash sdpa_cudnn\n```\n"})
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-cpu-cost-table")
    rows = [[c.astext() for c in r] for r in body_rows(table)]
    cost = summary.cpu_cost("sdpa_flash", analysed("sdpa_flash"))
    assert rows[1][0] == "sdpa_flash" and rows[1][4] == f"{100 * cost.profiler_share:.0f}\u00a0%"
    assert len(rows[1]) == 5  # no column for the forcing context: it costs the same for every backend
    assert rows[2][1] == "no CUDA device: no CUDA device"
    assert "Forcing a backend costs" not in html(app)  # this build measured no fixed costs: nothing made up


def test_the_one_forcing_cost_is_cited_wherever_a_page_needs_it(project, tmp_path):
    fixed = fixed_costs(Figure(8.01, 7.93, 8.12, 20), per_op=Figure(1.5, 1.4, 1.6, 8))
    text = "# C\n\n```{cpu-cost-table} sdpa_flash\n```\n\nForcing costs {fixed-cost}`forcing` per call.\n"
    app = project({"index.md": text}, fixed=fixed)
    assert app.warning.getvalue() == ""
    page = doctree(app).astext().replace("\xa0", " ")
    # the table's note and the prose cite the same figure, with the band of a CPU figure (±10% at least)
    assert "Forcing a backend costs 8.01 µs CPU per call (7.21–8.81), whatever the backend and the shape" in page
    assert "4000 times" in page and "Forcing costs 8.01 µs (7.21–8.81) per call." in page
    assert "The profiler itself adds 1.50 µs (1.35–1.65) to every op it records" in page
    (tmp_path / "results" / "fixed_costs__cuda.json").unlink()
    app = project(
        {"index.md": "# C\n\n{fixed-cost}`forcing` and {fixed-cost}`speed`\n"},
        variants=(),
        conf=STUB_GALLERY_CONF,
        extra=example_stubs(),
    )
    assert_warned(app, "no fixed-cost file (fixed_costs__cuda.json or fixed_costs__cpu.json)",
                  "examples/11-cpu-overhead.py writes it",
                  "fixed-cost 'speed': unknown field; choose one of: forcing, profiler_per_op")  # fmt: skip


def test_claims_table_gives_verdicts(project):
    app = project({"index.md": "# C\n\n```{claims} C1 C9 c12\n```\n"}, variants=tuple(sorted(VARIANTS)))
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-claims-table")
    rows = [[c.astext() for c in r] for r in body_rows(table)]
    assert [r[0].split()[0] for r in rows] == ["C1", "C9", "C12"]
    all_results = analysed_build(tuple(VARIANTS))
    for row, claim_id in zip(rows, ("C1", "C9", "C12"), strict=True):
        verdict = claims.check(claim_id, all_results, "en")
        assert verdict.measured in row[3] and verdict.detail in row[3]
        assert row[1] == words.text(f"verdict.{verdict.verdict}", "en")


def test_claims_table_warns_for_missing_results_and_unknown_ids(project):
    app = project({"index.md": "# C\n\n```{claims} C11 C99\n```\n"}, language="ja")
    warnings = app.warning.getvalue()
    assert "unknown claim 'C99'" in warnings
    assert "no result file for variant 'sdpa_cudnn'" in warnings
    (table,) = tables(app, "attnprof-claims-table")
    (row,) = body_rows(table)
    assert row[1].astext() == words.text("verdict.unmeasurable", "ja")


def test_claims_table_statements_are_translatable_items(project):
    text = "# C\n\n```{claims-table} C1 C2\n- C1: Six operations per call.\n- C2: One fewer.\n```\n"
    app = project({"index.md": text}, variants=("naive", "naive_inplace"))
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-claims-table")
    assert [[c.astext() for c in r][2] for r in body_rows(table)] == ["Six operations per call.", "One fewer."]
    app = project({"index.md": text}, variants=(), builder="gettext")
    pot = (Path(app.outdir) / "index.pot").read_text(encoding="utf-8")
    assert 'msgid "Six operations per call."' in pot and "C1:" not in pot


def test_occupancy_table_and_hypotheses(project):
    every = tuple(sorted(VARIANTS))
    text = "# O\n\n```{occupancy-table}\n```\n\n```{occupancy-hypotheses}\n```\n"
    app = project({"index.md": text}, variants=every, language="ja")
    assert app.warning.getvalue() == ""
    kernels = zero_occupancy.kernel_occupancies(analysed(v) for v in VARIANTS)
    (table,) = tables(app, "attnprof-occupancy-table")
    assert len(body_rows(table)) == len(kernels)
    (hyp,) = tables(app, "attnprof-hypotheses-table")
    tests = zero_occupancy.check_hypotheses(kernels)
    assert [r[0].astext().split()[0] for r in body_rows(hyp)] == [t.hypothesis.parts[0] for t in tests]
    best = zero_occupancy.supported(tests)
    line = next(p for p in doctree(app).findall(nodes.paragraph) if "attnprof-verdict-line" in p["classes"])
    assert all(t.hypothesis.key in line.astext() for t in best)
    assert "反例" in html(app)  # Japanese headers


def test_occupancy_table_on_a_cpu_build_is_a_note(project, tmp_path):
    cpu_naive, raw = trace_result("naive")
    cpu_naive.device = "cpu"
    for s in cpu_naive.steps:
        s.activities = []
    results.save(cpu_naive, tmp_path / "results", raw)
    app = project({"index.md": "# O\n\n```{occupancy-table} naive\n```\n"}, variants=())
    assert app.warning.getvalue() == ""
    assert "recorded no GPU kernels" in html(app)


# --- timeline -------------------------------------------------------------------------------------------------------


def test_timeline_figure_caption_alt_and_trace_download(project, tmp_path):
    pages = {"index.md": "# T\n\n```{timeline} naive\n:step: 0\n\nOne step of naive attention.\n```\n"}
    app = project(pages)
    assert app.warning.getvalue() == ""
    png = tmp_path / "results" / "timelines" / "naive__prefill__8x16x1024x64__bfloat16__cuda.step0.en.png"
    assert png.exists()
    page = html(app)
    assert 'alt="One step of naive attention."' in page
    assert "<figcaption>" in page and "One step of naive attention." in page
    assert list((Path(app.outdir) / "_images").glob("naive__*.png"))
    downloads = list((Path(app.outdir) / "_downloads").rglob("naive__*.trace.json.gz"))
    assert len(downloads) == 1
    assert "Download the raw trace" in page


def test_timeline_png_is_not_rewritten_on_rebuild(project, tmp_path):
    pages = {"index.md": "# T\n\n```{timeline} sdpa_flash\nFlash.\n```\n"}
    app = project(pages)
    (png,) = (tmp_path / "results" / "timelines").glob("*.png")
    before = png.stat().st_mtime_ns
    # the page is read again (its source changed) and so is the result (newer than the picture): the picture is
    # drawn again, but its bytes are the same, so the file stays untouched
    later = before + 5_000_000_000
    for path in (tmp_path / "src" / "index.md", *(tmp_path / "results").glob("sdpa_flash__*.json")):
        os.utime(path, ns=(later, later))
    app.build()
    assert app.warning.getvalue() == ""
    assert png.stat().st_mtime_ns == before


def test_timeline_step_out_of_range_warns(project):
    app = project({"index.md": "# T\n\n```{timeline} naive\n:step: 7\n```\n"})
    assert "step 7 out of range; choose 0 to 2" in app.warning.getvalue()


# --- metric role ----------------------------------------------------------------------------------------------------


def test_metric_values_with_units(project):
    text = """\
        # M

        - {metric}`naive:kernels_per_step`
        - {metric}`naive:activities_per_step`
        - {metric}`sdpa_flash:main_kernel_regs`
        - {metric}`sdpa_flash:main_kernel_theoretical_occupancy`
        - {metric}`sdpa_flash:main_kernel_limiter`
        - {metric}`naive:gpu_ms`
        - {metric}`naive:op:aten::matmul`
        - {metric}`sdpa_flash:main_kernel_smem`
        - {metric}`sdpa_flash:sm_max_warps`
        """
    app = project({"index.md": text})
    assert app.warning.getvalue() == ""
    values = [n.astext() for n in doctree(app).findall(nodes.inline) if "attnprof-metric" in n["classes"]]
    assert values == ["5", "7", "255", "12.5\u00a0%", "registers", "1.13\u00a0ms", "2", "48\u00a0KiB", "64"]


def test_metric_unknown_field_and_bad_syntax_warn(project):
    app = project({"index.md": "# M\n\nA {metric}`naive:gpu_time` and {metric}`naive`.\n"})
    parts = ("unknown field 'gpu_time'; choose one of: gpu_ms", "expected VARIANT:FIELD", "index.md:3")
    assert_warned(app, *parts, marker='class="problematic"')


def test_metric_text_covers_every_field():
    flash = analysed("sdpa_flash")
    for field in metrics.METRIC_FIELDS:
        assert metrics.metric_text(flash, field, "en")
    with pytest.raises(KeyError, match="unknown metric field 'nope'"):
        metrics.metric_text(flash, "nope")


# --- banner ---------------------------------------------------------------------------------------------------------


def test_every_page_gets_the_gpu_provenance_banner(project):
    pages = {"index.md": "# Home\n\n```{toctree}\nother\n```\n", "other.md": "# Other\n\nText.\n"}
    app = project(pages)
    assert app.warning.getvalue() == ""
    for doc in ("index", "other"):
        banner = [n for n in doctree(app, doc).findall(nodes.container) if "attnprof-env-banner" in n["classes"]]
        assert len(banner) == 1
        text = banner[0].astext()
        assert "NVIDIA H200" in text and "cuDNN 9.19.0" in text and "PyTorch 2.11.0+cu130" in text
        assert "2026-11-30" in text
    # placed under the title
    section = next(iter(doctree(app, "other").findall(nodes.section)))
    assert "attnprof-env-banner" in section[1]["classes"]


def test_cpu_only_build_gets_a_prominent_banner_with_reasons(project, tmp_path):
    folder = tmp_path / "results"
    results.save(_failed("sdpa_cudnn", "no_cuda", "no CUDA device: torch.cuda.is_available() is False"), folder)
    cpu_naive, raw = trace_result("naive")
    cpu_naive.device = "cpu"
    results.save(cpu_naive, folder, raw)
    app = project({"index.md": "# Home\n\n```{env-banner}\n```\n\nText.\n"}, variants=(), language="ja")
    assert app.warning.getvalue() == ""
    page = html(app)
    assert "GPU なしでビルドされたサイト" in page
    # PyTorch's reason as recorded, marked as such
    assert 'sdpa_cudnn: <span class="attnprof-message">no CUDA device: torch.cuda.is_available() is False' in page
    assert page.count("attnprof-cpu-only") == 1  # the explicit banner replaces the automatic one
    # how to get the GPU guide; no gallery in this project, so its page is named, not linked
    assert '<code class="docutils literal notranslate"><span class="pre">nox</span>' in page
    assert "CUDA GPU のあるマシンで" in page and "auto_examples/index" in page


def test_no_results_at_all_is_a_note_not_a_warning(project):
    app = project({"index.md": "# Home\n\nText.\n"}, variants=())
    assert app.warning.getvalue() == ""
    assert "No measured results were found" in html(app)


# --- import hygiene and parallel builds ---------------------------------------------------------------------------


def test_extension_does_not_import_torch():
    code = "import sys, attnprof.sphinxext; sys.exit('torch' in sys.modules or 'matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


PARALLEL_PAGES = {
    "index.md": "# Home\n\n```{toctree}\na\nb\nc\nd\n```\n\n```{compare-table} naive sdpa_flash\n```\n",
    "a.md": "# A\n\n```{kernel-table} naive\n```\n\nGPU time {metric}`naive:gpu_ms`.\n",
    "b.md": "# B\n\n```{kernel-table} sdpa_flash\n```\n\n```{claims} C9 C10\n```\n",
    "c.md": "# C\n\n```{timeline} naive_inplace\nOne step.\n```\n",
    "d.md": "# D\n\n```{occupancy-table} naive sdpa_flash\n```\n",
}


def test_a_parallel_build_gives_the_same_pages_as_a_serial_one(project, tmp_path):
    # the project fixture writes the pages and the results; then two real sphinx-build runs, -j 2 and serial
    project(PARALLEL_PAGES)
    src = tmp_path / "src"
    pages = {}
    for jobs in ("2", "1"):
        out = tmp_path / f"html-j{jobs}"
        run = subprocess.run(
            [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-j", jobs, "-q", str(src), str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        pages[jobs] = {p: (out / f"{p}.html").read_text(encoding="utf-8") for p in ("a", "b", "c", "d")}
        pages[jobs]["viewer data"] = {p.name: p.read_bytes() for p in (out / "_viewer").glob("*.js")}
    assert pages["2"] == pages["1"]
    assert list(pages["2"]["viewer data"]) == ["naive_inplace__prefill__8x16x1024x64__bfloat16__cuda.stepmid.js"]
    assert "attnprof-kernel-table" in pages["2"]["a"] and "attnprof-claims-table" in pages["2"]["b"]


def test_catalog_messages_do_not_depend_on_what_this_build_could_run(project, tmp_path):
    # The same page must give the same translatable messages whether or not its variant ran here: a caption of
    # a timeline that could not be drawn is still extracted, and generated lines (file names, labels) are not.
    page = {"index.md": "# T\n\n```{timeline} sdpa_flash\nOne step of the flash backend.\n```\n"}
    messages = []
    for ran in (True, False):
        if not ran:
            results.save(_failed("sdpa_flash", "no_cuda", "no CUDA device"), tmp_path / "results")
        app = project(page, variants=("sdpa_flash",) if ran else (), builder="gettext")
        assert app.warning.getvalue() == ""
        pot = (Path(app.outdir) / "index.pot").read_text(encoding="utf-8")
        messages.append(sorted(line for line in pot.splitlines() if line.startswith("msgid")))
    assert messages[0] == messages[1]
    assert 'msgid "One step of the flash backend."' in messages[0]
    assert not any("trace.json.gz" in m or "Download" in m for m in messages[0])


def test_cpu_cost_table_and_cpu_claims_read_the_side_by_side_measurement(project, tmp_path):
    from attnprof.noise import Figure
    from attnprof.records.results import CpuCostRow, CpuCosts, save_cpu_costs

    folder = tmp_path / "results"
    measured = [CpuCostRow("sdpa_flash", "ok", None, Figure(123.0, 118.0, 131.0, 10), Figure(45.6, 44.0, 47.0, 10),
                           Figure(7.8, 7.5, 8.1, 10), [30, 100])]  # fmt: skip
    save_cpu_costs(CpuCosts("cuda", [8, 16, 1024, 64], "bfloat16", 10, h200_environment(), measured), folder)
    page = {"index.md": "# T\n\n```{cpu-cost-table} sdpa_flash\n```\n"}
    app = project(page, variants=("sdpa_flash",))
    assert app.warning.getvalue() == ""
    out = html(app)
    # each figure with its interval over the rounds, under the side-by-side labels
    (table,) = tables(app, "attnprof-cpu-cost-table")
    (cells,) = [[c.astext() for c in r] for r in body_rows(table)]
    assert cells[2:4] == ["123 (118–131)", "45.6 (44.0–47.0)"] and len(cells) == 5  # the context: not a column
    assert words.text("col.profiled_side_us", "en") in out and words.text("col.cpu_step_us", "en") not in out
    assert "medians of 10 rounds" in out
    # a broken file is a warning with the page's location, not a crash
    (folder / "cpu_costs__cuda.json").write_text('{"schema_version": 0}')
    app = project(page, variants=("sdpa_flash",))
    assert "cpu_costs__cuda.json" in app.warning.getvalue() and "index.md" in app.warning.getvalue()


def test_every_rule_of_the_sites_stylesheets_is_closed():
    """A rule left open swallows every rule after it (the browser reads them as its declarations): no rule may open
    inside another, except inside an at-rule (``@media``), and the braces balance."""
    import re

    folder = Path(__file__).parent.parent / "src" / "attnprof"
    for css in [*folder.glob("_static/*.css"), *folder.glob("_assets/*.css")]:
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S)
        stack: list[str] = []
        for m in re.finditer(r"([^{};]*)\{|\}", text):
            if m.group(0) == "}":
                assert stack, f"{css.name}: a '}}' closes nothing at offset {m.start()}"
                stack.pop()
                continue
            head = m.group(1).strip()
            assert not stack or stack[-1].startswith("@"), f"{css.name}: {head!r} opens inside {stack[-1]!r}"
            stack.append(head)
        assert stack == [], f"{css.name}: left open: {stack}"


def test_every_claims_family_puts_the_claim_and_its_verdict_first_and_marks_the_recorded_reasons(project, tmp_path):
    """One claims table for every family: the article's, the eligibility map's, the mask run's and the
    context-parallel run's (which put its verdict last and left the run's recorded reason unmarked before)."""
    from attnprof.records import parallel

    parallel.save(no_gpu_run(), tmp_path / "results")
    page = "# Claims\n\n" + "\n\n".join(f"```{{{d}}}\n```" for d in ("claims", "eligibility-claims", "mask-claims",
                                                                     "parallel-claims"))  # fmt: skip
    app = project({"index.md": page})
    found = tables(app, "attnprof-claims-table")
    assert len(found) == 4
    for table in found:
        head = [e for e in table.findall(nodes.entry)][:2]
        assert [e.astext() for e in head] == ["Claim", "Verdict"]
        assert all("attnprof-key" in e["classes"] for e in head)
    (par,) = tables(app, "attnprof-parallel-claims")
    marked = [n.astext() for n in par.findall(nodes.inline) if "attnprof-message" in n["classes"]]
    assert marked == [NO_CUDA] * len(claims.PARALLEL_CLAIMS)
