"""``attnprof diff BEFORE AFTER``: read two PyTorch profiler traces as ``attnprof explain`` does and say what changed
(:mod:`attnprof.analysis.diff`): steps, attention calls matched across the traces, their time and kernels, by the
noise rules; printed as text (:mod:`attnprof.render.diff`), and optionally written as JSON and as one self-contained
HTML page (:mod:`attnprof.render.diffhtml`).

Checks first, each refusal one line with exit status 2: the options, the output paths (an output that is one of the
traces is refused before anything is read), then each trace as ``attnprof explain`` checks it. PyTorch is never
asked (no torch import): the comparison is the two traces'.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import IO

from attnprof import words
from attnprof.analysis import diff, explain
from attnprof.cli import explain as explain_cli
from attnprof.cli.checks import BadInput
from attnprof.cli.commands import write
from attnprof.records import files
from attnprof.render import diff as report
from attnprof.render import diffhtml


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _distinct(args: argparse.Namespace) -> None:
    """Refuse an output that is one of the traces, or the other output, before anything is read."""
    outs = [(o, v) for o, v in (("--json", args.json), ("--html", args.html)) if v not in (None, files.STDOUT)]
    for option, value in outs:
        for name, trace in (("BEFORE", args.before), ("AFTER", args.after)):
            if os.path.exists(value) and os.path.exists(trace) and _same_file(value, trace):
                raise BadInput(f"{option} {value!r} is the trace {name}; choose another file for the output")
    if len(outs) == 2 and os.path.abspath(outs[0][1]) == os.path.abspath(outs[1][1]):
        raise BadInput(f"--json and --html both name {outs[0][1]!r}; give each its own file")


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
    _distinct(args)
    json_to = explain_cli.output(args.json, "JSON file", args.force)
    html_to = explain_cli.output(args.html, "HTML file", args.force)
    for path in (args.before, args.after):
        if not os.path.exists(path):  # one line, before a read that cannot start
            raise BadInput(f"no trace file {path!r}; expected a .json or .json.gz file from export_chrome_trace")
    before = read(args.before, "before", gpu, max_bytes, lang, err)
    after = read(args.after, "after", gpu, max_bytes, lang, err)
    d = diff.diff(before, after)
    if json_to is not None:
        data = explain_cli.dumps(d.to_dict())
        if json_to == files.STDOUT:
            out.write(data)
        else:
            write(args.json, data, args.force, out)
            err.write(words.text("tracediff.progress.json", lang, name=args.json) + "\n")
    if html_to is not None:
        page = diffhtml.page(d, lang)
        if html_to == files.STDOUT:
            out.write(page)
        else:
            write(args.html, page, args.force, out)
            err.write(words.text("tracediff.progress.html", lang, name=args.html) + "\n")
    if json_to != files.STDOUT and html_to != files.STDOUT:
        out.write(report.text(d, lang))
    return 0
