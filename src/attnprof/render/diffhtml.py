"""``attnprof diff --html``: two traces compared, as one self-contained page.

The sections of :mod:`.diff` as tables, in the page's language; the page holds its style inline, fetches nothing and
works from ``file://``, offline.
"""

from __future__ import annotations

import html

from attnprof import words
from attnprof.analysis.diff import Diff
from attnprof.render import diff as text
from attnprof.render.explainhtml import CSS, html_table

_CSS = """
ul.short li { margin: 0.2rem 0; }
p.rules { color: #555; font-size: 0.85rem; }
"""


def page(d: Diff, lang: str | None = None) -> str:
    """The whole page: the title and the two traces, the notes, then each section."""
    e = html.escape
    lang = words.language(lang)
    title, *heads = text.head(d, lang)
    parts = [f"<h1>{e(title)}</h1>", *(f"<p>{e(h)}</p>" for h in heads)]
    found = text.notes(d, lang)
    if found:
        items = "".join(f"<li>{e(n)}</li>" for n in found)
        parts.append(f'<p>{e(words.text("tracediff.notes", lang))}</p><ul class="notes">{items}</ul>')
    for s in text.sections(d, lang):
        parts.append(f"<h2>{e(s.title)}</h2>")
        if not s.headers:  # the short list
            items = "".join(f"<li>{e(line.removeprefix('- '))}</li>" for line in s.before)
            parts.append(f'<ul class="short">{items}</ul>' if s.before[:1] and s.before[0].startswith("- ") else
                         "".join(f"<p>{e(line)}</p>" for line in s.before))  # fmt: skip
        else:
            parts += [f"<p>{e(line.strip())}</p>" for line in s.before]
            parts.append(html_table(s.headers, s.rows))
        rules = text.rules(lang)
        parts += [f'<p class="rules">{e(line)}</p>' if line == rules else f"<p>{e(line.strip())}</p>"
                  for line in s.after]  # fmt: skip
    made = words.text("tracediff.html.made_by", lang, before=d.before.trace["name"], after=d.after.trace["name"])
    parts.append(f'<p class="made">{e(made)}</p>')
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{CSS + _CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(parts)
        + "\n</main>\n</body>\n</html>\n"
    )
