"""``attnprof explain TRACE --measure`` from the command line: a CPU trace measured on the CPU (text, JSON, HTML, both
languages), the plan of ``--dry-run``, and every refusal one line with exit status 2 (options without
``--measure``, bad values, a run past its budget, a GPU trace where there is no GPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from attnprof.analysis import advice as judge
from attnprof.records import advice
from helpers import run_cli

DATA = Path(__file__).parent / "data" / "foreign"
MHA = DATA / "cpu-advice" / "mha_dropout_train.json.gz"
PADDED = DATA / "cpu-advice" / "hf_padded_infer.json.gz"
GPU_TRACE = DATA / "h200" / "hf_sdpa_train.json.gz"


def run(*argv: str) -> tuple[int, str, str]:
    return run_cli("explain", *argv)


def test_a_cpu_trace_is_measured_on_the_cpu_in_text_json_and_html(tmp_path):
    code, out, err = run(str(MHA), "--measure", "--json", str(tmp_path / "r.json"), "--html",
                         str(tmp_path / "r.html"), "--lang", "ja")  # fmt: skip
    assert code == 0, err
    assert "cpu で 1 個の異なる呼び出しの選択肢 5 個を計測します" in err and "計測は" in err  # progress in --lang
    assert "各呼び出しのここでのコストと、変更で節約できる時間" in out and "呼び出し 1: 手書き" in out
    assert "PyTorch が拒否" in out  # the CPU's flash kernel refuses dropout
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["schema"] == "attnprof.explain" and data["measure"]["schema"] == advice.SCHEMA
    record = advice.load(tmp_path / "r.json")
    assert record.status == "measured" and record.device == "cpu" and record.mismatch == ["cpu_unknown"]
    statuses = {m.option.key: m.status for m in record.cases[0].options}
    assert statuses["recorded"] == "ok" and statuses["sdpa:FLASH_ATTENTION"] == "refuses"
    page = (tmp_path / "r.html").read_text()
    assert "各呼び出しのここでのコストと" in page and 'lang="ja"' in page
    v = judge.verdicts(record)[0]
    assert v.outcome in ("faster", "tie", "recorded", "unreliable")


def test_a_dry_run_prints_the_plan_and_measures_nothing():
    code, out, err = run(str(PADDED), "--measure", "--dry-run", "--mask", "sliding=8")
    assert code == 0, err
    assert out.startswith("What each call costs here") and "Dry run: the plan only" in out
    assert "a causal window of 8 positions" in out and "is_causal=True" not in out  # a sliding mask is not causal
    assert "measuring" not in err and "would be refused" not in out


def test_a_run_past_its_budget_is_refused_with_the_estimate_and_a_dry_run_says_so():
    code, out, err = run(str(PADDED), "--measure", "--budget-s", "0.01")
    assert code == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("attnprof: measuring 7 options would take about")
    assert "more than the budget of 0.0 s (--budget-s)" in line and "--force" in line
    code, out, _ = run(str(PADDED), "--measure", "--budget-s", "0.01", "--dry-run")
    assert code == 0 and "would be refused: measuring 7 options" in out


def test_a_gpu_trace_on_a_machine_without_one():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the GPU tests measure the H200 traces")
    code, out, err = run(str(GPU_TRACE), "--measure")
    assert code == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("attnprof: --measure rebuilds each call of hf_sdpa_train.json.gz on the trace's device")
    assert line.endswith("run it on a machine with NVIDIA H200") and ("CPU-only" in line or "no GPU driver" in line)
    code, out, _ = run(str(GPU_TRACE), "--measure", "--dry-run", "--lang", "ja")
    assert code == 0 and "CUDA GPU がありません" in out and "実行すると拒否されます: --measure は" in out
    assert "NVIDIA H200 のあるマシンで実行してください" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--dry-run",), "--dry-run goes with --measure"),
        (("--budget-s", "10"), "--budget-s goes with --measure"),
        (("--measure", "--budget-s", "-1"), "bad --budget-s '-1'; expected a positive number of seconds"),
        (("--measure", "--max-calls", "0"), "bad --max-calls '0'; expected a positive integer"),
        (("--measure", "--mask", "window=3"), "bad --mask 'window=3'; expected causal, sliding=W"),
    ],
)
def test_bad_measuring_options_are_one_line(argv, message):
    code, out, err = run(str(PADDED), *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
