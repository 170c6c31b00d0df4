"""The interactive trace viewer on the site's pages (:mod:`attnprof.render.viewer`): a node after every timeline
figure, written by the HTML builders, and the viewer's script and stylesheet on the pages that show one.

:func:`trace_view` is what a directive adds right after a timeline's PNG figure (``timeline`` does; any directive
that draws a result's step can). The node holds the result file and the step, and, as its children, the
builder-neutral fallback: the paragraph with the link to the raw trace (its ``download_reference`` also makes
Sphinx publish the trace in ``_downloads``).

The HTML visitor replaces the fallback with :func:`attnprof.render.viewer.fragment`, whose own download link and "Open
in Perfetto" button point at the published trace, and whose script loads the view's data file. The data files are
written once the pages are (``html-collect-pages``), by the main process, for every view the environment knows:
into the build's own output folder (``_viewer/<view id>.js``, :func:`attnprof.render.viewer.write_data`:
deterministic, written only when the bytes change), whether or not this build wrote the page, so they follow the
result and the code. Other builders (LaTeX, text, ...) render the node as
the container it is: the fallback paragraph. Each language build has its own output folder, so each gets data in
its own words.

The script and stylesheet (written into the output's ``_static`` when the builder starts, as
:func:`attnprof.render.viewer.served` gives them) are added to a page when its body holds a view: a ``timeline``'s, or
one that a gallery script printed with :func:`attnprof.render.viewer.embed`.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.osutil import relative_uri

from attnprof.records.results import Result
from attnprof.render import viewer
from attnprof.sphinxext import lookup

#: Where the data files go, inside a build's output folder.
DATA_DIR = "_viewer"
#: The class a view's HTML starts with (:func:`attnprof.render.viewer.fragment`): a page that has it gets the script.
VIEW_CLASS = "attnprof-trace-view"


class trace_viewer(nodes.container):
    """A view of one step of a result; its children are the fallback for builders without the viewer."""


def _views(env: BuildEnvironment) -> dict[str, dict[str, tuple[str, int | None]]]:
    """docname -> view id -> (result file, step): every view of the project, kept in the environment."""
    if not hasattr(env, "attnprof_views"):
        env.attnprof_views = {}  # type: ignore[attr-defined]
    return env.attnprof_views  # type: ignore[attr-defined]


def trace_view(
    env: BuildEnvironment, result: Result, result_path: Path, step: int | None, fallback: list[nodes.Node]
) -> trace_viewer:
    """The viewer node for ``result`` (read from ``result_path``) opening at ``step``, with ``fallback`` (the
    download paragraph) as its children; the view is noted for the current page, so its data file is written."""
    view = viewer.view_id(result, step)
    _views(env).setdefault(env.docname, {})[view] = (str(result_path), step)
    node = trace_viewer("", *fallback, classes=["attnprof-trace-fallback"])
    node["view"] = view
    return node


def visit_trace_viewer_html(self: Any, node: trace_viewer) -> None:
    builder = self.builder
    view = node["view"]
    page = builder.get_target_uri(builder.current_docname)
    data_url = relative_uri(page, f"{DATA_DIR}/{view}.js")
    ref = next(node.findall(addnodes.download_reference), None)
    trace_url = None
    if ref is not None and "filename" in ref:
        trace_url = posixpath.join(builder.dlpath, urllib.parse.quote(ref["filename"]))
    self.body.append(viewer.fragment(view, data_url, trace_url, builder.config.language))
    raise nodes.SkipNode


def _write_data_files(app: Sphinx) -> list[Any]:
    """Every view's data file (:func:`attnprof.render.viewer.write_data`) in this build's language, each written only
    when its bytes change. Done for all views on every HTML build, not only for the pages written this time, so that
    the data follow a change of the result or of the code."""
    views = {view: where for page in _views(app.env).values() for view, where in page.items()}
    for view, (path, step) in sorted(views.items()):
        # the page that shows it noted the file when it was read; the file may have gone bad since
        found = lookup.read(app.env, lookup.RESULT, Path(path), None, note=False)
        if found.value is None:
            continue
        viewer.write_data(found.value, Path(app.outdir) / DATA_DIR / f"{view}.js", app.config.language, step)
    return []


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _views(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    _views(env).update({d: v for d, v in _views(other).items() if d in docnames})


def _write_static_files(app: Sphinx) -> None:
    """The viewer's script and stylesheet, as served (:func:`attnprof.render.viewer.write_static`), into the HTML
    output's ``_static`` before any page is written (so that the pages' links carry their checksums)."""
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
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-collect-pages", _write_data_files)
    app.connect("html-page-context", _add_static_files)
