"""A small site built by Sphinx with the real extension and theme from the H200 fixture results, in English and
Japanese: one page per variant of :data:`VARIANTS` (its kernel table and its timeline, as the site's variant pages
have them), and a page holding what a gallery script's :func:`attnprof.render.viewer.embed` prints. It lets the
viewer's browser tests meet GPU traces on a machine without a GPU. No Playwright import here: ``nox -s tests``
collects this package without it.

Layout of the folder it writes::

    results/                  the fixture results and their traces
    src/                      conf.py and the pages
    html/{en,ja}/             the built site
    notebook.html             an embedded view on a page without the site (a notebook's output, as far as it goes)
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from attnprof.records import results
from attnprof.records.results import Result
from attnprof.render import viewer
from helpers import TRACES, trace_result

#: Variants of the site: the largest trace (20 activities, two grids for two kernels), a driver-launched cuDNN
#: kernel next to calls that launch nothing, and a single FlashAttention kernel.
VARIANTS = ("sdpa_math", "sdpa_cudnn", "sdpa_flash")
#: The variant whose view the gallery-like page embeds.
EMBEDDED = "sdpa_flash"
#: A page (in a language's folder) with an embedded view that carries no trace.
LARGE = "auto_examples/large.html"

CONF = """\
project = "attnprof (H200 fixtures)"
extensions = ["myst_parser", "attnprof.sphinxext"]
html_theme = "furo"
attnprof_results_dir = {results!r}
exclude_patterns = ["_build"]
"""


@dataclass
class ViewOnPage:
    """One view of the site, with what the tests compare it with."""

    variant: str
    result: Result
    view_id: str
    trace_bytes: bytes  # the .json.gz as published
    page: str  # relative to a language's folder

    def url(self, base: str, lang: str) -> str:
        return f"{base}{lang}/{self.page}"


def page_of(variant: str) -> str:
    return f"variants/{variant.replace('_', '-')}.html"


def build(folder: Path) -> dict[str, ViewOnPage]:
    """Write and build the site into ``folder``; returns the views by variant."""
    src, out = folder / "src", folder / "html"
    views: dict[str, ViewOnPage] = {}
    pages = {"index.md": "# Viewer\n\n```{toctree}\n" + "\n".join(
        f"variants/{v.replace('_', '-')}" for v in VARIANTS) + "\ngallery\nauto_examples/large\n```\n"}  # fmt: skip
    for variant in VARIANTS:
        result, raw = trace_result(variant)
        results.save(result, folder / "results", raw)
        trace = (folder / "results" / str(result.trace_file)).read_bytes()
        views[variant] = ViewOnPage(variant, result, viewer.view_id(result), trace, page_of(variant))
        pages[f"variants/{variant.replace('_', '-')}.md"] = (
            f"# {variant}\n\n```{{kernel-table}} {variant}\n```\n\n"
            f"```{{timeline}} {variant}\n{variant}: caption\n```\n"
        )
    embedded = viewer.embed(views[EMBEDDED].result, trace=TRACES / f"{EMBEDDED}.json.gz")
    pages["gallery.md"] = (
        f"# Gallery\n\nWhat `viewer.embed(result)` prints.\n\n```{{raw}} html\n{embedded.html}\n```\n"
    )
    # where a gallery page would be, a view whose trace was too large to carry: no download, no Perfetto
    large = viewer.embed(views["sdpa_math"].result, trace=b"\0" * (viewer.INLINE_TRACE_MAX + 1))
    pages[LARGE.replace(".html", ".md")] = f"# Large\n\n```{{raw}} html\n{large.html}\n```\n"
    (folder / "notebook.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>notebook</title></head><body>'
        f"{embedded.html}</body></html>",
        encoding="utf-8",
    )
    for name, text in {**pages, "conf.py": CONF.format(results=str(folder / "results"))}.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    for lang in ("en", "ja"):
        run = subprocess.run(
            [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", "-D", f"language={lang}", "-d",
             str(folder / "doctrees" / lang), str(src), str(out / lang)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if run.returncode:
            raise RuntimeError(f"the viewer's test site did not build ({lang}):\n{run.stderr}")
    return views
