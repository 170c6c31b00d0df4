"""The gallery pages: what the scripts sphinx-gallery runs in this process are told, and the line that says how to
run a script after downloading it.

* The scripts run inside the Sphinx process, so they learn the build's settings from environment variables set
  here when the configuration is read: the language to print and draw in (``$ATTNPROF_LANGUAGE``, from
  ``language``) and what to do with measurements already saved (``$ATTNPROF_REUSE``, :mod:`attnprof.measure.reuse`):
  reuse what the same code measured on the same machine (``attnprof_reuse_measurements``, conf.py's setting), or
  replay everything the first language saved and measure nothing (``attnprof_replay_measurements``, which
  :mod:`attnprof.site.builder` turns on for every language after the first).
* ``attnprof_wheel_dir`` names the folder where the build put the wheel of attnprof it publishes (the nox session
  ``docs`` builds it there). The folder joins ``html_static_path``, so the wheel is copied to ``_static/``, and
  every page of the gallery (``attnprof_gallery_dir``) gets one line under its title: download the wheel, install it
  with torch, run the script. A configured folder without a wheel is a warning (HTML builds only).
"""

from __future__ import annotations

import logging as stdlogging
import os
import sys
import warnings
from pathlib import Path
from string import Formatter
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from attnprof import words
from attnprof.settings import LANGUAGE_ENV, REPLAY, REUSE_ENV

logger = logging.getLogger(__name__)

#: What the install line asks pip for besides the wheel: torch, and matplotlib for the timelines.
REQUIREMENTS = ("torch", "matplotlib")
#: PyTorch's profiler warns, once per process, that it clears its events at the end of each cycle. The scripts
#: profile one cycle (``repeat=1``), so it says nothing about them; and printed by whichever script runs first in the
#: build's process, it stood on that script's page in the first language only (with the builder's paths in it).
PROFILER_CYCLE_WARNING = "Warning: Profiler clears events at the end of each cycle"
#: The same kind of once-per-process notice from torch.fx, logged (not warned) by the first script that builds a
#: FlexAttention block mask; with the time and process id in it, it stood on that page in the first language only.
FX_TRACING_NOTICE = ("torch.fx._symbolic_trace", "is_fx_tracing will return true for both")


def _not_fx_tracing_notice(record: stdlogging.LogRecord) -> bool:
    return not str(record.msg).startswith(FX_TRACING_NOTICE[1])


def fresh_compiler(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """sphinx-gallery's ``reset_modules`` hook: before each script, forget what ``torch.compile`` compiled for the
    scripts before it (``torch._dynamo.reset()``), so that each runs as it would in a fresh process.

    Without it, the compiled entries of every earlier script counted against dynamo's limit per function: in the
    second language FlexAttention's limit was reached before ``08-flex.py`` ran, so its call fell back to the
    unfused eager path, with another error against float64 and PyTorch's warning about it printed on the page. What
    was compiled stays in the on-disk caches, so compiling again is quick. Nothing is imported: a build whose scripts
    never imported dynamo has nothing to forget.
    """
    dynamo = sys.modules.get("torch._dynamo")
    if when == "before" and dynamo is not None:
        dynamo.reset()


def wheel_in(folder: str | Path) -> Path | None:
    """The newest ``attnprof-*.whl`` in ``folder``, or ``None``."""
    wheels = sorted(Path(folder).glob("attnprof-*.whl"), key=lambda p: p.stat().st_mtime_ns)
    return wheels[-1] if wheels else None


def _on_config_inited(app: Sphinx, config: Config) -> None:
    warnings.filterwarnings("ignore", message=PROFILER_CYCLE_WARNING, category=UserWarning)
    stdlogging.getLogger(FX_TRACING_NOTICE[0]).addFilter(_not_fx_tracing_notice)
    os.environ[LANGUAGE_ENV] = words.language(config.language)
    reuse = "1" if config.attnprof_reuse_measurements else "0"
    os.environ[REUSE_ENV] = REPLAY if config.attnprof_replay_measurements else reuse
    if config.attnprof_wheel_dir:
        folder = (Path(app.confdir) / config.attnprof_wheel_dir).resolve()
        config.attnprof_wheel_dir = str(folder)
        if wheel_in(folder) is not None:
            config.html_static_path = [*config.html_static_path, str(folder)]


def _words_with_nodes(template: str, parts: dict[str, nodes.Node]) -> list[nodes.Node]:
    """``template`` as nodes: its text, and ``parts[name]`` where it says ``{name}``."""
    out: list[nodes.Node] = []
    for text, name, _, _ in Formatter().parse(template):
        if text:
            out.append(nodes.Text(text))
        if name:
            out.append(parts[name])
    return out


def install_line(docname: str, wheel: Path, lang: str | None, index: bool) -> nodes.paragraph:
    """The one line that says how to run a gallery script (``index``: any of them) after downloading it."""
    relative = "../" * docname.count("/") + f"_static/{wheel.name}"
    command = "pip install " + " ".join([*REQUIREMENTS, wheel.name])
    script = "python " + ("NN-topic.py" if index else docname.rsplit("/", 1)[-1] + ".py")
    parts = {
        "wheel": nodes.reference("", wheel.name, refuri=relative, classes=["attnprof-wheel"]),
        "command": nodes.literal("", command),
        "run": nodes.literal("", script),
    }
    key = "gallery.install_index" if index else "gallery.install"
    return nodes.paragraph("", "", *_words_with_nodes(words.text(key, lang), parts), classes=["attnprof-install"])


def _on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    gallery = app.config.attnprof_gallery_dir.strip("/")
    if not (gallery and docname.startswith(gallery + "/")) or not app.config.attnprof_wheel_dir:
        return
    if app.builder.format != "html":  # the line links a file of the HTML output
        return
    wheel = wheel_in(app.config.attnprof_wheel_dir)
    if wheel is None:
        if getattr(app, "_attnprof_no_wheel_warned", False):
            return
        app._attnprof_no_wheel_warned = True  # type: ignore[attr-defined]  # once per build, not once per page
        logger.warning(
            "no attnprof wheel in %s, so the gallery cannot say how to install attnprof: build it first with "
            "`python -m pip wheel --no-deps --no-build-isolation -w %s .` (the nox session docs does)",
            app.config.attnprof_wheel_dir,
            app.config.attnprof_wheel_dir,
            location=docname,
        )
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    at = 1  # after the title, the paragraphs under it and the provenance banner (attnprof.sphinxext.banner)
    while at < len(section.children) and (
        isinstance(section.children[at], nodes.paragraph) or "attnprof-env-banner" in section.children[at]["classes"]
    ):
        at += 1
    line = install_line(docname, wheel, app.config.language, docname == f"{gallery}/index")
    section.insert(at, line)


def setup_scripts(app: Sphinx) -> None:
    """Register the configuration values and the handlers of the gallery pages."""
    app.add_config_value("attnprof_wheel_dir", "", "env", types=frozenset({str}))
    app.add_config_value("attnprof_gallery_dir", "auto_examples", "env", types=frozenset({str}))
    app.add_config_value("attnprof_reuse_measurements", False, "env", types=frozenset({bool}))
    app.add_config_value("attnprof_replay_measurements", False, "env", types=frozenset({bool}))
    app.connect("config-inited", _on_config_inited)
    app.connect("doctree-read", _on_doctree_read)
