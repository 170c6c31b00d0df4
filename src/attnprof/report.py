"""Plain-text views of results, for the terminal and the gallery scripts' printed output.

The docs render the same data as docutils tables (:mod:`attnprof.sphinxext`); both go through
:func:`attnprof.trace.kernel_table` and :func:`summary_row`, so the numbers agree everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import trace
from .results import Result


def _fmt(x: float | None, spec: str, none: str = "-") -> str:
    return none if x is None else format(x, spec)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A fixed-width text table with a rule under the header."""
    rows = [list(map(str, r)) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def kernel_table(result: Result, width: int = 48) -> str:
    """One row per distinct GPU activity of the active steps: what the kernel table on the site shows."""
    if not result.ok:
        return f"{result.variant}: {result.status} - {result.reason}"
    rows = trace.kernel_table(result.steps, result.device_properties)
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
                f"{theo.percent:.1f}% ({theo.limiter})" if theo else "-",
            ]
        )
    headers = ["kernel", "family", "per step", "avg us", "launch API", "regs", "smem B", "grid / block",
               "reported occ", "theoretical occ"]  # fmt: skip
    return table(headers, body)


@dataclass
class SummaryRow:
    """The at-a-glance figures of one result (all ``None`` when the variant did not run)."""

    variant: str
    status: str
    reason: str | None
    activities_per_step: float | None = None
    kernels_per_step: float | None = None
    gpu_ms: float | None = None
    cpu_us: float | None = None
    dispatch_us: float | None = None
    tflops: float | None = None
    peak_mib: float | None = None
    rel_error: float | None = None
    main_kernel: str | None = None


def summary_row(result: Result) -> SummaryRow:
    """Collapse a result to the figures of the comparison table (means over the active steps)."""
    row = SummaryRow(result.variant, result.status, result.reason)
    if not result.ok or not result.steps:
        return row
    n = len(result.steps)
    row.activities_per_step = sum(len(s.activities) for s in result.steps) / n
    row.kernels_per_step = sum(len(s.kernels) for s in result.steps) / n
    row.cpu_us = sum(s.cpu_time_us for s in result.steps) / n
    kt = trace.kernel_table(result.steps, result.device_properties)
    kernels = [r for r in kt if r.kind == "kernel"]
    if kernels:
        row.main_kernel = max(kernels, key=lambda r: r.total_us).info.short
    t = result.timing
    if t is not None:
        row.gpu_ms, row.dispatch_us, row.tflops, row.rel_error = (
            t.gpu_ms_median,
            t.dispatch_us_median,
            t.tflops,
            t.rel_error,
        )
        row.peak_mib = None if t.peak_extra_bytes is None else t.peak_extra_bytes / 2**20
    return row


def summary(result: Result) -> str:
    """Two or three lines: what ran, and its headline figures (or why it could not run)."""
    head = f"{result.variant}: {list(result.shape)} {result.dtype} on {result.device}"
    if not result.ok:
        return f"{head}\n  could not run ({result.status}): {result.reason}"
    r = summary_row(result)
    t = result.timing
    timer = "CUDA events" if t and t.timer == "cuda_event" else "perf_counter"
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


def compare_table(results: Iterable[Result]) -> str:
    """One line per result with the at-a-glance figures."""
    body = []
    for res in results:
        r = summary_row(res)
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
