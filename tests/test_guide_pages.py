"""The claims and occupancy pages of the guide, built as they are in docs/guide against results made from the real
H200 traces, in English and Japanese: warnings-free, every claim with its statement, links from a variant page to
the claims' rows, and verdicts that match attnprof.analysis.claims."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from docutils import nodes

from attnprof import words
from attnprof.analysis import claims
from attnprof.noise import Figure
from helpers import TRACE_VARIANTS, analysed_build, fixed_costs, workload_build

DOCS = Path(__file__).parent.parent / "docs"
#: The build's one forcing cost and the profiler's cost per op, which the methodology and claims pages cite (test
#: inputs: the recordings did not time them).
FIXED = fixed_costs(Figure(8.01, 7.93, 8.12, 20), per_op=Figure(1.5, 1.4, 1.6, 8))
INDEX = """\
# Site

```{toctree}
guide/claims
guide/occupancy
guide/methodology
guide/scaling
guide/training
guide/decoding
variants/sdpa-flash
```
"""


@pytest.fixture
def site(built_once) -> Callable:
    """``site(language) -> app``: the guide's claims and occupancy pages (and what they link to), built."""
    pages = {f"guide/{p}.md": (DOCS / "guide" / f"{p}.md").read_text() for p in ("claims", "occupancy",
                                                                              "methodology")}  # fmt: skip
    for stub in ("scaling", "training", "decoding"):
        pages[f"guide/{stub}.md"] = f"# {stub.title()}\n\nStub.\n"
    # a variant page that uses the claims directive, without its other directives
    pages["variants/sdpa-flash.md"] = "# Flash\n\n```{claims} C9 C10 C12 C15\n```\n"
    pages["index.md"] = INDEX
    return lambda language: built_once(pages, TRACE_VARIANTS, language=language, workloads=True, fixed=FIXED)


def _rows(app, doc: str, cls: str) -> list[list[str]]:
    """The body rows of every table of ``doc`` with class ``cls``, one table after the other."""
    found = [t for t in app.env.get_doctree(doc).findall(nodes.table) if cls in t["classes"]]
    assert found, f"no table {cls} in {doc}"
    return [[c.astext() for c in row] for t in found for row in next(iter(t.findall(nodes.tbody))).children]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_claims_page_has_every_claim_with_a_statement_and_a_computed_verdict(site, language):
    app = site(language)
    assert app.warning.getvalue() == ""
    rows = _rows(app, "guide/claims", "attnprof-claims-full")
    assert len(rows) == len(claims.CLAIMS) == 26
    h200 = analysed_build()
    for row, (claim_id, claim) in zip(rows, claims.CLAIMS.items(), strict=True):
        # the claim and its verdict first (they stay in view when the table scrolls), then the rest
        assert row[0].split()[0] == claim_id and claim.source(language) in row[0]
        verdict = claim.check(h200, language, None, workload_build())
        assert row[1] == words.text(f"verdict.{verdict.verdict}", language)
        assert len(row[2]) > 40, f"{claim_id} has no statement"  # the page's own sentence
        assert row[3] == claim.published(language)
        assert verdict.measured in row[4]
    page = (Path(app.outdir) / "guide" / "claims.html").read_text(encoding="utf-8")
    assert all(f'id="claim-c{n}"' in page for n in range(1, 27))


def test_variant_page_links_each_claim_to_its_row(site):
    app = site("en")
    assert app.warning.getvalue() == ""
    assert [r[0].split()[0] for r in _rows(app, "variants/sdpa-flash", "attnprof-claims")] == [
        "C9",
        "C10",
        "C12",
        "C15",
    ]
    page = (Path(app.outdir) / "variants" / "sdpa-flash.html").read_text(encoding="utf-8")
    for n in (9, 10, 12, 15):
        assert f'href="../guide/claims.html#claim-c{n}"' in page


@pytest.mark.parametrize("language", ["en", "ja"])
def test_occupancy_page_computes_its_verdict(site, language):
    app = site(language)
    assert app.warning.getvalue() == ""
    # one row per kernel and launch configuration: 31 kernel names, two of them launched with two grids each
    assert len(_rows(app, "guide/occupancy", "attnprof-occupancy-table")) == 33
    hypotheses = _rows(app, "guide/occupancy", "attnprof-hypotheses-table")
    assert [r[0].split()[0] for r in hypotheses] == ["H1", "H2", "H3", "H1", "H1", "H2", "H1"]
    page = (Path(app.outdir) / "guide" / "occupancy.html").read_text(encoding="utf-8")
    assert "H2 + H3" in page and "compiled_naive" in page
    assert words.text("col.counterexamples", language) in page
