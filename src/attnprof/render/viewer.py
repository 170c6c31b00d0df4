"""The interactive trace viewer's side in Python: a compact per-step payload for the browser, and its markup.

The PNG timelines (:mod:`attnprof.render.timeline`) show one step; the viewer shows every active step of a result,
with zoom, pan, a tooltip per slice and launch-to-kernel links, drawn by ``_assets/attnprof-viewer.js`` (and styled by
``attnprof-viewer.css``; served as :func:`served` strips them) from a small payload that this module writes.
Nothing here imports torch, matplotlib or Sphinx.

In a gallery script (or a notebook), one line shows it under the cell::

    from attnprof import viewer

    viewer.embed(result)  # the cell's last expression: sphinx-gallery and Jupyter show its HTML

:func:`embed` returns an :class:`Embed` whose ``_repr_html_`` carries the payload inline (so the page works from
``file://``) and, when the trace is small enough (:data:`INLINE_TRACE_MAX`), the gzipped trace too, for the
"Open in Perfetto" button and the download link. The viewer's script and stylesheet come from the site: the
extension adds them to every page that shows a view, gallery pages included. Where they are missing (a notebook
in Jupyter, a script run in a terminal) the output is a one-line message instead of a broken widget, so keep the
PNG (``timeline.figure(result)``) in the same cell: it is what a reader without the site sees. Gallery outputs are
recorded by the first (English) build and reused by the others, so :func:`embed`'s words are English unless
``language`` says otherwise, like the rest of a script's output.

The Sphinx extension (:mod:`attnprof.sphinxext.viewer`) uses the parts: :func:`write_data` writes ``<view
id>.js``, a script that registers the payload in ``window.attnprofViewerData["<view id>"]`` (a plain ``<script
src>`` loads it, which works from ``file://`` too, where ``fetch()`` does not), and :func:`fragment` is the HTML
that goes right after the PNG figure. The viewer is ``hidden`` until the script finds its data, and the script
hides the PNG of the figure just before it on screen only, so without JavaScript and in print the PNG stays.

Payload (version :data:`FORMAT_VERSION`), a JSON object:

``version``, ``id``, ``title``
    Format version, view id (:func:`view_id`), and the timeline's heading (:func:`attnprof.render.timeline.heading`).
``step``
    Index into ``steps`` shown first (the step of the PNG).
``words``
    The words the script writes (:data:`SCRIPT_WORDS`) in the page's language.
``note``
    Present when no step has GPU activity: says so, and why (the device the variant ran on).
``colors``
    ``{"families": {family: [background, text]}, "cpu": [[background, text], ...] (by depth), "runtime":
    [background, text]}``: the PNG's colours and text colour (:func:`attnprof.render.pictures.ink`).
``families``
    The families that occur, in the order of :data:`~attnprof.render.timeline.FAMILY_COLORS` (the legend).
``strings``
    Every name and category once; slices and kernels refer to them by index.
``columns``
    Word keys of the kernel table's columns (after the name) that ``kernels[i].c`` holds, in order.
``kernels``
    One entry per kernel-table row (:mod:`attnprof.analysis.summary`), and one more per launch whose configuration
    differs from its row's: ``n`` full name, ``s`` short name (string indices), ``f`` colour family, ``c`` the
    kernel table's cells (:func:`attnprof.render.columns.kernel_cells`; ``null`` where the table says "n/a") and, for
    copies and sets, ``b`` the bytes moved.
``steps``
    Per active step: ``label``, ``span`` (µs, the end of the last slice or of the annotation) and ``lanes``
    (:func:`attnprof.render.timeline.lanes`). A lane is ``{"kind": "cpu" | "launch" | "gpu", "name": text, "depth"
    (CPU lanes), "slices": [...]}``; times are µs from the start of the step's annotation, at the trace's
    nanosecond precision. Slices are arrays: ``cpu``: ``[start, duration, name, category]``; ``launch``:
    ``[start, duration, name, category or null, correlation or null]``; ``gpu``: ``[start, duration, kernel,
    correlation]``. A launch and the GPU work it launched share the correlation id.
``trace``
    Only from :func:`embed`: the gzipped Chrome trace, base64.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attnprof import settings, words
from attnprof.analysis import summary
from attnprof.analysis.summary import Analysis, KernelRow
from attnprof.records.files import write_if_changed
from attnprof.records.results import GpuActivity, Result, StepTrace
from attnprof.render import columns, pictures, timeline
from attnprof.words import fmt, kernels

FORMAT_VERSION = 2
#: The script and stylesheet every page with a view needs (shared by all its views): sources in
#: :data:`ASSETS_DIR`, served as :func:`served` gives them.
STATIC_FILES = ("attnprof-viewer.js", "attnprof-viewer.css")
ASSETS_DIR = Path(__file__).parent.parent / "_assets"
#: The global object the data register themselves in.
DATA_GLOBAL = "attnprofViewerData"
#: The kernel table's columns the tooltip shows (all but the name, which it shows in full).
TIP_COLUMNS = columns.KERNEL_COLUMNS[1:]
#: The names of the kernel families, as the legend shows them.
FAMILY_KEYS = tuple(key for key in kernels.KERNELS if key.startswith("family."))
#: Words the viewer borrows from the site's tables, besides :data:`TIP_COLUMNS`.
SITE_KEYS = ("timeline.legend.cpu", "timeline.legend.runtime", "timeline.download", *FAMILY_KEYS)
#: The words the script uses (the markup's own are written into it by :func:`fragment`).
SCRIPT_WORDS = (
    *TIP_COLUMNS,
    "timeline.legend.cpu", "timeline.legend.runtime", *FAMILY_KEYS, "tip.bytes", "tip.category", "tip.correlation",
    "tip.duration", "tip.full_name", "tip.launched_by", "tip.launches", "tip.start", "viewer.legend",
    "viewer.linked", "viewer.region", "viewer.timeline", "viewer.unlinked", "viewer.visible", "perfetto.blocked",
    "perfetto.failed", "perfetto.file", "perfetto.opening", "perfetto.sent",
)  # fmt: skip
#: The largest gzipped trace :func:`embed` carries inline (base64 makes it a third larger).
INLINE_TRACE_MAX = 48_000


def viewer_words(lang: str | None) -> dict[str, str]:
    """Every word the viewer shows, in ``lang`` (English for a language the site is not built in).

    Returns:
        ``{key: text}``: the keys of :mod:`attnprof.words.viewer`, :data:`TIP_COLUMNS` and :data:`SITE_KEYS`,
        ``{placeholders}`` left for the page's script to fill.
    """
    from attnprof.words import viewer as own

    return {key: words.text(key, lang) for key in (*own.VIEWER, *TIP_COLUMNS, *SITE_KEYS)}


def view_id(result: Result, step: int | None = None) -> str:
    """The id of the view of ``result`` that opens at ``step``: ``<result stem>.step<step or "mid">``, named like
    the PNG of the same step.

    Raises:
        ValueError: if the result did not run or ``step`` is out of range (see :func:`payload`).
    """
    _check(result, step)
    return f"{result.stem}.step{'mid' if step is None else step}"


def _check(result: Result, step: int | None) -> None:
    if not result.ok:
        raise ValueError(
            f"result of {result.variant!r} has status {result.status!r} ({result.reason or 'no reason given'}); "
            "only results with status 'ok' can be viewed"
        )
    timeline.pick_step(result, step)


class _Strings:
    """A string table: each distinct string stored once, referred to by index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))


def _launch_row(row: KernelRow, a: GpuActivity, props: dict[str, Any]) -> KernelRow:
    """``row``, with the launch configuration of ``a`` where it differs from the row's (most common) one."""
    own = {f: getattr(a, f) for f in summary.CONFIG_FIELDS}
    if all(own[f] == getattr(row, f) for f in summary.CONFIG_FIELDS) and a.launch_api == row.launch_api:
        return row
    theo = summary.theoretical_occupancy(
        a.kind, a.registers_per_thread, a.block, a.shared_memory, props
    )  # the analysis's own rule, for this configuration
    return dataclasses.replace(row, **own, launch_api=a.launch_api, reported_occupancy=a.reported_occupancy,
                               theoretical=theo)  # fmt: skip


class _Kernels:
    """Kernel entries: one per kernel-table row (a kernel-table row is one name in one launch configuration), and
    one per other launch API or size of a row's launches."""

    def __init__(self, rows: Sequence[KernelRow], props: dict[str, Any], strings: _Strings,
                 lang: str | None) -> None:  # fmt: skip
        self.rows = {(r.name, summary.launch_config(r)): r for r in rows}
        self.first = {}
        for r in rows:
            self.first.setdefault(r.name, r)
        self.props = props
        self.strings, self.language = strings, lang
        self.index: dict[tuple[Any, ...], int] = {}
        self.entries: list[dict[str, Any]] = []

    def __call__(self, a: GpuActivity) -> int:
        own = self.rows.get((a.name, summary.launch_config(a)), self.first[a.name])
        row = _launch_row(own, a, self.props)
        key = (a.name, repr([getattr(row, f) for f in summary.CONFIG_FIELDS]), row.launch_api, a.bytes)
        if key not in self.index:
            self.index[key] = len(self.entries)
            cells = columns.kernel_cells(row, self.language)
            entry = {
                "n": self.strings(a.name),
                "s": self.strings(str(cells["col.kernel"])),
                "f": timeline.family_of(a),
                "c": [cells[k] for k in TIP_COLUMNS],
            }
            if a.bytes is not None:
                entry["b"] = fmt.size(a.bytes)
            self.entries.append(entry)
        return self.index[key]


def _lane(lane: timeline.Lane, strings: _Strings, kernels: _Kernels) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": lane.kind, "name": lane.name}
    if lane.kind == "cpu":
        out["depth"] = lane.depth
        out["slices"] = [[o.start_us, o.duration_us, strings(o.name), strings(o.category)] for o in lane.ops]
    elif lane.kind == "launch":
        out["slices"] = [
            [c.start_us, c.duration_us, strings(c.name), None if c.category is None else strings(c.category),
             c.correlation]
            for c in lane.calls
        ]  # fmt: skip
    else:
        out["slices"] = [[a.start_us, a.duration_us, kernels(a), a.correlation] for a in lane.activities]
    return out


def payload(result: Result | Analysis, lang: str | None = None, step: int | None = None) -> dict[str, Any]:
    """The browser's data for every active step of ``result`` (see the module docstring for its layout).

    Args:
        result: A result that ran (status ``"ok"``) and recorded profiler steps, or its analysis (the extension
            passes the one it keeps, so nothing is analysed twice).
        lang: Language of the words (``"en"``, ``"ja"``); English when ``None`` or not a site language.
        step: Index into ``result.steps`` the viewer opens at; the middle step (the PNG's) when ``None``.

    Returns:
        A JSON-ready dict.

    Raises:
        ValueError: if the result did not run or has no steps, or ``step`` is out of range; the message names the
            bad value and what is accepted.
    """
    a = result if isinstance(result, Analysis) else summary.analyse(result)
    res = a.result
    _check(res, step)
    note = None
    if not any(st.activities for st in res.steps):
        note = words.text("viewer.no_gpu", lang, variant=res.variant, device=res.device.upper())
    return steps_payload(res.steps, a.rows, res.device_properties, view_id(res, step),
                         timeline.heading(res, lang), lang, step, note)  # fmt: skip


def steps_payload(
    steps: Sequence[StepTrace],
    rows: Sequence[KernelRow],
    device_properties: dict[str, Any],
    view: str,
    title: str,
    lang: str | None = None,
    step: int | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The browser's data for any steps (see the module docstring for its layout): a result's (:func:`payload`), or
    the steps of a trace nobody here recorded (``attnprof explain --html``).

    Args:
        steps: The steps, times from each step's start (:class:`~attnprof.records.results.StepTrace`).
        rows: The kernel table the steps' activities are rows of (:func:`attnprof.analysis.summary.kernel_rows`).
        device_properties: For the theoretical occupancy of a launch whose configuration differs from its row's.
        view: The view id.
        title: The timeline's heading.
        lang: Language of the words; English when ``None`` or not a site language.
        step: Index into ``steps`` the viewer opens at; the middle step when ``None``.
        note: What to say above a view without GPU activity (why it has none).

    Raises:
        ValueError: for no steps, or ``step`` out of range.
    """
    if not steps:
        raise ValueError(f"view {view!r}: no steps to show")
    if step is not None and not -len(steps) <= step < len(steps):
        raise ValueError(f"step {step} out of range; choose 0 to {len(steps) - 1}")
    strings = _Strings()
    kernels = _Kernels(rows, device_properties, strings, lang)
    shown = []
    for st in steps:
        lanes = [_lane(lane, strings, kernels) for lane in timeline.lanes(st, lang)]
        ends = [s[0] + s[1] for lane in lanes for s in lane["slices"]] + [st.cpu_time_us]
        shown.append(
            {"label": words.text("timeline.step", lang, step=st.index), "span": round(max(ends), 3),
             "lanes": lanes}
        )  # fmt: skip
    data: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "id": view,
        "title": title,
        "step": len(steps) // 2 if step is None else step % len(steps),
        "words": {k: words.text(k, lang) for k in SCRIPT_WORDS},
    }
    if note is not None and not any(st.activities for st in steps):
        data["note"] = note
    present = {k["f"] for k in kernels.entries}
    return data | {
        "colors": {
            "families": {f: [c, pictures.ink(c)] for f, c in timeline.FAMILY_COLORS.items() if f in present},
            "cpu": [[c, pictures.ink(c)] for c in timeline.CPU_COLORS],
            "runtime": [timeline.RUNTIME_COLOR, pictures.ink(timeline.RUNTIME_COLOR)],
        },
        "families": [f for f in timeline.FAMILY_COLORS if f in present],
        "strings": list(strings.index),
        "columns": list(TIP_COLUMNS),
        "kernels": kernels.entries,
        "steps": shown,
    }


def served(name: str) -> str:
    """The text of :data:`STATIC_FILES` ``name`` as the site serves it: the source without its comments and
    indentation (about a fifth smaller; a static host's gzip does the rest). Lines stay lines, so the script's
    statements end where they ended."""
    text = re.sub(r"/\*.*?\*/", "", (ASSETS_DIR / name).read_text(encoding="utf-8"), flags=re.S)
    lines = (re.sub(r"\s+//[^\"'`]*$", "", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//")) + "\n"


def write_static(folder: str | Path) -> list[Path]:
    """Write the served script and stylesheet into ``folder`` (a site's ``_static``), each only when it changed;
    returns their paths."""
    paths = [Path(folder) / name for name in STATIC_FILES]
    for path in paths:
        write_if_changed(path, served(path.name).encode("utf-8"))
    return paths


def script(data: dict[str, Any]) -> str:
    """The data's script: one line of JavaScript that registers ``data`` (a payload) under its ``id`` in
    ``window.`` :data:`DATA_GLOBAL`; ASCII only."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    return f"(window.{DATA_GLOBAL} = window.{DATA_GLOBAL} || {{}})[{json.dumps(data['id'])}] = {body};\n"


def data_script(result: Result | Analysis, lang: str | None = None, step: int | None = None) -> str:
    """The data file's text: one line of JavaScript that registers :func:`payload` under its view id in
    ``window.`` :data:`DATA_GLOBAL`. ASCII only, so it reads the same whatever encoding the page declares.

    Raises:
        ValueError: as :func:`payload`.
    """
    return script(payload(result, lang, step))


def write_data(result: Result | Analysis, path: str | Path, lang: str | None = None, step: int | None = None) -> bool:
    """Write :func:`data_script` to ``path`` (conventionally ``<folder>/<view id>.js``; missing folders are
    created) unless the file already holds it. Returns True if written.

    Raises:
        ValueError: as :func:`payload`.
    """
    return write_if_changed(Path(path), data_script(result, lang, step).encode("ascii"))


def fragment(
    view: str,
    data_url: str | None,
    trace_url: str | None,
    lang: str | None = None,
    *,
    inline: str | None = None,
    trace_name: str | None = None,
    no_script: str | None = None,
) -> str:
    """The HTML of one view: a message for pages without the viewer's script (inline data only), the viewer
    (hidden until its script has data), the Perfetto button, the download link and the data's script.

    Args:
        view: The view id (:func:`view_id`), the key the data register their payload under.
        data_url: URL of the data file (:func:`write_data`), relative to the page; ``None`` with ``inline``.
        trace_url: URL of the gzipped Chrome trace, relative to the page, for the download link and the Perfetto
            button; ``None`` when the trace comes inline (``trace`` in the payload) or not at all.
        lang: Language of the page.
        inline: The data's script itself (:func:`data_script`), to put in the page instead of ``data_url``.
        trace_name: File name the download gets; by default the last part of ``trace_url``.
        no_script: What an inline view says where its script does not run (by default: that it needs the site's
            script, and that the picture beside it shows the same step).

    Raises:
        ValueError: for an empty view id, or not exactly one of ``data_url`` and ``inline``.
    """
    if not view or (data_url is None) == (inline is None) or data_url == "":
        raise ValueError(
            f"view {view!r}, data_url {data_url!r}: pass the view id and either the page-relative URL of the data "
            "file or the data's script as inline"
        )
    w = viewer_words(lang)
    e = lambda text: html.escape(text, quote=True)  # noqa: E731
    name = trace_name or (trace_url.rsplit("/", 1)[-1] if trace_url else "")
    download = f' href="{e(trace_url)}"' if trace_url else " hidden"
    # inside a script element "</" would end it; in the data's JSON strings "<\/" reads the same
    script = (
        f'<script src="{e(data_url)}"></script>'
        if data_url
        else "<script>" + inline.replace("</", "<\\/") + "</script>"
    )
    said = no_script if no_script is not None else w["viewer.no_script"]
    no_script = f'<p class="attnprof-viewer-noscript">{e(said)}</p>' if inline else ""
    return (
        f'<div class="attnprof-trace-view" data-view="{e(view)}">{no_script}'
        '<div class="attnprof-viewer" hidden>'
        '<div class="attnprof-viewer-bar">'
        f'<label>{e(w["viewer.step"])} <select class="attnprof-viewer-step"></select></label>'
        '<span class="attnprof-viewer-zoom">'
        f'<button type="button" data-zoom="in" aria-label="{e(w["viewer.zoom_in"])}" '
        f'title="{e(w["viewer.zoom_in"])} (+)">+</button>'
        f'<button type="button" data-zoom="out" aria-label="{e(w["viewer.zoom_out"])}" '
        f'title="{e(w["viewer.zoom_out"])} (−)">−</button>'
        f'<button type="button" data-zoom="reset" title="{e(w["viewer.reset"])} (0)">{e(w["viewer.reset"])}</button>'
        "</span>"
        '<output class="attnprof-viewer-range"></output>'
        "</div>"
        '<div class="attnprof-viewer-plot" tabindex="0" role="group"></div>'
        '<ul class="attnprof-viewer-legend"></ul>'
        f'<p class="attnprof-viewer-hint">{e(w["viewer.hint"])}</p>'
        "</div>"
        '<p class="attnprof-viewer-links">'
        f'<button type="button" class="attnprof-viewer-perfetto" data-trace="{e(trace_url or "")}" hidden>'
        f"{e(w['perfetto.open'])}</button> "
        f'<a class="attnprof-viewer-download"{download} download="{e(name)}">{e(w["timeline.download"])}</a> '
        '<span class="attnprof-viewer-status" role="status" aria-live="polite"></span>'
        "</p>"
        f"{script}</div>"
    )


@dataclass(frozen=True)
class Embed:
    """A view with its data inline, for a gallery page or a notebook: shown through ``_repr_html_``."""

    view: str
    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<attnprof trace view {self.view}: {len(self.html)} bytes of HTML>"


def _trace_bytes(result: Result, trace: bytes | str | Path | None) -> bytes | None:
    if isinstance(trace, bytes):
        return trace
    path = Path(trace) if trace is not None else None
    if path is None and result.trace_file:
        path = settings.results_dir() / result.trace_file
    if path is None or not path.is_file():
        if trace is not None:
            raise ValueError(f"trace {str(trace)!r} is not a file; pass the .trace.json.gz that profile() saved")
        return None
    return path.read_bytes()


def embed(
    result: Result | Analysis,
    step: int | None = None,
    lang: str | None = None,
    trace: bytes | str | Path | None = None,
) -> Embed:
    """The viewer of ``result`` with its data inline: make it a cell's last expression and the page shows it.

    Args:
        result: A result that ran (``profiling.profile(...)``), or its analysis.
        step: Index into ``result.steps`` the viewer opens at; the middle step (the PNG's) when ``None``.
        lang: Language of the viewer's words; English when ``None``.
        trace: The gzipped Chrome trace (bytes or a path) for "Open in Perfetto" and the download link; by
            default ``result.trace_file`` in :func:`attnprof.settings.results_dir`, where ``profile(...,
            save_to=settings.results_dir())`` saved it. A trace larger than :data:`INLINE_TRACE_MAX` bytes, or none,
            leaves the button and the link out.

    Returns:
        An :class:`Embed`.

    Raises:
        ValueError: if the result did not run, ``step`` is out of range, or ``trace`` names no file.
    """
    res = result.result if isinstance(result, Analysis) else result
    data = payload(result, lang, step)
    raw = _trace_bytes(res, trace)
    name = res.trace_file or f"{res.stem}.trace.json.gz"
    if raw is not None and len(raw) <= INLINE_TRACE_MAX:
        data["trace"] = base64.b64encode(raw).decode("ascii")
    else:
        name = ""
    view = data["id"]
    return Embed(view, fragment(view, None, None, lang, inline=script(data), trace_name=name))
