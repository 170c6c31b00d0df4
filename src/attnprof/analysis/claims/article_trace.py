"""The article's claims about what a profiled step contains (C1–C14): how many kernels, Memcpy and ops, what the
kernels' names decode to, how they are launched, and their occupancy.

These are facts of one profiled step, checked against the analysed results of the article's workload (prefill);
the orderings of measured times are in :mod:`.article_timing`. The rules, one per claim (each rule function states
its own):

* Counts of a few items must match exactly: C1 and C2 count every GPU activity of a step (kernels, Memcpy and
  Memset), because the article counts its Memcpy among the kernels; C8, C9 and C11 count kernels only and also
  require the decoded kind of the one kernel; C12 counts ``aten::transpose`` ops.
* "About N" (C3, the ~13% of C10) holds within ±10% of N.
* C4 ("several times slower") holds when math's profiled time per step is at least twice naive_inplace's, beyond
  the noise; the article's 3.7× is the A100's factor and is reported beside the measured one.
* Naming claims compare what the names decode to (:func:`attnprof.analysis.kernels.decode`), not the names: C5 holds
  when every gemm of the math backend is FP32 off the tensor cores and every gemm of naive attention is a bf16
  tensor-core gemm; C6 and C7 need the named ops (and, on a GPU, kernels) in every step.
* C13 holds when the cuDNN kernel is launched through ``cuLaunchKernelEx`` and every kernel of naive,
  naive_inplace, math, efficient and flash through ``cudaLaunchKernel``; the exceptions are named.
* C14 holds when the cuDNN kernel reports 0% and the article's explanation (a driver-API launch reports 0%)
  has no counterexample among all kernels of the build (:func:`attnprof.analysis.zero_occupancy.check_hypotheses`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attnprof import noise, variants, words
from attnprof.analysis import kernels, zero_occupancy
from attnprof.analysis.claims.framework import (
    ABOUT_TOLERANCE,
    FUSED_BACKENDS,
    Check,
    Claim,
    Rule,
    Verdict,
    finite,
    within,
)
from attnprof.analysis.summary import min_op_count
from attnprof.records.results import StepTrace
from attnprof.words.fmt import count as _count
from attnprof.words.fmt import number as _num


def _group(items: Iterable[tuple[str, str, str]], lang: str) -> list[tuple[str, str, str]]:
    """``(kernel, variant, extra)`` -> one ``(kernel, "variant, variant", extra)`` per kernel and extra."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for kernel, variant, extra in items:
        vs = grouped.setdefault((kernel, extra), [])
        if variant not in vs:
            vs.append(variant)
    return [(k, words.text("list.sep", lang).join(vs), e) for (k, e), vs in grouped.items()]


def _breakdown(ctx: Check, counts: Mapping[str, float]) -> str:
    return ctx.join(
        ctx.t("breakdown.item", n=_count(counts[k]), kind=ctx.t(f"kind.{k}"))
        for k in ("kernel", "memcpy", "memset")
        if counts[k] or k == "kernel"
    )


def _diffs(ctx: Check, counts: Mapping[str, float], published: Mapping[str, int]) -> list[str]:
    out = []
    for k in ("kernel", "memcpy", "memset"):
        d = counts[k] - published[k]
        if d:
            key = "diff.more" if d > 0 else "diff.fewer"
            out.append(ctx.t(key, n=_count(abs(d)), kind=ctx.t(f"kind.{k}")))
    return out


def _naive_six_activities_one_memcpy(ctx: Check) -> Verdict:
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


def _inplace_five_activities_no_memcpy(ctx: Check) -> Verdict:
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


def _math_about_twenty_kernels(ctx: Check) -> Verdict:
    """About 20: the math backend's kernels per step are within ±10% of 20."""
    n = ctx.results["sdpa_math"].kinds["kernel"]
    return ctx.verdict(within(n, 20, ABOUT_TOLERANCE), ctx.t("C3.measured", n=_count(n)))


#: C4: "several times slower" holds from this factor on.
SEVERAL_TIMES = 2.0


def _math_over_inplace_time_ratio(ctx: Check) -> Verdict:
    """Several times slower: math's profiled GPU time per step (the median of the active steps, with their range)
    is at least twice naive_inplace's, beyond the noise (bands at least ±3 %, noise.GPU_FLOOR); too close to call
    when the bands meet twice naive_inplace's time. The article's 3.7× is the A100's factor: how many times slower
    depends on the GPU, because math multiplies in fp32 off the tensor cores and the naive code in bf16 on them
    (C5), so the finding, not the A100's factor, is what is checked; the factor is reported beside the published
    one, and the ratio without the profiler beside it."""
    math_r, inplace = ctx.results["sdpa_math"].result, ctx.results["naive_inplace"].result
    a_steps, b_steps = [s.gpu_time_us for s in math_r.steps], [s.gpu_time_us for s in inplace.steps]
    if not b_steps or noise.span(b_steps).median <= 0 or not a_steps:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="naive_inplace", family="GPU"))
    a, b = noise.span(a_steps), noise.span(b_steps)
    measured = ctx.t("C4.measured", ratio=words.times(a.median / b.median, ctx.lang), math=_num(a.median),
                     inplace=_num(b.median))  # fmt: skip
    limit = b.scaled(SEVERAL_TIMES)
    outcome = noise.compare(a, limit, noise.GPU_FLOOR)
    detail = [ctx.t("C4.detail.rule")]
    if outcome == "tie":
        detail.append(ctx.tie_detail({"sdpa_math": a, ctx.t("C4.limit"): limit}, noise.GPU_FLOOR, "µs"))
    ta, tb = math_r.timing, inplace.timing
    if ta and tb and finite(ta.gpu_ms_median) and finite(tb.gpu_ms_median) and tb.gpu_ms_median > 0:
        detail.append(
            ctx.t(
                "C4.detail.unprofiled",
                ratio=words.times(ta.gpu_ms_median / tb.gpu_ms_median, ctx.lang),
                math=_num(ta.gpu_ms_median),
                inplace=_num(tb.gpu_ms_median),
            )
        )
    holds = {"higher": True, "lower": False}.get(outcome)
    return ctx.verdict(holds, measured, detail, {"gpu_us sdpa_math": a, "gpu_us 2x naive_inplace": limit})


def _gemm_precision_by_backend(ctx: Check) -> Verdict:
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


def _math_rebuilds_the_mask(ctx: Check) -> Verdict:
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


def _math_calls_safe_softmax(ctx: Check) -> Verdict:
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
    def rule(ctx: Check) -> Verdict:
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


def _breakdown_only(ctx: Check, counts: Mapping[str, float]) -> str:
    return ctx.join(ctx.t("breakdown.item", n=_count(n), kind=ctx.t(f"kind.{k}")) for k, n in counts.items())


def _efficient_is_one_kernel(ctx: Check) -> Verdict:
    """Exact count and kind: sdpa_efficient launches exactly 1 kernel per step and it decodes to the
    memory-efficient family; whether its name contains fmha_cutlassF_bf16_aligned_64x64_rf_sm80 is reported."""
    return _fused("sdpa_efficient", "mem_efficient", "fmha_cutlassF_bf16_aligned_64x64_rf_sm80")(ctx)


def _flash_is_one_kernel(ctx: Check) -> Verdict:
    """Exact count and kind: sdpa_flash launches exactly 1 kernel per step and it decodes to the flash family;
    whether its name contains pytorch_flash is reported."""
    return _fused("sdpa_flash", "flash", "pytorch_flash")(ctx)


def _cudnn_is_one_kernel(ctx: Check) -> Verdict:
    """Exact count and kind: sdpa_cudnn launches exactly 1 kernel per step and it decodes to the cuDNN family; the
    generated name is reported next to the published sm80 one."""
    return _fused("sdpa_cudnn", "cudnn", "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6")(ctx)


def _flash_occupancy_about_13_percent(ctx: Check) -> Verdict:
    """About 13%: the flash kernel's reported occupancy is within ±10% of 13%, and the theoretical occupancy gives
    the article's arithmetic (2 blocks per SM, 8 of 64 warps)."""
    row = ctx.results["sdpa_flash"].main_kernel("flash")
    if row is None or row.reported_occupancy is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_flash", family="flash"))
    o = row.theoretical
    if o is None:
        measured = ctx.t("C10.measured", reported=_num(row.reported_occupancy, 2), theoretical="?", blocks="?",
                         warps="?", active="?", max="?", limiter="?")  # fmt: skip
        return ctx.verdict(within(row.reported_occupancy, 13, ABOUT_TOLERANCE), measured)
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
    return ctx.verdict(within(row.reported_occupancy, 13, ABOUT_TOLERANCE) and arith, measured, detail)


def _transposes_per_backend(ctx: Check) -> Verdict:
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


def _launch_apis_by_backend(ctx: Check) -> Verdict:
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


def _cudnn_zero_occupancy_explained(ctx: Check) -> Verdict:
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
    )
    # two parts, each said: the 0% itself, and the article's explanation of it
    zero = cudnn.reported_occupancy == 0
    if zero and h1.counterexamples:
        part = ctx.t("C14.part.explanation_fails", counter=counter_text)
    elif zero:
        part = ctx.t("C14.part.both_hold")
    else:
        part = ctx.t("C14.part.reported_fails", reported=_num(cudnn.reported_occupancy, 2),
                     counter=counter_text or ctx.t("none"))  # fmt: skip
    best = zero_occupancy.supported(tests)
    if len(best) == 1:
        detail = ctx.t("C14.detail.best", best=best[0].hypothesis.key)
    elif best:
        detail = ctx.t("C14.detail.tie", best=ctx.join(t.hypothesis.key for t in best))
    else:
        detail = ctx.t("C14.detail.no_best")
    return ctx.verdict(zero and not h1.counterexamples, measured, [part, detail])


def _profiled_gpu(steps: Iterable[StepTrace]) -> float:
    """Profiled GPU time per step: the median over the active steps of the summed GPU activity, µs (0 without
    steps)."""
    times = [s.gpu_time_us for s in steps]
    return noise.span(times).median if times else 0.0


#: The claims of this family, in the article's order.
CLAIMS: tuple[Claim, ...] = (
    Claim("C1", ("naive",), True, _naive_six_activities_one_memcpy, "naive"),
    Claim("C2", ("naive_inplace",), True, _inplace_five_activities_no_memcpy, "memcpy", optional=("naive",)),
    Claim("C3", ("sdpa_math",), True, _math_about_twenty_kernels, "math"),
    Claim("C4", ("sdpa_math", "naive_inplace"), True, _math_over_inplace_time_ratio, "math"),
    Claim("C5", ("sdpa_math", "naive"), True, _gemm_precision_by_backend, "math"),
    Claim("C6", ("sdpa_math",), True, _math_rebuilds_the_mask, "math"),
    Claim("C7", ("sdpa_math",), False, _math_calls_safe_softmax, "math"),
    Claim("C8", ("sdpa_efficient",), True, _efficient_is_one_kernel, "backends"),
    Claim("C9", ("sdpa_flash",), True, _flash_is_one_kernel, "flash"),
    Claim("C10", ("sdpa_flash",), True, _flash_occupancy_about_13_percent, "flash"),
    Claim("C11", ("sdpa_cudnn",), True, _cudnn_is_one_kernel, "cudnn"),
    Claim("C12", FUSED_BACKENDS, True, _transposes_per_backend, "cudnn"),
    Claim("C13", ("sdpa_cudnn",), True, _launch_apis_by_backend, "cudnn", optional=C13_OTHERS),
    Claim("C14", ("sdpa_cudnn",), True, _cudnn_zero_occupancy_explained, "cudnn", optional=tuple(variants.VARIANTS)),
)
