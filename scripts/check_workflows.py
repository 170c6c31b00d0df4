"""Check the GitHub Actions workflows in .github/workflows (actionlint is not available offline): each file is
YAML that matches a schema of the workflow format's parts we use (scripts/workflow.schema.json), every `${{ }}`
expression is closed, every `steps.<id>` it names is a step of the same job, every job it `needs` exists, and every
`nox -s SESSION` it runs is a session of noxfile.py.

    python scripts/check_workflows.py [FILE ...]      # exit 1 with one line per problem
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).parent / "workflow.schema.json").read_text())


def nox_sessions(noxfile: Path = ROOT / "noxfile.py") -> set[str]:
    """The session names of a noxfile: each ``@nox.session`` function's name, or its ``name=``."""
    names = set()
    for node in ast.walk(ast.parse(noxfile.read_text())):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            target = call.func if call else dec
            if ast.unparse(target) != "nox.session":
                continue
            given = [k.value.value for k in (call.keywords if call else []) if k.arg == "name"]
            names.add(given[0] if given else node.name)
    return names


def problems(path: Path, sessions: set[str] | None = None) -> list[str]:
    """Every problem of the workflow at ``path``, one line each (none: it passes)."""
    sessions = nox_sessions() if sessions is None else sessions
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        return [f"{path}: not YAML: {' '.join(str(exc).split())}"]
    if isinstance(doc, dict) and True in doc:  # YAML 1.1 reads the key `on` as true
        doc["on"] = doc.pop(True)
    out = [f"{path}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
           for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc)]  # fmt: skip
    if out:
        return out
    text = path.read_text(encoding="utf-8")
    if text.count("${{") != text.count("}}"):
        out.append(f"{path}: an expression ${{{{ ... }}}} is not closed")
    for name, job in doc["jobs"].items():
        ids = {s.get("id") for s in job.get("steps", [])}
        for used in re.findall(r"steps\.([A-Za-z_][\w-]*)\.", json.dumps(job)):
            if used not in ids:
                out.append(f"{path}: job {name} names steps.{used}, which is not a step id of that job")
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in doc["jobs"]:
                out.append(f"{path}: job {name} needs {need!r}, which is not a job; jobs: {', '.join(doc['jobs'])}")
        for step in job.get("steps", []):
            for session in re.findall(r"nox\b[^\n]*?\s-s\s+([\w-]+)", step.get("run", "")):
                if session not in sessions:
                    out.append(f"{path}: job {name} runs nox session {session!r}, not in noxfile.py; sessions: "
                               f"{', '.join(sorted(sessions))}")  # fmt: skip
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
    found = [line for p in paths for line in problems(p)]
    for line in found:
        print(line)
    print(f"checked {len(paths)} workflow(s): {len(found)} problem(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
