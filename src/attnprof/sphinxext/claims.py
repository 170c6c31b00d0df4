"""The reference article's claims checked against this build (:mod:`attnprof.analysis.claims`).

``claims [ID ...]``
    One row per claim (the article's, C1-C17, when none are named): its id (linked to its row in the
    ``claims-table``) and the part of the article it comes from (linked to the article), the verdict, the published
    figure (or, for this site's own claims, its guess), and what this build measured (with the detail, or why it
    could not be checked).
``claims-table [ID ...]``
    The full table, with the claims in brief from the content (after the verdict): a bullet list of ``C<n>: text``
    items, one per claim shown (a missing one is a warning), translated with the page. Each row is a link target
    (``claim-c1`` ...) that the ``claims`` directive on other pages links to.

The claims about one kind of record file (the eligibility map's C40–C49, the mask run's C50–C53, the
context-parallel run's C30–C34) are each a :class:`FamilyClaims` directive of its family's module: one row per
claim, checked against that file (unmeasurable, with the reason, without one).

Every claims table is built the same way (:func:`verdict_cell`, :func:`measured_cell`, :func:`claims_table`): the
claim and its verdict come first, so that they stay in view when the table scrolls sideways, and PyTorch's reasons
recorded in the files are marked as recorded wherever a verdict quotes them.

A missing or stale result of a variant a claim needs is a warning, like everywhere else. The claims about the other
workloads (C18-) read the whole build (:func:`.lookup.find_build`); a table of those alone heads its second column
"our guess" instead of "published".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from attnprof.analysis import claims
from attnprof.analysis.summary import Analysis
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import AttnprofDirective, RecordDirective, para, with_recorded

T = TypeVar("T")

#: Claims about CPU time: they use the side-by-side CPU-cost measurement when the build has one.
CPU_CLAIMS = frozenset({"C16", "C17"})


def verdict_cell(directive: AttnprofDirective, verdict: claims.Verdict) -> nodes.paragraph:
    """The verdict in the page's words, classed by what it is (held, differs, unmeasurable, too close to call)."""
    return para(directive.say(f"verdict.{verdict.verdict}"),
                classes=["attnprof-verdict", f"attnprof-verdict-{verdict.verdict}"])  # fmt: skip


def measured_cell(directive: AttnprofDirective, verdict: claims.Verdict, recorded: Sequence[str]) -> list[nodes.Node]:
    """What this build measured, the detail and why it could not be checked, with every reason of ``recorded``
    (PyTorch's, as the files keep them) marked as recorded."""
    texts = (verdict.measured, verdict.detail, verdict.reason)
    return [para(*with_recorded(t, recorded, directive.lang)) for t in texts if t]


def claims_table(directive: AttnprofDirective, keys: Sequence[str], body: Sequence[Sequence[Any]],
                 css: Sequence[str]) -> nodes.table:  # fmt: skip
    """A claims table: the claim and the verdict first, in view when it scrolls sideways."""
    return directive.table(keys, body, ["attnprof-claims-table", *css], key=(0, 1))


class Claims(AttnprofDirective):
    """``claims [ID ...]``: claims (the article's when none are named) checked against this build."""

    optional_arguments = len(claims.CLAIMS)
    has_content = False
    #: The full table: a statement column, and a link target for every row.
    full: ClassVar[bool] = False

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        chosen: list[claims.Claim] = []
        for claim_id in self.arguments or list(claims.ARTICLE_CLAIMS):
            try:
                chosen.append(claims.get(claim_id))
            except KeyError as exc:
                out += self.problem(lookup.warn(str(exc.args[0]), "claim", self.get_location()))
        statements: dict[str, list[nodes.Node]] = {}
        if self.full:
            statements, problems = self.items([c.id for c in chosen], "claim")
            out += problems
            missing = [c.id for c in chosen if c.id not in statements]
            if missing:
                out += self.bad_content(f"{self.name} has no statement for {', '.join(missing)}")
        article = [c for c in chosen if c.article]
        found = self.results_for(article, out)
        cpu = self.cpu_costs() if any(c.id in CPU_CLAIMS for c in chosen) else None
        others = tuple(dict.fromkeys(c.workload for c in chosen if c not in article))
        build = lookup.find_build(self.env, self.get_location(), others) if others else None
        body = []
        recorded_reasons = [a.result.reason for a in found.values() if a.result.reason]
        for claim in chosen:
            verdict = claim.check(found, self.lang, cpu, build)
            cells = [
                [self.claim_cell(claim.id), self.source_cell(claim)],
                verdict_cell(self, verdict),
                claim.published(self.lang),
                measured_cell(self, verdict, recorded_reasons) or self.say("not_available"),
            ]
            if self.full:
                cells.insert(2, statements.get(claim.id, []))
            body.append(cells)
        # the article's claims have a published figure; this site's own (C18-) have a guess
        published = "col.guess" if chosen and not article else "col.published"
        keys = ["col.claim", "col.verdict", published, "col.measured"]
        if self.full:
            keys.insert(2, "col.statement")
        return [claims_table(self, keys, body, ["attnprof-claims-full" if self.full else "attnprof-claims"]), *out]

    def claim_cell(self, claim_id: str) -> nodes.Node:
        """The claim's id: a link target in the full table, a link to that target elsewhere."""
        name = f"claim-{claim_id.lower()}"
        text = nodes.strong("", claim_id)
        if self.full:
            target = nodes.target("", "", ids=[name], names=[name])
            self.state.document.note_explicit_target(target)
            return para(target, text)
        # no warning when the site has no claims-table: the id then stays plain text
        return para(
            addnodes.pending_xref(
                "", text, refdomain="std", reftype="ref", reftarget=name, refexplicit=True, refwarn=False
            )
        )

    def source_cell(self, claim: claims.Claim) -> nodes.paragraph:
        """The part of the article the claim comes from, named in words and linked to the article."""
        section = claim.source(self.lang)
        if claim.section == "site":  # not from the article: nothing to link
            return para(section, classes=["attnprof-claim-source"])
        link = nodes.reference("", section, refuri=claims.ARTICLE_URL, classes=["attnprof-claim-source"])
        return para(link, classes=["attnprof-claim-source"])

    def results_for(self, chosen: Sequence[claims.Claim], out: list[nodes.Node]) -> dict[str, Analysis]:
        """Analysed results of the variants the claims use; required ones warn when missing, optional ones do
        not."""
        found: dict[str, Analysis] = {}
        required = {v for c in chosen for v in c.variants}
        for variant in dict.fromkeys(v for c in chosen for v in (*c.variants, *c.optional)):
            if variant not in required and not lookup.has_result(self.env, variant):
                continue
            hit = self.find(variant)
            if hit.analysis is not None:
                found[variant] = hit.analysis
            else:
                out += self.problem(hit.problem)
        return found


class ClaimsTable(Claims):
    """``claims-table [ID ...]``: the full claims table, with the claims in brief from the content."""

    has_content = True
    full = True


class FamilyClaims(RecordDirective[T]):
    """The claims of one family about one kind of record file (:attr:`family`, checked with the file as the
    ``evidence`` keyword of :meth:`attnprof.analysis.claims.Claim.check`): a row per claim, its verdict, its
    statement and what the file says. Built without the file too: each verdict then says why it is unmeasurable,
    under the warning box."""

    has_content = False
    #: The claims, by id.
    family: ClassVar[Mapping[str, claims.Claim]]
    #: The keyword under which :meth:`attnprof.analysis.claims.Claim.check` takes the file's record.
    evidence: ClassVar[str]
    #: The table's own CSS class.
    css: ClassVar[str]

    def build(self, record: T) -> list[nodes.Node]:
        return self.rows_of(record)

    def without(self, problem: str | None) -> list[nodes.Node]:
        return self.rows_of(None, self.problem(problem))

    def rows_of(self, record: T | None, problems: Sequence[nodes.Node] = ()) -> list[nodes.Node]:
        """The table of the family's claims checked against ``record`` (or against nothing), then ``problems`` and
        the :meth:`notes`."""
        recorded = self.recorded(record) if record is not None else []
        body = []
        for claim in self.family.values():
            verdict = claim.check(lang=self.lang, **{self.evidence: record})
            body.append([nodes.strong("", claim.id), verdict_cell(self, verdict), claim.statement(self.lang),
                         measured_cell(self, verdict, recorded)])  # fmt: skip
        keys = ["col.claim", "col.verdict", "col.statement", "col.measured"]
        table = claims_table(self, keys, body, ["attnprof-claims-full", self.css])
        return [table, *problems, *self.notes(record)]

    def recorded(self, record: T) -> list[str]:
        """PyTorch's messages the record keeps (marked as recorded where a verdict quotes them)."""
        return []

    def notes(self, record: T | None) -> list[nodes.Node]:
        """What the page shows under the table besides a warning box."""
        return []


def setup_claims(app: Sphinx) -> None:
    """Register the claims directives."""
    app.add_directive("claims", Claims)
    app.add_directive("claims-table", ClaimsTable)
