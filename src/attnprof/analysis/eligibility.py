"""What the eligibility map says: one view per family of conditions (each row's condition in words, every
backend's verdict, SDPA's pick, the fastest backend by the noise rule) with the reasons numbered once per table,
and the list of refusals per condition.

The page's directive, the gallery script's printed tables and ``attnprof why`` all read a grid through this module;
it opens no file and imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from attnprof import noise, variants, words
from attnprof.noise import Figure
from attnprof.records.eligibility import BACKENDS, Answer, Case, Grid, Verdict

#: The field whose value names a row of each family when the row is the base case itself.
FAMILY_FIELD: dict[str, str] = {
    "dtype": "dtype",
    "head_dim": "head_dim",
    "mask": "mask",
    "gqa": "kv_heads",
    "dropout": "dropout",
    "training": "head_dim",
    "layout": "layout",
    "batch": "batch",
}


def backend_name(backend: str) -> str:
    """The name sentences use for an ``SDPBackend`` (``"CUDNN_ATTENTION"`` -> ``"cuDNN"``), from the variant that
    forces it."""
    found = next((v for v in variants.VARIANTS.values() if v.backend == backend), None)
    return found.short if found is not None else backend


def field_words(name: str, value: Any, case: Case, lang: str | None) -> str:
    """One field of a case in words (``("mask", "bool")`` -> ``boolean mask``)."""
    if name in ("mask", "layout"):
        return words.text(f"elig.field.{name}.{value}", lang)
    if name == "kv_heads" and value is None:
        return words.text("elig.field.kv_heads.none", lang, heads=case.shape[1])
    if name == "dropout" and not value:
        return words.text("elig.field.dropout.none", lang)
    if name == "requires_grad":
        return words.text("elig.field.requires_grad" if value else "elig.field.requires_grad.none", lang)
    return words.text(f"elig.field.{name}", lang, value=f"{value:g}" if isinstance(value, float) else value)


def label(case: Case, base: Case, family: str, lang: str | None = None) -> str:
    """The condition of a row of ``family`` in words: what differs from ``base`` (training's own rows leave out that
    they train), or the base's value of the family's field, marked as the base."""
    differs = case.differs(base)
    if family == "training":
        differs.pop("requires_grad", None)
    if not differs:
        name = FAMILY_FIELD.get(family, "dtype")
        shown = field_words(name, case.flat()[name], case, lang)
        return words.text("elig.base", lang, label=shown)
    return words.text("elig.sep", lang).join(field_words(k, v, case, lang) for k, v in differs.items())


def describe(case: Case, lang: str | None = None) -> str:
    """A whole case in words: ``[4, 16, 1024, 64] bfloat16, is_causal=True, no GQA (16 KV heads), ...``."""
    rest = [field_words(k, getattr(case, k), case, lang) for k in ("kv_heads", "dropout", "layout", "requires_grad")]
    return words.text(
        "elig.case",
        lang,
        shape=list(case.shape),
        dtype=case.dtype,
        mask=field_words("mask", case.mask, case, lang),
        rest=words.text("elig.sep", lang).join(rest),
    )


@dataclass(frozen=True)
class Note:
    """A reason shown once under a table, numbered: a check's refusal, a failed call, or why SDPA picked none.

    Attributes:
        number: Its number in the table.
        backend: The ``SDPBackend`` it is about (``"pick"``: SDPA's selector).
        kind: ``"check"``, ``"call"`` or ``"pick"``.
        text: PyTorch's words (``None``: it gave none).
        failed: The names of the checks PyTorch says failed.
    """

    number: int
    backend: str
    kind: str
    text: str | None
    failed: tuple[str, ...] = ()

    def words(self, lang: str | None = None, shown: str | None = None) -> str:
        """The note in words (PyTorch's reason stays as PyTorch wrote it; ``shown`` stands for it when given)."""
        reason = (shown or self.text) if self.text else words.text("elig.note.silent", lang)
        if self.kind == "pick":
            return words.text("elig.note.pick", lang, reason=reason)
        key = "elig.note.call" if self.kind == "call" else "elig.note.check"
        line = words.text(key, lang, backend=backend_name(self.backend), reason=reason)
        if self.failed:
            line += words.text("elig.note.checks", lang, checks=", ".join(self.failed))
        return line


@dataclass
class MapRow:
    """One row of a family's table.

    Attributes:
        case: The condition.
        label: It in words.
        base: It is the base case.
        answer: Every backend's verdict.
        fastest: The backend with the lowest time, and every one whose band overlaps it (:func:`noise.extreme`);
            empty when fewer than two backends were timed.
        notes: Backend (or ``"pick"``) -> the number of its note.
    """

    case: Case
    label: str
    base: bool
    answer: Answer
    fastest: tuple[str, ...] = ()
    notes: dict[str, int] = field(default_factory=dict)


@dataclass
class FamilyView:
    """A family's table: its rows and the notes they point to."""

    family: str
    rows: list[MapRow]
    notes: list[Note]

    def title(self, lang: str | None = None) -> str:
        return words.text(f"elig.family.{self.family}", lang)


def floor(device: str) -> float:
    """The noise floor times are compared with: the GPU's or the CPU's (:mod:`attnprof.noise`)."""
    return noise.GPU_FLOOR if device == "cuda" else noise.CPU_FLOOR


def fastest(answer: Answer, device: str) -> tuple[str, ...]:
    """The fastest backend that ran, followed by those too close to call against it; ``()`` with fewer than two
    times."""
    times: dict[str, Figure] = {v.backend: v.time_ms for v in answer.verdicts if v.ran and v.time_ms is not None}
    if len(times) < 2:
        return ()
    return noise.extreme(times, floor(device))


def _note_of(v: Verdict) -> tuple[str, str | None, tuple[str, ...]] | None:
    """What a cell needs a note for: a refusal, a check that could not answer, or a failed call."""
    if v.check in ("refuses", "no_check", "error"):
        return ("check", v.reason, v.failed)
    if v.accepts and v.call not in (None, "ran"):
        return ("call", v.call_reason, ())
    return None


def family_view(grid: Grid, family: str, lang: str | None = None) -> FamilyView:
    """The table of ``family``: its rows, each reason numbered once (the same words in two rows share a number)."""
    notes: dict[tuple[str, str, str | None], Note] = {}
    rows = []
    for row in grid.family(family):
        shown = MapRow(row.case, label(row.case, grid.base, family, lang), row.case == grid.base, row.answer,
                       fastest(row.answer, grid.device))  # fmt: skip
        for v in row.answer.verdicts:
            need = _note_of(v)
            if need is None:
                continue
            kind, text, failed = need
            key = (v.backend, kind, text)
            if key not in notes:
                notes[key] = Note(len(notes) + 1, v.backend, kind, text, failed)
            shown.notes[v.backend] = notes[key].number
        if row.answer.pick is None and row.answer.unasked is None:
            key = ("pick", "pick", row.answer.pick_reason)
            if key not in notes:
                notes[key] = Note(len(notes) + 1, "pick", "pick", row.answer.pick_reason)
            shown.notes["pick"] = notes[key].number
        rows.append(shown)
    return FamilyView(family, rows, list(notes.values()))


def refusals(grid: Grid) -> list[tuple[str, str, list[tuple[str, str | None]]]]:
    """Per row with a refusal: ``(family, condition, [(backend, PyTorch's reason), ...])`` (English words), for the
    probe and the closing note. Rows repeated across families are listed once."""
    out, seen = [], set()
    for family in grid.families:
        for row in grid.family(family):
            refused = [(backend_name(v.backend), v.reason) for v in row.answer.verdicts if v.check == "refuses"]
            if refused and row.case not in seen:
                seen.add(row.case)
                out.append((family, label(row.case, grid.base, family), refused))
    return out


def disagreements(grid: Grid, lang: str | None = None) -> list[str]:
    """``condition: backend`` for every check that a real call contradicted (and ``pick`` where SDPA's selector
    named another backend than the unforced call ran), each condition once."""
    out, seen = [], set()
    for family in grid.families:
        for row in grid.family(family):
            if row.case in seen:
                continue
            seen.add(row.case)
            for what in row.answer.disagreements:
                name = backend_name(what) if what in BACKENDS else words.text("elig.col.pick", lang)
                out.append(f"{label(row.case, grid.base, family, lang)}: {name}")
    return out
