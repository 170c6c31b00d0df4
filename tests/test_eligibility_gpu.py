"""The eligibility map on a GPU, run on the GPU builder: ``pytest -m gpu -s tests/test_eligibility_gpu.py``.

Like every GPU test, these fail (never skip) on a machine without CUDA. A check and a real call that disagree are
printed (with ``-s``), not failed: the map flags them as findings.
"""

from __future__ import annotations

import dataclasses
import importlib
import io

import pytest
import torch

from attnprof import cli
from attnprof.analysis import eligibility as view
from attnprof.measure import eligibility
from attnprof.records import eligibility as records
from attnprof.records.eligibility import Grid

pytestmark = pytest.mark.gpu

#: The whole grid must stay cheap: a few seconds of the build on one H200.
BUDGET_S = 20.0


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Grid:
    assert torch.cuda.is_available(), "the gpu selection needs a CUDA device"
    importlib.import_module("torch._dynamo")  # watching a call imports it; the docs build has it before the grid
    measured = eligibility.measure_grid("cuda", save_to=tmp_path_factory.mktemp("grid"), reuse=False)
    print(f"\neligibility grid: {measured.seconds:.1f} s, {len(measured.rows)} rows")
    for found in view.disagreements(measured):
        print(f"  check and call disagree: {found}")
    return measured


def _answer(grid: Grid, family: str, **fields) -> records.Answer:
    case = dataclasses.replace(grid.base, **fields)
    return next(r.answer for r in grid.family(family) if r.case == case)


def test_every_backend_is_asked_and_every_answer_confirmed_by_a_call(grid):
    assert grid.device == "cuda" and grid.unasked is None and grid.rows
    for row in grid.rows:
        a = row.answer
        assert a.unasked is None, (row.case, a.unasked_reason)
        assert [v.backend for v in a.verdicts] == list(records.BACKENDS)
        for v in a.verdicts:
            assert v.check in ("accepts", "refuses"), (row.case, v.backend, v.check, v.reason)
            assert v.call is not None, (row.case, v.backend)
            if v.check == "refuses":
                assert v.reason, (row.case, v.backend)  # PyTorch's words, read from stderr or the warnings
            if v.ran:
                assert v.time_ms is not None and v.time_ms.median > 0, (row.case, v.backend)


def test_reasons_are_read_from_the_cuda_checks_with_the_check_that_failed(grid):
    fp32 = _answer(grid, "dtype", dtype="float32").verdict("FLASH_ATTENTION")
    assert fp32.check == "refuses" and fp32.failed and fp32.reason
    assert "dtype" in fp32.reason.lower() or "float" in fp32.reason.lower(), fp32.reason
    masked = _answer(grid, "mask", mask="bool").verdict("FLASH_ATTENTION")
    assert masked.check == "refuses" and "attn_mask" in masked.reason, masked.reason


def test_the_base_case_picks_a_fused_backend_and_runs_what_it_picks(grid):
    base = _answer(grid, "dtype")
    assert base.pick in ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"), base.pick
    assert base.ran == base.pick  # the dispatched operators name the backend the selector picked


def test_nested_inputs_go_through_the_nested_selector(grid):
    nested = _answer(grid, "layout", layout="nested", mask="none")
    assert nested.nested
    assert "torch.nested" in (nested.verdict("MATH").asked or "")
    assert nested.pick is not None or nested.pick_reason


def test_the_grid_stays_within_its_budget(grid):
    assert grid.seconds < BUDGET_S, f"the grid took {grid.seconds:.1f} s"


def test_why_answers_on_cuda():
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(
        ["why", "--device", "cuda", "--shape", "2,8,512,64", "--mask", "bool", "--train"], out=out, err=err
    )
    assert code == 0, err.getvalue()
    text = out.getvalue()
    for name in ("flash", "efficient", "cuDNN", "math"):
        assert any(line.startswith(f"{name} ") for line in text.splitlines()), name
    assert "SDPA picks: " in text and "the unforced call ran: " in text
