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
    ("value", "expected"), [("1", True), ("true", True), (" Yes ", True), ("0", False), ("", False), ("no", False)]
)
def test_the_reuse_switch(monkeypatch, value, expected):
    monkeypatch.setenv(settings.REUSE_ENV, value)
    assert settings.reuse_measurements() is expected


def test_a_fresh_process_reads_what_the_build_set():
    env = {**os.environ, settings.RESULTS_ENV: "/tmp/r", settings.LANGUAGE_ENV: "ja", settings.REUSE_ENV: "1"}
    code = "from attnprof import settings as s; print(s.results_dir(), s.language(), s.reuse_measurements())"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["/tmp/r", "ja", "True"]
