"""The Japanese catalogs are complete: every English page has one, and no message in them is untranslated or fuzzy.

Sphinx leaves an untranslated message in English and drops a fuzzy one silently, so the Japanese site would mix
languages without a warning; this test names each such message by file, line and msgid. The checker itself is
tested on small catalogs written here, so it is known to pass on a complete catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import PoFileError, read_po

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
LANGUAGE = "ja"
#: Folders under docs/ that hold no English pages of their own (generated, or the catalogs).
NOT_PAGES = ("auto_examples", "locales", "_build")
GALLERY_SCRIPT = re.compile(r"^\d\d-[^/]+\.py$")
#: sphinx-gallery makes the gallery's index page from the header file (any of these names).
GALLERY_HEADERS = ("GALLERY_HEADER.rst", "README.rst", "README.txt")


def catalog_dir(docs: Path = DOCS, language: str = LANGUAGE) -> Path:
    return docs / "locales" / language / "LC_MESSAGES"


def expected_catalogs(docs: Path = DOCS, examples: Path = EXAMPLES) -> dict[str, Path]:
    """The catalog each English page needs (``guide/claims.po``, ``auto_examples/01-naive.po``), with its page."""
    wanted: dict[str, Path] = {}
    for page in sorted([*docs.rglob("*.md"), *docs.rglob("*.rst")]):
        rel = page.relative_to(docs)
        if rel.parts[0] not in NOT_PAGES:
            wanted[rel.with_suffix(".po").as_posix()] = page
    for script in sorted(examples.glob("*.py")):
        if GALLERY_SCRIPT.match(script.name):
            wanted[f"auto_examples/{script.stem}.po"] = script  # its page: text blocks (attnprof.site.localize)
            wanted[f"examples/{script.stem}.po"] = script  # its line comments
    header = next((examples / name for name in GALLERY_HEADERS if (examples / name).is_file()), None)
    if header is not None:
        wanted["auto_examples/index.po"] = header
    return wanted


def missing_catalogs(docs: Path = DOCS, examples: Path = EXAMPLES, language: str = LANGUAGE) -> list[str]:
    """One line per English page without a catalog in ``language``."""
    catalogs, root = catalog_dir(docs, language), docs.parent
    return [
        f"{page.relative_to(root)} has no catalog {catalogs.relative_to(root) / po}"
        for po, page in expected_catalogs(docs, examples).items()
        if not (catalogs / po).is_file()
    ]


def _shown(msgid: str | tuple[str, ...]) -> str:
    text = msgid[0] if isinstance(msgid, tuple) else msgid
    text = " ".join(text.split())
    return repr(text if len(text) <= 90 else text[:87] + "...")


#: What docutils reads as the start of an enumerated list.
_ENUMERATOR = re.compile(r"^\(?\d+[.)] ")


def catalog_problems(po: Path, root: Path = ROOT) -> list[str]:
    """One line per untranslated or fuzzy message of ``po``: ``file:line: what msgid``; a broken file is one line."""
    name = po.relative_to(root) if po.is_relative_to(root) else po
    try:
        with po.open("rb") as handle:
            catalog = read_po(handle, abort_invalid=True)
    except (PoFileError, UnicodeDecodeError, ValueError) as exc:
        return [f"{name}: cannot be read: {exc}"]
    problems = []
    if catalog.fuzzy:
        problems.append(f"{name}: header entry is marked fuzzy (remove '#, fuzzy' above msgid \"\" when done)")
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        # a translation that opens like an enumerated list ("1. 読む") parses as a list, not as the title or paragraph
        # it translates, so Sphinx keeps the English (the Japanese "From trace to change" page showed "1. Read it")
        listed = any(_ENUMERATOR.match(t) for t in strings if t)
        checks = (("untranslated", not all(strings)), ("fuzzy", message.fuzzy),
                  ("opens like a numbered list, which Sphinx drops (write 段階 1: ...)", listed))  # fmt: skip
        what = [word for word, bad in checks if bad]
        if what:
            problems.append(f"{name}:{message.lineno}: {' and '.join(what)} msgid {_shown(message.id)}")
    return problems


# --- the repository's catalogs ---------------------------------------------------------------------------------

CATALOGS = sorted(catalog_dir().rglob("*.po"))


@pytest.mark.parametrize("script", sorted(EXAMPLES.glob("[0-9][0-9]-*.py")), ids=lambda p: p.name)
def test_every_word_of_a_gallery_script_is_translated(script: Path) -> None:
    """The Japanese gallery runs translated scripts (attnprof.site.localize): every title, paragraph and line comment
    of the English script must have a translation, or the Japanese build stops."""
    from attnprof.site import localize

    _, missing = localize.translate_script(script, DOCS / "locales", LANGUAGE)
    assert not missing, "run `nox -s i18n` and translate:\n" + "\n".join(map(str, missing))


def test_every_page_has_a_catalog() -> None:
    assert expected_catalogs(), f"no English pages found under {DOCS}"
    missing = missing_catalogs()
    assert not missing, "pages without a Japanese catalog (run `nox -s i18n`):\n" + "\n".join(missing)


@pytest.mark.parametrize(
    "po", CATALOGS or [None], ids=lambda po: po.relative_to(catalog_dir()).as_posix() if po else "none"
)
def test_catalog_is_complete(po: Path | None) -> None:
    assert po is not None, f"no catalogs in {catalog_dir()}"
    problems = catalog_problems(po)
    assert not problems, f"{len(problems)} messages to translate or review:\n" + "\n".join(problems)


# --- the checker, on catalogs written here ---------------------------------------------------------------------

HEADER = """\
msgid ""
msgstr ""
"Language: ja\\n"
"Content-Type: text/plain; charset=utf-8\\n"

"""

COMPLETE = (
    HEADER
    + """\
#: ../../docs/index.md:1
msgid "Reading traces"
msgstr "トレースを読む"

#: ../../docs/index.md:3
#, python-brace-format
msgid ""
"A long message {metric}`naive:gpu_ms` that sphinx-intl wraps "
"over two lines."
msgstr ""
"sphinx-intl が折り返す長いメッセージ {metric}`naive:gpu_ms` "
"です。"

#~ msgid "An obsolete message"
#~ msgstr ""
"""
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_checker_passes_a_complete_catalog(tmp_path: Path) -> None:
    assert catalog_problems(_write(tmp_path / "index.po", COMPLETE), tmp_path) == []


def test_checker_names_untranslated_and_fuzzy_messages(tmp_path: Path) -> None:
    text = COMPLETE.replace('msgstr "トレースを読む"', 'msgstr ""') + (
        '\n#: ../../docs/index.md:9\n#, fuzzy\nmsgid "Guess first"\nmsgstr "まず予想"\n'
        '\n#: ../../docs/index.md:11\n#, fuzzy\nmsgid "Not started"\nmsgstr ""\n'
    )
    problems = catalog_problems(_write(tmp_path / "guide" / "x.po", text), tmp_path)
    line = {msgid: text.splitlines().index(f'msgid "{msgid}"') + 1 for msgid in ("Guess first", "Not started")}
    assert problems == [
        "guide/x.po:7: untranslated msgid 'Reading traces'",
        f"guide/x.po:{line['Guess first']}: fuzzy msgid 'Guess first'",
        f"guide/x.po:{line['Not started']}: untranslated and fuzzy msgid 'Not started'",
    ]


def test_checker_flags_a_fuzzy_header_and_unreadable_files(tmp_path: Path) -> None:
    fuzzy_header = catalog_problems(_write(tmp_path / "a.po", "#, fuzzy\n" + COMPLETE), tmp_path)
    assert fuzzy_header == ["a.po: header entry is marked fuzzy (remove '#, fuzzy' above msgid \"\" when done)"]
    broken = catalog_problems(_write(tmp_path / "b.po", HEADER + 'a stray line\nmsgid "x"\nmsgstr "y"\n'), tmp_path)
    assert len(broken) == 1 and broken[0].startswith("b.po: cannot be read:")


def test_checker_names_pages_without_catalogs(tmp_path: Path) -> None:
    docs, examples = tmp_path / "docs", tmp_path / "examples"
    for page in ("index.md", "guide/claims.md", "auto_examples/index.rst", "locales/ja/LC_MESSAGES/x.md"):
        _write(docs / page, "# Page\n")
    for script in ("01-naive.py", "GALLERY_HEADER.rst", "helper.py"):
        _write(examples / script, "")
    assert sorted(expected_catalogs(docs, examples)) == [
        "auto_examples/01-naive.po",
        "auto_examples/index.po",
        "examples/01-naive.po",
        "guide/claims.po",
        "index.po",
    ]
    catalogs = catalog_dir(docs)
    _write(catalogs / "index.po", COMPLETE)
    _write(catalogs / "auto_examples" / "index.po", COMPLETE)
    assert missing_catalogs(docs, examples) == [
        "docs/guide/claims.md has no catalog docs/locales/ja/LC_MESSAGES/guide/claims.po",
        "examples/01-naive.py has no catalog docs/locales/ja/LC_MESSAGES/auto_examples/01-naive.po",
        "examples/01-naive.py has no catalog docs/locales/ja/LC_MESSAGES/examples/01-naive.po",
    ]
    _write(catalogs / "guide" / "claims.po", COMPLETE)
    _write(catalogs / "auto_examples" / "01-naive.po", COMPLETE)
    _write(catalogs / "examples" / "01-naive.po", COMPLETE)
    assert missing_catalogs(docs, examples) == []


def test_checker_names_a_translation_that_opens_like_a_numbered_list(tmp_path: Path) -> None:
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    entries = 'msgid "1. Read it"\nmsgstr "1. 読む"\n\nmsgid "2. M"\nmsgstr "段階 2: 計測"\n'
    po = _write(tmp_path / "x.po", header + entries)
    problems = catalog_problems(po, tmp_path)
    assert len(problems) == 1 and ": opens like a numbered list" in problems[0] and "Read it" in problems[0]
