"""The eligibility map measured for real on the CPU at small sizes: the grid's families, its verdicts confirmed by
calls, reuse of a saved grid."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof.measure import eligibility
from attnprof.records import eligibility as records
from attnprof.records.eligibility import Case, Grid
from attnprof.render import eligibility as mapreport

BASE = Case((2, 4, 16, 64), "bfloat16")


@pytest.fixture(scope="module")
def saved(tmp_path_factory, cpu_grid):
    folder = tmp_path_factory.mktemp("grid")
    assert cpu_grid.base == BASE
    records.save(cpu_grid, folder)
    return cpu_grid, folder


def _row(grid: Grid, family: str, **fields) -> records.Row:
    case = dataclasses.replace(grid.base, **fields)
    return next(r for r in grid.family(family) if r.case == case)


def test_every_family_varies_one_thing_of_the_base(saved):
    grid, _ = saved
    assert grid.families == ("dtype", "head_dim", "mask", "gqa", "dropout", "training", "layout", "batch")
    for row in grid.rows:
        differs = set(row.case.differs(grid.base))
        if row.family == "training":
            differs -= {"requires_grad"}
            assert row.case.requires_grad
        if row.family == "layout" and row.case.layout == "nested":
            differs -= {"mask"}  # nested inputs are also asked without a mask
        assert len(differs) <= 1, (row.family, differs)
    assert [r.case.shape[3] for r in grid.family("head_dim")] == [64, 128, 256, 512]
    assert {r.case.mask for r in grid.family("mask")} == set(records.MASKS)


def test_a_case_shared_by_families_is_measured_once(saved):
    grid, _ = saved
    bases = [r.answer for r in grid.rows if r.case == grid.base]
    assert len(bases) >= 5 and all(a is bases[0] for a in bases)


def test_cpu_verdicts_are_confirmed_by_real_calls(saved):
    grid, _ = saved
    for row in grid.rows:
        a = row.answer
        assert [v.backend for v in a.verdicts] == list(records.BACKENDS)
        for v in a.verdicts:
            if v.backend in ("EFFICIENT_ATTENTION", "CUDNN_ATTENTION"):
                assert v.check == "cuda_only" and v.call is None
            else:
                assert v.check in ("accepts", "refuses") and v.call is not None
                assert v.agrees is True, (row.family, row.case, v)
                if v.ran:
                    assert v.time_ms is not None and v.time_ms.median > 0
                    assert v.issue_us is not None and v.issue_us.median > 0  # the same calls' issue time
    base = _row(grid, "dtype")
    assert base.answer.pick == "FLASH_ATTENTION" == base.answer.ran
    dropout = _row(grid, "dropout", dropout=eligibility.DROPOUT).answer
    assert dropout.verdict("FLASH_ATTENTION").check == "refuses"
    assert "dropout" in dropout.verdict("FLASH_ATTENTION").reason
    assert dropout.pick == "MATH" and dropout.ran == "MATH"
    strided = _row(grid, "layout", layout="strided").answer
    assert "stride" in strided.verdict("FLASH_ATTENTION").reason
    nested = _row(grid, "layout", layout="nested", mask="none").answer
    assert nested.nested and nested.verdict("MATH").asked.startswith("torch.nested")


def test_training_rows_ran_the_backward(saved):
    grid, _ = saved
    for row in grid.family("training"):
        assert row.answer.requires_grad
        assert any(v.ran for v in row.answer.verdicts)


def test_reuse_returns_the_saved_grid_and_measures_nothing(saved, monkeypatch):
    grid, folder = saved
    path = folder / records.filename("cpu")
    before = path.stat().st_mtime_ns

    def refuse(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(eligibility, "measure_case", refuse)
    again = eligibility.measure_grid("cpu", base=BASE, save_to=folder, reuse=True)
    assert again == grid and path.stat().st_mtime_ns == before
    other = Case((1, 4, 16, 64), "bfloat16")  # another base: not the same grid, so it is measured
    with pytest.raises(AssertionError, match="measured again"):
        eligibility.measure_grid("cpu", base=other, save_to=folder, reuse=True)


def test_cuda_without_a_device_is_a_grid_that_says_why(tmp_path, monkeypatch):
    # whatever this machine has, the map of a machine without CUDA (what profiling.cuda_missing_reason says there)
    monkeypatch.setattr(
        eligibility, "cuda_missing_reason", lambda: "no CUDA device: torch.cuda.is_available() is False"
    )
    grid = eligibility.measure_grid("cuda", save_to=tmp_path)
    assert grid.rows == [] and grid.unasked == "no_cuda"
    assert "torch.cuda.is_available() is False" in mapreport.grid_report(grid)
    assert records.load(tmp_path / records.filename("cuda")) == grid  # saved: the page says why


def test_nested_lengths_run_from_seq_down():
    assert eligibility.nested_lengths(4, 1024) == [1024, 768, 512, 256]
    assert eligibility.nested_lengths(1, 64) == [64]
