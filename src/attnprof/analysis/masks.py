"""What a mask run says (:class:`attnprof.records.masks.MaskRun`): per mask, size and workload, FlexAttention
against the fastest dense-mask SDPA that ran (and nested tensors, for packed documents), by the one noise rule
(:func:`attnprof.noise.compare`: overlapping bands are too close to call); and what a block mask costs to build, in
calls of the kernel it serves.

Opens no file and imports no torch; the page, the gallery script, the claims and the probe read a run through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from attnprof import noise, workloads
from attnprof.noise import Figure
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun

#: What :func:`verdicts` can conclude about FlexAttention against the dense-mask SDPA.
OUTCOMES: tuple[str, ...] = ("flex_faster", "dense_faster", "tie", "flex_only", "dense_only", "neither")


@dataclass(frozen=True)
class Verdict:
    """One comparison: FlexAttention against the fastest dense-mask SDPA at one mask, size and workload.

    Attributes:
        mask, workload, seq, window, prefix: Where.
        flex: FlexAttention's case, or ``None`` when it was not measured.
        dense: The fastest dense-mask SDPA case that ran (by median), or ``None`` when none ran.
        outcome: One of :data:`OUTCOMES`: which is faster with bands apart (``flex_faster``, ``dense_faster``),
            ``tie`` when the bands overlap or the medians differ by less than the minimum effect, or which one alone
            ran.
        ratio: The dense time over FlexAttention's (above 1: FlexAttention faster), or ``None``.
        nested: For packed documents, the nested-tensor case when it ran, else ``None``.
        nested_outcome: FlexAttention against nested tensors, as ``outcome`` (``None`` without a nested case).
    """

    mask: str
    workload: str
    seq: int
    window: int
    prefix: int
    flex: MaskCase | None
    dense: MaskCase | None
    outcome: str
    ratio: float | None
    nested: MaskCase | None = None
    nested_outcome: str | None = None


def _ran(case: MaskCase | None) -> bool:
    return case is not None and case.status == "ok" and case.time_ms is not None


def floors(device: str) -> tuple[float, float]:
    """The band floor and minimum effect of ``device``'s figures (:data:`attnprof.noise.GPU_FLOOR`, ...)."""
    if device == "cuda":
        return noise.GPU_FLOOR, noise.GPU_MIN_EFFECT
    return noise.CPU_FLOOR, noise.CPU_MIN_EFFECT


def outcome(a: MaskCase | None, b: MaskCase | None, device: str) -> str:
    """``flex_faster`` (``a`` faster), ``dense_faster`` (``b`` faster), ``tie``, or which one alone ran
    (``flex_only``, ...)."""
    if not _ran(a) and not _ran(b):
        return "neither"
    if not _ran(b):
        return "flex_only"
    if not _ran(a):
        return "dense_only"
    assert a is not None and b is not None and a.time_ms is not None and b.time_ms is not None
    floor, effect = floors(device)
    said = noise.compare(a.time_ms, b.time_ms, floor, min_effect=effect)
    return {"lower": "flex_faster", "higher": "dense_faster"}.get(said, "tie")


def fastest_dense(cases: list[MaskCase]) -> MaskCase | None:
    """The dense-mask SDPA case with the lowest median among those that ran."""
    ran = [
        c for c in cases if workloads.get_method(c.method).dense and workloads.get_method(c.method).sdpa and _ran(c)
    ]
    return min(ran, key=lambda c: c.time_ms.median if c.time_ms else float("inf"), default=None)


def verdicts(run: MaskRun) -> list[Verdict]:
    """One :class:`Verdict` per mask, size and workload of ``run``, in the order measured."""
    groups: dict[tuple[str, str, int, int, int], list[MaskCase]] = {}
    for case in run.cases:
        groups.setdefault((case.mask, case.workload, case.seq, case.window, case.prefix), []).append(case)
    out = []
    for (mask, workload, seq, window, prefix), cases in groups.items():
        flex = next((c for c in cases if workloads.get_method(c.method).compiled), None)
        dense = fastest_dense(cases)
        nested = next((c for c in cases if workloads.get_method(c.method).packed_only and _ran(c)), None)
        ratio = None
        if _ran(flex) and _ran(dense):
            assert flex is not None and dense is not None and flex.time_ms and dense.time_ms
            ratio = dense.time_ms.median / flex.time_ms.median
        out.append(
            Verdict(
                mask, workload, seq, window, prefix, flex, dense, outcome(flex, dense, run.device), ratio, nested,
                None if nested is None else outcome(flex, nested, run.device),
            )
        )  # fmt: skip
    return out


def build_for(run: MaskRun, verdict: Verdict) -> BlockMaskBuild | None:
    """The block-mask build of the verdict's mask and size, or ``None``."""
    return next(
        (b for b in run.builds if (b.mask, b.seq, b.window, b.prefix) == (verdict.mask, verdict.seq, verdict.window,
                                                                            verdict.prefix)),
        None,
    )  # fmt: skip


def calls_to_repay(build: BlockMaskBuild | None, flex: MaskCase | None, dense: MaskCase | None) -> float | None:
    """How many calls FlexAttention must make before its saving over the dense mask pays for building its block
    mask: the build's time over (dense − flex) per call; ``None`` when FlexAttention saves nothing or a figure is
    missing."""
    if build is None or build.time_ms is None or not _ran(flex) or not _ran(dense):
        return None
    assert flex is not None and dense is not None and flex.time_ms and dense.time_ms
    saved = dense.time_ms.median - flex.time_ms.median
    return build.time_ms.median / saved if saved > 0 else None


def build_share(build: BlockMaskBuild | None, flex: MaskCase | None) -> Figure | None:
    """The block mask's build time in calls of the FlexAttention kernel it serves (band from both bands)."""
    if build is None or build.time_ms is None or not _ran(flex):
        return None
    assert flex is not None and flex.time_ms is not None
    b, f = build.time_ms, flex.time_ms
    return Figure(b.median / f.median, b.lo / f.hi, b.hi / f.lo, min(b.n, f.n))


def summary_lines(run: MaskRun) -> list[str]:
    """The verdicts as lines of text (the probe prints them; tests read them)."""
    lines = []
    for v in verdicts(run):
        size = f"w{v.window}" if v.window else (f"p{v.prefix}" if v.prefix else "")
        head = f"{v.mask:15} {size:6} S{v.seq:<6} {v.workload:5}"
        flex = f"{v.flex.time_ms.median:8.3f}" if _ran(v.flex) and v.flex and v.flex.time_ms else "     -  "
        dense = f"{v.dense.time_ms.median:8.3f} ({v.dense.method})" if v.dense and v.dense.time_ms else "     -  "
        ratio = f"x{v.ratio:.2f}" if v.ratio else ""
        build = build_for(run, v)
        share = build_share(build, v.flex)
        repay = calls_to_repay(build, v.flex, v.dense)
        extra = f" build={share.median:.1f} calls" if share else ""
        extra += f" repaid after {repay:.1f} calls" if repay else ""
        if v.nested is not None and v.nested.time_ms is not None:
            extra += f" nested {v.nested.time_ms.median:.3f} ms -> {v.nested_outcome}"
        lines.append(f"{head} flex {flex} ms  dense {dense} ms  -> {v.outcome:10} {ratio}{extra}")
    return lines
