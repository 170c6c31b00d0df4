"""attnprof.site.builder: every language built in turn in one process, the second from its translated source tree,
replaying what the first measured; the languages' numbers compared; a rebuild with nothing changed reads nothing;
a table of where the time went.

The project is a small copy of the site's set-up: conf.py at the root with sphinx-gallery and the attnprof
extension, a page, and one gallery script that "measures" a random number, run for real in both languages.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from attnprof import settings
from attnprof.records import buildtimes
from attnprof.site import builder, timetable

#: A script that measures once for every language: what it prints goes through reuse.once.
SCRIPT = '''"""
Run it: x
=========

A script.
"""

# %%
import random

from attnprof.measure import reuse

x = reuse.once("x_ms", round(random.uniform(100, 999), 3))  # one
# sphinx_gallery_attnprof_writes = ["shown/x_ms.json"]
print(f"measured: {x} ms")
'''
#: The same script measuring again in every language (what the builder must catch).
MEASURES_TWICE = SCRIPT.replace(
    'reuse.once("x_ms", round(random.uniform(100, 999), 3))', "round(random.uniform(100, 999), 3)"
)

CONF = """\
extensions = ["sphinx_gallery.gen_gallery", "attnprof.sphinxext"]
project = "x"
locale_dirs = [{locales!r}]
gettext_compact = False
exclude_patterns = ["_build", "locales", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                    "auto_examples/*.md5", "auto_examples/*.json", "auto_examples/*.pickle", "sg_execution_times.rst"]
attnprof_results_dir = {results!r}
attnprof_reuse_measurements = True
sphinx_gallery_conf = {{
    "examples_dirs": ["../examples"], "gallery_dirs": ["auto_examples"], "filename_pattern": r"/\\d\\d-",
    "min_reported_time": 10**9, "write_computation_times": False, "download_all_examples": False,
    "show_memory": False, "remove_config_comments": True,
    "reset_modules": ("matplotlib", "attnprof.sphinxext.scripts.fresh_compiler",
                      "attnprof.sphinxext.buildtimes.clock"), "reset_modules_order": "both",
}}
"""


def _root(tmp_path: Path, translated: bool, script: str = SCRIPT) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "examples").mkdir()
    locales = root / "docs" / "locales"
    (root / "conf.py").write_text(CONF.format(locales=str(locales), results=str(tmp_path / "results")))
    (root / "docs" / "index.rst").write_text("Home\n====\n\nWelcome.\n\n.. toctree::\n\n   auto_examples/index\n")
    (root / "examples" / "GALLERY_HEADER.rst").write_text("Gallery\n=======\n")
    (root / "examples" / "01-x.py").write_text(script)
    if translated:
        catalogs = {
            "auto_examples/01-x": {"Run it: x": "実行する: x", "A script.": "スクリプトです。"},
            "auto_examples/index": {"Gallery": "ギャラリー"},
            "examples/01-x": {"one": "いち"},
            "index": {"Welcome.": "ようこそ。"},
        }
        for domain, messages in catalogs.items():
            catalog = Catalog(locale="ja")
            for msgid, msgstr in messages.items():
                catalog.add(msgid, msgstr)
            path = locales / "ja" / "LC_MESSAGES" / f"{domain}.po"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                write_po(handle, catalog)
    return root


def _measured(out: Path, lang: str) -> str:
    page = (out / "html" / lang / "auto_examples" / "01-x.html").read_text(encoding="utf-8")
    return re.search(r"measured: ([\d.]+) ms", page).group(1)


def test_both_languages_build_in_one_process_and_show_one_measurement(tmp_path, capsys):
    root = _root(tmp_path, translated=True)
    out = tmp_path / "build"
    reuse_before = os.environ.get(settings.REUSE_ENV)
    status = builder.main(["--root", str(root), "--out", str(out), "-q"])
    shown = {
        lang: (out / "html" / lang / "auto_examples" / "01-x.html").read_text(encoding="utf-8")
        for lang in "en ja".split()
    }
    saved = sorted(p.name for p in (tmp_path / "results").rglob("*"))
    assert status == 0, (
        [re.findall(r"measured: [^<]*", page) for page in shown.values()],
        saved,
        os.environ.get(settings.REUSE_ENV),
    )
    assert "Welcome." in (out / "html" / "en" / "index.html").read_text(encoding="utf-8")
    assert "ようこそ。" in (out / "html" / "ja" / "index.html").read_text(encoding="utf-8")
    script = (out / "src" / "ja" / "examples" / "01-x.py").read_text(encoding="utf-8")
    assert "実行する: x" in script and "# いち" in script
    assert builder.source_of("ja", root, out) == out / "src" / "ja" / "docs"
    assert builder.source_of("en", root, out) == root / "docs"
    # the Japanese script ran (its page is Japanese) and printed what the English one measured
    assert "実行する: x" in (out / "html" / "ja" / "auto_examples" / "01-x.html").read_text(encoding="utf-8")
    assert _measured(out, "ja") == _measured(out, "en")
    printed = capsys.readouterr().out
    assert "numbers of en and ja: 0 difference(s) over 3 pages" in printed
    assert "01-x.py" in printed and "Sphinx: read pages" in printed  # the table of where the time went
    assert os.environ.get(settings.REUSE_ENV) == reuse_before  # the replay ends with the build


def test_a_second_language_that_measures_again_fails_the_build(tmp_path, capsys):
    root = _root(tmp_path, translated=True, script=MEASURES_TWICE)
    out = tmp_path / "build"
    assert builder.build(root, out, ["-q"]) == 1
    assert _measured(out, "ja") != _measured(out, "en")
    err = capsys.readouterr().err
    assert f"only in the first language: {_measured(out, 'en')} ms" in err
    assert "numbers of en and ja: 1 difference(s) over 3 pages" in err


def test_a_rebuild_with_nothing_changed_reads_nothing_and_writes_no_result(tmp_path, capsys):
    root = _root(tmp_path, translated=True)
    out = tmp_path / "build"
    assert builder.build(root, out, ["-q"]) == 0
    first = {lang: buildtimes.load(out / "doctrees" / lang) for lang in ("en", "ja")}
    assert all(first[lang].scripts.keys() == {"01-x.py"} and len(first[lang].read_docs) == 3 for lang in first)
    results = {p: p.stat().st_mtime_ns for p in (tmp_path / "results").rglob("*") if p.is_file()}
    assert any(p.parent.name == "shown" for p in results)  # the printed measurement, saved once
    assert builder.build(root, out, ["-q"]) == 0
    for lang in ("en", "ja"):
        again = buildtimes.load(out / "doctrees" / lang)
        assert again.read_docs == [] and again.scripts == {}, lang
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "results").rglob("*") if p.is_file()} == results
    saved = json.loads((out / timetable.JSON_NAME).read_text(encoding="utf-8"))
    assert saved["languages"]["ja"]["read_docs"] == [] and saved["total_s"] > 0
    assert "pages read" in (out / timetable.TEXT_NAME).read_text(encoding="utf-8")


def test_a_script_measuring_again_in_the_first_language_reruns_in_the_others(tmp_path, capsys):
    root = _root(tmp_path, translated=True)
    out = tmp_path / "build"
    assert builder.build(root, out, ["-q"]) == 0
    before = _measured(out, "ja")
    (tmp_path / "results" / "shown" / "x_ms.json").unlink()  # the English script runs again: a new measurement
    assert builder.build(root, out, ["-q"]) == 0
    for lang in ("en", "ja"):  # the Japanese script did not change, yet it ran again to print the new one
        assert buildtimes.load(out / "doctrees" / lang).scripts.keys() == {"01-x.py"}, lang
    assert _measured(out, "ja") == _measured(out, "en") != before


def test_a_missing_translation_stops_before_any_build(tmp_path, capsys):
    root = _root(tmp_path, translated=False)
    out = tmp_path / "build"
    assert builder.build(root, out, ["-q"]) == 1
    assert not (out / "html").exists()  # nothing built: the translations are checked first
    assert "no translation of 'Run it: x'" in capsys.readouterr().err


def test_sphinx_arguments_warn_as_errors_and_replay_after_the_first_language():
    args = builder.sphinx_args(Path("/r"), Path("/o"), "ja", Path("/o/src/ja/docs"), ["-q"])
    assert args[:4] == ["-b", "html", "-W", "--keep-going"] and "language=ja" in args
    assert "attnprof_replay_measurements=1" in args
    assert args[-3:] == ["/o/src/ja/docs", "/o/html/ja", "-q"]
    assert "attnprof_replay_measurements=1" not in builder.sphinx_args(Path("/r"), Path("/o"), "en", Path("/r/docs"))


def test_pages_are_read_by_one_process_per_core_unless_told_otherwise():
    args = builder.sphinx_args(Path("/r"), Path("/o"), "en", Path("/r/docs"))
    assert args[args.index("-j") + 1] == "auto"
    told = builder.sphinx_args(Path("/r"), Path("/o"), "en", Path("/r/docs"), ["-j", "1"])
    assert told.count("-j") == 1 and told[-2:] == ["-j", "1"]
    assert "-j" not in builder.sphinx_args(Path("/r"), Path("/o"), "en", Path("/r/docs"), ["--jobs=3"])
