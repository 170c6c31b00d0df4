"""The eligibility directives in a tiny Sphinx project, from a grid measured on the CPU."""

from __future__ import annotations

from attnprof.records import eligibility as records
from helpers import STUB_GALLERY_CONF, example_stubs

PAGE = """\
# Map

```{eligibility-summary}
```

```{eligibility-table}
:family: dropout
```

```{eligibility-table}
:family: layout
:caption: Layouts
```
"""


def test_tables_and_reasons_render_without_warnings(project, cpu_grid, tmp_path):
    records.save(cpu_grid, tmp_path / "results")
    app = project({"index.md": PAGE}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert html.count('class="attnprof-table attnprof-eligibility-table') == 2
    assert html.count("<caption>") == 1 and '<span class="caption-text">Layouts' in html  # a title from :caption:
    assert "dropout 0.1" in html and "✗ refuses (1)" in html
    # PyTorch's reason, under the table, marked as recorded
    assert '<span class="attnprof-message">Both fused kernels do not support non-zero dropout.</span>' in html
    assert "attnprof-key" in html  # the condition stays in view when the table scrolls
    assert "Every row varies one thing of the base case" in html
    assert "SDPA&#8217;s CPU dispatch has two backends" in html or "SDPA's CPU dispatch has two backends" in html


def test_japanese_words(project, cpu_grid, tmp_path):
    records.save(cpu_grid, tmp_path / "results")
    app = project({"index.md": PAGE}, variants=(), language="ja")
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "ドロップアウト 0.1" in html and "✗ 拒否 (1)" in html and "基準" in html


def test_missing_map_and_unknown_family_are_warnings(project, cpu_grid, tmp_path):
    app = project(
        {"index.md": "# Map\n\n```{eligibility-table}\n:family: dtype\n```\n"},
        variants=(),
        conf=STUB_GALLERY_CONF,
        extra=example_stubs(),
    )
    assert "no eligibility map" in app._warning.getvalue()
    assert "examples/15-eligibility.py writes it" in app._warning.getvalue()
    records.save(cpu_grid, tmp_path / "results")
    app = project({"index.md": "# Map\n\n```{eligibility-table}\n:family: masks\n```\n"}, variants=())
    assert "no family 'masks' in the map; choose one of: dtype, head_dim" in app._warning.getvalue()


def test_a_stale_map_is_a_warning_naming_the_file(project, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / records.filename("cpu")).write_text('{"schema_version": 99}')
    app = project({"index.md": PAGE}, variants=())
    assert "stale or unreadable eligibility map" in app._warning.getvalue()
    assert "schema version 99" in app._warning.getvalue()


def test_claims_table_says_why_a_cpu_map_cannot_check_them(project, cpu_grid, tmp_path):
    records.save(cpu_grid, tmp_path / "results")
    app = project({"index.md": "# Claims\n\n```{eligibility-claims}\n```\n"}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert html.count("attnprof-verdict-unmeasurable") == 10
    assert "A boolean mask rules out flash." in html and "no CUDA device: this build ran on the CPU" in html
    app = project({"index.md": "# Claims\n\n```{eligibility-claims}\n```\n"}, variants=(), language="ja")
    assert "ブールマスクを渡すと flash は使えない。" in (app.outdir / "index.html").read_text(encoding="utf-8")
