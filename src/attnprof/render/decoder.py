"""The kernel-name decoder for pages: the browser's engine and the rule table's data, as static assets.

``_assets/attnprof-kernels.js`` decodes kernel names in the browser by interpreting the data that
:func:`attnprof.analysis.kernels.export_rules` gives: the one rule table, not a second copy of it.
:func:`write_static` writes both into a folder (a site's ``_static``): the engine as scripts are served
(:func:`attnprof.render.viewer.served`), and the data as ``attnprof-kernel-rules.js``, one line of JavaScript that
sets ``window.attnprofKernelRules`` (a plain ``<script src>`` loads it, from ``file://`` too, where ``fetch()`` does
not). A page loads the data, then the engine, and calls ``attnprofKernels.decode(name)``::

    <script src="_static/attnprof-kernel-rules.js"></script>
    <script src="_static/attnprof-kernels.js"></script>
"""

from __future__ import annotations

import json
from pathlib import Path

from attnprof.analysis import kernels
from attnprof.records.files import write_if_changed
from attnprof.render import viewer

#: The data file, then the engine (the order a page loads them in).
STATIC_FILES = ("attnprof-kernel-rules.js", "attnprof-kernels.js")
#: The global object the data file sets.
DATA_GLOBAL = "attnprofKernelRules"


def rules_script() -> str:
    """The data file's text: :func:`attnprof.analysis.kernels.export_rules` as one line of JavaScript that sets
    ``window.`` :data:`DATA_GLOBAL`. ASCII only, so it reads the same whatever encoding the page declares."""
    body = json.dumps(kernels.export_rules(), separators=(",", ":"), ensure_ascii=True)
    return f"window.{DATA_GLOBAL} = {body};\n"


def write_static(folder: str | Path) -> list[Path]:
    """Write the data file and the served engine into ``folder`` (created if missing), each only when it changed;
    returns their paths, in :data:`STATIC_FILES` order."""
    rules, engine = (Path(folder) / name for name in STATIC_FILES)
    write_if_changed(rules, rules_script().encode("ascii"))
    write_if_changed(engine, viewer.served(engine.name).encode("utf-8"))
    return [rules, engine]
