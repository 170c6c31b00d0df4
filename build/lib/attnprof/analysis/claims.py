"""The reference article's claims, checked against the results of this build.

The article ("Profiling in PyTorch (Part 3): Attention is all you profile", measured on an A100) makes seventeen
claims, C1–C17, that a reader can check on their own GPU. :data:`CLAIMS` holds each one: which variants it needs,
the published figure, whether it needs a CUDA result, and a rule that turns the loaded results into a
:class:`Verdict`:

``holds``
    This build measured what the article published, within the claim's rule.
``differs``
    It measured something else; ``measured`` gives both figures.
``tie``
    Too close to call on this build: the claim orders two measured figures (or puts one against a limit) and their
    noise bands overlap (:func:`attnprof.noise.compare`, the one comparison rule), so this build cannot say which
    way the order goes; ``detail`` gives the bands.
``unmeasurable``
    It could not be checked here; ``reason`` says why: a variant has no result, or did not run (its status and
    PyTorch's reason), or the claim needs a GPU and this build ran on the CPU, or a needed measurement was not
    recorded.

Verdicts are computed from the results every time; nothing is set by hand. The rules, one per claim (each
claim's rule function repeats its own):

* Counts of a few items must match exactly: C1 and C2 count every GPU activity of a step (kernels, Memcpy and
  Memset), because the article counts its Memcpy among the kernels; C8, C9 and C11 count kernels only and also
  require the decoded kind of the one kernel; C12 counts ``aten::transpose`` ops.
* "About N" (C3, the ~13% of C10) holds within ±10% of N.
* Ratios (C4) hold within ±20% of the published ratio.
* Naming claims compare what the names decode to (:func:`attnprof.analysis.kernels.decode`), not the names: C5 holds
when
  every gemm of the math backend is FP32 off the tensor cores and every gemm of naive attention is a bf16
  tensor-core gemm; C6 and C7 need the named ops (and, on a GPU, kernels) in every step.
* C13 holds when the cuDNN kernel is launched through ``cuLaunchKernelEx`` and every kernel of naive,
  naive_inplace, math, efficient and flash through ``cudaLaunchKernel``; the exceptions are named.
* C14 holds when the cuDNN kernel reports 0% and the article's explanation (a driver-API launch reports 0%)
  has no counterexample among all kernels of the build (:func:`attnprof.analysis.occupancy.check_hypotheses`).
* Orderings of measured figures (C15, C16, C17) go through the one comparison rule, :func:`attnprof.noise.compare`:
  each figure has a band, its 95% confidence interval widened to at least ±3% of its median for GPU times
  (:data:`attnprof.noise.GPU_FLOOR`) and ±10% for CPU times (:data:`attnprof.noise.CPU_FLOOR`); an order holds or
  differs only when the bands do not overlap, and is a ``tie`` when they do.
* C15 holds when flash is the fastest of efficient, flash and cuDNN by median GPU time without the profiler
  (by profiled GPU time when that was not measured), beyond the noise.
* C16 holds when cuDNN has the largest profiled CPU time per call of the three, beyond the noise; the self-time
  share of ``aten::scaled_dot_product_attention`` and whether the ordering survives without the profiler
  (dispatch cost) are reported beside it.
* C17 (the advice) holds when SDPA's own choice is within 10% of the fastest forced backend AND cuDNN's dispatch
  cost exceeds flash's (the CPU-overhead premise), both beyond the noise; it differs when a part fails, naming it,
  and is a tie when no part fails but one is within the noise.

Claims C18–C26 are this site's own guesses about the other workloads (training, decoding, CUDA graphs), checked
the same way against the training and decoding results of the build (:class:`attnprof.analysis.workload_rows.Build`);
their rules are on each rule function, summarised here:

* C18 and C21: SDPA's own choice is within 10% of the fastest forced backend (training; decoding at every cache
  length), by median GPU time without the profiler.
* C19: every fused backend's backward takes 2.5 times its forward (the FLOP count), within ±20%.
* C20: the math backend's peak memory in a training step is at least four times the largest fused backend's.
* C22: every fused backend runs the grouped-query decoding step at every cache length measured.
* C23: at the longest cache, the fastest backend moves its bytes at 80% or more of the measured read bandwidth.
* C24: at the shortest cache, issuing SDPA's decoding step takes the CPU longer than the GPU takes to run it.
* C25: replaying the decoding step from a CUDA graph cuts the CPU time at least threefold, for every captured
  variant, while its GPU time stays within ±10%.
* C26: at every cache length, forcing the backend SDPA picks anyway costs more CPU time per step than not forcing.

Every sentence comes from the word table (:mod:`attnprof.words`, ``C<n>.*`` keys and shared ones) in the
language asked for, and every figure from the results' analysis (:mod:`attnprof.analysis.summary`). This module does
not import torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from attnprof import noise, variants, words
from attnprof.analysis import kernels, zero_occupancy
from attnprof.analysis.summary import Analysis, CpuCost, cpu_cost, min_op_count, self_share
from attnprof.analysis.workload_rows import Build
from attnprof.inputs import element_bytes
from attnprof.noise import CPU_FLOOR, GPU_FLOOR, Figure
from attnprof.records.parallel import ParallelCase, ParallelRun
from attnprof.records.results import CpuCosts, StepTrace
from attnprof.words.fmt import count as _count
from attnprof.words.fmt import number as _num
from attnprof.words.fmt import ratio

#: The article the claims come from. Its sections have no anchors we know of: each claim names its section in words
#: (``article.section.<key>`` in the word table) and links the article.
ARTICLE_URL = "https://huggingface.co/blog/torch-attention-profile"

#: Sections of the article a claim can come from (named after the Japanese adaptation's headings).
#: ``"site"``: not the article's claim but this site's own guess about another workload (C18 and later).
SECTIONS: tuple[str, ...] = ("naive", "memcpy", "backends", "math", "flash", "cudnn", "advice", "site")

#: The verdicts a claim can get.
VERDICTS: tuple[str, ...] = ("holds", "differs", "tie", "unmeasurable")

#: "About N" holds within this fraction of N.
ABOUT_TOLERANCE = 0.10
#: A ratio holds within this fraction of the published ratio.
RATIO_TOLERANCE = 0.20
#: C17: SDPA's own choice may be this much slower than the fastest forced backend.
CHOICE_TOLERANCE = 0.10

#: The variants that force one SDPA backend.
FORCED_BACKENDS: tuple[str, ...] = variants.forced()
#: The three fused backends the article compares.
FUSED_BACKENDS: tuple[str, ...] = variants.names(fused=True)


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _within(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance * abs(target) + 1e-12


def _short(variant: str) -> str:
    """The name sentences use for a variant (``"cuDNN"``)."""
    return variants.get(variant).short


def _group(items: Iterable[tuple[str, str, str]], lang: str) -> list[tuple[str, str, str]]:
    """``(kernel, variant, extra)`` -> one ``(kernel, "variant, variant", extra)`` per kernel and extra."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for kernel, variant, extra in items:
        vs = grouped.setdefault((kernel, extra), [])
        if variant not in vs:
            vs.append(variant)
    return [(k, words.text("list.sep", lang).join(vs), e) for (k, e), vs in grouped.items()]


# --- verdicts -------------------------------------------------------------------------------------------------------


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


class _Check:
    """What a claim's rule works with: the results, the language, and short-hands for the verdicts."""

    def __init__(
        self,
        claim: Claim,
        results: Mapping[str, Analysis],
        lang: str,
        measured: CpuCosts | None = None,
        build: Build | None = None,
    ) -> None:
        self.claim, self.results, self.lang, self.measured = claim, results, lang, measured
        self.build = build or Build()

    def cpu(self, variant: str) -> CpuCost:
        """The CPU side of ``variant``: the side-by-side measurement when there is one, else its own result."""
        row = self.measured.row(variant) if self.measured is not None else None
        return cpu_cost(variant, self.results.get(variant), row)

    def t(self, key: str, **fields: object) -> str:
        return words.text(key, self.lang, **fields)

    def join(self, items: Iterable[str]) -> str:
        items = list(items)
        return self.t("list.sep").join(items) if items else self.t("none")

    def usable(self, variant: str) -> Analysis | None:
        """The analysed result of ``variant`` if it ran (on CUDA, for a claim that needs CUDA)."""
        a = self.results.get(variant)
        if a is None or not a.result.ok or (self.claim.needs_cuda and a.result.device != "cuda"):
            return None
        return a

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

    def who(self, contenders: tuple[str, ...]) -> str:
        """The winner of an ordering in words: its short name, or "too close to call between ..." for a tie."""
        if len(contenders) == 1:
            return _short(contenders[0])
        return self.t("tie.between", names=self.join(_short(v) for v in contenders))

    def tie_detail(self, figures: Mapping[str, Figure], floor: float, unit: str, scale: float = 1.0) -> str:
        """The sentence that explains a tie: the overlapping bands (``cuDNN 136–145 µs; flash 157–167 µs``, keyed by
        variant or by words), and how wide a band is at least."""
        items = []
        for name, f in figures.items():
            lo, hi = f.band(floor)
            shown = _short(name) if name in variants.VARIANTS else name
            items.append(self.t("tie.band", name=shown, lo=_num(lo * scale), hi=_num(hi * scale), unit=unit))
        return self.t("tie.detail", bands=self.t("list.semi").join(items), floor=ratio(100 * floor))

    def not_recorded(self, what: str, variants: Iterable[str]) -> str:
        return self.t("reason.not_recorded", what=self.t(f"what.{what}"), variants=self.join(variants))


Rule = Callable[[_Check], Verdict]


@dataclass(frozen=True)
class Claim:
    """One published claim and the rule that checks it.

    Attributes:
        id: ``"C1"`` … ``"C17"``.
        variants: Variants whose results the claim needs; without one of them it is unmeasurable.
        needs_cuda: True when the claim is about the GPU, so that a CPU result cannot check it.
        rule: Turns the results into a verdict once the needed results are there; its docstring states the rule.
        section: The part of the article it comes from, one of :data:`SECTIONS`.
        optional: Variants the rule also uses when present.
        workload: The workload whose results the claim reads (``"prefill"``: the article's; ``"train"`` and
            ``"decode"`` read the build's :class:`~attnprof.analysis.workload_rows.Build`). For those, a needed
            variant must have a result of that workload, whatever its status: the rule itself reads refusals.
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

    def published(self, language: str | None = None) -> str:
        """The published figure, in ``language``."""
        return words.text(f"{self.id}.published", language)

    def source(self, language: str | None = None) -> str:
        """The part of the article the claim comes from, in ``language`` (``"§ SDPA flash backend"``)."""
        return words.text(f"article.section.{self.section}", language)

    @property
    def rule_text(self) -> str:
        """The documented rule (the first paragraph of the rule function's docstring)."""
        return " ".join((self.rule.__doc__ or "").strip().split("\n\n")[0].split())

    def check(
        self,
        results: Mapping[str, Analysis],
        language: str | None = None,
        cpu: CpuCosts | None = None,
        build: Build | None = None,
    ) -> Verdict:
        """Check the claim against ``results`` (variant name -> analysed result,
        :func:`attnprof.analysis.summary.analyse`).

        ``cpu`` is the side-by-side CPU-cost measurement, used by the claims about CPU time when present; ``build``
        holds the results of the other workloads, for the claims about them.

        Returns:
            The :class:`Verdict`. Unmeasurable when a needed variant has no result, did not run, or (for a GPU
            claim) ran on the CPU; otherwise what the rule decides.
        """
        ctx = _Check(self, results, words.language(language), cpu, build)
        if self.workload != "prefill":
            return self._check_workload(ctx)
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

    def _check_workload(self, ctx: _Check) -> Verdict:
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


# --- the rules ------------------------------------------------------------------------------------------------------


def _breakdown(ctx: _Check, counts: Mapping[str, float]) -> str:
    return ctx.join(
        ctx.t("breakdown.item", n=_count(counts[k]), kind=ctx.t(f"kind.{k}"))
        for k in ("kernel", "memcpy", "memset")
        if counts[k] or k == "kernel"
    )


def _diffs(ctx: _Check, counts: Mapping[str, float], published: Mapping[str, int]) -> list[str]:
    out = []
    for k in ("kernel", "memcpy", "memset"):
        d = counts[k] - published[k]
        if d:
            key = "diff.more" if d > 0 else "diff.fewer"
            out.append(ctx.t(key, n=_count(abs(d)), kind=ctx.t(f"kind.{k}")))
    return out


def _c1(ctx: _Check) -> Verdict:
    """Exact count: naive has 6 GPU activities per step (kernels, Memcpy and Memset all count, as the article
    counts its Memcpy among the kernels), and one of them is a Memcpy."""
    counts = ctx.results["naive"].kinds
    n = sum(counts.values())
    measured = ctx.t("C1.measured", n=_count(n), breakdown=_breakdown(ctx, counts))
    detail = []
    if counts["memcpy"] < 1:
        detail.append(ctx.t("C1.detail.no_memcpy"))
    diffs = _diffs(ctx, counts, {"kernel": 5, "memcpy": 1, "memset": 0})
    if diffs:
        detail.append(ctx.t("C1.detail.diff", diffs=ctx.join(diffs)))
    return ctx.verdict(n == 6 and counts["memcpy"] >= 1, measured, detail)


def _c2(ctx: _Check) -> Verdict:
    """Exact count: naive_inplace has 5 GPU activities per step (counted as for C1) and no Memcpy."""
    counts = ctx.results["naive_inplace"].kinds
    n = sum(counts.values())
    measured = ctx.t("C2.measured", n=_count(n), breakdown=_breakdown(ctx, counts))
    detail = []
    naive = ctx.usable("naive")
    if naive is not None:
        before = naive.kinds
        detail.append(
            ctx.t(
                "C2.detail.change",
                a=_count(sum(before.values())),
                b=_count(n),
                ma=_count(before["memcpy"]),
                mb=_count(counts["memcpy"]),
            )
        )
    diffs = _diffs(ctx, counts, {"kernel": 5, "memcpy": 0, "memset": 0})
    if diffs:
        detail.append(ctx.t("C2.detail.diff", diffs=ctx.join(diffs)))
    return ctx.verdict(n == 5 and counts["memcpy"] == 0, measured, detail)


def _c3(ctx: _Check) -> Verdict:
    """About 20: the math backend's kernels per step are within ±10% of 20."""
    n = ctx.results["sdpa_math"].kinds["kernel"]
    return ctx.verdict(_within(n, 20, ABOUT_TOLERANCE), ctx.t("C3.measured", n=_count(n)))


def _c4(ctx: _Check) -> Verdict:
    """Ratio: math's profiled GPU time per step (the median of the active steps) over naive_inplace's is within ±20%
    of 3.7 (7.239 / 1.955); the ratio without the profiler is reported beside it. Tolerance: ±20%, far wider than
    the noise of either time."""
    math_r, inplace = ctx.results["sdpa_math"].result, ctx.results["naive_inplace"].result
    a, b = _profiled_gpu(math_r.steps), _profiled_gpu(inplace.steps)
    if b <= 0:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="naive_inplace", family="GPU"))
    ratio = a / b
    measured = ctx.t("C4.measured", ratio=_num(ratio), math=_num(a), inplace=_num(b))
    detail = ""
    ta, tb = math_r.timing, inplace.timing
    if ta and tb and _finite(ta.gpu_ms_median) and _finite(tb.gpu_ms_median) and tb.gpu_ms_median > 0:
        detail = ctx.t(
            "C4.detail.unprofiled",
            ratio=_num(ta.gpu_ms_median / tb.gpu_ms_median),
            math=_num(ta.gpu_ms_median),
            inplace=_num(tb.gpu_ms_median),
        )
    return ctx.verdict(_within(ratio, 7.239 / 1.955, RATIO_TOLERANCE), measured, detail)


def _c5(ctx: _Check) -> Verdict:
    """Decoded facts, not names: every gemm kernel of sdpa_math decodes to FP32 off the tensor cores, every gemm
    kernel of naive to bf16 on the tensor cores, and each has at least one gemm."""
    math_g = [r for r in ctx.results["sdpa_math"].kernels if r.info.family == "gemm"]
    naive_g = [r for r in ctx.results["naive"].kernels if r.info.family == "gemm"]
    math_off = [
        r.info.text(ctx.lang)
        for r in math_g
        if r.info.fields.get("dtype") != "fp32" or r.info.fields.get("math", "") == "tensor core"
    ]
    naive_off = [
        r.info.text(ctx.lang)
        for r in naive_g
        if r.info.fields.get("dtype") != "bf16" or r.info.fields.get("math") != "tensor core"
    ]
    measured = ctx.t(
        "C5.measured",
        math=ctx.join(r.info.text(ctx.lang) for r in math_g),
        naive=ctx.join(r.info.text(ctx.lang) for r in naive_g),
    )
    holds = bool(math_g) and bool(naive_g) and not math_off and not naive_off
    detail = [ctx.t("C5.detail.compared")]
    if math_off:
        detail.append(ctx.t("C5.detail.math_off", kernels=ctx.join(math_off)))
    if naive_off:
        detail.append(ctx.t("C5.detail.naive_off", kernels=ctx.join(naive_off)))
    return ctx.verdict(holds, measured, detail)


#: C6: the CPU ops that rebuild the mask, and the elementwise ops of the kernels that apply it.
C6_OPS: tuple[str, ...] = ("aten::ones", "aten::tril", "aten::scalar_tensor", "aten::fill_", "aten::where")
C6_KERNEL_OPS: tuple[str, ...] = ("tril", "where", "add")


def _c6(ctx: _Check) -> Verdict:
    """Presence in every step: the ops aten::ones, aten::tril, aten::scalar_tensor, aten::fill_ and aten::where,
    and kernels decoding to the elementwise ops tril, where and add."""
    r = ctx.results["sdpa_math"].result
    ops = {op: min_op_count(r.steps, op) for op in C6_OPS}
    per_step = [{a_op for a in s.kernels if (a_op := _kernel_op(a.name))} for s in r.steps]
    kernels = {k: all(k in ops_ for ops_ in per_step) and bool(per_step) for k in C6_KERNEL_OPS}
    measured = ctx.t(
        "C6.measured",
        ops=ctx.join(f"{op.removeprefix('aten::')} {n}" for op, n in ops.items()),
        kernels=ctx.join(k for k, ok in kernels.items() if ok),
    )
    missing = [op for op, n in ops.items() if n < 1] + [f"{k} (kernel)" for k, ok in kernels.items() if not ok]
    detail = ctx.t("C6.detail.missing", missing=ctx.join(missing)) if missing else ""
    return ctx.verdict(not missing, measured, detail)


def _kernel_op(name: str) -> str | None:
    return kernels.decode(name).fields.get("op")


def _c7(ctx: _Check) -> Verdict:
    """Presence in every step: aten::_safe_softmax is called by sdpa_math (on a CPU result too); on a GPU the
    kernels launched inside it are named."""
    a = ctx.results["sdpa_math"]
    r = a.result
    n = min_op_count(r.steps, "aten::_safe_softmax")
    measured = ctx.t("C7.measured", n=_count(a.ops.get("aten::_safe_softmax", 0)), device=r.device)
    detail = ""
    if r.device == "cuda" and r.steps and n:
        step = r.steps[0]
        inside = []
        for o in step.cpu_ops:
            if o.name == "aten::_safe_softmax":
                lo, hi = o.start_us, o.start_us + o.duration_us
                inside += [
                    kernels.decode(a.name).text(ctx.lang)
                    for a in step.kernels
                    if a.launch_start_us is not None and lo <= a.launch_start_us <= hi
                ]
        if inside:
            detail = ctx.t("C7.detail.kernels", kernels=ctx.join(dict.fromkeys(inside)))
    return ctx.verdict(n >= 1, measured, detail)


def _fused(variant: str, family: str, published: str) -> Rule:
    def rule(ctx: _Check) -> Verdict:
        a = ctx.results[variant]
        counts, rows = a.kinds, a.kernels
        shown = ctx.join(x.info.text(ctx.lang) for x in rows)
        measured = ctx.t("fused.measured", n=_count(counts["kernel"]), kernels=shown)
        detail = []
        ours = [x for x in rows if x.info.family == family]
        if len(rows) == 1 and ours:
            name = kernels.shorten(ours[0].name, 120)
            key = "fused.detail.same_name" if published in ours[0].name else "fused.detail.other_name"
            detail.append(ctx.t(key, published=published, name=name))
        elif rows:
            detail.append(ctx.t("fused.detail.wrong_family", family=family))
        others = {k: counts[k] for k in ("memcpy", "memset") if counts[k]}
        if others:
            detail.append(ctx.t("fused.detail.others", others=_breakdown_only(ctx, others)))
        holds = counts["kernel"] == 1 and len(rows) == 1 and bool(ours)
        return ctx.verdict(holds, measured, detail)

    return rule


def _breakdown_only(ctx: _Check, counts: Mapping[str, float]) -> str:
    return ctx.join(ctx.t("breakdown.item", n=_count(n), kind=ctx.t(f"kind.{k}")) for k, n in counts.items())


def _c8(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_efficient launches exactly 1 kernel per step and it decodes to the
    memory-efficient family; whether its name contains fmha_cutlassF_bf16_aligned_64x64_rf_sm80 is reported."""
    return _fused("sdpa_efficient", "mem_efficient", "fmha_cutlassF_bf16_aligned_64x64_rf_sm80")(ctx)


def _c9(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_flash launches exactly 1 kernel per step and it decodes to the flash family;
    whether its name contains pytorch_flash is reported."""
    return _fused("sdpa_flash", "flash", "pytorch_flash")(ctx)


def _c11(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_cudnn launches exactly 1 kernel per step and it decodes to the cuDNN family; the
    generated name is reported next to the published sm80 one."""
    return _fused("sdpa_cudnn", "cudnn", "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6")(ctx)


def _c10(ctx: _Check) -> Verdict:
    """About 13%: the flash kernel's reported occupancy is within ±10% of 13%, and the theoretical occupancy gives
    the article's arithmetic (2 blocks per SM, 8 of 64 warps)."""
    row = ctx.results["sdpa_flash"].main_kernel("flash")
    if row is None or row.reported_occupancy is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_flash", family="flash"))
    o = row.theoretical
    if o is None:
        measured = ctx.t("C10.measured", reported=_num(row.reported_occupancy, 2), theoretical="?", blocks="?",
                         warps="?", active="?", max="?", limiter="?")  # fmt: skip
        return ctx.verdict(_within(row.reported_occupancy, 13, ABOUT_TOLERANCE), measured)
    measured = ctx.t(
        "C10.measured",
        reported=_num(row.reported_occupancy, 2),
        theoretical=_num(o.percent, 3),
        blocks=o.blocks_per_sm,
        warps=o.warps_per_block,
        active=o.active_warps,
        max=o.max_warps,
        limiter=words.limiters(o.limiters or (o.limiter,), ctx.lang),
    )
    arith = (o.blocks_per_sm, o.active_warps, o.max_warps) == (2, 8, 64)
    detail = [
        ctx.t(
            "C10.detail.regs",
            threads=o.warps_per_block * o.warp_size,
            regs=row.registers_per_thread,
            alloc=o.registers_per_warp // o.warp_size,
            per_block=o.registers_per_block,
            per_sm=o.registers_per_sm,
        )
    ]
    if not arith:
        detail.append(ctx.t("C10.detail.arith"))
    return ctx.verdict(_within(row.reported_occupancy, 13, ABOUT_TOLERANCE) and arith, measured, detail)


def _c12(ctx: _Check) -> Verdict:
    """Exact counts: aten::transpose per step is 4 for sdpa_efficient, 4 for sdpa_flash and 0 for sdpa_cudnn."""
    n = {v: ctx.results[v].ops.get("aten::transpose", 0.0) for v in FUSED_BACKENDS}
    measured = ctx.t(
        "C12.measured",
        efficient=_count(n["sdpa_efficient"]),
        flash=_count(n["sdpa_flash"]),
        cudnn=_count(n["sdpa_cudnn"]),
    )
    return ctx.verdict((n["sdpa_efficient"], n["sdpa_flash"], n["sdpa_cudnn"]) == (4, 4, 0), measured)


#: C13: the variants whose kernels the article says are all launched with cudaLaunchKernel.
C13_OTHERS: tuple[str, ...] = ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash")


def _c13(ctx: _Check) -> Verdict:
    """API names: the cuDNN kernel is launched through cuLaunchKernelEx, and every kernel of naive, naive_inplace,
    sdpa_math, sdpa_efficient and sdpa_flash (those in the build) through cudaLaunchKernel; exceptions are
    named."""
    cudnn = ctx.results["sdpa_cudnn"].main_kernel("cudnn")
    if cudnn is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_cudnn", family="cuDNN"))
    n, exceptions, absent = 0, [], []
    for v in C13_OTHERS:
        r = ctx.usable(v)
        if r is None:
            absent.append(v)
            continue
        for row in r.kernels:
            n += 1
            if row.launch_api != "cudaLaunchKernel":
                exceptions.append((row.info.text(ctx.lang), v, row.launch_api or "?"))
    grouped = _group(exceptions, ctx.lang)
    measured = ctx.t("C13.measured", cudnn=cudnn.launch_api or "?", n_ok=n - len(exceptions), n=n)
    detail = []
    if grouped:
        detail.append(
            ctx.t(
                "C13.detail.exceptions",
                exceptions=ctx.t("list.semi").join(
                    ctx.t("kernel_api", kernel=k, variants=vs, api=api) for k, vs, api in grouped
                ),
            )
        )
    if absent:
        detail.append(ctx.t("C13.detail.absent", variants=ctx.join(absent)))
    return ctx.verdict(cudnn.launch_api == "cuLaunchKernelEx" and not exceptions and n > 0, measured, detail)


def _c14(ctx: _Check) -> Verdict:
    """The 0% and its explanation: the cuDNN kernel reports 0% occupancy, and the article's explanation (a launch
    through the driver API reports 0%) has no counterexample among all kernels of the build; the simplest
    explanation that the data support is named."""
    cudnn = ctx.results["sdpa_cudnn"].main_kernel("cudnn")
    if cudnn is None or cudnn.reported_occupancy is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_cudnn", family="cuDNN"))
    build = [a for v in variants.VARIANTS if (a := ctx.usable(v)) is not None]
    tests = zero_occupancy.check_hypotheses(zero_occupancy.kernel_occupancies(build))
    h1 = next(t for t in tests if t.hypothesis.parts == ("H1",))
    counter = _group(
        ((kernels.decode(k.name).text(ctx.lang), k.variant, f"{k.launch_api}|{_num(k.reported or 0, 2)}")
         for k in h1.counterexamples),
        ctx.lang,
    )  # fmt: skip
    counter_text = ctx.t("list.semi").join(
        ctx.t("kernel_occ", kernel=k, variants=vs, api=e.split("|")[0], occupancy=e.split("|")[1])
        for k, vs, e in counter
    )
    o = cudnn.theoretical
    measured = ctx.t(
        "C14.measured",
        reported=_num(cudnn.reported_occupancy, 2),
        theoretical="?" if o is None else _num(o.percent),
        regs=cudnn.registers_per_thread,
        threads=o.warps_per_block * o.warp_size if o else "?",
        blocks="?" if o is None else o.blocks_per_sm,
        counter=counter_text or ctx.t("none"),
    )
    best = zero_occupancy.supported(tests)
    if len(best) == 1:
        detail = ctx.t("C14.detail.best", best=best[0].hypothesis.key)
    elif best:
        detail = ctx.t("C14.detail.tie", best=ctx.join(t.hypothesis.key for t in best))
    else:
        detail = ctx.t("C14.detail.no_best")
    return ctx.verdict(cudnn.reported_occupancy == 0 and not h1.counterexamples, measured, detail)


def _profiled_gpu(steps: Iterable[StepTrace]) -> float:
    """Profiled GPU time per step: the median over the active steps of the summed GPU activity, µs (0 without
    steps)."""
    times = [s.gpu_time_us for s in steps]
    return noise.span(times).median if times else 0.0


def _gpu(a: Analysis | None) -> Figure | None:
    """The median GPU time without the profiler with its interval, in µs; ``None`` when not measured."""
    t = a.result.timing if a is not None else None
    if t is None or not _finite(t.gpu_ms_median):
        return None
    return t.gpu.scaled(1e3)


def _order(contenders: tuple[str, ...], expected: str) -> bool | None:
    """An ordering's verdict: ``expected`` alone in front (True), ``expected`` beaten beyond the noise (False), or
    ``expected`` among several within the noise of the front (None: too close to call)."""
    if contenders == (expected,):
        return True
    return None if expected in contenders else False


def _c15(ctx: _Check) -> Verdict:
    """Ordering: flash is the fastest of efficient, flash and cuDNN by median GPU time without the profiler (by
    profiled GPU time per step, the median of the active steps, when that was not measured); profiled kernel times
    are reported beside it. Tolerance: each time's band is its 95% confidence interval, at least ±3% of its median
    (noise.GPU_FLOOR); flash must be faster than both others beyond their bands, and a flash within the band of the
    fastest is a tie."""
    rs = {v: ctx.results[v] for v in FUSED_BACKENDS}
    profiled = {v: noise.span(s.gpu_time_us for s in a.result.steps) for v, a in rs.items() if a.result.steps}
    # profiled: the same statistic as C4's profiled GPU time per step (the median of the active steps)
    unprofiled = {v: _gpu(r) for v, r in rs.items()}
    use_timing = all(x is not None for x in unprofiled.values())
    basis: dict[str, Figure] = unprofiled if use_timing else profiled  # type: ignore[assignment]
    if len(basis) < len(FUSED_BACKENDS):
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", [v for v in FUSED_BACKENDS if v not in basis]))
    contenders = noise.extreme(basis, GPU_FLOOR, lowest=True)
    measured = ctx.t(
        "C15.measured",
        fastest=ctx.who(contenders),
        efficient=_num(basis["sdpa_efficient"].median),
        flash=_num(basis["sdpa_flash"].median),
        cudnn=_num(basis["sdpa_cudnn"].median),
        basis=ctx.t("C15.basis.unprofiled" if use_timing else "C15.basis.profiled"),
    )
    detail = []
    if use_timing:
        detail.append(
            ctx.t(
                "C15.detail.profiled",
                efficient=_num(profiled["sdpa_efficient"].median),
                flash=_num(profiled["sdpa_flash"].median),
                cudnn=_num(profiled["sdpa_cudnn"].median),
            )
        )
    holds = _order(contenders, "sdpa_flash")
    if holds is None:
        detail.append(ctx.tie_detail({v: basis[v] for v in contenders}, GPU_FLOOR, "µs"))
    figures = {f"gpu_us {v}": basis[v] for v in FUSED_BACKENDS}
    return ctx.verdict(holds, measured, detail, figures)


def _c16(ctx: _Check) -> Verdict:
    """Ordering: cuDNN has the largest profiled CPU time per call of efficient, flash and cuDNN (the side-by-side
    measurement's median of rounds when the build has one, else the CPU time per profiled step: the median of the
    active steps). Tolerance: each CPU time's band is its 95% confidence interval (over the rounds; the steps' range
    without the side-by-side measurement), at least ±10% of its median (noise.CPU_FLOOR); cuDNN must exceed both
    others beyond their bands, and a cuDNN within the band of the largest is a tie. Reported beside it: the self CPU
    time of aten::scaled_dot_product_attention in the cuDNN run as a share of that run's CPU time (published 26%),
    and whether cuDNN's dispatch cost without the profiler is also the largest by the same rule, i.e. which part of
    the claim survives without the profiler."""
    rs = {v: ctx.results[v] for v in FUSED_BACKENDS}
    costs = {v: ctx.cpu(v) for v in FUSED_BACKENDS}
    cpu = {v: c.profiled if c.profiled is not None else rs[v].summary.cpu_step for v, c in costs.items()}
    if any(f is None for f in cpu.values()):
        return ctx.unmeasurable(ctx.not_recorded("profiled_cpu", [v for v, f in cpu.items() if f is None]))
    figs: dict[str, Figure] = cpu  # type: ignore[assignment]
    contenders = noise.extreme(figs, CPU_FLOOR, lowest=False)
    share = self_share(rs["sdpa_cudnn"].result.steps, "aten::scaled_dot_product_attention")
    basis = "C16.basis.side_by_side" if all(c.interleaved for c in costs.values()) else "C16.basis.steps"
    measured = ctx.t(
        "C16.measured",
        what=ctx.t(basis),
        efficient=_num(figs["sdpa_efficient"].median),
        flash=_num(figs["sdpa_flash"].median),
        cudnn=_num(figs["sdpa_cudnn"].median),
        largest=ctx.who(contenders),
        share="?" if share is None else _num(100 * share, 2),
    )
    with_p = _order(contenders, "sdpa_cudnn")
    detail = []
    if with_p is None:
        detail.append(ctx.tie_detail({v: figs[v] for v in contenders}, CPU_FLOOR, "µs"))
    figures: dict[str, Figure | None] = {f"profiled_cpu_us {v}": figs[v] for v in FUSED_BACKENDS}
    dispatch = {v: c.dispatch for v, c in costs.items()}
    missing = [v for v, d in dispatch.items() if d is None or not _finite(d.median)]
    if missing:
        detail.append(ctx.t("C16.detail.no_dispatch", reason=ctx.not_recorded("dispatch", missing)))
    else:
        d_figs: dict[str, Figure] = dispatch  # type: ignore[assignment]
        figures |= {f"dispatch_us {v}": d_figs[v] for v in FUSED_BACKENDS}
        contenders_d = noise.extreme(d_figs, CPU_FLOOR, lowest=False)
        without_p = _order(contenders_d, "sdpa_cudnn")
        detail.append(
            ctx.t(
                "C16.detail.dispatch",
                what=ctx.t(f"C16.dispatch.{'side_by_side' if all(c.interleaved for c in costs.values()) else 'own'}"),
                efficient=_num(d_figs["sdpa_efficient"].median),
                flash=_num(d_figs["sdpa_flash"].median),
                cudnn=_num(d_figs["sdpa_cudnn"].median),
                largest=ctx.who(contenders_d),
            )
        )
        if with_p is None or without_p is None:
            where = "both" if with_p is None and without_p is None else "with" if with_p is None else "without"
            if without_p is None:
                detail.append(ctx.tie_detail({v: d_figs[v] for v in contenders_d}, CPU_FLOOR, "µs"))
            detail.append(ctx.t("C16.detail.undecided", where=ctx.t(f"C16.where.{where}")))
        else:
            parts = {(True, True): "both", (True, False): "profiled", (False, True): "unprofiled"}.get(
                (with_p, without_p), "neither"
            )
            detail.append(ctx.t("C16.detail.conclusion", parts=ctx.t(f"C16.parts.{parts}")))
    return ctx.verdict(with_p, measured, detail, figures)


def _c17(ctx: _Check) -> Verdict:
    """Two parts, both needed: SDPA's own choice (sdpa_auto) is within 10% of the fastest forced backend by median
    GPU time without the profiler, AND cuDNN's dispatch cost without the profiler exceeds flash's (the CPU-overhead
    premise of the advice; from the side-by-side measurement when the build has one). Tolerance: the choice is
    compared with 1.1 times the fastest forced backend's time, GPU bands at least ±3% (noise.GPU_FLOOR); the
    dispatch costs with CPU bands at least ±10% (noise.CPU_FLOOR). Differs naming the part that fails beyond the
    noise; a tie when no part fails but one is within the noise; unmeasurable when a part cannot be decided and
    the other does not already fail."""
    auto = ctx.results["sdpa_auto"]
    forced = {v: _gpu(ctx.usable(v)) for v in FORCED_BACKENDS if ctx.usable(v) is not None}
    timed: dict[str, Figure] = {v: t for v, t in forced.items() if t is not None}
    auto_fig = _gpu(auto)
    d_cudnn, d_flash = (ctx.cpu(v).dispatch for v in ("sdpa_cudnn", "sdpa_flash"))
    picked = auto.sdpa_variant
    fastest = min(timed, key=lambda v: timed[v].median) if timed else None
    # each part: "ok", "fail", "tie", or None (not measured)
    choice = premise = None
    limit = None
    if auto_fig is not None and fastest is not None:
        limit = timed[fastest].scaled(1 + CHOICE_TOLERANCE)
        choice = {"lower": "ok", "higher": "fail", "tie": "tie"}[noise.compare(auto_fig, limit, GPU_FLOOR)]
    dispatch_ok = d_cudnn is not None and d_flash is not None and _finite(d_cudnn.median) and _finite(d_flash.median)
    if dispatch_ok:
        premise = {"higher": "ok", "lower": "fail", "tie": "tie"}[noise.compare(d_cudnn, d_flash, CPU_FLOOR)]  # type: ignore[arg-type]
    nr = ctx.t("not_recorded")
    measured = ctx.t(
        "C17.measured",
        picked="?" if picked is None else _short(picked),
        auto=nr if auto_fig is None else f"{_num(auto_fig.median / 1e3)} ms",
        percent="?" if limit is None else _num(100 * auto_fig.median / timed[fastest].median),  # type: ignore[union-attr,index]
        fastest="?" if fastest is None else _short(fastest),
        fast="?" if fastest is None else f"{_num(timed[fastest].median / 1e3)} ms",
        cudnn=f"{_num(d_cudnn.median)} µs" if dispatch_ok else nr,  # type: ignore[union-attr]
        flash=f"{_num(d_flash.median)} µs" if dispatch_ok else nr,  # type: ignore[union-attr]
    )
    figures = {
        "gpu_us sdpa_auto": auto_fig,
        "gpu_us 1.1x fastest forced": limit,
        "dispatch_us sdpa_cudnn": d_cudnn,
        "dispatch_us sdpa_flash": d_flash,
    }
    failed = [ctx.t(k) for k, part in (("C17.fail.choice", choice), ("C17.fail.premise", premise)) if part == "fail"]
    if failed:
        detail = ctx.t("C17.detail.fail", parts=ctx.t("C17.detail.and").join(failed))
        return ctx.verdict(False, measured, detail, figures)
    if choice is None or premise is None:
        reasons = []
        if choice is None:
            reasons.append(ctx.not_recorded("gpu_time", ["sdpa_auto"] if auto_fig is None else list(FORCED_BACKENDS)))
        if premise is None:
            missing = [v for v, d in (("sdpa_cudnn", d_cudnn), ("sdpa_flash", d_flash)) if d is None]
            reasons.append(ctx.not_recorded("dispatch", missing or ["sdpa_cudnn", "sdpa_flash"]))
        return ctx.unmeasurable(ctx.t("list.semi").join(reasons), measured)
    if "tie" in (choice, premise):
        detail = []
        if choice == "tie":
            detail.append(ctx.t("C17.tie.choice"))
            limit_name = ctx.t("C17.limit", fastest=_short(fastest))  # type: ignore[arg-type]
            detail.append(ctx.tie_detail({"sdpa_auto": auto_fig, limit_name: limit}, GPU_FLOOR, "ms", 1e-3))  # type: ignore[dict-item]
        if premise == "tie":
            detail.append(ctx.t("C17.tie.premise"))
            detail.append(ctx.tie_detail({"sdpa_cudnn": d_cudnn, "sdpa_flash": d_flash}, CPU_FLOOR, "µs"))  # type: ignore[dict-item]
        return ctx.verdict(None, measured, detail, figures)
    return ctx.verdict(True, measured, ctx.t("C17.detail.ok"), figures)


# --- the workloads: training, decoding, CUDA graphs (C18-C26) -------------------------------------------------------


def _pct(x: float) -> str:
    return _num(100 * x)


def _c18(ctx: _Check) -> Verdict:
    """SDPA's own choice for training (sdpa_auto) is within 10% of the fastest forced backend by median GPU time
    of a training step without the profiler; the backend it ran is named from the backward's kernels."""
    rows = {r.variant: r for r in ctx.build.train_rows() if r.step_ms is not None}
    auto = rows.get("sdpa_auto")
    forced = {v: r for v, r in rows.items() if v in FORCED_BACKENDS}
    if auto is None or not forced:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", ["sdpa_auto", *FORCED_BACKENDS]))
    fastest = min(forced.values(), key=lambda r: r.step_ms)  # type: ignore[arg-type, return-value]
    ratio = auto.step_ms / fastest.step_ms  # type: ignore[operator]
    picked = variants.by_sdpa_family(auto.backend)
    measured = ctx.t("C18.measured", picked="?" if picked is None else _short(picked), auto=_num(auto.step_ms),
                     fastest=_short(fastest.variant), fast=_num(fastest.step_ms), percent=_num(100 * ratio))  # type: ignore[arg-type]  # fmt: skip
    return ctx.verdict(ratio <= 1 + CHOICE_TOLERANCE + 1e-9, measured)


#: C19: the backward's share the FLOP count predicts, and the tolerance around it.
BWD_FWD_FLOPS = 2.5


def _c19(ctx: _Check) -> Verdict:
    """Every fused backend's backward (training step minus forward, median GPU times without the profiler) takes
    2.5 times its forward (the FLOP count: five matrix products against two), within ±20%; the math backend's
    ratio is reported beside them."""
    rows = {r.variant: r for r in ctx.build.train_rows()}
    ratios = {v: rows[v].bwd_over_fwd for v in FUSED_BACKENDS if v in rows}
    missing = [v for v, x in ratios.items() if x is None]
    if missing or not ratios:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", missing or list(FUSED_BACKENDS)))
    off = [v for v, x in ratios.items() if not _within(x, BWD_FWD_FLOPS, RATIO_TOLERANCE)]  # type: ignore[arg-type]
    measured = ctx.t("C19.measured", ratios=ctx.join(f"{_short(v)} {_num(x)}" for v, x in ratios.items()))  # type: ignore[arg-type]
    detail = []
    math_row = rows.get("sdpa_math")
    if math_row is not None and math_row.bwd_over_fwd is not None:
        detail.append(ctx.t("C19.detail.math", ratio=_num(math_row.bwd_over_fwd)))
    if off:
        detail.append(ctx.t("C19.detail.off", variants=ctx.join(_short(v) for v in off)))
    return ctx.verdict(not off, measured, detail)


#: C20: how many times the fused backends' memory the math backend's must reach.
MEMORY_FACTOR = 4.0


def _c20(ctx: _Check) -> Verdict:
    """The math backend's peak extra memory in a training step is at least four times the largest of the fused
    backends'; the memory still allocated after the forward (what autograd saved for the backward) is reported
    beside it."""
    rows = {r.variant: r for r in ctx.build.train_rows()}
    math_row = rows.get("sdpa_math")
    fused = {v: rows[v] for v in FUSED_BACKENDS if v in rows and rows[v].peak_mib is not None}
    if math_row is None or math_row.peak_mib is None or not fused:
        return ctx.unmeasurable(ctx.not_recorded("memory", ["sdpa_math", *FUSED_BACKENDS]))
    largest = max(fused.values(), key=lambda r: r.peak_mib)  # type: ignore[arg-type, return-value]
    factor = math_row.peak_mib / largest.peak_mib if largest.peak_mib else float("inf")  # type: ignore[operator]
    measured = ctx.t("C20.measured", math=_num(math_row.peak_mib), fused=_num(largest.peak_mib),
                     variant=_short(largest.variant), factor=_num(factor))  # type: ignore[arg-type]  # fmt: skip
    detail = ""
    if math_row.saved_mib is not None and largest.saved_mib is not None:
        detail = ctx.t("C20.detail.saved", math=_num(math_row.saved_mib), fused=_num(largest.saved_mib))
    return ctx.verdict(factor >= MEMORY_FACTOR, measured, detail)


def _c21(ctx: _Check) -> Verdict:
    """At every cache length where it ran, SDPA's own choice for decoding is within 10% of the fastest forced
    backend by median GPU time without the profiler; the backends it ran are named and the worst length given."""
    worst = None
    picks = []
    for row in ctx.build.decision_rows("decode"):
        if row.auto is None or row.best_forced is None:
            continue
        ratio = row.auto.band.median / row.best_forced.band.median
        picks.append(row.auto.backend)
        if worst is None or ratio > worst[0]:
            worst = (ratio, row.length, row.best_forced.variant)
    if worst is None:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", ["sdpa_auto", *FORCED_BACKENDS]))
    names = [_short(v) for p in dict.fromkeys(picks) if (v := variants.by_sdpa_family(p)) is not None]
    measured = ctx.t("C21.measured", picked=ctx.join(names), length=worst[1], percent=_num(100 * worst[0]),
                     fastest=_short(worst[2]))  # fmt: skip
    return ctx.verdict(worst[0] <= 1 + CHOICE_TOLERANCE + 1e-9, measured)


def _c22(ctx: _Check) -> Verdict:
    """Every fused SDPA backend (memory-efficient, flash, cuDNN) runs the grouped-query decoding step
    (``enable_gqa=True``) at every cache length measured; a refusal (status ``unsupported``) is quoted in PyTorch's
    words, and a step that failed otherwise leaves the claim unmeasurable."""
    refused: dict[str, str] = {}
    accepted = []
    for row in ctx.build.decode_rows():
        if row.variant not in FUSED_BACKENDS:
            continue
        if row.status == "ok":
            accepted.append(row.variant)
        elif row.status == "unsupported":
            refused.setdefault(row.variant, (row.reason or "").split(" | ")[-1].split(". ")[0])
        elif row.variant not in accepted:  # failed otherwise (out of memory, an error): that answers nothing
            return ctx.unmeasurable(ctx.t("reason.not_run", variant=row.variant, status=row.status,
                                          reason=row.reason or ctx.t("unknown_reason")))  # fmt: skip
    ran = [_short(v) for v in dict.fromkeys(accepted) if v not in refused]
    measured = ctx.t("C22.measured", accepted=ctx.join(ran), refused=ctx.join(_short(v) for v in refused))
    detail = [ctx.t("C22.detail.reason", variant=_short(v), reason=r) for v, r in refused.items()]
    return ctx.verdict(not refused, measured, detail)


#: C23: the share of the read bandwidth the fastest decoding step must reach at the longest cache.
READ_SHARE = 0.80


def _c23(ctx: _Check) -> Verdict:
    """At the longest cache length measured, the fastest variant's decoding step (SDPA's own choice aside: it runs
    one of the others) moves the bytes it cannot avoid (the cache read once) at 80% or more of the read bandwidth
    the build measured on the same GPU."""
    lengths = ctx.build.decode_lengths()
    rows = [r for r in ctx.build.decode_rows()
            if lengths and r.kv_len == lengths[-1] and r.gpu_us is not None and r.variant != "sdpa_auto"]  # fmt: skip
    if not rows:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", list(variants.for_workload("decode"))))
    best = min(rows, key=lambda r: r.gpu_us)  # type: ignore[arg-type, return-value]
    if best.read_fraction is None or best.gbs is None:
        return ctx.unmeasurable(ctx.not_recorded("read_ceiling", [best.variant]))
    measured = ctx.t("C23.measured", variant=_short(best.variant), length=best.kv_len, gbs=_num(best.gbs),
                     percent=_pct(best.read_fraction), ceiling=_num(best.gbs / best.read_fraction))  # fmt: skip
    detail = ctx.t("C23.detail.above") if best.read_fraction > 1 else ""
    return ctx.verdict(best.read_fraction >= READ_SHARE, measured, detail)


def _c24(ctx: _Check) -> Verdict:
    """At the shortest cache length measured, SDPA's own decoding step (sdpa_auto) is launch-bound: the CPU time
    to issue it (dispatch, without the profiler) exceeds its median GPU time."""
    rows = [r for r in ctx.build.decode_rows() if r.variant == "sdpa_auto" and r.gpu_us is not None]
    if not rows or rows[0].dispatch_us is None:
        return ctx.unmeasurable(ctx.not_recorded("dispatch", ["sdpa_auto"]))
    row = min(rows, key=lambda r: r.kv_len)
    measured = ctx.t("C24.measured", length=row.kv_len, dispatch=_num(row.dispatch_us), gpu=_num(row.gpu_us))  # type: ignore[arg-type]
    return ctx.verdict(bool(row.launch_bound), measured)


#: C25: how many times less CPU time a graph replay must take; how much its GPU time may move.
GRAPH_CPU_FACTOR = 3.0
GRAPH_GPU_TOLERANCE = 0.10


def _c25(ctx: _Check) -> Verdict:
    """For every variant captured in a CUDA graph, replaying the decoding step takes at most a third of the eager
    step's CPU time (to the call's return), and its GPU time (pre-filled CUDA events) stays within ±10% of the
    eager step's; the wall time from an idle GPU is reported beside them."""
    rows = ctx.build.graph_rows()
    ok = [r for r in rows if r.status == "ok" and r.eager_cpu_us and r.graph_cpu_us and r.eager_gpu_us]
    if not ok:
        failed = [r for r in rows if r.status != "ok"]
        if failed:
            return ctx.unmeasurable(ctx.t("reason.not_run", variant=failed[0].variant, status=failed[0].status,
                                          reason=failed[0].reason or ctx.t("unknown_reason")))  # fmt: skip
        return ctx.unmeasurable(ctx.not_recorded("graph", list(variants.names(graph=True))))
    items, holds = [], True
    for r in ok:
        cpu_factor = r.eager_cpu_us / r.graph_cpu_us  # type: ignore[operator]
        gpu_change = r.graph_gpu_us / r.eager_gpu_us - 1  # type: ignore[operator]
        holds &= cpu_factor >= GRAPH_CPU_FACTOR and abs(gpu_change) <= GRAPH_GPU_TOLERANCE
        figures = {k: _num(getattr(r, f)) for k, f in (("eager", "eager_cpu_us"), ("graph", "graph_cpu_us"),
                   ("gpu_eager", "eager_gpu_us"), ("gpu_graph", "graph_gpu_us"))}  # fmt: skip
        items.append(ctx.t("C25.item", variant=_short(r.variant), **figures))
    r0 = ok[0]
    detail = ctx.t("C25.detail.wall", variant=_short(r0.variant), length=r0.kv_len, eager=_num(r0.eager_wall_us or 0),
                   graph=_num(r0.graph_wall_us or 0))  # fmt: skip
    return ctx.verdict(holds, ctx.t("list.semi").join(items), detail)


def _c26(ctx: _Check) -> Verdict:
    """At the shortest cache length, where issuing a decoding step is what limits it (C24), forcing the backend SDPA
    picks anyway (its forced variant) costs more CPU time to issue the step than calling SDPA without forcing
    (dispatch, without the profiler), beyond the noise of both (their confidence intervals, ±10 % at least); too
    close to call when the two cannot be told apart, differs when forcing costs less.

    Only the shortest length decides: at long caches the step is GPU-bound, and on the H200 the un-forced call's
    time to return there changed from one process to the next (92 and 174 µs against 65 and 71 µs forced in one
    build, the other way round in the next), which no interval of one build can see. The other lengths are reported
    beside it."""
    rows = [r for r in ctx.build.decision_rows("decode") if r.forcing_cpu_us is not None and r.forcing_cpu]
    if not rows:
        return ctx.unmeasurable(ctx.not_recorded("dispatch", ["sdpa_auto", *FORCED_BACKENDS]))
    extra = [r.forcing_cpu_us for r in rows]
    measured = ctx.t("C26.measured", low=_num(min(extra)), high=_num(max(extra)), n=len(rows))  # type: ignore[type-var]
    shortest = min(rows, key=lambda r: r.length)
    holds = {"higher": True, "lower": False}.get(shortest.forcing_cpu)  # type: ignore[arg-type]
    detail = ctx.t("C26.detail", length=shortest.length, extra=_num(shortest.forcing_cpu_us))  # type: ignore[arg-type]
    return ctx.verdict(holds, measured, detail)


#: The claims, by id, C1 to C26.
CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in (
        Claim("C1", ("naive",), True, _c1, "naive"),
        Claim("C2", ("naive_inplace",), True, _c2, "memcpy", optional=("naive",)),
        Claim("C3", ("sdpa_math",), True, _c3, "math"),
        Claim("C4", ("sdpa_math", "naive_inplace"), True, _c4, "math"),
        Claim("C5", ("sdpa_math", "naive"), True, _c5, "math"),
        Claim("C6", ("sdpa_math",), True, _c6, "math"),
        Claim("C7", ("sdpa_math",), False, _c7, "math"),
        Claim("C8", ("sdpa_efficient",), True, _c8, "backends"),
        Claim("C9", ("sdpa_flash",), True, _c9, "flash"),
        Claim("C10", ("sdpa_flash",), True, _c10, "flash"),
        Claim("C11", ("sdpa_cudnn",), True, _c11, "cudnn"),
        Claim("C12", FUSED_BACKENDS, True, _c12, "cudnn"),
        Claim("C13", ("sdpa_cudnn",), True, _c13, "cudnn", optional=C13_OTHERS),
        Claim("C14", ("sdpa_cudnn",), True, _c14, "cudnn", optional=tuple(variants.VARIANTS)),
        Claim("C15", FUSED_BACKENDS, True, _c15, "flash"),
        Claim("C16", FUSED_BACKENDS, True, _c16, "cudnn"),
        Claim("C17", ("sdpa_auto", "sdpa_flash", "sdpa_cudnn"), True, _c17, "advice", optional=FORCED_BACKENDS),
        Claim("C18", ("sdpa_auto",), True, _c18, "site", workload="train"),
        Claim("C19", FUSED_BACKENDS, True, _c19, "site", workload="train"),
        Claim("C20", ("sdpa_math",), True, _c20, "site", workload="train"),
        Claim("C21", ("sdpa_auto",), True, _c21, "site", workload="decode"),
        Claim("C22", FUSED_BACKENDS, True, _c22, "site", workload="decode"),
        Claim("C23", (), True, _c23, "site", workload="decode"),
        Claim("C24", ("sdpa_auto",), True, _c24, "site", workload="decode"),
        Claim("C25", (), True, _c25, "site", workload="decode"),
        Claim("C26", ("sdpa_auto",), True, _c26, "site", workload="decode"),
    )
}

#: The claims about the article's workload (prefill), and about the others.
ARTICLE_CLAIMS: tuple[str, ...] = tuple(c.id for c in CLAIMS.values() if c.workload == "prefill")
WORKLOAD_CLAIMS: tuple[str, ...] = tuple(c.id for c in CLAIMS.values() if c.workload != "prefill")


def get(claim_id: str) -> Claim:
    """The claim ``claim_id`` (``"C7"``; case-insensitive).

    Raises:
        KeyError: for an unknown id, listing the known ones.
    """
    try:
        return CLAIMS[claim_id.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown claim {claim_id!r}; choose one of: {', '.join(CLAIMS)}") from None


def check(
    claim_id: str,
    results: Mapping[str, Analysis],
    language: str | None = None,
    cpu: CpuCosts | None = None,
    build: Build | None = None,
) -> Verdict:
    """Check one claim; see :meth:`Claim.check`."""
    return get(claim_id).check(results, language, cpu, build)


def check_all(
    results: Mapping[str, Analysis],
    language: str | None = None,
    cpu: CpuCosts | None = None,
    build: Build | None = None,
) -> list[Verdict]:
    """Check every claim, C1 to C26."""
    return [c.check(results, language, cpu, build) for c in CLAIMS.values()]


def by_variant(analyses: Iterable[Analysis]) -> dict[str, Analysis]:
    """``{variant: analysis}``; for a variant given twice, a result that ran wins over one that did not, then the
    first."""
    out: dict[str, Analysis] = {}
    for a in analyses:
        if a.variant not in out or (a.result.ok and not out[a.variant].result.ok):
            out[a.variant] = a
    return out


# --- context parallelism (C30 and up): claims about the parallel run file, not about variant results ---------------
#
# These claims are the guide's own (no article published them); each is checked against the context-parallel run of
# this build (:mod:`attnprof.records.parallel`) by the rule in its function's docstring. Words: ``C3x.*`` and
# ``par.*`` keys of :mod:`attnprof.words.parallel`.

#: C30: the least scaling efficiency that holds (75%: 1.5 times one GPU on two).
CP_EFFICIENCY = 0.75
#: C31: the largest share of a step in NCCL kernels that holds.
CP_COMM_SHARE = 0.10
#: C32: the least share of NCCL time overlapped by computation that holds (more than this).
CP_OVERLAP = 0.5
#: C33: the least load balance (least over most attention time of a rank) that holds.
CP_BALANCE = 0.95


class _ParallelCheck:
    """What a context-parallel claim's rule works with: the run, the language, and the verdict short-hands."""

    def __init__(self, claim: ParallelClaim, run: ParallelRun, lang: str) -> None:
        self.claim, self.run, self.lang = claim, run, lang

    def t(self, key: str, **fields: object) -> str:
        return words.text(key, self.lang, **fields)

    def method(self, method: str) -> str:
        return self.t(f"par.method.{method}")

    def percent(self, fraction: float) -> str:
        return f"{_num(100 * fraction)}%"

    def verdict(self, holds: bool, measured: str, detail: str = "") -> Verdict:
        return Verdict(self.claim.id, "holds" if holds else "differs", measured, detail)

    def unmeasurable(self, reason: str) -> Verdict:
        return Verdict(self.claim.id, "unmeasurable", reason=reason)

    def traced(self) -> list[ParallelCase]:
        """The cases that ran with every rank's trace read."""
        return [c for c in self.run.ran() if c.ranks and len(c.traces()) == len(c.ranks)]

    def longest(self) -> dict[str, ParallelCase]:
        """Per rotation method, the traced case at the longest sequence length."""
        out: dict[str, ParallelCase] = {}
        for c in self.traced():
            if c.method not in out or c.seq > out[c.method].seq:
                out[c.method] = c
        return out


ParallelRule = Callable[[_ParallelCheck], Verdict]


@dataclass(frozen=True)
class ParallelClaim:
    """One claim about context parallelism and the rule that checks it (see :class:`Claim`)."""

    id: str
    rule: ParallelRule

    def statement(self, language: str | None = None) -> str:
        """The claim, in ``language``."""
        return words.text(f"{self.id}.statement", language)

    @property
    def rule_text(self) -> str:
        return " ".join((self.rule.__doc__ or "").strip().split("\n\n")[0].split())

    def check(self, run: ParallelRun | None, language: str | None = None) -> Verdict:
        """Check the claim against ``run``; unmeasurable when there is none, it did not run, or no case ran."""
        ctx = _ParallelCheck(self, run, words.language(language))  # type: ignore[arg-type]
        if run is None:
            return ctx.unmeasurable(ctx.t("par.reason.no_case"))
        if not run.ok:
            status = words.text_or(f"status.{run.status}", run.status, ctx.lang)
            return ctx.unmeasurable(ctx.t("par.reason.not_run", status=status, reason=run.reason or ""))
        if not ctx.traced():
            return ctx.unmeasurable(ctx.t("par.reason.no_case"))
        return self.rule(ctx)


def _c30(ctx: _ParallelCheck) -> Verdict:
    """Scaling: for every rotation method, at the longest sequence length that ran, the speed-up over one GPU divided
    by the number of GPUs is at least 0.75 (a speed-up of 1.5 on two GPUs)."""
    cases = ctx.longest()
    seq = max(c.seq for c in cases.values())
    items = [
        ctx.t("C30.item", method=ctx.method(m), speedup=ctx.t("par.times", value=_num(c.speedup or 0)),
              efficiency=ctx.percent(c.efficiency or 0))
        for m, c in cases.items()
    ]  # fmt: skip
    holds = all((c.efficiency or 0) >= CP_EFFICIENCY for c in cases.values())
    return ctx.verdict(holds, ctx.t("C30.measured", seq=seq, items=ctx.t("list.sep").join(items)))


def _c31(ctx: _ParallelCheck) -> Verdict:
    """Communication share: for every rotation method, at the longest sequence length that ran, NCCL kernels take
    less than 10% of a step's GPU span on every rank (the rank where they take most decides); how the share changed
    from the shortest sequence is reported beside it."""
    cases = ctx.longest()
    seq = max(c.seq for c in cases.values())
    items = [ctx.t("C31.item", method=ctx.method(m), share=ctx.percent(c.comm_share or 0)) for m, c in cases.items()]
    holds = all(c.comm_share is not None and c.comm_share < CP_COMM_SHARE for c in cases.values())
    method = next(iter(cases))
    same = sorted((c for c in ctx.traced() if c.method == method), key=lambda c: c.seq)
    detail = ""
    if len(same) > 1 and same[0].comm_share is not None and same[-1].comm_share is not None:
        detail = ctx.t("C31.detail.trend", first=ctx.percent(same[0].comm_share),
                       last=ctx.percent(same[-1].comm_share), method=ctx.method(method))  # fmt: skip
    return ctx.verdict(holds, ctx.t("C31.measured", seq=seq, items=ctx.t("list.sep").join(items)), detail)


def _c32(ctx: _ParallelCheck) -> Verdict:
    """Overlap: for every rotation method, at the longest sequence length that ran, more than half of the NCCL kernel
    time overlaps computation (attention or other kernels on another stream) on every rank (the rank where it
    overlaps least decides); the least overlapped case of all is reported beside it."""
    cases = {m: c for m, c in ctx.longest().items() if c.overlap is not None}
    every = [c for c in ctx.traced() if c.overlap is not None]
    if not cases:
        return ctx.unmeasurable(ctx.t("par.reason.no_case"))
    seq = max(c.seq for c in cases.values())
    items = [ctx.t("C31.item", method=ctx.method(m), share=ctx.percent(c.overlap)) for m, c in cases.items()]  # type: ignore[arg-type]
    worst = min(every, key=lambda c: c.overlap)  # type: ignore[arg-type, return-value]
    detail = ctx.t("C32.detail.least", overlap=ctx.percent(worst.overlap), method=ctx.method(worst.method),
                   seq=worst.seq)  # type: ignore[arg-type]  # fmt: skip
    holds = all(c.overlap > CP_OVERLAP for c in cases.values())  # type: ignore[operator]
    return ctx.verdict(holds, ctx.t("C32.measured", seq=seq, items=ctx.t("list.sep").join(items)), detail)


def _c33(ctx: _ParallelCheck) -> Verdict:
    """Balance: in every case that ran, the least attention-kernel time of a rank is at least 95% of the most (the
    median over the profiled steps of each rank); the least even case is reported."""
    cases = [c for c in ctx.traced() if c.balance is not None]
    if not cases:
        return ctx.unmeasurable(ctx.t("par.reason.no_case"))
    worst = min(cases, key=lambda c: c.balance)  # type: ignore[arg-type, return-value]
    measured = ctx.t("C33.measured", balance=_num(worst.balance, 3), method=ctx.method(worst.method),
                     seq=worst.seq)  # type: ignore[arg-type]  # fmt: skip
    return ctx.verdict(worst.balance >= CP_BALANCE, measured)  # type: ignore[operator]


def _c34(ctx: _ParallelCheck) -> Verdict:
    """Memory: in every case that ran, every rank's shard of q, k and v plus its peak extra memory during the ring
    call is less than q, k and v of the whole sequence plus the peak extra memory of the one-GPU call; the largest
    ratio is reported."""
    ratios = [(r, c) for c in ctx.run.ran() if (r := memory_ratio(ctx.run, c)) is not None]
    if not ratios:
        return ctx.unmeasurable(ctx.t("par.reason.no_memory"))
    (ratio, rank_mib, single_mib), case = max(ratios, key=lambda x: x[0][0])
    measured = ctx.t("C34.measured", ratio=ctx.t("par.times", value=_num(ratio)), method=ctx.method(case.method),
                     seq=case.seq, rank=_num(rank_mib), single=_num(single_mib))  # fmt: skip
    return ctx.verdict(ratio < 1, measured, ctx.t("C34.detail"))


def memory_ratio(run: ParallelRun, case: ParallelCase) -> tuple[float, float, float] | None:
    """``(per GPU over one GPU, per-GPU MiB, one-GPU MiB)``: the inputs each holds plus the peak extra memory of its
    call (the largest rank's), or ``None`` where peak memory was not recorded."""
    cfg = run.config
    ranks_ = [r for r in case.ranks if r.peak_extra_bytes is not None and r.local_seq]
    if case.single_peak_extra_bytes is None or not ranks_ or len(ranks_) != len(case.ranks):
        return None
    per_token = 3 * cfg.batch * cfg.heads * cfg.head_dim * element_bytes(cfg.dtype)  # q, k and v
    single = per_token * case.seq + case.single_peak_extra_bytes
    rank = max(per_token * r.local_seq + r.peak_extra_bytes for r in ranks_)  # type: ignore[operator]
    return rank / single, rank / 2**20, single / 2**20


#: The context-parallelism claims, by id.
PARALLEL_CLAIMS: dict[str, ParallelClaim] = {
    c.id: c
    for c in (
        ParallelClaim("C30", _c30),
        ParallelClaim("C31", _c31),
        ParallelClaim("C32", _c32),
        ParallelClaim("C33", _c33),
        ParallelClaim("C34", _c34),
    )
}


def check_parallel(run: ParallelRun | None, language: str | None = None) -> list[Verdict]:
    """Check every context-parallelism claim against ``run``."""
    return [c.check(run, language) for c in PARALLEL_CLAIMS.values()]
