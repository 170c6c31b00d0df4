"""attnprof.sphinxext.depends: a rebuild with nothing changed reads no page; a new result file re-reads the pages
that read every result; a change to the code that renders re-reads them all. Tiny Sphinx projects in tmp_path."""

from __future__ import annotations

from attnprof import sphinxext
from attnprof.records import buildtimes, kinds, sweep
from attnprof.sphinxext import depends
from helpers import PAGE_OF_KIND, h200_sweep


def test_a_rebuild_with_nothing_changed_reads_no_page(make_app, make_results, tmp_path, monkeypatch):
    """Pages that read every result (the banner on each page, the claims) depend on the list of result files, not on
    the folder: Sphinx re-reads a page whose dependency is not a file on every build. A change to the code that
    renders re-reads every page."""
    from conftest import CONF

    src, folder = tmp_path / "src", make_results(("naive",))
    src.mkdir()
    (src / "conf.py").write_text(CONF.format(results=str(folder), extra=""))
    (src / "index.md").write_text("# Home\n\n```{kernel-table} naive\n```\n\n```{toctree}\nother\n```\n")
    (src / "other.md").write_text("# Other\n\nNo directive: the banner on top reads every result.\n")
    apps: list = []

    def pages_read() -> list[str]:
        if apps:
            apps[-1].cleanup()
        apps.append(make_app("html", srcdir=src, builddir=src / "_build"))
        apps[-1].build()
        assert apps[-1].warning.getvalue() == ""
        return buildtimes.load(apps[-1].doctreedir).read_docs

    assert pages_read() == ["index", "other"]
    assert pages_read() == []
    make_results(("naive",))  # the same result saved again: not rewritten
    assert pages_read() == []
    make_results(("sdpa_flash",))  # a new result: every page that reads all of them is read again
    assert pages_read() == ["index", "other"]
    assert pages_read() == []
    monkeypatch.setattr(sphinxext, "code_version", lambda: depends.code_version() + 1)  # the rendering code changed
    assert pages_read() == ["index", "other"]


def test_a_rebuild_with_nothing_changed_reads_no_page_when_files_of_every_kind_are_missing(make_app, make_results,
                                                                                             tmp_path):  # fmt: skip
    """Generated from the register: a page that needs a file of every kind a page looks up, none of them there, is
    read once (with a warning for each), then not again while nothing changes: a missing file makes the page depend
    on the list of the results folder, not on the folder. A file that appears re-reads it."""
    from conftest import CONF

    looked_up = {k.what for k in kinds.every() if k.devices}
    assert set(PAGE_OF_KIND) == looked_up
    src, folder = tmp_path / "src", make_results(("naive",))
    src.mkdir()
    (src / "conf.py").write_text(CONF.format(results=str(folder), extra=""))
    (src / "index.md").write_text("# Everything missing\n\n" + "\n\n".join(t for t in PAGE_OF_KIND.values() if t))
    apps: list = []

    def pages_read() -> tuple[list[str], str]:
        if apps:
            apps[-1].cleanup()
        apps.append(make_app("html", srcdir=src, builddir=src / "_build"))
        apps[-1].build()
        return buildtimes.load(apps[-1].doctreedir).read_docs, apps[-1].warning.getvalue()

    read, warnings = pages_read()
    assert read == ["index"]
    missing = [line for line in warnings.splitlines() if "WARNING: no " in line]
    # the CPU and fixed costs are optional to the CPU-cost table, the side-by-side issue times to the decision table
    assert len(missing) == len(PAGE_OF_KIND) - 3
    assert pages_read() == ([], "")  # nothing changed: no page read, so no warning either
    sweep.save(h200_sweep(), folder)  # a file appears: the page is read again
    assert pages_read()[0] == ["index"]
    assert pages_read() == ([], "")


def test_the_code_that_renders_has_a_version_and_the_measuring_code_is_not_part_of_it(tmp_path):
    package = tmp_path / "attnprof"
    for name in ("render/timeline.py", "words/site.py", "measure/timing.py", "_static/attnprof.css"):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(f"# {name}\n")
    versions = [depends.code_version(package)]
    for name, text in (("measure/timing.py", "x = 1\n"), ("render/timeline.py", "x = 1\n"),
                       ("_static/attnprof.css", "p {}\n")):  # fmt: skip
        (package / name).write_text(text)
        depends.code_version.cache_clear()
        versions.append(depends.code_version(package))
    assert versions[1] == versions[0] and len(set(versions[1:])) == 3
    assert isinstance(versions[0], int) and versions[0] > 0
