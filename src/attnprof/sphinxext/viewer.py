"""The interactive trace viewer on the site's pages (:mod:`attnprof.viewer`): a node after every timeline figure,
written by the HTML builders, and the viewer's script and stylesheet on the pages that show one.

:func:`trace_view` is what a directive adds right after a timeline's PNG figure (``timeline`` does; any directive
that draws a result's step can). The node holds the result file and the step, and, as its children, the
builder-neutral fallback: the paragraph with the link to the raw trace (its ``download_reference`` also makes
Sphinx publish the trace in ``_downloads``).

At write time the HTML visitor writes the view's data file into the build's own output folder
(``_viewer/<view id>.js``, :func:`attnprof.viewer.write_data`: deterministic, written only when it changed, so
parallel writers agree) and replaces the fallback with :func:`attnprof.viewer.fragment`, whose own download link
and "Open in Perfetto" button point at the published trace. Other builders (LaTeX, text, ...) render the node as
the container it is: the fallback paragraph. Each language build has its own output folder, so each gets data in
its own words.

The script and stylesheet (written into the output's ``_static`` when the builder starts, as
:func:`attnprof.viewer.served` gives them) are added to a page when its body holds a view: a ``timeline``'s, or one
that a gallery script printed with :func:`attnprof.viewer.embed`.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.osutil import relative_uri

from .. import viewer
from ..results import Result
from . import lookup

#: Where the data files go, inside a build's output folder.
DATA_DIR = "_viewer"
#: The class a view's HTML starts with (:func:`attnprof.viewer.fragment`): a page that has it gets the script.
VIEW_CLASS = "attnprof-trace-view"


class trace_viewer(nodes.container):
    """A view of one step of a result; its children are the fallback for builders without the viewer."""


def trace_view(result: Result, result_path: Path, step: int | None, fallback: list[nodes.Node]) -> trace_viewer:
    """The viewer node for ``result`` (read from ``result_path``) opening at ``step``, with ``fallback`` (the
    download paragraph) as its children."""
    node = trace_viewer("", *fallback, classes=["attnprof-trace-fallback"])
    node["result_path"] = str(result_path)
    node["step"] = step
    node["view"] = viewer.view_id(result, step)
    return node


def visit_trace_viewer_html(self: Any, node: trace_viewer) -> None:
    builder = self.builder
    found = lookup.analysed(Path(node["result_path"]))
    view = node["view"]
    viewer.write_data(found, Path(builder.outdir) / DATA_DIR / f"{view}.js", builder.config.language, node["step"])
    page = builder.get_target_uri(builder.current_docname)
    data_url = relative_uri(page, f"{DATA_DIR}/{view}.js")
    ref = next(node.findall(addnodes.download_reference), None)
    trace_url = None
    if ref is not None and "filename" in ref:
        trace_url = posixpath.join(builder.dlpath, urllib.parse.quote(ref["filename"]))
    self.body.append(viewer.fragment(view, data_url, trace_url, builder.config.language))
    raise nodes.SkipNode


def _write_static_files(app: Sphinx) -> None:
    """The viewer's script and stylesheet, as served (:func:`attnprof.viewer.write_static`), into the HTML output's
    ``_static`` before any page is written (so that the pages' links carry their checksums)."""
    if app.builder.format == "html":
        viewer.write_static(Path(app.outdir) / "_static")


def _add_static_files(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """The viewer's stylesheet and script, on the pages that show a view."""
    if VIEW_CLASS in context.get("body", ""):
        app.add_css_file(viewer.STATIC_FILES[1])
        app.add_js_file(viewer.STATIC_FILES[0], defer="defer")


def setup_viewer(app: Sphinx) -> None:
    """Register the viewer node (HTML writes the viewer, other builders the fallback) and its static files."""
    app.add_node(trace_viewer, html=(visit_trace_viewer_html, None))
    app.connect("builder-inited", _write_static_files)
    app.connect("html-page-context", _add_static_files)
