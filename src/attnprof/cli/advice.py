"""``attnprof explain TRACE --measure``: every distinct attention call of the trace rebuilt on the trace's device and
timed with each backend that takes it and the changes the reading points to (:mod:`attnprof.analysis.advice` plans,
:mod:`attnprof.measure.advice` measures, :mod:`attnprof.render.advice` words it).

**The trace's device.** The options run where the trace ran: a GPU trace on a CUDA GPU, a CPU trace on the CPU (a
CPU trace is measured on the CPU even on a machine with a GPU: that is the device its times are of). A GPU trace on
a machine without CUDA is refused with one line that says so (``--dry-run`` still shows the plan, and why it would be
refused). Another GPU than the trace's is measured, with a warning above every figure.

**Refusals.** The options are checked, each refusal one line with exit status 2: ``--budget-s``, ``--max-calls``,
``--mask``, and ``--dry-run`` or those without ``--measure``. Before measuring, the run's time is estimated
(:func:`attnprof.measure.advice.estimate`); a run estimated past ``--budget-s`` is refused, naming the estimate,
unless ``--force``. An option estimated to need more memory than the device has is not run and says so in the report
(``--force`` runs it).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import IO

from attnprof import inputs, words
from attnprof.analysis import advice as planner
from attnprof.analysis.explain import Explanation
from attnprof.cli.checks import BadInput, text
from attnprof.measure import advice as measuring
from attnprof.measure.interrupts import import_torch, raise_if_interrupted
from attnprof.records.advice import Advice
from attnprof.render import advice as words_of
from attnprof.render.explain import Section, section_text
from attnprof.words.fmt import human_seconds, quoted

#: The options of ``attnprof explain`` that go with ``--measure`` (:mod:`attnprof.cli.args` lists them).
OPTIONS = (
    (
        "--measure",
        dict(
            action="store_true",
            help="rebuild every distinct attention call on the trace's device (a GPU trace needs a CUDA "
            "GPU; a CPU trace runs on the CPU) and time it with every backend that takes it and the "
            "changes the reading points to (default: read only)",
        ),
    ),
    (
        "--budget-s",
        dict(
            metavar="SECONDS",
            type=text("a positive number of seconds such as 120"),
            help="with --measure: refuse a run estimated to take longer, and stop measuring once it is "
            f"spent (default: {measuring.BUDGET_S:g})",
        ),
    ),
    (
        "--max-calls",
        dict(
            metavar="N",
            type=text("a positive integer such as 12"),
            help="with --measure: measure at most N distinct calls, the costliest per step first "
            f"(default: {planner.MAX_CALLS})",
        ),
    ),
    (
        "--mask",
        dict(
            metavar="FILL",
            type=text("causal, sliding=W or documents=N"),
            help="with --measure: what the trace's dense masks hold (a trace records their shape, not "
            "their values): causal, sliding=W (causal within W positions) or documents=N (N packed "
            "documents per row) (default: causal)",
        ),
    ),
    (
        "--dry-run",
        dict(
            action="store_true",
            help="with --measure: read the trace, print the plan with its estimated memory and time, "
            "measure nothing (default: measure)",
        ),
    ),
)


@dataclass(frozen=True)
class Options:
    """``--measure`` and what goes with it, checked."""

    measure: bool
    dry_run: bool
    budget_s: float
    max_calls: int
    fill: str
    force: bool


def options(args: argparse.Namespace) -> Options:
    """The measuring options of ``args``, checked before the trace is read.

    Raises:
        BadInput: one line naming the bad value and what is accepted.
    """
    budget = measuring.BUDGET_S
    if args.budget_s is not None:
        value = inputs.plain_number(args.budget_s)
        if value is None or not (0 < value < 1e7):
            raise BadInput(f"bad --budget-s {quoted(args.budget_s)}; expected a positive number of seconds such as "
                           "120")  # fmt: skip
        budget = float(value)
    max_calls = planner.MAX_CALLS
    if args.max_calls is not None:
        value = inputs.plain_int(args.max_calls)
        if value is None or value < 1:
            raise BadInput(f"bad --max-calls {quoted(args.max_calls)}; expected a positive integer such as 12")
        max_calls = value
    fill = "causal"
    if args.mask is not None:
        try:
            fill = planner.mask_fill(args.mask)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    if not args.measure:
        given = [f for f, v in (("--dry-run", args.dry_run), ("--budget-s", args.budget_s),
                                ("--max-calls", args.max_calls), ("--mask", args.mask)) if v]  # fmt: skip
        if given:
            raise BadInput(f"{given[0]} goes with --measure; add --measure, or leave {given[0]} out")
    return Options(bool(args.measure), bool(args.dry_run), budget, max_calls, fill, bool(args.force))


def _refusal(plan: Advice, opts: Options, lang: str | None) -> str | None:
    """Why the run would be refused (its estimate past the budget), or ``None``."""
    if plan.estimate_s > opts.budget_s and not opts.force:
        return words.text("advice.refuse.budget", lang, options=sum(len(c.options) for c in plan.cases),
                          seconds=human_seconds(plan.estimate_s), budget=human_seconds(opts.budget_s))  # fmt: skip
    return None


def _no_device(x: Explanation, missing: str | None, lang: str | None) -> str | None:
    if missing is None:
        return None
    if not x.trace.gpu:  # a CPU trace: only torch can be missing
        return words.text("advice.refuse.no_torch", lang, reason=missing)
    gpu = x.device or words.text("advice.a_gpu", lang)
    return words.text("advice.refuse.device", lang, name=x.trace.name, gpu=gpu, reason=missing)


@dataclass
class Outcome:
    """What ``--measure`` came to: the record to report, or the plan printed (a dry run)."""

    advice: Advice | None
    printed: bool = False


def run(
    x: Explanation, opts: Options, args: argparse.Namespace, out: IO[str], err: IO[str], lang: str, absent: str | None
) -> Outcome:
    """Plan, check, and measure (or print the plan, for ``--dry-run``); ``absent`` says why PyTorch here cannot have
    the trace's device, found without importing torch (:func:`attnprof.cli.explain.absent_device`), or is ``None``.

    Raises:
        BadInput: no torch, a GPU trace where there is no CUDA GPU, or a run estimated past the budget (not for a
            dry run).
    """
    device = "cuda" if x.trace.gpu else "cpu"
    plan = planner.plan(x, device, fill=opts.fill, max_calls=opts.max_calls)
    plan.budget_s = opts.budget_s
    measuring.estimate(plan)
    if absent is None:
        import_torch()
    missing = absent if absent is not None else measuring.missing_device(plan)
    if opts.dry_run:
        if missing is not None:
            plan.status, plan.reason = "no_device", missing
        out.write("\n\n".join(section_text(s, lang) for s in words_of.sections(plan, lang)) + "\n")
        refused = _no_device(x, missing, lang) or _refusal(plan, opts, lang)
        if refused is not None:
            out.write(words.text("advice.would_refuse", lang, why=refused) + "\n")
        return Outcome(plan, printed=True)
    refused = _no_device(x, missing, None) or _refusal(plan, opts, None)  # errors are one English line
    if refused is not None:
        raise BadInput(refused)
    n = sum(len(c.options) for c in plan.cases)
    err.write(words.text("advice.progress.start", lang, options=n, cases=sum(1 for c in plan.cases if c.options),
                         device=device, seconds=human_seconds(plan.estimate_s)) + "\n")  # fmt: skip
    err.flush()

    def say(case: int, option: str, result: str) -> None:
        err.write(words.text("advice.progress.option", lang, n=case, option=option, result=result) + "\n")
        err.flush()

    measured = measuring.run(plan, budget_s=opts.budget_s, force=opts.force, say=say)
    raise_if_interrupted(args.interrupts_seen)
    err.write(words.text("advice.progress.done", lang, seconds=human_seconds(measured.seconds)) + "\n")
    return Outcome(measured)


def sections(outcome: Outcome | None, lang: str) -> list[Section]:
    """The report's sections of what was measured (none without ``--measure``)."""
    if outcome is None or outcome.advice is None:
        return []
    return words_of.sections(outcome.advice, lang)
