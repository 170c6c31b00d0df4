"""Sphinx extension: live numbers, tables and timelines from result files, in every language of the site.

Pages never type a number: they name a variant and this extension reads its result file (written by the gallery
scripts through :func:`attnprof.results.save`) from ``attnprof_results_dir``. It never imports torch.

Directives and role (MyST syntax)::

    ```{kernel-table} sdpa_flash
    :caption: The kernels of one forward call
    ```

    ```{compare-table} naive naive_inplace sdpa_math
    :link-prefix: variants/
    :caption: At a glance

    - naive: The out-of-place mask shows up as a Memcpy.
    - sdpa_math: Twenty small kernels instead of one fused one.
    ```

    ```{timeline} naive
    :step: 1

    One step of naive attention: CPU ops above, the GPU stream below.
    ```

    ```{env-banner}
    ```

    The flash kernel took {metric}`sdpa_flash:gpu_ms`.

Which result is used: of the result files of a variant (:func:`attnprof.results.find`), the first that ran
(``status == "ok"``), CUDA results before CPU ones; else the first one. A variant that could not run shows its
status and PyTorch's reason as a note. A missing or unreadable (stale) result file is a Sphinx warning with the
source location, and a visible warning box or inline marker on the page.

The provenance banner (``env-banner``) is added to the top of every page that does not place one itself
(``attnprof_env_banner = False`` turns that off). Words the extension writes itself come from
:mod:`attnprof.labels` in the build's ``language``; words written in the directives' content (captions, the
"what the trace reveals" items) stay in the page and are translated with gettext like the rest of it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from . import __version__, claims, labels, occupancy, report, results, scalingplot, sweep, timeline, trace
from .labels import LABELS, label
from .variants import VARIANTS

logger = logging.getLogger(__name__)

#: Claims about CPU time: they use the side-by-side CPU-cost measurement when the build has one.
CPU_CLAIMS = frozenset({"C16", "C17"})

_PACKAGE_DIR = Path(__file__).parent
NBSP = "\u00a0"

#: Fields of the ``metric`` role, besides ``op:<op name>``.
METRIC_FIELDS: tuple[str, ...] = (
    "gpu_ms",
    "gpu_ms_p10",
    "gpu_ms_p90",
    "cpu_us",
    "dispatch_us",
    "context_us",
    "tflops",
    "peak_mib",
    "rel_error",
    "activities_per_step",
    "kernels_per_step",
    "main_kernel",
    "main_kernel_api",
    "main_kernel_us",
    "main_kernel_regs",
    "main_kernel_threads",
    "main_kernel_smem",
    "main_kernel_grid",
    "main_kernel_block",
    "main_kernel_reported_occupancy",
    "main_kernel_theoretical_occupancy",
    "main_kernel_limiter",
    "main_kernel_theoretical_blocks",
    "main_kernel_theoretical_warps",
    "main_kernel_regs_per_block",
    "sm_count",
    "sm_registers",
    "sm_shared_memory",
    "sm_max_warps",
    "device",
    "shape",
    "dtype",
    "status",
    "reason",
)


# --- formatting --------------------------------------------------------------------------------------------------


def fmt_number(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits, never in scientific notation (``0.162``, ``27.3``, ``303``)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    magnitude = math.floor(math.log10(abs(value)))
    return f"{value:.{max(0, digits - 1 - magnitude)}f}"


def fmt_g(value: float) -> str:
    """A percentage or a ratio, three significant digits at most: ``24``, ``18.8``, ``7.76``, ``100``, ``1986``."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def fmt_count(value: float) -> str:
    """A count, or a mean count: ``6``, ``6.3``."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def fmt_bytes(n: int) -> str:
    """``49152`` -> ``48 KiB``; ``0`` -> ``0 B``."""
    if n < 1024:
        return f"{n}{NBSP}B"
    kib = n / 1024
    return f"{kib:.0f}{NBSP}KiB" if kib.is_integer() else f"{fmt_number(kib)}{NBSP}KiB"


def fmt_dims(dims: Sequence[int] | None) -> str:
    """``[8, 8, 16]`` -> ``8×8×16``."""
    return "×".join(str(d) for d in dims) if dims else ""


def _unit(value: str, unit: str) -> str:
    return f"{value}{NBSP}{unit}"


def _limiter_words(limiter: str, language: str | None) -> str:
    key = f"limiter.{limiter}"
    return label(key, language) if key in LABELS else limiter


def status_words(status: str, language: str | None) -> str:
    """The status of a result in words (``no_cuda`` -> ``no CUDA device``)."""
    key = f"status.{status}"
    return label(key, language) if key in LABELS else status


def main_kernel(result: results.Result) -> trace.KernelRow | None:
    """The row of :func:`attnprof.trace.kernel_table` with the largest total time among kernels, if any."""
    rows = [r for r in trace.kernel_table(result.steps, result.device_properties) if r.kind == "kernel"]
    return max(rows, key=lambda r: r.total_us) if rows else None


def _main_kernel_field(field: str, language: str | None) -> Callable[[results.Result], str | None]:
    def get(result: results.Result) -> str | None:
        row = main_kernel(result)
        if row is None:
            return None
        theo = row.theoretical
        value: Any = {
            "main_kernel": row.info.short,
            "main_kernel_api": row.launch_api,
            "main_kernel_us": row.avg_us and _unit(fmt_number(row.avg_us), "µs"),
            "main_kernel_regs": row.registers_per_thread,
            "main_kernel_threads": _threads(row.block),
            "main_kernel_smem": None if row.shared_memory is None else fmt_bytes(row.shared_memory),
            "main_kernel_grid": fmt_dims(row.grid) or None,
            "main_kernel_block": fmt_dims(row.block) or None,
            "main_kernel_reported_occupancy": None
            if row.reported_occupancy is None
            else _unit(fmt_g(row.reported_occupancy), "%"),
            "main_kernel_theoretical_occupancy": None if theo is None else _unit(fmt_g(theo.percent), "%"),
            "main_kernel_limiter": None if theo is None else _limiter_words(theo.limiter, language),
            "main_kernel_theoretical_blocks": None if theo is None else theo.blocks_per_sm,
            "main_kernel_theoretical_warps": None if theo is None else theo.active_warps,
            "main_kernel_regs_per_block": None if theo is None else theo.registers_per_block,
        }[field]
        return None if value is None else str(value)

    return get


def _sm_field(props: dict[str, Any], field: str) -> str | None:
    """A per-SM limit of the GPU, from the trace's device properties."""
    value: Any
    if field == "sm_count":
        value = props.get("numSms")
    elif field == "sm_registers":
        value = props.get("regsPerMultiprocessor")
    elif field == "sm_shared_memory":
        value = props.get("sharedMemPerMultiprocessor")
        value = None if value is None else fmt_bytes(int(value))
    else:  # sm_max_warps
        threads, warp = props.get("maxThreadsPerMultiprocessor"), props.get("warpSize")
        value = threads // warp if threads and warp else None
    return None if value is None else str(value)


def _threads(block: Sequence[int] | None) -> int | None:
    if not block:
        return None
    return math.prod(block)


def metric_text(result: results.Result, field: str, language: str | None = None) -> str:
    """One value of ``result`` as the ``metric`` role shows it, with its unit.

    Args:
        result: The result to read.
        field: One of :data:`METRIC_FIELDS`, or ``op:<op name>`` (mean count of that CPU op per step).
        language: The build's language, for words (status, limiter, "n/a").

    Returns:
        The text; for a result that did not run, its status in words (except for ``status`` and ``reason``).

    Raises:
        KeyError: for an unknown field, naming the accepted ones.
    """
    if field not in METRIC_FIELDS and not field.startswith("op:"):
        raise KeyError(f"unknown metric field {field!r}; choose one of: {', '.join(METRIC_FIELDS)}, op:<op name>")
    if field == "status":
        return status_words(result.status, language)
    if field == "reason":
        return result.reason or label("not_available", language)
    if field in ("device", "dtype"):
        return str(getattr(result, field))
    if field == "shape":
        return "[" + ", ".join(str(d) for d in result.shape) + "]"
    if not result.ok:
        return status_words(result.status, language)
    if field.startswith("sm_"):
        value = _sm_field(result.device_properties, field)
        return label("not_available", language) if value is None else value
    row = report.summary_row(result)
    t = result.timing
    value: str | None
    if field.startswith("op:"):
        counts = trace.op_counts(result.steps)
        value = fmt_count(counts.get(field[3:], 0.0))
    elif field.startswith("main_kernel"):
        value = _main_kernel_field(field, language)(result)
    elif field == "gpu_ms":
        value = None if row.gpu_ms is None else _unit(fmt_number(row.gpu_ms), "ms")
    elif field in ("gpu_ms_p10", "gpu_ms_p90"):
        value = None if t is None else _unit(fmt_number(getattr(t, field)), "ms")
    elif field == "cpu_us":
        value = None if row.cpu_us is None else _unit(fmt_number(row.cpu_us), "µs")
    elif field == "dispatch_us":
        value = None if row.dispatch_us is None else _unit(fmt_number(row.dispatch_us), "µs")
    elif field == "context_us":
        value = None if t is None or t.context_us_median is None else _unit(fmt_number(t.context_us_median), "µs")
    elif field == "tflops":
        value = None if row.tflops is None else _unit(fmt_number(row.tflops), "TFLOP/s")
    elif field == "peak_mib":
        value = None if row.peak_mib is None else _unit(fmt_number(row.peak_mib), "MiB")
    elif field == "rel_error":
        value = None if row.rel_error is None else f"{row.rel_error:.1e}"
    elif field == "activities_per_step":
        value = None if row.activities_per_step is None else fmt_count(row.activities_per_step)
    else:  # kernels_per_step
        value = None if row.kernels_per_step is None else fmt_count(row.kernels_per_step)
    return label("not_available", language) if value is None else value


# --- finding results ---------------------------------------------------------------------------------------------

_CACHE: dict[Path, tuple[int, results.Result]] = {}


def _load_cached(path: Path) -> results.Result:
    mtime = path.stat().st_mtime_ns
    hit = _CACHE.get(path)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    result = results.load(path)
    _CACHE[path] = (mtime, result)
    return result


@dataclass
class Found:
    """A result picked for a variant, with the file it came from; or why there is none."""

    result: results.Result | None
    path: Path | None
    problem: str | None = None


def find_result(env: BuildEnvironment, variant: str, location: str | nodes.Node | None) -> Found:
    """The result to show for ``variant`` (see the module docstring), noting every file read as a dependency.

    An unknown variant, a missing file and a stale file are logged as warnings at ``location``; the returned
    :class:`Found` then carries the message in ``problem``.
    """
    if variant not in VARIANTS:
        return _problem(f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}", "unknown", location)
    directory = _results_dir(env)
    paths = results.find(directory, variant)
    if not paths:
        # depending on the folder re-reads the page once results appear there
        env.note_dependency(directory)
        return _problem(
            f"no result file for variant {variant!r} in {directory} (the gallery script that profiles it writes "
            "one; did it run?)",
            "missing",
            location,
        )
    loaded: list[tuple[Path, results.Result]] = []
    for path in paths:
        env.note_dependency(path)
        try:
            loaded.append((path, _load_cached(path)))
        except (results.StaleResultError, OSError, TypeError, KeyError) as exc:
            return _problem(f"stale or unreadable result file {path}: {exc}", "stale", location)
    path, result = next(((p, r) for p, r in loaded if r.ok), loaded[0])
    if result.trace_file:
        env.note_dependency(path.parent / result.trace_file)
    return Found(result, path)


def _problem(message: str, subtype: str, location: str | nodes.Node | None) -> Found:
    logger.warning(message, location=location, type="attnprof", subtype=subtype)
    return Found(None, None, message)


def _results_dir(env: BuildEnvironment) -> Path:
    return Path(env.config.attnprof_results_dir)


def all_results(env: BuildEnvironment) -> list[results.Result]:
    """Every readable result in the results folder, one per variant (as :func:`find_result` picks), registry order.

    Unreadable files are skipped here (the directives that use them warn).
    """
    directory = _results_dir(env)
    env.note_dependency(directory)
    picked = []
    for variant in VARIANTS:
        loaded = []
        for path in results.find(directory, variant):
            env.note_dependency(path)
            try:
                loaded.append(_load_cached(path))
            except (results.StaleResultError, OSError, TypeError, KeyError):
                continue
        if loaded:
            picked.append(next((r for r in loaded if r.ok), loaded[0]))
    return picked


# --- node helpers ------------------------------------------------------------------------------------------------


def _para(*children: nodes.Node | str, classes: Sequence[str] = ()) -> nodes.paragraph:
    """A paragraph of generated text: no source, so gettext leaves it alone, and no smart quotes, so names and
    PyTorch's messages stay as they were recorded."""
    para = nodes.paragraph("", "", *(nodes.Text(c) if isinstance(c, str) else c for c in children))
    para["classes"] = list(classes)
    para["support_smartquotes"] = False
    para["translatable"] = False  # some transforms give it a source; this keeps it out of the catalogs anyway
    return para


def _problem_box(message: str) -> nodes.warning:
    """The visible side of a warning: a warning box with the message."""
    return nodes.warning("", _para(message), classes=["attnprof-problem"])


def _not_run_note(result: results.Result, language: str | None) -> nodes.note:
    """A note saying that a variant could not run and why, in PyTorch's words."""
    text = label(
        "status.not_run",
        language,
        variant=result.variant,
        status=status_words(result.status, language),
        reason=result.reason or label("not_available", language),
    )
    return nodes.note("", _para(text), classes=["attnprof-not-run"])


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
    items = content if isinstance(content, list) else [content]
    for item in items:
        if item is None:
            continue
        if isinstance(item, str):
            entry += _para(item)
        elif isinstance(item, (nodes.Inline, nodes.Text)):
            entry += _para(item)
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


# --- directives and role -----------------------------------------------------------------------------------------


class _ResultDirective(SphinxDirective):
    """Shared parts: the language, a caption option, finding a result."""

    @property
    def language(self) -> str | None:
        return self.config.language

    def find(self, variant: str) -> Found:
        return find_result(self.env, variant, self.get_location())

    def caption_title(self) -> nodes.title | None:
        """The ``:caption:`` option as a table title (with source info, so gettext extracts it)."""
        caption = self.options.get("caption")
        if not caption:
            return None
        inline, _messages = self.parse_inline(caption)
        title = nodes.title(caption, "", *inline)
        self.set_source_info(title)
        return title

    def problem(self, found: Found) -> list[nodes.Node]:
        box = _problem_box(found.problem or "")
        self.set_source_info(box)
        return [box]

    def measured_cpu_costs(self) -> results.CpuCosts | None:
        """The side-by-side CPU-cost measurement of this build (``cpu_costs__<device>.json``), if it made one.

        Optional: without it, CPU figures come from each variant's own result. A file that cannot be read is a
        warning, like a stale result.
        """
        path = results.find_cpu_costs(_results_dir(self.env))
        if path is None:
            return None
        self.env.note_dependency(str(path))
        try:
            return results.load_cpu_costs(path)
        except (OSError, results.StaleResultError) as exc:
            logger.warning(f"{path.name}: {exc}", location=self.get_location(), type="attnprof", subtype="stale")
            return None

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

    def bad_content(self, message: str) -> list[nodes.Node]:
        """Warn about the directive's content at its location; the visible box for the page."""
        logger.warning(message, location=self.get_location(), type="attnprof", subtype="content")
        box = _problem_box(message)
        self.set_source_info(box)
        return [box]


class KernelTable(_ResultDirective):
    """``kernel-table VARIANT``: one row per distinct GPU activity of the variant's profiled steps."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "caption": directives.unchanged,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        found = self.find(self.arguments[0])
        if found.result is None:
            return self.problem(found)
        result, lang = found.result, self.language
        if not result.ok:
            return [_not_run_note(result, lang)]
        rows = trace.kernel_table(result.steps, result.device_properties)
        if not rows:
            text = label(
                "status.no_gpu_activity",
                lang,
                variant=result.variant,
                device=result.device.upper(),
                shape="[" + ", ".join(map(str, result.shape)) + "]",
                dtype=result.dtype,
            )
            return [nodes.note("", _para(text), classes=["attnprof-no-gpu"])]
        na = label("not_available", lang)
        body = []
        for r in rows:
            theo = r.theoretical
            name_cell = [
                _para(nodes.strong("", r.info.short or r.name)),
                _para(nodes.literal("", r.name), classes=["attnprof-fullname"]),
            ]
            body.append(
                [
                    name_cell,
                    r.info.family,
                    fmt_count(r.per_step),
                    fmt_number(r.avg_us),
                    nodes.literal("", r.launch_api) if r.launch_api else na,
                    na if r.registers_per_thread is None else str(r.registers_per_thread),
                    na if r.shared_memory is None else fmt_bytes(r.shared_memory),
                    f"{fmt_dims(r.grid)} × {fmt_dims(r.block)}" if r.grid and r.block else na,
                    na if r.reported_occupancy is None else _unit(fmt_g(r.reported_occupancy), "%"),
                    na
                    if theo is None
                    else _unit(fmt_g(theo.percent), "%")
                    # at full occupancy no resource limits anything worth naming
                    + (f" ({_limiter_words(theo.limiter, lang)})" if theo.percent < 100 else ""),
                ]
            )
        headers = [
            label(k, lang)
            for k in (
                "col.kernel",
                "col.family",
                "col.per_step",
                "col.avg_us",
                "col.launch_api",
                "col.registers",
                "col.shared_memory",
                "col.grid_block",
                "col.reported_occupancy",
                "col.theoretical_occupancy",
            )
        ]
        table = build_table(
            headers,
            body,
            numeric=(2, 3, 5, 6, 8, 9),
            classes=["attnprof-kernel-table", *self.options.get("class", [])],
            title=self.caption_title(),
        )
        self.set_source_info(table)
        self.add_name(table)
        return [table]


_ITEM = re.compile(r"^\s*`?(?P<key>[A-Za-z_]\w*)`?\s*:\s*")


class _VariantTable(_ResultDirective):
    """A table with one row per variant (all registered variants when none are named).

    The content, if any, is a bullet list of ``variant: text`` items: the text goes into a last "what the trace
    reveals" column, parsed as part of the page (so gettext extracts and translates it). Subclasses name the
    columns and fill the cells of a variant that ran.
    """

    optional_arguments = len(VARIANTS)
    has_content = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "caption": directives.unchanged,
        "link-prefix": directives.unchanged,
        "name": directives.unchanged,
        "class": directives.class_option,
    }
    #: Label keys of the columns after the variant's name.
    columns: ClassVar[tuple[str, ...]] = ()
    #: Indexes (counting the variant's column) of the columns that hold numbers.
    numeric: ClassVar[tuple[int, ...]] = ()
    table_class: ClassVar[str] = ""

    def cells(self, result: results.Result) -> list[Any]:
        """The cells after the variant's name, for a result that ran."""
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        variants = self.arguments or list(VARIANTS)
        lang = self.language
        width = len(self.columns)
        reveals, out = self.items(variants, "variant")
        body = []
        for variant in variants:
            found = self.find(variant)
            res = found.result
            if res is None:
                cells: list[Any] = [Span(label("status.missing", lang), width)]
                out += self.problem(found)
            elif not res.ok:
                text = f"{status_words(res.status, lang)}: {res.reason or label('not_available', lang)}"
                cells = [Span(_para(text, classes=["attnprof-not-run"]), width)]
            else:
                cells = self.cells(res)
            body.append([self.variant_cell(variant), *cells, *([reveals.get(variant, [])] if reveals else [])])
        keys = ["col.variant", *self.columns, *(["col.reveals"] if reveals else [])]
        table = build_table(
            [label(k, lang) for k in keys],
            body,
            numeric=self.numeric,
            classes=[self.table_class, *self.options.get("class", [])],
            title=self.caption_title(),
        )
        self.set_source_info(table)
        self.add_name(table)
        return [table, *out]

    def na(self, value: float | None, fmt: Callable[[float], str] = fmt_number) -> str:
        """``value`` formatted, or "n/a" in the page's language."""
        return label("not_available", self.language) if value is None else fmt(value)

    def variant_cell(self, variant: str) -> nodes.Node:
        """The variant's name, linked to its page when ``:link-prefix:`` is given and that page exists."""
        text = nodes.literal("", variant)
        prefix = self.options.get("link-prefix")
        if prefix is None:
            return text
        docname = prefix.strip("/") + "/" + variant.replace("_", "-") if prefix.strip("/") else variant
        if docname not in self.env.found_docs:
            return text
        ref = addnodes.pending_xref(
            "",
            text,
            refdomain="std",
            reftype="doc",
            reftarget="/" + docname,
            refexplicit=True,
            refwarn=True,
            refdoc=self.env.docname,
        )
        return ref


class CompareTable(_VariantTable):
    """``compare-table [VARIANT ...]``: the at-a-glance table."""

    columns = ("col.activities_per_step", "col.kernels_per_step", "col.gpu_ms", "col.cpu_us", "col.dispatch_us",
               "col.tflops", "col.peak_mib", "col.main_kernel")  # fmt: skip
    numeric = (1, 2, 3, 4, 5, 6, 7)
    table_class = "attnprof-compare-table"

    def cells(self, result: results.Result) -> list[Any]:
        row = report.summary_row(result)
        return [
            self.na(row.activities_per_step, fmt_count),
            self.na(row.kernels_per_step, fmt_count),
            self.na(row.gpu_ms),
            self.na(row.cpu_us),
            self.na(row.dispatch_us),
            self.na(row.tflops),
            self.na(row.peak_mib),
            row.main_kernel or label("not_available", self.language),
        ]


class CpuCostTable(_VariantTable):
    """``cpu-cost-table [VARIANT ...]``: the CPU side of a call, with and without the profiler.

    Columns (from :func:`attnprof.claims.cpu_costs`): CPU events recorded per step, profiled CPU time of the
    annotated call, dispatch cost measured without the profiler, the share of the profiled time the profiler adds,
    and the cost of entering and leaving the backend-forcing context alone.
    """

    columns = ("col.cpu_events", "col.cpu_us", "col.dispatch_us", "col.profiler_share", "col.context_us")
    numeric = (1, 2, 3, 4, 5)
    table_class = "attnprof-cpu-cost-table"
    measured: results.CpuCosts | None = None

    def run(self) -> list[nodes.Node]:
        self.measured = self.measured_cpu_costs()
        out = super().run()
        if self.measured is not None:
            note = label("cpu_costs.interleaved", self.language, rounds=self.measured.rounds)
            out.insert(1, _para(note, classes=["attnprof-table-note"]))
        return out

    def cells(self, result: results.Result) -> list[Any]:
        (cost,) = claims.cpu_costs({result.variant: result}, [result.variant], self.measured)
        events = sum(len(s.cpu_ops) for s in result.steps) / len(result.steps) if result.steps else None
        return [
            self.na(events, fmt_count),
            self.na(cost.profiled_us),
            self.na(cost.dispatch_us),
            self.na(cost.profiler_share, lambda f: _unit(f"{100 * f:.0f}", "%")),
            self.na(cost.context_us),
        ]


class Claims(_ResultDirective):
    """``claims [ID ...]``: the article's claims (all when none are named) checked against this build.

    One row per claim: its id (linked to its row in the ``claims-table``, where there is one), the published
    figure, what this build measured (with the detail, or the reason it could not be checked) and the verdict
    (:func:`attnprof.claims.check`). A missing or stale result of a variant a claim needs is a warning, like
    everywhere else.
    """

    optional_arguments = len(claims.CLAIMS)
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "caption": directives.unchanged,
        "name": directives.unchanged,
        "class": directives.class_option,
    }
    #: The full table: a statement column, and a link target for every row.
    full: ClassVar[bool] = False

    def run(self) -> list[nodes.Node]:
        lang = self.language
        out: list[nodes.Node] = []
        chosen: list[claims.Claim] = []
        for claim_id in self.arguments or list(claims.CLAIMS):
            try:
                chosen.append(claims.get(claim_id))
            except KeyError as exc:
                out += self.problem(_problem(str(exc.args[0]), "claim", self.get_location()))
        statements: dict[str, list[nodes.Node]] = {}
        if self.full:
            statements, problems = self.items([c.id for c in chosen], "claim")
            out += problems
            missing = [c.id for c in chosen if c.id not in statements]
            if missing:
                out += self.bad_content(f"{self.name} has no statement for {', '.join(missing)}")
        found = self.results_for(chosen, out)
        cpu = self.measured_cpu_costs() if any(c.id in CPU_CLAIMS for c in chosen) else None
        body = []
        for claim in chosen:
            verdict = claim.check(found, lang, cpu)
            measured = [_para(t) for t in (verdict.measured, verdict.detail, verdict.reason) if t]
            cells = [
                self.claim_cell(claim.id),
                claim.published(lang),
                measured or label("not_available", lang),
                _para(
                    label(f"verdict.{verdict.verdict}", lang),
                    classes=["attnprof-verdict", f"attnprof-verdict-{verdict.verdict}"],
                ),
            ]
            if self.full:
                cells.insert(1, statements.get(claim.id, []))
            body.append(cells)
        keys = ["col.claim", "col.published", "col.measured", "col.verdict"]
        if self.full:
            keys.insert(1, "col.statement")
        table = build_table(
            [label(k, lang) for k in keys],
            body,
            classes=[
                "attnprof-claims-table",
                "attnprof-claims-full" if self.full else "attnprof-claims",
                *self.options.get("class", []),
            ],
            title=self.caption_title(),
        )
        self.set_source_info(table)
        self.add_name(table)
        return [table, *out]

    def claim_cell(self, claim_id: str) -> nodes.Node:
        """The claim's id: a link target in the full table, a link to that target elsewhere."""
        name = f"claim-{claim_id.lower()}"
        text = nodes.strong("", claim_id)
        if self.full:
            target = nodes.target("", "", ids=[name], names=[name])
            self.state.document.note_explicit_target(target)
            return _para(target, text)
        # no warning when the site has no claims-table: the id then stays plain text
        return addnodes.pending_xref(
            "", text, refdomain="std", reftype="ref", reftarget=name, refexplicit=True, refwarn=False
        )

    def results_for(self, chosen: Sequence[claims.Claim], out: list[nodes.Node]) -> dict[str, results.Result]:
        """Results of the variants the claims use; required ones warn when missing, optional ones do not."""
        found: dict[str, results.Result] = {}
        required = {v for c in chosen for v in c.variants}
        for variant in dict.fromkeys(v for c in chosen for v in (*c.variants, *c.optional)):
            if variant not in required and not results.find(_results_dir(self.env), variant):
                continue
            hit = self.find(variant)
            if hit.result is not None:
                found[variant] = hit.result
            else:
                out += self.problem(hit)
        return found


class ClaimsTable(Claims):
    """``claims-table [ID ...]``: the full claims table, with the claims in brief from the content.

    The content is a bullet list of ``C<n>: text`` items, one per claim shown (a missing one is a warning);
    the texts stay part of the page, so gettext extracts and translates them. Each row is a link target
    (``claim-c1`` ...) that the ``claims`` directive on other pages links to.
    """

    has_content = True
    full = True


class OccupancyTable(_ResultDirective):
    """``occupancy-table [VARIANT ...]``: reported against theoretical occupancy for every kernel of the variants
    (all when none are named), from :func:`attnprof.occupancy.kernel_occupancies`.

    Columns: variant, kernel, launch API, shared memory per block, the grid's blocks per SM (from the trace), the
    reported and the theoretical occupancy, and what limits it (a resource of the SM, or the grid). A reported 0%
    is marked (class ``attnprof-occ-zero``).
    """

    optional_arguments = len(VARIANTS)
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "caption": directives.unchanged,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        lang = self.language
        kernels, out = self.kernels()
        if not kernels:
            return [self.no_kernels(), *out]
        na = label("not_available", lang)
        body = []
        for k in kernels:
            reported: Any = na
            if k.reported is not None:
                text = _unit(fmt_g(k.reported), "%")
                reported = nodes.inline("", text, classes=["attnprof-occ-zero"]) if k.zero else text
            body.append(
                [
                    nodes.literal("", k.variant),
                    _para(nodes.strong("", k.short or k.name), classes=["attnprof-kernel"]),
                    nodes.literal("", k.launch_api) if k.launch_api else na,
                    na if k.shared_memory is None else fmt_bytes(k.shared_memory),
                    na if k.blocks_per_sm is None else fmt_g(k.blocks_per_sm),
                    reported,
                    na if k.theoretical is None else _unit(fmt_g(k.theoretical.percent), "%"),
                    na if k.limiter is None else _limiter_words(k.limiter, lang),
                ]
            )
        keys = ("col.variant", "col.kernel", "col.launch_api", "col.shared_memory", "col.blocks_per_sm",
                "col.reported_occupancy", "col.theoretical", "col.limiter")  # fmt: skip
        table = build_table(
            [label(key, lang) for key in keys],
            body,
            numeric=(3, 4, 5, 6),
            classes=["attnprof-occupancy-table", *self.options.get("class", [])],
            title=self.caption_title(),
        )
        self.set_source_info(table)
        self.add_name(table)
        return [table, *out]

    def kernels(self) -> tuple[list[occupancy.KernelOccupancy], list[nodes.Node]]:
        """Every kernel of the named variants' results (a missing or stale one warns), or of every result of the
        build when none are named."""
        if not self.arguments:
            return occupancy.kernel_occupancies(all_results(self.env)), []
        ran, out = [], []
        for variant in self.arguments:
            hit = self.find(variant)
            if hit.result is None:
                out += self.problem(hit)
            else:
                ran.append(hit.result)
        return occupancy.kernel_occupancies(ran), out

    def no_kernels(self) -> nodes.Node:
        """The note for a build without GPU kernels (a CPU-only build)."""
        return nodes.note("", _para(label("occupancy.no_kernels", self.language)), classes=["attnprof-no-gpu"])


def _kernel_ref(k: occupancy.KernelOccupancy, with_launch: bool = False) -> str:
    """``flash fwd (bf16) [sdpa_flash]``, with ``(cudaLaunchKernel, 12%)`` when asked."""
    text = f"{k.short} [{k.variant}]"
    if with_launch:
        reported = "?" if k.reported is None else fmt_g(k.reported)
        text += f" ({k.launch_api or '?'}, {reported}%)"
    return text


def _and(items: Sequence[str], language: str | None) -> str:
    """``a``, ``a and b``, ``a, b and c`` (in the page's language)."""
    if len(items) < 2:
        return "".join(items)
    return label("hyp.list_sep", language).join(items[:-1]) + label("hyp.and", language) + items[-1]


class OccupancyHypotheses(OccupancyTable):
    """``occupancy-hypotheses [VARIANT ...]``: each explanation of a reported 0% occupancy (and each combination)
    tested against every kernel (:func:`attnprof.occupancy.check_hypotheses`), then one line saying which the
    data support (:func:`attnprof.occupancy.supported`) and which kernels rule the others out."""

    def run(self) -> list[nodes.Node]:
        lang = self.language
        kernels, out = self.kernels()
        tested = [k for k in kernels if k.reported is not None]
        if not tested:
            return [self.no_kernels(), *out]
        tests = occupancy.check_hypotheses(kernels)
        none = label("occupancy.none", lang)

        def names(ks: Sequence[occupancy.KernelOccupancy]) -> Any:
            return [_para(_kernel_ref(k)) for k in ks] or none

        body = []
        for t in tests:
            parts = label("hyp.or", lang).join(label(f"hyp.{p}", lang) for p in t.hypothesis.parts)
            body.append(
                [
                    [_para(nodes.strong("", t.hypothesis.key)), _para(parts)],
                    str(len(t.predicted)),
                    str(len(t.consistent)),
                    names(t.counterexamples),
                    names(t.missed),
                    _para(label(f"hyp.verdict.{t.verdict}", lang), classes=[f"attnprof-hypothesis-{t.verdict}"]),
                ]
            )
        keys = ("col.hypothesis", "col.predicted", "col.consistent", "col.counterexamples", "col.missed",
                "col.verdict")  # fmt: skip
        table = build_table(
            [label(key, lang) for key in keys],
            body,
            numeric=(1, 2),
            classes=["attnprof-hypotheses-table", *self.options.get("class", [])],
            title=self.caption_title(),
        )
        self.set_source_info(table)
        self.add_name(table)
        return [table, _para(self.verdict_line(tests, tested), classes=["attnprof-verdict-line"]), *out]

    def verdict_line(self, tests: Sequence[occupancy.HypothesisTest], tested: Sequence[Any]) -> str:
        """Which hypotheses the data support, and the kernels that rule out the single explanations."""
        lang = self.language
        zeros = sum(1 for k in tested if k.zero)
        best = occupancy.supported(tests)
        fields = {"n": len(tested), "zeros": zeros}
        if not zeros:
            return label("hyp.line.no_zero", lang, **fields)
        if not best:
            line = label("hyp.line.none", lang, **fields)
        elif len(best) == 1:
            line = label("hyp.line.supported", lang, hypothesis=best[0].hypothesis.key, **fields)
        else:
            line = label("hyp.line.tie", lang, hypotheses=_and([t.hypothesis.key for t in best], lang), **fields)
        against = [
            label("hyp.against", lang, kernel=_kernel_ref(k, with_launch=True), hypothesis=t.hypothesis.key)
            for t in tests
            if len(t.hypothesis.parts) == 1
            for k in t.counterexamples
        ]
        if against:
            line += label("hyp.sentence_sep", lang) + label(
                "hyp.line.counterexamples", lang, items=label("hyp.list_sep", lang).join(against)
            )
        return line


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


class Timeline(_ResultDirective):
    """``timeline VARIANT``: one active step drawn by :mod:`attnprof.timeline`, the content as caption."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "step": directives.nonnegative_int,
        "width": directives.length_or_percentage_or_unitless,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        found = self.find(self.arguments[0])
        if found.result is None or found.path is None:
            return self.problem(found)
        result, lang = found.result, self.language
        if not result.ok:
            # The caption still goes through the parser, inside the note: its message is extracted for
            # translation by every build, whether or not this one could run the variant.
            note = _not_run_note(result, lang)
            note += self.parse_content_to_nodes() if self.content else []
            return [note]
        step = self.options.get("step")
        try:
            timeline.pick_step(result, step)
        except ValueError as exc:
            return self.problem(_problem(f"timeline {result.variant!r}: {exc}", "step", self.get_location()))

        picture_lang = scalingplot.picture_language(lang)
        which = "mid" if step is None else step
        png = found.path.parent / "timelines" / f"{result.stem}.step{which}.{picture_lang}.png"
        summary = _render_if_stale(result, found.path, png, step, picture_lang)
        self.env.note_dependency(png)

        doc_dir = self.env.doc2path(self.env.docname).parent
        out: list[nodes.Node] = [_picture_figure(self, png, summary, "attnprof-timeline")]
        if result.trace_file:
            trace_path = found.path.parent / result.trace_file
            ref = addnodes.download_reference(
                "",
                "",
                nodes.literal("", result.trace_file),
                reftarget=Path(os.path.relpath(trace_path, doc_dir)).as_posix(),
                refdoc=self.env.docname,
                refdomain="",
                reftype="download",
                refexplicit=True,
                refwarn=False,
            )
            out.append(
                _para(
                    label("timeline.download", lang) + ": ",
                    ref,
                    " " + label("timeline.open_with", lang),
                    classes=["attnprof-trace-download"],
                )
            )
        return out


def _render_if_stale(result: results.Result, result_path: Path, png: Path, step: int | None, language: str) -> str:
    """Render the timeline unless ``png`` is newer than the result, the drawing code and its words."""
    code = (Path(timeline.__file__), Path(labels.__file__))
    newest_input = max(result_path.stat().st_mtime_ns, *(p.stat().st_mtime_ns for p in code))
    if png.exists() and png.stat().st_mtime_ns >= newest_input:
        return timeline.summary(result, step)
    return timeline.render(result, png, step, language)


def _picture_figure(
    directive: SphinxDirective, png: Path, summary: str, figure_class: str, image_class: str | None = None
) -> nodes.figure:
    """A figure of a picture the build drew: the directive's content becomes its caption (translatable; the
    alt-text transform copies it once translated), ``summary`` is the alt text when there is no caption."""
    doc_dir = directive.env.doc2path(directive.env.docname).parent
    figure = nodes.figure("", classes=[figure_class, *directive.options.get("class", [])])
    directive.set_source_info(figure)
    uri = Path(os.path.relpath(png, doc_dir)).as_posix()
    image = nodes.image(uri=uri, classes=[image_class or f"{figure_class}-image"])
    image["attnprof_summary"] = summary
    if "width" in directive.options:
        image["width"] = directive.options["width"]
    figure += image
    caption_nodes = directive.parse_content_to_nodes() if directive.content else []
    first = caption_nodes[0] if caption_nodes else None
    if isinstance(first, nodes.paragraph):
        caption = nodes.caption(first.rawsource, "", *first.children)
        caption.source, caption.line = first.source, first.line
        figure += caption
        if caption_nodes[1:]:
            figure += nodes.legend("", *caption_nodes[1:])
    directive.add_name(figure)
    return figure


class EnvBannerPlaceholder(nodes.General, nodes.Element):
    """Where the provenance banner goes; :class:`EnvBannerTransform` replaces it."""


class EnvBanner(SphinxDirective):
    """``env-banner``: where the numbers of the site come from (placed here instead of at the top of the page)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        node = EnvBannerPlaceholder()
        self.set_source_info(node)
        return [node]


class MetricRole(SphinxRole):
    """``{metric}`VARIANT:FIELD```: one live value with its unit (see :data:`METRIC_FIELDS`)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        variant, sep, field = self.text.strip().partition(":")
        location = self.get_location()
        lang = self.config.language
        if not sep or not field:
            return self._problem(f"metric {self.text!r}: expected VARIANT:FIELD, e.g. sdpa_flash:gpu_ms", location)
        if field not in METRIC_FIELDS and not field.startswith("op:"):
            return self._problem(
                f"metric {self.text!r}: unknown field {field!r}; choose one of: {', '.join(METRIC_FIELDS)}, "
                "op:<op name>",
                location,
            )
        found = find_result(self.env, variant, location)
        if found.result is None:
            return [nodes.problematic(self.rawtext, f"{self.text} ({label('status.missing', lang)})")], []
        text = metric_text(found.result, field, lang)
        classes = ["attnprof-metric"] + ([] if found.result.ok else ["attnprof-not-run"])
        node = nodes.inline(self.rawtext, text, classes=classes)
        node["support_smartquotes"] = False
        return [node], []

    def _problem(self, message: str, location: str) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        logger.warning(message, location=location, type="attnprof", subtype="metric")
        return [nodes.problematic(self.rawtext, self.rawtext)], []


# --- scaling: plots and tables of the sweep ----------------------------------------------------------------------

_SWEEP_CACHE: dict[Path, tuple[int, sweep.Sweep]] = {}


@dataclass
class FoundSweep:
    """The sweep a page shows, with its file; or why there is none."""

    sweep: sweep.Sweep | None
    path: Path | None
    problem: str | None = None


def find_sweep(env: BuildEnvironment, location: str | nodes.Node | None) -> FoundSweep:
    """The sweep of the results folder: ``sweep__cuda.json`` when there is one, else ``sweep__cpu.json``.

    The file read is noted as a dependency of the page. A missing or stale file is a warning at ``location``.
    """
    directory = _results_dir(env)
    paths = [directory / sweep.filename(d) for d in ("cuda", "cpu")]
    path = next((p for p in paths if p.exists()), None)
    if path is None:
        env.note_dependency(directory)
        message = (
            f"no sweep file ({paths[0].name} or {paths[1].name}) in {directory} (examples/10-scaling.py writes it; "
            "did it run?)"
        )
        logger.warning(message, location=location, type="attnprof", subtype="missing")
        return FoundSweep(None, None, message)
    env.note_dependency(path)
    try:
        mtime = path.stat().st_mtime_ns
        hit = _SWEEP_CACHE.get(path)
        if hit is None or hit[0] != mtime:
            hit = (mtime, sweep.load(path))
            _SWEEP_CACHE[path] = hit
    except (results.StaleResultError, OSError) as exc:
        message = f"stale or unreadable sweep file {path}: {exc}"
        logger.warning(message, location=location, type="attnprof", subtype="stale")
        return FoundSweep(None, None, message)
    return FoundSweep(hit[1], path)


def _ms(value: float | None, language: str | None) -> str:
    return label("not_available", language) if value is None else _unit(fmt_number(value), "ms")


def _percent(fraction: float | None, language: str | None) -> str:
    return label("not_available", language) if fraction is None else _unit(fmt_number(fraction * 100, 2), "%")


def _seq_list(seqs: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seqs)


class _SweepDirective(SphinxDirective):
    """Shared parts of the sweep directives: the sweep, the head dims to show, words about points that did not run."""

    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "head-dim": directives.positive_int,
        "caption": directives.unchanged,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    @property
    def language(self) -> str | None:
        return self.config.language

    def load(self) -> tuple[FoundSweep, list[nodes.Node]]:
        """The sweep, or a problem box (the warning is already logged)."""
        found = find_sweep(self.env, self.get_location())
        if found.sweep is not None:
            return found, []
        box = _problem_box(found.problem or "")
        self.set_source_info(box)
        return found, [box]

    def head_dims(self, sw: sweep.Sweep) -> tuple[list[int], list[nodes.Node]]:
        """The ``:head-dim:`` option (or all of the sweep's); a head_dim the sweep lacks is a note, not a warning:
        a CPU build measures fewer head dims than a GPU build of the same page."""
        wanted = self.options.get("head-dim")
        if wanted is None:
            return list(sw.head_dims), []
        if wanted in sw.head_dims:
            return [wanted], []
        text = label("scaling.not_measured", self.language, head_dim=wanted, measured=_seq_list(sw.head_dims))
        return [], [nodes.note("", _para(text), classes=["attnprof-not-run"])]

    def caption_title(self, default: str | None = None) -> nodes.title | None:
        """The ``:caption:`` option as a table title (translatable), else ``default`` (generated, not translated)."""
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

    def finish(self, table: nodes.table) -> nodes.table:
        self.set_source_info(table)
        self.add_name(table)
        return table

    def status_cell(self, p: sweep.SweepPoint) -> nodes.paragraph:
        lang = self.language
        if p.status == "oom" and (p.reason or "").startswith("skipped:"):
            text = label("scaling.cell.oom_skipped", lang)
        elif p.status == "skipped":
            text = label("scaling.cell.skipped", lang)
        else:
            text = status_words(p.status, lang)
        return _para(text, classes=["attnprof-not-run"])

    def reasons(self, sw: sweep.Sweep, head_dim: int) -> list[nodes.Node]:
        """Why the points that did not run did not, grouped by variant and reason."""
        lang = self.language
        grouped: dict[tuple[str, str], list[int]] = {}
        for p in sw.points:
            if p.head_dim == head_dim and not p.ok:
                grouped.setdefault((p.variant, p.reason or status_words(p.status, lang)), []).append(p.seq)
        if not grouped:
            return []
        items = nodes.bullet_list()
        for (variant, reason), seqs in grouped.items():
            where = label("scaling.where", lang, seqs=_seq_list(seqs))
            items += nodes.list_item(
                "", _para(label("scaling.reason_item", lang, variant=variant, where=where, reason=reason))
            )
        return [_para(label("scaling.reasons", lang), classes=["attnprof-reasons"]), items]


class ScalingPlot(_SweepDirective):
    """``scaling-plot``: one metric of the sweep against sequence length at one head_dim, the content as caption."""

    has_content = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        **_SweepDirective.option_spec,
        "metric": lambda arg: directives.choice(arg, sweep.METRICS),
        "width": directives.length_or_percentage_or_unitless,
    }

    def run(self) -> list[nodes.Node]:
        found, problems = self.load()
        if found.sweep is None or found.path is None:
            return problems
        sw, lang = found.sweep, self.language
        dims, notes = self.head_dims(sw)
        if not dims:
            # parse the caption anyway, so that its message is extracted for translation on every build
            caption = self.parse_content_to_nodes() if self.content else []
            if notes and caption:
                notes[-1] += caption
                return notes
            return [*notes, *caption]
        head_dim, metric = dims[0], self.options.get("metric", "gpu_ms")
        # one picture per language: the en and ja builds share the results folder
        lang_code = scalingplot.picture_language(lang)
        png = found.path.parent / "plots" / f"scaling__{sw.device}__{metric}__hd{head_dim}__{lang or 'en'}.png"
        newest_input = max(found.path.stat().st_mtime_ns, scalingplot.code_mtime_ns())
        if png.exists() and png.stat().st_mtime_ns >= newest_input:
            summary = scalingplot.summary(sw, metric, head_dim, lang_code)
        else:
            summary = scalingplot.render(sw, metric, head_dim, png, lang_code)

        return [_picture_figure(self, png, summary, "attnprof-scaling-plot", "attnprof-scaling-image")]


class ScalingTable(_SweepDirective):
    """``scaling-table``: a row per variant, a column per sequence length, one metric in the cells."""

    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        **_SweepDirective.option_spec,
        "metric": lambda arg: directives.choice(arg, sweep.METRICS),
    }

    def run(self) -> list[nodes.Node]:
        found, problems = self.load()
        if found.sweep is None:
            return problems
        sw, lang = found.sweep, self.language
        metric = self.options.get("metric", "gpu_ms")
        dims, out = self.head_dims(sw)
        words = scalingplot.metric_words(sw, metric, lang)
        na = label("scaling.cell.not_planned", lang)
        for head_dim in dims:
            body = []
            for v in sw.variants:
                cells: list[Any] = [nodes.literal("", v)]
                for s in sw.seqs:
                    p = sw.point(v, head_dim, s)
                    value = None if p is None or not p.ok else p.metric(metric)
                    if p is None:
                        cells.append(na)
                    elif not p.ok:
                        cells.append(self.status_cell(p))
                    else:
                        cells.append(label("not_available", lang) if value is None else fmt_number(value))
                body.append(cells)
            headers = [label("col.variant", lang), *(label("scaling.col.seq", lang, seq=s) for s in sw.seqs)]
            title = self.caption_title(label("scaling.table_title", lang, metric=words, head_dim=head_dim))
            table = build_table(
                headers,
                body,
                numeric=range(1, len(headers)),
                title=title,
                classes=["attnprof-scaling-table", *self.options.get("class", [])],
            )
            out.append(self.finish(table))
            compiled = [v for v in sw.variants if VARIANTS[v].compiled] if sw.compiled_seqs is not None else []
            if compiled:
                seqs = [s for s in sw.seqs if s in sw.compiled_seqs]  # type: ignore[operator]
                out.append(
                    _para(
                        label("scaling.compiled_note", lang, variants=", ".join(compiled), seqs=_seq_list(seqs)),
                        classes=["attnprof-compiled-note"],
                    )
                )
            out += self.reasons(sw, head_dim)
        return out


class RooflineTable(_SweepDirective):
    """``roofline-table``: the ceilings measured in this build, and each variant's share of them at the longest
    sequence it ran (see :func:`attnprof.sweep.roofline` for the byte count)."""

    def run(self) -> list[nodes.Node]:
        found, problems = self.load()
        if found.sweep is None:
            return problems
        sw, lang = found.sweep, self.language
        c = sw.ceilings
        if c is None:
            return [nodes.note("", _para(label("scaling.no_ceilings", lang)), classes=["attnprof-no-ceilings"])]
        bandwidth = c.bandwidth_gbs / 1000
        out: list[nodes.Node] = [
            _para(
                label(
                    "scaling.ceilings",
                    lang,
                    n=c.matmul_n,
                    matmul=_unit(fmt_number(c.matmul_tflops), "TFLOP/s"),
                    size=_unit(f"{c.copy_bytes / 2**30:g}", "GiB"),
                    bandwidth=_unit(fmt_number(bandwidth), "TB/s"),
                    ridge=_unit(fmt_number(c.ridge), "FLOP/byte"),
                ),
                classes=["attnprof-ceilings"],
            )
        ]
        dims, notes = self.head_dims(sw)
        out += notes
        show_dim = len(dims) > 1
        body = []
        for v in sw.variants:
            for head_dim in dims:
                lead: list[Any] = [nodes.literal("", v)] + ([str(head_dim)] if show_dim else [])
                p = sw.largest_ok(v, head_dim)
                if p is None:
                    first = next(iter(sw.points_of(v, head_dim)), None)
                    if first is not None:
                        body.append([*lead, Span(self.status_cell(first), 6)])
                    continue
                r = sw.roofline(p)
                side = "compute" if r.intensity >= c.ridge else "memory"
                body.append(
                    [
                        *lead,
                        str(p.seq),
                        fmt_number(p.tflops or 0.0),
                        _percent(r.matmul_fraction, lang),
                        fmt_number(r.intensity),
                        _percent(r.bandwidth_fraction, lang),
                        label(f"scaling.side.{side}", lang),
                    ]
                )
        keys = ["col.variant", *(["scaling.col.head_dim"] if show_dim else []), "scaling.col.largest_seq",
                "col.tflops", "scaling.col.matmul_fraction", "scaling.col.intensity",
                "scaling.col.bandwidth_fraction", "scaling.col.side"]  # fmt: skip
        if body:
            first_num = 2 if show_dim else 1
            table = build_table(
                [label(k, lang) for k in keys],
                body,
                numeric=range(first_num, first_num + 5),
                title=self.caption_title(),
                classes=["attnprof-roofline-table", *self.options.get("class", [])],
            )
            out.append(self.finish(table))
        return out


class SdpaChoiceTable(_SweepDirective):
    """``sdpa-choice-table``: at every point, the backend SDPA picked against the fastest one; then the points
    where issuing the call took the CPU longer than the GPU took to run it."""

    def run(self) -> list[nodes.Node]:
        found, problems = self.load()
        if found.sweep is None:
            return problems
        sw, lang = found.sweep, self.language
        na = label("not_available", lang)
        dims, out = self.head_dims(sw)
        body = []
        for c in sw.sdpa_comparisons():
            if c.head_dim not in dims:
                continue
            if c.pick is None:
                auto = sw.point("sdpa_auto", c.head_dim, c.seq)
                status = status_words(auto.status if auto else "missing", lang)
                pick: Any = _para(label("scaling.auto_not_run", lang, status=status), classes=["attnprof-not-run"])
            else:
                pick = f"{c.pick} ({_ms(c.auto_ms, lang)})"
            if c.agrees is None:
                same = na
            elif c.agrees:
                same = label("scaling.yes", lang)
            else:
                slow = c.pick_slowdown
                same = label("scaling.no_slower", lang, percent=_percent(slow, lang))
            fastest = f"{c.fastest_backend} ({_ms(c.fastest_backend_ms, lang)})" if c.fastest_backend else na
            overall = f"{c.fastest_variant} ({_ms(c.fastest_variant_ms, lang)})" if c.fastest_variant else na
            body.append([str(c.head_dim), str(c.seq), pick, fastest, same, overall])
        if body:
            keys = ["scaling.col.head_dim", "scaling.col.seq_plain", "scaling.col.pick",
                    "scaling.col.fastest_backend", "scaling.col.agrees", "scaling.col.fastest_variant"]  # fmt: skip
            table = build_table(
                [label(k, lang) for k in keys],
                body,
                numeric=(0, 1),
                title=self.caption_title(),
                classes=["attnprof-sdpa-choice-table", *self.options.get("class", [])],
            )
            out.append(self.finish(table))
        out += self.cpu_bound(sw, dims)
        return out

    def cpu_bound(self, sw: sweep.Sweep, dims: Sequence[int]) -> list[nodes.Node]:
        """The CPU-bound points, with their numbers; or the closest point when there is none."""
        lang = self.language
        if sw.device != "cuda":
            return [_para(label("scaling.cpu_bound_cpu", lang), classes=["attnprof-cpu-bound"])]

        def fields(p: sweep.SweepPoint) -> dict[str, Any]:
            return dict(
                variant=p.variant,
                head_dim=p.head_dim,
                seq=p.seq,
                dispatch=_unit(fmt_number(p.dispatch_us or 0.0), "µs"),
                gpu=_unit(fmt_number((p.gpu_ms or 0.0) * 1e3), "µs"),
            )

        bound = [p for p in sw.cpu_bound() if p.head_dim in dims]
        if bound:
            items = nodes.bullet_list()
            for p in bound:
                items += nodes.list_item("", _para(label("scaling.cpu_bound_item", lang, **fields(p))))
            return [_para(label("scaling.cpu_bound_intro", lang), classes=["attnprof-cpu-bound"]), items]
        timed = [p for p in sw.points if p.ok and p.head_dim in dims and p.dispatch_us and p.gpu_ms]
        if not timed:
            return []
        closest = max(timed, key=lambda p: p.dispatch_us / p.gpu_ms)  # type: ignore[operator]
        return [_para(label("scaling.cpu_bound_none", lang, **fields(closest)), classes=["attnprof-cpu-bound"])]


# --- the provenance banner ---------------------------------------------------------------------------------------


def _cudnn(version: str | None) -> str | None:
    """``"91900"`` -> ``"9.19.0"`` (cuDNN's integer encoding); other spellings unchanged."""
    if version and version.isdigit():
        n = int(version)
        if n >= 90000:
            return f"{n // 10000}.{(n % 10000) // 100}.{n % 100}"
        if n >= 1000:
            return f"{n // 1000}.{(n % 1000) // 100}.{n % 100}"
    return version


def banner_nodes(found: Sequence[results.Result], language: str | None) -> list[nodes.Node]:
    """The provenance banner for ``found`` results: where and when, and, on a CPU-only build, what is missing."""
    if not found:
        return [nodes.note("", _para(label("banner.no_results", language)), classes=["attnprof-env-banner"])]
    groups: dict[tuple[Any, ...], list[results.Result]] = {}
    for r in found:
        e = r.environment
        key = (e.device_name, e.driver_version, e.cuda_version, _cudnn(e.cudnn_version), e.torch_version)
        groups.setdefault(key, []).append(r)
    lines = []
    for (device, driver, cuda, cudnn, torch_version), rs in groups.items():
        parts = [label("banner.measured_on", language, device=device)]
        for key, value in (("driver", driver), ("cuda", cuda), ("cudnn", cudnn), ("torch", torch_version)):
            if value:
                parts.append(label(f"banner.{key}", language, value=value))
        dates = sorted({r.environment.date[:10] for r in rs if r.environment.date})
        if dates:
            parts.append(label("banner.date", language, value=" – ".join(dict.fromkeys([dates[0], dates[-1]]))))
        if len(groups) > 1:
            parts.append(label("banner.variants", language, value=", ".join(r.variant for r in rs)))
        lines.append(" · ".join(parts))

    cpu_only = not any(r.device == "cuda" and r.ok for r in found)
    if not cpu_only:
        box = nodes.container("", classes=["attnprof-env-banner"])
        box += _para(nodes.strong("", label("banner.title", language)), classes=["attnprof-env-banner-title"])
        for line in lines:
            box += _para(line)
        return [box]

    title = nodes.title("", label("banner.cpu_only_title", language))
    title["translatable"] = False
    box = nodes.admonition("", title, classes=["attnprof-env-banner", "attnprof-cpu-only", "warning"])
    box += _para(label("banner.cpu_only", language))
    reasons: dict[str, list[str]] = {}
    for r in found:
        if not r.ok:
            reasons.setdefault(r.reason or status_words(r.status, language), []).append(r.variant)
    if reasons:
        items = nodes.bullet_list()
        for reason, variants in reasons.items():
            text = label("banner.reason_item", language, variants=", ".join(variants), reason=reason)
            items += nodes.list_item("", _para(text))
        box += items
    for line in lines:
        box += _para(line, classes=["attnprof-env-line"])
    return [box]


class EnvBannerTransform(SphinxTransform):
    """Fill ``env-banner`` placeholders; put a banner under the title of every page that has none."""

    default_priority = 500  # after the translation of the page (Locale is 20)

    def apply(self, **kwargs: Any) -> None:
        placeholders = list(self.document.findall(EnvBannerPlaceholder))
        if not placeholders and not self.config.attnprof_env_banner:
            return
        banner = banner_nodes(all_results(self.env), self.config.language)
        if placeholders:
            for node in placeholders:
                node.replace_self([n.deepcopy() for n in banner])
            return
        section = next(iter(self.document.findall(nodes.section)), None)
        if section is None:
            self.document[0:0] = banner
            return
        index = 1 if section.children and isinstance(section[0], nodes.title) else 0
        section[index:index] = banner


class TimelineAltText(SphinxPostTransform):
    """Give each timeline or scaling-plot image its caption (translated by now) as alt text, else its summary.

    Done after reading, so the alt text is not a second message for translators.
    """

    default_priority = 200
    formats = ("html", "latex", "texinfo", "text", "man", "xml", "pseudoxml")

    def run(self, **kwargs: Any) -> None:
        for figure in self.document.findall(nodes.figure):
            if not {"attnprof-timeline", "attnprof-scaling-plot"} & set(figure["classes"]):
                continue
            caption = next(iter(figure.findall(nodes.caption)), None)
            for image in figure.findall(nodes.image):
                summary = image.get("attnprof_summary", "")
                image["alt"] = caption.astext() if caption is not None and caption.astext() else summary


# --- setup -------------------------------------------------------------------------------------------------------


def _on_config_inited(app: Sphinx, config: Config) -> None:
    """Resolve the results folder; make the package's template and stylesheet available to the HTML builders.

    ``attnprof_results_dir`` falls back to ``$ATTNPROF_RESULTS_DIR``, then ``attnprof-results``; a relative path
    is taken from the folder of conf.py.
    """
    configured = config.attnprof_results_dir or os.environ.get("ATTNPROF_RESULTS_DIR") or "attnprof-results"
    config.attnprof_results_dir = str((Path(app.confdir) / configured).resolve())
    config.templates_path = [*config.templates_path, str(_PACKAGE_DIR / "_templates")]
    config.html_static_path = [*config.html_static_path, str(_PACKAGE_DIR / "_static")]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives, the role, the banner transforms and the configuration values."""
    app.add_config_value("attnprof_results_dir", "", "env", types=frozenset({str}))
    app.add_config_value("attnprof_env_banner", True, "env", types=frozenset({bool}))
    app.add_directive("kernel-table", KernelTable)
    app.add_directive("compare-table", CompareTable)
    app.add_directive("cpu-cost-table", CpuCostTable)
    app.add_directive("claims", Claims)
    app.add_directive("claims-table", ClaimsTable)
    app.add_directive("occupancy-table", OccupancyTable)
    app.add_directive("occupancy-hypotheses", OccupancyHypotheses)
    app.add_directive("timeline", Timeline)
    app.add_directive("scaling-plot", ScalingPlot)
    app.add_directive("scaling-table", ScalingTable)
    app.add_directive("roofline-table", RooflineTable)
    app.add_directive("sdpa-choice-table", SdpaChoiceTable)
    app.add_directive("env-banner", EnvBanner)
    app.add_role("metric", MetricRole())
    app.add_node(EnvBannerPlaceholder)
    app.add_transform(EnvBannerTransform)
    app.add_post_transform(TimelineAltText)
    app.connect("config-inited", _on_config_inited)
    app.add_css_file("attnprof.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
