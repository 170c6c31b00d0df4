"""tests/browser/conftest.py's own summary counts only tests marked ``browser``: a CPU run (``nox -s tests``) of the
unmarked tests under tests/browser/ says nothing about browser tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import attnprof

HERE = Path(__file__).parent


def test_a_cpu_run_of_unmarked_tests_here_reports_no_browser_tests():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(attnprof.__file__).parent.parent), str(HERE.parent)]),
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not gpu and not browser",
         str(HERE / "test_english.py")],
        cwd=HERE.parent.parent, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:]
    assert " passed" in run.stdout and "browser tests:" not in run.stdout, run.stdout[-2000:]
