"""attnprof.site.timetable: the table of where a site build's time went, from what the extension timed in each
language (a language that timed nothing has empty phases), saved as JSON and text."""

from __future__ import annotations

import json

from attnprof.records import buildtimes
from attnprof.site import timetable


def test_the_table_of_where_the_time_went(tmp_path):
    times = timetable.BuildTimes(localize_s=0.25, comparison_s=1.5, total_s=60.0)
    en, ja = tmp_path / "en", tmp_path / "ja"
    buildtimes.save(buildtimes.LanguageTimes("en", {"01-x.py": 10.0, "10-scaling.py": 30.0}, 41.0, 5.0, 4.0,
                                             ["index"], sweep_s=25.0, trainscale_s=9.0), en)  # fmt: skip
    ja.mkdir()
    times.add_language("en", en, 52.0)
    times.add_language("ja", ja, 3.0)  # the extension wrote nothing there: empty phases, not a failure
    lines = timetable.table(times).splitlines()
    row = {line[:40].strip(): line[40:].split() for line in lines[1:]}
    assert lines[0].split()[-2:] == ["en", "ja"]
    assert row["10-scaling.py"] == ["30.0"] and row["of which the sweep"] == ["25.0"]
    assert row["of which the training-scale grid"] == ["9.0"]
    assert row["gallery scripts"] == ["40.0", "0.0"] and row["gallery, the rest (sphinx-gallery)"] == ["1.0", "0.0"]
    assert row["Sphinx: the rest (set-up, environment)"] == ["2.0", "3.0"] and row["total"] == ["60.0"]
    assert row["pages read"] == ["en", "1,", "ja", "0"]
    json_path, text_path = timetable.save(times, tmp_path / "out")
    assert json.loads(json_path.read_text())["languages"]["en"]["scripts"]["10-scaling.py"] == 30.0
    assert text_path.read_text() == timetable.table(times) + "\n"


def test_the_table_says_what_was_compiled_ahead_and_what_the_build_still_compiled(tmp_path):
    times = timetable.BuildTimes(precompile_s=14.5, precompile_workers=3, total_s=80.0)
    times.precompiled = [
        {"name": "sweep flex", "status": "ok", "seconds": 12.0, "reason": None, "hits": 0, "misses": 4},
        {"name": "mask prefix_lm seq 8192 train", "status": "oom", "seconds": 3.0,
         "reason": "OutOfMemoryError: CUDA out of memory", "hits": 0, "misses": 0},
    ]  # fmt: skip
    times.compile_cache = {"en": [11, 2], "ja": [3, 0]}
    times.add_language("en", tmp_path, 60.0)
    text = timetable.table(times)
    assert "compiled ahead" in text and "14.5  2 jobs on 3 workers" in text
    assert "mask prefix_lm seq 8192 train" in text and "oom: OutOfMemoryError: CUDA out of memory" in text
    assert "sweep flex" not in text  # only failed jobs are listed
    assert "compile cache in the build en 11 hit(s) 2 miss(es), ja 3 hit(s) 0 miss(es)" in " ".join(text.split())


def test_each_script_declares_its_budget_and_the_table_says_which_went_over(tmp_path):
    examples = tmp_path / "examples"
    examples.mkdir()
    (examples / "01-x.py").write_text("print(1)\n# sphinx_gallery_attnprof_budget_s = 12\n")
    (examples / "10-scaling.py").write_text("# sphinx_gallery_attnprof_budget_s = 25.5\n")
    (examples / "11-none.py").write_text("# no budget here\n")
    (examples / "helper.py").write_text("# sphinx_gallery_attnprof_budget_s = 1\n")  # not a gallery script
    budgets = timetable.declared_budgets(examples)
    assert budgets == {"01-x.py": 12.0, "10-scaling.py": 25.5}
    times = timetable.BuildTimes(budgets_s=budgets)
    en = tmp_path / "en"
    buildtimes.save(buildtimes.LanguageTimes("en", {"01-x.py": 10.0, "10-scaling.py": 30.0, "11-none.py": 2.0},
                                             45.0, 5.0, 4.0, ["index"]), en)  # fmt: skip
    times.add_language("en", en, 52.0)
    lines = timetable.table(times).splitlines()
    assert lines[0].split()[-2:] == ["en", "budget"]
    row = {line[:40].strip(): line[40:].split() for line in lines[1:]}
    assert row["01-x.py"] == ["10.0", "12.0"]
    assert row["10-scaling.py"] == ["30.0", "25.5", "over"]
    assert row["11-none.py"] == ["2.0"]


def test_every_gallery_script_of_the_repository_declares_a_budget():
    from pathlib import Path

    examples = Path(__file__).parent.parent / "examples"
    scripts = {p.name for p in examples.glob("[0-9][0-9]-*.py")}
    assert set(timetable.declared_budgets(examples)) == scripts
