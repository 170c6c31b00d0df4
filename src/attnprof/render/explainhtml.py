"""``attnprof explain --html``: the reading of a trace as one self-contained page.

The page holds everything it needs: the sections of :mod:`.explain` as tables, and the site's interactive trace
viewer (:mod:`.viewer`) over a few of the trace's steps, with the viewer's script, its stylesheet and the steps'
data inline. It fetches nothing and works from ``file://``, offline.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from attnprof import words
from attnprof.analysis import explain as ex
from attnprof.analysis.explain import Asked, Explanation
from attnprof.render import explain as text
from attnprof.render import viewer

#: The most steps the page's timeline carries (evenly spread over the trace): each adds its every CPU event.
MAX_VIEW_STEPS = 4
VIEW_ID = "explain"

#: The page's own style (after the viewer's): :mod:`.diffhtml` uses it too.
CSS = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 1280px; padding: 1rem; color: #1a1a1a; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.attnprof-explain-table { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
ul.notes li { color: #7a4b00; }
p.made { color: #555; font-size: 0.85rem; }
"""


def view_steps(x: Explanation, limit: int = MAX_VIEW_STEPS) -> list[int]:
    """The indexes of the steps the page's timeline shows: all when there are few, else ``limit`` spread evenly."""
    n = len(x.steps)
    if n <= limit:
        return list(range(n))
    return sorted({round(k * (n - 1) / (limit - 1)) for k in range(limit)})


def _numeric(cell: str) -> bool:
    return bool(cell) and (cell[0].isdigit() or (cell[0] == "-" and cell[1:2].isdigit()))


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of text cells (numbers right-aligned), in a box that scrolls sideways on a narrow screen."""
    e = html.escape
    head = "".join(f'<th scope="col">{e(h)}</th>' for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{e(c)}</td>' if _numeric(c) else f"<td>{e(c)}</td>" for c in r) + "</tr>"
        for r in rows
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="attnprof-explain-table">{table}</div>'


def timeline(x: Explanation, lang: str | None = None, steps: Sequence[int] | None = None) -> tuple[str, str]:
    """The heading and the viewer over ``steps`` (by default :func:`view_steps`), data inline; ``("", "")`` for a
    trace without steps."""
    which = list(view_steps(x) if steps is None else steps)
    if not which:
        return "", ""
    traces = ex.step_traces(x, which)
    heading = words.text("explain.html.timeline", lang, shown=len(which), steps=len(x.steps))
    note = words.text("explain.note.cpu_only", lang) if not x.trace.gpu else None
    data = viewer.steps_payload(traces, x.rows, x.device_properties, VIEW_ID, x.trace.name, lang, 0, note)
    view = viewer.fragment(VIEW_ID, None, None, lang, inline=viewer.script(data), trace_name="",
                           no_script=words.text("explain.html.no_script", lang))  # fmt: skip
    return heading, view


def page(x: Explanation, asked: Asked | None = None, lang: str | None = None) -> str:
    """The whole page: head, notes, the sections, the timeline, the viewer's script and stylesheet inline."""
    e = html.escape
    lang = words.language(lang)
    parts = [f"<h1>{e(words.text('explain.title', lang, name=x.trace.name))}</h1>", f"<p>{e(text.head(x, lang))}</p>"]
    found = text.notes(x, lang)
    if found:
        items = "".join(f"<li>{e(n)}</li>" for n in found)
        parts.append(f'<p>{e(words.text("explain.notes", lang))}</p><ul class="notes">{items}</ul>')
    for s in text.sections(x, asked, lang):
        parts.append(f"<h2>{e(s.title)}</h2>")
        parts += [f"<p>{e(line.strip())}</p>" for line in s.before]
        if s.headers:
            parts.append(html_table(s.headers, s.rows))
        parts += [f"<p>{e(line.strip())}</p>" for line in s.after]
    heading, view = timeline(x, lang)
    if view:
        parts.append(f"<h2>{e(heading)}</h2>{view}")
    parts.append(f'<p class="made">{e(words.text("explain.html.made_by", lang, name=x.trace.name))}</p>')
    css = viewer.served("attnprof-viewer.css") + CSS
    js = viewer.served("attnprof-viewer.js")
    if "</" in js:  # would end the script element early
        raise ValueError("the viewer's script holds '</', which cannot stand inside a <script> element")
    title = e(words.text("explain.title", lang, name=x.trace.name))
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{css}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(parts)
        + f"\n</main>\n<script>{js}</script>\n</body>\n</html>\n"
    )
