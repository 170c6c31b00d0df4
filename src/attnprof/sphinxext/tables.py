"""Tables of results: the kernel table of one variant, and tables with one row per variant.

``kernel-table VARIANT``
    One row per distinct GPU activity of the variant's profiled steps; ``:workload:`` (and ``:kv-len:``) picks the
    training or decoding result, ``:phase:`` the forward or backward of a training step.
``compare-table [VARIANT ...]``
    The at-a-glance table.
``cpu-cost-table [VARIANT ...]``
    The CPU side of a call, with and without the profiler.

The variant tables take, as content, a bullet list of ``variant: text`` items: the text goes into a last "what the
trace reveals" column and stays part of the page (gettext extracts and translates it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx

from .. import fmt
from ..analysis import Analysis, cpu_cost
from ..results import CpuCosts
from ..variants import VARIANTS
from . import lookup
from .nodes import (
    TABLE_OPTIONS,
    WORKLOAD_OPTIONS,
    AttnprofDirective,
    Span,
    limiter_words,
    not_run_note,
    para,
    status_words,
)


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
            theo = r.theoretical
            name_cell = [
                para(nodes.strong("", r.info.short or r.name)),
                para(nodes.literal("", r.name), classes=["attnprof-fullname"]),
            ]
            body.append(
                [
                    name_cell,
                    r.info.family,
                    fmt.count(r.per_step),
                    fmt.number(r.avg_us),
                    nodes.literal("", r.launch_api) if r.launch_api else na,
                    na if r.registers_per_thread is None else str(r.registers_per_thread),
                    na if r.shared_memory is None else fmt.size(r.shared_memory),
                    f"{fmt.dims(r.grid)} × {fmt.dims(r.block)}" if r.grid and r.block else na,
                    na if r.reported_occupancy is None else fmt.unit(fmt.ratio(r.reported_occupancy), "%"),
                    na
                    if theo is None
                    else fmt.unit(fmt.ratio(theo.percent), "%")
                    # at full occupancy no resource limits anything worth naming
                    + (f" ({limiter_words(theo.limiter, lang)})" if theo.percent < 100 else ""),
                ]
            )
        keys = ("col.kernel", "col.family", "col.per_step", "col.avg_us", "col.launch_api", "col.registers",
                "col.shared_memory", "col.grid_block", "col.reported_occupancy",
                "col.theoretical_occupancy")  # fmt: skip
        return [self.table(keys, body, "attnprof-kernel-table", numeric=(2, 3, 5, 6, 8, 9))]


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
    table_class: ClassVar[str] = ""

    def cells(self, a: Analysis) -> list[Any]:
        """The cells after the variant's name, for a result that ran."""
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        variants = self.arguments or list(VARIANTS)
        lang = self.lang
        width = len(self.columns)
        reveals, out = self.items(variants, "variant")
        body = []
        for variant in variants:
            found = self.find(variant)
            a = found.analysis
            if a is None:
                cells: list[Any] = [Span(self.say("status.missing"), width)]
                out += self.problem(found.problem)
            elif not a.result.ok:
                text = f"{status_words(a.result.status, lang)}: {a.result.reason or self.say('not_available')}"
                cells = [Span(para(text, classes=["attnprof-not-run"]), width)]
            else:
                cells = self.cells(a)
            body.append([self.variant_cell(variant), *cells, *([reveals.get(variant, [])] if reveals else [])])
        keys = ["col.variant", *self.columns, *(["col.reveals"] if reveals else [])]
        return [self.table(keys, body, self.table_class, numeric=self.numeric), *out]

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
    """``compare-table [VARIANT ...]``: the at-a-glance table."""

    columns = ("col.activities_per_step", "col.kernels_per_step", "col.gpu_ms", "col.cpu_us", "col.dispatch_us",
               "col.tflops", "col.peak_mib", "col.main_kernel")  # fmt: skip
    numeric = (1, 2, 3, 4, 5, 6, 7)
    table_class = "attnprof-compare-table"

    def cells(self, a: Analysis) -> list[Any]:
        row = a.summary
        return [
            self.na(row.activities_per_step, fmt.count),
            self.na(row.kernels_per_step, fmt.count),
            self.na(row.gpu_ms),
            self.na(row.cpu_us),
            self.na(row.dispatch_us),
            self.na(row.tflops),
            self.na(row.peak_mib),
            row.main_kernel or self.say("not_available"),
        ]


class CpuCostTable(_VariantTable):
    """``cpu-cost-table [VARIANT ...]``: the CPU side of a call, with and without the profiler.

    Columns (from :func:`attnprof.analysis.cpu_cost`): CPU events recorded per step, profiled CPU time of the
    annotated call, dispatch cost measured without the profiler, the share of the profiled time the profiler adds,
    and the cost of entering and leaving the backend-forcing context alone.
    """

    columns = ("col.cpu_events", "col.cpu_us", "col.dispatch_us", "col.profiler_share", "col.context_us")
    numeric = (1, 2, 3, 4, 5)
    table_class = "attnprof-cpu-cost-table"
    measured: CpuCosts | None = None

    def run(self) -> list[nodes.Node]:
        self.measured = self.cpu_costs()
        out = super().run()
        if self.measured is not None:
            note = self.say("cpu_costs.interleaved", rounds=self.measured.rounds)
            out.insert(1, para(note, classes=["attnprof-table-note"]))
        return out

    def cells(self, a: Analysis) -> list[Any]:
        row = self.measured.row(a.variant) if self.measured is not None else None
        cost = cpu_cost(a.variant, a, row)
        steps = a.result.steps
        events = sum(len(s.cpu_ops) for s in steps) / len(steps) if steps else None
        return [
            self.na(events, fmt.count),
            self.na(cost.profiled_us),
            self.na(cost.dispatch_us),
            self.na(cost.profiler_share, lambda f: fmt.unit(f"{100 * f:.0f}", "%")),
            self.na(cost.context_us),
        ]


def setup_tables(app: Sphinx) -> None:
    """Register the result tables."""
    app.add_directive("kernel-table", KernelTable)
    app.add_directive("compare-table", CompareTable)
    app.add_directive("cpu-cost-table", CpuCostTable)
