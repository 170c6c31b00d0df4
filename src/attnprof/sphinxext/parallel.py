"""The context-parallelism page: what the run of this build (:mod:`attnprof.records.parallel`) measured, across the
GPUs.

``parallel-status``
    Where and how it ran (GPUs, launcher, NCCL, the configuration, the time it took) and the cases that did not run;
    on a build without two GPUs, why nothing was measured and the commands that measure it elsewhere.
``parallel-table``
    A row per rotation method and sequence length: one GPU against all, speed-up, scaling efficiency, the share of
    a step in NCCL kernels, how much of it overlapped computation, load balance and the error against one GPU.
``parallel-ranks``
    One case (``:method:``, ``:seq:``; every method at the longest sequence by default), a row per rank: its time
    split into attention kernels, NCCL kernels, other kernels and idle GPU.
``parallel-kernels``
    Which attention kernel ran on each chunk of the ring, and what NCCL moved, per rank (same options).
``parallel-memory``
    Per GPU against one GPU: the inputs each holds plus the peak extra memory of its call.
``parallel-timeline``
    One profiled step with one lane group per rank (:mod:`attnprof.render.ranktimeline`), the content as caption, and
    links to the ranks' raw traces.
``parallel-model``
    Beyond the GPUs of this build, on paper (:mod:`attnprof.analysis.parallelmodel`): what was measured, what is
    assumed, and the model's step time from 2 to 64 GPUs.
``parallel-claims``
    The claims C30–C34 (:data:`attnprof.analysis.claims.PARALLEL_CLAIMS`) with this build's verdicts.
``parallel-closing``
    The closing note: speed-up, communication share and overlap for every method and sequence length, and the time
    the measurement took.

Every directive but ``parallel-status`` shows a short note, not a table, when the run did not happen here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx

from attnprof import variants, words
from attnprof.analysis import claims, kernels, parallelmodel
from attnprof.inputs import element_bytes
from attnprof.records import parallel
from attnprof.records.bundle import Bundle
from attnprof.records.parallel import BACKENDS, METHODS, PLAIN_COMMAND, TORCHRUN_COMMAND, ParallelCase, ParallelRun
from attnprof.render import pictures, ranktimeline
from attnprof.sphinxext import bundles, lookup
from attnprof.sphinxext.claims import FamilyClaims
from attnprof.sphinxext.figures import picture_figure
from attnprof.sphinxext.nodes import TABLE_OPTIONS, RecordDirective, Span, para, status_words
from attnprof.words import fmt


def _mib(n: float) -> str:
    return fmt.number(n / 2**20)


class ParallelDirective(RecordDirective[ParallelRun]):
    """Shared parts: the run, the case the options name, and numbers in the page's language."""

    kind = parallel.KIND
    option_spec: ClassVar = {
        **TABLE_OPTIONS,
        "method": lambda arg: directives.choice(arg, METHODS),
        "seq": directives.positive_int,
    }

    #: The bundle of the recorded run shown instead of this build's, when this build could not run its own.
    recorded: Bundle | None = None

    def pick(self, found: lookup.Found[ParallelRun]) -> tuple[ParallelRun | None, list[nodes.Node]]:
        """The run when it ran here, else the latest recorded run of the bundles (:attr:`recorded` then names its
        bundle); else the nodes to show instead (a warning box, or the not-measured note)."""
        run, instead = super().pick(found)
        if run is None or run.ok:
            return run, instead
        rec = bundles.recorded_parallel(self.env)
        if rec is not None:
            self.recorded = rec[1]
            return rec[0], []
        return None, [nodes.note("", para(self.say("par.not_measured")), classes=["attnprof-not-run"])]

    def run(self) -> list[nodes.Node]:
        """What :meth:`build` shows, labelled with its machine and date when it is a recorded run."""
        out = super().run()
        if self.recorded is None:
            return out
        return [bundles.elsewhere(para(self.recorded_label(), classes=["attnprof-recorded-label"]), *out)]

    def key(self, name: str) -> str:
        """The word key ``name``, or its ``.recorded`` form when the figures shown are a recorded run's (words that
        say whose measurement a figure is must never call a recorded figure this build's)."""
        return f"{name}.recorded" if self.recorded is not None and words.has(f"{name}.recorded") else name

    def recorded_label(self) -> str:
        p = self.recorded.provenance if self.recorded is not None else None
        return "" if p is None else self.say("par.recorded.label", machine=p.machine, date=p.day,
                                             bundle=self.recorded.name)  # fmt: skip

    def method_words(self, method: str) -> str:
        return self.say(f"par.method.{method}")

    def ms(self, value: float | None) -> str:
        return self.na(value)

    def percent(self, fraction: float | None) -> str:
        return self.na(fraction, lambda x: fmt.unit(fmt.number(100 * x), "%"))

    def times(self, value: float | None) -> str:
        return self.na(value, lambda x: self.say("par.times", value=fmt.number(x)))

    def speedup(self, value: float | None) -> str:
        """The time on the GPUs against the time on one, in words (``1.62× faster``)."""
        return self.na(value, lambda x: words.times(1 / x, self.lang) if x > 0 else self.say("not_available"))

    #: Without ``:method:``, every rotation method (else the first that ran).
    all_methods: ClassVar[bool] = True
    #: Without ``:seq:``, the longest sequence that ran (else the shortest).
    longest: ClassVar[bool] = True

    def cases(self, run: ParallelRun) -> tuple[list[ParallelCase], list[nodes.Node]]:
        """The cases the options name: ``:method:`` at ``:seq:``, every rank's trace read; by default see
        :attr:`all_methods` and :attr:`longest`."""
        traced = [c for c in run.ran() if c.traces() and len(c.traces()) == len(c.ranks)]
        methods = [self.options["method"]] if "method" in self.options else list(dict.fromkeys(run.config.methods))
        out = []
        for m in methods:
            mine = [c for c in traced if c.method == m]
            if "seq" in self.options:
                mine = [c for c in mine if c.seq == self.options["seq"]]
            if mine:
                out.append((max if self.longest else min)(mine, key=lambda c: c.seq))
                if not self.all_methods and "method" not in self.options:
                    break
        if out:
            return out, []
        ran = ", ".join(f"{c.method} S={c.seq}" for c in traced) or self.say("none")
        text = self.say(self.key("par.no_case"), method=", ".join(methods), seq=self.options.get("seq", "*"),
                        cases=ran)  # fmt: skip
        return [], self.problem(lookup.warn(text, "case", self.get_location()))


class ParallelStatus(ParallelDirective):
    """``parallel-status``: where and how the run ran, or why it did not and how to run it."""

    def pick(self, found: lookup.Found[ParallelRun]) -> tuple[ParallelRun | None, list[nodes.Node]]:
        # a run that did not run here is shown as such, the recorded one (if any) boxed below it, not in its place
        return RecordDirective.pick(self, found)

    def run(self) -> list[nodes.Node]:
        # this build's status stays outside the box of other machines' figures: build() boxes the recorded run alone
        return RecordDirective.run(self)

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        if not r.ok:
            box = nodes.admonition("", classes=["attnprof-parallel-status", "attnprof-not-run", "warning"])
            title = nodes.title("", self.say("par.status.not_run_title"))
            title["translatable"] = False  # generated words: not a message of the page's catalog
            box += title
            status = status_words(r.status, self.lang)
            box += para(self.say("par.status.not_run", status=status, reason=(r.reason or "").rstrip(".")))
            box += para(self.say("par.status.why"))
            box += para(self.say("par.status.how"))
            for command in (TORCHRUN_COMMAND, PLAIN_COMMAND):
                box += nodes.literal_block(command, command, language="bash")
            box += para(self.say("par.status.then"))
            rec = bundles.recorded_parallel(self.env)
            if rec is None:
                return [box]
            self.recorded = rec[1]
            return [
                box,
                bundles.elsewhere(
                    self.recorded_box(*rec),
                    *self.ran(rec[0], rec[1]),
                    para(self.backend_note(rec[0]), classes=["attnprof-backend-note"]),
                ),
            ]
        return self.ran(r)

    def backend_note(self, r: ParallelRun) -> str:
        """Which backend the recorded run forced, against the one SDPA picks on one GPU: from this build's sweep at
        the run's head dim and the longest length where both were measured, or why this build cannot say."""
        forced = [b for b in r.config.backends if b != "auto"]
        name = ", ".join(forced) or "auto"
        variant = next((v.name for v in variants.VARIANTS.values() if forced and v.backend == BACKENDS[forced[0]]),
                       None)  # fmt: skip
        sw = lookup.sweep_if_any(self.env) if variant else None
        if sw is None or sw.device != "cuda" or variant is None:
            return self.say("par.recorded.backend_unknown", backend=name)
        chooser = variants.sdpa_chooser()
        pairs = [(a, f) for a in sw.points for f in sw.points
                 if a.variant == chooser and f.variant == variant and a.ok and f.ok and a.seq == f.seq
                 and a.head_dim == f.head_dim == r.config.head_dim and a.gpu_ms and f.gpu_ms]  # fmt: skip
        if not pairs:
            return self.say("par.recorded.backend_unknown", backend=name)
        auto, own = max(pairs, key=lambda p: p[0].seq)
        picked = variants.by_sdpa_family(auto.sdpa_choice)
        return self.say("par.recorded.backend", backend=name,
                        picked=variants.get(picked).short if picked else auto.sdpa_choice or "?",
                        seq=auto.seq, head_dim=auto.head_dim, batch=sw.batch, heads=sw.heads,
                        auto=fmt.number(auto.gpu_ms), forced=fmt.number(own.gpu_ms),  # type: ignore[arg-type]
                        ratio=fmt.number(own.gpu_ms / auto.gpu_ms), device=words.device(sw.environment.device_name,
                                                                                       self.lang))  # fmt: skip

    def recorded_box(self, r: ParallelRun, b: Bundle) -> nodes.admonition:
        """The box that says the figures below are a recorded run's: machine, date, bundle, software."""
        p = b.provenance
        box = nodes.admonition("", classes=["attnprof-parallel-status", "attnprof-recorded", "note"])
        title = nodes.title("", self.say("par.recorded.title"))
        title["translatable"] = False
        box += title
        box += para(self.say("par.recorded.text", machine=p.machine, date=p.day, bundle=b.name, torch=p.torch,
                             cuda=p.cuda or "?", nccl=r.nccl_version or "?"))  # fmt: skip
        return box

    def ran(self, r: ParallelRun, recorded: Bundle | None = None) -> list[nodes.Node]:
        """Where and how a run that ran was made (live here, or ``recorded`` elsewhere), and the cases that did not
        run."""
        cfg = r.config
        gpus = sorted(set(r.gpus)) or ["?"]
        text = self.say(
            "par.status.ok" if recorded is None else "par.recorded.ok",
            date="" if recorded is None else recorded.provenance.day,
            world=r.world,
            gpu=", ".join(gpus),
            launcher=r.launcher,
            nccl=r.nccl_version or "?",
            torch=r.environment.torch_version,
            batch=cfg.batch,
            heads=cfg.heads,
            head_dim=cfg.head_dim,
            dtype=cfg.dtype,
            causal=self.say("par.causal" if cfg.causal else "par.not_causal"),
            backend=", ".join(cfg.backends),
            balance=self.say("par.on" if cfg.load_balance else "par.off"),
            seqs=", ".join(str(s) for s in cfg.seqs),
            methods=", ".join(self.method_words(m) for m in cfg.methods),
        )
        init = max(r.init_s) if r.init_s else 0.0
        time_text = self.say("par.status.time", elapsed=fmt.unit(fmt.number(r.elapsed_s), "s"),
                             init=fmt.unit(fmt.number(init), "s"))  # fmt: skip
        box = nodes.container("", classes=["attnprof-parallel-status"])
        box += para(text)
        box += para(time_text)
        failed = [c for c in r.cases if not c.ok]
        if failed or r.reason:
            box += para(self.say("par.status.cases_failed"))
            items = nodes.bullet_list()
            for c in failed:
                reason = c.reason or self.say("unknown_reason")
                if any(rr.sdpa_restored for rr in c.ranks):
                    reason += self.say("list.semi") + self.say("par.status.restored")
                items += nodes.list_item("", para(self.say(
                    "par.status.case_item", backend=c.backend, method=self.method_words(c.method), seq=c.seq,
                    status=status_words(c.status, self.lang), reason=reason)))  # fmt: skip
            if r.reason:
                items += nodes.list_item("", para(r.reason))
            box += items
        return [box]


class ParallelTable(ParallelDirective):
    """``parallel-table``: a row per rotation method and sequence length."""

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        body = []
        for c in sorted(r.cases, key=lambda c: (c.backend, c.seq, list(METHODS).index(c.method))):
            lead: list[Any] = [self.method_words(c.method), str(c.seq)]
            if not c.ok:
                status = para(f"{status_words(c.status, self.lang)}: {c.reason or ''}", classes=["attnprof-not-run"])
                body.append([*lead, Span(status, 8)])
                continue
            error = self.na(c.rel_error, lambda x: f"{x:.1e}")
            body.append([*lead, self.ms(c.single_ms), self.ms(c.step_ms), self.speedup(c.speedup),
                         self.percent(c.efficiency), self.percent(c.comm_share), self.percent(c.overlap),
                         self.na(c.balance), error])  # fmt: skip
        keys = ["par.col.method", "par.col.seq", "par.col.single_ms", ("par.col.step_ms", {"world": r.world}),
                "par.col.speedup", "par.col.efficiency", "par.col.comm_share", "par.col.overlap", "par.col.balance",
                "par.col.error"]  # fmt: skip
        return [self.table(keys, body, "attnprof-parallel-table", numeric=range(1, 10))]


class ParallelRanks(ParallelDirective):
    """``parallel-ranks``: one case, a row per rank, its time split by kind of kernel."""

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        cases, problems = self.cases(r)
        body = []
        for c in cases:
            for rr in c.ranks:
                t = rr.trace
                if t is None:
                    continue
                med = t.median
                body.append([self.method_words(c.method), str(c.seq), str(rr.rank), self.ms(rr.step_ms),
                             self.na(med("attention_us")), self.na(med("comm_us")), self.na(med("other_us")),
                             self.na(med("idle_us")), self.na(med("span_us")), self.percent(med("comm_share")),
                             self.percent(med("overlap_fraction")), self.ms(rr.dispatch_ms)])  # fmt: skip
        keys = ["par.col.method", "par.col.seq", "par.col.rank", "par.col.rank_step_ms", "par.col.attention_us",
                "par.col.comm_us", "par.col.other_us", "par.col.idle_us", "par.col.span_us", "par.col.comm_share",
                "par.col.overlap", "par.col.dispatch_ms"]  # fmt: skip
        if not body:
            return problems
        return [self.table(keys, body, "attnprof-parallel-ranks", numeric=range(1, 12)), *problems]


class ParallelKernels(ParallelDirective):
    """``parallel-kernels``: which attention kernel ran on each chunk, and what NCCL moved, per rank (the first
    rotation method by default: both run the same attention kernels)."""

    all_methods = False

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        cases, problems = self.cases(r)
        body = []
        for c in cases:
            for t in c.traces():
                st = t.middle()
                if st is None:
                    continue
                order = 0
                for k in st.kernels:
                    if k.kind == "other":
                        continue
                    if k.kind == "attention":
                        order += 1
                        mask = self.say("par.mask.yes" if k.causal else "par.mask.no") if k.causal is not None else ""
                        what = fmt.dims(k.grid)
                    else:
                        mask = ""
                        size = fmt.unit(_mib(k.bytes), "MiB") if k.bytes else self.say("not_available")
                        what = self.say("par.comm_what", collective=k.collective or "?", size=size)
                    position = str(order) if k.kind == "attention" else ""
                    label = kernels.decode(k.name).text(self.lang)  # the decoded label in the page's language
                    body.append([self.method_words(c.method), str(t.rank), position, nodes.literal("", label),
                                 str(k.stream), mask, what, self.na(k.duration_us)])  # fmt: skip
        keys = ["par.col.method", "par.col.rank", "par.col.position", "col.kernel", "par.col.stream",
                "par.col.mask", "par.col.what", "par.col.us"]  # fmt: skip
        if not body:
            return problems
        return [self.table(keys, body, "attnprof-parallel-kernels", numeric=(1, 2, 4, 7)), *problems]


class ParallelMemory(ParallelDirective):
    """``parallel-memory``: per GPU against one GPU, inputs plus peak extra memory."""

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        body = []
        cfg = r.config
        for c in sorted(r.ran(), key=lambda c: (c.seq, list(METHODS).index(c.method))):
            ratio = claims.memory_ratio(r, c)
            if ratio is None:
                continue
            per_token = 3 * cfg.batch * cfg.heads * cfg.head_dim * element_bytes(cfg.dtype)
            worst = max(c.ranks, key=lambda x: per_token * (x.local_seq or 0) + (x.peak_extra_bytes or 0))
            single = self.say("par.sum", inputs=_mib(per_token * c.seq), extra=_mib(c.single_peak_extra_bytes or 0),
                              total=fmt.number(ratio[2]))  # fmt: skip
            rank = self.say("par.sum", inputs=_mib(per_token * (worst.local_seq or 0)),
                            extra=_mib(worst.peak_extra_bytes or 0), total=fmt.number(ratio[1]))  # fmt: skip
            body.append([self.method_words(c.method), str(c.seq), single, rank, self.times(ratio[0])])
        if not body:
            return [nodes.note("", para(self.say("par.reason.no_memory")), classes=["attnprof-not-run"])]
        keys = ["par.col.method", "par.col.seq", "par.col.single_total", "par.col.rank_total", "par.col.memory_ratio"]
        return [self.table(keys, body, "attnprof-parallel-memory", numeric=range(1, 5))]


class ParallelTimeline(ParallelDirective):
    """``parallel-timeline``: one profiled step, one lane group per rank, the content as caption (by default the
    first rotation method at the shortest sequence, where communication weighs most)."""

    all_methods = False
    longest = False

    has_content = True
    option_spec: ClassVar = {
        **ParallelDirective.option_spec,
        "width": directives.length_or_percentage_or_unitless,
    }

    def pick(self, found: lookup.Found[ParallelRun]) -> tuple[ParallelRun | None, list[nodes.Node]]:
        r, out = super().pick(found)
        if r is None and self.content and out and isinstance(out[-1], nodes.Element):
            # the caption goes inside the note: parsed on every build, its message is extracted for translation
            out[-1] += self.parse_content_to_nodes()
        return r, out

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        cases, problems = self.cases(r)
        if not cases:
            return problems
        case = cases[0]
        path = self.found.path
        assert path is not None
        lang = pictures.picture_language(self.lang)
        # a recorded run's picture is drawn beside this build's results, under the bundle's name
        tag = "" if self.recorded is None else f"recorded-{self.recorded.name}__"
        name = f"{tag}parallel__{r.device}__{case.backend}__{case.method}__S{case.seq}.{lang}.png"
        png = path.parent / "timelines" / name
        if self.recorded is not None:
            path = self.recorded.path
        stale = not png.exists() or png.stat().st_mtime_ns < max(
            path.stat().st_mtime_ns, ranktimeline.code_mtime_ns()
        )
        summary = ranktimeline.render(case, png, None, lang) if stale else ranktimeline.summary(case, None, lang)
        self.env.note_dependency(str(png))
        figure = picture_figure(self, png, summary, "attnprof-timeline")
        return [figure] if self.recorded is not None else [figure, self.downloads(case, path.parent)]

    def downloads(self, case: ParallelCase, folder: Path) -> nodes.paragraph:
        """Links to every rank's raw trace of the case that is whole (a bad one is a warning, and not linked)."""
        doc_dir = self.env.doc2path(self.env.docname).parent
        links: list[nodes.Node] = [nodes.Text(self.say("timeline.download") + ": ")]
        whole = [c for c in case.ranks if c.trace_file
                 and lookup.verified_trace(self.env, folder / c.trace_file, self.get_location()) is None]  # fmt: skip
        for i, rr in enumerate(whole):
            if i:
                links.append(nodes.Text(self.say("list.sep")))
            links.append(addnodes.download_reference(
                "", "", nodes.literal("", rr.trace_file), refdoc=self.env.docname, refdomain="", reftype="download",
                reftarget=Path(os.path.relpath(folder / rr.trace_file, doc_dir)).as_posix(), refexplicit=True,
                refwarn=False))  # fmt: skip
        links.append(nodes.Text(" " + self.say("timeline.open_with")))
        return para(*links, classes=["attnprof-trace-download"])


class ParallelModel(ParallelDirective):
    """``parallel-model``: the model of more GPUs and nodes, from what this build measured."""

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        b = parallelmodel.basis(r)
        if b is None:
            return [nodes.note("", para(self.say(self.key("par.model.no_basis"))), classes=["attnprof-not-run"])]
        gbs = lambda x: fmt.unit(fmt.number(x), "GB/s")  # noqa: E731
        ms = lambda x: fmt.unit(fmt.number(x), "ms")  # noqa: E731
        basis = self.say(self.key("par.model.basis"), seq=b.seq, backend=b.backend, single=ms(b.single_ms),
                         tflops=fmt.unit(fmt.number(b.tflops), "TFLOP/s"), busbw=gbs(b.busbw_gbs), world=b.world,
                         method=self.method_words(b.method), overlap=self.percent(b.overlap))  # fmt: skip
        assumed = self.say(self.key("par.model.assumed"), per_node=b.gpus_per_node, inter=gbs(b.inter_node_gbs))
        body = []
        for row in parallelmodel.rows(b):
            body.append([str(row.gpus), str(row.nodes), fmt.number(row.bandwidth_gbs), self.ms(row.compute_ms),
                         self.ms(row.comm_ms), self.ms(row.exposed_ms), self.ms(row.step_ms),
                         self.speedup(row.speedup), self.percent(row.efficiency)])  # fmt: skip
        keys = ["par.col.gpus", "par.col.nodes", "par.col.bandwidth", "par.col.compute_ms", "par.col.model_comm_ms",
                "par.col.exposed_ms", "par.col.model_step_ms", "par.col.speedup", "par.col.efficiency"]  # fmt: skip
        model = ms(parallelmodel.predict(b, b.world).step_ms)
        check = self.say(self.key("par.model.check"), world=b.world, model=model, measured=ms(b.measured_step_ms))
        n = parallelmodel.crossover(b)
        kv = fmt.unit(fmt.number(b.kv_bytes / 2**20), "MiB")
        cross = self.say("par.model.crossover", n=n, kv=kv) if n else self.say("par.model.no_crossover")
        return [
            para(basis, classes=["attnprof-model-basis"]),
            para(assumed, classes=["attnprof-model-assumed"]),
            self.table(keys, body, "attnprof-parallel-model", numeric=range(0, 9)),
            para(check, classes=["attnprof-model-check"]),
            para(cross, classes=["attnprof-model-crossover"]),
        ]


class ParallelClaims(FamilyClaims[ParallelRun]):
    """``parallel-claims``: C30–C34 checked against this build's run (unmeasurable, with the reason, without one)."""

    kind = parallel.KIND
    family = claims.PARALLEL_CLAIMS
    evidence = "run"
    css = "attnprof-parallel-claims"

    def recorded(self, run: ParallelRun) -> list[str]:
        return sorted({m for m in (run.reason, *(c.reason for c in run.cases)) if m})

    def notes(self, run: ParallelRun | None) -> list[nodes.Node]:
        if run is not None and not run.ok and bundles.recorded_parallel(self.env) is not None:
            return [nodes.note("", para(self.say("par.recorded.no_verdict")), classes=["attnprof-recorded"])]
        return []


class ParallelClosing(ParallelDirective):
    """``parallel-closing``: speed-up, communication share and overlap of every case, and the time it all took."""

    def build(self, r: ParallelRun) -> list[nodes.Node]:
        items = nodes.bullet_list(classes=["attnprof-parallel-closing"])
        for c in sorted(r.cases, key=lambda c: (list(METHODS).index(c.method), c.seq)):
            method = self.method_words(c.method)
            if c.ok:
                text = self.say("par.closing.item", method=method, seq=c.seq, speedup=self.times(c.speedup),
                                efficiency=self.percent(c.efficiency), share=self.percent(c.comm_share),
                                overlap=self.percent(c.overlap))  # fmt: skip
            else:
                text = self.say("par.closing.not_run", method=method, seq=c.seq,
                                status=status_words(c.status, self.lang), reason=c.reason or "")  # fmt: skip
            items += nodes.list_item("", para(text))
        elapsed = self.say("par.closing.time", elapsed=fmt.unit(fmt.number(r.elapsed_s), "s"))
        return [items, para(elapsed, classes=["attnprof-parallel-time"])]


def setup_parallel(app: Sphinx) -> None:
    """Register the context-parallelism directives."""
    for name, cls in (("parallel-status", ParallelStatus), ("parallel-table", ParallelTable),
                      ("parallel-ranks", ParallelRanks), ("parallel-kernels", ParallelKernels),
                      ("parallel-memory", ParallelMemory), ("parallel-timeline", ParallelTimeline),
                      ("parallel-model", ParallelModel), ("parallel-claims", ParallelClaims),
                      ("parallel-closing", ParallelClosing)):  # fmt: skip
        app.add_directive(name, cls)
