"""The interactive trace viewer's side in Python: a compact per-step payload for the browser, and its markup.

The PNG timelines (:mod:`attnprof.timeline`) show one step; the viewer shows every active step of a result, with
zoom, pan, a tooltip per slice and launch-to-kernel links, drawn by ``_static/attnprof-viewer.js`` from a small
data file that this module writes. Nothing here imports torch, matplotlib or Sphinx at import time.

The contract between the three parts:

* :func:`write_data` writes ``<view id>.js``, a script that registers the payload:
  ``(window.attnprofViewerData = window.attnprofViewerData || {})["<view id>"] = {...};``. A plain
  ``<script src>`` loads it, which works from ``file://`` too (``fetch()`` does not).
* :func:`fragment` returns the HTML that goes into the page, right after the PNG figure it replaces on screen.
  The viewer is ``hidden`` until the script finds its data, so without JavaScript (and in print) the PNG stays.
* ``attnprof-viewer.js`` and ``attnprof-viewer.css`` (:data:`STATIC_FILES`, in ``_static``) are shared by every
  view of a page.

Payload (version :data:`FORMAT_VERSION`), a JSON object:

``version``, ``id``, ``title``
    Format version, view id (:func:`view_id`), and ``variant, [shape] dtype (device)``.
``step``
    Index into ``steps`` shown first (the step of the PNG).
``words``
    The viewer's words in the page's language (:data:`attnprof.viewer_words.VIEWER_WORDS` and the keys of
    :data:`attnprof.labels.LABELS` listed in :data:`LABEL_KEYS`).
``colors``
    ``{"families": {family: [background, text]}, "cpu": [[background, text], ...] (by depth), "runtime":
    [background, text]}``: the PNG's colours (:data:`attnprof.timeline.FAMILY_COLORS`, ``CPU_COLORS``,
    ``RUNTIME_COLOR``) with the text colour that contrasts most.
``families``
    The families that occur, in the order of :data:`~attnprof.timeline.FAMILY_COLORS` (the legend).
``strings``
    Every name and category once; slices and kernels refer to them by index.
``kernels``
    One entry per distinct GPU activity (name and launch configuration), so that a kernel launched in every step
    is described once: ``n`` full name, ``s`` short name (string indices), ``f`` family, ``k`` kind, and, where
    they apply, the texts ``gb`` (grid × block), ``regs``, ``smem``, ``occ`` (reported occupancy), ``theo``
    (theoretical occupancy and, below 100 %, its limiter), ``bytes``, and ``api`` (launch API, string index).
``steps``
    Per active step: ``index``, ``label``, ``span`` (µs, the end of the last slice or of the annotation) and
    ``lanes``. A lane is ``{"kind": "cpu" | "launch" | "gpu", "name": text, "slices": [...]}``; times are µs from
    the start of the step's annotation, at the trace's nanosecond precision. Slices are arrays:
    ``cpu``: ``[start, duration, name, category]``; ``launch``: ``[start, duration, name, category,
    correlation]`` (correlation ``null`` for calls that launched nothing); ``gpu``: ``[start, duration, kernel,
    correlation]``. A launch and the GPU work it launched share the correlation id.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from . import labels, occupancy, timeline, trace
from .results import GpuActivity, Result, StepTrace, write_if_changed
from .viewer_words import VIEWER_WORDS

FORMAT_VERSION = 1
#: The script and stylesheet every page with a viewer needs (shared by all its views), in :data:`STATIC_DIR`.
STATIC_FILES = ("attnprof-viewer.js", "attnprof-viewer.css")
STATIC_DIR = Path(__file__).parent / "_static"
#: The global object the data files register themselves in.
DATA_GLOBAL = "attnprofViewerData"
#: Words the viewer borrows from :data:`attnprof.labels.LABELS`.
LABEL_KEYS = (
    "col.family",
    "col.grid_block",
    "col.registers",
    "col.shared_memory",
    "col.reported_occupancy",
    "col.theoretical_occupancy",
    "col.launch_api",
    "timeline.xlabel",
    "timeline.legend.cpu",
    "timeline.legend.runtime",
    "timeline.download",
)


def language_of(language: str | None) -> str:
    """The site language for ``language``.

    Args:
        language: A Sphinx language (``"ja"``, ``"ja_JP"``, ``"en-US"``) or ``None`` for the first of
            :data:`attnprof.labels.LANGUAGES`.

    Returns:
        One of :data:`attnprof.labels.LANGUAGES`.

    Raises:
        ValueError: for a language the site is not built in, naming the accepted ones.
    """
    lang = (language or labels.LANGUAGES[0]).replace("-", "_").split("_")[0]
    if lang not in labels.LANGUAGES:
        raise ValueError(
            f"language {language!r} is not a site language; choose one of: {', '.join(labels.LANGUAGES)}"
        )
    return lang


def words(language: str | None) -> dict[str, str]:
    """Every word the viewer shows, in ``language``: its own (:data:`VIEWER_WORDS`) and those of :data:`LABEL_KEYS`.

    Args:
        language: The page's language (see :func:`language_of`).

    Returns:
        ``{key: text}``, ``{placeholders}`` left for the page's script to fill.

    Raises:
        ValueError: for a language the site is not built in.
    """
    lang = language_of(language)
    own = {key: texts[lang] for key, texts in VIEWER_WORDS.items()}
    return own | {key: labels.label(key, lang) for key in LABEL_KEYS}


def view_id(result: Result, step: int | None = None) -> str:
    """The id of the view of ``result`` that opens at ``step``: ``<result stem>.step<step or "mid">``.

    Named like the PNG of the same step, so that a page showing two steps of one result has two views.

    Args:
        result: The result shown.
        step: Index into ``result.steps`` the view opens at; ``None`` for the middle step.

    Returns:
        The id, also the data file's name without ``.js``.

    Raises:
        ValueError: if the result did not run or ``step`` is out of range (see :func:`payload`).
    """
    _check(result, step)
    return f"{result.stem}.step{'mid' if step is None else step}"


def _check(result: Result, step: int | None) -> StepTrace:
    if not result.ok:
        raise ValueError(
            f"result of {result.variant!r} has status {result.status!r} ({result.reason or 'no reason given'}); "
            "only results with status 'ok' can be viewed"
        )
    return timeline.pick_step(result, step)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours.

    Args:
        a: A colour as ``#rrggbb``.
        b: Another one.

    Returns:
        1 (no contrast) to 21 (black on white); text wants at least 4.5.
    """

    def luminance(hex_color: str) -> float:
        channels = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lighter, darker = sorted((luminance(a), luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _ink(background: str) -> str:
    """Black or white text, whichever contrasts more with ``background``."""
    return max(("#000000", "#ffffff"), key=lambda ink: contrast(ink, background))


class _Strings:
    """A string table: each distinct string stored once, referred to by index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def table(self) -> list[str]:
        return list(self.index)


class _Kernels:
    """Distinct GPU activities (name and launch configuration), with the texts the tooltip shows."""

    def __init__(self, strings: _Strings, props: dict[str, Any], language: str) -> None:
        self.strings, self.props, self.language = strings, props, language
        self.index: dict[tuple[Any, ...], int] = {}
        self.entries: list[dict[str, Any]] = []

    def __call__(self, a: GpuActivity) -> int:
        key = (a.kind, a.name, a.launch_api, a.registers_per_thread, a.shared_memory, a.reported_occupancy, a.bytes)
        key += (tuple(a.grid or ()), tuple(a.block or ()))
        if key not in self.index:
            self.index[key] = len(self.entries)
            self.entries.append(self._describe(a))
        return self.index[key]

    def _describe(self, a: GpuActivity) -> dict[str, Any]:
        # The site's number formatters, so the tooltip says what the kernel table says (Sphinx is imported here,
        # at build time, not when this module is).
        from .sphinxext import NBSP, fmt_bytes, fmt_dims, fmt_g

        entry: dict[str, Any] = {
            "n": self.strings(a.name),
            "s": self.strings(timeline.short_name(a)),
            "f": timeline.family_of(a),
            "k": a.kind,
        }
        if a.grid and a.block:
            entry["gb"] = f"{fmt_dims(a.grid)} × {fmt_dims(a.block)}"
        if a.registers_per_thread is not None:
            entry["regs"] = str(a.registers_per_thread)
        if a.shared_memory is not None:
            entry["smem"] = fmt_bytes(a.shared_memory)
        if a.reported_occupancy is not None:
            entry["occ"] = f"{fmt_g(a.reported_occupancy)}{NBSP}%"
        theo = self._theoretical(a)
        if theo is not None:
            limiter = f" ({labels.label('limiter.' + theo.limiter, self.language)})" if theo.percent < 100 else ""
            entry["theo"] = f"{fmt_g(theo.percent)}{NBSP}%{limiter}"
        if a.bytes is not None:
            entry["bytes"] = fmt_bytes(a.bytes)
        if a.launch_api:
            entry["api"] = self.strings(a.launch_api)
        return entry

    def _theoretical(self, a: GpuActivity) -> occupancy.Occupancy | None:
        threads = a.threads_per_block
        if a.kind != "kernel" or threads is None or a.registers_per_thread is None or a.shared_memory is None:
            return None
        try:
            return occupancy.theoretical(a.registers_per_thread, threads, a.shared_memory, self.props)
        except ValueError:
            return None  # a device or configuration the calculator does not cover: nothing rather than a guess


def _lanes(st: StepTrace, strings: _Strings, kernels: _Kernels, language: str) -> list[dict[str, Any]]:
    """The lanes of one step: CPU ops by depth, the runtime/driver calls, one lane per GPU stream."""
    launches = [op for op in st.cpu_ops if op.category in trace.LAUNCH_CATEGORIES]
    cpu_ops = [op for op in st.cpu_ops if op.category not in trace.LAUNCH_CATEGORIES]
    lanes = []
    for depth in sorted({op.depth for op in cpu_ops}):
        lanes.append(
            {
                "kind": "cpu",
                "name": labels.label("timeline.row.cpu", language, depth=depth),
                "depth": depth,
                "slices": [
                    [op.start_us, op.duration_us, strings(op.name), strings(op.category)]
                    for op in cpu_ops
                    if op.depth == depth
                ],
            }
        )

    # A launch and what it launched share a correlation id; the trace keeps it on the activity, whose
    # launch_start_us is the launching call's start.
    correlation = {round(a.launch_start_us, 3): a.correlation for a in st.activities if a.launch_start_us is not None}
    calls = [[op.start_us, op.duration_us, strings(op.name), strings(op.category)] for op in launches]
    seen = {round(op.start_us, 3) for op in launches}
    for a in st.activities:  # launches the trace records only on the activity
        if a.launch_start_us is not None and round(a.launch_start_us, 3) not in seen:
            seen.add(round(a.launch_start_us, 3))
            calls.append([a.launch_start_us, a.launch_duration_us or 0.0, strings(a.launch_api or "launch"), None])
    if calls:
        calls.sort(key=lambda c: c[0])
        for call in calls:
            call.append(correlation.get(round(call[0], 3)))
        lanes.append({"kind": "launch", "name": labels.label("timeline.row.runtime", language), "slices": calls})

    for stream in sorted({-1 if a.stream is None else a.stream for a in st.activities}):
        name = "GPU" if stream == -1 else labels.label("timeline.row.stream", language, stream=stream)
        slices = [
            [a.start_us, a.duration_us, kernels(a), a.correlation]
            for a in st.activities
            if (-1 if a.stream is None else a.stream) == stream
        ]
        lanes.append({"kind": "gpu", "name": name, "slices": slices})
    return lanes


def payload(result: Result, language: str | None = None, step: int | None = None) -> dict[str, Any]:
    """The browser's data for every active step of ``result`` (see the module docstring for its layout).

    Args:
        result: A result that ran (status ``"ok"``) and recorded profiler steps.
        language: Language of the words (``"en"``, ``"ja"``); the first site language when ``None``.
        step: Index into ``result.steps`` the viewer opens at; the middle step (the PNG's) when ``None``.

    Returns:
        A JSON-ready dict.

    Raises:
        ValueError: if the result did not run or has no steps, ``step`` is out of range, or ``language`` is not
            a site language; the message names the bad value and what is accepted.
    """
    _check(result, step)
    lang = language_of(language)
    strings = _Strings()
    kernels = _Kernels(strings, result.device_properties, lang)
    steps = []
    for st in result.steps:
        lanes = _lanes(st, strings, kernels, lang)
        ends = [s[0] + s[1] for lane in lanes for s in lane["slices"]] + [st.cpu_time_us]
        steps.append(
            {
                "index": st.index,
                "label": labels.label("timeline.step", lang, step=st.index),
                "span": round(max(ends), 3),
                "lanes": lanes,
            }
        )
    present = {k["f"] for k in kernels.entries}
    colors = {
        "families": {f: [c, _ink(c)] for f, c in timeline.FAMILY_COLORS.items()},
        "cpu": [[c, _ink(c)] for c in timeline.CPU_COLORS],
        "runtime": [timeline.RUNTIME_COLOR, _ink(timeline.RUNTIME_COLOR)],
    }
    return {
        "version": FORMAT_VERSION,
        "id": view_id(result, step),
        "title": f"{result.variant}, {list(result.shape)} {result.dtype} ({result.device})",
        "step": len(result.steps) // 2 if step is None else step % len(result.steps),
        "words": words(lang),
        "colors": colors,
        "families": [f for f in timeline.FAMILY_COLORS if f in present],
        "strings": strings.table(),
        "kernels": kernels.entries,
        "steps": steps,
    }


def data_script(result: Result, language: str | None = None, step: int | None = None) -> str:
    """The data file's text: a script that registers :func:`payload` under its view id in ``window.``
    :data:`DATA_GLOBAL`. ASCII only, so it reads the same whatever encoding the page declares.

    Args:
        result: The result to show.
        language: Language of the viewer's words.
        step: The step the viewer opens at; the middle step when ``None``.

    Returns:
        One line of JavaScript, newline-terminated.

    Raises:
        ValueError: as :func:`payload`.
    """
    data = payload(result, language, step)
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    target = f"(window.{DATA_GLOBAL} = window.{DATA_GLOBAL} || {{}})"
    return f"{target}[{json.dumps(data['id'])}] = {body};\n"


def write_data(result: Result, path: str | Path, language: str | None = None, step: int | None = None) -> bool:
    """Write :func:`data_script` to ``path`` unless the file already holds it. Returns True if written.

    Args:
        result: The result to show.
        path: Where the data file goes, conventionally ``<folder>/<view id>.js``; missing folders are created.
        language: Language of the viewer's words; the first site language when ``None``.
        step: The step the viewer opens at; the middle step when ``None``.

    Raises:
        ValueError: as :func:`payload`.
    """
    return write_if_changed(Path(path), data_script(result, language, step).encode("ascii"))


def fragment(view: str, data_url: str, trace_url: str, language: str | None = None) -> str:
    """The HTML of one view: the viewer (hidden until its script has data), the Perfetto button, the download link
    and the script tag of the data file. It goes right after the PNG figure, which the script hides on screen.

    Args:
        view: The view id (:func:`view_id`), the key the data file registers its payload under.
        data_url: URL of the data file (:func:`write_data`), relative to the page.
        trace_url: URL of the gzipped Chrome trace, relative to the page; the download link and the Perfetto
            button use it.
        language: Language of the page.

    Returns:
        The markup, as a string.

    Raises:
        ValueError: for an empty view id or URL, or a language the site is not built in.
    """
    for name, value in (("view", view), ("data_url", data_url), ("trace_url", trace_url)):
        if not value:
            raise ValueError(f"{name} is empty; pass the view id and the page-relative URLs of the files")
    w = words(language)
    e = lambda text: html.escape(text, quote=True)  # noqa: E731
    file_name = trace_url.rsplit("/", 1)[-1]
    return (
        f'<div class="attnprof-trace-view" data-view="{e(view)}">'
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
        f'<button type="button" class="attnprof-viewer-perfetto" data-trace="{e(trace_url)}" hidden>'
        f"{e(w['perfetto.open'])}</button> "
        f'<a class="attnprof-viewer-download" href="{e(trace_url)}" download="{e(file_name)}">'
        f"{e(w['timeline.download'])}</a> "
        '<span class="attnprof-viewer-status" role="status" aria-live="polite"></span>'
        "</p>"
        f'<script src="{e(data_url)}"></script>'
        "</div>"
    )
