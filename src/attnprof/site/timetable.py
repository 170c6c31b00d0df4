"""Where a site build's time went: every language's phases and gallery scripts, the sweep, the number comparison.

:mod:`attnprof.site.builder` times what it does itself (the translated sources, each language's whole Sphinx run,
the comparison of the languages' numbers) and reads what the Sphinx extension timed inside each run
(:mod:`attnprof.records.buildtimes`: each gallery script, the gallery, reading, writing). :func:`table` lays it out
as text, one column per language; :func:`save` writes ``build-times.json`` and ``build-times.txt`` into the build
folder (``scripts/gpu_build.sh`` puts the text into its summary).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from attnprof.records import buildtimes
from attnprof.records.buildtimes import LanguageTimes
from attnprof.records.files import UnreadableFile

#: The files :func:`save` writes into the build folder.
JSON_NAME, TEXT_NAME = "build-times.json", "build-times.txt"
#: How a gallery script declares its time budget in the first language of a GPU build, seconds (a configuration
#: comment, left out of the pages like sphinx-gallery's own): ``# sphinx_gallery_attnprof_budget_s = 12``.
BUDGET = re.compile(r"^[ \t]*#\s*sphinx_gallery_attnprof_budget_s\s*=\s*(\d+(?:\.\d+)?)\s*$", re.MULTILINE)


def declared_budgets(examples: Path) -> dict[str, float]:
    """Each gallery script's declared budget (:data:`BUDGET`), by file name; a script that declares none is left
    out."""
    out = {}
    for script in sorted(examples.glob("[0-9][0-9]-*.py")):
        found = BUDGET.findall(script.read_text(encoding="utf-8"))
        if found:
            out[script.name] = float(found[-1])
    return out


@dataclass
class BuildTimes:
    """One site build.

    Attributes:
        languages: Each language's build as the extension timed it (empty phases when it wrote nothing).
        sphinx_s: Each language's whole Sphinx run (start to exit), by language.
        localize_s: Writing the translated source trees.
        precompile_s: Compiling ahead (:mod:`attnprof.measure.precompile`), the pool's start included.
        precompile_workers: Worker processes of that pool (0: nothing to compile ahead).
        precompile_here_s: Meanwhile, the build's own process setting up its CUDA side.
        precompile_skipped: Nothing was compiled ahead: the caches hold what the same jobs and code compiled.
        precompiled: Each job's outcome (:class:`attnprof.measure.precompile.Done` as a dict).
        compile_cache: Each language's FX-graph cache ``[hits, misses]`` in the build's own process: a miss is a
            graph compiled there that was not compiled ahead.
        budgets_s: Each gallery script's time budget in the first language (:func:`declared_budgets`).
        comparison_s: Checking the pages: the languages' numbers (:mod:`attnprof.site.numbers`) and the scripts'
            output (:mod:`attnprof.site.outputs`).
        total_s: The whole build.
    """

    languages: dict[str, LanguageTimes] = field(default_factory=dict)
    sphinx_s: dict[str, float] = field(default_factory=dict)
    localize_s: float = 0.0
    precompile_s: float = 0.0
    precompile_workers: int = 0
    precompile_skipped: bool = False
    precompile_here_s: float = 0.0
    precompiled: list[dict[str, Any]] = field(default_factory=list)
    compile_cache: dict[str, list[int]] = field(default_factory=dict)
    budgets_s: dict[str, float] = field(default_factory=dict)
    comparison_s: float = 0.0
    total_s: float = 0.0

    def add_language(self, lang: str, doctrees: Path, seconds: float) -> None:
        """Record ``lang``'s Sphinx run of ``seconds``, with what the extension timed (saved in ``doctrees``)."""
        self.sphinx_s[lang] = seconds
        try:
            self.languages[lang] = buildtimes.load(doctrees)
        except (FileNotFoundError, UnreadableFile):
            self.languages[lang] = LanguageTimes(lang)


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _budget(budget: float | None, values: list[float | None]) -> str:
    """A script's budget cell, and ``over`` when its first language took longer."""
    if budget is None:
        return ""
    return f"{_cell(budget):>9}" + ("  over" if values and values[0] is not None and values[0] > budget else "")


def table(times: BuildTimes) -> str:
    """The table of where the build's time went (seconds), one column per language."""
    langs = list(times.sphinx_s)
    scripts = sorted({name for t in times.languages.values() for name in t.scripts})
    got = [times.languages[lang] for lang in langs]
    ran = [sum(t.scripts.values()) for t in got]
    rows: list[tuple[str, list[float | None]]] = [(f"  {n}", [t.scripts.get(n) for t in got]) for n in scripts]
    budgets = {f"  {n}": times.budgets_s[n] for n in scripts if n in times.budgets_s}
    if any(t.sweep_s is not None for t in got):
        rows.append(("    of which the sweep", [t.sweep_s for t in got]))
    if any(t.trainscale_s is not None for t in got):
        rows.append(("    of which the training-scale grid", [t.trainscale_s for t in got]))
    rows += [
        ("gallery scripts", ran),
        ("gallery, the rest (sphinx-gallery)", [t.gallery_s - r for t, r in zip(got, ran, strict=True)]),
        ("Sphinx: read pages", [t.read_s for t in got]),
        ("Sphinx: write pages", [t.write_s for t in got]),
        ("Sphinx: the rest (set-up, environment)",
         [times.sphinx_s[lang] - t.gallery_s - t.read_s - t.write_s for lang, t in zip(langs, got, strict=True)]),
        ("Sphinx run", [times.sphinx_s[lang] for lang in langs]),
    ]  # fmt: skip
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{'where the build went (s)':<{width}}" + "".join(f"{lang:>9}" for lang in langs)
             + (f"{'budget':>9}" if budgets else "")]  # fmt: skip
    lines += [f"{label:<{width}}" + "".join(f"{_cell(v):>9}" for v in values) + _budget(budgets.get(label), values)
              for label, values in rows]  # fmt: skip
    read = ", ".join(f"{lang} {len(times.languages[lang].read_docs)}" for lang in langs)
    cache = ", ".join(
        f"{lang} {hits} hit(s) {misses} miss(es)" for lang, (hits, misses) in times.compile_cache.items()
    )
    failed = [d for d in times.precompiled if d["status"] != "ok"]
    lines += [
        f"{'pages read':<{width}}" + read,
        f"{'translated sources':<{width}}{_cell(times.localize_s):>9}",
        f"{'compiled ahead':<{width}}{_cell(times.precompile_s):>9}"
        + (f"  {len(times.precompiled)} jobs on {times.precompile_workers} workers" if times.precompiled else "")
        + ("  none: the caches hold what the same jobs compiled" if times.precompile_skipped else "")
        + (f"; CUDA set up here meanwhile ({times.precompile_here_s:.1f} s)" if times.precompile_here_s else ""),
        *(f"  {d['name']:<{width - 2}}{_cell(d['seconds']):>9}  {d['status']}: {d['reason']}" for d in failed),
        *([f"{'compile cache in the build':<{width}}" + cache] if cache else []),
        f"{'pages checked (numbers, output)':<{width}}{_cell(times.comparison_s):>9}",
        f"{'total':<{width}}{_cell(times.total_s):>9}",
    ]
    return "\n".join(lines)


def save(times: BuildTimes, out: Path) -> list[Path]:
    """Write ``times`` into ``out`` as JSON and as the text of :func:`table`; returns the two paths."""
    out.mkdir(parents=True, exist_ok=True)
    data = asdict(times)
    paths = [out / JSON_NAME, out / TEXT_NAME]
    paths[0].write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    paths[1].write_text(table(times) + "\n", encoding="utf-8")
    return paths
