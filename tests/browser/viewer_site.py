"""A small static site that shows the trace viewer (:mod:`attnprof.viewer`) the way a built page would: the PNG
figure, then the viewer's fragment, the shared script and stylesheet, the data files and the gzipped traces. No
Playwright import here: ``nox -s tests`` collects this package without it.

Layout of the folder it writes (the URLs in the pages are relative, so it works over HTTP and from ``file://``)::

    en.html, ja.html          one page per language, every variant of VARIANTS on it
    _static/                  attnprof-viewer.js, attnprof-viewer.css
    _viewer/<lang>/<id>.js    data files
    _downloads/<stem>.trace.json.gz
    _images/<stem>.<lang>.png the PNG timelines (fallback without script)
"""

from __future__ import annotations

import html
import shutil
from dataclasses import dataclass
from pathlib import Path

from attnprof import timeline, viewer
from attnprof.results import Result, write_if_changed
from conftest import TRACES, trace_result

#: Variants on the test page: the largest trace (20 kernels), a driver-launched cuDNN kernel, and a single
#: FlashAttention kernel.
VARIANTS = ("sdpa_math", "sdpa_cudnn", "sdpa_flash")

# furo's variables, light and dark, so that the viewer's stylesheet meets what it meets on the site
_PAGE_CSS = """
body { --color-foreground-primary: #000; --color-foreground-secondary: #5a5c63;
  --color-background-primary: #fff; --color-background-secondary: #f8f9fb; --color-background-border: #eeebee;
  --color-brand-primary: #0a4bff;
  margin: 0; color: var(--color-foreground-primary); background: var(--color-background-primary);
  font-family: system-ui, sans-serif; line-height: 1.5; }
body[data-theme="dark"] { --color-foreground-primary: #cfd0d0; --color-foreground-secondary: #9ca0a5;
  --color-background-primary: #131416; --color-background-secondary: #1a1c1e; --color-background-border: #303335;
  --color-brand-primary: #3d94ff; }
a { color: var(--color-brand-primary); }
main { max-width: 46em; margin: 0 auto; padding: 1em; }
figure { margin: 1em 0 0; } figure img { width: 100%; height: auto; }
"""


@dataclass
class ViewOnPage:
    """One view of the test page, with what the tests compare it with."""

    variant: str
    result: Result
    view_id: str
    trace_bytes: bytes  # the .json.gz as published


def build(folder: Path, variants: tuple[str, ...] = VARIANTS, pngs: bool = True) -> dict[str, ViewOnPage]:
    """Write the test site into ``folder``; returns the views by variant."""
    static = folder / "_static"
    static.mkdir(parents=True, exist_ok=True)
    for name in viewer.STATIC_FILES:
        shutil.copyfile(viewer.STATIC_DIR / name, static / name)
    views: dict[str, ViewOnPage] = {}
    for variant in variants:
        result, _ = trace_result(variant)
        trace_bytes = (TRACES / f"{variant}.json.gz").read_bytes()
        write_if_changed(folder / "_downloads" / f"{result.stem}.trace.json.gz", trace_bytes)
        views[variant] = ViewOnPage(variant, result, viewer.view_id(result), trace_bytes)
    for lang in ("en", "ja"):
        parts = []
        for v in views.values():
            stem = v.result.stem
            data_url = f"_viewer/{lang}/{v.view_id}.js"
            viewer.write_data(v.result, folder / data_url, lang)
            png = f"_images/{stem}.{lang}.png"
            summary = timeline.render(v.result, folder / png, language=lang) if pngs else v.variant
            parts.append(
                f"<h2>{html.escape(v.variant)}</h2>"
                f'<figure class="attnprof-timeline"><img src="{png}" alt="{html.escape(summary)}">'
                f"<figcaption>{html.escape(v.variant)}: caption</figcaption></figure>"
                + viewer.fragment(v.view_id, data_url, f"_downloads/{stem}.trace.json.gz", lang)
            )
        page = (
            f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>attnprof viewer ({lang})</title><link rel="icon" href="data:,">'
            '<link rel="stylesheet" href="_static/attnprof-viewer.css">'
            f"<style>{_PAGE_CSS}</style>"
            '<script defer src="_static/attnprof-viewer.js"></script>'
            '</head><body data-theme="light"><main><h1>Trace viewer</h1>' + "".join(parts) + "</main></body></html>"
        )
        (folder / f"{lang}.html").write_text(page, encoding="utf-8")
    return views
