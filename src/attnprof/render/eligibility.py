"""The eligibility map as text: each family's table with its numbered reasons (what the gallery script prints), and
one set of inputs backend by backend (what ``attnprof why`` prints). The words of a cell are shared with the page's
directive (:mod:`attnprof.sphinxext.eligibility`)."""

from __future__ import annotations

import re

from attnprof import words
from attnprof.analysis import eligibility as view
from attnprof.analysis.eligibility import FamilyView, MapRow
from attnprof.records.eligibility import BACKENDS, Answer, Grid, Verdict
from attnprof.render.report import table
from attnprof.words import fmt

#: A message that already says what kind it is (``RuntimeError: ...``, ``UserWarning: ...``).
_KIND = re.compile(r"^[A-Za-z_.]*(?:Error|Exception|Warning): ")


def recorded(reason: str) -> str:
    """PyTorch's words as printed text: each message that does not say its kind (an exception's name) is a
    warning PyTorch gave, and is marked as PyTorch's (``PyTorch: ...``), so that a reader of any language sees where
    PyTorch's own words begin. Not ``Warning: ...``, as PyTorch logs it: on a page, that reads as a warning that
    leaked from the build (:mod:`attnprof.site.outputs`)."""
    return " | ".join(part if _KIND.match(part) else f"PyTorch: {part}" for part in reason.split(" | "))


def reason_words(v: Verdict, lang: str | None = None) -> str:
    """Why a check did not accept, as printed text: PyTorch's words, or attnprof's for a check it did not ask."""
    if v.check == "cuda_only":
        return words.text("elig.reason.cuda_only", lang)
    if v.check == "no_check":
        return words.text("elig.reason.no_check", lang, asked=v.asked or "")
    if not v.reason:
        return words.text("elig.note.silent", lang)
    return recorded(v.reason)


def time_words(v: Verdict) -> str:
    """A backend's measured time, ``0.123 ms``, or ``""``."""
    return "" if v.time_ms is None else fmt.unit(fmt.number(v.time_ms.median), "ms")


def cell(v: Verdict | None, note: int | None, lang: str | None = None) -> str:
    """One backend's cell: ``✓ 0.123 ms``, ``✗ refuses (2)``, a disagreement between check and call, ``CUDA
    only``."""
    if v is None:
        return ""
    n = note if note is not None else "?"
    if v.check == "cuda_only":
        return words.text("elig.cell.cuda_only", lang)
    if v.check in ("no_check", "error"):
        key = "elig.cell.no_check" if v.check == "no_check" else "elig.cell.error"
        return words.text(key, lang, note=n)
    if v.check == "no_cuda":
        return words.text("elig.check.no_cuda", lang)
    if v.accepts and v.call not in (None, "ran"):
        return words.text("elig.cell.check_yes_call_no", lang, note=n)
    if not v.accepts and v.ran:
        return words.text("elig.cell.check_no_call_yes", lang, note=n)
    if not v.accepts:
        return words.text("elig.cell.refuses", lang, note=n)
    time = time_words(v)
    return words.text("elig.cell.ran", lang, time=time) if time else words.text("elig.cell.ran_untimed", lang)


def pick(answer: Answer, note: int | None, lang: str | None = None) -> str:
    """SDPA's pick: ``flash``; ``none (3)``; ``flash, but the call ran math``."""
    if answer.pick is None:
        return words.text("elig.pick.none", lang, note=note if note is not None else "?")
    name = view.backend_name(answer.pick)
    if answer.ran is not None and answer.ran != answer.pick:
        return words.text("elig.pick.ran_other", lang, pick=name, ran=view.backend_name(answer.ran))
    return name


def fastest(row: MapRow, lang: str | None = None) -> str:
    """``flash``, or ``flash ≈ cuDNN`` when their bands overlap; ``""`` with fewer than two times."""
    return words.text("elig.fastest.tie", lang).join(view.backend_name(b) for b in row.fastest)


def backends_of(grid: Grid) -> tuple[str, ...]:
    """The backends a grid's tables show: all four on CUDA, the CPU's two on the CPU."""
    if grid.device == "cuda":
        return BACKENDS
    return tuple(b for b in BACKENDS if any(r.answer.verdict(b) and r.answer.verdict(b).check != "cuda_only"
                                            for r in grid.rows))  # fmt: skip


def headers(grid: Grid, lang: str | None = None) -> list[str]:
    """Condition, one column per backend, SDPA's pick, the fastest."""
    return [words.text("elig.col.condition", lang), *(view.backend_name(b) for b in backends_of(grid)),
            words.text("elig.col.pick", lang), words.text("elig.col.fastest", lang)]  # fmt: skip


def row_cells(grid: Grid, row: MapRow, lang: str | None = None) -> list[str]:
    """A row's cells after the condition, in :func:`headers` order."""
    cells = [cell(row.answer.verdict(b), row.notes.get(b), lang) for b in backends_of(grid)]
    return [*cells, pick(row.answer, row.notes.get("pick"), lang), fastest(row, lang)]


def family_table(grid: Grid, family: FamilyView, lang: str | None = None) -> str:
    """A family's table and its numbered reasons, as text."""
    rows = [[r.label, *row_cells(grid, r, lang)] for r in family.rows]
    lines = [family.title(lang), table(headers(grid, lang), rows)]
    lines += [f"  ({n.number}) {n.words(lang, recorded(n.text) if n.text else None)}" for n in family.notes]
    return "\n".join(lines)


def grid_report(grid: Grid, lang: str | None = None) -> str:
    """The whole map: the base case, how times were taken, each family's table, and where checks and calls
    disagreed."""
    if grid.unasked is not None:
        return words.text("elig.unasked.no_cuda", lang, reason=grid.unasked_reason)
    timer = words.text_or(f"elig.timer.{grid.timer}", grid.timer, lang)
    parts = [
        words.text("elig.base_line", lang, case=view.describe(grid.base, lang)),
        words.text("elig.timing_line", lang, reps=int(grid.plan.get("reps", 0)), timer=timer),
        words.text("why.first_only", lang),
    ]
    if grid.device == "cpu":
        parts.append(words.text("elig.note.cuda_only", lang))
    parts += [family_table(grid, view.family_view(grid, f, lang), lang) for f in grid.families]
    found = view.disagreements(grid, lang)
    parts.append(
        words.text("elig.disagree", lang, cases="; ".join(found)) if found else words.text("elig.agree", lang)
    )
    return "\n\n".join(parts)


def why_report(answer: Answer, described: str, lang: str | None = None) -> str:
    """One set of inputs, backend by backend: the check, the call, the time, PyTorch's reason; then SDPA's pick and
    what the unforced call ran."""
    head = words.text("why.inputs", lang, case=described, device=answer.device)
    if answer.unasked is not None:
        return f"{head}\n{words.text('why.unasked', lang, reason=answer.unasked_reason)}"
    rows = []
    for v in answer.verdicts:
        reason = "" if v.accepts else reason_words(v, lang)
        if v.call not in (None, "ran") and v.call_reason and (v.accepts or not v.reason):  # what the check left out
            reason = " | ".join(filter(None, [reason, recorded(v.call_reason)]))
        if v.failed:
            reason += words.text("elig.note.checks", lang, checks=", ".join(v.failed))
        if v.call in (None, "ran"):
            call = words.text(f"elig.call.{v.call or 'none'}", lang)
        else:
            call = words.text_or(f"status.{v.call}", v.call, lang)
        rows.append([view.backend_name(v.backend), words.text(f"elig.check.{v.check}", lang), call,
                     time_words(v), reason])  # fmt: skip
    keys = ("elig.col.backend", "elig.col.check", "elig.col.call", "elig.col.time", "elig.col.reason")
    lines = [head, "", table([words.text(k, lang) for k in keys], rows), ""]
    if answer.pick is not None:
        lines.append(words.text("why.pick", lang, pick=view.backend_name(answer.pick)))
    else:
        lines.append(words.text("why.pick", lang, pick=words.text("elig.note.pick", lang,
                                                                  reason=answer.pick_reason or "")))  # fmt: skip
    if answer.ran is not None:
        lines.append(words.text("why.ran", lang, ran=view.backend_name(answer.ran)))
    elif answer.ran_reason:
        lines.append(words.text("why.ran_failed", lang, reason=answer.ran_reason))
    lines.append(words.text("why.first_only", lang))
    return "\n".join(lines)


def check_line(answer: bool, reason: str | None, lang: str | None = None) -> str:
    """What the gallery script's check answered, and the reason attnprof read from standard error."""
    said = reason or words.text("elig.note.silent", lang)
    return "\n".join([words.text("elig.script.check", lang, answer=answer),
                      words.text("elig.script.reason", lang, reason=recorded(said) if reason else said)])  # fmt: skip


def forced_lines(error: BaseException | None, warned: list[tuple[str, str]], lang: str | None = None) -> str:
    """What a call with one backend forced did: it ran, or the error it raised; then each warning PyTorch gave, as
    ``(category, message)`` pairs (``("UserWarning", "...")``): its message, not its category, which would read like
    a warning that leaked onto the page (:mod:`attnprof.site.outputs`)."""
    first = str(error).strip().splitlines()[0] if error is not None and str(error).strip() else ""
    raised = f"{type(error).__name__}: {first}"
    lines = [words.text("elig.script.raised", lang, error=raised) if error else words.text("elig.script.ran", lang)]
    for _category, message in warned:
        text = message.split(" (Triggered internally")[0]
        lines.append(words.text("elig.script.warning", lang, text=text))
    return "\n".join(lines)
