"""The article's claims that order measured times (C15–C17): which fused backend is fastest, which costs the CPU
most, and the advice to let SDPA choose.

Orderings of measured figures go through the one comparison rule, :func:`attnprof.noise.compare`: each figure has
a band, its 95% confidence interval widened to at least ±3% of its median for GPU times
(:data:`attnprof.noise.GPU_FLOOR`) and ±10% for CPU times (:data:`attnprof.noise.CPU_FLOOR`); an order holds or
differs only when the bands do not overlap and the medians differ by the minimum effect size
(:data:`attnprof.noise.GPU_MIN_EFFECT`, :data:`attnprof.noise.CPU_MIN_EFFECT`), and is a ``tie`` otherwise. The
rules (each rule function states its own):

* C15 holds when flash is the fastest of efficient, flash and cuDNN by median GPU time without the profiler
  (by profiled GPU time when that was not measured), beyond the noise.
* C16 holds when cuDNN has the largest profiled CPU time per call of the three, beyond the noise; the self-time
  share of ``aten::scaled_dot_product_attention`` and whether the ordering survives without the profiler
  (dispatch cost) are reported beside it.
* C17 (the advice) holds when SDPA's own choice is within 10% of the fastest forced backend AND cuDNN's dispatch
  cost exceeds flash's (the CPU-overhead premise), both beyond the noise; it differs when a part fails, naming it,
  and is a tie when no part fails but one is within the noise.
"""

from __future__ import annotations

from attnprof import noise
from attnprof.analysis.claims.framework import (
    CHOICE_TOLERANCE,
    FORCED_BACKENDS,
    FUSED_BACKENDS,
    Check,
    Claim,
    Verdict,
    finite,
    short,
)
from attnprof.analysis.summary import Analysis, self_share
from attnprof.noise import CPU_FLOOR, CPU_MIN_EFFECT, GPU_FLOOR, GPU_MIN_EFFECT, Figure
from attnprof.words.fmt import number as _num


def _gpu(a: Analysis | None) -> Figure | None:
    """The median GPU time without the profiler with its interval, in µs; ``None`` when not measured."""
    t = a.result.timing if a is not None else None
    if t is None or not finite(t.gpu_ms_median):
        return None
    return t.gpu.scaled(1e3)


def _order(contenders: tuple[str, ...], expected: str) -> bool | None:
    """An ordering's verdict: ``expected`` alone in front (True), ``expected`` beaten beyond the noise (False), or
    ``expected`` among several within the noise of the front (None: too close to call)."""
    if contenders == (expected,):
        return True
    return None if expected in contenders else False


def _flash_is_fastest(ctx: Check) -> Verdict:
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
    contenders = noise.extreme(basis, GPU_FLOOR, lowest=True, min_effect=GPU_MIN_EFFECT)
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


def _cudnn_costs_most_cpu(ctx: Check) -> Verdict:
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
    contenders = noise.extreme(figs, CPU_FLOOR, lowest=False, min_effect=CPU_MIN_EFFECT)
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
    missing = [v for v, d in dispatch.items() if d is None or not finite(d.median)]
    if missing:
        detail.append(ctx.t("C16.detail.no_dispatch", reason=ctx.not_recorded("dispatch", missing)))
    else:
        d_figs: dict[str, Figure] = dispatch  # type: ignore[assignment]
        figures |= {f"dispatch_us {v}": d_figs[v] for v in FUSED_BACKENDS}
        contenders_d = noise.extreme(d_figs, CPU_FLOOR, lowest=False, min_effect=CPU_MIN_EFFECT)
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


def _auto_choice_advice(ctx: Check) -> Verdict:
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
    dispatch_ok = d_cudnn is not None and d_flash is not None and finite(d_cudnn.median) and finite(d_flash.median)
    if dispatch_ok:
        outcome = noise.compare(d_cudnn, d_flash, CPU_FLOOR, min_effect=CPU_MIN_EFFECT)  # type: ignore[arg-type]
        premise = {"higher": "ok", "lower": "fail", "tie": "tie"}[outcome]
    nr = ctx.t("not_recorded")
    measured = ctx.t(
        "C17.measured",
        picked="?" if picked is None else short(picked),
        auto=nr if auto_fig is None else f"{_num(auto_fig.median / 1e3)} ms",
        percent="?" if limit is None else _num(100 * auto_fig.median / timed[fastest].median),  # type: ignore[union-attr,index]
        fastest="?" if fastest is None else short(fastest),
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
            limit_name = ctx.t("C17.limit", fastest=short(fastest))  # type: ignore[arg-type]
            detail.append(ctx.tie_detail({"sdpa_auto": auto_fig, limit_name: limit}, GPU_FLOOR, "ms", 1e-3))  # type: ignore[dict-item]
        if premise == "tie":
            detail.append(ctx.t("C17.tie.premise"))
            detail.append(ctx.tie_detail({"sdpa_cudnn": d_cudnn, "sdpa_flash": d_flash}, CPU_FLOOR, "µs"))  # type: ignore[dict-item]
        return ctx.verdict(None, measured, detail, figures)
    return ctx.verdict(True, measured, ctx.t("C17.detail.ok"), figures)


#: The claims of this family, in the article's order.
CLAIMS: tuple[Claim, ...] = (
    Claim("C15", FUSED_BACKENDS, True, _flash_is_fastest, "flash"),
    Claim("C16", FUSED_BACKENDS, True, _cudnn_costs_most_cpu, "cudnn"),
    Claim("C17", ("sdpa_auto", "sdpa_flash", "sdpa_cudnn"), True, _auto_choice_advice, "advice",
          optional=FORCED_BACKENDS),
)  # fmt: skip
