"""What the eligibility map says: the view per family, the fastest by the noise rule, disagreements, refusals."""

from __future__ import annotations

from attnprof.analysis import eligibility as view
from attnprof.noise import Figure
from attnprof.records import eligibility as records
from attnprof.records.eligibility import Answer, Grid, Verdict
from attnprof.records.results import Environment


def test_family_view_words_each_row_and_numbers_each_reason_once(cpu_grid):
    grid = cpu_grid
    train = view.family_view(grid, "training")
    labels = [r.label for r in train.rows]
    assert labels[0] == "head_dim 64 (base)" and labels[4] == "boolean mask" and labels[5] == "dropout 0.1"
    dropout_notes = [n for n in train.notes if n.text and "dropout" in n.text]
    assert len(dropout_notes) == 1
    ja = view.family_view(grid, "mask", "ja")
    assert [r.label for r in ja.rows][:3] == ["マスクなし", "is_causal=True (基準)", "ブールマスク"]


def _answer(times: dict[str, Figure | None]) -> Answer:
    verdicts = [Verdict(b, "accepts", call="ran", time_ms=t) for b, t in times.items()]
    return Answer("cuda", None, None, None, verdicts=verdicts)


def test_fastest_goes_through_the_noise_rule():
    clear = _answer({"FLASH_ATTENTION": Figure(1.0, 0.99, 1.01, 5), "MATH": Figure(3.0, 2.9, 3.1, 5)})
    assert view.fastest(clear, "cuda") == ("FLASH_ATTENTION",)
    close = _answer({"FLASH_ATTENTION": Figure(1.0, 0.99, 1.01, 5), "CUDNN_ATTENTION": Figure(1.02, 1.0, 1.04, 5)})
    assert view.fastest(close, "cuda") == ("FLASH_ATTENTION", "CUDNN_ATTENTION")
    assert view.fastest(_answer({"MATH": Figure(3.0, 2.9, 3.1, 5)}), "cuda") == ()


def test_disagreements_are_named():
    a = Answer("cuda", None, None, None, verdicts=[Verdict("FLASH_ATTENTION", "accepts", call="unsupported")],
               pick="FLASH_ATTENTION", ran="MATH")  # fmt: skip
    assert a.disagreements == ("FLASH_ATTENTION", "pick")
    base = records.Case((2, 4, 16, 64), "bfloat16")
    grid = Grid("cuda", base, [records.Row("dtype", base, a)], _env())
    assert view.disagreements(grid) == ["bfloat16 (base): flash", "bfloat16 (base): SDPA picks"]


def _env():
    return Environment("CPU", "2.13", "3.11", "2026-01-01")


def test_refusals_list_each_condition_once_in_pytorchs_words(cpu_grid):
    grid = cpu_grid
    found = view.refusals(grid)
    conditions = [(family, c) for family, c, _ in found]
    assert len(conditions) == len(set(conditions))
    assert ("dropout", "dropout 0.1") in conditions and ("training", "dropout 0.1") in conditions
    assert any("dropout" in r for _, _, refused in found for _, r in refused)
