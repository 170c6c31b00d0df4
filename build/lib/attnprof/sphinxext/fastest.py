"""Comparative words from the data: which variant is fastest, as this build measured it.

``{fastest}`VARIANT VARIANT ...```
    The fastest of the named variants by median time of one forward call without the profiler, with that time
    (``sdpa_cudnn (0.141 ms)``). When the two fastest are too close to call (their bands of repeated calls
    overlap, :meth:`attnprof.analysis.summary.TimeBand.overlaps`), it names both and says so; with fewer than two
    timed results, that it cannot be measured here.

Pages never state a measured order in their own words: an order written into prose would be false on the next GPU.
The role renders it from the build's results, so the sentence around it stays one message for translators.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxRole

from attnprof import words
from attnprof.analysis import summary
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import word_nodes
from attnprof.variants import VARIANTS
from attnprof.words import fmt


def _ms(band: summary.TimeBand) -> str:
    return fmt.unit(fmt.number(band.median_ms), "ms")


class FastestRole(SphinxRole):
    """``{fastest}`VARIANT VARIANT ...```: the fastest of the named variants in this build, from the data."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        names = self.text.split()
        location = self.get_location()
        unknown = [n for n in names if n not in VARIANTS]
        if len(names) < 2 or unknown:
            message = (
                f"fastest {self.text!r}: unknown variant(s) {', '.join(unknown)}; choose from: {', '.join(VARIANTS)}"
                if unknown
                else f"fastest {self.text!r}: name at least two variants, e.g. sdpa_flash sdpa_cudnn"
            )
            lookup.warn(message, "fastest", location)
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        found = [lookup.find_result(self.env, n, location).analysis for n in names]
        ranked = summary.by_time(a for a in found if a is not None)
        lang = self.config.language
        node = nodes.inline(self.rawtext, "", classes=["attnprof-metric", "attnprof-fastest"])
        node["support_smartquotes"] = False
        if len(ranked) < 2:
            node += nodes.Text(words.text("rank.unmeasurable", lang))
            return [node], []
        first, second = ranked[:2]
        a = {"a": nodes.literal("", first.variant), "a_ms": _ms(first)}
        if first.overlaps(second):
            node += word_nodes("rank.tie", lang, **a, b=nodes.literal("", second.variant), b_ms=_ms(second))
        else:
            node += word_nodes("rank.fastest", lang, **a)
        return [node], []


def setup_ranks(app: Sphinx) -> None:
    """Register the comparative roles."""
    app.add_role("fastest", FastestRole())
