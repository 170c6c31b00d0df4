"""This site's own claims about the other workloads (C18–C26): training, decoding against a KV cache, and decoding
replayed from a CUDA graph.

No article published these: they are the guide's guesses, checked the same way as the article's claims, against the
training and decoding results of the build (:class:`attnprof.analysis.workload_rows.Build`). The rules, one per
claim (each rule function states its own):

* C18 and C21: SDPA's own choice is within 10% of the fastest forced backend (training; decoding at every cache
  length), by median GPU time without the profiler, beyond the noise (too close to call when SDPA's band meets 1.1
  times the fastest's).
* C19: every fused backend's backward takes 2.5 times its forward (the FLOP count), within ±20%.
* C20: the math backend's peak memory in a training step is at least four times the largest fused backend's.
* C22: every fused backend runs the grouped-query decoding step at every cache length measured.
* C23: at the longest cache, the fastest backend moves its bytes at 80% or more of the measured read bandwidth.
* C24: at the shortest cache, issuing SDPA's decoding step takes the CPU longer than the GPU takes to run it.
* C25: replaying the decoding step from a CUDA graph cuts the CPU time at least threefold, for every captured
  variant, while its GPU time stays within ±10%.
* C26: forcing the backend SDPA picks anyway costs CPU time on every step: the whole difference between the forced
  call and SDPA's own choice, issued side by side at the shortest decoding cache, is at least 5% of the time SDPA
  takes to issue that step.
"""

from __future__ import annotations

from attnprof import noise, variants
from attnprof.analysis.claims.framework import (
    CHOICE_TOLERANCE,
    FORCED_BACKENDS,
    FUSED_BACKENDS,
    RATIO_TOLERANCE,
    Check,
    Claim,
    Verdict,
    short,
    within,
)
from attnprof.noise import Figure
from attnprof.words.fmt import number as _num


def _pct(x: float) -> str:
    return _num(100 * x)


def _within_choice_tolerance(auto: Figure, fastest: Figure) -> bool | None:
    """SDPA's time against 1.1 times the fastest forced backend's, bands at least ±3 % (noise.GPU_FLOOR): within
    (True), beyond (False), or too close to the limit to say (None)."""
    outcome = noise.compare(auto, fastest.scaled(1 + CHOICE_TOLERANCE), noise.GPU_FLOOR)
    return {"lower": True, "higher": False}.get(outcome)


def _auto_near_fastest_training(ctx: Check) -> Verdict:
    """SDPA's own choice for training (sdpa_auto) is within 10% of the fastest forced backend by median GPU time
    of a training step without the profiler; the backend it ran is named from the backward's kernels. Tolerance:
    SDPA's time is compared with 1.1 times the fastest's, bands at least ±3 % (noise.GPU_FLOOR); too close to call
    when they overlap."""
    rows = {r.variant: r for r in ctx.build.train_rows() if r.step_ms is not None and r.band is not None}
    auto = rows.get("sdpa_auto")
    forced = {v: r for v, r in rows.items() if v in FORCED_BACKENDS}
    if auto is None or not forced:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", ["sdpa_auto", *FORCED_BACKENDS]))
    fastest = min(forced.values(), key=lambda r: r.step_ms)  # type: ignore[arg-type, return-value]
    ratio = auto.step_ms / fastest.step_ms  # type: ignore[operator]
    picked = variants.by_sdpa_family(auto.backend)
    measured = ctx.t("C18.measured", picked="?" if picked is None else short(picked), auto=_num(auto.step_ms),
                     fastest=short(fastest.variant), fast=_num(fastest.step_ms), percent=_num(100 * ratio))  # type: ignore[arg-type]  # fmt: skip
    a, limit = auto.band.figure, fastest.band.figure.scaled(1 + CHOICE_TOLERANCE)  # type: ignore[union-attr]
    holds = _within_choice_tolerance(a, fastest.band.figure)  # type: ignore[union-attr]
    detail = ""
    if holds is None:
        name = ctx.t("C17.limit", fastest=short(fastest.variant))
        detail = ctx.tie_detail({"sdpa_auto": a, name: limit}, noise.GPU_FLOOR, "ms")
    return ctx.verdict(holds, measured, detail, {"gpu_ms sdpa_auto": a, "gpu_ms 1.1x fastest forced": limit})


#: C19: the backward's share the FLOP count predicts, and the tolerance around it.
BWD_FWD_FLOPS = 2.5


def _backward_two_and_a_half_forwards(ctx: Check) -> Verdict:
    """Every fused backend's backward (training step minus forward, median GPU times without the profiler) takes
    2.5 times its forward (the FLOP count: five matrix products against two), within ±20%; the math backend's
    ratio is reported beside them."""
    rows = {r.variant: r for r in ctx.build.train_rows()}
    ratios = {v: rows[v].bwd_over_fwd for v in FUSED_BACKENDS if v in rows}
    missing = [v for v, x in ratios.items() if x is None]
    if missing or not ratios:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", missing or list(FUSED_BACKENDS)))
    off = [v for v, x in ratios.items() if not within(x, BWD_FWD_FLOPS, RATIO_TOLERANCE)]  # type: ignore[arg-type]
    measured = ctx.t("C19.measured", ratios=ctx.join(f"{short(v)} {_num(x)}" for v, x in ratios.items()))  # type: ignore[arg-type]
    detail = []
    math_row = rows.get("sdpa_math")
    if math_row is not None and math_row.bwd_over_fwd is not None:
        detail.append(ctx.t("C19.detail.math", ratio=_num(math_row.bwd_over_fwd)))
    if off:
        detail.append(ctx.t("C19.detail.off", variants=ctx.join(short(v) for v in off)))
    return ctx.verdict(not off, measured, detail)


#: C20: how many times the fused backends' memory the math backend's must reach.
MEMORY_FACTOR = 4.0


def _math_training_memory_fourfold(ctx: Check) -> Verdict:
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
                     variant=short(largest.variant), factor=_num(factor))  # type: ignore[arg-type]  # fmt: skip
    detail = ""
    if math_row.saved_mib is not None and largest.saved_mib is not None:
        detail = ctx.t("C20.detail.saved", math=_num(math_row.saved_mib), fused=_num(largest.saved_mib))
    return ctx.verdict(factor >= MEMORY_FACTOR, measured, detail)


def _auto_near_fastest_decoding(ctx: Check) -> Verdict:
    """At every cache length where it ran, SDPA's own choice for decoding is within 10% of the fastest forced
    backend by median GPU time without the profiler; the backends it ran are named and the worst length given.
    Tolerance: at each length SDPA's time is compared with 1.1 times the fastest's, bands at least ±3 %
    (noise.GPU_FLOOR): differs when one length is beyond, too close to call when none is but one overlaps."""
    worst = None
    picks, outcomes = [], []
    for row in ctx.build.decision_rows("decode"):
        if row.auto is None or row.best_forced is None:
            continue
        ratio = row.auto.band.median / row.best_forced.band.median
        picks.append(row.auto.backend)
        outcomes.append(_within_choice_tolerance(row.auto.band.figure, row.best_forced.band.figure))
        if worst is None or ratio > worst[0]:
            worst = (ratio, row.length, row.best_forced.variant)
    if worst is None:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", ["sdpa_auto", *FORCED_BACKENDS]))
    names = [short(v) for p in dict.fromkeys(picks) if (v := variants.by_sdpa_family(p)) is not None]
    measured = ctx.t("C21.measured", picked=ctx.join(names), length=worst[1], percent=_num(100 * worst[0]),
                     fastest=short(worst[2]))  # fmt: skip
    holds = False if False in outcomes else None if None in outcomes else True
    return ctx.verdict(holds, measured)


def _fused_backends_run_gqa_decoding(ctx: Check) -> Verdict:
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
    ran = [short(v) for v in dict.fromkeys(accepted) if v not in refused]
    measured = ctx.t("C22.measured", accepted=ctx.join(ran), refused=ctx.join(short(v) for v in refused))
    detail = [ctx.t("C22.detail.reason", variant=short(v), reason=r) for v, r in refused.items()]
    return ctx.verdict(not refused, measured, detail)


#: C23: the share of the read bandwidth the fastest decoding step must reach at the longest cache.
READ_SHARE = 0.80


def _longest_cache_near_read_bandwidth(ctx: Check) -> Verdict:
    """At the longest cache length measured, the fastest variant's decoding step (SDPA's own choice aside: it runs
    one of the others) moves the bytes it cannot avoid (the cache read once) at 80% or more of the read bandwidth
    the build measured on the same GPU."""
    lengths, chooser = ctx.build.decode_lengths(), variants.sdpa_chooser()
    rows = [r for r in ctx.build.decode_rows()
            if lengths and r.kv_len == lengths[-1] and r.gpu_us is not None and r.variant != chooser]  # fmt: skip
    if not rows:
        return ctx.unmeasurable(ctx.not_recorded("gpu_time", list(variants.for_workload("decode"))))
    best = min(rows, key=lambda r: r.gpu_us)  # type: ignore[arg-type, return-value]
    if best.read_fraction is None or best.gbs is None:
        return ctx.unmeasurable(ctx.not_recorded("read_ceiling", [best.variant]))
    measured = ctx.t("C23.measured", variant=short(best.variant), length=best.kv_len, gbs=_num(best.gbs),
                     percent=_pct(best.read_fraction), ceiling=_num(best.gbs / best.read_fraction))  # fmt: skip
    detail = ctx.t("C23.detail.above") if best.read_fraction > 1 else ""
    return ctx.verdict(best.read_fraction >= READ_SHARE, measured, detail)


def _shortest_cache_launch_bound(ctx: Check) -> Verdict:
    """At the shortest cache length measured, SDPA's own decoding step (sdpa_auto) is launch-bound: the CPU time
    to issue it (dispatch, without the profiler) exceeds its median GPU time."""
    rows = [r for r in ctx.build.decode_rows() if r.variant == variants.sdpa_chooser() and r.gpu_us is not None]
    if not rows or rows[0].dispatch_us is None:
        return ctx.unmeasurable(ctx.not_recorded("dispatch", ["sdpa_auto"]))
    row = min(rows, key=lambda r: r.kv_len)
    measured = ctx.t("C24.measured", length=row.kv_len, dispatch=_num(row.dispatch_us), gpu=_num(row.gpu_us))  # type: ignore[arg-type]
    return ctx.verdict(bool(row.launch_bound), measured)


#: C25: how many times less CPU time a graph replay must take; how much its GPU time may move.
GRAPH_CPU_FACTOR = 3.0
GRAPH_GPU_TOLERANCE = 0.10


def _graph_replay_cuts_cpu_time(ctx: Check) -> Verdict:
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
        items.append(ctx.t("C25.item", variant=short(r.variant), **figures))
    r0 = ok[0]
    detail = ctx.t("C25.detail.wall", variant=short(r0.variant), length=r0.kv_len, eager=_num(r0.eager_wall_us or 0),
                   graph=_num(r0.graph_wall_us or 0))  # fmt: skip
    return ctx.verdict(holds, ctx.t("list.semi").join(items), detail)


#: C26: forcing costs CPU time on every step when it costs at least this share of the time SDPA takes to issue the
#: shortest decoding step (the step where issuing is what limits it, C24).
FORCING_MIN_SHARE = 0.05


def _forcing_costs_cpu_time(ctx: Check) -> Verdict:
    """Forcing the backend SDPA picks anyway costs CPU time on every step: at the shortest cache length where the
    build issued them side by side (:mod:`attnprof.records.forcing`), the whole difference between the forced call of
    the backend SDPA's own choice ran and SDPA's own choice (taken round by round, in the same rounds) is at least 5%
    of the time SDPA's own choice takes to issue the step. Tolerance: both CPU figures with their bands, ±10 % at
    least (noise.CPU_FLOOR): holds when the difference lies above 5% of the issue time beyond the noise, differs when
    below, too close to call otherwise.

    Neither the empty ``sdpa_kernel`` context alone (it is only part of what forcing changes) nor the difference of
    two dispatch costs measured in different runs (on the H200 it came out between 8 and 224 µs in one build) is
    used."""
    rows = [r for r in ctx.build.decision_rows("decode") if r.advice.forcing_cpu is not None and r.advice.auto]
    if not rows:
        return ctx.unmeasurable(ctx.t("C26.reason.no_side"))
    shortest = min(rows, key=lambda r: r.length)
    a = shortest.advice
    issue = a.auto.cost.issue  # type: ignore[union-attr]
    forcing: Figure = a.forcing_cpu  # type: ignore[assignment]
    if issue is None:
        return ctx.unmeasurable(ctx.not_recorded("dispatch", ["sdpa_auto"]))
    limit = issue.scaled(FORCING_MIN_SHARE)
    outcome = noise.compare(forcing, limit, noise.CPU_FLOOR)
    lo, hi = forcing.band(noise.CPU_FLOOR)
    picked = short(a.picked) if a.picked else "?"
    measured = ctx.t("C26.measured", picked=picked, cost=_num(forcing.median), lo=_num(lo), hi=_num(hi),
                     share=_num(100 * forcing.median / issue.median), issue=_num(issue.median),
                     length=shortest.length)  # fmt: skip
    detail = ctx.t("C26.detail", limit=_num(limit.median), rounds=forcing.n)
    if outcome == "tie":
        bands = ctx.tie_detail({ctx.t("C26.cost"): forcing, ctx.t("C26.limit"): limit}, noise.CPU_FLOOR, "µs")
        detail = ctx.t("sentence.sep").join([detail, bands])
    holds = {"higher": True, "lower": False}.get(outcome)
    return ctx.verdict(holds, measured, detail, {"forcing_us": forcing, "5% of issue_us sdpa_auto": limit})


#: The claims of this family.
CLAIMS: tuple[Claim, ...] = (
    Claim("C18", ("sdpa_auto",), True, _auto_near_fastest_training, "site", workload="train"),
    Claim("C19", FUSED_BACKENDS, True, _backward_two_and_a_half_forwards, "site", workload="train"),
    Claim("C20", ("sdpa_math",), True, _math_training_memory_fourfold, "site", workload="train"),
    Claim("C21", ("sdpa_auto",), True, _auto_near_fastest_decoding, "site", workload="decode"),
    Claim("C22", FUSED_BACKENDS, True, _fused_backends_run_gqa_decoding, "site", workload="decode"),
    Claim("C23", (), True, _longest_cache_near_read_bandwidth, "site", workload="decode"),
    Claim("C24", ("sdpa_auto",), True, _shortest_cache_launch_bound, "site", workload="decode"),
    Claim("C25", (), True, _graph_replay_cuts_cpu_time, "site", workload="decode"),
    Claim("C26", ("sdpa_auto",), True, _forcing_costs_cpu_time, "site", workload="decode"),
)
