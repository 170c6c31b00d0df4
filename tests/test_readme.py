"""README.md's examples are tests: every line of its code blocks is either run here, on the CPU, and checked against
the sentence beside it, or listed in :data:`NOT_RUN` with the reason (it installs something, builds the site, or
needs a GPU). A new or changed line in README fails
:func:`test_every_line_of_the_readmes_code_blocks_is_accounted_for` until it is added to one of the tables.

A command is run as README writes it, through the command's own ``main`` in this process
(:func:`helpers.run_cli`; the program's streams and signals are tested in test_cli_hostile.py), with CPU options
appended (a later option wins in argparse): ``--device cpu`` always, and ``--dry-run`` or a tiny shape where the
real run would take minutes on a CPU.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

import attnprof
from attnprof import variants, workloads
from attnprof.records import sweep
from helpers import run_cli

SRC = Path(attnprof.__file__).parent.parent
README = SRC.parent / "README.md"


def code_blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each fenced code block of ``text``: its language and its lines (continuations joined, blank lines and
    comment lines left out)."""
    blocks = []
    for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S):
        joined = re.sub(r"\\\n\s*", "", body)
        lines = [line.rstrip() for line in joined.splitlines()]
        blocks.append((lang, [line for line in lines if line.strip() and not line.lstrip().startswith("#")]))
    return blocks


def split_comment(line: str) -> tuple[str, str]:
    """``attnprof list   # the variants`` -> ``("attnprof list", "the variants")``."""
    command, *comment = re.split(r"\s+#\s*", line, maxsplit=1)
    return command.strip(), (comment[0] if comment else "").strip()


#: Lines not run by the CPU tests, and why.
NOT_RUN: dict[str, str] = {
    "nox -s docs": "builds the site (CI runs it: .ci/run)",
    "nox -s tests": "the CPU test suite itself",
    "pip install torch --index-url https://download.pytorch.org/whl/cpu": "installs torch",
    "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu nox -s docs": "installs and builds the site",
    "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu nox -s tests": "installs; the CPU test suite itself",
    'python3 -m pip install sphinx==9.0.4 "docutils<0.23" myst-nb==1.4.0 sphinx-gallery==0.22.1 '
    "furo==2025.12.19 sphinx-copybutton sphinx-intl matplotlib-fontja nox setuptools": "installs the toolchain",
    "python3 -m pip install -e . --no-deps --no-build-isolation": "installs attnprof",
    "python3 -m pip install .": "installs attnprof (test_the_install_step_comes_before_the_first_attnprof_command)",
    "python3 -m nox --no-venv -s docs": "needs a GPU: builds the site on a GPU builder (scripts/gpu_build.sh)",
    "apt-get install -y chromium fonts-ipafont-gothic": "installs system packages",
    "nox -s docs && nox -s browser": "builds the site and drives Chromium (CI runs it)",
}

CPU = ["--device", "cpu"]
TINY = ["--shape", "1,2,64,16"]


def _variants_planned(out: str) -> list[str]:
    return [line.split(":")[0].strip() for line in out.splitlines() if line.startswith("  ")]


def _list(out: str, folder: Path) -> None:  # "the variants, and which can run here"
    header = out.splitlines()[2].split()
    assert header[:3] == ["variant", "devices", "runs"]
    for name in variants.VARIANTS:
        assert re.search(rf"^{name}\s+\S", out, flags=re.M), name
    assert re.search(r"^sdpa_math\s+cuda, cpu\s+yes", out, flags=re.M)  # the math backend runs on any CPU


def _profile_flash(out: str, folder: Path) -> None:  # profiles one variant: its kernel table and summary
    assert "sdpa_flash: [1, 2, 64, 16] bfloat16 on cpu" in out and "Traceback" not in out


def _compare_all(out: str, folder: Path) -> None:  # "one table across all variants"
    assert out.startswith("dry run; would run compare: 9 variants at [8, 16, 1024, 64] bfloat16 on cpu")
    assert _variants_planned(out) == list(variants.for_workload(workloads.article()))


def _sweep(out: str, folder: Path) -> None:  # "how cost grows with sequence length (timed, no profiler)"
    saved = sweep.load(folder / "sweep.json")
    assert list(saved.seqs) == [16, 32] and saved.timer and all(p.variant == "naive" for p in saved.points)
    assert "time per forward, median (ms)" in out


def _dry_run(out: str, folder: Path) -> None:  # "what a run would cost, without running it"
    assert out.startswith("dry run; would run compare: 9 variants at [8, 16, 4096, 64] bfloat16 on cpu: about ")
    assert "at most" in out and len(_variants_planned(out)) == 9


def _train(out: str, folder: Path) -> None:  # "forward + backward of every variant"
    assert _variants_planned(out) == list(variants.for_workload("train")) and workloads.get("train").backward


def _decode_lengths(
    out: str, folder: Path
) -> None:  # "one token against a KV cache (GQA: 8 KV heads on CUDA, 2 ...)"
    q = workloads.CPU_DECODE_SHAPE
    kv = workloads.CPU_DECODE_KV_HEADS
    for n in (1024, 16384, 131072):  # one new token; fewer KV heads than query heads: GQA
        assert f"[{q[0]}, {q[1]}, 1, {q[3]}] bfloat16 on cpu, KV cache [{q[0]}, {kv}, {n}, {q[3]}]" in out
    assert workloads.CPU_DECODE_KV_HEADS < q[1] and workloads.DECODE_KV_HEADS < workloads.DECODE_SHAPE[1]


def _decode_profile(out: str, folder: Path) -> None:  # one decoding step at a cache of 4096 with 8 KV heads
    assert "sdpa_auto: [1, 8, 1, 64] bfloat16 on cpu, KV cache 8 heads x 4096" in out
    assert " at 0 GB/s" not in out  # a small figure keeps its digits


def _why(out: str, folder: Path) -> None:  # "which backend takes these inputs, and PyTorch's reasons"
    assert "boolean mask" in out and "training on cpu" in out
    assert re.search(r"^flash\s+accepts", out, flags=re.M) and re.search(r"^math\s+accepts", out, flags=re.M)
    assert "SDPA's CPU dispatch has only flash and math" in out and "SDPA picks: flash" in out


#: README's attnprof lines -> (options appended for the CPU, the words its comment must hold, the check)
RUN: dict[str, tuple[list[str], str, Callable[[str, Path], None]]] = {
    "attnprof list": ([*CPU, "--no-compile"], "the variants, and which can run here", _list),
    "attnprof profile sdpa_flash --shape 8,16,1024,64 --dtype bf16": ([*CPU, *TINY], "", _profile_flash),
    "attnprof compare --shape 8,16,1024,64": ([*CPU, "--dry-run"], "one table across all variants", _compare_all),
    "attnprof sweep --out sweep.json": (
        [*CPU, "--variants", "naive", "--seqs", "16", "32", "--budget-s", "30"],
        "how cost grows with sequence length (timed, no profiler)",
        _sweep,
    ),
    "attnprof compare --shape 8,16,4096,64 --dry-run": (CPU, "what a run would cost, without running it", _dry_run),
    "attnprof compare --workload train": ([*CPU, "--dry-run"], "forward + backward of every variant", _train),
    "attnprof compare --workload decode --lengths 1024 16384 131072": (
        [*CPU, "--dry-run"],
        "one token against a KV cache (GQA: 8 KV heads on CUDA, 2 on the CPU)",
        _decode_lengths,
    ),
    "attnprof profile sdpa_auto --workload decode --kv-heads 8 --kv-len 4096": (CPU, "", _decode_profile),
    "attnprof why --shape 8,16,4096,128 --mask bool --train": (
        [*CPU, "--shape", "1,2,64,128", "--no-call"],
        "which backend takes these inputs, and PyTorch's reasons",
        _why,
    ),
}


#: README's bundle lines, run in order in one folder (the second reads what the first wrote) -> their comments
BUNDLE: dict[str, str] = {
    "attnprof bundle create --from _build/results --out my-h100.tar.gz": "or: nox -s bundle -- --out my-h100.tar.gz",
    "attnprof bundle show my-h100.tar.gz": "provenance and contents, every check made",
}


#: README's lines on a trace of one's own, run in one folder holding traces of code nobody here wrote (a transformers
#: Llama trained on the CPU as trace.json.gz; nn.MultiheadAttention with need_weights on, then off, as before/after)
#: -> (the words its comment must hold, what the output must show)
TRACE_LINES: dict[str, tuple[str, tuple[str, ...]]] = {
    "attnprof explain trace.json.gz": ("steps, attention calls, backends, kernels, PyTorch's reasons",
                                       ("Profiler steps", "Attention calls", "flash",
                                        "SDPA's own choice for these inputs here")),
    "attnprof explain trace.json.gz --html report.html": ("the same as one self-contained page (--lang ja: in "
                                                          "Japanese)", ("Attention calls",)),
    "attnprof explain trace.json.gz --measure --dry-run": ("on a GPU: what timing each call here, every backend, "
                                                           "would cost",
                                                           ("Dry run: the plan only", "SDPA's own choice")),
    "attnprof diff before.json.gz after.json.gz": ("what a change did: calls matched, time and kernels per call",
                                                   ("In short", "unfused → flash")),
}  # fmt: skip
TRACES = {"trace.json.gz": ("cpu", "hf_sdpa_train"), "before.json.gz": ("cpu-change", "mha_weights_train"),
          "after.json.gz": ("cpu-change", "mha_sdpa_train")}  # fmt: skip


def _traces_in(folder: Path) -> Path:
    from helpers import DATA

    for name, (where, case) in TRACES.items():
        (folder / name).write_bytes((DATA / "foreign" / where / f"{case}.json.gz").read_bytes())
    return folder


def readme_lines() -> list[tuple[str, str, str]]:
    """``(language, command, comment)`` for every line of README's code blocks."""
    return [(lang, *split_comment(line)) for lang, lines in code_blocks(README.read_text()) for line in lines]


def test_every_line_of_the_readmes_code_blocks_is_accounted_for():
    shell = [(command, comment) for lang, command, comment in readme_lines() if lang == "bash"]
    # nothing unaccounted for, nothing stale
    assert {c for c, _ in shell} == set(RUN) | set(NOT_RUN) | set(BUNDLE) | set(TRACE_LINES)
    for command, comment in shell:
        if command in RUN:
            assert comment == RUN[command][1], command  # the sentence beside it is the one the check checks
        if command in BUNDLE:
            assert comment == BUNDLE[command], command
        if command in TRACE_LINES:
            assert comment == TRACE_LINES[command][0], command
    # the profiling snippet, then the trace snippet (test_the_python_snippet_runs..., test_the_trace_snippet_...)
    assert [lang for lang, _ in code_blocks(README.read_text())].count("python") == 2


@pytest.mark.parametrize("command", list(RUN))
def test_each_readme_command_does_what_its_comment_says_on_the_cpu(tmp_path, command):
    extra, _, check = RUN[command]
    run = run_cli(*shlex.split(command)[1:], *extra, cwd=tmp_path)  # the command's own main, in this process
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    check(run.stdout, tmp_path)


def test_the_bundle_lines_pack_a_results_folder_and_show_it_back(tmp_path):
    from attnprof.records import bundle, results
    from helpers import trace_result

    result, raw = trace_result("sdpa_flash")  # a recorded H200 result and its trace, as a build leaves them
    results.save(result, tmp_path / "_build" / "results", raw)
    outs = []
    for command in BUNDLE:
        run = run_cli(*shlex.split(command)[1:], cwd=tmp_path)
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
        outs.append(run.stdout)
    packed = bundle.read(tmp_path / "my-h100.tar.gz")
    assert packed.provenance.gpu_count == 1 and "NVIDIA H200" in packed.provenance.machine
    assert (
        "NVIDIA H200" in outs[1] and "result    1:" in outs[1] and "trace     1:" in outs[1]
    )  # provenance, contents


def python_snippets() -> list[str]:
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", README.read_text(), re.M | re.S)
            if lang == "python"]  # fmt: skip


@pytest.mark.parametrize("command", list(TRACE_LINES))
def test_each_trace_line_reads_what_its_comment_says(tmp_path, command):
    run = run_cli(*shlex.split(command)[1:], cwd=_traces_in(tmp_path))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
    page = tmp_path / "report.html"
    shown = page.read_text(encoding="utf-8") if "--html" in command else run.stdout
    for words in TRACE_LINES[command][1]:
        assert words in shown, words
    if "--html" in command:
        ja = run_cli(*shlex.split(command)[1:], "--lang", "ja", "--force", cwd=tmp_path)
        assert ja.returncode == 0 and "アテンションの呼び出し" in page.read_text(encoding="utf-8"), ja.stderr


def test_the_trace_snippet_reads_as_the_commands(tmp_path):
    snippet = python_snippets()[1]
    out = io.StringIO()
    with contextlib.chdir(_traces_in(tmp_path)), contextlib.redirect_stdout(out):
        exec(compile(snippet, "README.md", "exec"), {"__name__": "__main__"})  # as a reader pastes it
    assert out.getvalue() == run_cli("explain", "trace.json.gz", cwd=tmp_path).stdout + "\n"  # print(text(...))
    page = (tmp_path / "diff.html").read_text(encoding="utf-8")
    assert page == run_cli("diff", "before.json.gz", "after.json.gz", "--html", "-", cwd=tmp_path).stdout


def test_the_python_snippet_runs_and_says_why_a_variant_cannot_run_here(tmp_path):
    snippet = python_snippets()[0]
    out = io.StringIO()
    with contextlib.chdir(tmp_path), contextlib.redirect_stdout(out):
        exec(compile(snippet, "README.md", "exec"), {"__name__": "__main__"})  # as a reader pastes it
    import torch

    if torch.cuda.is_available():  # needs a GPU: the kernel table of cuDNN's attention
        assert out.getvalue().splitlines()[0].split()[0] == "kernel"
    else:  # README's next sentence: a variant that cannot run returns a result that says why
        assert out.getvalue().startswith("sdpa_cudnn: no_cuda - ") and "cuda" in out.getvalue().lower()


def test_the_install_step_comes_before_the_first_attnprof_command():
    lines = [line for _, block in code_blocks(README.read_text()) for line in block]
    install = lines.index("python3 -m pip install .   # puts attnprof on PATH: attnprof --help")
    first = next(k for k, line in enumerate(lines) if line.startswith("attnprof "))
    assert install < first
    text = README.read_text()
    assert text.index("pip install .") < text.index("`attnprof ")
