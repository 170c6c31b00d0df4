"""The package's face for Python (``attnprof.explain``, ``attnprof.diff``, ``attnprof.text``, ``attnprof.html``):
the same reading as the commands, from traces of code nobody here wrote; bad input is one line; ``import attnprof``
stays cheap."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import attnprof
from attnprof import cli
from attnprof.records import files
from helpers import DATA

TRACE = DATA / "foreign" / "cpu" / "hf_sdpa_train.json.gz"
H200 = DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz"
BEFORE = DATA / "foreign" / "cpu-change" / "mha_weights_train.json.gz"
AFTER = DATA / "foreign" / "cpu-change" / "mha_sdpa_train.json.gz"


def command(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(list(argv), out=out, err=err) == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("trace", [TRACE, H200], ids=["cpu", "h200"])
def test_explain_reads_as_the_command_does(trace):
    reading = attnprof.explain(trace, why=False)
    assert reading.asked is None and len(reading.explanation.calls) > 0
    assert reading.to_dict() == json.loads(command("explain", str(trace), "--no-why", "--json", "-"))
    for lang in attnprof.LANGUAGES:
        assert attnprof.text(reading, lang) == command("explain", str(trace), "--no-why", "--lang", lang)
    assert "アテンション" in attnprof.text(reading, "ja")
    assert repr(reading).startswith(f"<attnprof.Reading of '{trace.name}': {len(reading.explanation.calls)} atten")


def test_explain_asks_pytorch_as_the_command_does_or_says_why_not():
    reading = attnprof.explain(H200)  # an H200 trace on this machine: asked only where a CUDA torch and GPU are
    asked = json.loads(command("explain", str(H200), "--json", "-"))["why"]
    assert reading.asked is not None
    note = None if reading.asked.note is None else {"code": reading.asked.note[0], **reading.asked.note[1]}
    assert note == asked["note"]
    assert {str(k): [list(v) for v in vs] for k, vs in reading.asked.answers.items()} == asked["answers"]


def test_diff_says_what_the_command_says():
    d = attnprof.diff(BEFORE, AFTER)
    assert d.to_dict() == json.loads(command("diff", str(BEFORE), str(AFTER), "--json", "-"))
    assert attnprof.text(d, "ja") == command("diff", str(BEFORE), str(AFTER), "--lang", "ja")
    page = attnprof.html(d, "en")
    assert page.startswith("<!DOCTYPE html>") and page == command("diff", str(BEFORE), str(AFTER), "--html", "-")


def test_html_is_the_page_the_command_writes():
    reading = attnprof.explain(TRACE, why=False)
    assert attnprof.html(reading, "ja") == command("explain", str(TRACE), "--no-why", "--lang", "ja", "--html", "-")


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: attnprof.text(attnprof.explain(TRACE, why=False), "fr"), ValueError,
         "unknown lang 'fr'; choose one of: en, ja"),
        (lambda: attnprof.explain(TRACE, gpu=-1), ValueError, "bad gpu -1; expected a GPU id such as 0"),
        (lambda: attnprof.explain(TRACE, gpu=True), ValueError, "bad gpu True"),
        (lambda: attnprof.explain(TRACE, max_mb=0), ValueError, "bad max_mb 0; expected a positive number"),
        (lambda: attnprof.explain(TRACE, max_mb=0.001), files.UnreadableFile, "ATTNPROF_MAX_READ_MB"),
        (lambda: attnprof.explain(DATA / "nope.json.gz"), FileNotFoundError, "nope.json.gz"),
        (lambda: attnprof.diff(TRACE, DATA / "foreign" / "cpu" / "facts.json"), files.UnreadableFile,
         "facts.json: not a Chrome trace"),
    ],
    ids=["lang", "gpu", "gpu bool", "max_mb", "too large", "no file", "not a trace"],
)  # fmt: skip
def test_bad_input_is_one_line_naming_the_value(call, error, words):
    with pytest.raises(error) as exc:
        call()
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_import_attnprof_imports_no_reader_and_no_torch():
    code = "import sys, attnprof; print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('attnprof.')))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
