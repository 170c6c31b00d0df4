"""The eligibility claims C40–C49 (attnprof.analysis.claims.eligibility): on maps whose answers are set so that each
rule holds and then flips, on the CPU's map (no GPU: unmeasurable), and without a map."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof import words
from attnprof.analysis import claims
from attnprof.measure.eligibility import families
from attnprof.records.eligibility import BACKENDS, Answer, Case, Grid, Row, Verdict
from attnprof.records.results import Environment

BASE = Case((4, 16, 1024, 64), "bfloat16")
FLASH, EFFICIENT, CUDNN, MATH = BACKENDS[0], BACKENDS[1], BACKENDS[2], BACKENDS[3]


def _answer(refused: set[str] = frozenset(), pick: str = FLASH, failed: set[str] = frozenset()) -> Answer:
    """Every backend's check accepts and its call runs, but those ``refused`` (a reason each) and those whose call
    ``failed`` after the check accepted."""
    verdicts = []
    for b in BACKENDS:
        if b in refused:
            verdicts.append(Verdict(b, "refuses", f"{b} says no", call="unsupported", call_reason="RuntimeError: x"))
        elif b in failed:
            verdicts.append(Verdict(b, "accepts", call="error", call_reason="RuntimeError: backward"))
        else:
            verdicts.append(Verdict(b, "accepts", call="ran"))
    return Answer("cuda", None, None, None, verdicts=verdicts, pick=pick, ran=pick)


def _grid(**answers: Answer) -> Grid:
    """A CUDA map of the grid's real families; ``answers`` by a key of :func:`_key` replace the default answer."""
    rows = []
    for family, cases in families(BASE).items():
        for case in cases:
            rows.append(Row(family, case, answers.get(_key(case), _answer())))
    return Grid("cuda", BASE, rows, Environment("NVIDIA H200", "2.11", "3.12", "2026-12-02"))


def _key(case: Case) -> str:
    """``bool``, ``float32``, ``hd512``, ``train_hd256``, ``gqa1``, ``dropout``, ``nested`` ... or ``base``."""
    d = case.differs(BASE)
    if case.requires_grad:
        return "train_" + (f"hd{d['head_dim']}" if "head_dim" in d else next((k for k in d if k != "requires_grad"),
                                                                              "base"))  # fmt: skip
    if "mask" in d and "layout" in d:
        return "nested_nomask"
    if "mask" in d:
        return str(d["mask"])
    if "head_dim" in d:
        return f"hd{d['head_dim']}"
    if "kv_heads" in d:
        return f"gqa{d['kv_heads']}"
    if "dropout" in d:
        return "dropout"
    if "batch" in d:
        return f"batch{d['batch']}"
    return str(next(iter(d.values()))) if d else "base"


def _verdicts(grid: Grid | None, lang: str = "en") -> dict[str, str]:
    return {v.claim: v.verdict for v in claims.check_eligibility(grid, lang)}


def test_the_keys_name_every_condition_once():
    keys = {_key(c) for cases in families(BASE).values() for c in cases}
    assert {"base", "bool", "float", "float32", "hd512", "train_hd256", "gqa4", "gqa1", "nested", "nested_nomask",
            "train_base", "dropout", "batch1"} <= keys  # fmt: skip


def test_a_map_where_every_guess_is_right():
    grid = _grid(
        bool=_answer({FLASH}),
        float=_answer({FLASH, CUDNN}, pick=EFFICIENT),
        float32=_answer({FLASH, CUDNN}, pick=EFFICIENT),
        hd512=_answer({FLASH, EFFICIENT, CUDNN}, pick=MATH),
        train_hd256=_answer({FLASH}, pick=CUDNN),
        gqa4=_answer({EFFICIENT}),
        gqa1=_answer({EFFICIENT}),
        nested_nomask=_answer({CUDNN}),
    )
    assert _verdicts(grid) == dict.fromkeys(claims.ELIGIBILITY_CLAIMS, "holds")
    v = {x.claim: x for x in claims.check_eligibility(grid)}
    assert v["C40"].measured == "boolean mask: accepted by efficient, cuDNN, math; refused by flash"
    assert v["C40"].detail == "flash: “FLASH_ATTENTION says no”"
    # a backward that fails although the check accepted also rules flash out (and C49 names the disagreement)
    failing = {x.claim: x for x in claims.check_eligibility(_grid(train_hd256=_answer(failed={FLASH}, pick=CUDNN)))}
    assert failing["C44"].verdict == "holds" and failing["C44"].detail == "flash: “RuntimeError: backward”"
    assert failing["C49"].verdict == "differs" and failing["C49"].detail == "head_dim 256: flash"
    assert v["C47"].measured.startswith("flash accepted ") and v["C49"].measured.endswith("; 0 disagreements")


def test_each_rule_flips_when_the_map_says_otherwise():
    grid = _grid()  # every backend takes everything, SDPA picks flash everywhere
    got = _verdicts(grid)
    assert {k for k, x in got.items() if x == "differs"} == {"C40", "C41", "C42", "C43", "C44", "C45"}
    assert got["C46"] == got["C47"] == got["C48"] == got["C49"] == "holds"
    flipped = _grid(dropout=_answer({FLASH, EFFICIENT, CUDNN}, pick=MATH),
                    nested_nomask=_answer({FLASH, EFFICIENT, CUDNN}, pick=MATH),
                    base=_answer(pick=CUDNN))  # fmt: skip
    got = _verdicts(flipped)
    assert got["C46"] == got["C47"] == got["C48"] == "differs"
    v = {x.claim: x for x in claims.check_eligibility(flipped)}
    assert "SDPA picks cuDNN" in v["C47"].detail


def test_a_check_that_a_call_contradicts_is_named():
    liar = _answer()
    liar.verdicts[0] = Verdict(FLASH, "accepts", call="unsupported", call_reason="RuntimeError: no")
    v = {x.claim: x for x in claims.check_eligibility(_grid(bool=liar))}
    assert v["C49"].verdict == "differs" and v["C49"].detail == "boolean mask: flash"


def test_a_map_without_the_condition_or_without_a_map_or_a_gpu_is_unmeasurable(cpu_grid):
    missing = _grid()
    missing.rows = [r for r in missing.rows if r.family != "mask"]
    v = {x.claim: x for x in claims.check_eligibility(missing)}
    assert v["C40"].verdict == "unmeasurable" and v["C40"].reason == "the map has no row for boolean mask"
    assert set(_verdicts(None).values()) == {"unmeasurable"}
    assert claims.check_eligibility(None)[0].reason.startswith("this build has no eligibility map")
    cpu = {x.claim: x for x in claims.check_eligibility(cpu_grid)}
    assert {x.verdict for x in cpu.values()} == {"unmeasurable"}
    assert cpu["C40"].reason == words.text("reason.no_cuda")
    unasked = dataclasses.replace(_grid(), rows=[], unasked="no_cuda", unasked_reason="no CUDA device: x")
    assert "no CUDA device: x" in claims.check_eligibility(unasked)[0].reason


@pytest.mark.parametrize("cid", list(claims.ELIGIBILITY_CLAIMS))
def test_every_claim_speaks_both_languages_and_states_its_rule(cid):
    claim = claims.ELIGIBILITY_CLAIMS[cid]
    assert claim.statement("en") != claim.statement("ja")
    assert len(claim.rule_text) > 60
    grid = _grid(bool=_answer({FLASH}))
    en, ja = (next(x for x in claims.check_eligibility(grid, lang) if x.claim == cid) for lang in ("en", "ja"))
    assert en.verdict == ja.verdict and en.measured != ja.measured
