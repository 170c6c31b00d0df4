"""``explain-report`` and ``dropin-reader`` in a tiny Sphinx project: the report is what ``attnprof explain`` prints
for the trace, read by the build; the widget and its scripts land on the page that shows it, and only there."""

from __future__ import annotations

from attnprof.analysis import attention, explain
from attnprof.records import foreign
from attnprof.render import dropin
from attnprof.render import explain as report
from helpers import DATA

TRACE = DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz"
PAGE = f"""\
# Own trace

```{{explain-report}} {TRACE}
```

```{{dropin-reader}}
```

```{{dropin-diff}}
```
"""


def test_the_report_is_explains_text_and_the_widget_has_its_scripts(project):
    toc = "\n```{toctree}\nother\n```\n"
    app = project({"index.md": PAGE + toc, "other.md": "# Other\n"}, variants=())
    assert app._warning.getvalue() == ""
    page = (app.outdir / "index.html").read_text(encoding="utf-8")
    x = explain.explain(foreign.load(TRACE, inputs_of=attention.wants_inputs))
    head = report.head(x, "en")
    assert head in page and "ProfilerStep#2" in page and "cudnn" in page
    assert f'class="{dropin.WIDGET_CLASS}"' in page and f'class="{dropin.DIFF_CLASS}"' in page
    positions = [page.index(f"_static/{name}") for name in dropin.SCRIPTS]
    assert positions == sorted(positions)
    assert "attnprof-explain.js" not in (app.outdir / "other.html").read_text(encoding="utf-8")
    assert all((app.outdir / "_static" / name).is_file() for name in dropin.SCRIPTS)


def test_japanese_report(project):
    app = project({"index.md": PAGE}, variants=(), language="ja")
    assert app._warning.getvalue() == ""
    page = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "プロファイラのステップ" in page and 'data-lang="ja"' in page


def test_the_comparison_alone_brings_the_scripts(project):
    app = project({"index.md": "# Compare\n\n```{dropin-diff}\n```\n"}, variants=(), language="ja")
    assert app._warning.getvalue() == ""
    page = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert f'class="{dropin.DIFF_CLASS}" data-lang="ja"' in page
    assert all(f"_static/{name}" in page for name in dropin.SCRIPTS)


def test_a_missing_trace_is_a_warning_and_a_box(project, tmp_path):
    app = project({"index.md": "# X\n\n```{explain-report} no/such.json.gz\n```\n"}, variants=())
    assert "profiler trace" in app._warning.getvalue() and "no/such.json.gz is missing" in app._warning.getvalue()
    assert "attnprof-problem" in (app.outdir / "index.html").read_text(encoding="utf-8")


def test_other_builders_write_the_command_instead(project):
    app = project({"index.md": PAGE}, variants=(), builder="text")
    text = (app.outdir / "index.txt").read_text(encoding="utf-8")
    assert "run attnprof explain" in text and "ProfilerStep#2" in text
    assert "run attnprof diff BEFORE AFTER" in " ".join(text.split())


def test_a_cut_trace_is_one_warning_naming_it_and_the_page_is_built(project, tmp_path):
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(TRACE.read_bytes()[:5000])
    page = f"# X\n\n```{{explain-report}} {cut}\n```\n\n```{{dropin-reader}}\n```\n"
    app = project({"index.md": page}, variants=())
    lines = [line for line in app._warning.getvalue().splitlines() if str(cut) in line]
    assert len(lines) == 1 and "stale or unreadable profiler trace" in lines[0], lines
    page = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "attnprof-problem" in page and f'class="{dropin.WIDGET_CLASS}"' in page
