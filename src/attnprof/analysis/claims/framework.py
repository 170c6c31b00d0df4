"""What a claim is and how any claim is checked: :class:`Claim`, :class:`Verdict`, and :class:`Check`, the one
context a claim's rule works with, whatever family it belongs to.

A verdict is one of:

``holds``
    This build measured what the claim states, within the claim's rule.
``differs``
    It measured something else; ``measured`` gives both figures.
``tie``
    Too close to call on this build: the claim orders two measured figures (or puts one against a limit) and their
    noise bands overlap (:func:`attnprof.noise.compare`, the one comparison rule), so this build cannot say which
    way the order goes; ``detail`` gives the bands.
``unmeasurable``
    It could not be checked here; ``reason`` says why: a variant has no result, or did not run (its status and
    PyTorch's reason), or the claim needs a GPU and this build ran on the CPU, or a needed measurement was not
    recorded, or no context-parallel case ran.

A claim reads one kind of evidence, named by its ``workload``: ``"prefill"`` reads the analysed results of the
article's workload (variant -> :class:`~attnprof.analysis.summary.Analysis`, with the side-by-side CPU costs when
there are some); ``"train"`` and ``"decode"`` read the build's other workloads
(:class:`~attnprof.analysis.workload_rows.Build`); ``"parallel"`` reads the context-parallel run file
(:class:`~attnprof.records.parallel.ParallelRun`); ``"eligibility"`` reads the eligibility map
(:class:`~attnprof.records.eligibility.Grid`); ``"masks"`` reads the mask run
(:class:`~attnprof.records.masks.MaskRun`). :meth:`Claim.check` makes the claim unmeasurable, with the
reason, when its evidence is missing, and otherwise hands a :class:`Check` to the claim's rule. The rule's
docstring states the rule; its first paragraph is the claim's :attr:`Claim.rule_text`.

Every sentence comes from the word table (:mod:`attnprof.words`, ``C<n>.*`` keys and shared ones) in the language
asked for. This module does not import torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from attnprof import variants, words
from attnprof import workloads as workload_registry
from attnprof.analysis.summary import Analysis, CpuCost, cpu_cost
from attnprof.analysis.workload_rows import Build
from attnprof.noise import Figure
from attnprof.records.eligibility import Grid
from attnprof.records.masks import MaskRun
from attnprof.records.parallel import ParallelCase, ParallelRun
from attnprof.records.results import CpuCosts
from attnprof.words.fmt import number as _num
from attnprof.words.fmt import ratio

#: The article the claims come from. Its sections have no anchors we know of: each claim names its section in words
#: (``article.section.<key>`` in the word table) and links the article.
ARTICLE_URL = "https://huggingface.co/blog/torch-attention-profile"

#: Sections of the article a claim can come from (named after the Japanese adaptation's headings).
#: ``"site"``: not the article's claim but this site's own guess (C18 and later).
SECTIONS: tuple[str, ...] = ("naive", "memcpy", "backends", "math", "flash", "cudnn", "advice", "site")

#: The verdicts a claim can get.
VERDICTS: tuple[str, ...] = ("holds", "differs", "tie", "unmeasurable")

#: The evidence a claim can read: the article's results, the other workloads' results, the context-parallel run.
WORKLOADS: tuple[str, ...] = ("prefill", "train", "decode", "parallel", "eligibility", "masks")

#: "About N" holds within this fraction of N.
ABOUT_TOLERANCE = 0.10
#: A ratio holds within this fraction of the published ratio.
RATIO_TOLERANCE = 0.20
#: SDPA's own choice may be this much slower than the fastest forced backend (C17, C18, C21).
CHOICE_TOLERANCE = 0.10

#: The variants that force one SDPA backend.
FORCED_BACKENDS: tuple[str, ...] = variants.forced()
#: The three fused backends the article compares.
FUSED_BACKENDS: tuple[str, ...] = variants.names(fused=True)


def finite(x: float | None) -> bool:
    """Whether ``x`` is a number that was measured (not ``None``, not NaN or infinite)."""
    return x is not None and math.isfinite(x)


def within(value: float, target: float, tolerance: float) -> bool:
    """Whether ``value`` is within ``tolerance`` (a fraction) of ``target``."""
    return abs(value - target) <= tolerance * abs(target) + 1e-12


def short(variant: str) -> str:
    """The name sentences use for a variant (``"cuDNN"``)."""
    return variants.get(variant).short


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim against this build's results.

    Attributes:
        claim: The claim id (``"C10"``).
        verdict: One of :data:`VERDICTS`.
        measured: What this build measured, with the published figure beside it where there is one.
        detail: One more sentence where it helps (which part failed, what the name decodes to, the overlapping
            bands of a tie), or ``""``.
        reason: Why the claim could not be checked (``unmeasurable`` only), or ``""``.
        figures: The measured figures an ordering rule compared, with their intervals: ``(label, figure)`` pairs,
            labels like ``"gpu_us sdpa_flash"`` (the same in every language), for comparing two builds
            (``scripts/compare_verdicts.py``). Empty for rules that compare no measured figures.
    """

    claim: str
    verdict: str
    measured: str = ""
    detail: str = ""
    reason: str = ""
    figures: tuple[tuple[str, Figure], ...] = ()


class Check:
    """What a claim's rule works with: the evidence, the language, and short-hands for the verdicts.

    Attributes:
        claim: The claim being checked.
        lang: The language of the verdict's sentences.
        results: The analysed results of the article's workload, by variant (``{}`` when the claim reads none).
        measured: The side-by-side CPU-cost measurement, or ``None``.
        build: The build's results of every workload (empty when the claim reads none).
        run: The context-parallel run, or ``None``.
        grid: The eligibility map, or ``None``.
        masks: The mask run, or ``None``.
    """

    def __init__(
        self,
        claim: Claim,
        lang: str,
        results: Mapping[str, Analysis] | None = None,
        measured: CpuCosts | None = None,
        build: Build | None = None,
        run: ParallelRun | None = None,
        grid: Grid | None = None,
        masks: MaskRun | None = None,
    ) -> None:
        self.claim, self.lang, self.measured, self.run, self.grid = claim, lang, measured, run, grid
        self.masks = masks
        self.results: Mapping[str, Analysis] = results if results is not None else {}
        self.build = build or Build()

    # --- words

    def t(self, key: str, **fields: object) -> str:
        return words.text(key, self.lang, **fields)

    def join(self, items: Iterable[str]) -> str:
        items = list(items)
        return self.t("list.sep").join(items) if items else self.t("none")

    def who(self, contenders: tuple[str, ...]) -> str:
        """The winner of an ordering in words: its short name, or "too close to call between ..." for a tie."""
        if len(contenders) == 1:
            return short(contenders[0])
        return self.t("tie.between", names=self.join(short(v) for v in contenders))

    def tie_detail(self, figures: Mapping[str, Figure], floor: float, unit: str, scale: float = 1.0) -> str:
        """The sentence that explains a tie: the overlapping bands (``cuDNN 136–145 µs; flash 157–167 µs``, keyed by
        variant or by words), and how wide a band is at least."""
        items = []
        for name, f in figures.items():
            lo, hi = f.band(floor)
            shown = short(name) if name in variants.VARIANTS else name
            items.append(self.t("tie.band", name=shown, lo=_num(lo * scale), hi=_num(hi * scale), unit=unit))
        return self.t("tie.detail", bands=self.t("list.semi").join(items), floor=ratio(100 * floor))

    def not_recorded(self, what: str, variants: Iterable[str]) -> str:
        return self.t("reason.not_recorded", what=self.t(f"what.{what}"), variants=self.join(variants))

    # --- the evidence

    def usable(self, variant: str) -> Analysis | None:
        """The analysed result of ``variant`` if it ran (on CUDA, for a claim that needs CUDA)."""
        a = self.results.get(variant)
        if a is None or not a.result.ok or (self.claim.needs_cuda and a.result.device != "cuda"):
            return None
        return a

    def cpu(self, variant: str) -> CpuCost:
        """The CPU side of ``variant``: the side-by-side measurement when there is one, else its own result."""
        row = self.measured.row(variant) if self.measured is not None else None
        return cpu_cost(variant, self.results.get(variant), row)

    def traced(self) -> list[ParallelCase]:
        """The context-parallel cases that ran with every rank's trace read."""
        if self.run is None:
            return []
        return [c for c in self.run.ran() if c.ranks and len(c.traces()) == len(c.ranks)]

    # --- verdicts

    def verdict(
        self,
        holds: bool | None,
        measured: str,
        detail: str | Iterable[str] = "",
        figures: Mapping[str, Figure | None] | None = None,
    ) -> Verdict:
        """``holds`` (True), ``differs`` (False) or ``tie`` (None: too close to call), with the figures compared."""
        if not isinstance(detail, str):
            detail = self.t("sentence.sep").join(d for d in detail if d)
        outcome = "tie" if holds is None else "holds" if holds else "differs"
        shown = tuple((k, f) for k, f in (figures or {}).items() if f is not None)
        return Verdict(self.claim.id, outcome, measured, detail, figures=shown)

    def unmeasurable(self, reason: str, measured: str = "", detail: str = "") -> Verdict:
        return Verdict(self.claim.id, "unmeasurable", measured, detail, reason)


Rule = Callable[[Check], Verdict]


@dataclass(frozen=True)
class Claim:
    """One claim and the rule that checks it.

    Attributes:
        id: ``"C1"`` … ``"C34"``: the key of the claim in the registry and in the word table.
        variants: Variants whose results the claim needs; without one of them it is unmeasurable.
        needs_cuda: True when the claim is about the GPU, so that a CPU result cannot check it.
        rule: Turns the evidence into a verdict once it is there; its docstring states the rule.
        section: The part of the article it comes from, one of :data:`SECTIONS`.
        optional: Variants the rule also uses when present.
        workload: The evidence the claim reads, one of :data:`WORKLOADS` (see the module's docstring). For
            ``"train"`` and ``"decode"``, a needed variant must have a result of that workload, whatever its status:
            the rule itself reads refusals.
    """

    id: str
    variants: tuple[str, ...]
    needs_cuda: bool
    rule: Rule
    section: str
    optional: tuple[str, ...] = ()
    workload: str = "prefill"

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            choices = ", ".join(SECTIONS)
            raise ValueError(f"claim {self.id}: unknown section {self.section!r}; choose one of: {choices}")
        if self.workload not in WORKLOADS:
            choices = ", ".join(WORKLOADS)
            raise ValueError(f"claim {self.id}: unknown workload {self.workload!r}; choose one of: {choices}")

    @property
    def article(self) -> bool:
        """Whether the claim is about the reference article's workload (:attr:`attnprof.workloads.Workload.article`);
        the context-parallel run is none of the registry's workloads."""
        return self.workload in workload_registry.WORKLOADS and workload_registry.get(self.workload).article

    def published(self, lang: str | None = None) -> str:
        """The published figure (or, for this site's own claims, its guess), in ``lang``."""
        return words.text(f"{self.id}.published", lang)

    def statement(self, lang: str | None = None) -> str:
        """The claim in words, in ``lang``, for the claims whose statement is in the word table (the
        context-parallel ones; the others are stated by the page that shows them)."""
        return words.text(f"{self.id}.statement", lang)

    def source(self, lang: str | None = None) -> str:
        """The part of the article the claim comes from, in ``lang`` (``"§ SDPA flash backend"``)."""
        return words.text(f"article.section.{self.section}", lang)

    @property
    def rule_text(self) -> str:
        """The documented rule (the first paragraph of the rule function's docstring)."""
        return " ".join((self.rule.__doc__ or "").strip().split("\n\n")[0].split())

    def check(
        self,
        results: Mapping[str, Analysis] | None = None,
        lang: str | None = None,
        cpu: CpuCosts | None = None,
        build: Build | None = None,
        run: ParallelRun | None = None,
        grid: Grid | None = None,
        masks: MaskRun | None = None,
    ) -> Verdict:
        """Check the claim against the evidence it reads.

        Args:
            results: Variant name -> analysed result of the article's workload
                (:func:`attnprof.analysis.summary.analyse`).
            lang: The language of the verdict's sentences (the default language when ``None``).
            cpu: The side-by-side CPU-cost measurement, used by the claims about CPU time when present.
            build: The results of the other workloads, for the claims about them.
            run: The context-parallel run, for the claims about it.
            grid: The eligibility map, for the claims about it.
            masks: The mask run, for the claims about it.

        Returns:
            The :class:`Verdict`. Unmeasurable when the evidence is missing: a needed variant has no result, did not
            run, or (for a GPU claim) ran on the CPU; the run is missing, did not run, or no case ran with its
            traces. Otherwise what the rule decides.
        """
        ctx = Check(self, words.language(lang), results, cpu, build, run, grid, masks)
        if self.workload == "parallel":
            return self._check_run(ctx)
        if self.workload == "masks":
            return self._check_masks(ctx)
        if self.workload == "eligibility":
            return self._check_grid(ctx)
        if not self.article:
            return self._check_workload(ctx)
        results = ctx.results
        if self.needs_cuda:
            # no sign of a GPU anywhere: every result ran on the CPU or found no CUDA device
            if results and all(a.result.device != "cuda" or a.result.status == "no_cuda" for a in results.values()):
                return ctx.unmeasurable(ctx.t("reason.no_cuda"))
            for v in self.variants:
                a = results.get(v)
                if a is not None and (a.result.status == "no_cuda" or (a.result.ok and a.result.device != "cuda")):
                    return ctx.unmeasurable(ctx.t("reason.no_cuda"))
        for v in self.variants:
            r = results[v].result if v in results else None
            if r is None:
                return ctx.unmeasurable(ctx.t("reason.missing", variant=v))
            if not r.ok:
                reason = r.reason or ctx.t("unknown_reason")
                return ctx.unmeasurable(ctx.t("reason.not_run", variant=v, status=r.status, reason=reason))
        return self.rule(ctx)

    def _check_workload(self, ctx: Check) -> Verdict:
        found = ctx.build.of(self.workload)
        if (
            self.needs_cuda
            and found
            and all(a.result.device != "cuda" or a.result.status == "no_cuda" for a in found)
        ):
            return ctx.unmeasurable(ctx.t("reason.no_cuda"))
        present = {a.variant for a in found}
        for v in self.variants:
            if v not in present:
                return ctx.unmeasurable(ctx.t("reason.missing_workload", variant=v, workload=self.workload))
        return self.rule(ctx)

    def _check_grid(self, ctx: Check) -> Verdict:
        grid = ctx.grid
        if grid is None:
            return ctx.unmeasurable(ctx.t("elig.reason.no_map"))
        if grid.unasked is not None:
            return ctx.unmeasurable(ctx.t("elig.unasked.no_cuda", reason=grid.unasked_reason or ""))
        if self.needs_cuda and grid.device != "cuda":
            return ctx.unmeasurable(ctx.t("reason.no_cuda"))
        return self.rule(ctx)

    def _check_masks(self, ctx: Check) -> Verdict:
        run = ctx.masks
        if run is None:
            return ctx.unmeasurable(ctx.t("mask.reason.no_run"))
        if self.needs_cuda and run.device != "cuda":
            return ctx.unmeasurable(ctx.t("reason.no_cuda"))
        return self.rule(ctx)

    def _check_run(self, ctx: Check) -> Verdict:
        run = ctx.run
        if run is None:
            return ctx.unmeasurable(ctx.t("par.reason.no_case"))
        if not run.ok:
            status = words.text_or(f"status.{run.status}", run.status, ctx.lang)
            return ctx.unmeasurable(ctx.t("par.reason.not_run", status=status, reason=run.reason or ""))
        if not ctx.traced():
            return ctx.unmeasurable(ctx.t("par.reason.no_case"))
        return self.rule(ctx)
