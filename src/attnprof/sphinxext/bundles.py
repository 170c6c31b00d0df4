"""Figures from other machines: bundles (:mod:`attnprof.records.bundle`) in the folder ``attnprof_bundles_dir``
(``$ATTNPROF_BUNDLES_DIR`` wins; ``docs/bundles`` by default) and published figures
(:mod:`attnprof.records.published`), always labelled with their machine and date.

``cross-gpu``
    Every source (what it is, its machine, date and software), the bundles that could not be read, and a table per
    workload, shape and dtype: a row per variant and machine with its time, its TFLOP/s or GB/s, its share of that
    machine's own measured ceiling, and the fastest variant of each machine (:mod:`attnprof.analysis.crossgpu`).
``measured-elsewhere``
    The same tables for one workload (``:workload:``), for the page about that workload.

A bundle that cannot be read is one line in the build's log (``attnprof: bundle ... left out: ...``) and a line on
the cross-GPU page; it is not a Sphinx warning, so the build goes on without it. Nothing here feeds a verdict: the
claims and the decision pages read this build's own results only (:mod:`.lookup`). The context-parallel page takes
the recorded run of a bundle through :func:`recorded_parallel` when this build could not run its own.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from attnprof import words, workloads
from attnprof.analysis import crossgpu, summary
from attnprof.analysis.crossgpu import Group, Machine
from attnprof.records import bundle, files, published
from attnprof.records.bundle import Bundle
from attnprof.records.parallel import ParallelRun
from attnprof.records.results import write_if_changed
from attnprof.settings import BUNDLES_ENV
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import TABLE_OPTIONS, AttnprofDirective, para
from attnprof.words import fmt

logger = logging.getLogger(__name__)


@dataclass
class Loaded:
    """The bundles of the folder that could be read, their machines, and one line per bundle left out."""

    bundles: list[Bundle] = field(default_factory=list)
    machines: list[Machine] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


#: The file, in each build's doctree folder, that lists the bundles a page read (its dependency, with each bundle).
BUNDLES_LISTING = "attnprof-bundles-listing.txt"
#: folder -> ((name, size, mtime) of each bundle, what was loaded)
_CACHE: dict[str, tuple[tuple[tuple[str, int, int], ...], Loaded]] = {}


def bundles_dir(env: BuildEnvironment) -> Path:
    """The folder the build reads bundles from."""
    return Path(env.config.attnprof_bundles_dir)


def load(env: BuildEnvironment) -> Loaded:
    """Every bundle of the folder, read and checked once per content; a bad one is left out with one logged line.

    Each bundle file is noted as a dependency of the page that asked, and so is the folder.
    """
    folder = bundles_dir(env)
    paths = bundle.find(folder)
    # the list of bundles (write_listing), not the folder: a dependency that is not a file re-reads the page always
    env.note_dependency(str(Path(env.doctreedir) / BUNDLES_LISTING))
    stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in paths)
    hit = _CACHE.get(str(folder))
    if hit is not None and hit[0] == stamp:
        for p in paths:
            env.note_dependency(str(p))
        return hit[1]
    loaded = Loaded()
    for path in paths:
        env.note_dependency(str(path))
        try:
            b = bundle.read(path)
            machine = crossgpu.from_bundle(b)
        except (files.UnreadableFile, OSError) as exc:
            line = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
            loaded.skipped.append(line)
            logger.info(f"attnprof: bundle left out: {line}")
            continue
        loaded.bundles.append(b)
        if machine.entries:
            loaded.machines.append(machine)
    _CACHE[str(folder)] = (stamp, loaded)
    return loaded


def recorded_parallel(env: BuildEnvironment) -> tuple[ParallelRun, Bundle] | None:
    """The latest context-parallel run that ran, from the bundles, with its bundle; ``None`` without one."""
    runs = []
    for b in load(env).bundles:
        try:
            run = b.parallel_run()
        except files.UnreadableFile as exc:
            logger.info(f"attnprof: recorded context-parallel run left out: {exc}")
            continue
        if run is not None and run.ok:
            runs.append((run, b))
    return max(runs, key=lambda rb: rb[1].provenance.measured) if runs else None


#: The class of everything a page shows of other machines (scripts/compare_sites.py --drop-class leaves it out).
ELSEWHERE = "attnprof-elsewhere"


def elsewhere(*children: nodes.Node) -> nodes.container:
    """``children`` in one box of the class :data:`ELSEWHERE`."""
    return nodes.container("", *children, classes=[ELSEWHERE])


def _workload(arg: str) -> str:
    return directives.choice(arg, tuple(workloads.WORKLOADS))


class CrossGpu(AttnprofDirective):
    """``cross-gpu`` (every workload) and ``measured-elsewhere`` (``:workload:``, one workload)."""

    option_spec: ClassVar = {**TABLE_OPTIONS, "workload": _workload}
    #: Show the list of sources and the bundles left out (the cross-GPU page; not the sections elsewhere).
    full: ClassVar[bool] = True

    def run(self) -> list[nodes.Node]:
        loaded = load(self.env)
        workload = self.options.get("workload")
        own = self.own_gpu()
        # a bundle of the GPU model this build ran on is not another GPU: left out, and said so
        shown = {m.origin for m in loaded.machines}  # the bundles with figures for these tables
        same = [b for b in loaded.bundles if own is not None and b.provenance.gpu_model == own and b.name in shown]
        others = [m for m in loaded.machines if m.origin not in {b.name for b in same}]
        machines = [*others, *(crossgpu.from_published(p) for p in published.SOURCES)]
        groups = crossgpu.compare(machines, workload)
        out: list[nodes.Node] = []
        if self.full:
            out += self.sources([m for m in machines if any(g for g in groups if m in g.machines)])
            if same:
                text = self.say("xgpu.same_gpu", gpu=words.device(own or "", self.lang),
                                bundles=", ".join(b.name for b in same))  # fmt: skip
                out.append(para(text, classes=["attnprof-bundles-same-gpu"]))
            if loaded.skipped:
                out.append(
                    para(self.say("xgpu.skipped", n=len(loaded.skipped)), classes=["attnprof-bundles-skipped"])
                )
                items = nodes.bullet_list(classes=["attnprof-bundles-skipped"])
                for line in loaded.skipped:
                    items += nodes.list_item("", para(line))
                out.append(items)
        else:
            out.append(para(self.say("xgpu.elsewhere"), classes=["attnprof-elsewhere-intro"]))
        if not groups:
            text = self.say("xgpu.none", folder=self.config.attnprof_bundles_shown)
            out.append(nodes.note("", para(text), classes=["attnprof-elsewhere-none"]))
        else:
            out += [self.group_table(g) for g in groups]
        return [*(self.methods() if self.full else []), elsewhere(*out)]

    def own_gpu(self) -> str | None:
        """The GPU this build ran on, from its own results (``None`` on a build without one)."""
        ran = [a.result for a in lookup.all_results(self.env) if a.result.ok and a.result.device == "cuda"]
        return ran[0].environment.device_name if ran else None

    def methods(self) -> list[nodes.Node]:
        """How far apart the two ways of timing a call are on this build's own GPU: the profiler's GPU time per
        call (how the article's figures were read) against CUDA events without the profiler (how this site times),
        over the variant pages' results; nothing on a build without a GPU."""
        found = [(a, x) for a in lookup.all_results(self.env) if (x := summary.profiled_over_timed(a)) is not None]
        if not found:
            return [para(self.say("xgpu.methods_unknown"), classes=["attnprof-xgpu-methods"])]
        ratios = sorted(x for _, x in found)
        r = found[0][0].result
        text = self.say("xgpu.methods", device=words.device(r.environment.device_name, self.lang),
                        shape="×".join(map(str, r.shape)), dtype=r.dtype, n=len(ratios),
                        low=fmt.percent(100 * ratios[0]), high=fmt.percent(100 * ratios[-1]),
                        mid=fmt.percent(100 * statistics.median(ratios)))  # fmt: skip
        return [para(text, classes=["attnprof-xgpu-methods"])]

    def sources(self, machines: list[Machine]) -> list[nodes.Node]:
        items = nodes.bullet_list(classes=["attnprof-xgpu-sources"])
        for m in machines:
            software = f" ({m.software})" if m.software else ""
            text = self.say("xgpu.machine_item", machine=m.name, date=m.date, source=self.source(m),
                            software=software)  # fmt: skip
            if m.source == "published":
                ref = nodes.reference("", m.origin, refuri=m.origin)
                items += nodes.list_item("", para(text, " ", ref))
            else:
                items += nodes.list_item("", para(text))
        return [para(self.say("xgpu.machines", n=len(machines)), classes=["attnprof-xgpu-intro"]), items]

    def source(self, m: Machine) -> str:
        return self.say(f"xgpu.source.{m.source}", origin=m.origin)

    def group_table(self, g: Group) -> nodes.table:
        kv = self.say("xgpu.kv", n=g.kv_len) if g.kv_len else ""
        shape = "×".join(str(n) for n in g.shape)
        title = nodes.title("", self.say("xgpu.group", workload=self.say(f"workload.{g.workload}"), shape=shape,
                                         dtype=g.dtype, kv=kv))  # fmt: skip
        title["translatable"] = False
        body = []
        for variant, cells in g.rows:
            for c in cells:
                e = c.entry
                unit = "GB/s" if e.bandwidth else "TFLOP/s"
                rate = self.na(e.rate, lambda x, unit=unit: fmt.unit(fmt.number(x), unit))
                body.append([nodes.literal("", variant), c.machine.name, c.machine.date, self.source(c.machine),
                             fmt.number(e.ms), rate, self.na(e.share, lambda x: fmt.percent(100 * x)),
                             self.say("xgpu.tied" if c.tied else "xgpu.fastest") if c.fastest else ""])  # fmt: skip
        keys = ["xgpu.col.variant", "xgpu.col.machine", "xgpu.col.date", "xgpu.col.source", "xgpu.col.ms",
                "xgpu.col.rate", "xgpu.col.share", "xgpu.col.fastest"]  # fmt: skip
        return self.table(keys, body, "attnprof-xgpu", numeric=(4, 5, 6), title=title)


class MeasuredElsewhere(CrossGpu):
    """``measured-elsewhere``: the cross-GPU tables of one workload, for its page."""

    full = False


def _on_config_inited(app: Sphinx, config: object) -> None:
    """Resolve the bundles folder: ``$ATTNPROF_BUNDLES_DIR``, else the configuration value (relative to conf.py)."""
    configured = os.environ.get(BUNDLES_ENV) or app.config.attnprof_bundles_dir or "docs/bundles"
    folder = (Path(app.confdir) / configured).resolve()
    app.config.attnprof_bundles_dir = str(folder)
    # how a page names it: from the folder of conf.py when inside it (the same in every language's source tree)
    inside = folder.is_relative_to(Path(app.confdir).resolve())
    app.config.attnprof_bundles_shown = (
        folder.relative_to(Path(app.confdir).resolve()).as_posix() if inside else str(folder)
    )


def write_listing(app: Sphinx) -> None:
    """Write the names of the bundles of the folder into :data:`BUNDLES_LISTING` when they changed (before Sphinx
    looks for pages to read again: a page that read the bundles depends on it)."""
    paths = bundle.find(Path(app.config.attnprof_bundles_dir))
    write_if_changed(Path(app.doctreedir) / BUNDLES_LISTING, "".join(f"{p.name}\n" for p in paths).encode())


def setup_bundles(app: Sphinx) -> None:
    """Register the configuration value and the directives of figures from other machines."""
    app.add_config_value("attnprof_bundles_dir", "", "env", types=frozenset({str}))
    app.add_config_value("attnprof_bundles_shown", "", "env", types=frozenset({str}))
    app.connect("config-inited", _on_config_inited)
    app.connect("builder-inited", write_listing)
    app.add_directive("cross-gpu", CrossGpu)
    app.add_directive("measured-elsewhere", MeasuredElsewhere)
