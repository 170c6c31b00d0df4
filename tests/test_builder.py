"""attnprof.site.builder: every language built in turn in one process, the second from its translated source tree."""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from attnprof.site import builder

SCRIPT = '"""\nRun it: x\n=========\n\nA script.\n"""\n\n# %%\nx = 1  # one\n'


def _root(tmp_path: Path, translated: bool) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "examples").mkdir()
    (root / "conf.py").write_text(
        f"project = 'x'\nlocale_dirs = [{str(root / 'docs' / 'locales')!r}]\ngettext_compact = False\n"
        "exclude_patterns = ['locales']\n"
    )
    (root / "docs" / "index.rst").write_text("Home\n====\n\nWelcome.\n")
    (root / "examples" / "01-x.py").write_text(SCRIPT)
    if translated:
        catalogs = {
            "auto_examples/01-x": {"Run it: x": "実行する: x", "A script.": "スクリプトです。"},
            "examples/01-x": {"one": "いち"},
            "index": {"Welcome.": "ようこそ。"},
        }
        for domain, messages in catalogs.items():
            catalog = Catalog(locale="ja")
            for msgid, msgstr in messages.items():
                catalog.add(msgid, msgstr)
            path = root / "docs" / "locales" / "ja" / "LC_MESSAGES" / f"{domain}.po"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                write_po(handle, catalog)
    return root


def test_both_languages_build_in_one_process(tmp_path):
    root = _root(tmp_path, translated=True)
    out = tmp_path / "build"
    assert builder.main(["--root", str(root), "--out", str(out), "-q"]) == 0
    assert "Welcome." in (out / "html" / "en" / "index.html").read_text(encoding="utf-8")
    assert "ようこそ。" in (out / "html" / "ja" / "index.html").read_text(encoding="utf-8")
    script = (out / "src" / "ja" / "examples" / "01-x.py").read_text(encoding="utf-8")
    assert "実行する: x" in script and "x = 1  # いち" in script
    assert builder.source_of("ja", root, out) == out / "src" / "ja" / "docs"
    assert builder.source_of("en", root, out) == root / "docs"


def test_a_missing_translation_stops_before_any_build(tmp_path, capsys):
    root = _root(tmp_path, translated=False)
    out = tmp_path / "build"
    assert builder.build(root, out, ["-q"]) == 1
    assert not (out / "html").exists()  # nothing built: the translations are checked first
    assert "no translation of 'Run it: x'" in capsys.readouterr().err


def test_sphinx_arguments_warn_as_errors():
    args = builder.sphinx_args(Path("/r"), Path("/o"), "ja", Path("/o/src/ja/docs"), ["-q"])
    assert args[:4] == ["-b", "html", "-W", "--keep-going"] and "language=ja" in args
    assert args[-3:] == ["/o/src/ja/docs", "/o/html/ja", "-q"]
