"""Build the site in every language, one after another, in one Python process (the nox session ``docs`` runs this).

English is built from ``docs/``; every other language from its own source tree, which :mod:`attnprof.site.localize`
writes first (``<out>/src/<lang>``: a copy of ``docs/`` and the gallery scripts translated), because sphinx-gallery
writes its pages, notebooks and checksums into the source folder. Each language's gallery runs its own scripts.

Measured once, shown in every language: the first language's scripts measure (reusing what the same code measured
before, :mod:`attnprof.measure.reuse`) and save everything they show; every later language is built with
``-D attnprof_replay_measurements=1``, so its scripts replay what the first saved and measure nothing. After the last
language, :mod:`attnprof.site.numbers` compares every number of every page with the first language's, and
:mod:`attnprof.site.outputs` looks for a library's warning or traceback in what the scripts printed, and
:mod:`attnprof.site.provenance` for a recorded figure called this build's: any of them fails the build.
Replaying, a call into the measuring code fails the build too, naming the script and line that made it
(:class:`attnprof.settings.MeasuredWhileReplaying`).

Compiling is done ahead: before the first language's gallery runs, every compile the build will make runs in a pool
of worker processes (:mod:`attnprof.measure.precompile`), into the build's own on-disk caches
(``<out>/compile-cache``), so that the scripts, which measure one at a time, find their compiled code there.

One process for all languages, because the gallery scripts run inside Sphinx: torch, CUDA, the kernels
``torch.compile`` generated and matplotlib are set up once, and the second language's scripts find them ready.
Sphinx keeps each build's registries apart (``docutils_namespace``), and the extension tells the scripts the
language of the build it runs in.

Every build ends with a table of where its time went (:mod:`attnprof.site.timetable`: each gallery script per
language, the sweep, Sphinx's reading and writing, the comparison), printed and saved as ``<out>/build-times.txt``
and ``<out>/build-times.json``.

Command line::

    python -m attnprof.site.builder [--root .] [--out _build] [SPHINX OPTIONS ...]

builds ``<out>/html/<lang>`` for every language of :data:`attnprof.words.LANGUAGES` with ``-W --keep-going`` and
the options given; the exit status is the first failing build's (1 when a translation is missing, or when the
languages' pages show different numbers).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from attnprof import words
from attnprof.measure import precompile
from attnprof.site import localize, numbers, outputs, provenance, stacks, timetable

#: The folder of the build's on-disk compile caches (Inductor's, Triton's), in the build folder: a cold build (no
#: build folder) compiles from nothing, ahead and in parallel (:mod:`attnprof.measure.precompile`).
COMPILE_CACHE = "compile-cache"
#: Names a file to write the build's sampled stacks to (:mod:`attnprof.site.stacks`); unset, nothing is sampled.
STACKS_ENV = "ATTNPROF_SAMPLE_STACKS"


def sphinx_args(root: Path, out: Path, lang: str, source: Path, extra: Sequence[str] = ()) -> list[str]:
    """The ``sphinx-build`` arguments of one language's HTML build (the languages after the first replay the first
    one's measurements). Pages are read and written by one process per core (``-j auto``; every extension of the
    site is parallel-safe) unless ``extra`` says otherwise: the gallery runs before, in this process."""
    replay = [] if lang == words.LANGUAGES[0] else ["-D", "attnprof_replay_measurements=1"]
    jobs = [] if any(a == "-j" or a.startswith(("-j", "--jobs")) for a in extra) else ["-j", "auto"]
    return ["-b", "html", "-W", "--keep-going", *jobs, "-c", str(root), "-D", f"language={lang}", *replay, "-d",
            str(out / "doctrees" / lang), str(source), str(out / "html" / lang), *extra]  # fmt: skip


def source_of(lang: str, root: Path, out: Path) -> Path:
    """Where ``lang`` is built from: ``docs/`` for the first language, else its translated tree under ``out``."""
    return root / "docs" if lang == words.LANGUAGES[0] else out / "src" / lang / "docs"


def build(root: Path, out: Path, extra: Sequence[str] = (), languages: Sequence[str] = words.LANGUAGES) -> int:
    """Build every language in turn, stopping at the first that fails, then compare their numbers; print and save
    where the time went. Returns the exit status."""
    from sphinx.cmd.build import build_main

    started = time.perf_counter()
    times = timetable.BuildTimes()
    for lang in languages:
        if lang != words.LANGUAGES[0]:
            missing = localize.prepare_source(lang, out / "src" / lang, root)
            for m in missing:
                print(m, file=sys.stderr)
            if missing:
                print(f"{len(missing)} messages without a {lang} translation: run `nox -s i18n` and translate them",
                      file=sys.stderr)  # fmt: skip
                return 1
    times.localize_s = time.perf_counter() - started
    t0 = time.perf_counter()
    device = precompile.build_device()
    warmed = precompile.warm(device, out / COMPILE_CACHE)
    times.precompile_s, times.precompile_workers = time.perf_counter() - t0, warmed.workers
    times.precompile_skipped, times.precompile_here_s = warmed.skipped, warmed.here_s
    times.precompiled = [dataclasses.asdict(done) for done in warmed.done]
    # the budgets are the GPU builder's: a CPU build has none to keep (its scripts measure other, smaller shapes)
    times.budgets_s = timetable.declared_budgets(root / "examples") if device == "cuda" else {}
    status = 0
    told = {k: v for k, v in os.environ.items() if k.startswith("ATTNPROF_")}  # the extension tells the scripts
    try:
        for lang in languages:
            t0, counts = time.perf_counter(), precompile.cache_counts()
            status = build_main(sphinx_args(root, out, lang, source_of(lang, root, out), extra))
            times.add_language(lang, out / "doctrees" / lang, time.perf_counter() - t0)
            times.compile_cache[lang] = [
                now - then for now, then in zip(precompile.cache_counts(), counts, strict=True)
            ]
            if status:
                break
    finally:  # what the scripts were told (replay, above all) ends with the build
        for key in [k for k in os.environ if k.startswith("ATTNPROF_") and k not in told]:
            del os.environ[key]
        os.environ.update(told)
    if not status:
        t0 = time.perf_counter()
        if len(languages) > 1:
            differences, compared = numbers.compare_site(out / "html", languages)
            print(numbers.report(differences, compared, languages), file=sys.stderr if differences else sys.stdout)
            status = 1 if differences else 0
        leaks, read = outputs.check_site(out / "html", languages)
        print(outputs.report(leaks, read), file=sys.stderr if leaks else sys.stdout)
        status = 1 if leaks else status
        mislabels, boxes = provenance.check_site(out / "html", languages)
        print(provenance.report(mislabels, boxes), file=sys.stderr if mislabels else sys.stdout)
        status = 1 if mislabels else status
        times.comparison_s = time.perf_counter() - t0
    times.total_s = time.perf_counter() - started
    timetable.save(times, out)
    print(timetable.table(times))
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``[--root DIR] [--out DIR] [SPHINX OPTIONS ...]``; see the module docstring. With ``$ATTNPROF_SAMPLE_STACKS``
    set, the build's stacks are sampled into that file (:mod:`attnprof.site.stacks`)."""
    parser = argparse.ArgumentParser(prog="python -m attnprof.site.builder", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--out", type=Path, default=None, help="the build folder (default: <root>/_build)")
    args, extra = parser.parse_known_args(argv)
    root = args.root.resolve()
    out = (args.out or root / "_build").resolve()
    sample_to = os.environ.get(STACKS_ENV)
    if not sample_to:
        return build(root, out, extra)
    with stacks.Sampler() as sampler:
        status = build(root, out, extra)
    sampler.save(Path(sample_to))
    print(f"sampled stacks of {sampler.seconds:.1f} s written to {sample_to}")
    return status


if __name__ == "__main__":
    sys.exit(main())
