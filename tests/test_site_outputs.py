"""Nothing of a library's stderr on a page (attnprof.site.outputs): the check over a built site finds a planted
warning or traceback in a script's output, in any language, and nothing in clean pages or in prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnprof.site import builder, outputs

CLEAN = """<html><body><div role="main"><p>A UserWarning in prose is the page's own words.</p>
<div class="sphx-glr-script-out highlight-none notranslate"><div class="highlight"><pre><span></span>relative error
against float64: 2.0e-03
</pre></div></div></div></body></html>"""

LEAKS = {
    "warn_once": "/usr/lib/torch/nn/attention/flex_attention.py:2488: UserWarning: flex_attention called without "
    "torch.compile() ... may produce incorrect results.\n  _warn_once(",
    "warning": "Warning: Profiler clears events at the end of each cycle",
    "traceback": 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>',
    "future": "/x/y.py:3: FutureWarning: `foo` is deprecated",
}


def _site(tmp_path: Path, page_ja: str) -> Path:
    for lang, page in (("en", CLEAN), ("ja", page_ja)):
        folder = tmp_path / lang / "auto_examples"
        folder.mkdir(parents=True)
        (folder / "08-flex.html").write_text(page, encoding="utf-8")
        (tmp_path / lang / "_static").mkdir()
        (tmp_path / lang / "_static" / "x.html").write_text(CLEAN.replace("relative", "UserWarning"))
    return tmp_path


def test_clean_pages_have_no_leak(tmp_path):
    leaks, read = outputs.check_site(_site(tmp_path, CLEAN))
    assert (leaks, read) == ([], 2)
    assert outputs.report(leaks, read) == "library output on pages: 0 page(s) of 2"


@pytest.mark.parametrize("kind", sorted(LEAKS))
def test_a_planted_leak_fails_naming_page_language_and_line(tmp_path, kind):
    planted = CLEAN.replace("relative error", LEAKS[kind] + "\nrelative error")
    leaks, _ = outputs.check_site(_site(tmp_path, planted))
    assert [(leak.page, leak.lang) for leak in leaks] == [("auto_examples/08-flex.html", "ja")]
    assert leaks[0].line == LEAKS[kind].splitlines()[0].strip()
    assert outputs.main([str(tmp_path)]) == 1


def test_the_command_line_needs_a_built_site(tmp_path, capsys):
    assert outputs.main([str(tmp_path)]) == 2
    assert "build the site first" in capsys.readouterr().err


def test_the_builder_fails_a_build_whose_pages_leak(tmp_path, monkeypatch):
    """The builder's own check, after the languages: planted into what Sphinx wrote, the leak fails the build."""
    monkeypatch.setattr(builder.precompile, "warm", lambda device, cache: builder.precompile.Warmed())
    monkeypatch.setattr(builder.localize, "prepare_source", lambda lang, dest, root: [])

    def build_main(args: list[str]) -> int:
        lang = next(a.split("=", 1)[1] for a in args if a.startswith("language="))
        page = Path(args[-1]) / "auto_examples" / "08-flex.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(CLEAN if lang == "en" else CLEAN.replace("relative", LEAKS["warning"] + "\nrelative"))
        return 0

    import sphinx.cmd.build

    monkeypatch.setattr(sphinx.cmd.build, "build_main", build_main)
    assert builder.build(tmp_path, tmp_path / "_build") == 1
    assert builder.build(tmp_path, tmp_path / "_build", languages=("en",)) == 0
