"""Text tables of the other workloads (:mod:`attnprof.workloads`): a training or decoding result's own figures, the
build's training and decoding tables, and a context-parallel run (:mod:`attnprof.parallel`), for the command line
and the gallery scripts."""

from __future__ import annotations

from collections.abc import Iterable

from .analysis import Analysis
from .parallel import PLAIN_COMMAND, TORCHRUN_COMMAND, ParallelCase, ParallelRun
from .report import _analysed, _fmt, summary, table
from .results import Result
from .workload_analysis import DecodeRow, TrainRow, train_row


def workload_summary(result: Result | Analysis) -> str:
    """:func:`summary`, plus what only a training or decoding result measures."""
    a = _analysed(result)
    res = a.result
    lines = [summary(a)]
    if res.workload != "prefill":
        lines[0] = lines[0].replace(" ms per forward (", f" ms per {res.workload} step (")
    if res.kv_len:
        lines[0] = lines[0].replace("\n", f", KV cache {res.kv_heads} heads x {res.kv_len}\n", 1)
    f, d = res.train_figures, res.decode_figures
    if res.ok and f is not None and res.timing is not None:
        row = train_row(a)
        saved = "n/a" if f.saved_bytes is None else f"{f.saved_bytes / 2**20:.1f}"
        lines.append(f"  training step: forward {f.fwd_ms_median:.3f} ms + backward {_fmt(row.bwd_ms, '.3f', 'n/a')} "
                     f"ms (backward/forward {_fmt(row.bwd_over_fwd, '.2f', 'n/a')}); kept for the backward {saved} "
                     f"MiB; gradient error {f.grad_rel_error:.1e}")  # fmt: skip
    if res.ok and d is not None:
        ceiling = (
            "" if d.read_fraction is None else f", {100 * d.read_fraction:.0f}% of {d.read_ceiling_gbs:.0f} GB/s"
        )
        lines.append(f"  decoding step: {d.bytes / 2**20:.1f} MiB moved at {d.gbs:.0f} GB/s{ceiling}")
        g = d.graph
        if g is not None and g.status == "ok":
            lines.append(f"  CUDA graph: CPU {g.eager_cpu_us:.1f} -> {g.graph_cpu_us:.1f} us, wall "
                         f"{g.eager_wall_us:.1f} -> {g.graph_wall_us:.1f} us, GPU {g.eager_gpu_us:.1f} -> "
                         f"{g.graph_gpu_us:.1f} us")  # fmt: skip
        elif g is not None:
            lines.append(f"  CUDA graph: not captured ({g.status}): {g.reason}")
    return "\n".join(lines)


def train_table(rows: Iterable[TrainRow]) -> str:
    """One line per variant's training step (:meth:`attnprof.workload_analysis.Build.train_rows`)."""
    body = []
    for r in rows:
        if r.step_ms is None:
            body.append([r.variant, str(r.seq), r.status, *["-"] * 5, (r.reason or "")[:60]])
            continue
        body.append([r.variant, str(r.seq), _fmt(r.step_ms, ".3f"), _fmt(r.fwd_ms, ".3f"), _fmt(r.bwd_ms, ".3f"),
                     _fmt(r.bwd_over_fwd, ".2f"), _fmt(r.tflops, ".1f"), _fmt(r.peak_mib, ".0f"),
                     r.bwd_main or "-"])  # fmt: skip
    headers = ["variant", "seq", "step ms", "fwd ms", "bwd ms", "bwd/fwd", "TFLOP/s", "peak MiB", "main bwd kernel"]
    return table(headers, body)


def decode_table(rows: Iterable[DecodeRow]) -> str:
    """One line per variant and cache length (:meth:`attnprof.workload_analysis.Build.decode_rows`)."""
    body = []
    for r in rows:
        if r.gpu_us is None:
            body.append([r.variant, str(r.kv_len), r.status, *["-"] * 4, (r.reason or "")[:60]])
            continue
        share = "-" if r.read_fraction is None else f"{100 * r.read_fraction:.0f}%"
        bound = " (CPU-bound)" if r.launch_bound else ""
        issue = _fmt(r.dispatch_us, ".1f") + bound
        body.append([r.variant, str(r.kv_len), _fmt(r.gpu_us, ".1f"), _fmt(r.gbs, ".0f"), share, issue,
                     _fmt(r.kernels_per_step, "g"), ", ".join(r.kernels)[:60]])  # fmt: skip
    headers = ["variant", "KV len", "GPU us", "GB/s", "of read", "issue us", "kernels", "decoded"]
    return table(headers, body)


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
