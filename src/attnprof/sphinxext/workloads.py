"""Tables of the other workloads (:mod:`attnprof.workloads`): training, decoding and CUDA graphs (the decision
table is :mod:`.verdicts`).

``train-table``
    One row per variant's training step: step, forward and backward times, their ratio, TFLOP/s (3.5 times the
    forward's FLOPs), peak memory and what the forward keeps for the backward, kernels per step, the main backward
    kernel.
``decode-table``
    A row per variant, a column per cache length, one metric (``:metric:``: ``gpu_us``, ``gbs``, ``read_pct``,
    ``dispatch_us``) in the cells; below it the read bandwidth it is compared with (bandwidth metrics), and the
    variants that never ran with PyTorch's reason (the time table).
``decode-kernel-table``
    At one cache length (``:kv-len:``, the longest by default): the kernels each variant runs per step, decoded,
    and its issue time against its GPU time.
``graph-table``
    The decoding step replayed from a CUDA graph beside the eager step: CPU, wall and GPU time, kernels and launch
    calls per step.

Every figure comes from :class:`attnprof.analysis.workload_rows.Build` (one per page, from
:func:`.lookup.find_build`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from attnprof import words
from attnprof.analysis.workload_rows import Build, Conditions, DecodeRow
from attnprof.noise import GPU_FLOOR
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import TABLE_OPTIONS, AttnprofDirective, Span, para, status_words
from attnprof.words import fmt

#: What a ``decode-table`` can show.
DECODE_METRICS: tuple[str, ...] = ("gpu_us", "gbs", "read_pct", "dispatch_us")


class BuildDirective(AttnprofDirective):
    """A directive that reads the whole build; ``needed`` workloads warn when they have no results."""

    has_content = False
    needed: ClassVar[tuple[str, ...]] = ()

    def build(self) -> Build:
        return lookup.find_build(self.env, self.get_location(), self.needed)

    def empty(self, workload: str) -> list[nodes.Node]:
        """The visible box of a workload without results (the warning is already logged)."""
        return self.problem(self.say("decision.none") + f" ({workload})")

    def num(self, value: float | None, form: Callable[[float], str] = fmt.number) -> str:
        return self.na(value, form)

    def arrow(self, a: float | None, b: float | None, form: Callable[[float], str] = fmt.number) -> str:
        return self.say("graph.arrow", a=self.num(a, form), b=self.num(b, form))

    def conditions_text(self, c: Conditions) -> str:
        """``batch 8, 16 heads, head_dim 64, bfloat16, causal mask`` (grouped heads named for decoding)."""
        mask = self.say("conditions.mask.causal" if c.causal else "conditions.mask.none")
        fields = dict(batch=c.batch, heads=c.heads, head_dim=c.head_dim, dtype=c.dtype, mask=mask)
        if c.kv_heads is not None:
            return self.say("conditions.shape_gqa", kv_heads=c.kv_heads, **fields)
        return self.say("conditions.shape", **fields)

    def conditions_head(self, build: Build, shown: list[str]) -> list[nodes.Node]:
        """What the rows of the ``shown`` workloads were measured on: the device (a CPU said to be one), then one
        item per workload with its shape, dtype, mask and lengths."""
        found = [c for w in shown if (c := build.conditions(w)) is not None]
        if not found:
            return []
        first = found[0]
        device = words.device(first.device, self.lang)
        head = self.say("conditions.head.gpu" if first.on_gpu else "conditions.head.cpu", device=device)
        items = nodes.bullet_list(classes=["attnprof-conditions"])
        for c in found:
            lengths = self.say("list.sep").join(self.say(f"workload.length.{c.workload}", n=n) for n in c.lengths)
            text = self.say("conditions.item", workload=self.say(f"workload.{c.workload}"),
                            conditions=self.conditions_text(c), lengths=lengths)  # fmt: skip
            items += nodes.list_item("", para(text))
        return [para(head, classes=["attnprof-conditions-head"]), items]

    def not_run(self, status: str, reason: str | None, width: int) -> Span:
        text = f"{status_words(status, self.lang)}: {reason or self.say('not_available')}"
        return Span(para(text, classes=["attnprof-not-run"]), width)


class TrainTable(BuildDirective):
    """``train-table``: one row per variant's training step."""

    needed = ("train",)
    columns = ("col.step_ms", "col.fwd_ms", "col.bwd_ms", "col.bwd_over_fwd", "col.train_tflops",
               "col.step_peak_mib", "col.saved_mib", "col.kernels_fwd_bwd", "col.bwd_main")  # fmt: skip

    def run(self) -> list[nodes.Node]:
        rows = self.build().train_rows()
        if not rows:
            return self.empty("train")
        body = []
        for r in rows:
            if r.step_ms is None:
                body.append([nodes.literal("", r.variant), self.not_run(r.status, r.reason, len(self.columns))])
                continue
            kernels = (
                f"{fmt.count(r.fwd_kernels)} + {fmt.count(r.bwd_kernels)}" if r.fwd_kernels is not None else None
            )
            main = r.bwd_main.text(self.lang) if r.bwd_main else self.say("not_available")
            if r.backend is not None:
                main = self.say("train.backend", kernel=main, backend=r.backend)
            # the step's time is what the decision compares: shown with its band, as the rule widens it
            step = self.band(r.band.figure, floor=GPU_FLOOR) if r.band is not None else self.num(r.step_ms)
            body.append([nodes.literal("", r.variant), step, self.num(r.fwd_ms), self.num(r.bwd_ms),
                         self.num(r.bwd_over_fwd), self.num(r.tflops), self.num(r.peak_mib), self.num(r.saved_mib),
                         kernels or self.say("not_available"), main])  # fmt: skip
        keys = ["col.variant", *self.columns]
        # the forward and the backward under the step they make, what is kept for the backward under the peak
        return [self.table(keys, body, "attnprof-train-table", numeric=(1, 2, 3, 4, 5, 6, 7, 8),
                           stack={1: (2, 3), 6: (7,)})]  # fmt: skip


def _decode_value(row: DecodeRow, metric: str) -> float | None:
    return {
        "gpu_us": row.gpu_us,
        "gbs": row.gbs,
        "read_pct": None if row.read_fraction is None else 100 * row.read_fraction,
        "dispatch_us": row.dispatch_us,
    }[metric]


class DecodeTable(BuildDirective):
    """``decode-table``: a row per variant, a column per cache length, one metric in the cells."""

    needed = ("decode",)
    option_spec: ClassVar = {**TABLE_OPTIONS, "metric": lambda arg: directives.choice(arg, DECODE_METRICS)}

    def run(self) -> list[nodes.Node]:
        build = self.build()
        rows, lengths = build.decode_rows(), build.decode_lengths()
        if not rows:
            return self.empty("decode")
        metric = self.options.get("metric", "gpu_us")
        by_variant: dict[str, dict[int, DecodeRow]] = {}
        for r in rows:
            by_variant.setdefault(r.variant, {})[r.kv_len] = r
        body, notes = [], []
        for variant, cells in by_variant.items():
            if not any(r.status == "ok" for r in cells.values()):
                first = next(iter(cells.values()))
                text = self.say("decode.refused", variant=variant, status=status_words(first.status, self.lang),
                                reason=first.reason or self.say("not_available"))  # fmt: skip
                notes.append(nodes.note("", para(text), classes=["attnprof-not-run"]))
                continue
            line: list[Any] = [nodes.literal("", variant)]
            for n in lengths:
                r = cells.get(n)
                if r is None:
                    line.append("")
                elif r.status != "ok":
                    line.append(para(status_words(r.status, self.lang), classes=["attnprof-not-run"]))
                else:
                    value = self.num(_decode_value(r, metric))
                    if metric == "gpu_us" and r.band is not None:  # what the decision compares, with its band
                        value = self.band(r.band.figure.scaled(1e3), floor=GPU_FLOOR)
                    bound = metric == "dispatch_us" and r.launch_bound
                    line.append(self.say("decode.launch_bound", value=value) if bound else value)
            body.append(line)
        keys: list[Any] = ["col.variant", *(("workload.length.decode", {"n": n}) for n in lengths)]
        title = self.caption_title(self.say(f"decode.metric.{metric}"))
        out: list[nodes.Node] = [self.table(keys, body, "attnprof-decode-table", title=title,
                                            numeric=tuple(range(1, len(lengths) + 1)))]  # fmt: skip
        ceiling = next((a.result.decode_figures for a in build.of("decode")
                        if a.result.decode_figures and a.result.decode_figures.read_ceiling_gbs), None)  # fmt: skip
        if metric in ("gbs", "read_pct") and ceiling is not None:
            text = self.say("decode.ceiling", gbs=fmt.number(ceiling.read_ceiling_gbs or 0),
                            size=fmt.size(ceiling.read_ceiling_bytes or 0))  # fmt: skip
            out.append(para(text, classes=["attnprof-table-note"]))
        # the refusals once per page's first table (the time table), not under every metric
        return out + (notes if metric == "gpu_us" else [])


class DecodeKernelTable(BuildDirective):
    """``decode-kernel-table``: the kernels of each variant's decoding step at one cache length."""

    needed = ("decode",)
    option_spec: ClassVar = {**TABLE_OPTIONS, "kv-len": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        build = self.build()
        lengths = build.decode_lengths()
        if not lengths:
            return self.empty("decode")
        wanted = self.options.get("kv-len")
        # a CPU build measures other cache lengths than a GPU build of the same page: fall back to the longest
        length = wanted if wanted in lengths else lengths[-1]
        body = []
        for r in (r for r in build.decode_rows() if r.kv_len == length):
            if r.status != "ok":
                body.append([nodes.literal("", r.variant), self.not_run(r.status, r.reason, 3)])
                continue
            labels = dict.fromkeys(k.text(self.lang) for k in r.kernels)  # in the page's language
            kernels = [para(k) for k in labels] or self.say("not_available")
            issue = self.say("graph.arrow", a=self.num(r.dispatch_us), b=self.num(r.gpu_us))
            if r.launch_bound:
                issue = self.say("decode.launch_bound", value=issue)
            body.append([nodes.literal("", r.variant), self.num(r.kernels_per_step, fmt.count), kernels, issue])
        keys = ["col.variant", "col.kernels_per_step", "col.kernels", "col.issue_vs_gpu"]
        title = self.caption_title(self.say("workload.length.decode", n=length))
        out: list[nodes.Node] = [self.table(keys, body, "attnprof-decode-kernel-table", title=title, numeric=(1,))]
        longer = [r for r in build.decode_rows() if r.status == "ok" and r.profiled_longer]
        if longer:
            items = self.say("list.semi").join(
                self.say(
                    "decode.profiled_item",
                    variant=r.variant,
                    length=r.kv_len,
                    profiled=self.num(r.profiled_us),
                    timed=self.num(r.gpu_us),
                )
                for r in longer
            )
            out.append(para(self.say("decode.profiled_note", items=items), classes=["attnprof-table-note"]))
        return out


class GraphTable(BuildDirective):
    """``graph-table``: the decoding step replayed from a CUDA graph beside the eager step."""

    needed = ("decode",)
    columns = ("col.kv_len", "col.cpu_eager_graph", "col.wall_eager_graph", "col.gpu_eager_graph",
               "col.kernels_eager_graph", "col.launches_eager_graph")  # fmt: skip

    def run(self) -> list[nodes.Node]:
        rows = self.build().graph_rows()
        if not rows:
            return self.empty("decode")
        body, notes = [], []
        for r in rows:
            if r.status != "ok":
                body.append([nodes.literal("", r.variant), str(r.kv_len), self.not_run(r.status, r.reason, 5)])
                continue
            launches = self.arrow(r.eager_launches, r.graph_launches, fmt.count)
            if r.graph_launch_api:
                launches = self.say("graph.launch_api", n=launches, api=r.graph_launch_api)
            body.append([nodes.literal("", r.variant), str(r.kv_len), self.arrow(r.eager_cpu_us, r.graph_cpu_us),
                         self.arrow(r.eager_wall_us, r.graph_wall_us), self.arrow(r.eager_gpu_us, r.graph_gpu_us),
                         self.arrow(r.eager_kernels, r.graph_kernels, fmt.count), launches])  # fmt: skip
            if r.replay_matches is False:
                notes.append(nodes.warning("", para(self.say("graph.mismatch", variant=r.variant))))
        keys = ["col.variant", *self.columns]
        return [self.table(keys, body, "attnprof-graph-table", numeric=(1, 2, 3, 4, 5)), *notes]


def setup_workloads(app: Sphinx) -> None:
    """Register the workload directives."""
    app.add_directive("train-table", TrainTable)
    app.add_directive("decode-table", DecodeTable)
    app.add_directive("decode-kernel-table", DecodeKernelTable)
    app.add_directive("graph-table", GraphTable)
