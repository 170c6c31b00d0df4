"""This site's own claims about context parallelism (C30–C34): scaling, communication, overlap, balance and memory
of the context-parallel run of this build (:mod:`attnprof.records.parallel`), not of variant results.

No article published these; each is checked against the run by the rule in its function's docstring, at the
longest sequence length that ran where the claim is about scaling. Words: ``C3x.*`` and ``par.*`` keys of
:mod:`attnprof.words.parallel`.
"""

from __future__ import annotations

from attnprof import words
from attnprof.analysis.claims.framework import Check, Claim, Verdict
from attnprof.inputs import element_bytes
from attnprof.records.parallel import ParallelCase, ParallelRun
from attnprof.words.fmt import number as _num

#: C30: the least scaling efficiency that holds (75%: 1.5 times one GPU on two).
CP_EFFICIENCY = 0.75
#: C31: the largest share of a step in NCCL kernels that holds.
CP_COMM_SHARE = 0.10
#: C32: the least share of NCCL time overlapped by computation that holds (more than this).
CP_OVERLAP = 0.5
#: C33: the least load balance (least over most attention time of a rank) that holds.
CP_BALANCE = 0.95


def _method(ctx: Check, method: str) -> str:
    """A rotation method in words."""
    return ctx.t(f"par.method.{method}")


def _percent(fraction: float) -> str:
    return f"{_num(100 * fraction)}%"


def _longest(ctx: Check) -> dict[str, ParallelCase]:
    """Per rotation method, the traced case at the longest sequence length."""
    out: dict[str, ParallelCase] = {}
    for c in ctx.traced():
        if c.method not in out or c.seq > out[c.method].seq:
            out[c.method] = c
    return out


def _speedup(ctx: Check, speedup: float | None) -> str:
    """The time on the GPUs against the time on one, in words (``1.62× faster``)."""
    return words.times(1 / speedup, ctx.lang) if speedup else ctx.t("not_available")


def _scaling_efficiency(ctx: Check) -> Verdict:
    """Scaling: for every rotation method, at the longest sequence length that ran, the speed-up over one GPU divided
    by the number of GPUs is at least 0.75 (a speed-up of 1.5 on two GPUs)."""
    cases = _longest(ctx)
    seq = max(c.seq for c in cases.values())
    items = [
        ctx.t("C30.item", method=_method(ctx, m), speedup=_speedup(ctx, c.speedup),
              efficiency=_percent(c.efficiency or 0))
        for m, c in cases.items()
    ]  # fmt: skip
    holds = all((c.efficiency or 0) >= CP_EFFICIENCY for c in cases.values())
    return ctx.verdict(holds, ctx.t("C30.measured", seq=seq, items=ctx.t("list.sep").join(items)))


def _communication_share(ctx: Check) -> Verdict:
    """Communication share: for every rotation method, at the longest sequence length that ran, NCCL kernels take
    less than 10% of a step's GPU span on every rank (the rank where they take most decides); how the share changed
    from the shortest sequence is reported beside it."""
    cases = _longest(ctx)
    seq = max(c.seq for c in cases.values())
    items = [ctx.t("C31.item", method=_method(ctx, m), share=_percent(c.comm_share or 0)) for m, c in cases.items()]
    holds = all(c.comm_share is not None and c.comm_share < CP_COMM_SHARE for c in cases.values())
    method = next(iter(cases))
    same = sorted((c for c in ctx.traced() if c.method == method), key=lambda c: c.seq)
    detail = ""
    if len(same) > 1 and same[0].comm_share is not None and same[-1].comm_share is not None:
        detail = ctx.t("C31.detail.trend", first=_percent(same[0].comm_share),
                       last=_percent(same[-1].comm_share), method=_method(ctx, method))  # fmt: skip
    return ctx.verdict(holds, ctx.t("C31.measured", seq=seq, items=ctx.t("list.sep").join(items)), detail)


def _communication_overlap(ctx: Check) -> Verdict:
    """Overlap: for every rotation method, at the longest sequence length that ran, more than half of the NCCL kernel
    time overlaps computation (attention or other kernels on another stream) on every rank (the rank where it
    overlaps least decides); the least overlapped case of all is reported beside it."""
    cases = {m: c for m, c in _longest(ctx).items() if c.overlap is not None}
    every = [c for c in ctx.traced() if c.overlap is not None]
    if not cases:
        return ctx.unmeasurable(ctx.t("par.reason.no_case"))
    seq = max(c.seq for c in cases.values())
    items = [ctx.t("C31.item", method=_method(ctx, m), share=_percent(c.overlap)) for m, c in cases.items()]  # type: ignore[arg-type]
    worst = min(every, key=lambda c: c.overlap)  # type: ignore[arg-type, return-value]
    detail = ctx.t("C32.detail.least", overlap=_percent(worst.overlap), method=_method(ctx, worst.method),
                   seq=worst.seq)  # type: ignore[arg-type]  # fmt: skip
    holds = all(c.overlap > CP_OVERLAP for c in cases.values())  # type: ignore[operator]
    return ctx.verdict(holds, ctx.t("C32.measured", seq=seq, items=ctx.t("list.sep").join(items)), detail)


def _rank_balance(ctx: Check) -> Verdict:
    """Balance: in every case that ran, the least attention-kernel time of a rank is at least 95% of the most (the
    median over the profiled steps of each rank); the least even case is reported."""
    cases = [c for c in ctx.traced() if c.balance is not None]
    if not cases:
        return ctx.unmeasurable(ctx.t("par.reason.no_case"))
    worst = min(cases, key=lambda c: c.balance)  # type: ignore[arg-type, return-value]
    measured = ctx.t("C33.measured", balance=_num(worst.balance, 3), method=_method(ctx, worst.method),
                     seq=worst.seq)  # type: ignore[arg-type]  # fmt: skip
    return ctx.verdict(worst.balance >= CP_BALANCE, measured)  # type: ignore[operator]


def _memory_per_gpu(ctx: Check) -> Verdict:
    """Memory: in every case that ran, every rank's shard of q, k and v plus its peak extra memory during the ring
    call is less than q, k and v of the whole sequence plus the peak extra memory of the one-GPU call; the largest
    ratio is reported."""
    ratios = [(r, c) for c in ctx.run.ran() if (r := memory_ratio(ctx.run, c)) is not None]
    if not ratios:
        return ctx.unmeasurable(ctx.t("par.reason.no_memory"))
    (ratio, rank_mib, single_mib), case = max(ratios, key=lambda x: x[0][0])
    measured = ctx.t("C34.measured", ratio=ctx.t("par.times", value=_num(ratio)), method=_method(ctx, case.method),
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


#: The claims of this family.
CLAIMS: tuple[Claim, ...] = (
    Claim("C30", (), True, _scaling_efficiency, "site", workload="parallel"),
    Claim("C31", (), True, _communication_share, "site", workload="parallel"),
    Claim("C32", (), True, _communication_overlap, "site", workload="parallel"),
    Claim("C33", (), True, _rank_balance, "site", workload="parallel"),
    Claim("C34", (), True, _memory_per_gpu, "site", workload="parallel"),
)
