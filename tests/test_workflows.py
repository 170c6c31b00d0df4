"""scripts/check_workflows.py, the lint of the CI workflows (`nox -s lint` runs it): the publishing workflow passes,
and each kind of mistake is one line naming the file and the place."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "check_workflows.py"
PUBLISH = ROOT / ".github" / "workflows" / "publish.yml"


@pytest.fixture(scope="module")
def check():
    spec = importlib.util.spec_from_file_location("check_workflows", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_publish_workflow_passes_and_runs_the_docs_and_bundle_sessions(check):
    assert check.problems(PUBLISH) == []
    sessions = check.nox_sessions()
    assert {"docs", "bundle", "lint", "tests_gpu"} <= sessions
    text = PUBLISH.read_text()
    assert "-s docs" in text and "-s bundle" in text and "ATTNPROF_BUNDLES_DIR" in text and "self-hosted" in text


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("    runs-on: [self-hosted, linux, gpu]\n", "", "jobs/build: 'runs-on' is a required property"),
        ("      - id: deployment\n", "      - id: deploy\n", "names steps.deployment, which is not a step id"),
        ("-s bundle", "-s bundel", "runs nox session 'bundel', not in noxfile.py"),
        ("    needs: build\n", "    needs: buld\n", "needs 'buld', which is not a job"),
        ("timeout-minutes: 60", "timeout-minutes: soon", "jobs/build/timeout-minutes: 'soon' is not of type"),
        ("      - uses: actions/checkout@v4\n", "      - uses: actions/checkout\n", "does not match"),
        (
            "      - uses: actions/checkout@v4\n",
            "      - uses: actions/checkout@v4\n        run: ls\n",
            "jobs/build/steps/0",
        ),
        ("name: publish\n", "name: publish\nfrobnicate: 1\n", "'frobnicate' was unexpected"),
        ("${{ runner.name }}", "${{ runner.name", "is not closed"),
        ("jobs:\n", "jobs: [\n", "not YAML"),
    ],
)
def test_each_mistake_is_one_line(check, tmp_path, old, new, expected):
    text = PUBLISH.read_text()
    assert old in text
    bad = tmp_path / "publish.yml"
    bad.write_text(text.replace(old, new, 1))
    found = check.problems(bad)
    assert any(expected in line for line in found), found
    assert all(str(bad) in line and "\n" not in line for line in found)
