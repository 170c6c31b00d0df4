"""Checking a command line before any work: the values, the device, the output paths, and what the run will cost.

Every check here runs before anything is measured; each refusal is :class:`BadInput`, one line naming the value
and what is accepted. The values are checked before the device is looked at, so that bad input never waits for
torch to import.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from attnprof import inputs, variants
from attnprof.measure import cost, profiling, sweeprun
from attnprof.records import files
from attnprof.words.fmt import quoted

#: Accepted spellings, as the messages and the help list them.
DTYPES = ", ".join(inputs.DTYPE_ALIASES)
VARIANTS = ", ".join(variants.VARIANTS)
DEVICES = ", ".join(inputs.DEVICES)


class BadInput(Exception):
    """Input the command cannot use; the message names the value and what is accepted (one line)."""


def text(accepted: str) -> Callable[[str], str]:
    """An argparse ``type`` that refuses an empty (or blank) value, naming what is accepted: one rule for every
    option of every command."""

    def check(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"empty value {quoted(value)}; expected {accepted}")
        return value

    return check


def device_name(name: str | None) -> str | None:
    """``--device`` checked as a name alone (``None`` when not given), without torch: what a command checks before
    it imports torch to look at the device."""
    try:
        return None if name is None else inputs.canonical_device(name)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def device(name: str | None) -> str:
    """The device to use: ``name`` if it is there, CUDA when available if ``None``."""
    if name is not None:
        try:
            name = inputs.canonical_device(name)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    if name == "cpu":
        return name  # no torch needed to say so
    if name is None:
        return profiling.default_device()
    missing = profiling.cuda_missing_reason()
    if missing:
        raise BadInput(f"device 'cuda' is not available here ({missing}); choose one of: cpu")
    return name


def setup(args: argparse.Namespace) -> inputs.Setup:
    """The shape, dtype and device asked for (the device's default shape when none is given)."""
    dtype = args.dtype or "bfloat16"
    try:
        if args.shape is not None:
            inputs.make_setup(args.shape, dtype, "cpu")  # the shape and the dtype alone, without torch
        else:
            inputs.canonical_dtype(dtype)
        where = device(args.device)
        default = inputs.REFERENCE_SHAPE if where == "cuda" else inputs.CPU_SHAPE  # as inputs.default_setup
        shape = args.shape if args.shape is not None else default
        return inputs.make_setup(shape, dtype, where)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def variant_names(names: Sequence[str]) -> list[str]:
    """Registry names, each checked."""
    try:
        return [variants.get(n).name for n in names]
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def items(option: str, values: Sequence[str] | None) -> list[str] | None:
    """``["512,1024", "2048"]`` -> ``["512", "1024", "2048"]`` (commas or spaces); an empty item is bad input."""
    if values is None:
        return None
    for value in values:
        if not all(part.strip() for part in value.split(",")):
            raise BadInput(
                f"empty item in {option} {quoted(value)}; expected values separated by commas or spaces, such as "
                "512,1024"
            )
    return [part.strip() for value in values for part in value.split(",")]


def budget(value: str | None) -> float | None:
    """A time budget in seconds: a finite positive number."""
    if value is None:
        return None
    seconds = inputs.plain_number(value)
    if seconds is None or not (math.isfinite(seconds) and seconds > 0):
        raise BadInput(f"bad time budget {quoted(value)}; expected a positive number of seconds such as 45")
    return seconds


def output(value: str | None, what: str, force: bool = False, stdout: bool = False) -> Path | None:
    """The checked output path (:func:`attnprof.records.files.check_output`; ``-`` is standard output when
    ``stdout``), or ``None`` when none was asked for."""
    if value is None:
        return None
    try:
        return files.check_output(value, what, force=force, stdout=stdout)
    except files.BadPath as exc:
        raise BadInput(str(exc)) from None


def distinct(outputs: dict[str, str | None], inputs_: dict[str, str | None] | None = None) -> None:
    """Refuse outputs that would overwrite an input of the same command, or each other (through links, ``..`` and
    hard links: :func:`attnprof.records.files.clash`), before anything is read or written; ``--force`` does not
    change this."""
    why = files.clash(outputs, inputs_)
    if why is not None:
        raise BadInput(why)


def sweep_config(args: argparse.Namespace) -> sweeprun.SweepConfig:
    """The sweep asked for, every value checked before the device is looked at."""
    names = variant_names(items("--variants", args.variants) or [])
    seqs, dims = items("--seqs", args.seqs), items("--head-dims", args.head_dims)
    compiled = items("--compiled-seqs", args.compiled_seqs)
    options = dict(
        batch=args.batch,
        heads=args.heads,
        dtype=args.dtype,
        compiled_seqs=compiled or (),
        budget_s=budget(args.budget_s),
    )
    try:
        sweeprun.make_config(names or None, seqs, dims, device="cpu", **options)  # every value, without torch
        return sweeprun.make_config(names or None, seqs, dims, device=device(args.device), **options)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


# --- cost before work -----------------------------------------------------------------------------------------------


def plan(names: Sequence[str], run: inputs.Setup, force: bool,
         dry_run: bool = False) -> tuple[list[cost.Estimate], cost.Limit | None]:  # fmt: skip
    """The estimates of profiling ``names`` at ``run`` and the memory there is; refuses a run that cannot fit
    (:func:`attnprof.measure.cost.check`) unless ``force`` or ``dry_run`` (whose plan says it, :func:`dry_run`)."""
    limit = cost.available(run.device)
    estimates = [cost.estimate(n, run, limit=limit) for n in names]
    if not (force or dry_run):
        try:
            cost.check(estimates, limit)
        except cost.TooCostly as exc:
            raise BadInput(str(exc)) from None
    return estimates, limit


def describe_plan(command: str, estimates: Sequence[cost.Estimate], limit: cost.Limit | None) -> str:
    """``compare: 9 variants at [...] on cpu: about 6.1 min, at most 1.2 GiB at once (22.8 GiB of ...)``; several
    setups are each described, ``; `` between them."""
    names = list(dict.fromkeys(e.variant for e in estimates))
    runs = list(dict.fromkeys(e.setup for e in estimates))
    what = names[0] if len(names) == 1 else f"{len(names)} variants"
    seconds = [e.seconds for e in estimates if e.seconds is not None]
    line = f"{command}: {what} at {'; '.join(run.describe() for run in runs)}"
    if seconds:
        line += f": about {cost.human_seconds(sum(seconds))}"
    line += f", at most {cost.human_bytes(max(e.bytes for e in estimates))} at once"
    if limit is not None:
        line += f" ({cost.human_bytes(limit.bytes)} of {limit.source})"
    return line


def refusal(estimates: Sequence[cost.Estimate], limit: cost.Limit | None, force: bool) -> str | None:
    """Why the run would be refused (:func:`attnprof.measure.cost.check`), or ``None``: what a dry run says last."""
    if force:
        return None
    try:
        cost.check(estimates, limit)
    except cost.TooCostly as exc:
        return str(exc)
    return None


def dry_run(out: IO[str], command: str, estimates: Sequence[cost.Estimate], limit: cost.Limit | None,
            force: bool = False) -> int:  # fmt: skip
    """What ``--dry-run`` prints: the run, each variant's estimates, and why the run would be refused (unless
    ``force``); exit status 0."""
    out.write(f"dry run; would run {describe_plan(command, estimates, limit)}\n")
    for e in estimates:
        line = (
            f"  {e.variant}: about {cost.human_bytes(e.bytes)}, reference check {cost.human_bytes(e.reference_bytes)}"
        )
        if limit is not None and e.reference_bytes > limit.bytes:
            line += " (will be skipped: more than there is)"
        if e.seconds is not None:
            line += f", about {cost.human_seconds(e.seconds)}"
        out.write(line + "\n")
    refused = refusal(estimates, limit, force)
    if refused is not None:
        out.write(f"would be refused: {refused}\n")
    return 0
