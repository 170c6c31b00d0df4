"""Plain-text views of results, for the terminal and the gallery scripts' printed output.

Rendering only: the figures come from :mod:`attnprof.analysis`, the same analysis the pages render as docutils
tables (:mod:`attnprof.sphinxext`), so the numbers agree everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .analysis import Analysis, analyse, cpu_cost
from .parallel import PLAIN_COMMAND, TORCHRUN_COMMAND, ParallelCase, ParallelRun
from .results import CpuCosts, Result
from .sweep import METRICS, Sweep


def _fmt(x: float | None, spec: str, none: str = "-") -> str:
    return none if x is None else format(x, spec)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A fixed-width text table with a rule under the header."""
    rows = [list(map(str, r)) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _analysed(result: Result | Analysis) -> Analysis:
    return result if isinstance(result, Analysis) else analyse(result)


def kernel_table(result: Result | Analysis, width: int = 48) -> str:
    """One row per distinct GPU activity of the active steps: what the kernel table on the site shows."""
    a = _analysed(result)
    result = a.result
    if not result.ok:
        return f"{result.variant}: {result.status} - {result.reason}"
    rows = a.rows
    if not rows:
        return f"{result.variant}: no GPU activity recorded (device: {result.device})"
    body = []
    for r in rows:
        theo = r.theoretical
        body.append(
            [
                r.info.short[:width],
                r.info.family,
                _fmt(r.per_step, "g"),
                _fmt(r.avg_us, ".1f"),
                r.launch_api or "-",
                _fmt(r.registers_per_thread, "d"),
                _fmt(r.shared_memory, "d"),
                "x".join(map(str, r.grid)) + " / " + "x".join(map(str, r.block)) if r.grid and r.block else "-",
                _fmt(r.reported_occupancy, "g", "-") + ("%" if r.reported_occupancy is not None else ""),
                (f"{theo.percent:.1f}%" + (f" ({theo.limiter})" if theo.percent < 100 else "")) if theo else "-",
            ]
        )
    headers = ["kernel", "family", "per step", "avg us", "launch API", "regs", "smem B", "grid / block",
               "reported occ", "theoretical occ"]  # fmt: skip
    return table(headers, body)


def summary(result: Result | Analysis) -> str:
    """Two or three lines: what ran, and its headline figures (or why it could not run)."""
    a = _analysed(result)
    result = a.result
    head = f"{result.variant}: {list(result.shape)} {result.dtype} on {result.device}"
    if not result.ok:
        return f"{head}\n  could not run ({result.status}): {result.reason}"
    r = a.summary
    t = result.timing
    timer = "perf_counter" if t is None or t.timer == "perf_counter" else "CUDA events"
    lines = [
        head,
        f"  per step: {r.activities_per_step:g} GPU activities ({r.kernels_per_step:g} kernels), "
        f"profiled CPU time {r.cpu_us:.0f} us",
    ]
    if t is not None:
        lines.append(
            f"  without profiler: {t.gpu_ms_median:.3f} ms per forward (median of {t.repetitions}, {timer}), "
            f"dispatch {t.dispatch_us_median:.0f} us, {t.tflops:.1f} TFLOP/s, "
            f"peak extra {_fmt(r.peak_mib, '.0f', 'n/a')} MiB, rel. error {t.rel_error:.1e}"
        )
    return "\n".join(lines)


def compare_table(results: Iterable[Result | Analysis]) -> str:
    """One line per result with the at-a-glance figures."""
    body = []
    for item in results:
        a = _analysed(item)
        r, res = a.summary, a.result
        if not res.ok:
            body.append([r.variant, res.status, *["-"] * 7, (r.reason or "")[:60]])
            continue
        body.append(
            [
                r.variant,
                "ok",
                _fmt(r.activities_per_step, "g"),
                _fmt(r.kernels_per_step, "g"),
                _fmt(r.gpu_ms, ".3f"),
                _fmt(r.cpu_us, ".0f"),
                _fmt(r.dispatch_us, ".0f"),
                _fmt(r.tflops, ".1f"),
                _fmt(r.peak_mib, ".0f"),
                r.main_kernel or "-",
            ]
        )
    headers = ["variant", "status", "GPU acts/step", "kernels/step", "GPU ms", "CPU us (prof)", "dispatch us",
               "TFLOP/s", "peak MiB", "main kernel"]  # fmt: skip
    return table(headers, body)


# --- sweeps ---------------------------------------------------------------------------------------------------------

#: Titles of the sweep metrics in the text tables.
SWEEP_METRIC_TITLES = {
    "gpu_ms": "time per forward, median (ms)",
    "tflops": "achieved TFLOP/s (causal FLOPs)",
    "peak_mib": "peak extra device memory (MiB)",
    "dispatch_us": "CPU time to issue one call, median (us)",
}
_SHORT_STATUS = {"oom": "OOM", "unsupported": "unsupported", "no_cuda": "no CUDA", "error": "error",
                 "skipped": "skipped"}  # fmt: skip


def sweep_table(sweep: Sweep, metric: str = "gpu_ms", head_dim: int | None = None) -> str:
    """One block per head_dim: a row per variant, a column per sequence length, ``metric`` in the cells.

    A point that did not run shows its status (``OOM``, ``unsupported``, ...); a point the sweep did not plan
    (a compiled variant between its few sequence lengths) shows ``-``. The reasons follow the table.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
    spec = {"gpu_ms": ".4g", "tflops": ".3g", "peak_mib": ".0f", "dispatch_us": ".0f"}[metric]
    blocks = []
    reasons: dict[str, list[str]] = {}
    for d in [head_dim] if head_dim is not None else sweep.head_dims:
        body = []
        for v in sweep.variants:
            cells = [v]
            for s in sweep.seqs:
                p = sweep.point(v, d, s)
                if p is None:
                    cells.append("-")
                elif not p.ok:
                    cells.append(_SHORT_STATUS.get(p.status, p.status))
                    reasons.setdefault(p.reason or p.status, []).append(f"{v} hd{d} seq{s}")
                else:
                    cells.append(_fmt(p.metric(metric), spec, "n/a"))
            body.append(cells)
        title = f"head_dim {d}: {SWEEP_METRIC_TITLES[metric]}, batch {sweep.batch}, {sweep.heads} heads, " + (
            f"{sweep.dtype} on {sweep.device}"
        )
        blocks.append(title + "\n" + table(["variant", *(str(s) for s in sweep.seqs)], body))
    if reasons:
        lines = ["why some points have no number:"]
        for reason, where in reasons.items():
            shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
            lines.append(f"  {shown}: {reason[:160]}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def sweep_summary(sweep: Sweep) -> str:
    """The sweep's conclusions in a few lines: ceilings, SDPA's pick against the fastest, CPU-bound points."""
    lines = [f"sweep on {sweep.environment.device_name}: {len(sweep.points)} points in {sweep.elapsed_s:.1f} s "
             f"(timer: {sweep.timer}; {'complete' if sweep.complete else 'time budget ran out'})"]  # fmt: skip
    c = sweep.ceilings
    if c is not None:
        lines.append(
            f"ceilings: bf16 matmul {c.matmul_tflops:.0f} TFLOP/s ({c.matmul_n}^3), copy bandwidth "
            f"{c.bandwidth_gbs:.0f} GB/s (read + write), ridge point {c.ridge:.0f} FLOP/byte"
        )
    for cmp in sweep.sdpa_comparisons():
        where = f"hd{cmp.head_dim} seq{cmp.seq}"
        if cmp.pick is None:
            lines.append(f"SDPA's pick at {where}: sdpa_auto did not run")
            continue
        verdict = "n/a"
        if cmp.agrees is True:
            verdict = "the fastest backend"
        elif cmp.agrees is False:
            slow = cmp.pick_slowdown
            verdict = f"fastest backend is {cmp.fastest_backend}" + (
                f" ({slow * 100:+.0f}% for the pick)" if slow is not None else ""
            )
        lines.append(f"SDPA's pick at {where}: {cmp.pick} ({verdict}); fastest variant: {cmp.fastest_variant}")
    bound = sweep.cpu_bound()
    if sweep.device == "cuda":
        if bound:
            lines.append("CPU-bound points (issuing the call takes longer than the GPU runs it):")
            for p in bound:
                lines.append(
                    f"  {p.variant} hd{p.head_dim} seq{p.seq}: dispatch {p.dispatch_us:.0f} us > "
                    f"GPU {p.gpu_ms * 1e3:.0f} us"
                )
        else:
            lines.append("no CPU-bound point: every call ran longer on the GPU than it took to issue")
    if sweep.note:
        lines.append(sweep.note)
    return "\n".join(lines)


def cpu_cost_table(costs: CpuCosts) -> str:
    """One line per variant of a side-by-side CPU-cost measurement."""
    body = []
    for r in costs.rows:
        if r.status != "ok":
            body.append([r.variant, r.status, "-", "-", "-", "-", (r.reason or "")[:60]])
            continue
        share = cpu_cost(r.variant, None, r).profiler_share
        body.append(
            [
                r.variant,
                "ok",
                _fmt(r.profiled_us, ".0f"),
                _fmt(r.dispatch_us, ".0f"),
                "-" if share is None else f"{100 * share:.0f}%",
                _fmt(r.context_us, ".1f"),
                f"{r.samples[0]} / {r.samples[1]} calls" if len(r.samples) == 2 else "",
            ]
        )
    headers = ["variant", "status", "profiled CPU us", "dispatch us", "profiler share", "context us", "samples"]
    return f"{costs.rounds} interleaved rounds on {costs.environment.device_name}\n" + table(headers, body)


def parallel_table(run: ParallelRun) -> str:
    """One line per case of a context-parallel run: one GPU against all, speed-up, communication, balance, error;
    or why nothing ran and how to run it."""
    if not run.ok:
        return (
            f"context parallelism not measured ({run.status}): {run.reason}\n"
            f"on a machine with 2 or more GPUs: {TORCHRUN_COMMAND}\n  or: {PLAIN_COMMAND}"
        )
    pct = lambda x: "-" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    body = []
    for c in run.cases:
        if not c.ok:
            body.append([c.method, str(c.seq), c.status, "-", "-", "-", "-", "-", "-", (c.reason or "")[:70]])
            continue
        body.append(
            [c.method, str(c.seq), "ok", _fmt(c.single_ms, ".2f"), _fmt(c.step_ms, ".2f"), _fmt(c.speedup, ".2f"),
             pct(c.comm_share), pct(c.overlap), _fmt(c.balance, ".3f"), _fmt(c.rel_error, ".1e")]
        )  # fmt: skip
    headers = ["method", "seq", "status", "1 GPU ms", f"{run.world} GPUs ms", "speed-up", "NCCL share", "overlapped",
               "balance", "error vs 1 GPU"]  # fmt: skip
    gpus = ", ".join(sorted(set(run.gpus))) or "?"
    head = f"{run.world} x {gpus}, NCCL {run.nccl_version}, {run.launcher}; run took {run.elapsed_s:.1f} s"
    return head + "\n" + table(headers, body)


def rank_table(case: ParallelCase) -> str:
    """One line per rank of one case: its time split into attention, NCCL, other kernels and idle GPU (µs, median
    over the profiled steps)."""
    body = []
    for r in case.ranks:
        t = r.trace
        if t is None:
            body.append([str(r.rank), "-", "-", "-", "-", "-"])
            continue
        body.append([str(r.rank), *(_fmt(t.median(k), ".0f") for k in ("attention_us", "comm_us", "other_us",
                                                                        "idle_us", "span_us"))])  # fmt: skip
    headers = ["rank", "attention us", "NCCL us", "other us", "idle us", "GPU span us"]
    return f"{case.method}, seq {case.seq}\n" + table(headers, body)
