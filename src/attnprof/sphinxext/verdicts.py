"""The verdicts a reader acts on (:mod:`attnprof.analysis.verdicts`): the decision table and the answer of the landing
page.

``decision``
    Which way of calling attention costs least per step at each workload and length (``:workload:`` for one): the
    best with its step time and band and its regime (GPU- or CPU-bound: which of the GPU's time and the CPU's issue
    time the step waits for), the next with how much more it costs and the band of that margin ("too close to
    call" where the rule says so), the reason about forcing a backend in one sentence (the whole difference of the
    forced call against SDPA's own choice, measured side by side at that shape), the best's memory, and
    FlexAttention against the best.
``decision-summary``
    The landing page's answer: one line per workload, its lengths grouped where the verdict is the same, each with
    the best, its margin and band, its regime and the reason, linking ``:link:`` (a document); with the training
    across lengths, the masks and the grouped heads (:mod:`attnprof.analysis.answers`) where the build measured them.
``verdict-table``
    The verdicts of the training across lengths, the masks or the grouped heads (``:family:``), by the same rule and
    with the same columns as the decision table.

Every figure comes from :class:`attnprof.analysis.workload_rows.Build` (:func:`.lookup.find_build`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx

from attnprof import variants, words, workloads
from attnprof.analysis import answers
from attnprof.analysis.answers import Answer
from attnprof.analysis.decision import DecisionRow
from attnprof.analysis.verdicts import Option, SdpaAdvice
from attnprof.analysis.workload_rows import Build
from attnprof.noise import CPU_FLOOR, Figure
from attnprof.records import eligibility, masks, trainscale
from attnprof.records.kinds import Kind
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import TABLE_OPTIONS, para
from attnprof.sphinxext.workloads import BuildDirective
from attnprof.words import fmt


class VerdictWords(BuildDirective):
    """How a verdict reads: an option's name, its step, its regime, the reason about forcing."""

    def short(self, variant: str | None) -> str:
        """``cuDNN`` for ``sdpa_cudnn``; an unnamed backend for ``None``."""
        return variants.get(variant).short if variant else self.say("forcing_advice.unknown_pick")

    def option_name(self, o: Option) -> str:
        """``SDPA's choice (cuDNN)`` for SDPA's own choice, the variant's (or the mask method's) name otherwise."""
        if o.variant == variants.sdpa_chooser():
            return self.say("verdict.auto", backend=self.short(variants.by_sdpa_family(o.backend)))
        return o.variant

    def extra_text(self, o: Option) -> str | None:
        """``includes building the mask: 312 µs (...)`` for a step that rebuilds its mask, else ``None``."""
        e = o.cost.extra
        return None if e is None else self.say("verdict.extra", **self.band_fields(e, floor=CPU_FLOOR))

    def step_text(self, o: Option) -> str:
        """``SDPA's choice (cuDNN): 70.5 µs (63.4–77.5)``: what one step costs, with its band."""
        return self.say("verdict.step", option=self.option_name(o), **self.band_fields(o.cost.step))

    def regime_text(self, o: Option) -> str:
        """``CPU-bound: issue 70.5 µs, GPU 14.0 µs`` (``†`` when the issue time is not side by side)."""
        c = o.cost
        if not c.on_gpu:
            return self.say("verdict.regime.cpu_device")
        if c.regime is None or c.issue is None:
            return self.say("verdict.regime.unknown", gpu=fmt.number(c.gpu.median))
        text = self.say(f"verdict.regime.{c.regime}", gpu=fmt.number(c.gpu.median), issue=fmt.number(c.issue.median))
        return text if c.side_by_side else self.say("verdict.own_run", text=text)

    def regime_word(self, o: Option | None) -> str:
        """``CPU-bound``, ``GPU-bound``, ``balanced``, or why there is no regime."""
        if o is None:
            return self.say("verdict.regime_word.unknown")
        if not o.cost.on_gpu:
            return self.say("verdict.regime_word.none")
        return self.say(f"verdict.regime_word.{o.cost.regime or 'unknown'}")

    def advice_text(self, a: SdpaAdvice) -> str:
        """The reason about forcing a backend, one sentence (:func:`attnprof.analysis.verdicts.sdpa_advice`)."""
        if a.advice == "unknown" or a.auto is None:
            return self.say("forcing_advice.unknown")
        picked = self.short(a.picked)
        if a.advice == "keep":
            f = a.forcing_cpu
            if f is None:
                return self.say("forcing_advice.keep.unmeasured", picked=picked)
            if f.lo <= 0 <= f.hi:
                return self.say("forcing_advice.keep.zero", picked=picked, lo=fmt.number(f.lo), hi=fmt.number(f.hi))
            c = a.auto.cost
            regime = a.regime or ("gpu" if c.on_gpu else "none")
            fields = dict(picked=picked, gpu=fmt.number(c.gpu.median), **self.band_fields(f))
            share = a.forcing_share.median if a.forcing_share else (f.median / c.step.median if not c.on_gpu else 0)
            return self.say(f"forcing_advice.keep.{regime}", share=fmt.signed_percent(share), **fields)
        assert a.best is not None
        return self.say(f"forcing_advice.{a.advice}", picked=picked, best=a.best.variant, **self.saving_fields(a))

    def saving_fields(self, a: SdpaAdvice) -> dict[str, str]:
        """The saving of forcing the best forced backend with its band, and the same as a cost (``neg``, ``nlo``,
        ``nhi``: how much longer a step gets)."""
        s = a.saving if a.saving is not None else Figure(0.0, 0.0, 0.0, 0)
        cost = Figure(-s.median, -s.hi, -s.lo, s.n)
        neg = self.band_fields(cost, fmt.signed_percent)
        # a saving the advice takes is an amount ("saves 71 %"), its band above zero; otherwise it keeps its sign
        form = fmt.percent_of if a.advice == "force" else fmt.signed_percent
        return {**self.band_fields(s, form), "neg": neg["median"], "nlo": neg["lo"], "nhi": neg["hi"]}

    def short_advice(self, a: SdpaAdvice) -> str:
        """The reason about forcing in the landing page's few words."""
        if a.advice == "keep":
            f = a.forcing_cpu
            picked = self.short(a.picked)
            if f is None or f.lo <= 0 <= f.hi:
                return self.say("answer.keep_unmeasured", picked=picked)
            return self.say("answer.keep", picked=picked, **self.band_fields(f))
        if a.advice in ("force", "no_gain", "costs") and a.best is not None and a.saving is not None:
            return self.say(f"answer.{a.advice}", picked=self.short(a.picked), best=a.best.variant,
                            **self.saving_fields(a))  # fmt: skip
        return self.say("answer.unknown")


class Decision(VerdictWords):
    """``decision``: what a step costs, per workload and length, and what to do about SDPA's choice."""

    needed = ("train", "decode")
    option_spec: ClassVar = {
        **TABLE_OPTIONS,
        "workload": lambda arg: directives.choice(arg, ("train", "prefill", "decode")),
    }

    def build(self) -> Build:
        """The whole build; with ``:workload:``, only that workload's results are needed (warned about)."""
        workload = self.options.get("workload")
        return lookup.find_build(self.env, self.get_location(), (workload,) if workload else self.needed)

    def run(self) -> list[nodes.Node]:
        build = self.build()
        rows = build.decision_rows(self.options.get("workload"))
        if not rows:
            return self.empty(self.options.get("workload", "train, prefill, decode"))
        body = [self.cells(r) for r in rows]
        keys = ["col.workload", "col.length", "col.best_step", "col.next_step", "col.what_to_do",
                "col.winner_memory", "col.flex_step"]  # fmt: skip
        shown = list(dict.fromkeys(r.workload for r in rows))
        out = [*self.conditions_head(build, shown), self.table(keys, body, "attnprof-decision-table", numeric=(5,))]
        if any(not o.cost.side_by_side and o.cost.on_gpu for r in rows for o in r.verdict.ranked[:2]):
            out.append(para(self.say("verdict.own_run_note"), classes=["attnprof-table-note"]))
        return out

    def cells(self, r: DecisionRow) -> list[Any]:
        v = r.verdict
        best: list[nodes.Node] = []
        if v.winner is not None:
            best = [para(self.step_text(v.winner)), para(self.regime_text(v.winner), classes=["attnprof-regime"])]
        if v.unreliable:
            items = self.say("list.semi").join(self.step_text(o) for o in v.unreliable)
            best.append(para(self.say("decision.unreliable", items=items), classes=["attnprof-unreliable"]))
        runner: list[nodes.Node] | None = None
        if v.runner_up is not None and v.margin is not None:
            fields = self.band_fields(v.margin, fmt.signed_percent)
            runner = [para(self.say("decision.margin", variant=self.option_name(v.runner_up), **fields)),
                      para(self.regime_text(v.runner_up), classes=["attnprof-regime"])]  # fmt: skip
            if v.too_close:
                runner.append(para(self.say("decision.tie"), classes=["attnprof-tie"]))
        win = r.entry(v.winner.variant) if v.winner else None
        memory = self.na(win.peak_mib if win else None)
        if win is not None and win.peak_mib is not None and win.inputs_mib is not None:
            memory = self.say("decision.memory", peak=memory, inputs=fmt.number(win.inputs_mib))
        return [
            self.say(f"workload.{r.workload}"),
            self.say(f"workload.length.{r.workload}", n=r.length),
            best or self.say("not_available"),
            runner or self.say("not_available"),
            para(self.advice_text(r.advice), classes=["attnprof-advice"]),
            memory,
            self.na(r.flex_ratio, lambda x: words.times(x, self.lang)),
        ]


#: The kind of record file each family of :class:`VerdictTable` is drawn from.
FAMILY_KINDS: dict[str, Kind[Any]] = {"train_scale": trainscale.KIND, "masks": masks.KIND, "gqa": eligibility.KIND}


class VerdictTable(VerdictWords):
    """``verdict-table``: the verdicts of one family beside the decision table (``:family:``: ``train_scale``,
    ``masks`` or ``gqa``), one row per size, with the same columns of reasons."""

    needed = ()
    option_spec: ClassVar = {**TABLE_OPTIONS, "family": lambda arg: directives.choice(arg, answers.FAMILIES)}

    def run(self) -> list[nodes.Node]:
        family = self.options.get("family", "train_scale")
        found = lookup.find_record(self.env, FAMILY_KINDS[family], self.get_location())
        data = found.value
        if data is None:
            return self.problem(found.problem)
        rows = {"train_scale": answers.train_scale_answers, "masks": answers.mask_answers,
                "gqa": answers.gqa_answers}[family](data)  # fmt: skip
        body = [[self.size(a), *self.cells(a)] for a in rows]
        keys = ["col.size", "col.best_step", "col.next_step", "col.what_to_do"]
        return [self.table(keys, body, ["attnprof-decision-table", f"attnprof-verdicts-{family}"])]

    def size(self, a: Answer) -> str:
        w = a.where
        if a.family == "train_scale":
            return self.say("verdict.size.scale", head_dim=w["head_dim"], seq=w["seq"])
        if a.family == "masks":
            name = self.say(f"mask.name.{w['mask']}")
            kind = self.say(f"workload.{w['workload']}")
            if w["window"]:
                return self.say("verdict.size.window", mask=name, workload=kind, window=w["window"], seq=w["seq"])
            return self.say("verdict.size.mask", mask=name, workload=kind, seq=w["seq"])
        return self.say("verdict.size.gqa", kv_heads=w["kv_heads"])

    def cells(self, a: Answer) -> list[Any]:
        v = a.verdict
        best: list[nodes.Node] = []
        if v.winner is not None:
            best = [para(self.step_text(v.winner)), para(self.regime_text(v.winner), classes=["attnprof-regime"])]
            extra = self.extra_text(v.winner)
            if extra:
                best.append(para(extra, classes=["attnprof-rebuilt"]))
        runner: list[nodes.Node] | str = self.say("not_available")
        if v.runner_up is not None and v.margin is not None:
            fields = self.band_fields(v.margin, fmt.signed_percent)
            runner = [para(self.say("decision.margin", variant=self.option_name(v.runner_up), **fields))]
            if v.too_close:
                runner.append(para(self.say("decision.tie"), classes=["attnprof-tie"]))
        return [
            best or self.say("not_available"),
            runner,
            para(self.advice_text(a.advice), classes=["attnprof-advice"]),
        ]


def _key(r: DecisionRow | Answer) -> tuple:
    """What makes two lengths' verdicts one part of the answer: the same best, both too close to call or neither,
    the same regime and the same advice."""
    v = r.verdict
    return v.winner.variant if v.winner else None, v.too_close, v.regime, r.advice.advice


def group(rows: Sequence[Any], key: Callable[[Any], tuple] = _key) -> list[list[Any]]:
    """Consecutive rows (by length) whose verdicts are the same, in groups."""
    groups: list[list[Any]] = []
    for r in rows:
        if groups and key(groups[-1][-1]) == key(r):
            groups[-1].append(r)
        else:
            groups.append([r])
    return groups


class DecisionSummary(VerdictWords):
    """``decision-summary``: the landing page's answer, one line per workload, linking ``:link:``."""

    needed = ("train", "decode")
    option_spec: ClassVar = {**TABLE_OPTIONS, "link": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        build = self.build()
        rows = build.decision_rows()
        scale, mask_run, grid = lookup.extra_sources(self.env)
        if not rows and scale is None and mask_run is None:
            return self.empty("train, prefill, decode")
        items = nodes.bullet_list(classes=["attnprof-decision-summary"])
        head: list[nodes.Node] = []
        for workload in dict.fromkeys(r.workload for r in rows):
            c = build.conditions(workload)
            if c is not None and not head:
                key = "conditions.head.gpu" if c.on_gpu else "conditions.head.cpu"
                head = [para(self.say(key, device=words.device(c.device, self.lang)),
                             classes=["attnprof-conditions-head"])]  # fmt: skip
            mine = [r for r in rows if r.workload == workload]
            conditions = self.conditions_text(c) if c is not None else self.say("not_available")
            text = self.say("answer.line", workload=self.say(f"workload.{workload}"), conditions=conditions)
            items += self.item(text, [self.segment(g, self.lengths(g)) for g in group(mine)])
            if workloads.get(workload).backward and scale is not None:  # training across lengths after training
                items.extend(self.scale_items(scale))
        if not any(workloads.get(r.workload).backward for r in rows) and scale is not None:
            items.extend(self.scale_items(scale))
        if mask_run is not None:
            items.extend(self.mask_items(mask_run))
        if grid is not None:
            items.extend(self.gqa_items(grid))
        self.set_source_info(items)
        return [*head, items]

    def scale_items(self, grid: Any) -> list[nodes.list_item]:
        """Training across lengths: one item per head dim, its lengths grouped where the verdict is the same."""
        out = []
        for d, mine in answers.groups(answers.train_scale_answers(grid), "head_dim").items():
            text = self.say("answer.scale", head_dim=d, dtype=grid.dtype)
            parts = [self.segment(g, self.span("workload.length.train", [a.where["seq"] for a in g]))
                     for g in group(mine)]  # fmt: skip
            out.append(self.item(text, parts))
        return out

    def mask_items(self, run: Any) -> list[nodes.list_item]:
        """Masks beyond causal: one item per mask, a part per workload and window."""
        out = []
        b, h, _, d = run.cases[0].shape if run.cases else [0, 0, 0, 0]
        for mask, mine in answers.groups(answers.mask_answers(run), "mask").items():
            seqs = sorted({a.where["seq"] for a in mine})
            name = self.say(f"mask.name.{mask}")
            text = self.say("answer.mask", mask=name[:1].upper() + name[1:], seqs=", ".join(map(str, seqs)),
                            batch=b, heads=h, head_dim=d, dtype=run.cases[0].dtype)  # fmt: skip
            if any(a.rebuilt for a in mine):
                text = self.say("answer.rebuilt", text=text.rstrip(":"))
            out.append(self.item(text, [self.segment(g, self.mask_label(g)) for g in group(mine)]))
        return out

    def mask_label(self, rows: Sequence[Answer]) -> str:
        """``Prefill, window 256`` or ``Prefill and Training`` for a group of mask answers."""
        kinds = self.say("list.and").join(dict.fromkeys(self.say(f"workload.{a.where['workload']}") for a in rows))
        wins = sorted({int(a.where["window"]) for a in rows if a.where["window"]})  # type: ignore[call-overload]
        return kinds if not wins else self.say("answer.mask_part", kinds=kinds, windows=", ".join(map(str, wins)))

    def gqa_items(self, grid: Any) -> list[nodes.list_item]:
        """Grouped heads: one item, a part per number of KV heads."""
        mine = answers.gqa_answers(grid)
        if not mine:
            return []
        b, h, s, d = mine[0].where["shape"]  # type: ignore[misc]
        refused = self.say("list.sep").join(answers.refused(grid)) or self.say("none")
        text = self.say("answer.gqa", batch=b, heads=h, seq=s, head_dim=d, dtype=mine[0].where["dtype"],
                        refused=refused)  # fmt: skip
        parts = [self.segment(g, self.say("answer.kv_heads", n=self.say("list.sep").join(
            str(a.where["kv_heads"]) for a in g))) for g in group(mine)]  # fmt: skip
        return [self.item(text, parts)]

    def span(self, key: str, values: Sequence[Any]) -> str:
        """``seq 1024`` or ``seq 1024–16384``: the first of ``values`` in words, and the last after a dash."""
        first = self.say(key, n=values[0])
        return first if len(values) == 1 else self.say("answer.lengths", first=first, last=str(values[-1]))

    def item(self, head: str, parts: Sequence[str]) -> nodes.list_item:
        """One workload of the answer: its head (linked) and one short line per group of lengths."""
        item = nodes.list_item("", para(self.link(head)))
        inner = nodes.bullet_list(classes=["attnprof-answer-parts"])
        for part in parts:
            inner += nodes.list_item("", para(part))
        item += inner
        return item

    def lengths(self, rows: Sequence[DecisionRow]) -> str:
        return self.span(f"workload.length.{rows[0].workload}", [r.length for r in rows])

    def margins(self, figures: list[Figure]) -> str:
        """One margin with its band, or the range of several with the range of their bands; as multiples of the
        best's step (``7.4×``) where every band says at least twice as long, else as signed percentages."""
        times = all(f.lo >= 1.0 for f in figures)

        def form(x: float) -> str:
            return self.say("answer.times", value=fmt.number(1 + x)) if times else fmt.signed_percent(x)

        if len(figures) == 1:
            return self.say("answer.one", **self.band_fields(figures[0], form))
        low, high = min(f.median for f in figures), max(f.median for f in figures)
        return self.say("answer.range", low=form(low), high=form(high), lo=form(min(f.lo for f in figures)),
                        hi=form(max(f.hi for f in figures)))  # fmt: skip

    def segment(self, rows: Sequence[Any], label: str) -> str:
        """One group of rows: the best, its margin over the next with the band, the regime, the reason."""
        last = rows[-1]
        v = last.verdict
        if v.winner is None:
            return self.say("answer.undecided", lengths=label)
        fields = dict(lengths=label, winner=self.option_name(v.winner), regime=self.regime_word(v.winner))
        margins = [r.verdict.margin for r in rows if r.verdict.margin is not None]
        if v.runner_up is None or not margins:
            text = self.say("answer.segment_alone", **fields)
        else:
            key = "answer.segment_tie" if v.too_close else "answer.segment"
            names = dict.fromkeys(self.option_name(r.verdict.runner_up) for r in rows if r.verdict.runner_up)
            text = self.say(key, next="/".join(names), margin=self.margins(margins), **fields)
        return self.say("answer.join", text=text, advice=self.short_advice(last.advice))

    def link(self, text: str) -> nodes.Node:
        target = self.options.get("link")
        if not target:
            return nodes.Text(text)
        return addnodes.pending_xref("", nodes.inline("", text), refdomain="std", reftype="doc", reftarget=target,
                                     refexplicit=True, refwarn=True, refdoc=self.env.docname)  # fmt: skip


def setup_verdicts(app: Sphinx) -> None:
    """Register the verdict directives."""
    app.add_directive("decision", Decision)
    app.add_directive("decision-summary", DecisionSummary)
    app.add_directive("verdict-table", VerdictTable)
