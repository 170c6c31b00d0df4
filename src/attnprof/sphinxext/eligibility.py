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

Both read the grid through :func:`attnprof.sphinxext.lookup.find_record` and its analysis
(:mod:`attnprof.analysis.eligibility`); cells are worded by :mod:`attnprof.render.eligibility`.
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
from attnprof.sphinxext.nodes import (
    TABLE_OPTIONS,
    AttnprofDirective,
    build_table,
    para,
    reason_node,
    with_recorded,
    words_para,
)


class GridDirective(AttnprofDirective):
    """What the eligibility directives share: the grid, or a problem box."""

    def load(self) -> tuple[Grid | None, list[nodes.Node]]:
        found = lookup.find_record(self.env, eligibility.KIND, self.get_location())
        return found.value, [] if found.value is not None else self.problem(found.problem)

    def unasked(self, grid: Grid) -> list[nodes.Node]:
        text = self.say("elig.unasked.no_cuda", reason=grid.unasked_reason or "")
        return [nodes.note("", para(text), classes=["attnprof-not-run"])]


class EligibilityTable(GridDirective):
    """``eligibility-table``: one family of conditions, a row each, with PyTorch's reasons numbered under it."""

    has_content = False
    option_spec: ClassVar = {**TABLE_OPTIONS, "family": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        grid, problems = self.load()
        if grid is None:
            return problems
        if grid.unasked is not None:
            return self.unasked(grid)
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

    def run(self) -> list[nodes.Node]:
        grid, problems = self.load()
        if grid is None:
            return problems
        if grid.unasked is not None:
            return self.unasked(grid)
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


class EligibilityClaims(GridDirective):
    """``eligibility-claims``: C40–C49 checked against this build's map."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        found = lookup.find_record(self.env, eligibility.KIND, self.get_location())
        out = self.problem(found.problem) if found.value is None else []
        body = []
        recorded = _messages(found.value) if found.value is not None else []
        for v, claim in zip(claims.check_eligibility(found.value, self.lang), claims.ELIGIBILITY_CLAIMS.values(),
                            strict=True):  # fmt: skip
            measured = [para(*with_recorded(t, recorded, self.lang)) for t in (v.measured, v.detail, v.reason) if t]
            verdict = para(self.say(f"verdict.{v.verdict}"),
                           classes=["attnprof-verdict", f"attnprof-verdict-{v.verdict}"])  # fmt: skip
            body.append([nodes.strong("", claim.id), verdict, claim.statement(self.lang), measured])
        # the claim and its verdict first, in view when the table scrolls sideways (as the article's claims)
        keys = ["col.claim", "col.verdict", "col.statement", "col.measured"]
        css = ["attnprof-claims-table", "attnprof-claims-full", "attnprof-eligibility-claims"]
        return [self.table(keys, body, css, key=(0, 1)), *out]


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
