"""A sweep drawn: one metric against sequence length, one line per variant, at one head_dim.

Time (and dispatch cost, and memory) is drawn log-log, so a cost that grows with ``seq²`` is a straight line of
slope 2, and a dotted reference line of that slope is drawn beside it. Points that did not run are not dropped:
an out-of-memory point is an ``x`` at the top edge of the plot, any other point that did not run (not supported,
failed, skipped) a hollow circle there, both in the variant's color, with legend entries saying which is which.

Words in the picture (axis labels, legend, title) come from :mod:`attnprof.words` in the requested language, or
in English where no Japanese font is installed (:func:`attnprof.render.pictures.picture_language`).

matplotlib is imported inside the functions only, so importing this module costs nothing.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import variants, words
from attnprof.records.files import write_if_changed
from attnprof.records.sweep import METRICS, Sweep
from attnprof.render import pictures

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: One color per variant, the same in every plot (Okabe-Ito first, then darker tones).
VARIANT_COLORS: dict[str, str] = {
    "naive": "#E69F00",
    "naive_inplace": "#A6761D",
    "sdpa_math": "#7B5EA7",
    "sdpa_efficient": "#CC79A7",
    "sdpa_flash": "#D55E00",
    "sdpa_cudnn": "#009E73",
    "sdpa_auto": "#56B4E9",
    "flex": "#0072B2",
    "compiled_naive": "#666666",
}
#: Metrics drawn on a logarithmic y axis (the others start at zero).
LOG_METRICS = ("gpu_ms", "dispatch_us", "peak_mib")
#: Inches; shown one CSS inch per inch, with text of :data:`attnprof.render.pictures.TEXT_PT` points.
FIGSIZE = (pictures.MAX_WIDTH_IN, 4.4)


def code_mtime_ns() -> int:
    """The newest modification time of the code that decides a plot's bytes."""
    return pictures.code_mtime_ns(__file__)


def metric_words(sweep: Sweep, metric: str, lang: str | None) -> str:
    """The axis label of ``metric`` (for a CPU sweep, the time is the CPU's)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
    key = "cpu_ms" if metric == "gpu_ms" and sweep.device == "cpu" else metric
    return words.text(f"scaling.metric.{key}", lang)


def summary(sweep: Sweep, metric: str, head_dim: int, lang: str | None = None) -> str:
    """What the plot shows, in one sentence (alt text when the page gives no caption)."""
    failed = sum(1 for p in sweep.points if p.head_dim == head_dim and not p.ok)
    return words.text(
        "scaling.summary",
        lang,
        metric=metric_words(sweep, metric, lang),
        head_dim=head_dim,
        variants=", ".join(v for v in sweep.variants if sweep.points_of(v, head_dim)),
        failed=failed,
    )


@dataclass
class _Series:
    variant: str
    ok: list[tuple[int, float]]
    oom: list[int]
    not_run: list[int]


def _series(sweep: Sweep, metric: str, head_dim: int) -> list[_Series]:
    out = []
    for v in sweep.variants:
        points = sweep.points_of(v, head_dim)
        if not points:
            continue
        ok = [(p.seq, value) for p in points if p.ok and (value := p.metric(metric)) is not None and value > 0]
        out.append(
            _Series(
                v,
                ok,
                [p.seq for p in points if p.status == "oom"],
                [p.seq for p in points if p.status not in ("ok", "oom")],
            )
        )
    return out


def _draw(fig: Figure, sweep: Sweep, metric: str, head_dim: int, lang: str) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    def say(key: str, **fields: object) -> str:
        return words.text(key, lang, **fields)

    ax = fig.add_axes((0.105, 0.13, 0.575, 0.76))
    series = _series(sweep, metric, head_dim)
    log_y = metric in LOG_METRICS
    ax.set_xscale("log", base=2)
    if log_y:
        ax.set_yscale("log")
    ax.set_xticks(sweep.seqs, [str(s) for s in sweep.seqs])
    ax.minorticks_off() if not log_y else ax.xaxis.set_minor_locator(_no_minor())
    ax.set_xlim(min(sweep.seqs) / 2**0.35, max(sweep.seqs) * 2**0.35)
    ax.set_xlabel(say("scaling.axis.seq"))
    ax.set_ylabel(metric_words(sweep, metric, lang))
    ax.grid(True, which="major", color="#DDDDDD", linewidth=0.6)
    ax.set_axisbelow(True)
    title = say("scaling.title", head_dim=head_dim, batch=sweep.batch, heads=sweep.heads, dtype=sweep.dtype,
                  device=words.device(sweep.environment.device_name, lang))  # fmt: skip
    ax.set_title(title, fontsize=pictures.TITLE_PT, loc="left")

    handles = []
    values = [y for s in series for _, y in s.ok]
    for s in series:
        color = VARIANT_COLORS.get(s.variant, "#333333")
        # SDPA's own choice runs one of the forced backends: dashed and hollow, so the line it covers stays visible
        style = dict(marker="o", markersize=4, linewidth=1.6, color=color, label=s.variant)
        if s.variant == variants.sdpa_chooser():
            style.update(linestyle=(0, (4, 2)), markerfacecolor="white", markersize=5, zorder=3)
        if s.ok:
            xs, ys = zip(*s.ok, strict=True)
            (line,) = ax.plot(xs, ys, **style)
            handles.append(line)
        else:
            handles.append(Line2D([], [], **style))
    if not values:
        ax.text(0.5, 0.5, _wrap(say("scaling.no_data"), 60), transform=ax.transAxes, ha="center", va="center",
                fontsize=pictures.TEXT_PT, color="#555555")  # fmt: skip
        ax.set_yticks([])
        ax.yaxis.set_minor_locator(_no_minor())
    elif log_y:
        lo, hi = min(values), max(values)
        ax.set_ylim(lo / 2.5, hi * 4.0)
    else:
        ax.set_ylim(0, max(values) * 1.22)

    # points that did not run, at the top edge, spread a little sideways so that they do not hide each other
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    n = len(series)
    for i, s in enumerate(series):
        color = VARIANT_COLORS.get(s.variant, "#333333")
        shift = 2 ** ((i - (n - 1) / 2) * 0.045)
        if s.oom:
            ax.plot([x * shift for x in s.oom], [0.965] * len(s.oom), transform=edge, linestyle="none", marker="x",
                    markersize=7, markeredgewidth=1.8, color=color, clip_on=False)  # fmt: skip
        if s.not_run:
            ax.plot([x * shift for x in s.not_run], [0.965] * len(s.not_run), transform=edge, linestyle="none",
                    marker="o", markersize=6, markerfacecolor="none", markeredgewidth=1.4, color=color,
                    clip_on=False)  # fmt: skip
    extra = []
    if any(s.oom for s in series):
        extra.append(Line2D([], [], linestyle="none", marker="x", markersize=7, markeredgewidth=1.8, color="#333333",
                            label=say("scaling.legend.oom")))  # fmt: skip
    if any(s.not_run for s in series):
        extra.append(Line2D([], [], linestyle="none", marker="o", markersize=6, markerfacecolor="none",
                            markeredgewidth=1.4, color="#333333", label=say("scaling.legend.not_run")))  # fmt: skip
    if values and metric in ("gpu_ms", "peak_mib"):
        extra.append(_reference(ax, series, 2, say("scaling.legend.quadratic")))
    if values and metric == "peak_mib":
        extra.append(_reference(ax, series, 1, say("scaling.legend.linear"), dashes=(1, 3)))
    fig.legend(handles=handles + extra, loc="center left", bbox_to_anchor=(0.695, 0.5), fontsize=pictures.TEXT_PT,
               frameon=False, handlelength=1.6, borderaxespad=0)  # fmt: skip


def _wrap(text: str, width: int) -> str:
    """Break ``text`` into lines of at most ``width`` columns (a Japanese character takes two)."""
    lines, line, cols = [], "", 0
    for ch in text:
        w = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        if cols + w > width and line:
            cut = line.rfind(" ")
            if cut > 0 and w == 1:
                lines.append(line[:cut])
                line = line[cut + 1 :]
            else:
                lines.append(line)
                line = ""
            cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
        line += ch
        cols += w
    return "\n".join([*lines, line])


def _no_minor():
    from matplotlib.ticker import NullLocator

    return NullLocator()


def _reference(ax, series: list[_Series], power: int, text: str, dashes: tuple[int, int] = (2, 2)):
    """A gray line ``∝ seq**power`` ending below the lowest series at the longest measured sequence."""
    ylim = ax.get_ylim()
    end = max(x for s in series for x, _ in s.ok)
    y_end = min(y for s in series for x, y in s.ok if x == end) / 2.5
    xs = sorted({x for s in series for x, _ in s.ok})
    (line,) = ax.plot(xs, [y_end * (x / end) ** power for x in xs], color="#888888", linewidth=1.0, dashes=dashes,
                      label=text)  # fmt: skip
    ax.set_ylim(ylim)  # the reference is a slope to compare with, not data: it may leave the frame
    return line


def png_bytes(sweep: Sweep, metric: str, head_dim: int, lang: str | None = "en") -> bytes:
    """The plot as PNG bytes (:data:`attnprof.render.pictures.DPI`, no timestamps: the same inputs give the same
    bytes).

    Raises:
        ValueError: for an unknown metric.
    """
    metric_words(sweep, metric, "en")  # validates the metric
    lang = pictures.picture_language(lang)
    return pictures.png_bytes(lambda fig: _draw(fig, sweep, metric, head_dim, lang), FIGSIZE, lang)


def render(sweep: Sweep, metric: str, head_dim: int, path: str | Path, lang: str | None = "en") -> str:
    """Write the plot to ``path`` (only when its bytes change); returns :func:`summary` in ``lang``."""
    write_if_changed(Path(path), png_bytes(sweep, metric, head_dim, lang))
    return summary(sweep, metric, head_dim, lang)


def figure(sweep: Sweep, metric: str = "gpu_ms", head_dim: int | None = None, lang: str = "en") -> Figure:
    """The plot as a pyplot figure (so that sphinx-gallery and notebooks show it).

    Args:
        sweep: The sweep to draw.
        metric: One of :data:`attnprof.records.sweep.METRICS`.
        head_dim: The head_dim to draw; the sweep's first when ``None``.
        lang: Language of the words in the picture.
    """
    metric_words(sweep, metric, "en")
    lang = pictures.picture_language(lang)
    dim = sweep.head_dims[0] if head_dim is None else head_dim
    return pictures.pyplot_figure(lambda fig: _draw(fig, sweep, metric, dim, lang), FIGSIZE, lang, dpi=100)
