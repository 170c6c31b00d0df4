"""The drop-in trace reader on a page: its markup (:func:`fragment`) and its scripts (:func:`write_static`).

The reader is ``_assets/attnprof-explain.js``: a port of the reading of ``attnprof explain``
(:mod:`attnprof.analysis.explain`) that runs in the browser on a file the reader drops or chooses, gunzipped there
when it is gzip, and never sent anywhere. It decodes kernel names with the site's decoder
(:mod:`attnprof.render.decoder`: the exported rule table and its engine), so a page loads, in order::

    <script src="_static/attnprof-kernel-rules.js"></script>
    <script src="_static/attnprof-kernels.js"></script>
    <script src="_static/attnprof-explain.js"></script>

The widget carries its words in the page's language (:data:`WORD_PREFIXES` of :data:`attnprof.words.TABLE`) as a
``data-words`` attribute; the script fills their ``{placeholders}`` itself. Without JavaScript the widget stays
hidden and the paragraph before it says how to get the same reading from the command line.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from attnprof import words
from attnprof.records.files import write_if_changed
from attnprof.render import decoder, viewer

#: The reader's script, served like the viewer's (:func:`attnprof.render.viewer.served`).
READER = "attnprof-explain.js"
#: The comparison of two traces (``attnprof diff``), over the reader's readings.
DIFF = "attnprof-diff.js"
#: Every script a page with the widget loads, in order.
SCRIPTS = (*decoder.STATIC_FILES, READER, DIFF)
#: The class of the widget's element (a page whose body has it gets :data:`SCRIPTS`).
WIDGET_CLASS = "attnprof-dropin"
#: The class of the comparison widget's element (two traces, ``attnprof diff``).
DIFF_CLASS = "attnprof-dropdiff"
#: The word keys the widget's report uses.
WORD_PREFIXES = ("dropin.", "explain.", "kernel.dir.", "report.na")
#: ... and the comparison widget's.
DIFF_PREFIXES = (*WORD_PREFIXES, "tracediff.")


def page_words(lang: str | None = None, prefixes: tuple[str, ...] = WORD_PREFIXES) -> dict[str, str]:
    """The widget's words in ``lang``, unfilled (the script fills their placeholders)."""
    lang = words.language(lang)
    return {k: v.get(lang, v[words.LANGUAGES[0]]) for k, v in words.TABLE.items() if k.startswith(prefixes)}


def _data(lang: str, prefixes: tuple[str, ...]) -> str:
    return html.escape(json.dumps(page_words(lang, prefixes), ensure_ascii=True, sort_keys=True,
                                  separators=(",", ":")))  # fmt: skip


def fragment(lang: str | None = None) -> str:
    """The widget's HTML: the note for readers without JavaScript, then the drop zone with its file input, the
    privacy note, the status line and the report's place (hidden until the script starts)."""
    e = html.escape
    lang = words.language(lang)
    data = _data(lang, WORD_PREFIXES)
    return (
        f'<p class="attnprof-dropin-fallback">{e(words.text("dropin.no_script", lang))}</p>\n'
        f'<div class="{WIDGET_CLASS}" data-lang="{lang}" data-words="{data}" hidden>\n'
        '<label class="attnprof-dropin-zone">'
        f"<span>{e(words.text('dropin.prompt', lang))}</span>"
        '<input type="file" accept=".json,.gz,application/json,application/gzip"></label>\n'
        f'<p class="attnprof-dropin-privacy">{e(words.text("dropin.privacy", lang))}</p>\n'
        '<p class="attnprof-dropin-status" role="status" aria-live="polite"></p>\n'
        '<div class="attnprof-dropin-report"></div>\n'
        "</div>\n"
    )


def diff_fragment(lang: str | None = None) -> str:
    """The comparison widget's HTML: the note for readers without JavaScript, then the prompt, a drop zone for
    BEFORE and one for AFTER, the privacy note, the status line and the report's place (hidden until the script
    starts)."""
    e = html.escape
    lang = words.language(lang)

    def zone(side: str) -> str:
        return (f'<label class="attnprof-dropin-zone attnprof-dropdiff-{side}">'
                f"<span>{e(words.text(f'tracediff.dropin.choose_{side}', lang))}</span>"
                '<input type="file" accept=".json,.gz,application/json,application/gzip"></label>\n')  # fmt: skip

    return (
        f'<p class="attnprof-dropin-fallback">{e(words.text("tracediff.dropin.no_script", lang))}</p>\n'
        f'<div class="{DIFF_CLASS}" data-lang="{lang}" data-words="{_data(lang, DIFF_PREFIXES)}" hidden>\n'
        f'<p class="attnprof-dropdiff-prompt">{e(words.text("tracediff.dropin.prompt", lang))}</p>\n'
        f'<div class="attnprof-dropdiff-zones">\n{zone("before")}{zone("after")}</div>\n'
        f'<p class="attnprof-dropin-privacy">{e(words.text("dropin.privacy", lang))}</p>\n'
        '<p class="attnprof-dropin-status" role="status" aria-live="polite"></p>\n'
        '<div class="attnprof-dropin-report"></div>\n'
        "</div>\n"
    )


def write_static(folder: str | Path) -> list[Path]:
    """Write :data:`SCRIPTS` into ``folder`` (a site's ``_static``), each only when it changed; returns their paths
    in loading order."""
    paths = decoder.write_static(folder)
    for name in (READER, DIFF):
        write_if_changed(Path(folder) / name, viewer.served(name).encode("utf-8"))
    return [*paths, Path(folder) / READER, Path(folder) / DIFF]
