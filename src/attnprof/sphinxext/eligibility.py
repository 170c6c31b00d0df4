"""The eligibility map (:mod:`attnprof.records.eligibility`): which SDPA backend takes which inputs, and why.

``eligibility-table``
    One family of conditions (``:family:``, one of the grid's: ``dtype``, ``head_dim``, ``mask``, ``gqa``,
    ``dropout``, ``training``, ``layout``, ``batch``; the page's heading names it, ``:caption:`` gives the table a
    title): a row per condition, the condition first (it stays in view when
    the table scrolls sideways), then each backend's verdict and time, SDPA's pick and the fastest; PyTorch's
    reasons numbered under the table, as PyTorch wrote them.
``eligibility-claims``
    This site's claims about the map, C40–C49 (:data:`attnprof.analysis.claims.ELIGIBILITY_CLAIMS`), with this
    build's verdicts (unmeasurable, with the reason, on a build without a GPU or without a map).
``eligibility-summary``
    What the map measured: the base case every row varies, how times were taken, that a check names only its first
    failed condition, what the CPU can say (on a CPU build), and whether every check agreed with its real call.

Each is drawn from the map (:class:`attnprof.sphinxext.nodes.RecordDirective`; the claims:
:class:`attnprof.sphinxext.claims.FamilyClaims`) and its analysis (:mod:`attnprof.analysis.eligibility`); cells are
worded by :mod:`attnprof.render.eligibility`.
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from attnprof.analysis import claims
from attnprof.analysis import eligibility as view
from attnprof.records import eligibility
from attnprof.records.eligibility import Grid
from attnprof.render import eligibility as cells
from attnprof.sphinxext import lookup
from attnprof.sphinxext.claims import FamilyClaims
from attnprof.sphinxext.nodes import TABLE_OPTIONS, RecordDirective, build_table, para, reason_node, words_para


class GridDirective(RecordDirective[Grid]):
    """What the eligibility directives share: the grid (or a problem box), or the note of a map not asked."""

    kind = eligibility.KIND

    def pick(self, found: lookup.Found[Grid]) -> tuple[Grid | None, list[nodes.Node]]:
        grid, instead = super().pick(found)
        if grid is not None and grid.unasked is not None:
            text = self.say("elig.unasked.no_cuda", reason=grid.unasked_reason or "")
            return None, [nodes.note("", para(text), classes=["attnprof-not-run"])]
        return grid, instead


class EligibilityTable(GridDirective):
    """``eligibility-table``: one family of conditions, a row each, with PyTorch's reasons numbered under it."""

    has_content = False
    option_spec: ClassVar = {**TABLE_OPTIONS, "family": directives.unchanged_required}

    def build(self, grid: Grid) -> list[nodes.Node]:
        family = self.options.get("family", "")
        if family not in grid.families:
            message = f"eligibility-table: no family {family!r} in the map; choose one of: {', '.join(grid.families)}"
            return self.problem(lookup.warn(message, "family", self.get_location()))
        shown = view.family_view(grid, family, self.lang)
        body = [[r.label, *cells.row_cells(grid, r, self.lang)] for r in shown.rows]
        classes = ["attnprof-eligibility-table", *self.options.get("class", [])]
        table = build_table(cells.headers(grid, self.lang), body, classes=classes, title=self.caption_title())
        out: list[nodes.Node] = [self.finish(table)]
        if shown.notes:
            listed = nodes.enumerated_list(classes=["attnprof-eligibility-notes"])
            for note in shown.notes:
                item = nodes.list_item()
                item += para(*_note_nodes(note, self.lang))
                listed += item
            out.append(listed)
        return out


def _note_nodes(note: view.Note, lang: str | None) -> list[nodes.Node | str]:
    """A note's words with PyTorch's reason marked as recorded (it stays as PyTorch wrote it)."""
    if not note.text:
        return [note.words(lang)]
    text = note.words(lang)
    at = text.find(note.text)
    if at < 0:
        return [text]
    return [text[:at], reason_node(note.text, lang), text[at + len(note.text) :]]


class EligibilitySummary(GridDirective):
    """``eligibility-summary``: what the map measured, how, and whether checks and calls agreed."""

    has_content = False
    option_spec: ClassVar = {}

    def build(self, grid: Grid) -> list[nodes.Node]:
        lang = self.lang
        timer = self.say(f"elig.timer.{grid.timer}") if grid.timer else ""
        out = [
            words_para("elig.base_line", lang, case=view.describe(grid.base, lang)),
            words_para("elig.timing_line", lang, reps=str(int(grid.plan.get("reps", 0))), timer=timer),
            words_para("why.first_only", lang),
        ]
        if grid.device == "cpu":
            out.append(words_para("elig.note.cuda_only", lang))
        found = view.disagreements(grid, lang)
        agreed = words_para("elig.agree", lang)
        out.append(words_para("elig.disagree", lang, cases="; ".join(found)) if found else agreed)
        return out


class EligibilityClaims(FamilyClaims[Grid]):
    """``eligibility-claims``: C40–C49 checked against this build's map."""

    kind = eligibility.KIND
    family = claims.ELIGIBILITY_CLAIMS
    evidence = "grid"
    css = "attnprof-eligibility-claims"

    def recorded(self, grid: Grid) -> list[str]:
        return _messages(grid)


def _messages(grid: Grid) -> list[str]:
    """Every message PyTorch gave in the map (they stay as written on every page)."""
    found = {grid.unasked_reason or ""}
    for row in grid.rows:
        a = row.answer
        found |= {a.pick_reason or "", a.ran_reason or "", a.unasked_reason or ""}
        found |= {m for v in a.verdicts for m in (v.reason or "", v.call_reason or "")}
    return sorted(m for m in found if m)


def setup_eligibility(app: Sphinx) -> None:
    """Register the eligibility directives."""
    app.add_directive("eligibility-table", EligibilityTable)
    app.add_directive("eligibility-summary", EligibilitySummary)
    app.add_directive("eligibility-claims", EligibilityClaims)
