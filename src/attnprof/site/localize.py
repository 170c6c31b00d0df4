"""The gallery in another language: the example scripts' words through gettext catalogs, and the language's own
source tree for its build.

The English scripts in ``examples/`` are the source of every language. Two kinds of words in them are translated:

* **text blocks** (the docstring and the ``# %%`` comment blocks, reST): each title, paragraph and list item is the
  message Sphinx's gettext builder extracts from the page sphinx-gallery makes of the script, so their translations
  live in the page's catalog, ``docs/locales/<lang>/LC_MESSAGES/auto_examples/<stem>.po``;
* **line comments** inside the code, which are on no page as text: :func:`extract` writes them to a template of
  their own, ``<gettext dir>/examples/<stem>.pot``, which ``sphinx-intl update`` turns into
  ``docs/locales/<lang>/LC_MESSAGES/examples/<stem>.po`` like every other template (``nox -s i18n`` does both). A
  run of full-line comments at one indentation is one message; a comment after code is one message.

:func:`translate_script` writes the script in another language: translated text blocks (titles re-underlined for the
width of their characters, paragraphs re-wrapped only where they had spaces, so that a browser shows no stray
space between Japanese characters), translated comments, and ``settings.language()`` calls that default to that
language, so that the downloaded script prints in it too. Code, identifiers and strings stay as they are.

:func:`prepare_source` builds a language's source tree for its own Sphinx build: ``<dest>/docs`` mirrors ``docs/``
(without the English gallery, which sphinx-gallery writes into the source folder), ``<dest>/examples`` holds the
translated scripts, so sphinx-gallery runs them and the two languages' galleries never overwrite each other.
Files are written only when their content changes, so sphinx-gallery's checksums and Sphinx's timestamps keep a
rebuild with nothing changed from running anything.

Command line (the nox sessions ``docs`` and ``i18n`` call it)::

    python -m attnprof.site.localize source ja _build/src/ja      # docs/ and translated examples/ for the ja build
    python -m attnprof.site.localize extract _build/gettext       # examples/<stem>.pot of the line comments

A message without a translation is an error that names the script, the line and the message: the Japanese gallery
is never half English without anyone noticing.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import sys
import tokenize
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from attnprof.records.files import write_if_changed
from attnprof.words.fmt import shorten

#: Gallery scripts: ``NN-topic.py`` (the ones sphinx-gallery runs).
SCRIPT = re.compile(r"^\d\d-[^/]+\.py$")
#: Line length the translated scripts are wrapped to.
WIDTH = 118
#: Folders of ``docs/`` that are not copied into a language's source tree.
NOT_COPIED = ("auto_examples", "locales", "_build")
#: Folders of the repository that pages include files from (``literalinclude`` of ``../../src/...``), mirrored beside
#: ``docs`` so that the same relative paths work from a language's tree; folders of these names are skipped.
INCLUDED = ("src",)
_NEVER_COPIED = ("__pycache__",)
#: Comments that are instructions to tools, not words for a reader.
_TOOL_COMMENT = re.compile(r"^#\s*(noqa|type:|fmt:|ruff:|pragma|sphinx_gallery_)")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:.])\1*$")
_LANGUAGE_CALL = "settings.language()"
#: A code directive (``.. code-block:: python``): neither it nor its indented body is a message.
_DIRECTIVE = re.compile(r"^\.\. (code-block|code|sourcecode)::")


# --- the words of a script ---------------------------------------------------------------------------------------


@dataclass
class Unit:
    """One translatable piece of a script: a title, a paragraph, a list item, or a comment.

    Attributes:
        kind: ``"title"``, ``"paragraph"``, ``"item"`` or ``"comment"``.
        msgid: The message as the catalogs hold it (lines joined by single spaces).
        line: The script line it starts on (1-based).
    """

    kind: str
    msgid: str
    line: int


@dataclass
class _Block:
    kind: str  # "docstring", "text" or "code"
    start: int  # index of the first line
    lines: list[str] = field(default_factory=list)


def _blocks(lines: Sequence[str]) -> list[_Block]:
    """The script cut into its docstring, its ``# %%`` text blocks and its code, as sphinx-gallery cuts it."""
    blocks: list[_Block] = []
    i = 0
    if lines and lines[0].strip() in ('"""', "'''"):
        quote = lines[0].strip()
        end = next((j for j in range(1, len(lines)) if lines[j].strip() == quote), None)
        if end is None:
            raise ValueError(f"unterminated docstring: expected a closing {quote} on a line of its own")
        blocks.append(_Block("docstring", 1, list(lines[1:end])))
        i = end + 1
    code = _Block("code", i)
    while i < len(lines):
        if re.match(r"^# ?%%", lines[i]):
            if code.lines:
                blocks.append(code)
            code = _Block("code", i)
            code.lines.append(lines[i])
            blocks.append(code)
            i += 1
            text = _Block("text", i)
            while i < len(lines) and lines[i].startswith("#"):
                text.lines.append(lines[i][2:] if lines[i].startswith("# ") else lines[i][1:])
                i += 1
            blocks.append(text)
            code = _Block("code", i)
            continue
        code.lines.append(lines[i])
        i += 1
    if code.lines:
        blocks.append(code)
    return blocks


def _rst_units(lines: Sequence[str]) -> Iterator[tuple[str, list[int], str]]:
    """(kind, line indexes, msgid) of each title, paragraph and list item of a reST text block."""
    chunk: list[int] = []
    literal = False  # inside the indented body of a directive (``.. code-block:: python``): no messages there
    for i in [*range(len(lines)), None]:
        if i is not None and lines[i].strip():
            chunk.append(i)
            continue
        if not chunk:
            continue
        if _DIRECTIVE.match(lines[chunk[0]]) or (literal and lines[chunk[0]][:1].isspace()):
            literal, chunk = True, []
            continue
        literal = False
        if len(chunk) >= 2 and _UNDERLINE.match(lines[chunk[1]].strip()) and len(lines[chunk[1]].strip()) >= 3:
            yield "title", chunk[:2], lines[chunk[0]].strip()
            chunk = chunk[2:]
            if not chunk:
                continue
        text = [lines[j] for j in chunk]
        if text[0].startswith(("- ", "* ")):
            item: list[int] = []
            for j in chunk:
                if lines[j].startswith(("- ", "* ")) and item:
                    yield "item", item, " ".join(lines[k].strip().lstrip("-* ").strip() for k in item)
                    item = []
                item.append(j)
            yield "item", item, " ".join(lines[k].strip().lstrip("-* ").strip() for k in item)
        else:
            yield "paragraph", chunk, " ".join(line.strip() for line in text)
        chunk = []


@dataclass
class _Comment:
    row: int  # 0-based line index
    col: int
    text: str
    full_line: bool


def _comments(source: str, code_rows: set[int]) -> list[_Comment]:
    found = []
    lines = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        row, col = tok.start[0] - 1, tok.start[1]
        if row not in code_rows or _TOOL_COMMENT.match(tok.string) or re.match(r"^# ?%%", tok.string):
            continue
        text = tok.string[1:].strip()
        if text:
            found.append(_Comment(row, col, text, not lines[row][:col].strip()))
    return found


def _comment_groups(comments: list[_Comment]) -> list[list[_Comment]]:
    """Runs of full-line comments at one column on consecutive lines; each comment after code alone."""
    groups: list[list[_Comment]] = []
    for c in comments:
        last = groups[-1][-1] if groups else None
        if c.full_line and last is not None and last.full_line and last.row == c.row - 1 and last.col == c.col:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


@dataclass
class _Parsed:
    lines: list[str]
    blocks: list[_Block]
    comments: list[list[_Comment]]


def _parse(source: str) -> _Parsed:
    lines = source.split("\n")
    blocks = _blocks(lines)
    code_rows = {b.start + k for b in blocks if b.kind == "code" for k in range(len(b.lines))}
    return _Parsed(lines, blocks, _comment_groups(_comments(source, code_rows)))


def text_units(source: str) -> list[Unit]:
    """The titles, paragraphs and list items of a script's docstring and text blocks (the page's messages)."""
    parsed = _parse(source)
    units = []
    for b in parsed.blocks:
        if b.kind != "code":
            units += [Unit(kind, msgid, b.start + rows[0] + 1) for kind, rows, msgid in _rst_units(b.lines)]
    return units


def comment_units(source: str) -> list[Unit]:
    """The line comments inside a script's code, one message per run of full-line comments or per comment after
    code."""
    return [Unit("comment", " ".join(c.text for c in g), g[0].row + 1) for g in _parse(source).comments]


# --- catalogs ------------------------------------------------------------------------------------------------------


def text_catalog(locales: Path, lang: str, stem: str) -> Path:
    """The catalog of a script's page (sphinx-gallery's text blocks, extracted by Sphinx)."""
    return locales / lang / "LC_MESSAGES" / "auto_examples" / f"{stem}.po"


def comment_catalog(locales: Path, lang: str, stem: str) -> Path:
    """The catalog of a script's line comments (:func:`extract`)."""
    return locales / lang / "LC_MESSAGES" / "examples" / f"{stem}.po"


def read_catalog(path: Path) -> dict[str, str]:
    """msgid -> msgstr of the translated, not fuzzy messages of a ``.po`` file (empty when there is none)."""
    from babel.messages.pofile import read_po

    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return {m.id: m.string for m in catalog if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def pot_text(units: Sequence[Unit], script: str) -> str:
    """A gettext template of ``units`` (a header and one entry per distinct message, with its script line)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    from attnprof import __version__

    catalog = Catalog(project="attnprof", version=__version__, copyright_holder="attnprof contributors",
                      charset="utf-8", fuzzy=False)  # fmt: skip
    for u in units:
        catalog.add(u.msgid, locations=[(script, u.line)])
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=120, omit_header=False, sort_output=False)
    return re.sub(r'"POT-Creation-Date: [^"]*"\n', '"POT-Creation-Date: 1970-01-01 00:00+0000\\\\n"\n',
                  buffer.getvalue().decode("utf-8"))  # fmt: skip


def extract(examples: Path, out: Path) -> list[Path]:
    """Write ``<out>/examples/<stem>.pot`` with the line comments of every gallery script; returns the paths."""
    written = []
    for script in sorted(examples.glob("*.py")):
        if SCRIPT.match(script.name):
            path = out / "examples" / f"{script.stem}.pot"
            rel = f"examples/{script.name}"
            write_if_changed(path, pot_text(comment_units(script.read_text(encoding="utf-8")), rel).encode())
            written.append(path)
    return written


# --- writing a script in another language ----------------------------------------------------------------------


def display_width(text: str) -> int:
    """Columns in a monospace font (and in reST's title rule): East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap_at_spaces(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken only where it has spaces (a longer word stays whole)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and display_width(lines[-1]) + 1 + display_width(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def wrap_anywhere(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces or between East Asian characters (code
    comments, where a line break shows as nothing)."""
    pieces = re.findall(r"[^\s\u3000-\u9fff\uff00-\uffef]+|[\u3000-\u9fff\uff00-\uffef]| ", text)
    lines, current = [], ""
    for piece in pieces:
        if display_width(current) + display_width(piece) > width and current.strip():
            lines.append(current.rstrip())
            current = "" if piece == " " else piece
        else:
            current += piece
    if current.strip():
        lines.append(current.rstrip())
    return lines or [""]


@dataclass
class Missing:
    """A message a catalog does not translate."""

    script: str
    line: int
    msgid: str
    catalog: Path

    def __str__(self) -> str:
        shown = shorten(self.msgid, 80)
        return f"{self.script}:{self.line}: no translation of {shown!r} in {self.catalog}"


def translate_script(script: Path, locales: Path, lang: str) -> tuple[str, list[Missing]]:
    """The script with its text blocks and line comments in ``lang``, and the messages the catalogs lack (left in
    English).

    Args:
        script: An English gallery script.
        locales: The folder of the catalogs (``docs/locales``).
        lang: The language (``"ja"``).
    """
    source = script.read_text(encoding="utf-8")
    parsed = _parse(source)
    texts = read_catalog(text_catalog(locales, lang, script.stem))
    comments = read_catalog(comment_catalog(locales, lang, script.stem))
    missing: list[Missing] = []
    name = f"examples/{script.name}"

    def say(msgid: str, table: dict[str, str], row: int, catalog: Path) -> str:
        if msgid in table:
            return table[msgid]
        missing.append(Missing(name, row + 1, msgid, catalog))
        return msgid

    out = list(parsed.lines)
    replaced: dict[int, list[str]] = {}  # first row -> new lines; the other rows of the unit are dropped
    dropped: set[int] = set()
    for b in parsed.blocks:
        if b.kind == "code":
            continue
        prefix = "" if b.kind == "docstring" else "# "
        for kind, rows, msgid in _rst_units(b.lines):
            first = b.start + rows[0]
            text = say(msgid, texts, first, text_catalog(locales, lang, script.stem))
            if kind == "title":
                rule = b.lines[rows[1]].strip()[0] * display_width(text)
                new = [text, rule]
            elif kind == "item":
                bullet = b.lines[rows[0]][:2]
                body = wrap_at_spaces(text, WIDTH - len(prefix) - 2)
                new = [bullet + body[0], *("  " + line for line in body[1:])]
            else:
                new = wrap_at_spaces(text, WIDTH - len(prefix))
            replaced[first] = [(prefix + line).rstrip() if prefix else line for line in new]
            dropped.update(b.start + r for r in rows[1:])
    for group in parsed.comments:
        first = group[0]
        text = say(" ".join(c.text for c in group), comments, first.row, comment_catalog(locales, lang, script.stem))
        if first.full_line:
            indent = " " * first.col
            replaced[first.row] = [f"{indent}# {line}" for line in wrap_anywhere(text, WIDTH - first.col - 2)]
            dropped.update(c.row for c in group[1:])
        else:
            line = replaced.get(first.row, [out[first.row]])[0]
            replaced[first.row] = [line[: first.col] + "# " + text]
    result: list[str] = []
    for row, line in enumerate(out):
        if row in dropped:
            continue
        result += replaced.get(row, [line])
    translated = "\n".join(result).replace(_LANGUAGE_CALL, f'settings.language("{lang}")')
    return translated, missing


# --- a language's source tree --------------------------------------------------------------------------------------


def _sync_tree(src: Path, dest: Path, skip: Sequence[str]) -> None:
    """Make ``dest`` hold the files of ``src`` (but the top-level folders ``skip``); copies keep their timestamps
    and are made only when the content differs; files no longer in ``src`` are removed."""
    wanted = set()
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        hidden = any(part in _NEVER_COPIED or part.endswith(".egg-info") for part in rel.parts)
        if rel.parts[0] in skip or hidden or not path.is_file():
            continue
        wanted.add(rel)
        target = dest / rel
        if not target.is_file() or target.read_bytes() != path.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    if dest.is_dir():
        for path in sorted(dest.rglob("*"), reverse=True):
            rel = path.relative_to(dest)
            if rel.parts[0] in skip:
                continue
            if path.is_file() and rel not in wanted and not any(part in _NEVER_COPIED for part in rel.parts):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def prepare_source(lang: str, dest: Path, root: Path) -> list[Missing]:
    """Write ``<dest>/docs`` (a mirror of ``<root>/docs``), ``<dest>/examples`` (the scripts in ``lang``) and the
    folders pages include files from (:data:`INCLUDED`).

    Returns:
        The messages without a translation (the scripts keep them in English).
    """
    _sync_tree(root / "docs", dest / "docs", NOT_COPIED)
    for folder in INCLUDED:
        _sync_tree(root / folder, dest / folder, ())
    examples, out = root / "examples", dest / "examples"
    out.mkdir(parents=True, exist_ok=True)
    missing: list[Missing] = []
    names = set()
    for path in sorted(examples.iterdir()):
        if not path.is_file():
            continue
        names.add(path.name)
        if SCRIPT.match(path.name):
            text, lacking = translate_script(path, root / "docs" / "locales", lang)
            missing += lacking
            write_if_changed(out / path.name, text.encode("utf-8"))
        elif not (out / path.name).is_file() or (out / path.name).read_bytes() != path.read_bytes():
            shutil.copy2(path, out / path.name)
    for path in out.iterdir():
        if path.is_file() and path.name not in names:
            path.unlink()
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    """``source <lang> <dest>`` or ``extract <out>``; see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m attnprof.site.localize", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    commands = parser.add_subparsers(dest="command", required=True)
    source = commands.add_parser("source", help="write a language's source tree (docs/ and translated examples/)")
    source.add_argument("lang")
    source.add_argument("dest", type=Path)
    pot = commands.add_parser("extract", help="write the templates of the scripts' line comments")
    pot.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.command == "extract":
        for path in extract(root / "examples", args.out):
            print(path)
        return 0
    missing = prepare_source(args.lang, args.dest.resolve(), root)
    for m in missing:
        print(m, file=sys.stderr)
    if missing:
        print(f"{len(missing)} messages without a {args.lang} translation: run `nox -s i18n`, translate them, and "
              "build again", file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
