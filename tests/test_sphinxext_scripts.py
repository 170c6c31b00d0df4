"""attnprof.sphinxext.scripts: the install line of the gallery pages, the wheel they link, and what the scripts that
sphinx-gallery runs in the build's process are told."""

from __future__ import annotations

import os

from docutils import nodes

from attnprof import settings, words
from helpers import doctree, html


def _install_lines(tree: nodes.document) -> list[nodes.paragraph]:
    return [p for p in tree.findall(nodes.paragraph) if "attnprof-install" in p["classes"]]


PAGES = {
    "index.md": "# Home\n\n```{toctree}\nauto_examples/index\n```\n",
    "auto_examples/index.rst": "Gallery\n=======\n\nScripts to run.\n\n.. toctree::\n\n   05-sdpa-flash\n",
    "auto_examples/05-sdpa-flash.rst": (
        "Run it: flash\n=============\n\nFlash, profiled.\n\nInputs\n------\n\nText.\n"
    ),
}


def _wheel(tmp_path):
    folder = tmp_path / "wheel"
    folder.mkdir()
    (folder / "attnprof-0.1.0-py3-none-any.whl").write_bytes(b"PK\x05\x06" + bytes(18))
    return folder


def test_every_gallery_page_says_how_to_install_and_run_it(project, tmp_path):
    folder = _wheel(tmp_path)
    app = project(PAGES, variants=(), conf=f"attnprof_wheel_dir = {str(folder)!r}")
    assert app.warning.getvalue() == ""
    page = doctree(app, "auto_examples/05-sdpa-flash")
    (line,) = _install_lines(page)
    section = line.parent
    after = section.children[section.index(line) + 1]
    assert isinstance(after, nodes.section) and after[0].astext() == "Inputs"  # under the page's introduction
    assert section.children[section.index(line) - 1].astext() == "Flash, profiled."
    text = line.astext()
    assert "pip install torch matplotlib attnprof-0.1.0-py3-none-any.whl" in text
    assert "python 05-sdpa-flash.py" in text
    out = html(app, "auto_examples/05-sdpa-flash")
    assert 'href="../_static/attnprof-0.1.0-py3-none-any.whl"' in out
    assert (app.outdir / "_static" / "attnprof-0.1.0-py3-none-any.whl").is_file()
    index = doctree(app, "auto_examples/index")
    (index_line,) = _install_lines(index)
    assert index_line.astext().startswith("Run them yourself") and "python NN-topic.py" in index_line.astext()
    assert not _install_lines(doctree(app))


def test_the_line_is_in_the_builds_language(project, tmp_path):
    app = project(PAGES, variants=(), language="ja", conf=f"attnprof_wheel_dir = {str(_wheel(tmp_path))!r}")
    assert app.warning.getvalue() == ""
    text = html(app, "auto_examples/05-sdpa-flash")
    assert words.text("gallery.install", "ja").split("{")[0] in text


def test_a_configured_folder_without_a_wheel_warns_once(project, tmp_path):
    empty = tmp_path / "nowheel"
    empty.mkdir()
    app = project(PAGES, variants=(), conf=f"attnprof_wheel_dir = {str(empty)!r}")
    warnings = app.warning.getvalue()
    assert warnings.count("no attnprof wheel in") == 1 and "pip wheel --no-deps --no-build-isolation" in warnings
    gettext = project(PAGES, variants=(), builder="gettext", conf=f"attnprof_wheel_dir = {str(empty)!r}")
    assert gettext.warning.getvalue() == ""  # the line belongs to the HTML pages only


def test_the_scripts_learn_the_language_and_whether_to_reuse(project, tmp_path):
    project(PAGES, variants=(), language="ja", conf="attnprof_reuse_measurements = True")
    assert os.environ[settings.LANGUAGE_ENV] == "ja" and settings.language() == "ja" and settings.reuse_measurements()
    assert not settings.replaying()
    replay = "attnprof_reuse_measurements = True\nattnprof_replay_measurements = True"
    project(PAGES, variants=(), language="ja", conf=replay)
    assert settings.replaying() and settings.reuse_measurements()
    project(PAGES, variants=(), language="en")
    assert settings.language() == "en" and not settings.reuse_measurements() and not settings.replaying()


def test_the_profilers_once_per_process_warning_reaches_no_page(project, tmp_path):
    import warnings

    from attnprof.sphinxext.scripts import PROFILER_CYCLE_WARNING

    message = PROFILER_CYCLE_WARNING + ".Only events from the current cycle will be reported."  # torch 2.11's text
    project(PAGES, variants=(), language="en")
    ignored = [f for f in warnings.filters if f[0] == "ignore" and f[1] is not None and f[1].match(message)]
    assert ignored and all(issubclass(UserWarning, f[2]) for f in ignored)
    assert not any(f[1] is not None and f[1].match("another warning") for f in ignored)


def test_torch_fx_once_per_process_notice_reaches_no_page(project, capsys):
    import logging

    from attnprof.sphinxext.scripts import FX_TRACING_NOTICE

    project(PAGES, variants=(), language="en")
    name, start = FX_TRACING_NOTICE
    log = logging.getLogger(name)
    handler = logging.StreamHandler()
    log.addHandler(handler)
    try:
        log.warning(start + " fx.symbolic_trace and torch.export. Please use ...")  # torch 2.11's text
        log.warning("another notice of the same logger")
    finally:
        log.removeHandler(handler)
    err = capsys.readouterr().err
    assert start not in err and "another notice of the same logger" in err


def test_each_script_compiles_as_in_a_fresh_process():
    import torch
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    from attnprof.sphinxext.scripts import fresh_compiler

    def double(x):
        return x * 2

    torch.compile(double, backend="eager")(torch.ones(2))
    assert len(_debug_get_cache_entry_list(double.__code__)) == 1
    fresh_compiler({}, "08-flex.py", "after")  # after a script: nothing happens
    assert len(_debug_get_cache_entry_list(double.__code__)) == 1
    fresh_compiler({}, "09-compiled-naive.py", "before")
    assert _debug_get_cache_entry_list(double.__code__) == []
