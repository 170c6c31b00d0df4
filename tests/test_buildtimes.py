"""attnprof.records.buildtimes: the file of one language's build times, written by the extension and read by the
site builder."""

from __future__ import annotations

import pytest

from attnprof.records import buildtimes, files


def test_the_times_of_a_build_round_trip(tmp_path):
    times = buildtimes.LanguageTimes("ja", {"01-naive.py": 2.5}, 3.0, 1.25, 0.5, ["index"], sweep_s=None)
    path = buildtimes.save(times, tmp_path)
    assert path.name == buildtimes.FILENAME and buildtimes.load(tmp_path) == times
    written = path.stat().st_mtime_ns
    buildtimes.save(times, tmp_path)  # the same times: the file is left as it is
    assert path.stat().st_mtime_ns == written


def test_no_times_or_other_json_is_said(tmp_path):
    with pytest.raises(FileNotFoundError):
        buildtimes.load(tmp_path)
    (tmp_path / buildtimes.FILENAME).write_text('{"language": "en", "minutes": 3}')
    with pytest.raises(files.UnreadableFile, match=r"not a build-times file: .*minutes"):
        buildtimes.load(tmp_path)
    (tmp_path / buildtimes.FILENAME).write_text('{"language": ')
    with pytest.raises(files.UnreadableFile):
        buildtimes.load(tmp_path)
