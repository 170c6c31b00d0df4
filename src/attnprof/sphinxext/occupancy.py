"""Occupancy across the build: reported against theoretical for every kernel, and the 0% explanations tested.

``occupancy-table [VARIANT ...]``
    Reported against theoretical occupancy for every kernel of the variants (all when none are named), from
    :func:`attnprof.analysis.zero_occupancy.kernel_occupancies`. A reported 0% is marked (class
    ``attnprof-occ-zero``).
``occupancy-hypotheses [VARIANT ...]``
    Each explanation of a reported 0% (and each combination) tested against every kernel
    (:func:`attnprof.analysis.zero_occupancy.check_hypotheses`), then one line saying which the data support and which
    kernels rule the others out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from attnprof.analysis import zero_occupancy
from attnprof.analysis.zero_occupancy import HypothesisTest, KernelOccupancy
from attnprof.render.columns import limiter_words
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import AttnprofDirective, kernel_label, para
from attnprof.variants import VARIANTS
from attnprof.words import fmt


class OccupancyTable(AttnprofDirective):
    """``occupancy-table [VARIANT ...]``: reported against theoretical occupancy for every kernel of the variants
    (all when none are named).

    Columns: variant, kernel, launch API, shared memory per block, the grid's blocks per SM (from the trace), the
    reported and the theoretical occupancy, and what limits it (a resource of the SM, or the grid).
    """

    optional_arguments = len(VARIANTS)
    has_content = False

    def run(self) -> list[nodes.Node]:
        lang = self.lang
        kernels, out = self.kernels()
        if not kernels:
            return [self.no_kernels(), *out]
        na = self.say("not_available")
        body = []
        for k in kernels:
            reported: Any = na
            if k.reported is not None:
                text = fmt.percent(k.reported)
                reported = nodes.inline("", text, classes=["attnprof-occ-zero"]) if k.zero else text
            body.append(
                [
                    nodes.literal("", k.variant),
                    para(nodes.strong("", kernel_label(k.name, lang)), classes=["attnprof-kernel"]),
                    nodes.literal("", k.launch_api) if k.launch_api else na,
                    na if k.shared_memory is None else fmt.size(k.shared_memory),
                    na if k.blocks_per_sm is None else fmt.ratio(k.blocks_per_sm),
                    reported,
                    na if k.theoretical is None else fmt.percent(k.theoretical.percent),
                    na if not k.limiters else limiter_words(k.limiters, lang),
                ]
            )
        keys = ("col.variant", "col.kernel", "col.launch_api", "col.shared_memory", "col.blocks_per_sm",
                "col.reported_occupancy", "col.theoretical", "col.limiter")  # fmt: skip
        # the launch API under the kernel's name, as in the kernel tables
        return [self.table(keys, body, "attnprof-occupancy-table", numeric=(3, 4, 5, 6), stack={1: (2,)}), *out]

    def kernels(self) -> tuple[list[KernelOccupancy], list[nodes.Node]]:
        """Every kernel of the named variants' results (a missing or stale one warns), or of every result of the
        build when none are named."""
        if not self.arguments:
            return zero_occupancy.kernel_occupancies(lookup.all_results(self.env)), []
        ran, out = [], []
        for variant in self.arguments:
            hit = self.find(variant)
            if hit.analysis is None:
                out += self.problem(hit.problem)
            else:
                ran.append(hit.analysis)
        return zero_occupancy.kernel_occupancies(ran), out

    def no_kernels(self) -> nodes.Node:
        """The note for a build without GPU kernels (a CPU-only build)."""
        return nodes.note("", para(self.say("occupancy.no_kernels")), classes=["attnprof-no-gpu"])


def _kernel_ref(k: KernelOccupancy, lang: str | None, with_launch: bool = False) -> str:
    """``flash fwd (bf16) [sdpa_flash]``, with ``(cudaLaunchKernel, 12%)`` when asked."""
    text = f"{kernel_label(k.name, lang)} [{k.variant}]"
    if with_launch:
        reported = "?" if k.reported is None else fmt.ratio(k.reported)
        text += f" ({k.launch_api or '?'}, {reported}%)"
    return text


class OccupancyHypotheses(OccupancyTable):
    """``occupancy-hypotheses [VARIANT ...]``: each explanation of a reported 0% tested against every kernel, then
    the line saying which the data support."""

    def run(self) -> list[nodes.Node]:
        kernels, out = self.kernels()
        tested = [k for k in kernels if k.reported is not None]
        if not tested:
            return [self.no_kernels(), *out]
        tests = zero_occupancy.check_hypotheses(kernels)
        none = self.say("occupancy.none")

        def names(ks: Sequence[KernelOccupancy]) -> Any:
            return [para(_kernel_ref(k, self.lang)) for k in ks] or none

        body = []
        for t in tests:
            parts = self.say("hyp.or").join(self.say(f"hyp.{p}") for p in t.hypothesis.parts)
            body.append(
                [
                    [para(nodes.strong("", t.hypothesis.key)), para(parts)],
                    str(len(t.predicted)),
                    str(len(t.consistent)),
                    names(t.counterexamples),
                    names(t.missed),
                    para(self.say(f"hyp.verdict.{t.verdict}"), classes=[f"attnprof-hypothesis-{t.verdict}"]),
                ]
            )
        keys = ("col.hypothesis", "col.predicted", "col.consistent", "col.counterexamples", "col.missed",
                "col.verdict")  # fmt: skip
        table = self.table(keys, body, "attnprof-hypotheses-table", numeric=(1, 2))
        return [table, para(self.verdict_line(tests, tested), classes=["attnprof-verdict-line"]), *out]

    def _and(self, items: Sequence[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` (in the page's language)."""
        if len(items) < 2:
            return "".join(items)
        return self.say("hyp.list_sep").join(items[:-1]) + self.say("hyp.and") + items[-1]

    def verdict_line(self, tests: Sequence[HypothesisTest], tested: Sequence[KernelOccupancy]) -> str:
        """Which hypotheses the data support, and the kernels that rule out the single explanations."""
        zeros = sum(1 for k in tested if k.zero)
        best = zero_occupancy.supported(tests)
        fields = {"n": len(tested), "zeros": zeros}
        if not zeros:
            return self.say("hyp.line.no_zero", **fields)
        if not best:
            line = self.say("hyp.line.none", **fields)
        elif len(best) == 1:
            line = self.say("hyp.line.supported", hypothesis=best[0].hypothesis.key, **fields)
        else:
            line = self.say("hyp.line.tie", hypotheses=self._and([t.hypothesis.key for t in best]), **fields)
        against = [
            self.say("hyp.against", kernel=_kernel_ref(k, self.lang, with_launch=True), hypothesis=t.hypothesis.key)
            for t in tests
            if len(t.hypothesis.parts) == 1
            for k in t.counterexamples
        ]
        if against:
            line += self.say("hyp.sentence_sep") + self.say(
                "hyp.line.counterexamples", items=self.say("hyp.list_sep").join(against)
            )
        return line


def setup_occupancy(app: Sphinx) -> None:
    """Register the occupancy directives."""
    app.add_directive("occupancy-table", OccupancyTable)
    app.add_directive("occupancy-hypotheses", OccupancyHypotheses)
