"""The shape of the package: the folders are the floors of the data flow, imports go one way (down a floor, never
up, no circle, not even through imports inside functions), the root holds few modules, every module is small enough
to read, torch lives in the measuring code alone, and the Sphinx extension and the readers stay free of it. No module
uses another's private names; facts about variants and workloads are asked of their registries, not compared by
name; and every module with logic has its test module, which imports it."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import attnprof

PACKAGE = Path(attnprof.__file__).parent
#: The floors, bottom first. A module may import modules of its own floor or of a lower one, never of a higher one;
#: the folders of one floor may not import each other either (``render`` draws what was measured, ``measure``
#: measures: neither needs the other). The root's modules are what every floor uses.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("words",),  # the word table and number formatting: every floor names things in both languages
    ("",),  # the root: the variant and workload registries, inputs, noise
    ("records",),  # files: results, sweeps, context-parallel runs, traces
    ("analysis",),  # what a record says
    ("render", "measure"),  # text, pictures and the viewer | running and timing attention
    ("site", "sphinxext", "cli"),  # what a reader or a user meets
)
#: At most this many modules at the package root (``__init__`` and ``__main__`` included).
ROOT_MAX = 8
#: No module passes this many lines, tables included.
MAX_LINES = 600
#: Where ``import torch`` may stand: the measuring floor, and the registries whose entries are torch code.
TORCH_ALLOWED = ("measure.", "variants", "inputs")


@functools.cache
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


@functools.cache
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


def floor_of(module: str) -> tuple[int, str]:
    """``(floor number, folder)`` of a module name of :func:`import_graph` (``""`` for the root's modules)."""
    if module == "__main__":  # ``python -m attnprof``: the program, on the top floor with the command line
        return len(FLOORS) - 1, "cli"
    if module == "__init__":  # ``attnprof.explain(...)``: the face for Python, what a user meets, as the command is
        return len(FLOORS) - 1, "cli"
    folder = module.split(".")[0] if "." in module or (PACKAGE / module).is_dir() else ""
    for n, folders in enumerate(FLOORS):
        if folder in folders:
            return n, folder
    raise AssertionError(f"module {module!r} is in folder {folder!r}, which no floor of FLOORS holds")


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes up a floor, or across between two folders of one floor."""
    bad = []
    for module, deps in sorted(graph.items()):
        here, folder = floor_of(module)
        for dep in sorted(deps):
            there, other = floor_of(dep)
            if there > here or (there == here and other != folder):
                bad.append(f"{module} -> {dep}")
    return bad


def test_the_import_graph_sees_real_edges():
    graph = import_graph()
    assert "analysis.summary" in graph["analysis.claims.framework"]
    assert "analysis.occupancy" in graph["analysis.summary"]
    assert "sphinxext.lookup" in graph["sphinxext.tables"] or "sphinxext.nodes" in graph["sphinxext.tables"]
    assert "words" in graph["sphinxext.nodes"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert upward({"records.results": {"analysis.summary"}}) == ["records.results -> analysis.summary"]
    assert upward({"render.report": {"measure.sweeprun"}}) == ["render.report -> measure.sweeprun"]
    assert upward({"analysis.summary": {"records.results", "words", "noise"}}) == []


def test_no_import_circle_anywhere_in_the_package():
    assert _cycle(import_graph()) is None


def test_every_import_goes_down_the_floors():
    assert upward(import_graph()) == []


def test_the_root_holds_few_modules():
    root = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert len(root) <= ROOT_MAX, root


def test_every_folder_of_the_package_is_a_floor():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders == {f for floor in FLOORS for f in floor if f}


def test_the_leaves_stay_leaves():
    graph = import_graph()
    assert graph["analysis.occupancy"] == set()
    assert graph["noise"] == set()  # the statistics of every figure: used by files, measuring and reading alike
    assert graph["records.files"] == set()
    assert graph["records.schema"] == {"records.files"}
    assert graph["records.kinds"] == {"records.files", "records.schema"}  # the register, below every record
    assert graph["records.results"] == {"noise", "records.files", "records.kinds", "records.schema"}
    assert graph["records.trace"] == {"records.results", "records.files", "records.schema"}
    # the timers read the environment only for the measure-once guard (settings.measuring)
    assert graph["measure.timing"] == {"noise", "measure.interrupts", "settings"}
    assert graph["measure.interrupts"] == set()
    word_modules = {n for n in graph if n == "words" or n.startswith("words.")}
    assert all(graph[n] <= word_modules for n in word_modules)  # the word table reads nothing of the package


def test_the_claim_families_share_the_framework_and_not_each_other():
    graph = import_graph()
    families = {n for n in graph if n.startswith("analysis.claims.") and n != "analysis.claims.framework"}
    assert families == {f"analysis.claims.{f}" for f in ("article_trace", "article_timing", "workloads", "parallel",
                                                         "eligibility", "masks")}  # fmt: skip
    for family in families:
        assert "analysis.claims.framework" in graph[family]
        assert graph[family] & families == set(), family


def test_the_readme_shows_the_floors_as_the_tree_has_them():
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How the code is laid out", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if re.match(r"\| \d \|", line)]
    assert [tuple(re.findall(r"`(\w+)/`", row[2])) or ("",) for row in rows] == list(FLOORS)


def test_modules_stay_readable():
    long = {n: len(p.read_text().splitlines()) for n, p in _modules().items()}
    assert {n: lines for n, lines in long.items() if lines > MAX_LINES} == {}


def test_torch_is_imported_by_the_measuring_code_alone():
    found = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])  # fmt: skip
            if any(m == "torch" or m.startswith("torch.") for m in mods) and not name.startswith(TORCH_ALLOWED):
                found.append(name)
    assert sorted(set(found)) == []


def test_the_extension_and_the_analysis_import_no_torch_and_no_matplotlib():
    code = (
        "import sys, attnprof.sphinxext, attnprof.analysis.summary, attnprof.analysis.claims, attnprof.settings, "
        "attnprof.records.sweep, attnprof.render.report, attnprof.workloads, attnprof.analysis.workload_rows; "
        "sys.exit(sorted({'torch', 'matplotlib'} & set(sys.modules)) or 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr or run.stdout


# --- private names ------------------------------------------------------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(module: str, source: str) -> list[str]:
    """Where ``module`` (a name of :func:`import_graph`) uses a private name of another package module: ``from
    attnprof.x import _name``, or ``x._name`` on a name bound to another package module."""
    known = _modules()
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # local name -> package module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            targets = _resolve(module, node) if module in known else []
            base = (node.module or "").removeprefix("attnprof").lstrip(".") if node.level == 0 else None
            for a in node.names:
                full = f"{base}.{a.name}".strip(".") if base is not None else None
                if full in known or (base is None and any(t.endswith(f".{a.name}") or t == a.name for t in targets)):
                    bound[a.asname or a.name] = full or next(t for t in targets if t.split(".")[-1] == a.name)
                elif _private(a.name) and (node.level or (node.module or "").startswith("attnprof")):
                    found.append(
                        f"{module}:{node.lineno}: from {'.' * node.level}{node.module or ''} import {a.name}"
                    )
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("attnprof.") and a.asname:
                    bound[a.asname] = a.name.removeprefix("attnprof.")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and bound.get(owner.id, module) != module:
                found.append(f"{module}:{node.lineno}: {owner.id}.{node.attr}")
            elif ast.unparse(owner).startswith("attnprof."):
                found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_private_name_check_sees_both_forms():
    assert private_uses(
        "render.ranktimeline", "from attnprof.render import timeline\ntimeline._fit('a', 1, 2)\n"
    ) == ["render.ranktimeline:2: timeline._fit"]
    assert private_uses("render.workloadreport", "from attnprof.render.report import _fmt, table\n") == [
        "render.workloadreport:1: from attnprof.render.report import _fmt"
    ]
    # its own private names, aliases made private, and dunders are fine
    own = "from attnprof.words import claims as _claims\nimport attnprof\n_x = attnprof.__version__\n"
    assert private_uses("words", own) == []


def test_no_module_uses_another_modules_private_names():
    found = [use for name, path in _modules().items() for use in private_uses(name, path.read_text(encoding="utf-8"))]
    assert found == []


# --- facts of the registries --------------------------------------------------------------------------------------

#: Where names of variants and workloads may be compared: the registries themselves, and the word tables (whose keys
#: are names).
REGISTRIES = ("variants", "workloads", "words")


def name_comparisons(module: str, source: str) -> list[str]:
    """Comparisons of a value with the name of a registered variant or workload (``workload == "train"``,
    ``variant in ("sdpa_math", "naive")``): facts that belong to :mod:`attnprof.variants` or
    :mod:`attnprof.workloads`."""
    from attnprof import variants, workloads

    names = set(variants.VARIANTS) | set(workloads.WORKLOADS)

    def strings(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return [s for e in node.elts for s in strings(e)]
        return []

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            s in names for side in (node.left, *node.comparators) for s in strings(side)
        ):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_name_comparison_check_sees_them():
    code = 'if w.name == "decode" or v in ("sdpa_math", "naive") or "train" != x or y == "other":\n    pass\n'
    assert name_comparisons("m", code) == ['m:1: w.name == \'decode\'', "m:1: v in ('sdpa_math', 'naive')",
                                           "m:1: 'train' != x"]  # fmt: skip


def test_facts_of_variants_and_workloads_are_asked_of_their_registries():
    found = []
    for name, path in _modules().items():
        if name.split(".")[0] in REGISTRIES:
            continue
        found += name_comparisons(name, path.read_text(encoding="utf-8"))
    assert found == []


# --- a test module for every module with logic --------------------------------------------------------------------

#: Folders whose module names repeat names elsewhere in the package: their test modules carry the folder's name.
PREFIXED = ("sphinxext",)
_CLAIMS = "the claims are checked through the package (claims.get, check), claim by claim, in test_claims.py"
#: Modules with logic tested in another test module: (that module, a string it must contain, why).
TESTED_ELSEWHERE: dict[str, tuple[str, str, str]] = {
    "sphinxext.banner": ("test_sphinxext.py", "banner", "a page's banner needs a built project, as the others"),
    "sphinxext.claims": ("test_sphinxext.py", "{claims}", "the claims directives are built with the others"),
    "sphinxext.figures": ("test_sphinxext.py", "{timeline}", "the picture directives are built with the others"),
    "sphinxext.metrics": ("test_sphinxext.py", "metrics.", "the metric role is built with the others"),
    "sphinxext.occupancy": ("test_sphinxext.py", "{occupancy-table}", "its directives are built with the others"),
    "sphinxext.nodes": ("test_sphinxext_tables.py", "attnprof-", "the nodes every directive builds its output of"),
    "analysis.claims.framework": ("test_claims.py", "claims.", _CLAIMS),
    "analysis.claims.article_timing": ("test_claims.py", "claims.", _CLAIMS),
    "analysis.claims.article_trace": ("test_claims.py", "claims.", _CLAIMS),
    "analysis.kernels.gemm": ("test_kernels.py", "gemm", "its rules decode the gemm names of test_kernels.py"),
    "analysis.kernels.labels": ("test_kernels.py", "label", "the labels of every decoded name in test_kernels.py"),
    "analysis.kernels.export": ("test_kernels_js.py", "export", "the browser's decoder reads the table"),
    "render.decoder": ("test_kernels_js.py", "render.decoder", "it writes what the browser's decoder runs"),
}


def test_files_of(module: str) -> tuple[str, ...]:
    """The names a package module's test module may have: ``test_<name>.py`` or ``test_<folder>_<name>.py`` (the
    folder it is in), and only the second in the folders of :data:`PREFIXED`; a folder's ``__init__`` is named
    after the folder."""
    *folders, name = module.split(".")
    if module == "__init__":  # the package's face for Python (attnprof.explain, ...)
        return ("test_face.py",)
    if not folders:
        return (f"test_{module}.py",)
    prefixed = f"test_{folders[-1]}_{name}.py"
    return (prefixed,) if folders[-1] in PREFIXED else (f"test_{name}.py", prefixed)


test_files_of.__test__ = False  # a helper, not a test


def _has_logic(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in tree.body)


@functools.cache
def imported_by(test: Path) -> frozenset[str]:
    """The package modules a test module imports itself (anywhere in it, inside functions too): ``analysis.masks``
    for ``from attnprof.analysis import masks`` or ``from attnprof.analysis.masks import X``; what it reaches only
    through ``helpers`` or ``conftest`` does not count."""
    known, found = _modules(), set()
    for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            if name == "attnprof" or name.startswith("attnprof."):
                short = name.removeprefix("attnprof").lstrip(".") or "__init__"
                if short in known:
                    found.add(short)
    return frozenset(found)


imported_by.__test__ = False  # a helper, not a test


#: What a directive or role module registers: ``add_directive("mask-table", MaskTable)``, ``("parallel-table",
#: ParallelTable)``, ``add_role("fastest", FastestRole())``.
_REGISTERED = re.compile(r'\(\s*"([a-z][a-z0-9-]*)",\s*[A-Z]\w*')


def drives(test: Path, module: str) -> bool:
    """Whether ``test`` exercises ``module``: it imports it (:func:`imported_by`), or its package when that package
    imports it (``analysis.claims`` for its families); a module of the Sphinx extension, which Sphinx loads itself:
    a page of the test uses a directive or role it registers (one that registers none: the test names it); a module
    of the command line: the test runs the command (``attnprof.cli`` or ``helpers.run_cli``)."""
    found = imported_by(test)
    package = module.rpartition(".")[0]
    text = test.read_text(encoding="utf-8")
    if module in found or (package in found and module in _imports_of(package)):
        return True
    if module.startswith("sphinxext."):
        registered = _REGISTERED.findall(_modules()[module].read_text(encoding="utf-8"))
        if registered:
            return any(f"{{{name}}}" in text for name in registered)
        return f"sphinxext.{module.split('.')[-1]}" in text
    if module == "cli" or module.startswith("cli."):
        return "cli" in found or re.search(r"^from helpers import .*\brun_cli\b", text, re.M) is not None
    return False


drives.__test__ = False  # a helper, not a test


def _imports_of(package: str) -> set[str]:
    """The package modules that the ``__init__`` of ``package`` imports (its face)."""
    return set(import_graph().get(package, set())) if package else set()


def _tested(module: str) -> bool:
    """Whether one of the module's test modules exists and exercises it (:func:`drives`): a test module of the
    same name that tests another module of that name does not count."""
    tests = Path(__file__).parent
    return any((tests / n).is_file() and drives(tests / n, module) for n in test_files_of(module))


def test_every_module_with_logic_has_its_test_module():
    missing = [
        f"{name} ({' or '.join(test_files_of(name))})"
        for name, path in _modules().items()
        if _has_logic(path) and name not in TESTED_ELSEWHERE and not _tested(name)
    ]
    assert missing == []
    assert test_files_of("measure.sweeprun") == ("test_sweeprun.py", "test_measure_sweeprun.py")
    assert test_files_of("words") == ("test_words.py",) and test_files_of("cli") == ("test_cli.py",)
    assert test_files_of("sphinxext.tables") == ("test_sphinxext_tables.py",)
    assert test_files_of("analysis.kernels.engine") == ("test_engine.py", "test_kernels_engine.py")
    assert test_files_of("analysis.claims") == ("test_claims.py", "test_analysis_claims.py")
    here = Path(__file__).parent  # a shared name is not enough: the test module must exercise the module
    assert drives(here / "test_eligibility.py", "measure.eligibility")
    assert not drives(here / "test_eligibility.py", "analysis.claims.eligibility")
    assert drives(here / "test_claims_eligibility.py", "analysis.claims.eligibility")  # through the claims' face
    assert drives(here / "test_sphinxext_masks.py", "sphinxext.masks")  # a page of it uses {mask-table}
    assert not drives(here / "test_sphinxext_masks.py", "sphinxext.eligibility")


def test_modules_tested_elsewhere_are_tested_there_and_have_no_test_module_of_their_own():
    tests = Path(__file__).parent
    for module, (where, needle, _why) in TESTED_ELSEWHERE.items():
        assert module in _modules() and _has_logic(_modules()[module]), module
        assert needle in (tests / where).read_text(encoding="utf-8"), (module, where)
        assert not _tested(module), f"{module} has a test module of its own now: drop it from TESTED_ELSEWHERE"
