"""Pictures the build draws: one profiler step as a timeline, and one metric of the sweep against sequence length.

``timeline VARIANT``
    One active step drawn by :mod:`attnprof.render.timeline` (``:step:``, the middle one by default), the content as
    caption, followed by the interactive viewer of every step (:mod:`.viewer`; the link to the raw trace where the
    builder has no viewer); ``:workload:`` (and ``:kv-len:``) picks a training or decoding result.
``scaling-plot``
    One metric (``:metric:``) of the sweep against sequence length at one head_dim (``:head-dim:``), drawn by
    :mod:`attnprof.render.scalingplot`, the content as caption.

Pictures are drawn into the results folder, one per language (the en and ja builds share that folder), and only
when the result or the drawing code is newer than the file. Each image gets its caption (translated by then) as
alt text, or a one-sentence summary of what it shows, and its CSS width
(:func:`attnprof.render.pictures.shown_width_px`), so that its text is as large on screen as
:mod:`attnprof.render.pictures` drew it for.

A timeline of a result with no GPU activity (a CPU-only build) keeps its caption for the translators only: the
caption talks about a GPU trace the picture does not show, so the page shows the summary of what it does show.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from attnprof.records import sweep
from attnprof.records.results import Result
from attnprof.records.sweep import Sweep
from attnprof.render import pictures, scalingplot, timeline
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import WORKLOAD_OPTIONS, AttnprofDirective, not_run_note, para, untold
from attnprof.sphinxext.scaling import SweepDirective
from attnprof.sphinxext.viewer import trace_view

#: Figure classes whose images get their caption as alt text.
PICTURE_CLASSES = frozenset({"attnprof-timeline", "attnprof-scaling-plot", "attnprof-train-scale-plot"})


def _stale(png: Path, *inputs_mtime_ns: int) -> bool:
    return not png.exists() or png.stat().st_mtime_ns < max(inputs_mtime_ns)


def picture_figure(
    directive: SphinxDirective,
    png: Path,
    summary: str,
    figure_class: str,
    image_class: str | None = None,
    show_caption: bool = True,
) -> nodes.figure:
    """A figure of a picture the build drew: the directive's content becomes its caption (translatable; the
    alt-text transform copies it once translated), ``summary`` is the alt text when there is no caption. With
    ``show_caption=False`` the content is kept for the message catalogs only (:class:`.nodes.untold`)."""
    doc_dir = directive.env.doc2path(directive.env.docname).parent
    figure = nodes.figure("", classes=[figure_class, *directive.options.get("class", [])])
    directive.set_source_info(figure)
    uri = Path(os.path.relpath(png, doc_dir)).as_posix()
    image = nodes.image(uri=uri, classes=[image_class or f"{figure_class}-image"])
    image["attnprof_summary"] = summary
    image["width"] = directive.options.get("width") or f"{pictures.shown_width_px(png)}px"
    figure += image
    caption_nodes = directive.parse_content_to_nodes() if directive.content else []
    first = caption_nodes[0] if caption_nodes else None
    if not show_caption:
        # what the picture does show, generated, in place of the page's caption (kept for the catalogs only)
        caption = nodes.caption("", summary)
        caption["translatable"] = False
        figure += caption
        if caption_nodes:
            figure += untold("", *caption_nodes)
    elif isinstance(first, nodes.paragraph):
        caption = nodes.caption(first.rawsource, "", *first.children)
        caption.source, caption.line = first.source, first.line
        figure += caption
        if caption_nodes[1:]:
            figure += nodes.legend("", *caption_nodes[1:])
    directive.add_name(figure)
    return figure


class Timeline(AttnprofDirective):
    """``timeline VARIANT``: one active step drawn by :mod:`attnprof.render.timeline`, the content as caption."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar = {
        "step": directives.nonnegative_int,
        "width": directives.length_or_percentage_or_unitless,
        "name": directives.unchanged,
        "class": directives.class_option,
        **WORKLOAD_OPTIONS,
    }

    def run(self) -> list[nodes.Node]:
        found = self.find(self.arguments[0])
        if found.analysis is None or found.path is None:
            return self.problem(found.problem)
        result = found.analysis.result
        if not result.ok:
            # The caption describes a trace this build does not have; it still goes through the parser, kept for
            # the message catalogs only, so every build extracts it whether or not it could run the variant.
            note = not_run_note(result, self.lang)
            if self.content:
                note += untold("", *self.parse_content_to_nodes())
            return [note]
        step = self.options.get("step")
        try:
            timeline.pick_step(result, step)
        except ValueError as exc:
            return self.problem(lookup.warn(f"timeline {result.variant!r}: {exc}", "step", self.get_location()))

        picture_lang = pictures.picture_language(self.lang)
        which = "mid" if step is None else step
        png = found.path.parent / "timelines" / f"{result.stem}.step{which}.{picture_lang}.png"
        if _stale(png, found.path.stat().st_mtime_ns, timeline.code_mtime_ns()):
            timeline.render(result, png, step, picture_lang)
        summary = timeline.summary(result, step, self.lang)
        self.env.note_dependency(str(png))
        has_gpu_trace = bool(timeline.pick_step(result, step).activities)
        out: list[nodes.Node] = [picture_figure(self, png, summary, "attnprof-timeline", show_caption=has_gpu_trace)]
        fallback: list[nodes.Node] = []
        if result.trace_file:
            trace_path = found.path.parent / result.trace_file
            problem = lookup.verified_trace(self.env, trace_path, self.get_location())
            if problem:
                return out + self.problem(problem)
            fallback = [self.download(result, trace_path)]
        return [*out, trace_view(self.env, result, found.path, step, fallback)]

    def download(self, result: Result, trace_path: Path) -> nodes.paragraph:
        """The link to the raw trace, published with the page."""
        doc_dir = self.env.doc2path(self.env.docname).parent
        ref = addnodes.download_reference(
            "",
            "",
            nodes.literal("", result.trace_file),
            reftarget=Path(os.path.relpath(trace_path, doc_dir)).as_posix(),
            refdoc=self.env.docname,
            refdomain="",
            reftype="download",
            refexplicit=True,
            refwarn=False,
        )
        return para(
            self.say("timeline.download") + ": ",
            ref,
            " " + self.say("timeline.open_with"),
            classes=["attnprof-trace-download"],
        )


class ScalingPlot(SweepDirective):
    """``scaling-plot``: one metric of the sweep against sequence length at one head_dim, the content as caption."""

    has_content = True
    option_spec: ClassVar = {
        **SweepDirective.option_spec,
        "metric": lambda arg: directives.choice(arg, sweep.METRICS),
        "width": directives.length_or_percentage_or_unitless,
    }

    def build(self, sw: Sweep) -> list[nodes.Node]:
        path = self.found.path
        assert path is not None
        dims, notes = self.head_dims(sw)
        if not dims:
            # parse the caption anyway, so that its message is extracted for translation on every build
            caption = self.parse_content_to_nodes() if self.content else []
            if notes and caption:
                notes[-1] += caption
                return notes
            return [*notes, *caption]
        head_dim, metric = dims[0], self.options.get("metric", "gpu_ms")
        # one picture per language: the en and ja builds share the results folder
        lang_code = pictures.picture_language(self.lang)
        png = path.parent / "plots" / f"scaling__{sw.device}__{metric}__hd{head_dim}__{self.lang or 'en'}.png"
        if _stale(png, path.stat().st_mtime_ns, scalingplot.code_mtime_ns()):
            summary = scalingplot.render(sw, metric, head_dim, png, lang_code)
        else:
            summary = scalingplot.summary(sw, metric, head_dim, lang_code)
        return [picture_figure(self, png, summary, "attnprof-scaling-plot", "attnprof-scaling-image")]


class PictureAltText(SphinxPostTransform):
    """Give each timeline or scaling-plot image its caption (translated by now) as alt text, else its summary.

    Done after reading, so the alt text is not a second message for translators.
    """

    default_priority = 200
    formats = ("html", "latex", "texinfo", "text", "man", "xml", "pseudoxml")

    def run(self, **kwargs: Any) -> None:
        for figure in self.document.findall(nodes.figure):
            if not PICTURE_CLASSES & set(figure["classes"]):
                continue
            caption = next(iter(figure.findall(nodes.caption)), None)
            for image in figure.findall(nodes.image):
                summary = image.get("attnprof_summary", "")
                image["alt"] = caption.astext() if caption is not None and caption.astext() else summary


def setup_figures(app: Sphinx) -> None:
    """Register the picture directives and the alt-text transform."""
    app.add_directive("timeline", Timeline)
    app.add_directive("scaling-plot", ScalingPlot)
    app.add_post_transform(PictureAltText)
