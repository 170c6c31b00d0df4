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

The claim and its verdict come first, so that they stay in view when the table scrolls sideways.

A missing or stale result of a variant a claim needs is a warning, like everywhere else. The claims about the other
workloads (C18-) read the whole build (:func:`.lookup.find_build`); a table of those alone heads its second column
"our guess" instead of "published".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from attnprof.analysis import claims
from attnprof.analysis.summary import Analysis
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import AttnprofDirective, para, with_recorded

#: Claims about CPU time: they use the side-by-side CPU-cost measurement when the build has one.
CPU_CLAIMS = frozenset({"C16", "C17"})


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
            texts = (verdict.measured, verdict.detail, verdict.reason)
            measured = [para(*with_recorded(t, recorded_reasons, self.lang)) for t in texts if t]
            cells = [
                [self.claim_cell(claim.id), self.source_cell(claim)],
                para(
                    self.say(f"verdict.{verdict.verdict}"),
                    classes=["attnprof-verdict", f"attnprof-verdict-{verdict.verdict}"],
                ),
                claim.published(self.lang),
                measured or self.say("not_available"),
            ]
            if self.full:
                cells.insert(2, statements.get(claim.id, []))
            body.append(cells)
        # the article's claims have a published figure; this site's own (C18-) have a guess
        published = "col.guess" if chosen and not article else "col.published"
        keys = ["col.claim", "col.verdict", published, "col.measured"]
        if self.full:
            keys.insert(2, "col.statement")
        css = ["attnprof-claims-table", "attnprof-claims-full" if self.full else "attnprof-claims"]
        return [self.table(keys, body, css, key=(0, 1)), *out]

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


def setup_claims(app: Sphinx) -> None:
    """Register the claims directives."""
    app.add_directive("claims", Claims)
    app.add_directive("claims-table", ClaimsTable)
