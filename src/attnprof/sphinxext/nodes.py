"""Building blocks of every directive: generated paragraphs, tables, warning boxes, and the base directive.

Everything here returns builder-neutral docutils nodes. Generated text (numbers, PyTorch's messages, words from
:mod:`attnprof.words`) is marked untranslatable, so gettext leaves it out of the catalogs; text written in a
directive's options or content stays part of the page and is translated like the rest of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from .. import fmt, words
from ..results import CpuCosts, Result
from . import lookup

#: The options every table directive takes.
TABLE_OPTIONS: dict[str, Callable[[str], Any]] = {
    "caption": directives.unchanged,
    "name": directives.unchanged,
    "class": directives.class_option,
}
#: The options of a directive that shows one result of any workload (:mod:`attnprof.workloads`).
WORKLOAD_OPTIONS: dict[str, Callable[[str], Any]] = {
    "workload": lambda arg: directives.choice(arg, ("prefill", "train", "decode")),
    "kv-len": directives.positive_int,
}

_ITEM = re.compile(r"^\s*`?(?P<key>[A-Za-z_]\w*)`?\s*:\s*")


def para(*children: nodes.Node | str, classes: Sequence[str] = ()) -> nodes.paragraph:
    """A paragraph of generated text: no source, so gettext leaves it alone, and no smart quotes, so names and
    PyTorch's messages stay as they were recorded."""
    p = nodes.paragraph("", "", *(nodes.Text(c) if isinstance(c, str) else c for c in children))
    p["classes"] = list(classes)
    p["support_smartquotes"] = False
    p["translatable"] = False  # some transforms give it a source; this keeps it out of the catalogs anyway
    return p


def problem_box(message: str) -> nodes.warning:
    """The visible side of a warning: a warning box with the message."""
    return nodes.warning("", para(message), classes=["attnprof-problem"])


def status_words(status: str, lang: str | None) -> str:
    """The status of a result in words (``no_cuda`` -> ``no CUDA device``)."""
    return words.text_or(f"status.{status}", status, lang)


def limiter_words(limiter: str, lang: str | None) -> str:
    """An occupancy limiter in words (``shared memory`` -> ``共有メモリ``)."""
    return words.text_or(f"limiter.{limiter}", limiter, lang)


def not_run_note(result: Result, lang: str | None) -> nodes.note:
    """A note saying that a variant could not run and why, in PyTorch's words."""
    text = words.text(
        "status.not_run",
        lang,
        variant=result.variant,
        status=status_words(result.status, lang),
        reason=result.reason or words.text("not_available", lang),
    )
    return nodes.note("", para(text), classes=["attnprof-not-run"])


@dataclass
class Span:
    """A table cell that spans ``cols`` columns."""

    content: Any
    cols: int


def _cell(content: Any, classes: Sequence[str] = ()) -> nodes.entry:
    morecols = 0
    if isinstance(content, Span):
        morecols, content = content.cols - 1, content.content
    entry = nodes.entry("", classes=list(classes))
    if morecols:
        entry["morecols"] = morecols
    for item in content if isinstance(content, list) else [content]:
        if item is None:
            continue
        if isinstance(item, (str, nodes.Inline, nodes.Text)):
            entry += para(item)
        else:
            entry += item
    return entry


def build_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    numeric: Sequence[int] = (),
    classes: Sequence[str] = (),
    title: nodes.title | None = None,
) -> nodes.table:
    """A docutils table; ``numeric`` column indexes get the class ``attnprof-num`` (right-aligned by the CSS)."""
    table = nodes.table(classes=["attnprof-table", "colwidths-auto", *classes])
    if title is not None:
        table += title
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for _ in headers:
        tgroup += nodes.colspec(colwidth=1)
    head_row = nodes.row()
    for h in headers:
        head_row += _cell(h)
    tgroup += nodes.thead("", head_row)
    tbody = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        col = 0
        for content in cells:
            row += _cell(content, ["attnprof-num"] if col in numeric else [])
            col += content.cols if isinstance(content, Span) else 1
        tbody += row
    tgroup += tbody
    return table


def _strip_prefix(paragraph: nodes.paragraph, n: int) -> None:
    """Remove the first ``n`` characters of text from ``paragraph`` (across Text and inline children)."""
    for child in list(paragraph.children):
        if n <= 0:
            break
        length = len(child.astext())
        if length <= n:
            paragraph.remove(child)
            n -= length
        elif isinstance(child, nodes.Text):
            paragraph.replace(child, nodes.Text(str(child)[n:]))
            n = 0
        else:
            n = 0


class AttnprofDirective(SphinxDirective):
    """What every attnprof directive shares: the page's language, the ``:caption:`` title, warnings as visible
    boxes, ``key: text`` content items, and finishing a table."""

    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = TABLE_OPTIONS

    @property
    def lang(self) -> str | None:
        """The build's language."""
        return self.config.language

    def say(self, key: str, **fields: object) -> str:
        """Words from the word table in the page's language."""
        return words.text(key, self.lang, **fields)

    def na(self, value: float | None, form: Callable[[float], str] = fmt.number) -> str:
        """``value`` formatted, or "n/a" in the page's language."""
        return self.say("not_available") if value is None else form(value)

    def find(self, variant: str) -> lookup.Found:
        """The analysed result of ``variant`` (a missing or stale one warns at this directive), in the workload of
        the ``:workload:`` option (and the cache of ``:kv-len:``) when the directive has them."""
        workload, kv_len = self.options.get("workload", "prefill"), self.options.get("kv-len")
        return lookup.find_result(self.env, variant, self.get_location(), workload, kv_len)

    def cpu_costs(self) -> CpuCosts | None:
        """The build's side-by-side CPU-cost measurement, if there is one."""
        return lookup.find_cpu_costs(self.env, self.get_location())

    def caption_title(self, default: str | None = None) -> nodes.title | None:
        """The ``:caption:`` option as a table title (with source info, so gettext extracts it); else ``default``
        (generated, not translated)."""
        caption = self.options.get("caption")
        if caption:
            inline, _messages = self.parse_inline(caption)
            title = nodes.title(caption, "", *inline)
            self.set_source_info(title)
            return title
        if default is None:
            return None
        title = nodes.title("", default)
        title["translatable"] = False
        return title

    def problem(self, message: str | None) -> list[nodes.Node]:
        """The visible box of a problem already logged as a warning."""
        box = problem_box(message or "")
        self.set_source_info(box)
        return [box]

    def bad_content(self, message: str) -> list[nodes.Node]:
        """Warn about the directive's content at its location; the visible box for the page."""
        return self.problem(lookup.warn(message, "content", self.get_location()))

    def table(self, keys: Sequence[str | tuple[str, dict[str, Any]]], body: Sequence[Sequence[Any]],
              css: str | Sequence[str], **kwargs: Any) -> nodes.table:  # fmt: skip
        """A table with the column headers of ``keys`` (word-table keys, or ``(key, fields)``) in the page's
        language, the CSS classes ``css`` and the ``:class:`` option, named and located like the directive."""
        table = build_table(
            [self.say(k) if isinstance(k, str) else self.say(k[0], **k[1]) for k in keys],
            body,
            classes=[*([css] if isinstance(css, str) else css), *self.options.get("class", [])],
            title=kwargs.pop("title", None) or self.caption_title(),
            **kwargs,
        )
        return self.finish(table)

    def finish(self, table: nodes.table) -> nodes.table:
        """Give ``table`` the directive's source location and ``:name:``."""
        self.set_source_info(table)
        self.add_name(table)
        return table

    def items(self, keys: Sequence[str], what: str) -> tuple[dict[str, list[nodes.Node]], list[nodes.Node]]:
        """The content's ``key: text`` bullet items, by key, with the ``key:`` prefix removed.

        The items stay part of the page: gettext extracts each one (without its prefix) and the translation
        replaces it. An item whose key is not one of ``keys`` is a warning.
        """
        if not self.content:
            return {}, []
        parsed = self.parse_content_to_nodes()
        found: dict[str, list[nodes.Node]] = {}
        problems: list[nodes.Node] = []
        lists = [n for n in parsed if isinstance(n, nodes.bullet_list)]
        if len(lists) != 1 or len(lists) != len([n for n in parsed if not isinstance(n, nodes.comment)]):
            return {}, self.bad_content(f"the content must be one bullet list of '{what}: text' items")
        for item in lists[0].children:
            first = item.children[0] if item.children else None
            match = _ITEM.match(first.astext()) if isinstance(first, nodes.paragraph) else None
            if match is None or match["key"] not in keys:
                shown = (first.astext() if first is not None else "")[:60]
                problems += self.bad_content(
                    f"{self.name} item {shown!r} does not start with one of the table's {what}s "
                    f"({', '.join(keys)}) followed by ':'"
                )
                continue
            _strip_prefix(first, match.end())
            first.rawsource = _ITEM.sub("", first.rawsource, count=1) if first.rawsource else first.astext()
            found[match["key"]] = list(item.children)
        return found, problems
