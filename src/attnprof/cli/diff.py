"""``attnprof diff BEFORE AFTER``: read two PyTorch profiler traces as ``attnprof explain`` does and say what changed
(:mod:`attnprof.analysis.diff`): steps, attention calls matched across the traces, their time and kernels, by the
noise rules; printed as text (:mod:`attnprof.render.diff`), and optionally written as JSON and as one self-contained
HTML page (:mod:`attnprof.render.diffhtml`).

Checks first, each refusal one line with exit status 2: the options, the output paths (an output that is one of the
traces is refused before anything is read), then each trace as ``attnprof explain`` checks it; the outputs are
written together at the end (a run stopped on the way leaves none). PyTorch is never asked (no torch import): the
comparison is the two traces'.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import IO

from attnprof import words
from attnprof.analysis import diff, explain
from attnprof.cli import checks, commands
from attnprof.cli import explain as explain_cli
from attnprof.cli.checks import BadInput
from attnprof.records import files
from attnprof.render import diff as report
from attnprof.render import diffhtml


def read(path: str, which: str, gpu: object, max_bytes: int, lang: str, err: IO[str]) -> diff.Side:
    """One trace, read and explained, as a side of the comparison (one line of bad input when it cannot be)."""
    started = time.perf_counter()
    trace = explain_cli.load(path, max_bytes)
    try:
        x = explain.explain(trace, gpu)
    except ValueError as exc:
        raise BadInput(f"{Path(path).name}: {exc}") from None
    err.write(words.text("tracediff.progress.read", lang, which=words.text(f"tracediff.{which}", lang),
                         name=path, events=trace.events, calls=len(x.calls), steps=len(x.steps),
                         seconds=f"{time.perf_counter() - started:.1f}") + "\n")  # fmt: skip
    err.flush()
    return diff.side(x)


def cmd_diff(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof diff``: what changed from one trace to another."""
    lang, gpu, max_bytes = explain_cli.options(args)
    checks.distinct({"--json": args.json, "--html": args.html}, {"BEFORE": args.before, "AFTER": args.after})
    json_to = explain_cli.output(args.json, "JSON file", args.force)
    html_to = explain_cli.output(args.html, "HTML file", args.force)
    for path in (args.before, args.after):
        if not os.path.exists(path):  # one line, before a read that cannot start
            raise BadInput(f"no trace file {path!r}; expected a .json or .json.gz file from export_chrome_trace")
    before = read(args.before, "before", gpu, max_bytes, lang, err)
    after = read(args.after, "after", gpu, max_bytes, lang, err)
    d = diff.diff(before, after)
    written: list[tuple[str, str, str]] = []  # (the option's value, the content, its progress line's key)
    if json_to is not None:
        written.append((args.json, explain_cli.dumps(d.to_dict()), "tracediff.progress.json"))
    if html_to is not None:
        written.append((args.html, diffhtml.page(d, lang), "tracediff.progress.html"))
    commands.write_all([(n, t) for n, t, _ in written if n != files.STDOUT], args.force, args.interrupts_seen)
    for name, text, _ in written:
        if name == files.STDOUT:
            out.write(text)
    for name, _, key in written:
        if name != files.STDOUT:
            err.write(words.text(key, lang, name=name) + "\n")
    if json_to != files.STDOUT and html_to != files.STDOUT:
        out.write(report.text(d, lang))
    return 0
