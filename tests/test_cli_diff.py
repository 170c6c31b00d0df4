"""``attnprof diff``: the command line around analysis.diff: its help, its outputs, and bad input in one line with
exit status 2."""

from __future__ import annotations

import json

import pytest

from attnprof import cli
from attnprof.analysis import diff
from helpers import FOREIGN, explained, run_cli

SDPA, EAGER = FOREIGN / "h200" / "hf_sdpa_train.json.gz", FOREIGN / "h200" / "hf_eager_train.json.gz"


def run(*argv: str) -> tuple[int, str, str]:
    return run_cli("diff", *argv)


def test_help_gives_every_default_and_an_example():
    code, out, err = run("--help")
    assert code == 0 and err == ""
    summary, example, options = cli.args.COMMANDS["diff"]
    assert summary.split(":")[0] in out and example in out
    for flag, keywords in options:
        assert flag in ("before", "after") or "default" in keywords["help"], flag


def test_the_text_and_the_progress():
    code, out, err = run(str(SDPA), str(EAGER))
    assert code == 0
    assert out.startswith("From hf_sdpa_train.json.gz to hf_eager_train.json.gz: what changed")
    assert "Backend of scaled_dot_product_attention (bwd): cudnn → unfused." in out
    assert f"BEFORE {SDPA}: 6293 events, 8 attention calls in 2 steps" in err and f"AFTER {EAGER}:" in err
    code, ja, err = run(str(SDPA), str(EAGER), "--lang", "ja")
    assert code == 0 and "への変化" in ja and "変更前" in err


def test_json_to_stdout_is_the_comparison_and_files_are_written(tmp_path):
    code, out, _ = run(str(SDPA), str(EAGER), "--json", "-")
    assert code == 0
    again = diff.diff(diff.side(explained(SDPA)), diff.side(explained(EAGER))).to_dict()
    assert json.loads(out) == json.loads(json.dumps(again))
    code, out, err = run(
        str(SDPA), str(EAGER), "--json", str(tmp_path / "d.json"), "--html", str(tmp_path / "d.html")
    )
    assert code == 0 and "In short" in out
    assert json.loads((tmp_path / "d.json").read_text())["schema"] == "attnprof.diff"
    assert (tmp_path / "d.html").read_text().startswith("<!DOCTYPE html>")
    assert f"JSON written to {tmp_path / 'd.json'}" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["missing.json", str(EAGER)], "no trace file 'missing.json'"),
        ([str(SDPA), "missing.json"], "no trace file 'missing.json'"),
        ([str(SDPA), str(EAGER), "--lang", "fr"], "unknown --lang 'fr'; choose one of: en, ja"),
        ([str(SDPA), str(EAGER), "--json", "-", "--html", "-"], "give one of them a file name"),
        ([str(SDPA), str(EAGER), "--json", str(SDPA)], "is the file BEFORE reads"),
        ([str(SDPA), str(EAGER), "--html", str(EAGER), "--force"], "is the file AFTER reads"),
        ([str(SDPA), str(EAGER), "--gpu", "3"], "GPU 3 ran no kernel"),
        ([str(SDPA)], "the following arguments are required: AFTER"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, expected):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("attnprof") and expected in line and "Traceback" not in err, err


def test_the_same_file_twice_for_both_outputs_is_refused(tmp_path):
    code, _, err = run(str(SDPA), str(EAGER), "--json", str(tmp_path / "x"), "--html", str(tmp_path / "x"))
    assert code == 2 and "give each output a file of its own" in err
    assert not (tmp_path / "x").exists()
