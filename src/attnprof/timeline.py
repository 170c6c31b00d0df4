"""One profiler step drawn as a timeline: CPU ops above, the GPU stream below, a line from each launch to its kernel.

The picture is what Perfetto or ``chrome://tracing`` shows for the same step, reduced to what the guide talks
about:

- CPU rows, one per nesting depth, with the ops recorded under the annotated forward call;
- a row of CUDA runtime and driver calls (``cudaLaunchKernel``, ``cuLaunchKernelEx``, synchronisations, ...);
- one row per GPU stream with the kernels, memcpys and memsets, colored by kernel family
  (:data:`FAMILY_COLORS`, the same on every page) and labelled with their decoded short names where they fit;
- a thin line from each launch call to the activity it launched (the trace's ``correlation`` id).

matplotlib is imported inside the functions only, so importing this module costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import kernels, pictures, words
from .results import CpuOp, GpuActivity, Result, StepTrace, write_if_changed

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: One color per kernel family (see :data:`attnprof.kernels.FAMILIES`); the same on every page and every figure.
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

#: Figure width in inches.
WIDTH_IN = 12.0

_RUNTIME_CATEGORIES = ("cuda_runtime", "cuda_driver")
_FONT_SIZE = 7.5
# layout in inches (heights) and figure fractions (left edge and width of the plot)
_ROW_HEIGHT_IN = 0.42
_TOP_IN = 0.45
_AXIS_IN = 0.55
_LEFT, _WIDTH = 0.16, 0.82
_LEGEND_COLUMNS = 7


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


def short_name(activity: GpuActivity) -> str:
    """The decoded short name of an activity (``Memcpy DtoD``, ``flash_fwd``, ``gemm 128x64``, ...)."""
    return kernels.decode(activity.name).short or activity.name


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


def _layout(result: Result, step: int | None, language: str | None = None) -> _Layout:
    head = f"{result.variant}, {list(result.shape)} {result.dtype} ({result.device})"
    if not result.ok or not result.steps:
        msg = f"{result.variant} did not run ({result.status}): {result.reason or 'no steps recorded'}"
        return _Layout(head, msg, [], [], [], 1.0, message=msg, language=words.language(language))
    st = pick_step(result, step)

    # CPU ops by depth; runtime and driver calls on a row of their own
    cpu_ops = [op for op in st.cpu_ops if op.category not in _RUNTIME_CATEGORIES]
    runtime_ops = [op for op in st.cpu_ops if op.category in _RUNTIME_CATEGORIES]
    depths = sorted({op.depth for op in cpu_ops})
    rows: list[_Row] = [_Row(words.text("timeline.row.cpu", language, depth=d)) for d in depths]
    depth_row = {d: i for i, d in enumerate(depths)}
    for op in cpu_ops:
        color = CPU_COLORS[min(op.depth, len(CPU_COLORS) - 1)]
        rows[depth_row[op.depth]].bars.append(_Bar(op.start_us, op.duration_us, _op_label(op), color))

    launches = _launch_calls(st, runtime_ops)
    runtime_row = None
    if launches:
        runtime_row = len(rows)
        rows.append(_Row(words.text("timeline.row.runtime", language)))
        rows[runtime_row].bars.extend(launches)

    streams = sorted({a.stream if a.stream is not None else -1 for a in st.activities})
    stream_row = {}
    for s in streams:
        stream_row[s] = len(rows)
        rows.append(_Row("GPU" if s == -1 else words.text("timeline.row.stream", language, stream=s), gpu=True))
    links = []
    families: list[str] = []
    for a in st.activities:
        fam = family_of(a)
        if fam not in families:
            families.append(fam)
        r = stream_row[a.stream if a.stream is not None else -1]
        rows[r].bars.append(_Bar(a.start_us, a.duration_us, short_name(a), FAMILY_COLORS[fam], fam))
        if runtime_row is not None and a.launch_start_us is not None:
            links.append((runtime_row, a.launch_start_us + (a.launch_duration_us or 0.0) / 2, r, a.start_us))
    families.sort(key=lambda f: list(FAMILY_COLORS).index(f))

    ends = [b.start + b.duration for row in rows for b in row.bars] + [st.cpu_time_us]
    span = max(ends) if ends else 1.0
    n_kernels = len(st.kernels)
    summary = (
        f"Timeline of {result.variant}, profiler step {st.index}: {len(st.activities)} GPU activities "
        f"({n_kernels} kernels) on {len(streams)} stream(s) and {len(st.cpu_ops)} CPU events; the annotated call "
        f"took {st.cpu_time_us:.0f} µs on the CPU and its GPU work {st.gpu_time_us:.0f} µs."
    )
    if not st.activities:
        summary = (
            f"Timeline of {result.variant}, profiler step {st.index}: {len(st.cpu_ops)} CPU events and no GPU "
            f"activity (run on {result.device}); the annotated call took {st.cpu_time_us:.0f} µs."
        )
    title = f"{head}, {words.text('timeline.step', language, step=st.index)}"
    return _Layout(title, summary, rows, links, families, span, language=words.language(language))


def _op_label(op: CpuOp) -> str:
    return op.name.removeprefix("aten::")


def _launch_calls(st: StepTrace, runtime_ops: list[CpuOp]) -> list[_Bar]:
    """Runtime and driver calls of the step; launches recorded only on the activities are added."""
    bars = [_Bar(op.start_us, op.duration_us, op.name, RUNTIME_COLOR) for op in runtime_ops]
    seen = {round(op.start_us, 3) for op in runtime_ops}
    for a in st.activities:
        if a.launch_start_us is not None and round(a.launch_start_us, 3) not in seen:
            seen.add(round(a.launch_start_us, 3))
            bars.append(_Bar(a.launch_start_us, a.launch_duration_us or 0.0, a.launch_api or "launch", RUNTIME_COLOR))
    return sorted(bars, key=lambda b: b.start)


def _text_color(hex_color: str) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def _fit(label: str, width_px: float, dpi: float) -> str:
    """``label``, shortened with an ellipsis to fit ``width_px``, or ``""`` when not even a stub fits."""
    char_px = 0.62 * _FONT_SIZE * dpi / 72
    n = int((width_px - 6) / char_px)
    if n >= len(label):
        return label
    if n >= 5:
        return label[: n - 1] + "…"
    return ""


def _legend_rows(layout: _Layout) -> int:
    return (len(layout.families) + 2 + _LEGEND_COLUMNS - 1) // _LEGEND_COLUMNS if layout.rows else 0


def _figsize(layout: _Layout) -> tuple[float, float]:
    if layout.message is not None:
        return WIDTH_IN, 1.0
    rows = max(len(layout.rows), 1)
    legend = 0.1 + 0.22 * _legend_rows(layout)
    return WIDTH_IN, _TOP_IN + _ROW_HEIGHT_IN * rows + _AXIS_IN + legend


def _draw(fig: Figure, layout: _Layout) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    width_in, height_in = fig.get_size_inches()
    fig.suptitle(layout.title, fontsize=9, x=0.02, y=1 - 0.12 / height_in, ha="left", va="top")
    if layout.message is not None:
        fig.text(0.5, 0.4, layout.message, ha="center", va="center", fontsize=9, wrap=True)
        return
    rows_h = _ROW_HEIGHT_IN * max(len(layout.rows), 1)
    bottom = height_in - _TOP_IN - rows_h
    ax: Axes = fig.add_axes((_LEFT, bottom / height_in, _WIDTH, rows_h / height_in))
    pad = layout.span * 0.01
    ax.set_xlim(-pad, layout.span + pad)
    ax.set_ylim(len(layout.rows) - 0.5, -0.5)
    axes_px = _WIDTH * width_in * fig.dpi
    for y, row in enumerate(layout.rows):
        for bar in row.bars:
            ax.barh(y, max(bar.duration, layout.span * 0.001), left=bar.start, height=0.7, color=bar.color,
                    edgecolor="white", linewidth=0.4)  # fmt: skip
            text = _fit(bar.label, bar.duration / (layout.span + 2 * pad) * axes_px, fig.dpi)
            if text:
                ax.text(bar.start + bar.duration / 2, y, text, ha="center", va="center", fontsize=_FONT_SIZE,
                        color=_text_color(bar.color), clip_on=True)  # fmt: skip
    if layout.links:
        segments = [((x0, r0 + 0.35), (x1, r1 - 0.35)) for r0, x0, r1, x1 in layout.links]
        ax.add_collection(LineCollection(segments, colors=LAUNCH_LINE_COLOR, linewidths=0.6, alpha=0.7))
    for y, row in enumerate(layout.rows):
        if row.gpu:
            ax.axhspan(y - 0.5, y + 0.5, color="#F3F3F3", zorder=0)
    ax.set_yticks(range(len(layout.rows)), [row.name for row in layout.rows], fontsize=8)
    ax.tick_params(axis="y", length=0)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(words.text("timeline.xlabel", layout.language), fontsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="x", color="#E5E5E5", linewidth=0.6)
    ax.set_axisbelow(True)
    handles = [
        Patch(color=CPU_COLORS[0], label=words.text("timeline.legend.cpu", layout.language)),
        Patch(color=RUNTIME_COLOR, label=words.text("timeline.legend.runtime", layout.language)),
    ]
    handles += [Patch(color=FAMILY_COLORS[f], label=f) for f in layout.families]
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(_LEFT, 0.05 / height_in), ncol=_LEGEND_COLUMNS,
               fontsize=7.5, frameon=False, borderaxespad=0)  # fmt: skip


def summary(result: Result, step: int | None = None) -> str:
    """What the timeline of one step shows, in one sentence (the alt text of the picture); no drawing involved."""
    return _layout(result, step).summary


def _picture(result: Result, step: int | None, language: str | None) -> tuple[_Layout, str]:
    """The layout with words in the language a picture can use here (English where no Japanese font is installed)."""
    lang = pictures.picture_language(language)
    return _layout(result, step, lang), lang


def figure(result: Result, step: int | None = None, language: str | None = None) -> Figure:
    """A matplotlib figure of one step of ``result`` (through pyplot, so gallery scrapers and notebooks see it).

    A result that could not run gives a small figure that says why instead of raising.

    Args:
        result: A result, usually from :func:`attnprof.profiling.profile`.
        step: Index into ``result.steps``; the middle active step when ``None``.
        language: Language of the words in the picture (``"en"``, ``"ja"``); English when ``None``.

    Returns:
        The figure.
    """
    layout, lang = _picture(result, step, language)
    return pictures.pyplot_figure(lambda fig: _draw(fig, layout), _figsize(layout), lang)


def png_bytes(result: Result, step: int | None = None, language: str | None = None) -> tuple[bytes, str]:
    """The PNG of one step (:data:`attnprof.pictures.DPI` dots per inch, no timestamps) and its summary."""
    layout, lang = _picture(result, step, language)
    return pictures.png_bytes(lambda fig: _draw(fig, layout), _figsize(layout), lang), layout.summary


def render(result: Result, path: str | Path, step: int | None = None, language: str | None = None) -> str:
    """Write the timeline of one step of ``result`` as a PNG at ``path``; returns a one-sentence summary.

    The file is written only when its bytes change, so its timestamp (and anything that depends on it) stays put
    when nothing changed. The same inputs always give the same bytes.

    Args:
        result: The result to draw.
        path: Where the PNG goes; missing folders are created.
        step: Index into ``result.steps``; the middle active step when ``None``.
        language: Language of the words in the picture; English when ``None``.

    Returns:
        What the picture shows, in one sentence (usable as alt text).
    """
    data, summary = png_bytes(result, step, language)
    write_if_changed(Path(path), data)
    return summary


def code_mtime_ns() -> int:
    """The newest modification time of the code that decides a timeline's bytes."""
    return pictures.code_mtime_ns(__file__)
