"""The mask directives in a tiny Sphinx project, from the CPU recording in tests/data."""

from __future__ import annotations

import shutil
from pathlib import Path

from attnprof.records import masks as records
from attnprof.render import masks as cells
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


H200_RUN = Path(__file__).parent / "data" / "masks" / "h200" / records.filename("cuda")


def test_a_kernel_shows_its_short_label_and_its_full_name_on_hover(project, tmp_path):
    """The H200 run's longest kernels are mangled C++ names: the cell shows the decoder's label, the full name in
    its title; the backend that ran and that label sit under the method, the length under the size."""
    import html as html_lib
    import re

    from attnprof.analysis import kernels

    (tmp_path / "results").mkdir()
    shutil.copy(H200_RUN, tmp_path / "results" / H200_RUN.name)
    for language in ("en", "ja"):
        app = project({"index.md": "# M\n\n```{mask-table}\n:mask: sliding_window\n```\n"}, variants=(),
                      language=language)  # fmt: skip
        assert app._warning.getvalue() == ""
        page = (app.outdir / "index.html").read_text(encoding="utf-8")
        labels = re.findall(r'<abbr class="attnprof-kernel-label" title="([^"]*)">([^<]*)</abbr>', page)
        assert labels, "no kernel label with a title"
        for title, label in labels:
            full = html_lib.unescape(title)
            assert html_lib.unescape(label) == kernels.decode(full).text(language)
            assert len(html_lib.unescape(label)) <= kernels.SHORT_MAX
        assert any(len(html_lib.unescape(t)) > 100 for t, _ in labels)  # mangled names, kept whole on hover
        head = re.search(r"<thead>(.*?)</thead>", page, re.S).group(1)
        assert head.count("<th") == 7  # ten columns, three of them stacked under others
        assert head.count('class="attnprof-stacked"') == 2


def test_when_a_build_is_paid_nested_tensors_built_once_and_why_one_length(project, tmp_path):
    import dataclasses

    from attnprof import words
    from attnprof.noise import Figure

    # the H200 mask run, with what the newer runs record beside it: the dense mask's build, the nested tensors
    # built once (figures made up for the test, around the recorded ones)
    run = records.load(Path(__file__).parent / "data" / "masks" / "h200" / records.filename("cuda"))
    builds = [dataclasses.replace(b, dense_ms=Figure(0.4, 0.38, 0.42, 5)) for b in run.builds]
    cases = [dataclasses.replace(c, prebuilt_ms=Figure(2.1, 2.0, 2.2, 10))
             if c.method == "nested" and c.workload == "prefill" else c for c in run.cases]  # fmt: skip
    (tmp_path / "results").mkdir(exist_ok=True)
    records.save(dataclasses.replace(run, builds=builds, cases=cases), tmp_path / "results")
    for lang in ("en", "ja"):
        app = project({"index.md": PAGE}, variants=(), language=lang)
        assert app._warning.getvalue() == ""
        text = " ".join((app.outdir / "index.html").read_text(encoding="utf-8").split())
        docs = next(b for b in run.builds if b.mask == "documents")
        if lang == "en":
            assert (
                f"so a training loop builds this mask in every step: the block mask in {cells.band(docs.time_ms)}"
                in text
            )
            assert "the dense mask in 0.400" in text
            assert "their masks are built once, before the loop" in text
            nested = next(c for c in run.cases if c.method == "nested" and c.time_ms and c.workload == "prefill")
            built = cells.band(nested.time_ms)
            assert f"{built} ms with the nested tensors built from the packed rows in every step" in text
            assert f"{cells.band(Figure(2.1, 2.0, 2.2, 10))} ms on nested tensors built once" in text
            assert "This build measures the masks at seq 8192 only" in text and "measures seq 4096 as well" in text
        else:
            assert words.text("mask.builds.once", "ja") in text
