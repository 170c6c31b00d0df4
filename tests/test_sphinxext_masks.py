"""The mask directives in a tiny Sphinx project, from the CPU recording in tests/data."""

from __future__ import annotations

import shutil
from pathlib import Path

from attnprof.records import masks as records
from helpers import STUB_GALLERY_CONF, example_stubs

CPU_RUN = Path(__file__).parent / "data" / "masks" / "cpu" / records.filename("cpu")

PAGE = """\
# Masks

```{mask-summary}
```

```{mask-verdicts}
:caption: Flex against dense
```

```{mask-builds}
```

```{mask-table}
:mask: documents
```
"""


def _results(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir(exist_ok=True)
    shutil.copy(CPU_RUN, tmp_path / "results" / CPU_RUN.name)


def test_the_tables_render_without_warnings(project, tmp_path):
    _results(tmp_path)
    app = project({"index.md": PAGE}, variants=())
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert html.count("attnprof-mask-table") == 3
    assert "Flex against dense" in html and "only dense-mask SDPA ran" in html
    assert "This build has no GPU" in html
    assert '<span class="attnprof-message">' in html and "is_causal=True" in html  # PyTorch's words, recorded


def test_japanese_words(project, tmp_path):
    _results(tmp_path)
    app = project({"index.md": PAGE}, variants=(), language="ja")
    assert app._warning.getvalue() == ""
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    assert "パックされた文書" in html and "このビルドには GPU がありません" in html


def test_a_missing_run_and_an_unknown_mask_are_warnings(project, tmp_path):
    app = project({"index.md": PAGE}, variants=(), conf=STUB_GALLERY_CONF, extra=example_stubs())
    assert "no mask run" in app._warning.getvalue() and "examples/16-masks.py writes it" in app._warning.getvalue()
    _results(tmp_path)
    app = project({"index.md": "# M\n\n```{mask-table}\n:mask: window\n```\n"}, variants=())
    assert "unknown mask 'window'; choose one of: sliding_window" in app._warning.getvalue()
