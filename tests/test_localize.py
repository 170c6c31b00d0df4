"""attnprof.site.localize: the scripts' words found as Sphinx finds them, translated through catalogs, and a
language's source tree written only where it changed."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from attnprof.site import localize

SCRIPT = textwrap.dedent('''\
    """
    Run it: flash
    =============

    One fused kernel. The `article <https://example.org>`__ found it
    fast.

    How to read this trace: :doc:`../variants/sdpa-flash`.
    """

    # %%
    # Inputs
    # ------
    # The shape ``[8, 16]``
    # on a GPU.
    import torch  # noqa: F401

    lang = settings.language()  # the language of the output
    # the forcing context is entered inside the call,
    # so the profiler records it
    x = "# not a comment"
    # sphinx_gallery_thumbnail_number = 2

    # %%
    # - first item
    #   continued
    # - second item
    y = 1
    ''')


def _catalog(path: Path, messages: dict[str, str], fuzzy: tuple[str, ...] = ()) -> Path:
    catalog = Catalog(locale="ja")
    for msgid, msgstr in messages.items():
        catalog.add(msgid, msgstr, flags=("fuzzy",) if msgid in fuzzy else ())
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return path


def test_text_units_are_the_messages_sphinx_extracts():
    units = [(u.kind, u.msgid, u.line) for u in localize.text_units(SCRIPT)]
    assert units == [
        ("title", "Run it: flash", 2),
        ("paragraph", "One fused kernel. The `article <https://example.org>`__ found it fast.", 5),
        ("paragraph", "How to read this trace: :doc:`../variants/sdpa-flash`.", 8),
        ("title", "Inputs", 12),
        ("paragraph", "The shape ``[8, 16]`` on a GPU.", 14),
        ("item", "first item continued", 25),
        ("item", "second item", 27),
    ]


def test_comment_units_are_runs_of_full_line_comments_and_comments_after_code():
    units = [(u.msgid, u.line) for u in localize.comment_units(SCRIPT)]
    assert units == [
        ("the language of the output", 18),
        ("the forcing context is entered inside the call, so the profiler records it", 19),
    ]  # no tool comments (noqa, sphinx_gallery_), no cell markers, no '#' inside strings


def test_the_repository_scripts_units_match_their_catalogs():
    """Every text unit of every script is a message of the page's catalog, which Sphinx extracted: the two ways of
    cutting the text agree (test_translations checks that each is translated)."""
    root = Path(__file__).resolve().parent.parent
    for script in sorted((root / "examples").glob("[0-9][0-9]-*.py")):
        catalog = root / "docs/locales/ja/LC_MESSAGES/auto_examples" / f"{script.stem}.po"
        with catalog.open("rb") as handle:
            ids = {m.id for m in read_po(handle)}
        lacking = [u.msgid for u in localize.text_units(script.read_text(encoding="utf-8")) if u.msgid not in ids]
        assert not lacking, f"{script.name}: {lacking}"


def _translations(tmp_path: Path, fuzzy: tuple[str, ...] = ()) -> tuple[Path, Path]:
    locales = tmp_path / "locales"
    _catalog(
        localize.text_catalog(locales, "ja", "05-sdpa-flash"),
        {
            "Run it: flash": "実行する: flash",
            "One fused kernel. The `article <https://example.org>`__ found it fast.": (
                "1 つの融合カーネルです。`記事 <https://example.org>`__ はこれが速いと報告しました。"
            ),
            "How to read this trace: :doc:`../variants/sdpa-flash`.": (
                "このトレースの読み方: :doc:`../variants/sdpa-flash`。"
            ),
            "Inputs": "入力",
            "The shape ``[8, 16]`` on a GPU.": "GPU 上の形状 ``[8, 16]`` です。",
            "first item continued": "最初の項目",
            "second item": "2 番目の項目",
        },
        fuzzy,
    )
    _catalog(
        localize.comment_catalog(locales, "ja", "05-sdpa-flash"),
        {
            "the language of the output": "出力の言語",
            "the forcing context is entered inside the call, so the profiler records it": (
                "強制コンテキストには呼び出しの中で入るので、プロファイラはそのコストも記録する" * 3
            ),
        },
    )
    script = tmp_path / "examples" / "05-sdpa-flash.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT, encoding="utf-8")
    return script, locales


def test_a_translated_script_keeps_its_code_and_speaks_the_language(tmp_path):
    script, locales = _translations(tmp_path)
    text, missing = localize.translate_script(script, locales, "ja")
    assert missing == []
    lines = text.splitlines()
    assert lines[1:3] == ["実行する: flash", "=" * localize.display_width("実行する: flash")]
    assert "# 入力" in lines and "# " + "-" * 4 in lines  # 入力 is four columns wide
    assert "# - 最初の項目" in lines and "# - 2 番目の項目" in lines
    assert 'lang = settings.language("ja")  # 出力の言語' in lines
    assert 'x = "# not a comment"' in lines and "import torch  # noqa: F401" in lines
    assert "# sphinx_gallery_thumbnail_number = 2" in lines
    wrapped = [line for line in lines if line.startswith("# 強制コンテキスト") or line.startswith("# ので")]
    assert len(wrapped) >= 2 and all(localize.display_width(line) <= localize.WIDTH for line in wrapped)
    compile(text, "translated.py", "exec")  # still Python


def test_untranslated_and_fuzzy_messages_are_named_and_stay_english(tmp_path):
    script, locales = _translations(tmp_path, fuzzy=("Inputs",))
    text, missing = localize.translate_script(script, locales, "ja")
    assert [(m.line, m.msgid) for m in missing] == [(12, "Inputs")]
    assert "05-sdpa-flash.py:12: no translation of 'Inputs'" in str(missing[0])
    assert "# Inputs" in text.splitlines()


def test_wrapping_breaks_japanese_only_where_it_may():
    assert localize.wrap_at_spaces("とても 長い 文", 6) == ["とても", "長い", "文"]
    assert localize.wrap_at_spaces("一続きの長い文章", 4) == ["一続きの長い文章"]  # no space, no break
    assert localize.wrap_anywhere("一続きの長い文章", 8) == ["一続きの", "長い文章"]
    assert localize.wrap_anywhere("the record_function range です", 20) == ["the record_function", "range です"]


def test_prepare_source_mirrors_docs_and_translates_examples_writing_only_changes(tmp_path):
    _, locales = _translations(tmp_path)
    root = tmp_path
    (root / "docs" / "guide").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n")
    (root / "docs" / "guide" / "a.md").write_text("# A\n")
    (root / "docs" / "auto_examples").mkdir()
    (root / "docs" / "auto_examples" / "x.rst").write_text("English gallery\n")
    os.replace(locales, root / "docs" / "locales")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    dest = tmp_path / "out" / "ja"
    assert localize.prepare_source("ja", dest, root) == []
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "docs/guide/a.md",
        "docs/index.md",
        "examples/05-sdpa-flash.py",
        "examples/GALLERY_HEADER.rst",
        "src/pkg/mod.py",
    ]
    assert (dest / "docs" / "index.md").stat().st_mtime_ns == (root / "docs" / "index.md").stat().st_mtime_ns
    assert "実行する: flash" in (dest / "examples" / "05-sdpa-flash.py").read_text(encoding="utf-8")
    stamps = {p: p.stat().st_mtime_ns for p in dest.rglob("*") if p.is_file()}
    (root / "docs" / "guide" / "a.md").unlink()
    (dest / "docs" / "auto_examples").mkdir()
    (dest / "docs" / "auto_examples" / "05-sdpa-flash.rst").write_text("sphinx-gallery's own\n")
    localize.prepare_source("ja", dest, root)
    assert not (dest / "docs" / "guide").exists()  # gone from docs/, gone from the copy
    assert (dest / "docs" / "auto_examples" / "05-sdpa-flash.rst").is_file()  # the gallery's own files stay
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items() if p.exists())


def test_extract_writes_one_template_per_script(tmp_path):
    script, _ = _translations(tmp_path)
    (script.parent / "helper.py").write_text("# not a gallery script\n")
    (path,) = localize.extract(script.parent, tmp_path / "gettext")
    assert path == tmp_path / "gettext" / "examples" / "05-sdpa-flash.pot"
    with path.open("rb") as handle:
        catalog = read_po(handle)
    assert [(m.id, m.locations) for m in catalog if m.id] == [
        ("the language of the output", [("examples/05-sdpa-flash.py", 18)]),
        ("the forcing context is entered inside the call, so the profiler records it",
         [("examples/05-sdpa-flash.py", 19)]),
    ]  # fmt: skip


def test_the_command_line_fails_on_missing_translations(tmp_path, capsys):
    _, locales = _translations(tmp_path, fuzzy=("Inputs",))
    (tmp_path / "docs").mkdir()
    os.replace(locales, tmp_path / "docs" / "locales")
    status = localize.main(["--root", str(tmp_path), "source", "ja", str(tmp_path / "out")])
    assert status == 1
    err = capsys.readouterr().err
    assert "no translation of 'Inputs'" in err and "run `nox -s i18n`" in err


@pytest.mark.parametrize("source", ['print("no docstring")\n', '"""\nTitle\n=====\n\nText.\n'])
def test_scripts_without_a_closed_docstring(source):
    if source.startswith('"""'):
        with pytest.raises(ValueError, match="unterminated docstring"):
            localize.text_units(source)
    else:
        assert localize.text_units(source) == []
