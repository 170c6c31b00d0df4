"""Plain-text views of results, for the terminal and the gallery scripts' printed output, in English or Japanese.

Rendering only: the figures come from :mod:`attnprof.analysis.summary`, the same analysis the pages render as docutils
tables (:mod:`attnprof.sphinxext`), so the numbers agree everywhere. The words come from :mod:`attnprof.words`
(keys ``report.*``) in the language asked for (``lang``, English by default); kernel names, variant names, PyTorch's
own messages and units stay as they are. Columns are padded by display width, so Japanese headers line up in a
monospace font.
"""

from __future__ import annotations

import statistics
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from attnprof import words
from attnprof.analysis.summary import Analysis, analyse, cpu_cost
from attnprof.noise import Figure
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.forcing import Forcing
from attnprof.records.results import CpuCosts, Result
from attnprof.records.sweep import METRICS, Ceilings, Sweep
from attnprof.words.fmt import shorten

if TYPE_CHECKING:
    from attnprof.inputs import Setup


class SweepPlan(Protocol):
    """What :func:`sweep_plan` reads of a sweep's configuration (:class:`attnprof.measure.sweeprun.SweepConfig`)."""

    device: str
    variants: tuple[str, ...]
    seqs: tuple[int, ...]
    head_dims: tuple[int, ...]
    batch: int
    heads: int
    dtype: str
    compiled_seqs: tuple[int, ...] | None


def cell(x: float | None, spec: str, none: str = "-") -> str:
    """A table cell: ``x`` in the format ``spec`` (``".3f"``), or ``none`` when it was not measured."""
    return none if x is None else format(x, spec)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, columns: int) -> str:
    return text + " " * (columns - display_width(text))


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A fixed-width text table with a rule under the header (columns padded by display width)."""
    rows = [list(map(str, r)) for r in rows]
    widths = [max(display_width(h), *(display_width(r[i]) for r in rows)) if rows else display_width(h)
              for i, h in enumerate(headers)]  # fmt: skip
    line = lambda cells: "  ".join(_pad(c, w) for c, w in zip(cells, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def analysed(result: Result | Analysis) -> Analysis:
    """``result`` analysed (:func:`attnprof.analysis.summary.analyse`), unless it already is."""
    return result if isinstance(result, Analysis) else analyse(result)


def status_word(status: str, lang: str | None) -> str:
    """A result's status (``no_cuda``) in ``lang``: the status itself in English, its word in another language."""
    return words.text_or(f"status.{status}", status, lang) if lang and words.language(lang) != "en" else status


# --- what a script runs, and its check ---------------------------------------------------------------------------


def describe(setup: Setup, lang: str | None = None) -> str:
    """``[8, 16, 1024, 64] bfloat16 on cuda`` (:meth:`attnprof.inputs.Setup.describe`) in ``lang``."""
    return words.text("report.setup_desc", lang, shape=list(setup.shape), dtype=setup.dtype, device=setup.device)


def setup_line(setup: Setup, lang: str | None = None) -> str:
    """What a gallery script runs on (and, on the CPU, what that means for its output)."""
    line = words.text("report.setup", lang, setup=describe(setup, lang))
    if setup.device == "cpu":
        line += "\n" + words.text("report.cpu_fallback", lang)
    return line


def error_line(error: float, lang: str | None = None) -> str:
    """``relative error against float64: 3.9e-03``."""
    return words.text("report.rel_error", lang, error=f"{error:.1e}")


def refused_line(exc: BaseException, lang: str | None = None) -> str:
    """Why a call could not run here: the first line of PyTorch's message, in PyTorch's words."""
    text = str(exc).strip()
    reason = f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"
    return words.text("report.refused", lang, reason=reason)


def trace_line(path: object, lang: str | None = None) -> str:
    """Where the exported trace is, and what opens it; or that there is none (the call could not run)."""
    if path is None:
        return words.text("report.no_trace", lang)
    return words.text("report.trace_saved", lang, path=getattr(path, "name", path))


def first_look_line(sort_by: str, lang: str | None = None) -> str:
    """The line above the profiler's own ``key_averages().table(...)``."""
    return words.text("report.first_look", lang, column=sort_by)


# --- one result ---------------------------------------------------------------------------------------------------


def kernel_table(result: Result | Analysis, width: int = 48, lang: str | None = None,
                 phase: str | None = None) -> str:  # fmt: skip
    """One row per distinct GPU activity of the active steps: what the kernel table on the site shows; ``phase``
    (``"fwd"``, ``"bwd"``) keeps only that phase of a training step."""
    a = analysed(result)
    result = a.result
    if not result.ok:
        return words.text("report.not_run", lang, variant=result.variant, status=status_word(result.status, lang),
                          reason=result.reason)  # fmt: skip
    rows = a.rows if phase is None else a.phases.get(phase, ())
    if not rows:
        return words.text("report.no_gpu_activity", lang, variant=result.variant, device=result.device)
    body = []
    for r in rows:
        theo = r.theoretical
        limiter = words.limiters(theo.limiters or [theo.limiter], lang) if theo else ""
        body.append(
            [
                shorten(r.info.text(lang), width),
                r.info.family_text(lang),
                cell(r.per_step, "g"),
                cell(r.avg_us, ".1f"),
                r.launch_api or "-",
                cell(r.registers_per_thread, "d"),
                cell(r.shared_memory, "d"),
                "x".join(map(str, r.grid)) + " / " + "x".join(map(str, r.block)) if r.grid and r.block else "-",
                cell(r.reported_occupancy, "g", "-") + ("%" if r.reported_occupancy is not None else ""),
                (f"{theo.percent:.1f}%" + (f" ({limiter})" if theo.percent < 100 else "")) if theo else "-",
            ]
        )
    keys = ("kernel", "family", "per_step", "avg_us", "launch_api", "regs", "smem", "grid_block", "reported_occ",
            "theoretical_occ")  # fmt: skip
    return table([words.text(f"report.col.{k}", lang) for k in keys], body)


def summary(result: Result | Analysis, lang: str | None = None) -> str:
    """Two or three lines: what ran, and its headline figures (or why it could not run)."""
    a = analysed(result)
    result = a.result
    head = f"{result.variant}: " + words.text(
        "report.setup_desc", lang, shape=list(result.shape), dtype=result.dtype, device=result.device
    )
    if not result.ok:
        return head + "\n" + words.text("report.could_not_run", lang, status=status_word(result.status, lang),
                                        reason=result.reason)  # fmt: skip
    r = a.summary
    t = result.timing
    timer = words.text("report.timer.cpu" if t is None or t.timer == "perf_counter" else "report.timer.cuda", lang)
    lines = [
        head,
        words.text(
            "report.per_step",
            lang,
            activities=f"{r.activities_per_step:g}",
            kernels=f"{r.kernels_per_step:g}",
            cpu_us=f"{r.cpu_us:.0f}",
            steps=len(result.steps),
        ),
    ]
    if t is not None:
        gpu = t.gpu
        flag = words.text("report.unstable_flag", lang) if t.unstable else ""
        lines.append(
            words.text(
                "report.without_profiler",
                lang,
                ms=f"{gpu.median:.3f}",
                reps=t.repetitions,
                lo=f"{gpu.lo:.3f}",
                hi=f"{gpu.hi:.3f}",
                timer=timer,
                flag=flag,
                dispatch_us=f"{t.dispatch_us_median:.0f}",
                tflops=words.text("report.na", lang) if result.device == "cpu" else f"{t.tflops:.1f}",
                peak=words.text("report.na", lang) if r.peak_mib is None else f"{r.peak_mib:.0f} MiB",
                error=cell(t.rel_error, ".1e", words.text("report.na", lang)),
            )
        )
    if result.reference_check not in (None, "ok"):
        lines.append(words.text("report.reference_check", lang, check=result.reference_check,
                                reason=result.reference_reason))  # fmt: skip
    return "\n".join(lines)


def on_cpu(results: Iterable[Result | Analysis]) -> bool:
    """Whether every one of ``results`` ran on the CPU: their times are then CPU times, and the GPU's figures
    (activities, kernels, TFLOP/s against the GPU's ceilings) do not apply."""
    devices = {analysed(r).result.device for r in results}
    return devices == {"cpu"}


def time_column(cpu: bool, lang: str | None = None, unit: str = "ms") -> str:
    """The header of a time column, naming the device that ran: ``GPU ms`` or ``CPU ms`` (``unit``: ``ms``,
    ``us``)."""
    return words.text("report.col.device_time", lang, device="CPU" if cpu else "GPU", unit=unit)


def compare_table(results: Iterable[Result | Analysis], lang: str | None = None, reason_width: int = 60) -> str:
    """One line per result with the at-a-glance figures. On the CPU the time column says ``CPU ms`` and the
    figures that only a GPU has (activities and kernels per step, TFLOP/s) are ``n/a``; a reason is shortened at a
    word (:func:`attnprof.words.fmt.shorten`)."""
    found = [analysed(item) for item in results]
    cpu = on_cpu(found)
    na = words.text("report.na", lang)
    gpu_only = (lambda x, spec: na) if cpu else cell
    body = []
    for a in found:
        r, res = a.summary, a.result
        if not res.ok:
            body.append([r.variant, status_word(res.status, lang), *["-"] * 7,
                         shorten(r.reason or "", reason_width)])  # fmt: skip
            continue
        body.append(
            [
                r.variant,
                status_word("ok", lang),
                gpu_only(r.activities_per_step, "g"),
                gpu_only(r.kernels_per_step, "g"),
                cell(r.gpu_ms, ".3f"),
                cell(r.cpu_us, ".0f"),
                cell(r.dispatch_us, ".0f"),
                gpu_only(r.tflops, ".1f"),
                cell(r.peak_mib, ".0f"),
                r.main_kernel or "-",
            ]
        )
    keys = ("variant", "status", "acts_per_step", "kernels_per_step", None, "cpu_us_prof", "dispatch_us", "tflops",
            "peak_mib", "main_kernel")  # fmt: skip
    headers = [words.text(f"report.col.{k}", lang) if k else time_column(cpu, lang) for k in keys]
    return table(headers, body)


# --- sweeps ---------------------------------------------------------------------------------------------------------

_SPEC = {"gpu_ms": ".4g", "tflops": ".3g", "peak_mib": ".0f", "dispatch_us": ".0f"}


def sweep_table(sweep: Sweep, metric: str = "gpu_ms", head_dim: int | None = None, lang: str | None = None) -> str:
    """One block per head_dim: a row per variant, a column per sequence length, ``metric`` in the cells.

    A point that did not run shows its status (``OOM``, ``unsupported``, ...); a point the sweep did not plan
    (a compiled variant between its few sequence lengths) shows ``-``; a time resting on unstable samples ends in
    ``!`` (see :func:`sweep_summary`). The reasons follow the table.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
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
                    cells.append(words.text_or(f"report.short.{p.status}", p.status, lang))
                    reasons.setdefault(p.reason or p.status, []).append(f"{v} hd{d} seq{s}")
                else:
                    mark = "!" if p.unstable and metric in ("gpu_ms", "tflops") else ""
                    cells.append(cell(p.metric(metric), _SPEC[metric], words.text("report.na", lang)) + mark)
            body.append(cells)
        title = words.text("report.sweep.title", lang, head_dim=d, metric=words.text(f"report.sweep.{metric}", lang),
                           batch=sweep.batch, heads=sweep.heads, dtype=sweep.dtype, device=sweep.device)  # fmt: skip
        blocks.append(title + "\n" + table([words.text("report.col.variant", lang), *map(str, sweep.seqs)], body))
    if reasons:
        lines = [words.text("report.sweep.why", lang)]
        for reason, where in reasons.items():
            more = words.text("report.sweep.more", lang, n=len(where) - 4) if len(where) > 4 else ""
            lines.append(f"  {', '.join(where[:4])}{more}: {shorten(reason, 160)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def sweep_summary(sweep: Sweep, lang: str | None = None) -> str:
    """The sweep's conclusions in a few lines: ceilings, SDPA's pick against the fastest, CPU-bound points."""
    say = lambda key, **fields: words.text(key, lang, **fields)  # noqa: E731
    completion = say("report.sweep.complete" if sweep.complete else "report.sweep.incomplete")
    device = words.device(sweep.environment.device_name, lang)
    lines = [say("report.sweep.head", device=device, points=len(sweep.points),
                 seconds=f"{sweep.elapsed_s:.1f}", timer=sweep.timer, completion=completion)]  # fmt: skip
    c = sweep.ceilings
    if c is not None:
        lines.append(say("report.sweep.ceilings", tflops=f"{c.matmul_tflops:.0f}", n=c.matmul_n,
                         gbs=f"{c.bandwidth_gbs:.0f}", ridge=f"{c.ridge:.0f}"))  # fmt: skip
    for cmp in sweep.sdpa_comparisons():
        where = f"hd{cmp.head_dim} seq{cmp.seq}"
        if cmp.pick is None:
            lines.append(say("report.sweep.pick_missing", where=where))
            continue
        verdict = say("report.na")
        margin = "" if cmp.margin is None else _margin(cmp.margin, lang)
        if cmp.outcome == "yes":
            verdict = say("report.sweep.pick_fastest") + (say("report.sweep.pick_tie_slowdown", margin=margin)
                                                          if margin else "")  # fmt: skip
        elif cmp.outcome == "tie":
            verdict = say("report.sweep.pick_tie", backend=cmp.fastest_backend) + (
                say("report.sweep.pick_tie_slowdown", margin=margin) if margin else ""
            )
        elif cmp.outcome == "no":
            verdict = say("report.sweep.pick_slower", backend=cmp.fastest_backend) + (
                say("report.sweep.pick_slowdown", margin=margin) if margin else ""
            )
        elif cmp.outcome == "unreliable":
            verdict = say("report.sweep.pick_unreliable")
        lines.append(say("report.sweep.pick", where=where, pick=cmp.pick, verdict=verdict,
                         fastest=cmp.fastest_variant))  # fmt: skip
    bound = sweep.cpu_bound()
    if sweep.device == "cuda":
        if bound:
            lines.append(say("report.sweep.cpu_bound"))
            for p in bound:
                lines.append(say("report.sweep.cpu_bound_point", point=f"{p.variant} hd{p.head_dim} seq{p.seq}",
                                 dispatch_us=f"{p.dispatch_us:.0f}", gpu_us=f"{p.gpu_ms * 1e3:.0f}"))  # fmt: skip
        else:
            lines.append(say("report.sweep.no_cpu_bound"))
    for p in sweep.remeasured():
        lines.append(say("report.sweep.remeasured", point=f"{p.variant} hd{p.head_dim} seq{p.seq}",
                         why=say(f"sweep.why.{p.remeasured}"), first=cell(p.first_gpu_ms, ".4g"),
                         kept=cell(p.gpu_ms, ".4g")))  # fmt: skip
    for p in sweep.unreliable():
        g = p.gpu
        lines.append(say("report.sweep.unreliable", point=f"{p.variant} hd{p.head_dim} seq{p.seq}",
                         median=f"{g.median:.4g}", lo=f"{g.lo:.4g}", hi=f"{g.hi:.4g}"))  # fmt: skip
    for p in sweep.unstable():
        lines.append(say("report.sweep.unstable", point=f"{p.variant} hd{p.head_dim} seq{p.seq}",
                         p10=f"{p.gpu_ms_p10:.4g}", p90=f"{p.gpu_ms_p90:.4g}", attempts=p.attempts))  # fmt: skip
    if sweep.note:
        lines.append(cpu_sweep_note(sweep, lang) if sweep.device == "cpu" else sweep.note)
    return "\n".join(lines)


def _margin(m: Figure, lang: str | None) -> str:
    """``+6.2% [+0.0%, +12.6%]``: a difference as a fraction, with its band."""
    pct = lambda x: f"{100 * x:+.1f}%"  # noqa: E731
    return words.text("report.sweep.margin", lang, median=pct(m.median), lo=pct(m.lo), hi=pct(m.hi))


def cpu_sweep_note(sweep: Sweep, lang: str | None = None) -> str:
    """What a sweep on the CPU can and cannot say."""
    seqs, head_dims = ", ".join(map(str, sweep.seqs)), ", ".join(map(str, sweep.head_dims))
    return words.text("report.sweep.cpu_note", lang, batch=sweep.batch, heads=sweep.heads, dtype=sweep.dtype,
                      seqs=seqs, head_dims=head_dims)  # fmt: skip


def sweep_plan(config: SweepPlan, lang: str | None = None) -> str:
    """What a sweep will run, in two or three lines."""
    c = config
    lines = [
        words.text("report.sweep.plan", lang, device=c.device, variants=", ".join(c.variants)),
        words.text(
            "report.sweep.plan_shapes",
            lang,
            seqs=list(c.seqs),
            head_dims=list(c.head_dims),
            batch=c.batch,
            heads=c.heads,
            dtype=c.dtype,
        ),
    ]
    if c.compiled_seqs is not None:
        lines.append(words.text("report.sweep.plan_compiled", lang, seqs=list(c.compiled_seqs)))
    return "\n".join(lines)


def ceilings_line(ceilings: Ceilings | None, lang: str | None = None) -> str:
    """The device's two ceilings and where they meet, or that the CPU has none."""
    if ceilings is None:
        return words.text("report.no_ceilings", lang)
    return words.text("report.ceilings", lang, tflops=f"{ceilings.matmul_tflops:.0f}",
                      gbs=f"{ceilings.bandwidth_gbs:.0f}", ridge=f"{ceilings.ridge:.0f}")  # fmt: skip


def sweep_saved_line(sweep: Sweep, path: object, lang: str | None = None) -> str:
    """How many points were measured, how long it took, and the file they went to."""
    return words.text("report.sweep.saved", lang, points=len(sweep.points), seconds=f"{sweep.elapsed_s:.1f}",
                      name=getattr(path, "name", path))  # fmt: skip


def one_point_line(seq: int, samples_ms: Sequence[float], device: str, lang: str | None = None) -> str:
    """One call timed by hand on ``device``: the median of ``samples_ms`` and what timed it."""
    timer = words.text("report.timer.cuda" if device == "cuda" else "report.timer.cpu", lang)
    median = statistics.median(samples_ms)
    return words.text("report.one_point", lang, seq=seq, ms=f"{median:.4g}", timer=timer, reps=len(samples_ms))


# --- CPU cost per call --------------------------------------------------------------------------------------------


def cpu_cost_table(costs: CpuCosts, lang: str | None = None) -> str:
    """One line per variant of a side-by-side CPU-cost measurement."""
    body = []
    for r in costs.rows:
        if r.status != "ok":
            body.append([r.variant, status_word(r.status, lang), "-", "-", "-", shorten(r.reason or "", 60)])
            continue
        share = cpu_cost(r.variant, None, r).profiler_share
        body.append(
            [
                r.variant,
                status_word("ok", lang),
                _band(r.profiled, ".0f"),
                _band(r.dispatch, ".0f"),
                "-" if share is None else f"{100 * share:.0f}%",
                words.text("report.calls", lang, profiled=r.samples[0], unprofiled=r.samples[1])
                if len(r.samples) == 2
                else "",
            ]
        )
    keys = ("variant", "status", "profiled_us", "dispatch_us", "profiler_share", "samples")
    head = words.text(
        "report.cpu.rounds", lang, rounds=costs.rounds, device=words.device(costs.environment.device_name, lang)
    )
    return head + "\n" + table([words.text(f"report.col.{k}", lang) for k in keys], body)


def fixed_costs_lines(costs: FixedCosts, lang: str | None = None) -> str:
    """The shape-independent CPU costs of a build (:mod:`attnprof.records.fixedcosts`): what forcing a backend costs
    per call, and what the profiler adds to one op; or why either was not measured."""
    lines = []
    f = costs.forcing
    if f is not None:
        lines.append(words.text("report.fixed.forcing", lang, median=f"{f.median:.2f}", lo=f"{f.lo:.2f}",
                                hi=f"{f.hi:.2f}", calls=costs.forcing_calls, rounds=costs.rounds))  # fmt: skip
    p = costs.profiler_per_op
    if p is not None and costs.op_us is not None and costs.profiled_op_us is not None:
        lines.append(words.text("report.fixed.profiler", lang, op=costs.op, plain=f"{costs.op_us.median:.2f}",
                                profiled=f"{costs.profiled_op_us.median:.2f}", median=f"{p.median:.2f}",
                                lo=f"{p.lo:.2f}", hi=f"{p.hi:.2f}",
                                events=cell(costs.events_per_call, ".1f")))  # fmt: skip
    if costs.reason:
        lines.append(words.text("report.fixed.missing", lang, reason=costs.reason))
    return "\n".join(lines)


def forcing_table(run: Forcing, lang: str | None = None) -> str:
    """The side-by-side issue times at the decision table's shapes (:mod:`attnprof.records.forcing`): one block per
    shape, one line per call, with what it adds against SDPA's own choice."""
    out = [words.text("report.forcing.head", lang, device=words.device(run.environment.device_name, lang),
                      seconds=f"{run.seconds:.1f}")]  # fmt: skip
    keys = ("variant", "status", "issue_us", "over_auto_us")
    for case in run.cases:
        length = words.text(f"workload.length.{case.workload}", lang, n=case.length)
        out.append(words.text("report.forcing.case", lang, workload=words.text(f"workload.{case.workload}", lang),
                              length=length, rounds=case.rounds, calls=case.calls))  # fmt: skip
        body = [
            [r.variant, status_word("ok" if r.ok else r.status, lang), _band(r.issue, ".1f"),
             _band(r.over_auto, ".1f") if r.ok else "" if r.status == "slow" else shorten(r.reason or "", 60)]
            for r in case.rows
        ]  # fmt: skip
        out.append(table([words.text(f"report.col.{k}", lang) for k in keys], body))
    return "\n".join(out)


def cpu_by_hand_line(variant: str, without_us: float, with_us: float, lang: str | None = None) -> str:
    """One call's CPU time measured by hand, without the profiler and inside its annotation with it."""
    return words.text("report.cpu.by_hand", lang, variant=variant, without_us=f"{without_us:.0f}",
                      with_us=f"{with_us:.0f}")  # fmt: skip


def _band(f: Figure | None, spec: str) -> str:
    """``90 (88-93)``: a figure and its interval; ``-`` for none."""
    return "-" if f is None else f"{format(f.median, spec)} ({format(f.lo, spec)}-{format(f.hi, spec)})"
