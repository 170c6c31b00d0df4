"""One profiler step of a context-parallel case drawn with one lane group per rank, on one time axis.

Each rank recorded its own trace; the ranks of one host share a clock, so their steps line up as they ran. Each
rank's group holds its annotated call on the CPU and one row per CUDA stream (attention and merging on the compute
stream, NCCL on its own), kernels colored by family as on every timeline of the site
(:data:`attnprof.render.timeline.FAMILY_COLORS`) and labelled with their decoded names where they fit. Zero on the
time axis is the start of the earliest rank's annotated call.

matplotlib is imported inside the functions only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import words
from attnprof.records.files import write_if_changed
from attnprof.records.parallel import ParallelCase
from attnprof.records.rank_trace import RankStep, RankTrace
from attnprof.render import pictures, timeline
from attnprof.words.fmt import number

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Color of the annotated call on a rank's CPU row.
CALL_COLOR = timeline.CPU_COLORS[0]
#: Background of every other rank's group.
GROUP_SHADE = "#F3F3F3"

_ROW_IN, _TOP_IN, _AXIS_IN, _LEGEND_IN = 0.36, 0.45, 0.55, 0.3
_LEFT, _WIDTH = 0.16, 0.82
_FONT = 7.5


@dataclass
class _Row:
    name: str
    rank: int
    bars: list[tuple[float, float, str, str]] = field(default_factory=list)  # start, duration, label, color


@dataclass
class _Layout:
    title: str
    summary: str
    rows: list[_Row]
    families: list[str]
    span: float
    language: str
    message: str | None = None


def _steps(case: ParallelCase, step: int | None) -> list[tuple[RankTrace, RankStep]]:
    out = []
    for t in case.traces():
        if not t.steps:
            continue
        i = len(t.steps) // 2 if step is None else min(max(step, 0), len(t.steps) - 1)
        out.append((t, t.steps[i]))
    return out


def _layout(case: ParallelCase, step: int | None, lang: str | None) -> _Layout:
    lang = words.language(lang)
    method = words.text(f"par.method.{case.method}", lang)
    picked = _steps(case, step)
    if not picked:
        msg = words.text("par.timeline.no_step", lang, method=method, seq=case.seq)
        return _Layout(msg, msg, [], [], 1.0, lang, message=msg)
    t0 = min(st.start_us for _, st in picked)
    rows: list[_Row] = []
    families: list[str] = []
    parts = []
    for tr, st in picked:
        rank = tr.rank if tr.rank is not None else len(rows)
        offset = st.start_us - t0
        cpu = _Row(words.text("par.timeline.row.cpu", lang, rank=rank), rank)
        cpu.bars.append((offset, st.cpu_us, tr.annotation, CALL_COLOR))
        rows.append(cpu)
        for stream in sorted({k.stream if k.stream is not None else -1 for k in st.kernels}):
            row = _Row(words.text("par.timeline.row.stream", lang, rank=rank, stream=stream), rank)
            for k in st.kernels:
                if (k.stream if k.stream is not None else -1) != stream:
                    continue
                fam = k.family if k.family in timeline.FAMILY_COLORS else "other"
                if fam not in families:
                    families.append(fam)
                row.bars.append((offset + k.start_us, k.duration_us, k.short, timeline.FAMILY_COLORS[fam]))
            rows.append(row)
        overlap = st.overlap_fraction
        parts.append(
            words.text(
                "par.timeline.rank",
                lang,
                rank=rank,
                n=len(st.of("attention")),
                comm=number(st.comm_us),
                overlap="-" if overlap is None else f"{number(100 * overlap)}%",
            )
        )
    families.sort(key=lambda f: list(timeline.FAMILY_COLORS).index(f))
    span = max((b[0] + b[1] for r in rows for b in r.bars), default=1.0)
    index = picked[0][1].index
    title = words.text("par.timeline.title", lang, method=method, seq=case.seq, world=len(case.ranks), step=index)
    sep = words.text("sentence.sep", lang)
    summary = words.text("par.timeline.summary", lang, step=index, method=method, seq=case.seq, world=len(picked),
                         ranks=sep.join(parts))  # fmt: skip
    return _Layout(title, summary, rows, families, span, lang)


def _figsize(layout: _Layout) -> tuple[float, float]:
    if layout.message is not None:
        return timeline.WIDTH_IN, 1.0
    return timeline.WIDTH_IN, _TOP_IN + _ROW_IN * len(layout.rows) + _AXIS_IN + _LEGEND_IN


def _draw(fig: Figure, layout: _Layout) -> None:
    from matplotlib.patches import Patch

    _, height = fig.get_size_inches()
    fig.suptitle(layout.title, fontsize=9, x=0.02, y=1 - 0.12 / height, ha="left", va="top")
    if layout.message is not None:
        return
    rows_h = _ROW_IN * len(layout.rows)
    ax = fig.add_axes((_LEFT, (height - _TOP_IN - rows_h) / height, _WIDTH, rows_h / height))
    pad = layout.span * 0.01
    ax.set_xlim(-pad, layout.span + pad)
    ax.set_ylim(len(layout.rows) - 0.5, -0.5)
    axes_px = _WIDTH * timeline.WIDTH_IN * fig.dpi
    ranks_seen = sorted({r.rank for r in layout.rows})
    for y, row in enumerate(layout.rows):
        if ranks_seen.index(row.rank) % 2 == 0:
            ax.axhspan(y - 0.5, y + 0.5, color=GROUP_SHADE, zorder=0)
        for start, dur, label, color in row.bars:
            ax.barh(y, max(dur, layout.span * 0.001), left=start, height=0.7, color=color, edgecolor="white",
                    linewidth=0.4)  # fmt: skip
            text = timeline.fit_label(label, dur / (layout.span + 2 * pad) * axes_px, fig.dpi)
            if text:
                ax.text(start + dur / 2, y, text, ha="center", va="center", fontsize=_FONT,
                        color=pictures.ink(color), clip_on=True)  # fmt: skip
    for y in range(1, len(layout.rows)):
        if layout.rows[y].rank != layout.rows[y - 1].rank:
            ax.axhline(y - 0.5, color="#888888", linewidth=0.8)
    ax.set_yticks(range(len(layout.rows)), [r.name for r in layout.rows], fontsize=8)
    ax.tick_params(axis="y", length=0)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(words.text("par.timeline.xlabel", layout.language), fontsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="x", color="#E5E5E5", linewidth=0.6)
    ax.set_axisbelow(True)
    handles = [Patch(color=CALL_COLOR, label=words.text("par.timeline.legend.call", layout.language))]
    handles += [Patch(color=timeline.FAMILY_COLORS[f], label=f) for f in layout.families]
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(_LEFT, 0.05 / height), ncol=8, fontsize=7.5,
               frameon=False, borderaxespad=0)  # fmt: skip


def summary(case: ParallelCase, step: int | None = None, lang: str | None = None) -> str:
    """What the picture shows, in words (its alt text); no drawing involved."""
    return _layout(case, step, lang).summary


def figure(case: ParallelCase, step: int | None = None, lang: str | None = None) -> Figure:
    """The picture of one step of ``case`` as a pyplot figure (gallery scrapers and notebooks show it).

    Args:
        case: A case of a :class:`~attnprof.records.parallel.ParallelRun`.
        step: Index of the profiled step; the middle one when ``None``.
        lang: Language of the picture's words; English when ``None`` (or without a Japanese font).
    """
    lang = pictures.picture_language(lang)
    layout = _layout(case, step, lang)
    return pictures.pyplot_figure(lambda fig: _draw(fig, layout), _figsize(layout), lang)


def render(case: ParallelCase, path: str | Path, step: int | None = None, lang: str | None = None) -> str:
    """Write the picture as a PNG at ``path`` (only when its bytes change); returns its summary."""
    lang = pictures.picture_language(lang)
    layout = _layout(case, step, lang)
    data = pictures.png_bytes(lambda fig: _draw(fig, layout), _figsize(layout), lang)
    write_if_changed(Path(path), data)
    return layout.summary


def code_mtime_ns() -> int:
    """The newest modification time of the code that decides the picture's bytes."""
    return pictures.code_mtime_ns(__file__, timeline.__file__)
