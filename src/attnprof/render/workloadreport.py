"""Text tables of the other workloads (:mod:`attnprof.workloads`): a training or decoding result's own figures, the
build's training and decoding tables, and a context-parallel run (:mod:`attnprof.records.parallel`), for the command
line and the gallery scripts, in English or Japanese.

Rendering only, like :mod:`attnprof.render.report`: the words come from :mod:`attnprof.words` (keys ``wreport.*``) in
the language asked for (``lang``, English by default); kernel names, variant names, rotation methods, PyTorch's own
messages and units stay as they are. The lines the gallery scripts 12 to 14 print around the tables are here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from attnprof import words, workloads
from attnprof.analysis.summary import Analysis
from attnprof.analysis.workload_rows import DecodeRow, GraphRow, TrainRow, train_row
from attnprof.noise import GPU_FLOOR, Figure
from attnprof.records.parallel import PLAIN_COMMAND, TORCHRUN_COMMAND, ParallelCase, ParallelConfig, ParallelRun
from attnprof.records.results import Result
from attnprof.render.report import analysed, cell, describe, status_word, summary, table, time_column
from attnprof.words.fmt import number, shorten

if TYPE_CHECKING:
    from attnprof.inputs import Setup
    from attnprof.records.rank_trace import RankKernel


def _workload(name: str, lang: str | None) -> str:
    return words.text_or(f"wreport.workload.{name}", name, lang)


# --- the lines of the gallery scripts ------------------------------------------------------------------------------


def setup_line(setup: Setup, workload: str, lang: str | None = None) -> str:
    """What a workload's gallery script runs on (with its KV cache), and, on the CPU, what that means for its
    output (``workload``: ``"train"`` or ``"decode"``)."""
    text = describe(setup, lang)
    if setup.kv_heads is not None or setup.kv_len is not None:
        text += words.text("wreport.kv_cache_shape", lang, shape=list(setup.kv_shape))
    line = words.text("wreport.setup", lang, setup=text)
    if setup.device == "cpu" and words.has(f"wreport.cpu.{workload}"):
        line += "\n" + words.text(f"wreport.cpu.{workload}", lang)
    return line


def grad_error_line(name: str, error: float, lang: str | None = None) -> str:
    """``relative error of dq against float64: 3.9e-03``."""
    return words.text("wreport.grad_error", lang, name=name, error=f"{error:.1e}")


def decode_error_line(error: float, lang: str | None = None) -> str:
    """``relative error against float32: 2.2e-03`` (the decoding step's check)."""
    return words.text("wreport.rel_error_fp32", lang, error=f"{error:.1e}")


def causal_pitfall_line(outcome: float | str | BaseException, lang: str | None = None) -> str:
    """What ``is_causal=True`` did to a decoding step: how far its answer is from the right one (relative), or, when
    the backend refused it, the first line of PyTorch's message (the exception, or its text)."""
    if isinstance(outcome, (BaseException, str)):
        reason = (str(outcome).strip().splitlines() or [type(outcome).__name__])[0]
        return words.text("wreport.causal_refused", lang, reason=reason)
    return words.text("wreport.causal_wrong", lang, error=f"{outcome:.2f}")


def replay_line(error: float, lang: str | None = None) -> str:
    """How far a CUDA graph's replay is from the eager step (relative)."""
    return words.text("wreport.replay_error", lang, error=f"{error:.1e}")


def graph_line(row: GraphRow, lang: str | None = None) -> str:
    """One variant's step replayed from a CUDA graph against the eager step, or why it has no graph."""
    if row.status != "ok":
        status = status_word(row.status, lang)
        return words.text("wreport.graph_row_missing", lang, variant=row.variant, status=status, reason=row.reason)
    return words.text("wreport.graph_row", lang, variant=row.variant, kv_len=row.kv_len,
                      **_graph_fields(row))  # fmt: skip


def _graph_fields(g: object) -> dict[str, str]:
    names = ("eager_cpu", "graph_cpu", "eager_wall", "graph_wall", "eager_gpu", "graph_gpu")
    return {n: cell(getattr(g, f"{n}_us"), ".1f") for n in names}


def auto_not_run_line(reason: str | None, lang: str | None = None) -> str:
    """That SDPA's own choice did not run, and why."""
    return words.text("wreport.auto_not_run", lang, reason=reason or "?")


def elapsed_line(seconds: float, lang: str | None = None) -> str:
    """How long a gallery script took."""
    return words.text("wreport.elapsed", lang, seconds=f"{seconds:.1f}")


# --- a training or decoding result ----------------------------------------------------------------------------------


def workload_summary(result: Result | Analysis, lang: str | None = None) -> str:
    """:func:`summary`, plus what only a training or decoding result measures."""
    a = analysed(result)
    res = a.result
    na = words.text("report.na", lang)
    lines = [summary(a, lang)]
    if not workloads.get(res.workload).article:
        step = words.text("wreport.per_step", lang, workload=_workload(res.workload, lang))
        lines[0] = lines[0].replace(words.text("wreport.per_forward", lang), step)
    if res.kv_len:
        kv = words.text("wreport.kv_cache", lang, kv_heads=res.kv_heads, kv_len=res.kv_len)
        lines[0] = lines[0].replace("\n", kv + "\n", 1)
    f, d = res.train_figures, res.decode_figures
    if res.ok and f is not None and res.timing is not None:
        row = train_row(a)
        saved = na if f.saved_bytes is None else f"{f.saved_bytes / 2**20:.1f}"
        lines.append(words.text("wreport.train_step", lang, fwd_ms=f"{f.fwd_ms_median:.3f}",
                                bwd_ms=cell(row.bwd_ms, ".3f", na), ratio=cell(row.bwd_over_fwd, ".2f", na),
                                saved=saved, error=f"{f.grad_rel_error:.1e}"))  # fmt: skip
    if res.ok and d is not None:
        ceiling = ""
        if d.read_fraction is not None:
            ceiling = words.text("wreport.read_ceiling", lang, pct=f"{100 * d.read_fraction:.0f}",
                                 gbs=f"{d.read_ceiling_gbs:.0f}")  # fmt: skip
        lines.append(words.text("wreport.decode_step", lang, mib=f"{d.bytes / 2**20:.1f}", gbs=number(d.gbs),
                                ceiling=ceiling))  # fmt: skip
        g = d.graph
        if g is not None and g.status == "ok":
            lines.append(words.text("wreport.graph", lang, **_graph_fields(g)))
        elif g is not None:
            lines.append(words.text("wreport.graph_not_captured", lang, status=status_word(g.status, lang),
                                    reason=g.reason))  # fmt: skip
    return "\n".join(lines)


def _headers(keys: Iterable[str], lang: str | None, **fields: object) -> list[str]:
    return [words.text(f"wreport.col.{k}", lang, **fields) for k in keys]


def _banded(f: Figure, spec: str) -> str:
    """``0.258 (0.250-0.266)``: a time and its band, at least ±3 % wide (:data:`attnprof.noise.GPU_FLOOR`), as the
    decision compares it."""
    lo, hi = f.band(GPU_FLOOR)
    return f"{format(f.median, spec)} ({format(lo, spec)}-{format(hi, spec)})"


def train_table(rows: Iterable[TrainRow], lang: str | None = None) -> str:
    """One line per variant's training step (:meth:`attnprof.analysis.workload_rows.Build.train_rows`); on the CPU,
    TFLOP/s (a GPU's figure) is ``n/a``."""
    rows = list(rows)
    cpu = bool(rows) and all(r.device == "cpu" for r in rows)
    na = words.text("report.na", lang)
    body = []
    for r in rows:
        if r.step_ms is None:
            body.append([r.variant, str(r.seq), status_word(r.status, lang), *["-"] * 5, shorten(r.reason or "", 60)])
            continue
        step = _banded(r.band.figure, ".3f") if r.band is not None else cell(r.step_ms, ".3f")
        body.append([r.variant, str(r.seq), step, cell(r.fwd_ms, ".3f"), cell(r.bwd_ms, ".3f"),
                     cell(r.bwd_over_fwd, ".2f"), na if cpu else cell(r.tflops, ".1f"), cell(r.peak_mib, ".0f"),
                     r.bwd_main.text(lang) if r.bwd_main else "-"])  # fmt: skip
    keys = ("variant", "seq", "step_ms", "fwd_ms", "bwd_ms", "bwd_over_fwd", "tflops", "peak_mib", "bwd_main")
    return table(_headers(keys, lang), body)


def decode_table(rows: Iterable[DecodeRow], lang: str | None = None) -> str:
    """One line per variant and cache length (:meth:`attnprof.analysis.workload_rows.Build.decode_rows`); the time
    column names the device that ran (``GPU us``, ``CPU us``)."""
    rows = list(rows)
    cpu = bool(rows) and all(r.device == "cpu" for r in rows)
    body = []
    for r in rows:
        if r.gpu_us is None:
            body.append([r.variant, str(r.kv_len), status_word(r.status, lang), *["-"] * 4,
                         shorten(r.reason or "", 60)])  # fmt: skip
            continue
        share = "-" if r.read_fraction is None else f"{100 * r.read_fraction:.0f}%"
        bound = words.text("wreport.cpu_bound", lang) if r.launch_bound else ""
        issue = cell(r.dispatch_us, ".1f") + bound
        gpu = _banded(r.band.figure.scaled(1e3), ".1f") if r.band is not None else cell(r.gpu_us, ".1f")
        decoded = shorten(", ".join(k.text(lang) for k in r.kernels), 60)
        body.append([r.variant, str(r.kv_len), gpu, "-" if r.gbs is None else number(r.gbs), share, issue,
                     cell(r.kernels_per_step, "g"), decoded])  # fmt: skip
    keys = ("variant", "kv_len", None, "gbs", "read_share", "issue_us", "kernels", "decoded")
    headers = [_headers([k], lang)[0] if k else time_column(cpu, lang, unit="us") for k in keys]
    return table(headers, body)


# --- context parallelism -------------------------------------------------------------------------------------------


def parallel_plan(config: ParallelConfig, lang: str | None = None) -> str:
    """What a context-parallel run will run, in two lines."""
    c = config
    return "\n".join([
        words.text("wreport.par.plan", lang, seqs=list(c.seqs), methods=list(c.methods), backend=c.backends[0]),
        words.text("wreport.par.plan_shape", lang, batch=c.batch, heads=c.heads, head_dim=c.head_dim, dtype=c.dtype),
    ])  # fmt: skip


def parallel_run_line(run: ParallelRun, lang: str | None = None) -> str:
    """How many ranks ran and for how long; or why nothing ran (saying so plainly when the machine lacks the two
    GPUs context parallelism needs)."""
    if run.ok:
        return words.text("wreport.par.ran", lang, world=run.world, seconds=f"{run.elapsed_s:.1f}")
    key = "wreport.par.needs_gpus" if run.status in ("no_cuda", "too_few_gpus") else "wreport.par.nothing_ran"
    return words.text(key, lang, status=status_word(run.status, lang), reason=run.reason)


def parallel_table(run: ParallelRun, lang: str | None = None) -> str:
    """One line per case of a context-parallel run: one GPU against all, speed-up, communication, balance, error;
    or why nothing ran and how to run it."""
    if not run.ok:
        return (
            words.text("wreport.par.not_measured", lang, status=status_word(run.status, lang), reason=run.reason)
            + "\n"
            + words.text("wreport.par.how_to_run", lang, torchrun=TORCHRUN_COMMAND, plain=PLAIN_COMMAND)
        )
    pct = lambda x: "-" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    body = []
    for c in run.cases:
        if not c.ok:
            body.append([c.method, str(c.seq), status_word(c.status, lang), "-", "-", "-", "-", "-", "-",
                         shorten(c.reason or "", 70)])  # fmt: skip
            continue
        body.append(
            [c.method, str(c.seq), status_word("ok", lang), cell(c.single_ms, ".2f"), cell(c.step_ms, ".2f"),
             cell(c.speedup, ".2f"), pct(c.comm_share), pct(c.overlap), cell(c.balance, ".3f"),
             cell(c.rel_error, ".1e")]
        )  # fmt: skip
    keys = (
        "method",
        "seq",
        "status",
        "single_ms",
        "world_ms",
        "speedup",
        "comm_share",
        "overlap",
        "balance",
        "error",
    )
    headers = _headers(keys, lang, world=run.world)
    gpus = ", ".join(sorted(set(run.gpus))) or "?"
    head = words.text("wreport.par.head", lang, world=run.world, gpus=gpus, nccl=run.nccl_version,
                      launcher=run.launcher, seconds=f"{run.elapsed_s:.1f}")  # fmt: skip
    return head + "\n" + table(headers, body)


def rank_table(case: ParallelCase, lang: str | None = None) -> str:
    """One line per rank of one case: its time split into attention, NCCL, other kernels and idle GPU (µs, median
    over the profiled steps)."""
    body = []
    for r in case.ranks:
        t = r.trace
        if t is None:
            body.append([str(r.rank), "-", "-", "-", "-", "-"])
            continue
        body.append([str(r.rank), *(cell(t.median(k), ".0f") for k in ("attention_us", "comm_us", "other_us",
                                                                        "idle_us", "span_us"))])  # fmt: skip
    keys = ("rank", "attention_us", "comm_us", "other_us", "idle_us", "span_us")
    title = words.text("wreport.rank.title", lang, method=case.method, seq=case.seq)
    return title + "\n" + table(_headers(keys, lang), body)


def chunk_line(rank: int | None, position: int, kernel: RankKernel, lang: str | None = None) -> str:
    """Which attention kernel one rank ran on one chunk of the ring
    (:func:`attnprof.analysis.rank_traces.chunk_rows`)."""
    return words.text("wreport.chunk", lang, rank=rank, position=position, kernel=kernel.short, grid=kernel.grid,
                      us=f"{kernel.duration_us:.0f}")  # fmt: skip
