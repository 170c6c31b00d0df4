"""Training across lengths drawn like a kernel benchmark: TFLOP/s against sequence length, one line per backend, one
panel per head dim and mask, one figure per pass; and the table of the rates at the longest length.

Each line carries its band (the rates the ends of the time's confidence interval give). Two horizontal lines give
the scale: the matmul ceiling the build measured, and the GPU's published peak (as published; neither on the CPU).
Points that did not run are hollow circles on the x axis, in the backend's color. Words come from
:mod:`attnprof.words` in the requested language (English where no Japanese font is installed).

matplotlib is imported inside the functions only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import words, workloads
from attnprof.records.files import write_if_changed
from attnprof.records.trainscale import TrainPoint, TrainScale, check_pass
from attnprof.render import pictures
from attnprof.render.report import table as text_table
from attnprof.render.scalingplot import VARIANT_COLORS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Inches: the page's width, two rows of panels.
FIGSIZE = (pictures.MAX_WIDTH_IN, 5.6)


def mask_word(causal: bool, lang: str | None) -> str:
    """``causal`` or ``no mask`` in ``lang``."""
    return words.text("ts.mask.causal" if causal else "ts.mask.full", lang)


def summary(grid: TrainScale, phase: str, lang: str | None = None) -> str:
    """What the figure of ``phase`` shows, in one sentence (alt text)."""
    check_pass(phase)
    return words.text("ts.summary", lang, phase=words.text(f"ts.pass.{phase}", lang),
                      variants=", ".join(grid.variants), head_dims=", ".join(map(str, grid.head_dims)),
                      failed=sum(1 for p in grid.points if not p.ok))  # fmt: skip


def _draw(fig: Figure, grid: TrainScale, phase: str, lang: str) -> None:
    from matplotlib.lines import Line2D

    def say(key: str, **fields: object) -> str:
        return words.text(key, lang, **fields)

    panels = [(d, m) for d in grid.head_dims for m in grid.causal]
    cols = 2 if len(panels) > 1 else 1
    rows = (len(panels) + cols - 1) // cols
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    fig.subplots_adjust(left=0.08, right=0.62, top=0.88, bottom=0.1, hspace=0.3, wspace=0.08)
    rates = [r.hi for p in grid.points if (r := p.tflops(phase)) is not None]
    ceiling = grid.ceilings.matmul_tflops if grid.ceilings else None
    peak = grid.peak.tflops if grid.peak else None
    top = max([*rates, ceiling or 0.0, peak or 0.0, 1e-9]) * 1.08
    handles: dict[str, Line2D] = {}
    for ax, (d, m) in zip(axes.flat, panels, strict=False):
        ax.set_xscale("log", base=2)
        ax.set_xticks(grid.seqs, [f"{s // 1024}k" if s >= 1024 else str(s) for s in grid.seqs])
        ax.minorticks_off()
        ax.set_ylim(0, top)
        ax.grid(True, color="#DDDDDD", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_title(say("ts.panel", head_dim=d, mask=mask_word(m, lang)), fontsize=pictures.TEXT_PT, loc="left")
        for v in grid.variants:
            color = VARIANT_COLORS.get(v, "#333333")
            line = grid.line(v, d, m)
            ok = [(p.seq, r) for p in line if (r := p.tflops(phase)) is not None]
            if ok:
                xs = [x for x, _ in ok]
                ax.fill_between(xs, [r.lo for _, r in ok], [r.hi for _, r in ok], color=color, alpha=0.18, lw=0)
                (h,) = ax.plot(xs, [r.median for _, r in ok], marker="o", markersize=3.5, linewidth=1.5, color=color,
                               label=v)  # fmt: skip
                handles.setdefault(v, h)
            missed = [p.seq for p in line if not p.ok]
            if missed:
                ax.plot(missed, [0.0] * len(missed), linestyle="none", marker="o", markersize=5,
                        markerfacecolor="none", markeredgewidth=1.2, color=color, clip_on=False)  # fmt: skip
                handles.setdefault(v, Line2D([], [], marker="o", color=color, label=v))
        if ceiling:
            ax.axhline(ceiling, color="#555555", linewidth=1.0, dashes=(4, 2))
        if peak:
            ax.axhline(peak, color="#999999", linewidth=1.0, dashes=(1, 2))
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(say("ts.axis.seq"), fontsize=pictures.TEXT_PT)
    for ax in axes[:, 0]:
        ax.set_ylabel(say("ts.axis.tflops" if grid.device == "cuda" else "ts.axis.tflops_cpu"))
    extra = []
    if ceiling:
        extra.append(Line2D([], [], color="#555555", linewidth=1.0, dashes=(4, 2),
                            label=say("ts.legend.ceiling", tflops=f"{ceiling:.0f}")))  # fmt: skip
    if peak:
        extra.append(Line2D([], [], color="#999999", linewidth=1.0, dashes=(1, 2),
                            label=say("ts.legend.peak", tflops=f"{peak:g}")))  # fmt: skip
    if any(not p.ok for p in grid.points):
        extra.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="none", color="#333333",
                            label=say("ts.legend.not_run")))  # fmt: skip
    fig.legend(handles=[*handles.values(), *extra], loc="center left", bbox_to_anchor=(0.635, 0.5),
               fontsize=pictures.TEXT_PT, frameon=False, handlelength=1.6, borderaxespad=0)  # fmt: skip
    title = say("ts.title", phase=say(f"ts.pass.{phase}"), dtype=grid.dtype, tokens=_tokens(grid),
                device=words.device(grid.environment.device_name, lang))  # fmt: skip
    if grid.device != "cuda":
        title += "\n" + say("ts.cpu_note")
    fig.suptitle(title, fontsize=pictures.TEXT_PT, x=0.02, ha="left")


def _tokens(grid: TrainScale) -> int:
    return max((p.batch * p.seq for p in grid.points), default=0)


def png_bytes(grid: TrainScale, phase: str, lang: str | None = "en") -> bytes:
    """The figure of ``phase`` as PNG bytes (the same inputs give the same bytes)."""
    check_pass(phase)
    lang = pictures.picture_language(lang)
    return pictures.png_bytes(lambda fig: _draw(fig, grid, phase, lang), FIGSIZE, lang)


def save(grid: TrainScale, phase: str, path: str | Path, lang: str | None = "en") -> Path:
    """Write the figure of ``phase`` to ``path`` (only when its bytes change); returns the path."""
    path = Path(path)
    write_if_changed(path, png_bytes(grid, phase, lang))
    return path


def figure(grid: TrainScale, phase: str = "fwd", lang: str = "en") -> Figure:
    """The figure of ``phase`` as a pyplot figure (sphinx-gallery and notebooks show it)."""
    check_pass(phase)
    lang = pictures.picture_language(lang)
    return pictures.pyplot_figure(lambda fig: _draw(fig, grid, phase, lang), FIGSIZE, lang, dpi=100)


# --- the table ------------------------------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _rate(p: TrainPoint, phase: str) -> str:
    r = p.tflops(phase)
    if r is None:
        return "-"
    spec = ".0f" if r.median >= 10 else ".1f" if r.median >= 1 else ".2g"
    return f"{r.median:{spec}} [{r.lo:{spec}}–{r.hi:{spec}}]"


def longest_rows(grid: TrainScale, lang: str | None = None, seq: int | None = None) -> list[list[str]]:
    """One row per backend, head dim and mask at ``seq`` (the longest length when omitted): the two rates with
    their bands, and their shares of the ceiling and of the published peak; a point that did not run gives its
    status and reason in the rates' cells."""
    at = seq if seq is not None else max(grid.seqs)
    rows = []
    for d in grid.head_dims:
        for m in grid.causal:
            for v in grid.variants:
                p = grid.point(v, d, m, at)
                if p is None:
                    continue
                head = [v, str(d), mask_word(m, lang), str(p.seq)]
                if not p.ok:
                    rows.append([*head, words.text_or(f"status.{p.status}", p.status, lang), "-", "-", "-"])
                    continue
                rows.append([
                    *head,
                    _rate(p, "fwd"),
                    _rate(p, "bwd"),
                    f"{_pct(grid.share_of_ceiling(p, 'fwd'))} / {_pct(grid.share_of_ceiling(p, 'bwd'))}",
                    f"{_pct(grid.share_of_peak(p, 'fwd'))} / {_pct(grid.share_of_peak(p, 'bwd'))}",
                ])  # fmt: skip
    return rows


def headers(lang: str | None = None) -> list[str]:
    """The columns of :func:`longest_rows`."""
    keys = ("variant", "head_dim", "mask", "seq", "fwd", "bwd", "ceiling", "peak")
    return [words.text(f"ts.col.{k}", lang) for k in keys]


def scale_lines(grid: TrainScale, lang: str | None = None) -> list[str]:
    """The two scales each rate is read against: the measured ceiling and the published peak, with its source."""
    c, peak = grid.ceilings, grid.peak
    if c is not None:
        source = words.text(f"ts.ceilings.{grid.ceilings_from or 'measured'}", lang)
        lines = [words.text("ts.ceilings", lang, tflops=f"{c.matmul_tflops:.0f}", source=source)]
    else:
        lines = [words.text("ts.no_ceilings", lang)]
    if peak is not None:
        lines.append(words.text("ts.peak", lang, gpu=peak.gpu, tflops=f"{peak.tflops:g}", source=peak.source))
    else:
        lines.append(words.text("ts.no_peak", lang, device=words.device(grid.environment.device_name, lang)))
    return lines


def reasons(grid: TrainScale, seq: int | None = None) -> list[tuple[str, str]]:
    """Why the points at ``seq`` (the longest length when omitted) that did not run did not: ``(variant, reason)``,
    each pair once, in PyTorch's words where PyTorch refused."""
    at = seq if seq is not None else max(grid.seqs)
    out: list[tuple[str, str]] = []
    for p in grid.points:
        pair = (p.variant, p.reason or p.status)
        if p.seq == at and not p.ok and pair not in out:
            out.append(pair)
    return out


def by_hand_line(shape: tuple[int, int, int, int], fwd_ms: float, bwd_ms: float, fwd_flops: float,
                 lang: str | None = None) -> str:  # fmt: skip
    """One point timed by hand: its shape, the two median times and the rates they give (the backward's count is
    :data:`attnprof.workloads.BACKWARD_FLOP_FACTOR` forwards)."""
    bwd_flops = workloads.BACKWARD_FLOP_FACTOR * fwd_flops
    return words.text("ts.by_hand", lang, shape=list(shape), fwd_ms=f"{fwd_ms:.3g}", bwd_ms=f"{bwd_ms:.3g}",
                      fwd=f"{fwd_flops / fwd_ms / 1e9:.3g}", bwd=f"{bwd_flops / bwd_ms / 1e9:.3g}")  # fmt: skip


def report(grid: TrainScale, lang: str | None = None) -> str:
    """The printed report: the two scales, the table at the longest length, and why points there did not run."""
    why = [f"- {v}: {words.reason(reason, lang) or reason}" for v, reason in reasons(grid)]
    table = text_table(headers(lang), longest_rows(grid, lang))
    return "\n".join([*scale_lines(grid, lang), "", table, *(["", *why] if why else [])])
