"""The ``attnprof`` command: list the variants, profile one, compare several, sweep sequence lengths, ask why a
backend takes or refuses some inputs.

Usage::

    attnprof list [--device cuda|cpu] [--no-compile]
    attnprof profile VARIANT [--shape B,H,S,D] [--dtype bf16] [--device cuda|cpu] [--workload W] [--kv-heads N]
                     [--kv-len L] [--trace FILE] [--json] [--force] [--dry-run]
    attnprof compare [VARIANT ...] [--shape B,H,S,D] [--dtype bf16] [--device cuda|cpu] [--workload W]
                     [--kv-heads N] [--kv-len L] [--lengths L ...] [--json] [--force] [--dry-run]
    attnprof sweep [--variants V ...] [--seqs S ...] [--head-dims D ...] [--batch N] [--heads N] [--dtype bf16]
                   [--device cuda|cpu] [--compiled-seqs S ...] [--budget-s SECONDS] [--out FILE] [--force]
                   [--dry-run]
    attnprof why [--shape B,H,S,D] [--dtype bf16] [--device cuda|cpu] [--mask none|causal|bool|float]
                 [--kv-heads N] [--dropout P] [--layout contiguous|transposed|strided|nested] [--train] [--no-call]
                 [--json] [--force] [--dry-run]
    attnprof bundle create --from PATH [--from PATH ...] --out FILE.tar.gz [--label L] [--commit C] [--gpus N]
                    [--no-traces]
    attnprof bundle show FILE.tar.gz
    attnprof explain TRACE [--json FILE|-] [--html FILE|-] [--lang en|ja] [--gpu N] [--max-mb MB] [--no-why]
    attnprof diff BEFORE AFTER [--json FILE|-] [--html FILE|-] [--lang en|ja] [--gpu N] [--max-mb MB]

``profile`` and ``compare`` run the profiler on a workload (:mod:`attnprof.workloads`: the article's prefill
forward, a training step, a decoding step); ``compare --lengths`` does so at several sequence or cache lengths.
``sweep`` is the sequence-length sweep: the prefill forward of every variant timed without the profiler over
sequence lengths and head dims, within a time budget (:mod:`attnprof.measure.sweeprun`).

The device defaults to CUDA when there is one, else the CPU; the shape to :func:`attnprof.inputs.default_setup`'s
(``8,16,1024,64`` on CUDA, ``1,4,256,64`` on the CPU) and the dtype to bf16. A variant that cannot run is a row
(or a summary) that says why, and the exit status is 0.

Every check comes before any work (:mod:`.checks`), and each refusal is one line naming the value and what is
accepted, with exit status 2: an unknown variant, dtype or device, a malformed shape or number, an empty value (for
every option), a device that is not there, an output path that cannot be written
(:func:`attnprof.records.files.check_output`), and a run estimated to need more memory than the device has, or more
than an hour on the CPU (:mod:`attnprof.measure.cost`; ``--force`` runs it anyway). ``--dry-run`` stops after the
checks and prints the plan with its estimates, and why the run would be refused, if it would. Names are taken in any
case, numbers as plain digits. Progress goes to standard error (:mod:`attnprof.cli.progress`), without the
profiler's own lines (:mod:`attnprof.cli.streams`). Ctrl-C, SIGTERM and SIGHUP stop the command at once with one line
and exit status 128 + the signal (130, 143, 129), leaving no partial or temporary file; a file or standard output that
cannot be written (a full disk, a closed stream) is one line and exit status 1; a reader of standard output that went
away (``attnprof list | head -1``) ends the command silently, with status 141.

The package: :mod:`.args` (the parser: every option, its default and accepted values), :mod:`.checks` (checking
input and cost before work), :mod:`.commands` (the commands that measure), :mod:`.why` (``why``), :mod:`.explain`
(reading any PyTorch profiler trace), :mod:`.diff` (comparing two), :mod:`.streams` (standard output and error).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import IO

from attnprof.cli import commands, streams
from attnprof.cli.args import parser
from attnprof.cli.bundle import cmd_bundle
from attnprof.cli.checks import BadInput
from attnprof.cli.commands import WriteFailed
from attnprof.cli.diff import cmd_diff
from attnprof.cli.explain import cmd_explain
from attnprof.cli.progress import ProgressBar
from attnprof.measure.interrupts import NUMPY_WARNING, counting_interrupts, interrupts_seen, last_signal
from attnprof.measure.profiling import CHECK_SHAPE, check_variant
from attnprof.words import fmt

__all__ = ["CHECK_SHAPE", "INTERRUPTED", "USAGE_ERROR", "BadInput", "ProgressBar", "check_variant", "main", "parser"]

#: Each command's function, by name.
COMMANDS = {**commands.COMMANDS, "explain": cmd_explain, "diff": cmd_diff, "bundle": cmd_bundle}
#: Exit status for bad input (and for runs refused before they start).
USAGE_ERROR = 2
#: Exit status after Ctrl-C (128 + SIGINT, as shells report it); SIGTERM and SIGHUP give 128 + theirs.
INTERRUPTED = 130
#: Exit status when an output file, or standard output, could not be written.
WRITE_ERROR = 1
#: Exit status when the reader of standard output went away (128 + SIGPIPE, as a shell reports ``yes | head -1``).
OUTPUT_GONE = 141
#: What the one line says for each signal that stops a run.
STOPPED_BY = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "terminated (SIGTERM)"}
if hasattr(signal, "SIGHUP"):
    STOPPED_BY[signal.SIGHUP] = "hung up (SIGHUP)"


def main(argv: Sequence[str] | None = None, *, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run the command line ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status.

    Run as the program (``argv`` and the streams left out), the program's streams are
    :func:`attnprof.cli.streams.program_streams`', and a run stopped by a signal ends the process right after its
    one line, with status 128 + the signal: an interrupt that lands inside torch's import can leave Python resolved
    to end the process by SIGINT at exit, whatever the status it was given.

    Args:
        argv: The arguments after the program name.
        out: Where tables (and ``--help``) go (standard output by default).
        err: Where progress and errors go (standard error by default).
    """
    if argv is None and out is None and err is None:
        with streams.program_streams() as (out_, err_):
            code = _run(None, out_, err_)
            with contextlib.suppress(streams.OutputGone, streams.OutputFailed):
                out_.flush()
        if code in (OUTPUT_GONE, WRITE_ERROR) or code > 128:
            streams.silence(1)  # nothing left for Python's own flush at exit to fail on
        if code > 128 and code != OUTPUT_GONE:
            os._exit(code)  # see above
        return code
    return _run(argv, streams.Output(out or sys.stdout), streams.BestEffort(err or sys.stderr))


def _run(argv: Sequence[str] | None, out: streams.Output, err: streams.BestEffort) -> int:
    since = interrupts_seen()
    try:
        with counting_interrupts(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=NUMPY_WARNING, category=UserWarning)  # wherever torch loads
            try:
                with contextlib.redirect_stdout(out):  # type: ignore[type-var]
                    args = parser().parse_args(argv)
            except SystemExit as exc:  # --help and --version print and stop here
                out.flush()
                return exc.code if isinstance(exc.code, int) else 0
            args.interrupts_seen = since
            try:
                code = COMMANDS[args.command](args, out, err)
                out.flush()
                return code
            except Exception as exc:
                if isinstance(exc, (streams.OutputGone, streams.OutputFailed)):
                    raise
                if interrupts_seen() > since:  # what an interrupt broke on its way (a half-imported torch)
                    raise KeyboardInterrupt from None
                raise
    except BadInput as exc:
        err.write(f"attnprof: {one_line(str(exc))}\n")
        return USAGE_ERROR
    except KeyboardInterrupt:
        sig = last_signal() if interrupts_seen() > since else signal.SIGINT
        err.write(f"attnprof: {STOPPED_BY.get(sig, sig.name)}\n")
        err.flush()
        return 128 + int(sig)
    except (WriteFailed, streams.OutputFailed) as exc:
        err.write(f"attnprof: {one_line(str(exc))}\n")
        return WRITE_ERROR
    except streams.OutputGone:
        return OUTPUT_GONE


def one_line(message: str) -> str:
    """A refusal as the terminal shows it: one line, characters a terminal would act on escaped, and any run of 120
    or more characters without a space (a file name of thousands) shortened in its middle."""
    text = fmt.printable(message)
    return re.sub(r"\S{120,}", lambda m: fmt.shown(m.group(0), 100), text)
