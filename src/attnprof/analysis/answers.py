"""The verdicts of the measurements beside the decision table, by the same rule (:mod:`attnprof.analysis.verdicts`):
training across lengths and head dims (the training-scale grid), masks beyond causal (the mask run), and grouped
heads (the eligibility map's grouped-query rows). One :class:`Answer` per workload and size, for the decision page
and the landing page's answer.

What each source gives a step: the training grid the forward and the backward timed apart (a step is both, and so
is its issue time); the mask run one step of each method (the mask's build added where the mask changes with every
batch, as packed documents do: FlexAttention rebuilds its block mask and the dense-mask methods their dense mask,
each timed apart in the same run); the eligibility map one call of each backend. None of them runs SDPA's own choice
side by side with the forced backends, so where they give SDPA's pick (asked of its selector) SDPA's own choice is
taken to cost what forcing that pick costs: the advice then says that forcing the same backend runs the same kernel,
without a figure for what the forcing adds.

Opens no file and imports no torch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from attnprof import variants, workloads
from attnprof.analysis import verdicts
from attnprof.analysis.verdicts import Cost, Option, SdpaAdvice, Verdict
from attnprof.noise import Figure
from attnprof.records.eligibility import Grid
from attnprof.records.masks import MaskRun
from attnprof.records.trainscale import TrainScale

#: The sources of :class:`Answer` rows.
FAMILIES: tuple[str, ...] = ("train_scale", "masks", "gqa")


@dataclass
class Answer:
    """One workload at one size, ranked by what a step costs.

    Attributes:
        family: One of :data:`FAMILIES`.
        where: What the row is about, for its label: ``head_dim`` and ``seq`` (training), ``mask``, ``workload``,
            ``seq``, ``window`` (masks), ``kv_heads`` and ``shape`` (grouped heads).
        verdict: The options ranked.
        advice: Whether to force an SDPA backend.
        rebuilt: Masks only: the mask changes with every batch, so each option's step includes building it (both
            builds timed in the run; a run that timed only the block mask's leaves builds out of every step).
    """

    family: str
    where: dict[str, object]
    verdict: Verdict = field(default_factory=Verdict)
    advice: SdpaAdvice = field(default_factory=SdpaAdvice)
    rebuilt: bool = False


def _us(f: Figure) -> Figure:
    return f.scaled(1e3)


def _by_backend(name: str | None) -> str | None:
    """The variant that forces the ``SDPBackend`` called ``name`` (``"CUDNN_ATTENTION"`` -> ``"sdpa_cudnn"``)."""
    return next((v.name for v in variants.VARIANTS.values() if name and v.backend == name), None)


def _judged(family: str, where: dict[str, object], options: list[Option], pick: str | None) -> Answer:
    """Rank the options; advise from SDPA's pick (``SDPBackend`` name) standing for SDPA's own choice."""
    picked = _by_backend(pick)
    same = next((o for o in options if o.variant == picked), None)
    pseudo = [Option(variants.sdpa_chooser(), same.cost, variants.get(picked).sdpa_family)] if same and picked else []
    return Answer(family, where, verdicts.rank(options), verdicts.sdpa_advice([*options, *pseudo]))


def train_scale_answers(grid: TrainScale, causal: bool = True) -> list[Answer]:
    """One answer per head dim and length of the grid (causal by default): the forced backends by forward and
    backward together."""
    out = []
    on_gpu = grid.device == "cuda"
    for d in grid.head_dims:
        for s in grid.seqs:
            pts = [p for p in grid.points if (p.head_dim, p.causal, p.seq) == (d, causal, s) and p.ok]
            if not pts:
                continue
            options = []
            for p in pts:
                f, b = p.fwd, p.bwd
                assert f is not None and b is not None
                step = Figure(f.median + b.median, f.lo + b.lo, f.hi + b.hi, min(f.n, b.n))
                options.append(Option(p.variant, Cost(_us(step), p.issue_us, False, on_gpu)))
            pick = next((p.sdpa_pick for p in pts if p.sdpa_pick), None)
            out.append(_judged("train_scale", {"head_dim": d, "seq": s}, options, pick))
    return out


def mask_answers(run: MaskRun) -> list[Answer]:
    """One answer per mask, workload, length and window of the run: every method that ran, its step with the
    mask's build added where the mask changes with every batch."""
    groups: dict[tuple[str, str, int, int, int], list] = {}
    for c in run.cases:
        groups.setdefault((c.mask, c.workload, c.seq, c.window, c.prefix), []).append(c)
    out = []
    on_gpu = run.device == "cuda"
    for (mask, workload, seq, window, prefix), cases in groups.items():
        build = next((b for b in run.builds if (b.mask, b.seq, b.window, b.prefix) == (mask, seq, window, prefix)),
                     None)  # fmt: skip
        # a new batch, a new mask: built in every step, by every method its way (both builds timed, or neither used)
        rebuilt = (
            workloads.get_mask(mask).packed and build is not None and None not in (build.time_ms, build.dense_ms)
        )
        options = []
        for c in cases:
            if c.status != "ok" or c.time_ms is None:
                continue
            method = workloads.get_method(c.method)
            extra = None
            if rebuilt and build is not None:
                extra = build.time_ms if method.compiled else build.dense_ms if method.dense else None
            cost = Cost(_us(c.time_ms), c.issue_us, False, on_gpu, None if extra is None else _us(extra))
            ran = _by_backend(c.ran)
            options.append(Option(c.method, cost, variants.get(ran).sdpa_family if ran else None))
        if not options:
            continue
        auto = next((c.ran for c in cases if c.method == variants.sdpa_chooser() and c.status == "ok"), None)
        a = Answer("masks", {"mask": mask, "workload": workload, "seq": seq, "window": window}, rebuilt=rebuilt)
        a.verdict = verdicts.rank(o for o in options if o.variant != _by_backend(auto))
        a.advice = verdicts.sdpa_advice(options)
        out.append(a)
    return out


def gqa_answers(grid: Grid, family: str = "gqa") -> list[Answer]:
    """One answer per grouped-query row of the eligibility map (the rows with fewer KV heads than query heads):
    every backend that ran, by its timed call."""
    out = []
    on_gpu = grid.device == "cuda"
    for row in grid.rows:
        if row.family != family or row.case.kv_heads is None:
            continue
        options = [Option(name, Cost(_us(v.time_ms), v.issue_us, False, on_gpu))
                   for v in row.answer.verdicts if v.ran and v.time_ms is not None
                   and (name := _by_backend(v.backend)) is not None]  # fmt: skip
        if options:
            where = {"kv_heads": row.case.kv_heads, "shape": list(row.case.shape), "dtype": row.case.dtype}
            out.append(_judged("gqa", where, options, row.answer.pick))
    return out


def refused(grid: Grid, family: str = "gqa") -> list[str]:
    """The backends that refused every grouped-query row of the map, as variants (``["sdpa_efficient"]``)."""
    rows = [r for r in grid.rows if r.family == family and r.case.kv_heads is not None]
    names = [v.backend for v in rows[0].answer.verdicts] if rows else []
    gone = [b for b in names if all(not r.answer.verdict(b).ran for r in rows)]
    return [n for b in gone if (n := _by_backend(b)) is not None]


def groups(answers: Iterable[Answer], key: str) -> dict[object, list[Answer]]:
    """The answers by the value of ``where[key]``, in order of first appearance."""
    out: dict[object, list[Answer]] = {}
    for a in answers:
        out.setdefault(a.where[key], []).append(a)
    return out
