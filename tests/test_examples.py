"""The gallery scripts teach what the registry profiles: each variant script writes out the variant's own call and
the article's profiler inline, prints only through :mod:`attnprof.render.report` in the script's language, links its
guide page (which links back), and runs for real on the CPU."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import attnprof
from attnprof import inputs, variants
from attnprof.measure import timing
from attnprof.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if re.match(r"^\d\d-", p.name))
ARTICLE = "https://huggingface.co/blog/torch-attention-profile"


def _tree(script: Path) -> ast.Module:
    return ast.parse(script.read_text(encoding="utf-8"))


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    """Calls of ``name`` (``"profile"``, ``"prof.step"``, ``"report.summary"``: the dotted callee)."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == name]


def _variant_of(script: Path) -> str | None:
    """The registry name a script hands to ``profiling.from_trace``, or None for a script that profiles no variant."""
    calls = _calls(_tree(script), "profiling.from_trace")
    return calls[0].args[0].value if calls else None


VARIANT_SCRIPTS = {name: s for s in SCRIPTS if (name := _variant_of(s))}


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    assert len(found) == 1, f"expected one top-level function {name!r}"
    return found[0]


def _body(fn: ast.FunctionDef) -> list[str]:
    """The statements of a function, without its docstring and its imports (the registry imports inside)."""
    body = [s for s in fn.body if not isinstance(s, ast.Import | ast.ImportFrom)]
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [ast.dump(s) for s in body]


def _registry_function(fn) -> ast.FunctionDef:
    import inspect

    return ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]


def _docstring_title(script: Path) -> str:
    return ast.get_docstring(_tree(script)).strip().splitlines()[0]


# --- the registry's variant, written out ----------------------------------------------------------------------------


def test_every_variant_has_a_script():
    assert set(VARIANT_SCRIPTS) == set(VARIANTS)


@pytest.mark.parametrize("name", sorted(VARIANT_SCRIPTS))
def test_the_script_calls_what_the_registry_profiles(name):
    v = VARIANTS[name]
    tree = _tree(VARIANT_SCRIPTS[name])
    attention = _function(tree, "attention")
    forced = [ast.unparse(c.args[0]) for c in _calls(attention, "sdpa_kernel")]
    sdpa = _calls(attention, "F.scaled_dot_product_attention")
    if v.backend is not None or name == "sdpa_auto":
        assert forced == ([f"SDPBackend.{v.backend}"] if v.backend else [])
        assert [ast.unparse(c) for c in sdpa] == ["F.scaled_dot_product_attention(q, k, v, is_causal=True)"]
    elif name in ("naive", "naive_inplace"):
        code = variants.naive_attention if name == "naive" else variants.naive_inplace_attention
        assert _body(attention) == _body(_registry_function(code))
    elif name == "compiled_naive":
        (compile_call,) = _calls(tree, "torch.compile")
        compiled = _function(tree, ast.unparse(compile_call.args[0]))
        assert _body(compiled) == _body(_registry_function(variants.naive_inplace_attention))
        assert ast.unparse(attention.body[-1]) == "return compiled(q, k, v, mask)"
    elif name == "flex":
        assert [ast.unparse(c) for c in _calls(tree, "torch.compile")] == ["torch.compile(flex_attention)"]
        (mask,) = _calls(tree, "create_block_mask")
        assert ast.unparse(mask) == "create_block_mask(causal, None, None, seq, seq, device=setup.device)"
        assert ast.unparse(_function(tree, "causal").body[-1]) == "return q_idx >= kv_idx"
        assert ast.unparse(attention.body[-1]) == "return compiled_flex(q, k, v, block_mask=block_mask)"
    else:  # a new variant needs its own check here
        pytest.fail(f"no check for how {name!r} is written out")
    assert not sdpa or v.backend is not None or name == "sdpa_auto"


@pytest.mark.parametrize("name", sorted(VARIANT_SCRIPTS))
def test_the_script_profiles_as_the_article_did(name):
    tree = _tree(VARIANT_SCRIPTS[name])
    (plan,) = _calls(tree, "schedule")
    assert {k.arg: k.value.value for k in plan.keywords} == dict(
        zip(("wait", "warmup", "active"), timing.ARTICLE_SCHEDULE, strict=True)
    )
    (prof,) = _calls(tree, "profile")
    assert {k.arg for k in prof.keywords} == {"activities", "schedule", "record_shapes"}
    (annotation,) = _calls(tree, "record_function")
    assert annotation.args[0].value == VARIANTS[name].annotation
    assert _calls(tree, "prof.step") and _calls(tree, "prof.export_chrome_trace")
    (table,) = _calls(tree, "prof.key_averages().table")
    assert {"sort_by", "row_limit"} <= {k.arg for k in table.keywords}
    sort = " ".join(ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Constant))
    assert "'cuda_time_total'" in sort and "'cpu_time_total'" in sort
    (handed,) = _calls(tree, "profiling.from_trace")
    assert ast.unparse(handed.args[2]) == "trace_file"
    assert {k.arg: ast.unparse(k.value) for k in handed.keywords}["attention"] == "attention"


def _namespace(script: Path, setup: inputs.Setup) -> dict:
    """The script's imports and top-level functions, executed, with the mask the naive scripts build."""
    tree = _tree(script)
    keep = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef)]
    ns = {"mask": variants.causal_mask(setup.shape[2], setup.device), "setup": setup}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(script), "exec"), ns)
    return ns


@pytest.mark.parametrize("name", ["naive", "naive_inplace", "sdpa_math", "sdpa_flash", "sdpa_auto", "sdpa_efficient"])
def test_the_script_computes_what_the_registry_computes(name):
    setup = inputs.make_setup((1, 2, 64, 32), "float32", "cpu")
    q, k, v = inputs.make_inputs(setup)
    ours = _namespace(VARIANT_SCRIPTS[name], setup)["attention"]
    theirs = VARIANTS[name].build(setup.shape[2], setup.device)
    if "cpu" not in VARIANTS[name].devices:  # both refuse alike
        with pytest.raises(RuntimeError):
            theirs(q, k, v)
        with pytest.raises(RuntimeError):
            ours(q, k, v)
        return
    with torch.no_grad():
        torch.testing.assert_close(ours(q, k, v), theirs(q, k, v), rtol=0, atol=0)


# --- words, titles and links --------------------------------------------------------------------------------------


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_printed_words_come_from_report_in_the_scripts_language(script):
    tree = _tree(script)
    assert [ast.unparse(c) for c in _calls(tree, "settings.language")] == ["settings.language()"]
    uses_lang = lambda call: any(isinstance(a, ast.Name) and a.id == "lang" for a in [*call.args,  # noqa: E731
                                 *(k.value for k in call.keywords)])  # fmt: skip
    report_calls = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).startswith("report.")
    ]
    assert report_calls and all(uses_lang(c) for c in report_calls), [ast.unparse(c) for c in report_calls]
    for figure in (
        _calls(tree, "timeline.figure") + _calls(tree, "scalingplot.figure") + _calls(tree, "trainplot.figure")
    ):
        assert {k.arg: ast.unparse(k.value) for k in figure.keywords}.get("lang") == "lang"
    for call in _calls(tree, "print"):
        assert not isinstance(call.args[0], ast.Constant | ast.JoinedStr), f"literal words: {ast.unparse(call)}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_what_a_script_prints_from_its_own_run_is_taken_once(script):
    """The docs build's other languages print what the first one measured: a script's profiler table, and any time
    it takes by hand, go through ``reuse.once`` (the profile, costs, sweep and runs come from the measuring
    functions, which replay by themselves)."""
    tree = _tree(script)
    onced = {ast.unparse(c.args[1]) for c in _calls(tree, "reuse.once")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if ast.unparse(node.value.func) == "prof.key_averages().table":
                assert ast.unparse(node.targets[0]) in onced, f"{script.name}: the profiler table is not taken once"
    printed = [ast.unparse(c) for c in _calls(tree, "print")]
    assert not [p for p in printed if "key_averages" in p], f"{script.name}: prints the profiler's table itself"
    for line in _calls(tree, "workloadreport.elapsed_line"):
        assert ast.unparse(line.args[0]).startswith("reuse.once("), ast.unparse(line)
    for sample in ("samples_ms", "without_us"):  # timings taken by hand
        if any(isinstance(n, ast.Name) and n.id == sample for n in ast.walk(tree)):
            assert any(sample in arg for arg in onced), f"{script.name}: {sample} is not taken once"


def test_the_values_taken_once_have_names_of_their_own():
    names = [c.args[0].value for s in SCRIPTS for c in _calls(_tree(s), "reuse.once")]
    assert len(names) >= 14 and len(names) == len(set(names)), names


def test_titles_say_run_it_and_differ():
    titles = {s.name: _docstring_title(s) for s in SCRIPTS}
    assert all(t.startswith("Run it: ") for t in titles.values()), titles
    assert len(set(titles.values())) == len(titles)
    for name, script in VARIANT_SCRIPTS.items():
        assert titles[script.name] == f"Run it: {VARIANTS[name].short}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_links_its_guide_page_and_the_page_links_back(script):
    doc = ast.get_docstring(_tree(script))
    links = re.findall(r":doc:`\.\./([^`]+)`", doc)
    assert len(links) == 1, links
    page = DOCS / f"{links[0]}.md"
    assert page.is_file(), page
    assert f"auto_examples/{script.stem}" in page.read_text(encoding="utf-8")
    if "article" in script.read_text(encoding="utf-8"):
        assert doc.count(ARTICLE) == 1, "name and link the article once, in the docstring"


# --- one script, for real ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_script_runs_and_prints_in_japanese(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNPROF_")}
    package = str(Path(attnprof.__file__).resolve().parent.parent)  # this checkout's attnprof, from anywhere
    env |= {
        "ATTNPROF_LANGUAGE": "ja",
        "ATTNPROF_RESULTS_DIR": str(tmp_path),
        "MPLBACKEND": "agg",
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONPATH": os.pathsep.join([package, env.get("PYTHONPATH", "")]),
    }
    run = subprocess.run([sys.executable, str(EXAMPLES / "02-naive-inplace.py")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "実行: [1, 4, 256, 64] bfloat16、cpu 上" in run.stdout
    assert "float64 との相対誤差" in run.stdout and "アクティブステップについてのプロファイラ自身の集計" in run.stdout
    assert "aten::masked_fill_" in run.stdout  # the profiler's own table
    assert (tmp_path / "naive_inplace_trace.json").is_file()
    assert (tmp_path / "naive_inplace__prefill__1x4x256x64__bfloat16__cpu.json").is_file()
