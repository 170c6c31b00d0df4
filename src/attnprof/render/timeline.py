"""One profiler step drawn as a timeline: CPU ops above, the GPU stream below, a line from each launch to its kernel.

The picture is what Perfetto or ``chrome://tracing`` shows for the same step, reduced to what the guide talks
about:

- CPU rows, one per nesting depth, with the ops recorded under the annotated call (and, for a training step, one
  per depth of the autograd engine's thread, which runs the backward);
- a row of CUDA runtime and driver calls (``cudaLaunchKernel``, ``cuLaunchKernelEx``, synchronisations, ...);
- one row per GPU stream with the kernels, memcpys and memsets, colored by kernel family
  (:data:`FAMILY_COLORS`, the same on every page) and labelled with their decoded short names where they fit;
- a thin line from each launch call to the activity it launched (the trace's ``correlation`` id).

Every word in it (row names, kernel labels, families, the axis, the alt-text summary) comes from the word table in the
picture's language. It is drawn :data:`WIDTH_IN` inches wide with :data:`attnprof.render.pictures.TEXT_PT`-point text,
so the page shows its text at 12 CSS pixels (:mod:`attnprof.render.pictures`).

matplotlib is imported inside the functions only, so importing this module costs nothing.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import words, workloads
from attnprof.analysis import kernels
from attnprof.records import trace
from attnprof.records.files import write_if_changed
from attnprof.records.results import CpuOp, GpuActivity, Result, StepTrace
from attnprof.render import pictures
from attnprof.words.fmt import shorten

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: One color per kernel family (see :data:`attnprof.analysis.kernels.FAMILIES`); the same on every page and every
# figure.
FAMILY_COLORS: dict[str, str] = {
    "gemm": "#0072B2",
    "flash": "#D55E00",
    "mem_efficient": "#CC79A7",
    "cudnn": "#009E73",
    "triton": "#E69F00",
    "softmax": "#56B4E9",
    "reduce": "#7B5EA7",
    "elementwise": "#F0E442",
    "copy": "#A6761D",
    "fill": "#66A61E",
    "memcpy": "#E7298A",
    "memset": "#8C8C8C",
    "nccl": "#332288",
    "other": "#C8C8C8",
}

#: Colors of the CPU side: ops (by depth, lighter deeper down) and runtime/driver calls.
CPU_COLORS: tuple[str, ...] = ("#9FB4CC", "#B7C8DB", "#CCD8E6", "#DFE7F0")
RUNTIME_COLOR = "#4D4D4D"
LAUNCH_LINE_COLOR = "#555555"

#: Figure width in inches (shown one CSS inch per inch: :mod:`attnprof.render.pictures`).
WIDTH_IN = pictures.MAX_WIDTH_IN

_FONT_SIZE = pictures.TEXT_PT
# layout in inches: rows, the title above them, the axis below, the row names left of them, the legend's lines
_ROW_HEIGHT_IN = 0.36
_TOP_IN = 0.42
_AXIS_IN = 0.5
_LEFT_IN, _RIGHT_IN = 1.85, 0.1
_LEGEND_LINE_IN = 0.24
_LEGEND_COLUMNS = 4


@dataclass
class _Bar:
    start: float
    duration: float
    label: str
    color: str
    family: str | None = None


@dataclass
class _Row:
    name: str
    bars: list[_Bar] = field(default_factory=list)
    gpu: bool = False


@dataclass
class _Layout:
    """What to draw, worked out before a figure exists (its height depends on the number of rows)."""

    title: str
    summary: str
    rows: list[_Row]
    links: list[tuple[int, float, int, float]]  # (launch row, launch x, gpu row, kernel x)
    families: list[str]
    span: float
    message: str | None = None
    language: str = "en"


def family_of(activity: GpuActivity) -> str:
    """The kernel family that sets an activity's color (memcpy and memset are families of their own)."""
    if activity.kind in ("memcpy", "memset"):
        return activity.kind
    family = kernels.decode(activity.name).family
    return family if family in FAMILY_COLORS else "other"


def short_name(activity: GpuActivity, lang: str | None = None) -> str:
    """The decoded short name of an activity (``memcpy DtoD``, ``flash_fwd ...``, ``nvjet gemm ...``) in
    ``lang``."""
    return kernels.decode(activity.name).text(lang) or activity.name


def heading(result: Result, lang: str | None = None) -> str:
    """What a timeline of ``result`` is titled with: ``naive, [8, 16, 1024, 64] bfloat16 (cuda)``; another workload
    and a KV cache are named too, in ``lang``."""
    head = f"{result.variant}, {list(result.shape)} {result.dtype} ({result.device})"
    if not workloads.get(result.workload).article:
        head = f"{result.variant} ({result.workload}), {list(result.shape)} {result.dtype} ({result.device})"
        if result.kv_len:
            head += words.text("timeline.kv_cache", lang, heads=result.kv_heads, length=result.kv_len)
    return head


def pick_step(result: Result, step: int | None = None) -> StepTrace:
    """The step to draw: ``result.steps[step]``, by default the middle active step.

    Raises:
        ValueError: if the result has no steps, or ``step`` is out of range (naming the valid range).
    """
    if not result.steps:
        raise ValueError(f"result of {result.variant!r} has no profiler steps (status {result.status!r})")
    if step is None:
        return result.steps[len(result.steps) // 2]
    if not -len(result.steps) <= step < len(result.steps):
        raise ValueError(f"step {step} out of range; choose 0 to {len(result.steps) - 1}")
    return result.steps[step]


@dataclass
class Lane:
    """One row of a step's timeline: the CPU ops of one nesting depth, the runtime and driver calls, or one GPU
    stream. The PNG and the interactive viewer (:mod:`attnprof.render.viewer`) draw the same lanes.

    Attributes:
        kind: ``"cpu"``, ``"launch"`` or ``"gpu"``.
        name: The lane's name in the requested language.
        depth: Nesting depth of a CPU lane's ops.
        ops: A CPU lane's ops (ATen ops and nested annotations; no runtime calls).
        calls: The launch lane's calls (:func:`attnprof.records.trace.launch_calls`).
        activities: A GPU lane's kernels, memcpys and memsets, in start order.
    """

    kind: str
    name: str
    depth: int = 0
    ops: list[CpuOp] = field(default_factory=list)
    calls: list[trace.LaunchCall] = field(default_factory=list)
    activities: list[GpuActivity] = field(default_factory=list)


def lanes(step: StepTrace, lang: str | None = None) -> list[Lane]:
    """The lanes of ``step``, top to bottom: CPU ops by thread and depth, the runtime/driver calls (when there are
    any), one lane per GPU stream (none for a step without GPU activity)."""
    cpu_ops = [op for op in step.cpu_ops if op.category not in trace.LAUNCH_CATEGORIES]
    # one lane per thread and depth: the annotating thread first, then (training) the autograd engine's thread
    out = [
        Lane(
            "cpu",
            words.text("timeline.row.thread", lang, thread=th, depth=d)
            if th
            else words.text("timeline.row.cpu", lang, depth=d),
            depth=d,
            ops=[o for o in cpu_ops if (o.thread, o.depth) == (th, d)],
        )
        for th, d in sorted({(op.thread, op.depth) for op in cpu_ops})
    ]
    calls = trace.launch_calls(step)
    if calls:
        out.append(Lane("launch", words.text("timeline.row.runtime", lang), calls=calls))
    stream_of = {id(a): -1 if a.stream is None else a.stream for a in step.activities}
    for stream in sorted(set(stream_of.values())):
        name = "GPU" if stream == -1 else words.text("timeline.row.stream", lang, stream=stream)
        acts = [a for a in step.activities if stream_of[id(a)] == stream]
        out.append(Lane("gpu", name, activities=acts))
    return out


def _layout(result: Result, step: int | None, lang: str | None = None) -> _Layout:
    head = heading(result, lang)
    if not result.ok or not result.steps:
        status = words.text_or(f"status.{result.status}", result.status, lang)
        reason = result.reason or words.text("timeline.no_steps", lang)
        msg = words.text("status.not_run", lang, variant=result.variant, status=status, reason=reason)
        return _Layout(head, msg, [], [], [], 1.0, message=msg, language=words.language(lang))
    st = pick_step(result, step)

    rows: list[_Row] = []
    runtime_row = None
    gpu_row: dict[int, int] = {}  # id of an activity -> its row
    for lane in lanes(st, lang):
        row = _Row(lane.name, gpu=lane.kind == "gpu")
        if lane.kind == "launch":
            runtime_row = len(rows)
        for op in lane.ops:
            color = CPU_COLORS[min(op.depth, len(CPU_COLORS) - 1)]
            row.bars.append(_Bar(op.start_us, op.duration_us, _op_label(op), color))
        row.bars += [_Bar(c.start_us, c.duration_us, c.name, RUNTIME_COLOR) for c in lane.calls]
        for a in lane.activities:
            gpu_row[id(a)] = len(rows)
            fam = family_of(a)
            row.bars.append(_Bar(a.start_us, a.duration_us, short_name(a, lang), FAMILY_COLORS[fam], fam))
        rows.append(row)
    links = [
        (runtime_row, a.launch_start_us + (a.launch_duration_us or 0.0) / 2, gpu_row[id(a)], a.start_us)
        for a in st.activities
        if runtime_row is not None and a.launch_start_us is not None
    ]
    present = {family_of(a) for a in st.activities}
    families = [f for f in FAMILY_COLORS if f in present]
    streams = sum(1 for row in rows if row.gpu)

    ends = [b.start + b.duration for row in rows for b in row.bars] + [st.cpu_time_us]
    span = max(ends) if ends else 1.0
    counts = dict(variant=result.variant, step=st.index, activities=len(st.activities), kernels=len(st.kernels),
                  streams=streams, events=len(st.cpu_ops), cpu=f"{st.cpu_time_us:.0f}",
                  gpu=f"{st.gpu_time_us:.0f}", device=result.device)  # fmt: skip
    summary = words.text("timeline.summary" if st.activities else "timeline.summary_cpu", lang, **counts)
    title = f"{head}, {words.text('timeline.step', lang, step=st.index)}"
    return _Layout(title, summary, rows, links, families, span, language=words.language(lang))


def _op_label(op: CpuOp) -> str:
    return op.name.removeprefix("aten::")


def fit_label(label: str, width_px: float, dpi: float) -> str:
    """``label``, shortened with an ellipsis to fit ``width_px``, or ``""`` when not even a stub fits (a Japanese
    character is a full em wide, a Latin one about 0.62 em)."""
    em = _FONT_SIZE * dpi / 72
    widths = [em if unicodedata.east_asian_width(ch) in "WF" else 0.62 * em for ch in label]
    room = width_px - 6
    if sum(widths) <= room:
        return label
    n, used = 0, 0.62 * em  # the ellipsis
    while n < len(label) and used + widths[n] <= room:
        used += widths[n]
        n += 1
    return shorten(label, n + 1) if n >= 4 else ""  # n characters and the ellipsis fit; cut at a word


def _legend_rows(layout: _Layout) -> int:
    return (len(layout.families) + 2 + _LEGEND_COLUMNS - 1) // _LEGEND_COLUMNS if layout.rows else 0


def _figsize(layout: _Layout) -> tuple[float, float]:
    if layout.message is not None:
        return WIDTH_IN, 1.2
    rows = max(len(layout.rows), 1)
    legend = 0.1 + _LEGEND_LINE_IN * _legend_rows(layout)
    return WIDTH_IN, _TOP_IN + _ROW_HEIGHT_IN * rows + _AXIS_IN + legend


def _draw(fig: Figure, layout: _Layout) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    width_in, height_in = fig.get_size_inches()
    fig.suptitle(layout.title, fontsize=pictures.TITLE_PT, x=0.02, y=1 - 0.1 / height_in, ha="left", va="top")
    if layout.message is not None:
        fig.text(0.5, 0.4, layout.message, ha="center", va="center", fontsize=_FONT_SIZE, wrap=True)
        return
    rows_h = _ROW_HEIGHT_IN * max(len(layout.rows), 1)
    bottom = height_in - _TOP_IN - rows_h
    left, width = _LEFT_IN / width_in, (width_in - _LEFT_IN - _RIGHT_IN) / width_in
    ax: Axes = fig.add_axes((left, bottom / height_in, width, rows_h / height_in))
    pad = layout.span * 0.01
    ax.set_xlim(-pad, layout.span + pad)
    ax.set_ylim(len(layout.rows) - 0.5, -0.5)
    axes_px = width * width_in * fig.dpi
    for y, row in enumerate(layout.rows):
        for bar in row.bars:
            ax.barh(y, max(bar.duration, layout.span * 0.001), left=bar.start, height=0.7, color=bar.color,
                    edgecolor="white", linewidth=0.4)  # fmt: skip
            text = fit_label(bar.label, bar.duration / (layout.span + 2 * pad) * axes_px, fig.dpi)
            if text:
                ax.text(bar.start + bar.duration / 2, y, text, ha="center", va="center", fontsize=_FONT_SIZE,
                        color=pictures.ink(bar.color), clip_on=True)  # fmt: skip
    if layout.links:
        segments = [((x0, r0 + 0.35), (x1, r1 - 0.35)) for r0, x0, r1, x1 in layout.links]
        ax.add_collection(LineCollection(segments, colors=LAUNCH_LINE_COLOR, linewidths=0.6, alpha=0.7))
    for y, row in enumerate(layout.rows):
        if row.gpu:
            ax.axhspan(y - 0.5, y + 0.5, color="#F3F3F3", zorder=0)
    ax.set_yticks(range(len(layout.rows)), [row.name for row in layout.rows], fontsize=_FONT_SIZE)
    ax.tick_params(axis="y", length=0)
    ax.tick_params(axis="x", labelsize=_FONT_SIZE)
    ax.set_xlabel(words.text("timeline.xlabel", layout.language), fontsize=_FONT_SIZE)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="x", color="#E5E5E5", linewidth=0.6)
    ax.set_axisbelow(True)
    handles = [
        Patch(color=CPU_COLORS[0], label=words.text("timeline.legend.cpu", layout.language)),
        Patch(color=RUNTIME_COLOR, label=words.text("timeline.legend.runtime", layout.language)),
    ]
    handles += [Patch(color=FAMILY_COLORS[f], label=kernels.family_text(f, layout.language)) for f in layout.families]
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.02, 0.05 / height_in), ncol=_LEGEND_COLUMNS,
               fontsize=_FONT_SIZE, frameon=False, borderaxespad=0)  # fmt: skip


def summary(result: Result, step: int | None = None, lang: str | None = None) -> str:
    """What the timeline of one step shows, in one sentence in ``lang`` (the alt text of the picture); no
    drawing involved."""
    return _layout(result, step, lang).summary


def _picture(result: Result, step: int | None, lang: str | None) -> tuple[_Layout, str]:
    """The layout with words in the language a picture can use here (English where no Japanese font is installed)."""
    lang = pictures.picture_language(lang)
    return _layout(result, step, lang), lang


def figure(result: Result, step: int | None = None, lang: str | None = None) -> Figure:
    """A matplotlib figure of one step of ``result`` (through pyplot, so gallery scrapers and notebooks see it).

    A result that could not run gives a small figure that says why instead of raising.

    Args:
        result: A result, usually from :func:`attnprof.measure.profiling.profile`.
        step: Index into ``result.steps``; the middle active step when ``None``.
        lang: Language of the words in the picture (``"en"``, ``"ja"``); English when ``None``.

    Returns:
        The figure.
    """
    layout, lang = _picture(result, step, lang)
    return pictures.pyplot_figure(lambda fig: _draw(fig, layout), _figsize(layout), lang)


def png_bytes(result: Result, step: int | None = None, lang: str | None = None) -> tuple[bytes, str]:
    """The PNG of one step (:data:`attnprof.render.pictures.DPI` dots per inch, no timestamps) and its summary."""
    layout, lang = _picture(result, step, lang)
    return pictures.png_bytes(lambda fig: _draw(fig, layout), _figsize(layout), lang), layout.summary


def render(result: Result, path: str | Path, step: int | None = None, lang: str | None = None) -> str:
    """Write the timeline of one step of ``result`` as a PNG at ``path``; returns a one-sentence summary.

    The file is written only when its bytes change, so its timestamp (and anything that depends on it) stays put
    when nothing changed. The same inputs always give the same bytes.

    Args:
        result: The result to draw.
        path: Where the PNG goes; missing folders are created.
        step: Index into ``result.steps``; the middle active step when ``None``.
        lang: Language of the words in the picture; English when ``None``.

    Returns:
        What the picture shows, in one sentence (usable as alt text).
    """
    data, summary = png_bytes(result, step, lang)
    write_if_changed(Path(path), data)
    return summary


def code_mtime_ns() -> int:
    """The newest modification time of the code that decides a timeline's bytes."""
    return pictures.code_mtime_ns(__file__)
