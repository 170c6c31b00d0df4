"""Masks beyond causal (:mod:`attnprof.records.masks`): every method under each mask, the block masks, the verdicts.

``mask-table``
    One mask (``:mask:``, a name of :data:`attnprof.workloads.MASKS`): a row per size, step and method, with its time
    and band, useful rate, peak memory, first call, and the backend that ran or the reason it did not, numbered
    under the table (PyTorch's words where PyTorch refused).
``mask-builds``
    FlexAttention's block masks, built apart from the kernel: build time, blocks computed, pairs kept, kernels
    launched, and the build in calls of the forward kernel it serves.
``mask-verdicts``
    FlexAttention against the fastest dense-mask SDPA, by the noise rule (overlapping bands: too close to call),
    with nested tensors beside them for packed documents.
``mask-summary``
    Where and how the run measured (and, on a CPU build, what the CPU leaves out).
``mask-claims``
    This site's claims about masks, C50–C53 (:data:`attnprof.analysis.claims.MASK_CLAIMS`), with this build's
    verdicts (unmeasurable, with the reason, on a build without a GPU or without a run).

Each is drawn from the mask run (:class:`attnprof.sphinxext.nodes.RecordDirective`; the claims:
:class:`attnprof.sphinxext.claims.FamilyClaims`); cells are worded by :mod:`attnprof.render.masks`.
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from attnprof import workloads
from attnprof.analysis import claims
from attnprof.records import masks
from attnprof.records.masks import MaskRun
from attnprof.render import masks as cells
from attnprof.sphinxext import lookup
from attnprof.sphinxext.claims import FamilyClaims
from attnprof.sphinxext.nodes import TABLE_OPTIONS, RecordDirective, build_table, para, reason_node, words_para
from attnprof.words import fmt


class MaskDirective(RecordDirective[MaskRun]):
    """What the mask directives share: the run (or a problem box); a table with its numbered reasons."""

    kind = masks.KIND

    def show(self, t: cells.Table, css: str, numeric: tuple[int, ...] = (),
             stack: dict[int, tuple[int, ...]] | None = None) -> list[nodes.Node]:  # fmt: skip
        classes = ["attnprof-mask-table", css, *self.options.get("class", [])]
        rows = [[kernel_node(c) if isinstance(c, cells.KernelName) else c for c in row] for row in t.rows]
        table = build_table(t.headers, rows, classes=classes, numeric=numeric, title=self.caption_title(),
                            stack=stack)  # fmt: skip
        out: list[nodes.Node] = [self.finish(table)]
        if t.notes:
            listed = nodes.enumerated_list(classes=["attnprof-mask-notes"])
            for note, recorded in t.notes:
                item = nodes.list_item()
                item += para(reason_node(note, self.lang) if recorded else note)
                listed += item
            out.append(listed)
        return out


def kernel_node(name: cells.KernelName) -> nodes.abbreviation:
    """A kernel's short label, its full name on hover (HTML ``<abbr title>``)."""
    return nodes.abbreviation(str(name), str(name), explanation=name.full, classes=["attnprof-kernel-label"])


class MaskTable(MaskDirective):
    """``mask-table``: every case of one mask."""

    has_content = False
    option_spec: ClassVar = {**TABLE_OPTIONS, "mask": directives.unchanged_required}

    def build(self, run: MaskRun) -> list[nodes.Node]:
        name = self.options.get("mask", "")
        if name not in workloads.MASKS:
            message = f"mask-table: unknown mask {name!r}; choose one of: {', '.join(workloads.MASKS)}"
            return self.problem(lookup.warn(message, "mask", self.get_location()))
        # the length under the size, the backend that ran and its longest kernel under the method
        out = self.show(cells.mask_table(run, name, self.lang), "attnprof-mask-cases", numeric=(1, 5, 6, 7),
                        stack={0: (1,), 3: (9, 8)})  # fmt: skip
        for c in run.cases:  # nested tensors: with their construction in every step, and built once
            if c.mask == name and c.prebuilt_ms is not None and c.time_ms is not None:
                text = self.say("mask.nested.prebuilt", seq=c.seq, built=cells.band(c.time_ms),
                                once=cells.band(c.prebuilt_ms))  # fmt: skip
                out.append(para(text, classes=["attnprof-table-note", "attnprof-nested-note"]))
        return out


class MaskBuilds(MaskDirective):
    """``mask-builds``: the block masks, built apart from the kernel."""

    has_content = False
    option_spec: ClassVar = TABLE_OPTIONS

    def build(self, run: MaskRun) -> list[nodes.Node]:
        # the length under the size
        out = self.show(cells.builds_table(run, self.lang), "attnprof-mask-builds", numeric=(2, 4, 5, 6),
                        stack={1: (2,)})  # fmt: skip
        for b in run.builds:  # when a build is paid: once, or in every step
            if b.status != "ok" or b.time_ms is None:
                continue
            name = self.say(f"mask.name.{b.mask}")
            if workloads.get_mask(b.mask).packed:
                dense = cells.band(b.dense_ms) if b.dense_ms is not None else self.say("not_available")
                text = self.say("mask.builds.every_batch", mask=name, seq=b.seq, block=cells.band(b.time_ms),
                                dense=dense)  # fmt: skip
                out.append(para(text, classes=["attnprof-table-note", "attnprof-build-per-step"]))
        if any(not workloads.get_mask(b.mask).packed for b in run.builds):
            out.append(para(self.say("mask.builds.once"), classes=["attnprof-table-note"]))
        return out


class MaskVerdicts(MaskDirective):
    """``mask-verdicts``: FlexAttention against the fastest dense-mask SDPA."""

    has_content = False
    option_spec: ClassVar = TABLE_OPTIONS

    def build(self, run: MaskRun) -> list[nodes.Node]:
        # the length under the size
        return self.show(cells.verdicts_table(run, self.lang), "attnprof-mask-verdicts", stack={1: (2,)})


class MaskSummary(MaskDirective):
    """``mask-summary``: where and how the run measured."""

    has_content = False
    option_spec: ClassVar = {}

    def build(self, run: MaskRun) -> list[nodes.Node]:
        out = [words_para("mask.summary", self.lang, **cells.summary_fields(run, self.lang))]
        if run.device == "cpu":
            out.append(words_para("mask.summary.cpu", self.lang))
        else:  # why these lengths only: each one is a compile per mask and window
            firsts = [c.first_ms for c in run.cases if workloads.get_method(c.method).compiled and c.first_ms]
            seqs = sorted({c.seq for c in run.cases})
            others = [s for s in workloads.MASK_CUDA_SEQS if s not in seqs]
            compiles = len({(c.mask, c.seq, c.window, c.workload) for c in run.cases
                            if workloads.get_method(c.method).compiled and c.status == "ok"})  # fmt: skip
            if others:
                out.append(words_para("mask.summary.lengths", self.lang, seqs=", ".join(map(str, seqs)),
                                      compiles=compiles, low=fmt.number(min(firsts) / 1e3) if firsts else "?",
                                      high=fmt.number(max(firsts) / 1e3) if firsts else "?",
                                      others=", ".join(map(str, others))))  # fmt: skip
        return out


class MaskClaims(FamilyClaims[MaskRun]):
    """``mask-claims``: C50–C53 checked against this build's run."""

    kind = masks.KIND
    family = claims.MASK_CLAIMS
    evidence = "masks"
    css = "attnprof-mask-claims"

    def recorded(self, run: MaskRun) -> list[str]:
        return sorted({c.reason for c in run.cases if c.reason})


def setup_masks(app: Sphinx) -> None:
    """Register the mask directives."""
    app.add_directive("mask-table", MaskTable)
    app.add_directive("mask-builds", MaskBuilds)
    app.add_directive("mask-verdicts", MaskVerdicts)
    app.add_directive("mask-summary", MaskSummary)
    app.add_directive("mask-claims", MaskClaims)
