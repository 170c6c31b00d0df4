"""This site's own claims about which SDPA backend takes which inputs (C40–C49), checked against the eligibility map
of this build (:mod:`attnprof.records.eligibility`): beliefs a reader brings to "SDPA fell back to math", each tested
on the GPU that built the site.

Each rule reads the rows of the map's families by their condition (a backend *takes* a condition when its check
accepts it; for training, when its check accepts and the real call, backward included, ran). A claim about a
condition the map lacks is unmeasurable, and every claim needs a map measured on CUDA. Words: ``C4x.*`` and
``elig.*`` keys of :mod:`attnprof.words.eligibility`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from attnprof.analysis import eligibility as view
from attnprof.analysis.claims.framework import Check, Claim, Verdict
from attnprof.records.eligibility import Answer, Row

FLASH, EFFICIENT, CUDNN, MATH = "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"
#: The fused backends, as the map names them.
FUSED: tuple[str, ...] = (FLASH, EFFICIENT, CUDNN)


def _row(ctx: Check, family: str, **fields: object) -> Row | None:
    """The row of ``family`` whose case is the base with ``fields`` changed, or ``None``."""
    grid = ctx.grid
    assert grid is not None  # Claim.check hands over a map
    case = dataclasses.replace(grid.base, **fields)
    return next((r for r in grid.family(family) if r.case == case), None)


def _condition(ctx: Check, row: Row) -> str:
    grid = ctx.grid
    assert grid is not None
    return view.label(row.case, grid.base, row.family, ctx.lang)


def _names(ctx: Check, backends: Iterable[str]) -> str:
    return ctx.join(view.backend_name(b) for b in backends)


def _accepting(ctx: Check, row: Row) -> str:
    """``boolean mask: accepted by efficient, math; refused by flash, cuDNN``."""
    a = row.answer
    refused = [v.backend for v in a.verdicts if v.check == "refuses"]
    return ctx.t("elig.claim.accepting", condition=_condition(ctx, row), accepting=_names(ctx, a.accepting),
                 refused=_names(ctx, refused))  # fmt: skip


def _reasons(ctx: Check, answer: Answer, backends: Iterable[str]) -> list[str]:
    """PyTorch's reason for each of ``backends`` that refused."""
    out = []
    for b in backends:
        v = answer.verdict(b)
        if v is not None and v.check == "refuses" and v.reason:
            out.append(ctx.t("elig.claim.reason", backend=view.backend_name(b), reason=v.reason))
    return out


def _missing(ctx: Check, family: str, **fields: object) -> Verdict:
    grid = ctx.grid
    assert grid is not None
    case = dataclasses.replace(grid.base, **fields)
    return ctx.unmeasurable(ctx.t("elig.reason.no_row", condition=view.label(case, grid.base, family, ctx.lang)))


def _bool_mask_flash(ctx: Check) -> Verdict:
    """A boolean mask rules out flash: flash's check refuses the boolean-mask row of the mask family and accepts the
    base case (``is_causal=True``)."""
    masked, base = _row(ctx, "mask", mask="bool"), _row(ctx, "mask")
    if masked is None or base is None:
        return _missing(ctx, "mask", mask="bool")
    flash, flash_base = masked.answer.verdict(FLASH), base.answer.verdict(FLASH)
    holds = flash is not None and flash.check == "refuses" and flash_base is not None and flash_base.accepts
    return ctx.verdict(holds, _accepting(ctx, masked), _reasons(ctx, masked.answer, [FLASH]))


def _float_mask(ctx: Check) -> Verdict:
    """An additive float mask rules out flash as well, and the memory-efficient backend takes it: in the float-mask
    row, flash's check refuses and efficient's accepts."""
    row = _row(ctx, "mask", mask="float")
    if row is None:
        return _missing(ctx, "mask", mask="float")
    a = row.answer
    flash, efficient = a.verdict(FLASH), a.verdict(EFFICIENT)
    holds = flash is not None and flash.check == "refuses" and efficient is not None and efficient.accepts
    return ctx.verdict(holds, _accepting(ctx, row), _reasons(ctx, a, [FLASH, EFFICIENT]))


def _only(ctx: Check, family: str, expected: set[str], **fields: object) -> Verdict:
    """The row of ``family`` at ``fields`` is accepted by exactly ``expected``."""
    row = _row(ctx, family, **fields)
    if row is None:
        return _missing(ctx, family, **fields)
    a = row.answer
    others = [b for b in FUSED if b not in expected]
    return ctx.verdict(set(a.accepting) == expected, _accepting(ctx, row), _reasons(ctx, a, others))


def _float32(ctx: Check) -> Verdict:
    """float32 leaves only math and the memory-efficient backend: the checks that accept the float32 row of the dtype
    family are exactly those two."""
    return _only(ctx, "dtype", {EFFICIENT, MATH}, dtype="float32")


def _head_dim_512(ctx: Check) -> Verdict:
    """A head dimension of 512 leaves only math: the only check that accepts the head_dim 512 row of the head-dim
    family is math's."""
    grid = ctx.grid
    assert grid is not None
    b, h, s, _ = grid.base.shape
    return _only(ctx, "head_dim", {MATH}, shape=(b, h, s, 512))


def _train_256(ctx: Check) -> Verdict:
    """Training at head_dim 256 rules out flash: in the training family's head_dim 256 row, flash's check refuses or
    its call (forward and backward) fails, while flash trains the base case."""
    grid = ctx.grid
    assert grid is not None
    b, h, s, _ = grid.base.shape
    row = _row(ctx, "training", shape=(b, h, s, 256), requires_grad=True)
    base = _row(ctx, "training", requires_grad=True)
    if row is None or base is None:
        return _missing(ctx, "training", shape=(b, h, s, 256), requires_grad=True)
    flash, flash_base = row.answer.verdict(FLASH), base.answer.verdict(FLASH)
    trains = flash is not None and flash.accepts and flash.ran
    detail = _reasons(ctx, row.answer, [FLASH])
    if flash is not None and flash.accepts and not flash.ran and flash.call_reason:
        detail.append(ctx.t("elig.claim.reason", backend=view.backend_name(FLASH), reason=flash.call_reason))
    holds = not trains and flash_base is not None and flash_base.accepts and flash_base.ran
    return ctx.verdict(holds, _accepting(ctx, row), detail)


def _gqa_efficient(ctx: Check) -> Verdict:
    """The memory-efficient backend refuses grouped-query attention: its check refuses every row of the GQA family
    with fewer KV heads than query heads."""
    grid = ctx.grid
    assert grid is not None
    rows = [r for r in grid.family("gqa") if r.case.kv_heads is not None]
    if not rows:
        return _missing(ctx, "gqa", kv_heads=1)
    refused = [r for r in rows if (v := r.answer.verdict(EFFICIENT)) is not None and v.check == "refuses"]
    measured = ctx.t("sentence.sep").join(_accepting(ctx, r) for r in rows)
    return ctx.verdict(len(refused) == len(rows), measured, _reasons(ctx, rows[-1].answer, [EFFICIENT]))


def _picked_fused(ctx: Check, family: str, **fields: object) -> Verdict:
    """SDPA picks a fused backend for the row of ``family`` at ``fields``."""
    row = _row(ctx, family, **fields)
    if row is None:
        return _missing(ctx, family, **fields)
    a = row.answer
    pick = view.backend_name(a.pick) if a.pick else ctx.t("elig.note.pick", reason=a.pick_reason or "")
    measured = ctx.t("elig.claim.pick", condition=_condition(ctx, row), pick=pick)
    return ctx.verdict(a.pick in FUSED, measured, _accepting(ctx, row))


def _dropout(ctx: Check) -> Verdict:
    """Dropout keeps a fused backend: for the dropout row of the dropout family, SDPA's selector picks flash,
    memory-efficient or cuDNN, not math."""
    return _picked_fused(ctx, "dropout", dropout=_dropout_p(ctx))


def _dropout_p(ctx: Check) -> float:
    grid = ctx.grid
    assert grid is not None
    return next((r.case.dropout for r in grid.family("dropout") if r.case.dropout), 0.1)


def _nested(ctx: Check) -> Verdict:
    """Nested (jagged) tensors keep a fused backend: for the nested row without a mask, SDPA's selector picks flash,
    memory-efficient or cuDNN."""
    return _picked_fused(ctx, "layout", layout="nested", mask="none")


def _flash_first(ctx: Check) -> Verdict:
    """SDPA picks flash whenever flash accepts: in every condition of the map whose flash check accepts, SDPA's
    selector picks flash (each condition counted once)."""
    grid = ctx.grid
    assert grid is not None
    seen, accepted, other = set(), [], []
    for r in grid.rows:
        if r.case in seen:
            continue
        seen.add(r.case)
        v = r.answer.verdict(FLASH)
        if v is not None and v.accepts:
            accepted.append(r)
            if r.answer.pick != FLASH:
                other.append(r)
    measured = ctx.t("elig.claim.flash_picks", n=len(accepted), k=len(accepted) - len(other))
    items = [ctx.t("elig.claim.pick", condition=_condition(ctx, r), pick=view.backend_name(r.answer.pick or "?"))
             for r in other]  # fmt: skip
    detail = ctx.t("elig.claim.exceptions", items=ctx.t("list.semi").join(items)) if items else ""
    return ctx.verdict(bool(accepted) and not other, measured, detail)


def _agree(ctx: Check) -> Verdict:
    """The checks tell the truth: for every condition, each backend whose check accepts runs when forced, each one
    whose check refuses fails when forced, and the unforced call runs the backend SDPA's selector picks."""
    grid = ctx.grid
    assert grid is not None
    found = view.disagreements(grid, ctx.lang)
    confirmed = len({r.case for r in grid.rows if any(v.agrees is not None for v in r.answer.verdicts)})
    measured = ctx.t("elig.claim.agree", n=confirmed, d=len(found))
    return ctx.verdict(not found, measured, ctx.t("list.semi").join(found))


CLAIMS: tuple[Claim, ...] = tuple(
    Claim(claim_id, (), True, rule, "site", workload="eligibility")
    for claim_id, rule in (
        ("C40", _bool_mask_flash),
        ("C41", _float_mask),
        ("C42", _float32),
        ("C43", _head_dim_512),
        ("C44", _train_256),
        ("C45", _gqa_efficient),
        ("C46", _dropout),
        ("C47", _flash_first),
        ("C48", _nested),
        ("C49", _agree),
    )
)
