"""Tables of the sweep (:mod:`attnprof.records.sweep`): how cost grows with sequence length.

``scaling-table``
    A row per variant, a column per sequence length, one metric (``:metric:``) in the cells.
``roofline-table``
    The ceilings measured in this build, and each variant's share of them at the longest sequence it ran.
``sdpa-choice-table``
    At every point, the backend SDPA picked against the fastest one; then the CPU-bound points.

All take ``:head-dim:`` (one of the sweep's head dims; all by default), ``:caption:``, ``:name:`` and ``:class:``.
The plot of a sweep (``scaling-plot``) is in :mod:`.figures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from attnprof import variants
from attnprof.noise import GPU_FLOOR, Figure
from attnprof.records import sweep
from attnprof.records.sweep import SdpaComparison, Sweep, SweepPoint
from attnprof.render import scalingplot
from attnprof.sphinxext.nodes import (
    TABLE_OPTIONS,
    RecordDirective,
    Span,
    para,
    reason_node,
    status_words,
    words_para,
)
from attnprof.variants import VARIANTS
from attnprof.words import fmt


def _seq_list(seqs: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seqs)


class SweepDirective(RecordDirective[Sweep]):
    """Shared parts of the sweep directives: the sweep (or a problem box), the head dims to show, words about points
    that did not run."""

    kind = sweep.KIND
    option_spec: ClassVar = {**TABLE_OPTIONS, "head-dim": directives.positive_int}

    def head_dims(self, sw: Sweep) -> tuple[list[int], list[nodes.Node]]:
        """The ``:head-dim:`` option (or all of the sweep's); a head_dim the sweep lacks is a note, not a warning:
        a CPU build measures fewer head dims than a GPU build of the same page."""
        wanted = self.options.get("head-dim")
        if wanted is None:
            return list(sw.head_dims), []
        if wanted in sw.head_dims:
            return [wanted], []
        text = self.say("scaling.not_measured", head_dim=wanted, measured=_seq_list(sw.head_dims))
        return [], [nodes.note("", para(text), classes=["attnprof-not-run"])]

    def ms(self, value: float | None) -> str:
        return self.na(value, lambda x: fmt.unit(fmt.number(x), "ms"))

    def percent(self, fraction: float | None) -> str:
        return self.na(fraction, lambda x: fmt.unit(fmt.number(x * 100, 2), "%"))

    def status_cell(self, p: SweepPoint) -> nodes.paragraph:
        kind, key = self.why(p)
        text = self.say(key) if kind == "words" else status_words(p.status, self.lang)
        return para(text, classes=["attnprof-not-run"])

    def flagged(self, p: SweepPoint | None, text: str) -> str:
        """``text`` with the marks of ``p``: unstable samples (†, :meth:`unstable_note`), a second measurement (‡)
        and a band too wide to decide anything (§, :meth:`remeasured_note`)."""
        if p is None or not p.ok:
            return text
        marks = [("scaling.unstable_mark", p.unstable), ("scaling.remeasured_mark", bool(p.remeasured)),
                 ("scaling.unreliable_mark", not p.reliable)]  # fmt: skip
        return text + "".join(self.say(key) for key, on in marks if on)

    def remeasured_note(self, points: Sequence[SweepPoint]) -> list[nodes.Node]:
        """The notes that explain the re-measured (‡) and unreliable (§) marks, naming each point with its figures;
        nothing for a mark no point of ``points`` carries."""
        out: list[nodes.Node] = []
        again = [p for p in points if p.ok and p.remeasured]
        if again:
            items = self.say("list.semi").join(
                self.say(
                    "scaling.remeasured_item",
                    variant=p.variant,
                    head_dim=p.head_dim,
                    seq=p.seq,
                    why=self.say(f"sweep.why.{p.remeasured}"),
                    first=self.ms(p.first_gpu_ms),
                    kept=self.ms(p.gpu_ms),
                )
                for p in again
            )
            out.append(para(self.say("scaling.remeasured_note", items=items), classes=["attnprof-remeasured"]))
        wide = [p for p in points if p.ok and not p.reliable]
        if wide:
            items = self.say("list.semi").join(
                self.say(
                    "scaling.unreliable_item",
                    variant=p.variant,
                    head_dim=p.head_dim,
                    seq=p.seq,
                    **self.band_fields(p.gpu, self.ms),  # type: ignore[arg-type]
                )
                for p in wide
            )
            out.append(para(self.say("scaling.unreliable_note", items=items), classes=["attnprof-unreliable"]))
        return out

    def unstable_note(self, points: Sequence[SweepPoint]) -> list[nodes.Node]:
        """The note that explains the unstable mark, naming each flagged point and its 10th-90th percentile range;
        nothing when no point of ``points`` is unstable."""
        bad = [p for p in points if p.ok and p.unstable]
        if not bad:
            return []
        items = self.say("list.semi").join(
            self.say(
                "scaling.unstable_item",
                variant=p.variant,
                head_dim=p.head_dim,
                seq=p.seq,
                p10=self.ms(p.gpu_ms_p10),
                p90=self.ms(p.gpu_ms_p90),
            )
            for p in bad
        )
        return [para(self.say("scaling.unstable_note", items=items), classes=["attnprof-unstable"])]

    def reasons(self, sw: Sweep, head_dim: int) -> list[nodes.Node]:
        """Why the points that did not run did not, grouped by variant and reason: the sweep's own reasons (out of
        memory at a shorter length, the time budget) in words, PyTorch's as recorded."""
        grouped: dict[tuple[str, str, str], list[int]] = {}
        for p in sw.points:
            if p.head_dim == head_dim and not p.ok:
                grouped.setdefault((p.variant, *self.why(p)), []).append(p.seq)
        if not grouped:
            return []
        items = nodes.bullet_list()
        for (variant, kind, reason), seqs in grouped.items():
            where = self.say("scaling.where", seqs=_seq_list(seqs))
            shown = self.say(reason) if kind == "words" else reason_node(reason, self.lang)
            items += nodes.list_item("", words_para("scaling.reason_item", self.lang, variant=variant, where=where,
                                                    reason=shown))  # fmt: skip
        return [para(self.say("scaling.reasons"), classes=["attnprof-reasons"]), items]

    @staticmethod
    def why(p: SweepPoint) -> tuple[str, str]:
        """Why a point did not run: ``("words", key)`` where the sweep itself skipped it, else ``("recorded",
        PyTorch's reason)`` (``""`` when none was recorded)."""
        if p.status == "oom" and (p.reason or "").startswith("skipped:"):
            return "words", "scaling.cell.oom_skipped"
        if p.status == "skipped":
            return "words", "scaling.cell.skipped"
        return "recorded", p.reason or ""


class ScalingTable(SweepDirective):
    """``scaling-table``: a row per variant, a column per sequence length, one metric in the cells."""

    option_spec: ClassVar = {
        **SweepDirective.option_spec,
        "metric": lambda arg: directives.choice(arg, sweep.METRICS),
    }

    def build(self, sw: Sweep) -> list[nodes.Node]:
        metric = self.options.get("metric", "gpu_ms")
        dims, out = self.head_dims(sw)
        metric_words = scalingplot.metric_words(sw, metric, self.lang)
        for head_dim in dims:
            body = []
            for v in sw.variants:
                cells: list[Any] = [nodes.literal("", v)]
                for s in sw.seqs:
                    p = sw.point(v, head_dim, s)
                    if p is None:
                        cells.append(self.say("scaling.cell.not_planned"))
                    elif not p.ok:
                        cells.append(self.status_cell(p))
                    else:
                        value = p.metric(metric)
                        timed = metric in ("gpu_ms", "tflops")  # the figures that rest on the GPU time
                        cells.append(self.flagged(p, self.na(value)) if timed else self.na(value))
                body.append(cells)
            keys = ["col.variant", *(("scaling.col.seq", {"seq": s}) for s in sw.seqs)]
            title = self.caption_title(self.say("scaling.table_title", metric=metric_words, head_dim=head_dim))
            out.append(self.table(keys, body, "attnprof-scaling-table", title=title, numeric=range(1, len(keys))))
            compiled = [v for v in sw.variants if VARIANTS[v].compiled] if sw.compiled_seqs is not None else []
            if compiled:
                seqs = [s for s in sw.seqs if s in sw.compiled_seqs]  # type: ignore[operator]
                text = self.say("scaling.compiled_note", variants=", ".join(compiled), seqs=_seq_list(seqs))
                out.append(para(text, classes=["attnprof-compiled-note"]))
            if metric in ("gpu_ms", "tflops"):
                out += self.unstable_note([p for p in sw.points if p.head_dim == head_dim])
                out += self.remeasured_note([p for p in sw.points if p.head_dim == head_dim])
            out += self.reasons(sw, head_dim)
        return out


class RooflineTable(SweepDirective):
    """``roofline-table``: the ceilings measured in this build, and each variant's share of them at the longest
    sequence it ran (see :func:`attnprof.records.sweep.roofline` for the byte count)."""

    def build(self, sw: Sweep) -> list[nodes.Node]:
        c = sw.ceilings
        if c is None:
            return [nodes.note("", para(self.say("scaling.no_ceilings")), classes=["attnprof-no-ceilings"])]
        text = self.say(
            "scaling.ceilings",
            n=c.matmul_n,
            matmul=fmt.unit(fmt.number(c.matmul_tflops), "TFLOP/s"),
            size=fmt.unit(f"{c.copy_bytes / 2**30:g}", "GiB"),
            bandwidth=fmt.unit(fmt.number(c.bandwidth_gbs / 1000), "TB/s"),
            ridge=fmt.unit(fmt.number(c.ridge), "FLOP/byte"),
        )
        out: list[nodes.Node] = [para(text, classes=["attnprof-ceilings"])]
        dims, notes = self.head_dims(sw)
        out += notes
        show_dim = len(dims) > 1
        body = []
        shown: list[SweepPoint] = []
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
                shown.append(p)
                body.append(
                    [
                        *lead,
                        str(p.seq),
                        self.flagged(p, fmt.number(p.tflops or 0.0)),
                        self.flagged(p, self.percent(r.matmul_fraction)),
                        fmt.number(r.intensity),
                        self.flagged(p, self.percent(r.bandwidth_fraction)),
                        self.say(f"scaling.side.{side}"),
                    ]
                )
        keys = ["col.variant", *(["scaling.col.head_dim"] if show_dim else []), "scaling.col.largest_seq",
                "col.tflops", "scaling.col.matmul_fraction", "scaling.col.intensity",
                "scaling.col.bandwidth_fraction", "scaling.col.side"]  # fmt: skip
        if body:
            first_num = 2 if show_dim else 1
            out.append(self.table(keys, body, "attnprof-roofline-table", numeric=range(first_num, first_num + 5)))
            out += self.unstable_note(shown)
            out += self.remeasured_note(shown)
        return out


class SdpaChoiceTable(SweepDirective):
    """``sdpa-choice-table``: at every point, the backend SDPA picked against the fastest one; then the points
    where issuing the call took the CPU longer than the GPU took to run it."""

    def build(self, sw: Sweep) -> list[nodes.Node]:
        na = self.say("not_available")
        dims, out = self.head_dims(sw)
        body = []
        shown: list[SweepPoint] = []
        for c in sw.sdpa_comparisons():
            if c.head_dim not in dims:
                continue
            auto = sw.point(variants.sdpa_chooser(), c.head_dim, c.seq)
            if c.pick is None:
                status = status_words(auto.status if auto else "missing", self.lang)
                pick: Any = para(self.say("scaling.auto_not_run", status=status), classes=["attnprof-not-run"])
            else:
                pick = self.flagged(auto, self.timed(c.pick, c.auto))
                shown.append(auto)  # type: ignore[arg-type]
            same = self.same(c)
            fastest, overall = na, na
            if c.fastest_backend:
                p = sw.point(c.fastest_backend, c.head_dim, c.seq)
                shown.append(p)  # type: ignore[arg-type]
                fastest = self.flagged(p, self.timed(c.fastest_backend, c.fastest))
            if c.fastest_variant:
                p = sw.point(c.fastest_variant, c.head_dim, c.seq)
                shown.append(p)  # type: ignore[arg-type]
                overall = self.flagged(p, f"{c.fastest_variant} ({self.ms(c.fastest_variant_ms)})")
            body.append([str(c.head_dim), str(c.seq), pick, fastest, same, overall])
        if body:
            keys = ["scaling.col.head_dim", "scaling.col.seq_plain", "scaling.col.pick",
                    "scaling.col.fastest_backend", "scaling.col.agrees", "scaling.col.fastest_variant"]  # fmt: skip
            out.append(self.table(keys, body, "attnprof-sdpa-choice-table", numeric=(0, 1)))
            distinct = list({id(p): p for p in shown if p is not None}.values())
            out += self.unstable_note(distinct)
            out += self.remeasured_note(distinct)
        out += self.cpu_bound(sw, dims)
        return out

    def timed(self, name: str, f: Figure | None) -> str:
        """``cudnn (3.38 ms, 3.28–3.48)``: a name and its time with its band (±3 % at least, as the rule compares
        it); the name alone without a time."""
        if f is None:
            return name
        return self.say("scaling.time_band", name=name, **self.band_fields(f, fmt.number, GPU_FLOOR))

    def same(self, c: SdpaComparison) -> str:
        """The "Same?" cell: the outcome, with the margin of SDPA's call over the fastest backend and its band."""
        if c.outcome is None:
            return self.say("not_available")
        if c.outcome == "unreliable" or c.margin is None:
            return self.say("scaling.same.unreliable")
        key = f"scaling.same.{c.outcome}"
        if c.outcome == "no" and c.agrees:
            key = "scaling.same.no_same_backend"
        return self.say(key, margin=self.margin_text(c.margin))

    def cpu_bound(self, sw: Sweep, dims: Sequence[int]) -> list[nodes.Node]:
        """The CPU-bound points, with their numbers; or the closest point when there is none."""
        if sw.device != "cuda":
            return [para(self.say("scaling.cpu_bound_cpu"), classes=["attnprof-cpu-bound"])]

        def fields(p: SweepPoint) -> dict[str, Any]:
            return dict(
                variant=p.variant,
                head_dim=p.head_dim,
                seq=p.seq,
                dispatch=fmt.unit(fmt.number(p.dispatch_us or 0.0), "µs"),
                gpu=fmt.unit(fmt.number((p.gpu_ms or 0.0) * 1e3), "µs"),
            )

        bound = [p for p in sw.cpu_bound() if p.head_dim in dims]
        if bound:
            items = nodes.bullet_list()
            for p in bound:
                items += nodes.list_item("", para(self.say("scaling.cpu_bound_item", **fields(p))))
            return [para(self.say("scaling.cpu_bound_intro"), classes=["attnprof-cpu-bound"]), items]
        timed = [p for p in sw.points if p.ok and p.head_dim in dims and p.dispatch_us and p.gpu_ms]
        if not timed:
            return []
        closest = max(timed, key=lambda p: p.dispatch_us / p.gpu_ms)  # type: ignore[operator]
        return [para(self.say("scaling.cpu_bound_none", **fields(closest)), classes=["attnprof-cpu-bound"])]


def setup_scaling(app: Sphinx) -> None:
    """Register the sweep tables."""
    app.add_directive("scaling-table", ScalingTable)
    app.add_directive("roofline-table", RooflineTable)
    app.add_directive("sdpa-choice-table", SdpaChoiceTable)
