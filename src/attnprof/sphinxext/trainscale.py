"""Training across lengths and head dims (:mod:`attnprof.records.trainscale`), drawn like a kernel benchmark.

``train-scale-plot``
    TFLOP/s against sequence length of one pass (``:pass:`` ``fwd`` or ``bwd``), one line per backend, one panel
    per head dim and mask, with the build's matmul ceiling and the GPU's published peak (drawn by
    :mod:`attnprof.render.trainplot`); the content is the caption.
``train-scale-table``
    At the longest length: each backend's forward and backward TFLOP/s with their bands, and their shares of the
    ceiling and of the published peak; the two scales above it (the peak with its source), and why the points that
    did not run did not, in PyTorch's words where PyTorch refused, under it.

``published-peaks``
    The table of published peaks the rates are compared with (:data:`attnprof.records.trainscale.PUBLISHED_PEAKS`):
    each GPU, its dense bf16 TFLOP/s as published, and the source, linked. Reads no file.

The first two are drawn from the grid (:class:`attnprof.sphinxext.nodes.RecordDirective`).
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from attnprof.records import trainscale
from attnprof.records.trainscale import PASSES, PUBLISHED_PEAKS, TrainScale
from attnprof.render import pictures, trainplot
from attnprof.sphinxext.figures import picture_figure
from attnprof.sphinxext.nodes import (
    TABLE_OPTIONS,
    AttnprofDirective,
    RecordDirective,
    build_table,
    para,
    reason_node,
    untold,
)


class TrainScalePlot(RecordDirective[TrainScale]):
    """``train-scale-plot``: one pass's TFLOP/s against length, one line per backend; the content as caption."""

    kind = trainscale.KIND
    has_content = True
    option_spec: ClassVar = {
        "pass": lambda arg: directives.choice(arg, PASSES),
        "width": directives.length_or_percentage_or_unitless,
        "class": directives.class_option,
        "name": directives.unchanged,
    }

    def without(self, problem: str | None) -> list[nodes.Node]:
        # the caption is parsed anyway, so that its message is extracted for translation on every build
        caption = self.parse_content_to_nodes() if self.content else []
        return [*self.problem(problem), *([untold("", *caption)] if caption else [])]

    def build(self, grid: TrainScale) -> list[nodes.Node]:
        path, phase = self.found.path, self.options.get("pass", "fwd")
        assert path is not None
        lang = pictures.picture_language(self.lang)
        # one picture per language: the en and ja builds share the results folder
        png = path.parent / "plots" / f"trainscale__{grid.device}__{phase}__{self.lang or 'en'}.png"
        newest = max(path.stat().st_mtime_ns, pictures.code_mtime_ns(trainplot.__file__))
        if not png.exists() or png.stat().st_mtime_ns < newest:
            trainplot.save(grid, phase, png, lang)
        return [picture_figure(self, png, trainplot.summary(grid, phase, lang), "attnprof-train-scale-plot",
                               "attnprof-train-scale-image")]  # fmt: skip


class TrainScaleTable(RecordDirective[TrainScale]):
    """``train-scale-table``: the rates at the longest length, their shares of the two scales, and the reasons."""

    kind = trainscale.KIND
    has_content = False
    option_spec: ClassVar = dict(TABLE_OPTIONS)

    def build(self, grid: TrainScale) -> list[nodes.Node]:
        out: list[nodes.Node] = [para(line, classes=["attnprof-train-scales"])
                                 for line in trainplot.scale_lines(grid, self.lang)]  # fmt: skip
        classes = ["attnprof-train-scale-table", *self.options.get("class", [])]
        table = build_table(trainplot.headers(self.lang), trainplot.longest_rows(grid, self.lang),
                            numeric=range(4, 8), key=(0,), classes=classes, title=self.caption_title())  # fmt: skip
        out.append(self.finish(table))
        why = trainplot.reasons(grid)
        if why:
            items = nodes.bullet_list(classes=["attnprof-reasons"])
            for variant, reason in why:
                items += nodes.list_item("", para(nodes.literal("", variant), ": ", reason_node(reason, self.lang)))
            out.append(items)
        return out


class PublishedPeaks(AttnprofDirective):
    """``published-peaks``: the published peaks, as published, each with its source."""

    has_content = False
    option_spec: ClassVar = dict(TABLE_OPTIONS)

    def run(self) -> list[nodes.Node]:
        body, seen = [], set()
        for peak in PUBLISHED_PEAKS:
            if peak.gpu in seen:  # one product, several spellings of its name
                continue
            seen.add(peak.gpu)
            link = nodes.reference("", peak.source, refuri=peak.source)
            body.append([peak.gpu, f"{peak.tflops:g}", para(link)])
        headers = [self.say("ts.col.gpu"), self.say("ts.col.published"), self.say("ts.col.source")]
        classes = ["attnprof-published-peaks", *self.options.get("class", [])]
        return [self.finish(build_table(headers, body, numeric=(1,), classes=classes, title=self.caption_title()))]


def setup_trainscale(app: Sphinx) -> None:
    """Register the training-scale directives."""
    app.add_directive("train-scale-plot", TrainScalePlot)
    app.add_directive("train-scale-table", TrainScaleTable)
    app.add_directive("published-peaks", PublishedPeaks)
