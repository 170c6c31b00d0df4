"""Tables of results: the kernel table of one variant, and tables with one row per variant.

``kernel-table VARIANT``
    One row per distinct GPU activity of the variant's profiled steps: the short decoded name first, the full
    demangled name one click away (a disclosure), then the time; ``:workload:`` (and ``:kv-len:``) picks the
    training or decoding result, ``:phase:`` the forward or backward of a training step.
``compare-table [VARIANT ...]``
    The at-a-glance table: the variant and its time per forward first. On a build whose rows all ran on the CPU
    the time column says CPU time.
``cpu-cost-table [VARIANT ...]``
    The CPU side of a call, with and without the profiler.

The variant tables take, as content, a bullet list of ``variant: text`` items: the text goes into a last "what the
trace reveals" column and stays part of the page (gettext extracts and translates it). In the compare table, a row
whose result holds no GPU activity says so instead: its item talks about a GPU trace this build does not have (the
item is kept for the catalogs only, see :class:`.nodes.untold`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx

from attnprof import words
from attnprof.analysis.summary import Analysis, cpu_cost
from attnprof.noise import CPU_FLOOR, Figure
from attnprof.records.results import CpuCosts
from attnprof.render.columns import KERNEL_COLUMNS, NUMERIC_COLUMNS, kernel_cells, theoretical_parts
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import (
    TABLE_OPTIONS,
    WORKLOAD_OPTIONS,
    AttnprofDirective,
    Span,
    make_disclosure,
    not_run_note,
    para,
    reason_node,
    status_words,
    untold,
)
from attnprof.variants import VARIANTS
from attnprof.words import fmt


class KernelTable(AttnprofDirective):
    """``kernel-table VARIANT``: one row per distinct GPU activity of the variant's profiled steps."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar = {**TABLE_OPTIONS, **WORKLOAD_OPTIONS, "phase": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        found = self.find(self.arguments[0])
        if found.analysis is None:
            return self.problem(found.problem)
        a, lang = found.analysis, self.lang
        result = a.result
        if not result.ok:
            return [not_run_note(result, lang)]
        phase = self.options.get("phase")
        rows = a.rows if phase is None else a.phases.get(phase)
        if rows is None:
            message = f"kernel-table {result.variant!r}: no phase {phase!r}; choose one of: {', '.join(a.phases)}"
            return self.problem(lookup.warn(message, "phase", self.get_location()))
        if not rows:
            text = self.say(
                "status.no_gpu_activity",
                variant=result.variant,
                device=result.device.upper(),
                shape="[" + ", ".join(map(str, result.shape)) + "]",
                dtype=result.dtype,
            )
            return [nodes.note("", para(text), classes=["attnprof-no-gpu"])]
        na = self.say("not_available")
        body = []
        for r in rows:
            cells = kernel_cells(r, lang)
            # the short label shows; the full demangled name is one click away (and in the search index)
            name_cell = make_disclosure(
                para(nodes.strong("", r.info.text(lang) or r.name)),
                para(nodes.literal("", r.name), classes=["attnprof-fullname"]),
                classes=["attnprof-kernel-name"],
            )
            if r.configs > 1:  # launched with more than one grid or block: its averages mix unlike launches
                name_cell = [name_cell, para(self.say("kernel.configs", n=r.configs), classes=["attnprof-configs"])]
            api = cells["col.launch_api"]
            percent, limiter = theoretical_parts(r, lang)
            shown: dict[str, Any] = cells | {
                "col.kernel": name_cell,
                "col.launch_api": nodes.literal("", api) if api else None,
                # the limiting resource wraps under the figure, which keeps to its line
                "col.theoretical_occupancy": [para(percent), para(limiter, classes=["attnprof-limit"])]
                if limiter
                else cells["col.theoretical_occupancy"],
            }
            body.append([na if shown[key] is None else shown[key] for key in KERNEL_COLUMNS])
        # the family and the launch API go under the kernel's name: the table keeps to the text column
        stack = {0: (KERNEL_COLUMNS.index("col.family"), KERNEL_COLUMNS.index("col.launch_api"))}
        return [self.table(KERNEL_COLUMNS, body, "attnprof-kernel-table", numeric=NUMERIC_COLUMNS, key=(0, 1),
                           stack=stack)]  # fmt: skip


class _VariantTable(AttnprofDirective):
    """A table with one row per variant (all registered variants when none are named).

    The content, if any, is a bullet list of ``variant: text`` items: the text goes into a last "what the trace
    reveals" column, parsed as part of the page (so gettext extracts and translates it). Subclasses name the
    columns and fill the cells of a variant that ran.
    """

    optional_arguments = len(VARIANTS)
    has_content = True
    option_spec: ClassVar = {**TABLE_OPTIONS, "link-prefix": directives.unchanged}
    #: Word keys of the columns after the variant's name.
    columns: ClassVar[tuple[str, ...]] = ()
    #: Indexes (counting the variant's column) of the columns that hold numbers.
    numeric: ClassVar[tuple[int, ...]] = ()
    #: Indexes of the columns a reader must see when the table scrolls sideways (the variant's, and the time).
    key: ClassVar[tuple[int, ...]] = (0,)
    table_class: ClassVar[str] = ""
    #: Columns shown under another one (:func:`.nodes.build_table`), so that the table keeps to the text column.
    stack: ClassVar[dict[int, tuple[int, ...]]] = {}
    #: The "what the trace reveals" items talk about the GPU trace: rows without one say so instead.
    reveals_need_gpu: ClassVar[bool] = False

    def cells(self, a: Analysis) -> list[Any]:
        """The cells after the variant's name, for a result that ran."""
        raise NotImplementedError

    def column_keys(self, analyses: list[Analysis]) -> list[str]:
        """Word keys of the columns after the variant's name, given the analyses of the rows that have one."""
        return list(self.columns)

    def reveal_cell(self, a: Analysis | None, item: list[nodes.Node]) -> list[nodes.Node]:
        """The "what the trace reveals" cell of a row: the item, or, where the GPU trace it talks about is not
        there, a generated sentence saying so (the item kept for the catalogs only)."""
        if not self.reveals_need_gpu or (a is not None and a.result.ok and a.rows):
            return item
        return [para(self.say("reveals.no_gpu"), classes=["attnprof-no-gpu"]), untold("", *item)]

    def run(self) -> list[nodes.Node]:
        variants = self.arguments or list(VARIANTS)
        lang = self.lang
        width = len(self.columns)
        reveals, out = self.items(variants, "variant")
        body = []
        analyses = []
        for variant in variants:
            found = self.find(variant)
            a = found.analysis
            if a is not None:
                analyses.append(a)
            if a is None:
                cells: list[Any] = [Span(self.say("status.missing"), width)]
                out += self.problem(found.problem)
            elif not a.result.ok:
                text = para(status_words(a.result.status, lang) + ": ", reason_node(a.result.reason, lang),
                            classes=["attnprof-not-run"])  # fmt: skip
                cells = [Span(text, width)]
            else:
                cells = self.cells(a)
            reveal = [self.reveal_cell(a, reveals.get(variant, []))] if reveals else []
            body.append([self.variant_cell(variant), *cells, *reveal])
        keys = ["col.variant", *self.column_keys(analyses), *(["col.reveals"] if reveals else [])]
        return [self.table(keys, body, self.table_class, numeric=self.numeric, key=self.key, stack=self.stack), *out]

    def variant_cell(self, variant: str) -> nodes.Node:
        """The variant's name, linked to its page when ``:link-prefix:`` is given and that page exists."""
        text = nodes.literal("", variant)
        prefix = self.options.get("link-prefix")
        if prefix is None:
            return text
        docname = prefix.strip("/") + "/" + variant.replace("_", "-") if prefix.strip("/") else variant
        if docname not in self.env.found_docs:
            return text
        return addnodes.pending_xref(
            "",
            text,
            refdomain="std",
            reftype="doc",
            reftarget="/" + docname,
            refexplicit=True,
            refwarn=True,
            refdoc=self.env.docname,
        )


class CompareTable(_VariantTable):
    """``compare-table [VARIANT ...]``: the at-a-glance table (the GPU figures from the variant's own run; see
    :class:`attnprof.analysis.summary.SummaryRow` for what each is). The two CPU columns come from the build's
    side-by-side measurement when it made one (:func:`attnprof.measure.cpucosts.measure_cpu_costs`: every variant
    in the same rounds, each figure with its band), and a note under the table defines them; without it, from each
    variant's own run, said so."""

    columns = ("col.gpu_ms", "col.kernels_per_step", "col.activities_per_step", "col.cpu_step_us", "col.dispatch_us",
               "col.tflops", "col.peak_mib", "col.main_kernel")  # fmt: skip
    numeric = (1, 2, 3, 4, 5, 6, 7)
    key = (0, 1)
    table_class = "attnprof-compare-table"
    stack: ClassVar = {2: (3,)}  # the GPU activities (kernels, copies, fills) under the kernels
    reveals_need_gpu = True
    measured: CpuCosts | None = None

    def run(self) -> list[nodes.Node]:
        self.shown: list[Analysis] = []
        self.measured = self.cpu_costs()
        out = super().run()
        # what every row was measured at: the figures depend on the shape, the CPU's as well
        ran = {(tuple(a.result.shape), a.result.dtype, a.result.environment.device_name)
               for a in self.shown if a.result.ok}  # fmt: skip
        if ran:
            where = self.say("list.semi").join(
                self.say("compare.where", shape="[" + ", ".join(map(str, shape)) + "]", dtype=dtype,
                         device=words.device(device, self.lang))
                for shape, dtype, device in sorted(ran)
            )  # fmt: skip
            out.insert(1, para(self.say("compare.conditions", where=where), classes=["attnprof-table-note"]))
            m = self.measured
            if m is not None:
                text = self.say("compare.cpu_side", rounds=m.rounds, shape="[" + ", ".join(map(str, m.shape)) + "]",
                                dtype=m.dtype)  # fmt: skip
            else:
                text = self.say("compare.cpu_own")
            out.insert(2, para(text, classes=["attnprof-table-note", "attnprof-cpu-definitions"]))
        return out

    def column_keys(self, analyses: list[Analysis]) -> list[str]:
        """The time column says CPU time when no row of the table ran on a GPU (the times are then CPU times); the
        CPU columns say side by side when they come from that measurement."""
        self.shown = analyses
        keys = list(self.columns)
        if not any(a.result.ok and a.result.device == "cuda" for a in analyses):
            keys[0] = "col.cpu_ms"
        if self.measured is not None:
            keys[3], keys[4] = "col.profiled_side_us", "col.dispatch_side_us"
        return keys

    def cpu_cells(self, a: Analysis) -> list[str]:
        """The profiled CPU time and the dispatch cost of one call: side by side with their bands, or (no
        side-by-side row for this variant) the medians of its own run, marked †."""
        row = self.measured.row(a.variant) if self.measured is not None else None
        if row is not None and row.status == "ok":
            return [self.band(row.profiled), self.band(row.dispatch)]
        summary = a.summary
        own = [self.na(summary.cpu_us), self.na(summary.dispatch_us)]
        return [self.say("verdict.own_run", text=t) for t in own] if self.measured is not None else own

    def cells(self, a: Analysis) -> list[Any]:
        row = a.summary
        main = a.main_kernel()
        return [
            self.na(row.gpu_ms),
            self.na(row.kernels_per_step, fmt.count),
            self.na(row.activities_per_step, fmt.count),
            *self.cpu_cells(a),
            self.na(row.tflops),
            self.na(row.peak_mib),
            main.info.text(self.lang) if main is not None else self.say("not_available"),
        ]


class CpuCostTable(_VariantTable):
    """``cpu-cost-table [VARIANT ...]``: the CPU side of a call, with and without the profiler.

    Columns (from :func:`attnprof.analysis.summary.cpu_cost`): CPU events recorded per step, the CPU time of the
    annotated call with the profiler, the dispatch cost measured without it, and the share of the profiled time the
    profiler adds. With the build's side-by-side measurement the figures are its medians over the rounds, with their
    confidence intervals, under the side-by-side labels; without it they are each variant's own-run figures, under
    the labels those have everywhere else (one label, one definition). Below the table, the build's one figure for
    what forcing a backend costs and for what the profiler adds to each op (:mod:`attnprof.records.fixedcosts`):
    neither depends on the backend or the shape, so neither is a column.
    """

    numeric = (1, 2, 3, 4)
    table_class = "attnprof-cpu-cost-table"
    measured: CpuCosts | None = None

    def run(self) -> list[nodes.Node]:
        self.measured = self.cpu_costs()
        if self.measured is not None:
            self.columns = ("col.cpu_events", "col.profiled_side_us", "col.dispatch_side_us", "col.profiler_share")
            note = self.say("cpu_costs.interleaved", rounds=self.measured.rounds, dtype=self.measured.dtype,
                            shape="[" + ", ".join(map(str, self.measured.shape)) + "]")  # fmt: skip
        else:
            self.columns = ("col.cpu_events", "col.cpu_step_us", "col.dispatch_us", "col.profiler_share")
            note = self.say("cpu_costs.own_runs")
        out = super().run()
        out.insert(1, para(note, classes=["attnprof-table-note"]))
        fixed = lookup.find_fixed_costs(self.env, self.get_location())
        if fixed is not None and fixed.forcing is not None:
            fields = self.band_fields(fixed.forcing, floor=CPU_FLOOR)
            text = self.say("cpu_costs.forcing", calls=fixed.forcing_calls, **fields)
            out.insert(2, para(text, classes=["attnprof-fixed-cost"]))
        if fixed is not None and fixed.profiler_per_op is not None:
            text = self.say("cpu_costs.profiler", op=fixed.op, events=self.na(fixed.events_per_call, fmt.count),
                            **self.band_fields(fixed.profiler_per_op, floor=CPU_FLOOR))  # fmt: skip
            out.insert(3, para(text, classes=["attnprof-fixed-cost"]))
        return out

    def side_band(self, f: Figure | None) -> str:
        """``90.2 (88.9–93.1)`` with the side-by-side measurement; the median alone otherwise."""
        if f is not None and self.measured is None:
            return fmt.number(f.median)
        return self.band(f)

    def cells(self, a: Analysis) -> list[Any]:
        row = self.measured.row(a.variant) if self.measured is not None else None
        cost = cpu_cost(a.variant, a, row)
        steps = a.result.steps
        events = sum(len(s.cpu_ops) for s in steps) / len(steps) if steps else None
        return [
            self.na(events, fmt.count),
            self.side_band(cost.profiled),
            self.side_band(cost.dispatch),
            self.na(cost.profiler_share, lambda f: fmt.unit(f"{100 * f:.0f}", "%")),
        ]


#: The script that marks a table wider than its box and puts the scroll cue above it (``_static``).
SCROLL_SCRIPT = "attnprof-tables.js"


def _add_scroll_script(app: Sphinx) -> None:
    """Every page gets the script, its cue in the build's language (the script tag's ``data-cue``)."""
    app.add_js_file(SCROLL_SCRIPT, defer="defer", **{"data-cue": words.text("table.scrolls", app.config.language)})


def setup_tables(app: Sphinx) -> None:
    """Register the result tables and the script that says when a table scrolls sideways."""
    app.connect("builder-inited", _add_scroll_script)
    app.add_directive("kernel-table", KernelTable)
    app.add_directive("compare-table", CompareTable)
    app.add_directive("cpu-cost-table", CpuCostTable)
