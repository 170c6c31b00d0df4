"""The argument parser: every command and option, each with its default (the device's, where it depends on the
device) and the values it accepts, and an example per command. A declarative table, read by ``--help``."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from attnprof import __version__, workloads
from attnprof.cli import advice
from attnprof.cli.checks import DTYPES, VARIANTS, BadInput, text
from attnprof.measure import sweeprun
from attnprof.records.eligibility import LAYOUTS, MASKS
from attnprof.words.fmt import shorten


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (with the usage folded in), raised instead of exiting; an
    unknown option is answered with the usage of the command it was given to."""

    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        usage = " ".join(self.format_usage().split())
        message = re.sub(r"\S{80,}", lambda m: shorten(m.group(0), 60), message)  # argparse echoes a value whole
        raise BadInput(f"{message}; {usage}")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        args = list(sys.argv[1:] if args is None else args)
        commands = getattr(self, "commands", {})
        if args and args[0] not in commands and args[0].lower() in commands:  # a command's name in any case
            args[0] = args[0].lower()
        args = _glued(args, args[0] if args else None)
        found, extras = self.parse_known_args(args, namespace)
        if extras:
            where = commands.get(getattr(found, "command", None), self)
            where.error(f"unrecognized arguments: {shorten(' '.join(extras), 60)}")
        return found


_NEGATIVE = re.compile(r"-[0-9.]")


def _glued(args: list[str], command: str | None) -> list[str]:
    """``--shape -1,4,256,64`` as ``--shape=-1,4,256,64``: argparse takes a value that starts with ``-`` and is not a
    plain negative number for an option, and says "expected one argument"; glued, the value reaches the option's own
    check, which names it."""
    if command not in COMMANDS:
        return args
    options = COMMANDS[command][2]
    takes_one = {flag for flag, kw in options if flag.startswith("-") and not {"nargs", "action"} & set(kw)}
    out: list[str] = []
    for k, a in enumerate(args):
        if out and out[-1] in takes_one and "=" not in out[-1] and _NEGATIVE.match(a) and k > 0:
            out[-1] = f"{out[-1]}={a}"
            continue
        out.append(a)
    return out


def _join(values: tuple[object, ...], sep: str = " ") -> str:
    return sep.join(map(str, values))


DEVICE = ("--device", dict(type=text("cuda or cpu"), help="cuda or cpu (default: cuda when available, else cpu)"))
DRY_RUN = (
    "--dry-run",
    dict(
        action="store_true",
        help="check everything, print the plan and its estimated memory and time, run nothing (default: run)",
    ),
)
FORCE = (
    "--force",
    dict(
        action="store_true",
        help="run even when the estimated memory or time is more than this machine has (default: refuse, exit 2)",
    ),
)
SETUP = (
    (
        "--shape",
        dict(
            type=text("four positive integers B,H,S,D such as 1,4,256,64"),
            help="B,H,S,D: four positive integers, separated by commas or x (default: 8,16,1024,64 on CUDA, "
            "1,4,256,64 on the CPU)",
        ),
    ),
    ("--dtype", dict(type=text(f"one of: {DTYPES}"), help=f"one of: {DTYPES} (default: bf16)")),
    DEVICE,
)

WORKLOAD = (
    (
        "--workload",
        dict(
            metavar="W",
            type=text("prefill, train or decode"),
            help="prefill (one causal forward, the article's), train (forward + backward) or decode (one token "
            "against a KV cache) (default: prefill)",
        ),
    ),
    (
        "--kv-heads",
        dict(
            metavar="N",
            type=text("a positive integer dividing the query heads, such as 8"),
            help="decode: KV heads, a divisor of the query heads (default: the decoding workload's, "
            f"{workloads.DECODE_KV_HEADS} on CUDA and {workloads.CPU_DECODE_KV_HEADS} on the CPU; with --shape, as "
            "many as the query heads: no grouping)",
        ),
    ),
    (
        "--kv-len",
        dict(
            metavar="L",
            type=text("a positive integer such as 4096"),
            help="decode: length of the KV cache (default: the decoding workload's)",
        ),
    ),
)


def reading_options(what: str, schema: str, page: str, gpu: str) -> tuple[tuple[str, dict], ...]:
    """The options of the trace readers (``explain``, ``diff``): where ``what`` goes as JSON of ``schema`` and as
    ``page``, in which language, for which GPU (``gpu``: its help), and how much of a trace is read."""
    return (
        (
            "--json",
            dict(
                metavar="FILE",
                type=text("a file name, or - for standard output"),
                help=f"also write {what} as JSON (schema {schema}) to FILE: a regular file or a new one in an "
                "existing folder; - prints it instead of the text (default: no JSON)",
            ),
        ),
        (
            "--html",
            dict(
                metavar="FILE",
                type=text("a file name, or - for standard output"),
                help=f"also write {page} to FILE; - prints it instead of the text (default: no page)",
            ),
        ),
        ("--lang", dict(type=text("en or ja"), help="language of the text and the page: en or ja (default: en)")),
        ("--gpu", dict(metavar="N", type=text("a GPU id such as 0"), help=gpu)),
        (
            "--max-mb",
            dict(
                metavar="MB",
                type=text("a positive number of megabytes such as 1024"),
                help="the most JSON read from the trace, after decompression, in megabytes; larger traces are "
                "refused (default: 512)",
            ),
        ),
    )


#: name -> (summary, example, options as (flag, argparse keywords))
COMMANDS: dict[str, tuple[str, str, tuple[tuple[str, dict], ...]]] = {
    "list": (
        "List the variants, and whether each runs here (one tiny call each).",
        "attnprof list --device cpu --no-compile",
        (
            DEVICE,
            (
                "--no-compile",
                dict(
                    action="store_true", help="skip the variants that compile, whose check is slow (default: check)"
                ),
            ),
        ),
    ),
    "profile": (
        "Profile one variant: its kernel table and summary.",
        "attnprof profile sdpa_flash --shape 1,4,256,64 --dtype fp32 --device cpu --trace flash.json.gz",
        (
            ("variant", dict(type=text(f"one of: {VARIANTS}"), help=f"one of: {VARIANTS}")),
            *SETUP,
            *WORKLOAD,
            (
                "--trace",
                dict(
                    metavar="FILE",
                    type=text("a file name"),
                    help="also write the Chrome trace to FILE: a regular file, or a new one in an existing folder; "
                    "gzipped if FILE ends in .gz; - prints it instead of the tables; a read-only FILE or a link is "
                    "refused unless --force (default: no trace file)",
                ),
            ),
            ("--json", dict(action="store_true", help="print the result as JSON (default: tables)")),
            FORCE,
            DRY_RUN,
        ),
    ),
    "compare": (
        "Profile several variants: one row each.",
        "attnprof compare naive sdpa_flash sdpa_math --device cpu",
        (
            (
                "variants",
                dict(
                    nargs="*",
                    type=text(f"variant names: {VARIANTS}"),
                    help=f"variants to compare, any of: {VARIANTS} (default: all that take part in the workload)",
                ),
            ),
            *SETUP,
            *WORKLOAD,
            (
                "--lengths",
                dict(
                    nargs="+",
                    metavar="L",
                    type=text("positive integers such as 1024,16384"),
                    help="train or decode: profile every variant at each length, the sequence length of a training "
                    "step or the KV cache's length of a decoding step, e.g. 1024 16384 or 1024,16384 (default: one "
                    "run, at --shape and --kv-len); the prefill forward over sequence lengths is 'attnprof sweep'",
                ),
            ),
            ("--json", dict(action="store_true", help="print the results as a JSON list (default: a table)")),
            FORCE,
            DRY_RUN,
        ),
    ),
    "sweep": (
        "Time the variants' prefill forward over sequence lengths and head dims, without the profiler.",
        "attnprof sweep --device cpu --seqs 128,256 --head-dims 64 --out sweep.json",
        (
            (
                "--variants",
                dict(
                    nargs="+",
                    metavar="V",
                    type=text(f"variant names: {VARIANTS}"),
                    help=f"variants, any of: {VARIANTS}; by commas or spaces (default on CUDA: "
                    f"{_join(sweeprun.GPU_VARIANTS, ', ')}; on the CPU: {_join(sweeprun.CPU_VARIANTS, ', ')})",
                ),
            ),
            (
                "--seqs",
                dict(
                    nargs="+",
                    metavar="S",
                    type=text("positive integers such as 512,1024"),
                    help="sequence lengths, positive integers, e.g. 512 1024 or 512,1024 (default on CUDA: "
                    f"{_join(sweeprun.GPU_SEQS)}; on the CPU: {_join(sweeprun.CPU_SEQS)})",
                ),
            ),
            (
                "--head-dims",
                dict(
                    nargs="+",
                    metavar="D",
                    type=text("positive integers such as 64,128"),
                    help="head dimensions, positive integers, e.g. 64 128 (default on CUDA: "
                    f"{_join(sweeprun.GPU_HEAD_DIMS)}; on the CPU: {_join(sweeprun.CPU_HEAD_DIMS)})",
                ),
            ),
            (
                "--batch",
                dict(
                    type=text("a positive integer such as 8"),
                    help=f"batch size, a positive integer (default: {sweeprun.GPU_BATCH} on CUDA, "
                    f"{sweeprun.CPU_BATCH} on the CPU)",
                ),
            ),
            (
                "--heads",
                dict(
                    type=text("a positive integer such as 16"),
                    help=f"number of heads, a positive integer (default: {sweeprun.GPU_HEADS} on CUDA, "
                    f"{sweeprun.CPU_HEADS} on the CPU)",
                ),
            ),
            (
                "--dtype",
                dict(
                    type=text(f"one of: {DTYPES}"),
                    help=f"one of: {DTYPES} (default: {sweeprun.GPU_DTYPE} on CUDA, {sweeprun.CPU_DTYPE} on the CPU)",
                ),
            ),
            DEVICE,
            (
                "--compiled-seqs",
                dict(
                    nargs="+",
                    metavar="S",
                    type=text("positive integers such as 1024"),
                    help="sequence lengths for the variants that compile, positive integers (default on CUDA "
                    f"without --seqs: {_join(sweeprun.COMPILED_SEQS)}; otherwise all of --seqs)",
                ),
            ),
            (
                "--budget-s",
                dict(
                    metavar="SECONDS",
                    type=text("a positive number of seconds such as 45"),
                    help="time budget in seconds, a positive number; what is not done within it is skipped and the "
                    f"sweep marked incomplete (default: {sweeprun.GPU_BUDGET_S:g} on CUDA, "
                    f"{sweeprun.CPU_BUDGET_S:g} on the CPU)",
                ),
            ),
            (
                "--out",
                dict(
                    metavar="FILE",
                    type=text("a file name"),
                    help="also write the sweep as JSON to FILE: a regular file, or a new one in an existing folder; "
                    "gzipped if FILE ends in .gz; - prints it instead of the tables; a read-only FILE or a link is "
                    "refused unless --force (default: no file)",
                ),
            ),
            (
                "--force",
                dict(
                    action="store_true",
                    help="also run points whose estimated memory is more than this machine has, and replace a "
                    "read-only --out FILE or write through a link (default: mark them oom without running them)",
                ),
            ),
            DRY_RUN,
        ),
    ),
    "why": (
        "Ask each SDPA backend whether it takes these inputs: PyTorch's reason for every refusal, SDPA's pick, and "
        "one real call per backend that confirms it (timed).",
        "attnprof why --device cpu --shape 1,4,256,64 --dtype bf16 --mask bool --dropout 0.1 --train",
        (
            *SETUP,
            (
                "--mask",
                dict(
                    metavar="M",
                    type=text(f"one of: {_join(MASKS, ', ')}"),
                    help="none, causal (is_causal=True), bool (a boolean attn_mask) or float (an additive attn_mask "
                    "of the dtype); both masks causal, [B, 1, S, S] (default: causal)",
                ),
            ),
            (
                "--kv-heads",
                dict(
                    metavar="N",
                    type=text("a positive integer dividing the query heads, such as 4"),
                    help="KV heads, a divisor of the query heads; fewer than H asks with enable_gqa=True "
                    "(default: H, no GQA)",
                ),
            ),
            (
                "--dropout",
                dict(
                    metavar="P",
                    type=text("a probability such as 0.1"),
                    help="dropout probability, from 0 up to (not including) 1 (default: 0)",
                ),
            ),
            (
                "--layout",
                dict(
                    metavar="L",
                    type=text(f"one of: {_join(LAYOUTS, ', ')}"),
                    help="contiguous, transposed (a [B,S,H,D] tensor viewed as [B,H,S,D]), strided (head_dim not "
                    "contiguous) or nested (a jagged tensor, rows from S down) (default: contiguous)",
                ),
            ),
            (
                "--train",
                dict(
                    action="store_true",
                    help="inputs that require gradients; calls run the backward too (default: inference)",
                ),
            ),
            (
                "--no-call",
                dict(
                    action="store_true",
                    help="ask the checks only, run no call (default: confirm each verdict with one real call, timed)",
                ),
            ),
            ("--json", dict(action="store_true", help="print the answer as JSON (default: a table)")),
            (
                "--force",
                dict(
                    action="store_true",
                    help="make the calls even when their estimated memory or time is more than this machine has "
                    "(default: refuse, exit 2)",
                ),
            ),
            DRY_RUN,
        ),
    ),
    "explain": (
        "Read any PyTorch profiler trace: its steps, every attention call with its backend, kernels and flags; "
        "--measure times each call here and what a change would save.",
        "attnprof explain trace.json.gz --measure --html report.html --json report.json --lang en",
        (
            (
                "trace",
                dict(
                    metavar="TRACE",
                    type=text("a .json or .json.gz trace file"),
                    help="a trace from torch.profiler's export_chrome_trace, .json or .json.gz",
                ),
            ),
            *reading_options(
                "the reading",
                "attnprof.explain",
                "one self-contained HTML page with the interactive timeline",
                "for a trace of several GPUs, the one to read: a GPU id such as 0 (default: the trace's only GPU; a "
                "trace of several is refused without it)",
            ),
            (
                "--force",
                dict(
                    action="store_true",
                    help="replace a read-only output FILE, or write the file a link points to; with --measure, "
                    "also run options estimated to need more memory than the device has, and past the budget "
                    "(default: refuse, exit 2)",
                ),
            ),
            *advice.OPTIONS,
            (
                "--no-why",
                dict(
                    action="store_true",
                    help="do not ask PyTorch why each SDPA backend would or would not take the recorded "
                    "inputs, and do not import torch (default: ask, where the trace recorded shapes)",
                ),
            ),
        ),
    ),
    "diff": (
        "Compare two PyTorch profiler traces: steps and attention calls matched, what changed in time, kernels and "
        "backends, by the noise rules.",
        "attnprof diff sdpa.json.gz eager.json.gz --html diff.html --json diff.json --lang en",
        (
            (
                "before",
                dict(
                    metavar="BEFORE",
                    type=text("a .json or .json.gz trace file"),
                    help="the trace before the change (torch.profiler's export_chrome_trace, .json or .json.gz)",
                ),
            ),
            (
                "after",
                dict(
                    metavar="AFTER",
                    type=text("a .json or .json.gz trace file"),
                    help="the trace after the change, compared with BEFORE",
                ),
            ),
            *reading_options(
                "the comparison",
                "attnprof.diff",
                "the comparison as one self-contained HTML page",
                "for traces of several GPUs, the one to read in both: a GPU id such as 0 (default: each trace's "
                "only GPU; a trace of several is refused without it)",
            ),
            (
                "--force",
                dict(
                    action="store_true",
                    help="replace a read-only output FILE, or write the file a link points to (default: refuse, "
                    "exit 2)",
                ),
            ),
        ),
    ),
    "bundle": (
        "Pack a build's results with where they were measured (create), or read a bundle back (show).",
        "attnprof bundle create --from _build/results --out h200.tar.gz",
        (
            ("action", dict(metavar="ACTION", type=text("create or show"), help="create or show")),
            (
                "file",
                dict(metavar="FILE", nargs="?", type=text("a .tar.gz bundle"), help="show: the bundle to read"),
            ),
            (
                "--from",
                dict(
                    dest="sources",
                    metavar="PATH",
                    action="append",
                    type=text("a results folder or a result file"),
                    help="create: a results folder (its result, trace, sweep and run files) or one file; "
                    "repeat for more (required)",
                ),
            ),
            (
                "--out",
                dict(type=text("a file name ending in .tar.gz"), help="create: the bundle to write (required)"),
            ),
            (
                "--label",
                dict(
                    type=text("a short machine name"),
                    help="create: the machine's name on the site (default: "
                    "GPU count and model, such as 2× NVIDIA H200)",
                ),
            ),
            (
                "--commit",
                dict(
                    type=text("a git commit"),
                    help="create: attnprof's commit (default: git rev-parse HEAD of the "
                    "installed package's work tree, when there is one)",
                ),
            ),
            (
                "--gpus",
                dict(
                    type=text("a whole number such as 2"),
                    help="create: the machine's GPU count (default: from the "
                    "files: the context-parallel run's world, else 1 on CUDA, 0 on the CPU)",
                ),
            ),
            ("--no-traces", dict(action="store_true", help="create: leave the traces out (default: keep them)")),
        ),
    ),
}


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``attnprof`` command (see :data:`COMMANDS`)."""
    top = Parser(
        prog="attnprof",
        description="Profile attention variants in PyTorch and read the profiler.",
        epilog="example:\n  attnprof profile naive --device cpu\n\nRun 'attnprof COMMAND --help' for its options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"attnprof {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    top.commands = {}
    for name, (summary, example, options) in COMMANDS.items():
        p = sub.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for flag, keywords in options:
            p.add_argument(flag, **keywords)
        top.commands[name] = p
    return top
