"""``attnprof explain``: the command line around analysis.explain: its help, its outputs, and bad input in one line
with exit status 2."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnprof import cli
from attnprof.analysis import attention, explain
from attnprof.records import foreign
from helpers import run_cli

DATA = Path(__file__).parent / "data"
FLASH = DATA / "traces" / "sdpa_flash.json.gz"
EAGER = DATA / "foreign" / "cpu" / "hf_eager_train.json.gz"
SDPA_CPU = DATA / "foreign" / "cpu" / "hf_sdpa_train.json.gz"


def run(*argv: str) -> tuple[int, str, str]:
    return run_cli("explain", *argv)


def test_help_gives_every_default_and_an_example():
    code, out, err = run("--help")
    assert code == 0 and err == ""
    summary, example, options = cli.args.COMMANDS["explain"]
    assert summary in out and f"example:\n  {example}" in out
    for flag, keywords in options:
        assert flag == "trace" or "default" in keywords["help"], flag
        assert (flag if flag != "trace" else "TRACE") in out


def test_the_text_reading_names_steps_calls_kernels_and_flags():
    code, out, err = run(str(EAGER), "--no-why")
    assert code == 0
    assert out.startswith("hf_eager_train.json.gz: 2 profiler steps")
    assert "hand-written (matmul, softmax, matmul)" in out and "fp32 softmax" in out and "KV expanded" in out
    assert "Recorded on the CPU alone" in out
    assert "reading " in err and "found 8 attention calls in 2 steps" in err  # progress on stderr
    code, ja, _ = run(str(EAGER), "--no-why", "--lang", "JA")
    assert code == 0 and "手書き (行列積、ソフトマックス、行列積)" in ja and "CPU だけで記録されています" in ja


def test_json_to_stdout_is_the_explanation_and_nothing_else():
    code, out, _ = run(str(FLASH), "--json", "-", "--no-why")
    assert code == 0
    data = json.loads(out)
    again = explain.explain(foreign.load(FLASH, inputs_of=attention.wants_inputs)).to_dict()
    assert data == json.loads(json.dumps(again)) and "why" not in data


def test_json_and_html_files(tmp_path):
    code, out, err = run(str(FLASH), "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"))
    assert code == 0 and "Profiler steps" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["calls"][0]["backend"] == "flash"
    note = data["why"]["note"]  # this machine's torch is a CPU-only build: not asked, and torch not imported
    assert note["code"] == "no_gpu" and note["reason"].startswith("the trace ran on NVIDIA H200, and PyTorch ")
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "attnprofViewerData" in page and "<script src" not in page
    assert not re.search(r"""(src|href)=["']?https?:|<link|@import""", page)  # nothing fetched: all inline
    assert f"JSON written to {tmp_path / 'r.json'}" in err


def test_pytorch_is_asked_about_the_recorded_inputs_on_this_machine():
    code, out, _ = run(str(SDPA_CPU), "--json", "-")
    assert code == 0
    why = json.loads(out)["why"]
    assert why["note"] is None and len(why["answers"]) == 1
    (answers,) = why["answers"].values()
    verdicts = {backend: [check, reason] for backend, check, reason in answers}
    assert verdicts["flash"][0] == verdicts["math"][0] == "accepts"  # the CPU's two backends take bf16 GQA inputs
    assert verdicts["cudnn"] == ["not_asked", "SDPA's CPU dispatch has only FLASH_ATTENTION and MATH"]
    assert why["picks"] == {"0": "flash"}
    code, text, _ = run(str(SDPA_CPU))
    assert "Why this backend? PyTorch on this machine" in text and "flash: accepts these inputs" in text
    assert "SDPA's own choice for these inputs here: flash" in text


def test_no_shapes_says_how_to_record_them(tmp_path):
    doc = json.loads(gzip.decompress(FLASH.read_bytes()))
    for e in doc["traceEvents"]:
        for key in ("Input Dims", "Input type", "Input Strides", "Concrete Inputs"):
            e.get("args", {}).pop(key, None)
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run(str(path))
    assert code == 0 and "record_shapes=True" in out and "inputs" in out and "not recorded" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["missing.json"], "no trace file 'missing.json'"),
        ([str(FLASH), "--lang", "fr"], "unknown --lang 'fr'; choose one of: en, ja"),
        ([str(FLASH), "--gpu", "x"], "bad --gpu 'x'; expected a GPU id"),
        ([str(FLASH), "--gpu", "3"], "GPU 3 ran no kernel in this trace; choose one of: 0"),
        ([str(FLASH), "--max-mb", "0"], "bad --max-mb '0'"),
        ([str(FLASH), "--max-mb", "0.001"], "more than the 1048"),
        ([str(FLASH), "--json", "-", "--html", "-"], "give one of them a file name"),
        ([str(FLASH), "--json", "/nonexistent/x.json"], "does not exist"),
        ([str(FLASH), "--html", "/proc/x.html"], "cannot create"),
        ([str(FLASH), "--json", ""], "empty value"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, expected):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("attnprof: ") and expected in line and "Traceback" not in err, err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"garbage", "not valid JSON"),
        (b'{"traceEvents": [{"ph": "X", "cat": "gpu", "name": "draw", "ts": 1, "dur": 1}]}', "without PyTorch"),
        (gzip.compress(b'{"traceEvents": [')[:-4], "gzip"),
    ],
)
def test_unreadable_traces_are_one_line(tmp_path, content, expected):
    path = tmp_path / "t.json.gz"
    path.write_bytes(content)
    code, _, err = run(str(path))
    assert code == 2 and expected in err.strip().splitlines()[-1] and "Traceback" not in err


def test_the_program_runs_without_importing_torch_when_not_asking():
    code = (
        "import sys; from attnprof import cli; "
        f"rc = cli.main(['explain', {str(EAGER)!r}, '--no-why'], out=open('/dev/null', 'w')); "
        "sys.exit(rc or ('torch' in sys.modules))"
    )
    run_ = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run_.returncode == 0, run_.stderr
