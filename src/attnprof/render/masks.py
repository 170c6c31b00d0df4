"""A mask run (:class:`attnprof.records.masks.MaskRun`) as tables: per mask, every method's time, rate, memory and
backend (or PyTorch's reason, numbered under the table); the block masks built apart from the kernel; and
FlexAttention against the fastest dense-mask SDPA. The gallery script prints them as text; the page's directives
(:mod:`attnprof.sphinxext.masks`) build the same cells into tables."""

from __future__ import annotations

from dataclasses import dataclass, field

from attnprof import words, workloads
from attnprof.analysis import kernels
from attnprof.analysis import masks as view
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun
from attnprof.render.report import table
from attnprof.words import fmt


@dataclass
class Table:
    """Headers, rows of cells, and the reasons the rows point to (numbered from 1): each a text and whether it is
    PyTorch's, as recorded (``False``: attnprof's words, in the page's language)."""

    headers: list[str]
    rows: list[list[str]]
    notes: list[tuple[str, bool]] = field(default_factory=list)


def band(figure: object) -> str:
    """``0.512 [0.509, 0.518]``: a time's median and its band, ms; ``—`` without one."""
    from attnprof.noise import Figure

    if not isinstance(figure, Figure):
        return "—"
    return f"{fmt.number(figure.median)} [{fmt.number(figure.lo)}, {fmt.number(figure.hi)}]"


def size_words(mask: str, window: int, prefix: int, seq: int, lang: str | None = None) -> str:
    """What sets the mask at this size: ``window 256``, ``prefix 1024``, or the first row's document lengths."""
    if window:
        return words.text("mask.size.window", lang, n=window)
    if prefix:
        return words.text("mask.size.prefix", lang, n=prefix)
    return words.text("mask.size.none", lang, lengths="+".join(map(str, workloads.document_lengths(seq))))


class KernelName(str):
    """A kernel's (or a CPU operator's) short decoded label, in the page's language, that keeps the full name as
    recorded (:attr:`full`): text shows the label; the page shows the label with the full name on hover."""

    full: str

    def __new__(cls, label: str, full: str) -> KernelName:
        named = super().__new__(cls, label)
        named.full = full
        return named


def longest(kernels_: list[tuple[str, float]], lang: str | None = None) -> KernelName | str:
    """The kernel (GPU) or operator (CPU) that took the most time in the traced step, as its short label
    (:func:`attnprof.analysis.kernels.decode`); ``""`` when the step was not traced."""
    if not kernels_:
        return ""
    name = kernels_[0][0]
    return KernelName(kernels.decode(name).text(lang) or name, name)


def status_cell(case: MaskCase, notes: list[tuple[str, bool]], lang: str | None = None) -> str:
    """The backend that ran, or the status and the number of its reason in ``notes`` (added there once)."""
    if case.status == "ok":
        return words.text("mask.cell.ran", lang, backend=case.ran) if case.ran else ""
    ours = f"mask.why.{case.status}"  # a case attnprof left out says so in the page's words
    note = (words.text(ours, lang), False) if words.has(ours) else (case.reason or "", True)
    if note not in notes:
        notes.append(note)
    status = words.text_or(f"mask.status.{case.status}", words.text_or(f"status.{case.status}", case.status, lang),
                           lang)  # fmt: skip
    return words.text("mask.cell.note", lang, status=status, note=notes.index(note) + 1)


def mask_table(run: MaskRun, mask: str, lang: str | None = None) -> Table:
    """Every case of ``mask``: size, length, step, method, time, useful rate, peak memory, backend or why not."""
    keys = ("size", "seq", "workload", "method", "time", "tflops", "peak", "first", "kernel", "ran")
    out = Table([words.text(f"mask.col.{k}", lang) for k in keys], [])
    for c in (c for c in run.cases if c.mask == mask):
        rate = "" if c.tflops is None else fmt.number(c.tflops)
        peak = "" if c.peak_bytes is None else fmt.unit(fmt.number(c.peak_bytes / 2**20), "MiB")
        first = "" if c.first_ms is None else fmt.number(c.first_ms)
        out.rows.append([
            size_words(c.mask, c.window, c.prefix, c.seq, lang), str(c.seq),
            words.text(f"mask.workload.{c.workload}", lang), words.text(f"mask.method.{c.method}", lang),
            band(c.time_ms), rate, peak, first, longest(c.kernels, lang), status_cell(c, out.notes, lang),
        ])  # fmt: skip
    return out


def builds_table(run: MaskRun, lang: str | None = None) -> Table:
    """The block masks: mask, size, length, build time, share of blocks computed, share of pairs kept, kernels
    launched, and the build in calls of the forward kernel it serves."""
    keys = ("mask", "size", "seq", "build", "kept", "density", "launches", "kernel", "calls")
    out = Table([words.text(f"mask.col.{k}", lang) for k in keys], [])
    flex = {(c.mask, c.seq, c.window, c.prefix): c for c in run.cases if _is_flex_forward(c)}
    for b in run.builds:
        share = view.build_share(b, flex.get((b.mask, b.seq, b.window, b.prefix)))
        out.rows.append([
            words.text(f"mask.name.{b.mask}", lang), size_words(b.mask, b.window, b.prefix, b.seq, lang),
            str(b.seq), band(b.time_ms) if b.status == "ok" else status_cell(_as_case(b), out.notes, lang),
            "" if b.kept_blocks is None else fmt.percent(100 * b.kept_blocks),
            "" if b.density is None else fmt.percent(100 * b.density), str(b.launches or ""),
            longest(b.kernels, lang),
            "" if share is None else band(share),
        ])  # fmt: skip
    return out


def _is_flex_forward(case: MaskCase) -> bool:
    return workloads.get_method(case.method).compiled and case.workload == _forward()


def _forward() -> str:
    from attnprof import workloads

    return next(w.name for w in workloads.WORKLOADS.values() if not w.backward and not w.kv_cache)


def _as_case(b: BlockMaskBuild) -> MaskCase:
    return MaskCase(b.mask, "flex", _forward(), [0, 0, b.seq, 0], "", status=b.status, reason=b.reason)


def verdicts_table(run: MaskRun, lang: str | None = None) -> Table:
    """FlexAttention against the fastest dense-mask SDPA, per mask, size, length and step, by the noise rule."""
    keys = ("mask", "size", "seq", "workload", "flex", "dense", "verdict", "nested")
    out = Table([words.text(f"mask.col.{k}", lang) for k in keys], [])
    for v in view.verdicts(run):
        dense = ""
        if v.dense is not None:
            dense = f"{band(v.dense.time_ms)} ({words.text(f'mask.method.{v.dense.method}', lang)})"
        verdict = words.text(f"mask.outcome.{v.outcome}", lang)
        if v.ratio is not None and v.outcome in ("flex_faster", "dense_faster"):
            verdict += words.text("list.sep", lang) + words.times(min(v.ratio, 1 / v.ratio), lang)  # the winner's
        nested = "" if v.nested is None else band(v.nested.time_ms)
        out.rows.append([
            words.text(f"mask.name.{v.mask}", lang), size_words(v.mask, v.window, v.prefix, v.seq, lang), str(v.seq),
            words.text(f"mask.workload.{v.workload}", lang),
            band(v.flex.time_ms) if v.flex is not None and v.flex.status == "ok" else "—", dense, verdict, nested,
        ])  # fmt: skip
    return out


def as_text(t: Table, lang: str | None = None) -> str:
    """A table as fixed-width text, its numbered reasons under it."""
    text = table(t.headers, t.rows)
    if t.notes:
        text += "\n" + words.text("mask.notes", lang) + "\n"
        text += "\n".join(f"  ({i}) {n}" for i, (n, _) in enumerate(t.notes, 1))
    return text


def report(run: MaskRun, lang: str | None = None) -> str:
    """Everything the gallery script prints: a table per mask, the block masks, and the verdicts."""
    parts = []
    for name in dict.fromkeys(c.mask for c in run.cases):
        parts.append(words.text("mask.report.mask", lang, mask=words.text(f"mask.name.{name}", lang)))
        parts.append(as_text(mask_table(run, name, lang), lang))
    parts.append(words.text("mask.report.builds", lang))
    parts.append(as_text(builds_table(run, lang), lang))
    parts.append(words.text("mask.report.verdicts", lang))
    parts.append(as_text(verdicts_table(run, lang), lang))
    return "\n\n".join(parts)


def summary_fields(run: MaskRun, lang: str | None = None) -> dict[str, str]:
    """The fields of the ``mask.summary`` sentence: device, batch, heads, head dim, dtype, lengths, timed calls."""
    shape = run.cases[0].shape if run.cases else [0, 0, 0, 0]
    seqs = ", ".join(str(s) for s in dict.fromkeys(c.seq for c in run.cases))
    dtype = run.cases[0].dtype if run.cases else ""
    return dict(device=words.device(run.environment.device_name, lang), batch=str(shape[0]), heads=str(shape[1]),
                head_dim=str(shape[3]), dtype=dtype, seqs=seqs, reps=str(run.min_reps))  # fmt: skip


# --- one line per case, as the probe prints them ---------------------------------------------------------------


def case_line(case: MaskCase) -> str:
    """One line: the case, its time and rate, or why it did not run."""
    what = f"{case.mask:15} {case.method:15} {case.workload:5} S{case.seq:<6} w{case.window:<5} p{case.prefix:<5}"
    if case.time_ms is None:
        return f"{what} {case.status}: {case.reason}"[:400]
    t = case.time_ms
    mem = "" if case.peak_bytes is None else f" peak {case.peak_bytes / 2**20:9.1f} MiB"
    err = "" if case.rel_error is None else f" err {case.rel_error:.1e}"
    ran = f" ran {case.ran}" if case.ran else ""
    first = f" first {case.first_ms:.0f} ms" if case.first_ms is not None else ""
    return f"{what} {t.median:9.3f} ms [{t.lo:.3f}, {t.hi:.3f}] {case.tflops or 0:7.1f} TFLOP/s{mem}{err}{ran}{first}"


def build_line(build: BlockMaskBuild) -> str:
    """One line: the block mask, its build time, its kept blocks, and its launches."""
    what = f"{build.mask:15} block_mask      S{build.seq:<6} w{build.window:<5} p{build.prefix:<5}"
    if build.time_ms is None:
        return f"{what} {build.status}: {build.reason}"
    t = build.time_ms
    return (f"{what} {t.median:9.3f} ms [{t.lo:.3f}, {t.hi:.3f}] kept blocks {build.kept_blocks:.3f} density "
            f"{build.density:.3f} launches {build.launches}")  # fmt: skip
