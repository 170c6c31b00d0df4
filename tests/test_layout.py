"""The shape of the package: one-way imports (no circle, not even through imports inside functions), modules small
enough to read, the Sphinx extension free of torch, and the facts about variants kept in the registry."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import attnprof

PACKAGE = Path(attnprof.__file__).parent
#: Declarative tables may be long: kernel-name rules, claim rules, the word table's data.
LONG_ALLOWED = {"kernels", "claims", "words.claims", "words.site", "words.parallel"}
#: Raised from 520 when the workloads landed: ``results`` holds three more file formats (training, decoding and
#: CUDA-graph figures) and ``analysis`` the phases of a training step; neither has a second job to split off.
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(p for p in parts if p != "__init__")
        out[name or "__init__"] = path
    return out


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The package modules an ``from ... import ...`` names, relative to ``module``."""
    if node.level == 0:
        base = node.module or ""
        if not base.startswith("attnprof"):
            return []
        base = base.removeprefix("attnprof").lstrip(".")
    else:
        is_package = _modules()[module].name == "__init__.py"
        parts = module.split(".") if module != "__init__" else []
        parts = parts if is_package else parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        base = ".".join([*parts, *([node.module] if node.module else [])])
    known = _modules()
    names = [f"{base}.{a.name}".strip(".") for a in node.names]
    return [n for n in names if n in known] or ([base] if base in known else [])


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its body (inside functions too)."""
    graph: dict[str, set[str]] = {}
    for name, path in _modules().items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                deps.update(_resolve(name, node))
            elif isinstance(node, ast.Import):
                deps.update(a.name.removeprefix("attnprof.") for a in node.names if a.name.startswith("attnprof."))
        deps.discard(name)
        graph[name] = deps
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_import_graph_sees_real_edges():
    graph = import_graph()
    assert "analysis" in graph["claims"] and "occupancy" in graph["analysis"]
    assert "sphinxext.lookup" in graph["sphinxext.tables"] or "sphinxext.nodes" in graph["sphinxext.tables"]
    assert "words" in graph["sphinxext.nodes"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_import_circle_anywhere_in_the_package():
    assert _cycle(import_graph()) is None


def test_the_occupancy_calculator_and_the_trace_reader_are_leaves():
    graph = import_graph()
    assert graph["occupancy"] == set()
    assert graph["noise"] == set()  # the statistics of every figure: used by files, measuring and reading alike
    assert graph["files"] == set()
    assert graph["results"] == {"noise", "files"}
    assert graph["trace"] == {"results", "files"}
    assert graph["measure"] == {"noise", "interrupts"}
    assert graph["interrupts"] == set()


def test_modules_stay_readable():
    long = {n: len(p.read_text().splitlines()) for n, p in _modules().items() if n not in LONG_ALLOWED}
    assert {n: lines for n, lines in long.items() if lines > MAX_LINES} == {}


def test_the_extension_and_the_analysis_import_no_torch_and_no_matplotlib():
    code = (
        "import sys, attnprof.sphinxext, attnprof.analysis, attnprof.claims, attnprof.sweep, attnprof.report, "
        "attnprof.workloads, attnprof.workload_analysis; "
        "sys.exit(sorted({'torch', 'matplotlib'} & set(sys.modules)) or 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr or run.stdout
