"""Reading a trace of one's own model on the site: ``explain-report``, ``dropin-reader`` and ``dropin-diff``.

``explain-report PATH``
    What ``attnprof explain PATH`` prints, in the page's language, read by this build from the trace at ``PATH``
    (a PyTorch profiler trace, ``.json`` or ``.json.gz``; relative to ``attnprof_trace_root``, by default the
    folder of ``conf.py``) through :func:`attnprof.sphinxext.lookup.read` (kind ``FOREIGN``): never pasted text.
    PyTorch is not asked why a backend was chosen (the extension imports no torch), so the report ends with the
    flags.
``dropin-reader``
    The drop-in reader (:mod:`attnprof.render.dropin`): a reader drops a trace file onto the page and gets the same
    reading, computed in the browser. Builders other than HTML write the paragraph that says to run ``attnprof
    explain`` instead. The reader's scripts (the kernel decoder's rule table and engine, then the reader) are written
    into the output's ``_static`` when the builder starts and added to the pages that show the widget.
``dropin-diff``
    The comparison of two traces (``attnprof diff`` in the browser, ``_assets/attnprof-diff.js``): a reader drops
    or chooses BEFORE and AFTER and gets what changed. Builders other than HTML write the paragraph that says to run
    ``attnprof diff`` instead.

Example (MyST)::

    ```{explain-report} tests/data/foreign/h200/hf_sdpa_train.json.gz
    ```

    ```{dropin-reader}
    ```

    ```{dropin-diff}
    ```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from attnprof.render import dropin
from attnprof.render import explain as report
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import AttnprofDirective, para


class dropin_reader(nodes.container):
    """The drop-in reader; its child is the paragraph builders without it write."""


class dropin_diff(nodes.container):
    """The comparison widget; its child is the paragraph builders without it write."""


class ExplainReport(AttnprofDirective):
    """``explain-report``: the text of ``attnprof explain`` on one trace, read by the build."""

    has_content = False
    required_arguments = 1
    option_spec: ClassVar = {}

    def run(self) -> list[nodes.Node]:
        path = Path(self.config.attnprof_trace_root) / self.arguments[0]
        found = lookup.read(self.env, lookup.FOREIGN, path, self.get_location())
        if found.value is None:
            return self.problem(found.problem)
        text = report.text(found.value, None, self.lang).rstrip("\n")
        block = nodes.literal_block(text, text, classes=["attnprof-explain-report"])
        block["language"] = "text"
        block["translatable"] = False
        self.set_source_info(block)
        return [block]


class DropinReader(AttnprofDirective):
    """``dropin-reader``: the widget that reads a dropped trace in the browser."""

    has_content = False
    option_spec: ClassVar = {}

    def run(self) -> list[nodes.Node]:
        node = dropin_reader("", para(self.say("dropin.no_script")), classes=["attnprof-dropin-fallback"])
        self.set_source_info(node)
        return [node]


class DropinDiff(AttnprofDirective):
    """``dropin-diff``: the widget that compares two dropped traces in the browser."""

    has_content = False
    option_spec: ClassVar = {}

    def run(self) -> list[nodes.Node]:
        node = dropin_diff("", para(self.say("tracediff.dropin.no_script")), classes=["attnprof-dropin-fallback"])
        self.set_source_info(node)
        return [node]


def _visit_html(self: Any, node: dropin_reader) -> None:
    self.body.append(dropin.fragment(self.builder.config.language))
    raise nodes.SkipNode


def _visit_diff_html(self: Any, node: dropin_diff) -> None:
    self.body.append(dropin.diff_fragment(self.builder.config.language))
    raise nodes.SkipNode


def _resolve_root(app: Sphinx, config: Config) -> None:
    """``attnprof_trace_root``, the folder ``explain-report`` paths start from: the folder of conf.py unless set."""
    config.attnprof_trace_root = str((Path(app.confdir) / (config.attnprof_trace_root or ".")).resolve())


def _write_static_files(app: Sphinx) -> None:
    if app.builder.format == "html":
        dropin.write_static(Path(app.outdir) / "_static")


def _add_scripts(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    body = context.get("body", "")
    if any(f'class="{name}"' in body for name in (dropin.WIDGET_CLASS, dropin.DIFF_CLASS)):
        for name in dropin.SCRIPTS:
            app.add_js_file(name, defer="defer")


def setup_dropin(app: Sphinx) -> None:
    """Register ``explain-report``, ``dropin-reader``, ``dropin-diff`` and the reader's scripts."""
    app.add_config_value("attnprof_trace_root", "", "env", types=frozenset({str}))
    app.connect("config-inited", _resolve_root)
    app.add_directive("explain-report", ExplainReport)
    app.add_directive("dropin-reader", DropinReader)
    app.add_directive("dropin-diff", DropinDiff)
    app.add_node(dropin_reader, html=(_visit_html, None))
    app.add_node(dropin_diff, html=(_visit_diff_html, None))
    app.connect("builder-inited", _write_static_files)
    app.connect("html-page-context", _add_scripts)
