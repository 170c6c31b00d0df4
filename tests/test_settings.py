"""attnprof.settings: what the docs build tells a script through the environment, and the defaults of a script run
by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnprof import settings


def test_a_script_run_by_hand_takes_the_defaults(monkeypatch):
    for name in (settings.RESULTS_ENV, settings.LANGUAGE_ENV, settings.REUSE_ENV):
        monkeypatch.delenv(name, raising=False)
    assert settings.results_dir() == Path("attnprof-results")
    assert settings.results_dir("elsewhere") == Path("elsewhere")
    assert settings.language() == "en" and settings.language("ja") == "ja"
    assert settings.reuse_measurements() is False


def test_the_results_folder_of_the_build_wins_over_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv(settings.RESULTS_ENV, str(tmp_path))
    assert settings.results_dir("elsewhere") == tmp_path
    monkeypatch.setenv(settings.RESULTS_ENV, "")  # set but empty: not a folder
    assert settings.results_dir() == Path("attnprof-results")


@pytest.mark.parametrize(
    ("value", "expected"), [("ja_JP", "ja"), ("ja", "ja"), ("en", "en"), ("de", "en"), ("", "en")]
)
def test_the_language_of_the_build_wins_and_falls_back_to_english(monkeypatch, value, expected):
    monkeypatch.setenv(settings.LANGUAGE_ENV, value)
    assert settings.language() == expected


def test_an_empty_language_of_the_build_leaves_the_scripts_own(monkeypatch):
    monkeypatch.setenv(settings.LANGUAGE_ENV, "")
    assert settings.language("ja") == "ja"


@pytest.mark.parametrize(
    ("value", "expected", "replay"),
    [("1", True, False), ("true", True, False), (" Yes ", True, False), ("0", False, False), ("", False, False),
     ("no", False, False), ("replay", True, True), (" Replay ", True, True)],
)  # fmt: skip
def test_the_reuse_switch(monkeypatch, value, expected, replay):
    monkeypatch.setenv(settings.REUSE_ENV, value)
    assert settings.reuse_measurements() is expected and settings.replaying() is replay


def test_a_fresh_process_reads_what_the_build_set():
    env = {**os.environ, settings.RESULTS_ENV: "/tmp/r", settings.LANGUAGE_ENV: "ja", settings.REUSE_ENV: "1"}
    code = "from attnprof import settings as s; print(s.results_dir(), s.language(), s.reuse_measurements())"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["/tmp/r", "ja", "True"]


# --- measured once, enforced ---------------------------------------------------------------------------------------

PLANTED = """\
import torch
from attnprof import inputs

q = torch.ones(1, 1, 4, 2)
error = inputs.relative_error(q, inputs.reference_attention(q, q, q).float())
"""


def _run_planted(tmp_path: Path, name: str = "99-planted.py") -> None:
    import runpy

    script = tmp_path / name
    script.write_text(PLANTED)
    runpy.run_path(str(script))


def test_measuring_while_replaying_fails_naming_the_script_and_line(tmp_path, monkeypatch):
    monkeypatch.setenv(settings.REUSE_ENV, settings.REPLAY)
    with pytest.raises(settings.MeasuredWhileReplaying) as caught:
        _run_planted(tmp_path)
    message = str(caught.value)
    assert message.startswith("99-planted.py, line 5: inputs.")
    assert "reuse.once" in message and "\n" not in message


@pytest.mark.parametrize("reuse", ["", "1"])
def test_measuring_is_free_when_not_replaying(tmp_path, monkeypatch, reuse):
    monkeypatch.setenv(settings.REUSE_ENV, reuse)
    _run_planted(tmp_path)


def test_every_timer_of_the_measuring_code_refuses_to_run_while_replaying(monkeypatch):
    from attnprof.measure import steps, timing

    monkeypatch.setenv(settings.REUSE_ENV, settings.REPLAY)
    calls = [
        lambda: timing.time_shape(lambda: None, "cpu"),
        lambda: timing.timed_calls(lambda: None, "cpu", min_reps=1),
        lambda: timing.warm_up(lambda: None, "cpu", 1),
        lambda: timing.time_dispatch_us(lambda: None, "cpu"),
        lambda: timing.capture_trace(lambda: None, "x", "cpu"),
        lambda: timing.PeakMemory("cpu").__enter__(),
        lambda: timing.read_bandwidth("cpu"),
        lambda: steps.decode_reference(None, None, None),
    ]
    for call in calls:
        with pytest.raises(settings.MeasuredWhileReplaying, match=r"test_settings\.py, line"):
            call()


def test_a_call_outside_any_script_is_named_by_its_own_file():
    frames = [traceback_frame("/somewhere/else/tool.py", 12), traceback_frame(settings.__file__, 3)]
    assert settings.asked_from(frames) == "/somewhere/else/tool.py, line 12"
    assert settings.asked_from([traceback_frame("/x/examples/08-flex.py", 57), *frames]) == "08-flex.py, line 57"


def traceback_frame(filename: str, lineno: int):
    import traceback

    return traceback.FrameSummary(filename, lineno, "f", lookup_line=False)
