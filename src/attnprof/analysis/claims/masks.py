"""This site's own claims about masks beyond causal (C50–C53), checked against the mask run of this build
(:mod:`attnprof.records.masks`): guesses a reader brings to "FlexAttention is for masks", each tested on the GPU
that built the site.

Orderings go through the one comparison rule (:func:`attnprof.noise.compare` with the GPU's floor and minimum
effect, as :mod:`attnprof.analysis.masks` applies it): overlapping bands are a tie. Every claim needs a run
measured on CUDA. Words: ``C5x.*`` and ``mask.claim.*`` keys of :mod:`attnprof.words.masks`.
"""

from __future__ import annotations

from attnprof import noise, workloads
from attnprof.analysis import masks as view
from attnprof.analysis.claims.framework import Check, Claim, Verdict
from attnprof.records.masks import MaskCase, MaskRun


def _run(ctx: Check) -> MaskRun:
    run = ctx.masks
    assert run is not None  # Claim.check hands over a run
    return run


def _forward(run: MaskRun) -> list[view.Verdict]:
    """The verdicts of the forward step (a workload without a backward)."""
    return [v for v in view.verdicts(run) if not workloads.get(v.workload).backward]


def _where(ctx: Check, v: view.Verdict) -> str:
    size = f"w{v.window}" if v.window else (f"p{v.prefix}" if v.prefix else "")
    return ctx.t("mask.claim.where", mask=ctx.t(f"mask.name.{v.mask}"), size=size, seq=v.seq)


def _ms(case: MaskCase | None) -> str:
    t = None if case is None else case.time_ms
    return "—" if t is None else f"{t.median:.3g} ms [{t.lo:.3g}, {t.hi:.3g}]"


def _outcome_holds(outcome: str, winner: str) -> bool | None:
    return None if outcome == "tie" else outcome == winner


def _short_window(ctx: Check) -> Verdict:
    """Under the shortest sliding window at the longest length measured, FlexAttention's forward is faster than the
    fastest dense-mask SDPA that ran: the two medians compared by the noise rule (overlapping bands: a tie)."""
    found = [v for v in _forward(_run(ctx)) if v.mask == "sliding_window" and v.window]
    if not found:
        return ctx.unmeasurable(ctx.t("mask.reason.no_case", what=ctx.t("mask.name.sliding_window")))
    v = max(found, key=lambda x: (x.seq, -x.window))
    if v.outcome not in ("flex_faster", "dense_faster", "tie"):
        outcome = ctx.t(f"mask.outcome.{v.outcome}")
        return ctx.unmeasurable(ctx.t("mask.reason.one_side", where=_where(ctx, v), outcome=outcome))
    measured = ctx.t("mask.claim.pair", where=_where(ctx, v), flex=_ms(v.flex), dense=_ms(v.dense),
                     method=ctx.t(f"mask.method.{v.dense.method}") if v.dense else "")  # fmt: skip
    figures = {"flex": v.flex.time_ms if v.flex else None, "dense": v.dense.time_ms if v.dense else None}
    return ctx.verdict(_outcome_holds(v.outcome, "flex_faster"), measured, figures=figures)


def _flash_refuses(ctx: Check) -> Verdict:
    """SDPA's flash backend takes no dense mask: forced, it runs under none of the masks (every flash case with a
    dense mask ended without running)."""
    flash = [c for c in _run(ctx).cases if workloads.get_method(c.method).backend == "FLASH_ATTENTION"]
    if not flash:
        return ctx.unmeasurable(ctx.t("mask.reason.no_case", what=ctx.t("mask.method.sdpa_flash")))
    ran = [c for c in flash if c.status == "ok"]
    refused = next((c for c in flash if c.status != "ok" and c.reason), None)
    measured = ctx.t("mask.claim.refused", refused=len(flash) - len(ran), total=len(flash))
    detail = ctx.t("elig.claim.reason", backend="flash", reason=refused.reason) if refused and refused.reason else ""
    return ctx.verdict(not ran, measured, detail)


def _nested_documents(ctx: Check) -> Verdict:
    """For packed documents, nested tensors run the forward faster than FlexAttention: the two medians compared by
    the noise rule, at the longest length measured."""
    found = [v for v in _forward(_run(ctx)) if v.mask == "documents"]
    v = max(found, key=lambda x: x.seq, default=None)
    if v is None or v.nested is None or v.nested_outcome not in ("flex_faster", "dense_faster", "tie"):
        return ctx.unmeasurable(ctx.t("mask.reason.no_case", what=ctx.t("mask.method.nested")))
    measured = ctx.t("mask.claim.nested", where=_where(ctx, v), flex=_ms(v.flex), nested=_ms(v.nested))
    figures = {"flex": v.flex.time_ms if v.flex else None, "nested": v.nested.time_ms}
    return ctx.verdict(_outcome_holds(v.nested_outcome, "dense_faster"), measured, figures=figures)


def _build_cost(ctx: Check) -> Verdict:
    """Building a block mask takes longer than one forward call of the FlexAttention kernel it serves, under the
    shortest sliding window at the longest length measured: the build's time against the kernel's, by the noise
    rule."""
    run = _run(ctx)
    found = [v for v in _forward(run) if v.mask == "sliding_window" and v.window and v.flex and v.flex.time_ms]
    v = max(found, key=lambda x: (x.seq, -x.window), default=None)
    build = None if v is None else view.build_for(run, v)
    if v is None or build is None or build.time_ms is None or v.flex is None or v.flex.time_ms is None:
        return ctx.unmeasurable(ctx.t("mask.reason.no_case", what=ctx.t("mask.name.sliding_window")))
    floor, effect = view.floors(run.device)
    said = noise.compare(build.time_ms, v.flex.time_ms, floor, min_effect=effect)
    measured = ctx.t("mask.claim.build", where=_where(ctx, v), build=_ms_fig(build.time_ms), flex=_ms(v.flex))
    holds = None if said == "tie" else said == "higher"
    return ctx.verdict(holds, measured, figures={"build": build.time_ms, "flex": v.flex.time_ms})


def _ms_fig(t: noise.Figure) -> str:
    return f"{t.median:.3g} ms [{t.lo:.3g}, {t.hi:.3g}]"


CLAIMS: tuple[Claim, ...] = (
    Claim("C50", (), True, _short_window, "site", workload="masks"),
    Claim("C51", (), True, _flash_refuses, "site", workload="masks"),
    Claim("C52", (), True, _nested_documents, "site", workload="masks"),
    Claim("C53", (), True, _build_cost, "site", workload="masks"),
)
