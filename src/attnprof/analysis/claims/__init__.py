"""Claims checked against the results of this build: the reference article's and this site's own.

The article ("Profiling in PyTorch (Part 3): Attention is all you profile", measured on an A100) makes seventeen
claims that a reader can check on their own GPU; the site adds its own guesses about the other workloads and about
context parallelism. Each claim is a :class:`Claim` (which results it needs, the part of the article it comes from,
and a rule that turns the results into a :class:`Verdict`); the modules of this package hold them by family:

* :mod:`.framework`: what a claim and a verdict are, and :class:`~.framework.Check`, what every rule works with.
* :mod:`.article_trace`: C1–C14, what a profiled step of the article's workload contains (counts, kernel names,
  launch APIs, occupancy).
* :mod:`.article_timing`: C15–C17, orderings of measured times, through the one comparison rule.
* :mod:`.workloads`: C18–C26, training, decoding and CUDA graphs.
* :mod:`.parallel`: C30–C34, the context-parallel run.
* :mod:`.eligibility`: C40–C49, which SDPA backend takes which inputs (the eligibility map).
* :mod:`.masks`: C50–C53, masks beyond causal (the mask run).

This module is the registry: every claim by id (the id is also the claim's key in the word table,
:mod:`attnprof.words.claims`), and the lookups. Verdicts are computed from the results every time; nothing is set by
hand. No module of the package imports torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attnprof.analysis.claims import article_timing, article_trace, eligibility, masks, parallel, workloads
from attnprof.analysis.claims.framework import (
    ABOUT_TOLERANCE,
    ARTICLE_URL,
    CHOICE_TOLERANCE,
    FORCED_BACKENDS,
    FUSED_BACKENDS,
    RATIO_TOLERANCE,
    SECTIONS,
    VERDICTS,
    Check,
    Claim,
    Verdict,
)
from attnprof.analysis.claims.parallel import memory_ratio
from attnprof.analysis.summary import Analysis
from attnprof.analysis.workload_rows import Build
from attnprof.records.eligibility import Grid
from attnprof.records.masks import MaskRun
from attnprof.records.parallel import ParallelRun
from attnprof.records.results import CpuCosts

__all__ = [
    "ABOUT_TOLERANCE",
    "ARTICLE_CLAIMS",
    "ARTICLE_URL",
    "CHOICE_TOLERANCE",
    "CLAIMS",
    "ELIGIBILITY_CLAIMS",
    "FORCED_BACKENDS",
    "FUSED_BACKENDS",
    "MASK_CLAIMS",
    "PARALLEL_CLAIMS",
    "RATIO_TOLERANCE",
    "SECTIONS",
    "VERDICTS",
    "WORKLOAD_CLAIMS",
    "Check",
    "Claim",
    "Verdict",
    "by_variant",
    "check",
    "check_all",
    "check_eligibility",
    "check_masks",
    "check_parallel",
    "get",
    "memory_ratio",
]

#: The claims about results, by id, C1 to C26: the article's, then this site's about the other workloads.
CLAIMS: dict[str, Claim] = {c.id: c for c in (*article_trace.CLAIMS, *article_timing.CLAIMS, *workloads.CLAIMS)}
#: The claims about the context-parallel run, by id, C30 to C34.
PARALLEL_CLAIMS: dict[str, Claim] = {c.id: c for c in parallel.CLAIMS}
#: The claims about the eligibility map (which backend takes which inputs), by id, C40 to C49.
ELIGIBILITY_CLAIMS: dict[str, Claim] = {c.id: c for c in eligibility.CLAIMS}
#: The claims about masks beyond causal, by id, C50 to C53.
MASK_CLAIMS: dict[str, Claim] = {c.id: c for c in masks.CLAIMS}

#: The claims about the article's workload (prefill), and about the others.
ARTICLE_CLAIMS: tuple[str, ...] = tuple(c.id for c in CLAIMS.values() if c.article)
WORKLOAD_CLAIMS: tuple[str, ...] = tuple(c.id for c in CLAIMS.values() if not c.article)


def get(claim_id: str) -> Claim:
    """The claim about results ``claim_id`` (``"C7"``; case-insensitive).

    Raises:
        KeyError: for an unknown id, listing the known ones.
    """
    try:
        return CLAIMS[claim_id.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown claim {claim_id!r}; choose one of: {', '.join(CLAIMS)}") from None


def check(
    claim_id: str,
    results: Mapping[str, Analysis],
    lang: str | None = None,
    cpu: CpuCosts | None = None,
    build: Build | None = None,
) -> Verdict:
    """Check one claim about results; see :meth:`Claim.check`."""
    return get(claim_id).check(results, lang, cpu, build)


def check_all(
    results: Mapping[str, Analysis],
    lang: str | None = None,
    cpu: CpuCosts | None = None,
    build: Build | None = None,
) -> list[Verdict]:
    """Check every claim about results, C1 to C26."""
    return [c.check(results, lang, cpu, build) for c in CLAIMS.values()]


def check_parallel(run: ParallelRun | None, lang: str | None = None) -> list[Verdict]:
    """Check every context-parallelism claim, C30 to C34, against ``run``."""
    return [c.check(lang=lang, run=run) for c in PARALLEL_CLAIMS.values()]


def check_eligibility(grid: Grid | None, lang: str | None = None) -> list[Verdict]:
    """Check every eligibility claim, C40 to C49, against the map ``grid``."""
    return [c.check(lang=lang, grid=grid) for c in ELIGIBILITY_CLAIMS.values()]


def by_variant(analyses: Iterable[Analysis]) -> dict[str, Analysis]:
    """``{variant: analysis}``; for a variant given twice, a result that ran wins over one that did not, then the
    first."""
    out: dict[str, Analysis] = {}
    for a in analyses:
        if a.variant not in out or (a.result.ok and not out[a.variant].result.ok):
            out[a.variant] = a
    return out


def check_masks(run: MaskRun | None, lang: str | None = None) -> list[Verdict]:
    """Check every claim about masks beyond causal, C50 to C53, against ``run``."""
    return [c.check(lang=lang, masks=run) for c in MASK_CLAIMS.values()]
