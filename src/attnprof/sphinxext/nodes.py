"""Building blocks of every directive: generated paragraphs, tables, warning boxes, disclosures, and the base
directive.

Everything here returns builder-neutral docutils nodes. Generated text (numbers, PyTorch's messages, words from
:mod:`attnprof.words`) is marked untranslatable, so gettext leaves it out of the catalogs; text written in a
directive's options or content stays part of the page and is translated like the rest of it.

:class:`AttnprofDirective` is what every directive shares; :class:`RecordDirective` is the base of a page element
drawn from one kind of record file of the register (:mod:`attnprof.records.kinds`): find the file, then build from
the record, or show the warning box instead.

Two nodes of its own, registered by :func:`setup_nodes`:

* :class:`disclosure`, a summary line with more behind it (HTML ``<details>``; other builders show everything): the
  full demangled name under a kernel's short label stays one click away, in the search index, and found by the
  browser's find-in-page.
* :class:`untold`, content a page keeps only for its translators: a caption or "what the trace reveals" item that
  this build has nothing to show for (no GPU trace) is dropped from every output but the message catalogs, so a
  CPU-only build neither shows it nor loses its message.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from attnprof import words
from attnprof.analysis import kernels
from attnprof.noise import Figure
from attnprof.records.kinds import Kind
from attnprof.records.results import CpuCosts, Result
from attnprof.sphinxext import lookup
from attnprof.variants import VARIANTS
from attnprof.words import fmt

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

T = TypeVar("T")

_ITEM = re.compile(r"^\s*`?(?P<key>[A-Za-z_]\w*)`?\s*:\s*")


def para(*children: nodes.Node | str, classes: Sequence[str] = ()) -> nodes.paragraph:
    """A paragraph of generated text: no source, so gettext leaves it alone, and no smart quotes, so names and
    PyTorch's messages stay as they were recorded."""
    p = nodes.paragraph("", "", *(nodes.Text(c) if isinstance(c, str) else c for c in children))
    p["classes"] = list(classes)
    p["support_smartquotes"] = False
    p["translatable"] = False  # some transforms give it a source; this keeps it out of the catalogs anyway
    return p


def word_nodes(key: str, lang: str | None, **fields: nodes.Node | str) -> list[nodes.Node]:
    """The words of ``key`` as nodes, whose ``{placeholders}`` may be nodes (a link, a literal) or text."""
    children: list[nodes.Node] = []
    for literal, name, _spec, _conv in string.Formatter().parse(words.text(key, lang)):
        if literal:
            children.append(nodes.Text(literal))
        if name is not None:
            value = fields[name]
            children.append(value if isinstance(value, nodes.Node) else nodes.Text(str(value)))
    return children


def words_para(
    key: str, lang: str | None, classes: Sequence[str] = (), **fields: nodes.Node | str
) -> nodes.paragraph:
    """A generated paragraph of the words of ``key``, whose ``{placeholders}`` may be nodes (a link, a literal)."""
    return para(*word_nodes(key, lang, **fields), classes=classes)


@functools.lru_cache(maxsize=4096)
def kernel_label(name: str, lang: str | None) -> str:
    """The decoded short label of a kernel name in the page's language."""
    return kernels.decode(name).text(lang)


class disclosure(nodes.General, nodes.Element):  # docutils names its nodes in lower case
    """A summary (the first child, a paragraph) and what it discloses (the rest)."""


class untold(nodes.General, nodes.Element):
    """Content kept for the message catalogs only (see the module docstring)."""


def make_disclosure(summary: str | nodes.Node, *content: nodes.Node, classes: Sequence[str] = ()) -> disclosure:
    """A :class:`disclosure` node: ``summary`` (a generated paragraph) shows, ``content`` opens on a click."""
    node = disclosure("", para(summary) if isinstance(summary, str) else summary, *content)
    node["classes"] = ["attnprof-disclosure", *classes]
    return node


def _visit_disclosure_html(self: Any, node: disclosure) -> None:
    self.body.append(self.starttag(node, "details", ""))
    self.body.append("<summary>")
    for child in node[0].children:  # the summary's inline content: <summary> holds no paragraph
        child.walkabout(self)
    self.body.append("</summary>\n")
    for child in node.children[1:]:
        child.walkabout(self)
    raise nodes.SkipNode


def _depart_html(self: Any, node: nodes.Node) -> None:
    pass


def _visit_plain(self: Any, node: nodes.Node) -> None:
    pass


def _depart_plain(self: Any, node: nodes.Node) -> None:
    pass


class DropUntold(SphinxPostTransform):
    """Remove :class:`untold` content from every output; the gettext builder (format ``""``) keeps it."""

    default_priority = 100
    formats = ("html", "latex", "texinfo", "text", "man", "xml", "pseudoxml", "epub")

    def run(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(untold)):
            node.parent.remove(node)


def setup_nodes(app: Sphinx) -> None:
    """Register the nodes of this module (HTML: ``<details>``; elsewhere their content as is)."""
    plain = (_visit_plain, _depart_plain)
    app.add_node(disclosure, html=(_visit_disclosure_html, _depart_html), latex=plain, text=plain, man=plain,
                 texinfo=plain)  # fmt: skip
    app.add_node(untold, html=plain, latex=plain, text=plain, man=plain, texinfo=plain)
    app.add_post_transform(DropUntold)


def problem_box(message: str) -> nodes.warning:
    """The visible side of a warning: a warning box with the message."""
    return nodes.warning("", para(message), classes=["attnprof-problem"])


def status_words(status: str, lang: str | None) -> str:
    """The status of a result in words (``no_cuda`` -> ``no CUDA device``)."""
    return words.text_or(f"status.{status}", status, lang)


def recorded(text: str) -> nodes.inline:
    """A message as it was recorded (PyTorch's reason for not running), marked as such: it stays in the language
    PyTorch wrote it in, on every page (class ``attnprof-message``)."""
    node = nodes.inline("", text, classes=["attnprof-message"])
    node["support_smartquotes"] = False
    return node


#: What :func:`attnprof.measure.failure.failure` appends to PyTorch's reason when a variant ran on a device it does
#: not support: `` (<variant title> runs on: cuda)``.
_RUNS_ON = re.compile(r" \((?P<title>[^()]+) runs on: (?P<devices>[\w, ]+)\)$")


def reason_node(reason: str | None, lang: str | None) -> nodes.Node | str:
    """A recorded reason (:func:`recorded`), or "n/a" in the page's language. Where attnprof added the devices the
    variant runs on, that part is put in the page's language."""
    if not reason:
        return words.text("not_available", lang)
    m = _RUNS_ON.search(reason)
    titles = {v.title: v.name for v in VARIANTS.values()}
    if m is None or m["title"] not in titles:
        return recorded(reason)
    runs_on = words.text("status.runs_on", lang, variant=titles[m["title"]], devices=m["devices"])
    return nodes.inline("", "", recorded(reason[: m.start()]), nodes.Text(runs_on))


def with_recorded(text: str, messages: Sequence[str], lang: str | None) -> list[nodes.Node]:
    """``text`` as nodes, with every occurrence of one of the recorded ``messages`` marked (:func:`reason_node`)."""
    found = sorted({m for m in messages if m and m in text}, key=len, reverse=True)
    if not found:
        return [nodes.Text(text)]
    parts = re.split("(" + "|".join(re.escape(m) for m in found) + ")", text)
    out: list[nodes.Node] = []
    for part in filter(None, parts):
        shown = reason_node(part, lang) if part in found else part
        out.append(shown if isinstance(shown, nodes.Node) else nodes.Text(shown))
    return out


def not_run_note(result: Result, lang: str | None) -> nodes.note:
    """A note saying that a variant could not run and why, in PyTorch's words."""
    text = words_para(
        "status.not_run",
        lang,
        variant=result.variant,
        status=status_words(result.status, lang),
        reason=reason_node(result.reason, lang),
    )
    return nodes.note("", text, classes=["attnprof-not-run"])


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
    key: Sequence[int] = (0,),
    classes: Sequence[str] = (),
    title: nodes.title | None = None,
) -> nodes.table:
    """A docutils table; ``numeric`` column indexes get the class ``attnprof-num`` (right-aligned by the CSS).

    The ``key`` columns are what a reader must see even when the table is wider than the page: they come first,
    their cells get the class ``attnprof-key``, and the first of them stays in view while the table scrolls
    sideways inside its own box (the CSS makes it sticky).
    """
    table = nodes.table(classes=["attnprof-table", "colwidths-auto", *classes])
    if title is not None:
        table += title
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for _ in headers:
        tgroup += nodes.colspec(colwidth=1)
    head_row = nodes.row()
    for col, h in enumerate(headers):
        head_row += _cell(h, ["attnprof-key"] if col in key else [])
    tgroup += nodes.thead("", head_row)
    tbody = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        col = 0
        for content in cells:
            spans = isinstance(content, Span)
            classes = ["attnprof-num"] if col in numeric and not spans else []
            classes += ["attnprof-key"] if col in key else []
            row += _cell(content, classes)
            col += content.cols if spans else 1
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

    def band_fields(self, f: Figure, form: Callable[[float], str] = fmt.number, floor: float = 0.0) -> dict[str, str]:
        """``median``, ``lo`` and ``hi`` of ``f`` (its band at least ``±floor`` of the median, as the comparison
        rule widens it), formatted, for a word-table text with those fields."""
        lo, hi = f.band(floor)
        return {"median": form(f.median), "lo": form(lo), "hi": form(hi)}

    def band(self, f: Figure | None, form: Callable[[float], str] = fmt.number, floor: float = 0.0) -> str:
        """``0.162 (0.160–0.164)``: a figure and its band, in the page's words; "n/a" for none."""
        if f is None:
            return self.say("not_available")
        return self.say("figure.band", **self.band_fields(f, form, floor))

    def margin_text(self, f: Figure) -> str:
        """``+6.2 % (+0.04 % to +12.6 %)``: a difference as a fraction, with its band (:func:`.noise.margin`)."""
        return self.say("figure.margin", **self.band_fields(f, fmt.signed_percent))

    def find(self, variant: str) -> lookup.FoundResult:
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
                shown = fmt.shorten(first.astext() if first is not None else "", 60)
                problems += self.bad_content(
                    f"{self.name} item {shown!r} does not start with one of the table's {what}s "
                    f"({', '.join(keys)}) followed by ':'"
                )
                continue
            _strip_prefix(first, match.end())
            first.rawsource = _ITEM.sub("", first.rawsource, count=1) if first.rawsource else first.astext()
            found[match["key"]] = list(item.children)
        return found, problems


class RecordDirective(AttnprofDirective, Generic[T]):
    """A page element drawn from one kind of record file (:attr:`kind`): load, or box, then build.

    :meth:`run` finds the kind's file in the results folder (:func:`attnprof.sphinxext.lookup.find_record`: CUDA's
    before the CPU's, read once, noted as the page's dependency), then :meth:`build` makes the element from the
    record; a missing or unreadable file is the warning box (:meth:`without`: the warning is already logged with
    the directive's location), and the build goes on. :attr:`found` keeps the file for what needs it (a picture
    drawn beside it).
    """

    #: The kind of record file the element is drawn from.
    kind: ClassVar[Kind[Any]]
    #: What :meth:`run` found (the record, its file, or the problem).
    found: lookup.Found[T]

    def run(self) -> list[nodes.Node]:
        self.found = lookup.find_record(self.env, self.kind, self.get_location())
        record, instead = self.pick(self.found)
        return instead if record is None else self.build(record)

    def pick(self, found: lookup.Found[T]) -> tuple[T | None, list[nodes.Node]]:
        """The record to build from, or ``None`` and the nodes shown instead (:meth:`without`)."""
        return (found.value, []) if found.value is not None else (None, self.without(found.problem))

    def without(self, problem: str | None) -> list[nodes.Node]:
        """What the page shows without a record: the warning box."""
        return self.problem(problem)

    def build(self, record: T) -> list[nodes.Node]:
        """The element, from the record."""
        raise NotImplementedError
