"""``attnprof why``: which SDPA backend takes the reader's own inputs, which refuses and PyTorch's reason, and what
SDPA picks (:mod:`attnprof.measure.backends`); each verdict confirmed by one real call and timed, unless
``--no-call``."""

from __future__ import annotations

import argparse
import json
import math
from typing import IO

from attnprof import inputs
from attnprof.analysis.eligibility import describe
from attnprof.cli import checks
from attnprof.cli.checks import BadInput
from attnprof.measure import cost
from attnprof.measure.interrupts import import_torch, raise_if_interrupted
from attnprof.records.eligibility import LAYOUTS, MASKS, Case
from attnprof.render.eligibility import why_report
from attnprof.words.fmt import quoted

#: Calls of one backend with calls on: the confirming call, one warm-up and five timed (the grid's plan).
CALLS_PER_BACKEND = 7


def dropout(value: str | None) -> float:
    """``--dropout``: a probability from 0 up to (not including) 1."""
    if value is None:
        return 0.0
    p = inputs.plain_number(value)
    if p is None or not (math.isfinite(p) and 0.0 <= p < 1.0):
        raise BadInput(f"bad dropout {quoted(value)}; expected a probability from 0 up to (not including) 1, such as "
                       "0.1")  # fmt: skip
    return p


def choice(option: str, value: str | None, accepted: tuple[str, ...], default: str) -> str:
    """``value`` when it is one of ``accepted`` (``default`` when not given)."""
    if value is None:
        return default
    if value.lower() not in accepted:
        raise BadInput(f"unknown {option} {quoted(value)}; choose one of: {', '.join(accepted)}")
    return value.lower()


def case(args: argparse.Namespace) -> tuple[Case, str]:
    """The case asked for, and its device; every value checked before the device is looked at."""
    mask = choice("--mask", args.mask, MASKS, "causal")
    layout = choice("--layout", args.layout, LAYOUTS, "contiguous")
    p = dropout(args.dropout)
    run = checks.setup(args)
    try:
        made = inputs.make_setup(run.shape, run.dtype, run.device, kv_heads=args.kv_heads)
        kv_heads = made.kv_heads if made.kv_heads != made.shape[1] else None
        return Case(made.shape, made.dtype, kv_heads, mask, p, bool(args.train), layout), run.device
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _estimate(asked: Case, device: str) -> tuple[list[cost.Estimate], cost.Limit | None]:
    """What the calls will cost: the math backend's memory (it writes the score matrix, the mask beside it) and, on
    the CPU, the time of every call."""
    setup = inputs.make_setup(asked.shape, asked.dtype, device)
    b, _, s, _ = asked.shape
    mask = b * s * s * (1 if asked.mask == "bool" else inputs.element_bytes(asked.dtype)) if asked.mask in (
        "bool", "float") else 0  # fmt: skip
    need = cost.variant_bytes("sdpa_math", asked.shape, asked.dtype) * (2 if asked.requires_grad else 1) + mask
    seconds = None
    if device == "cpu":
        per_call = sum(cost.call_seconds(v, asked.shape, asked.dtype) for v in ("sdpa_math", "sdpa_flash"))
        seconds = per_call * CALLS_PER_BACKEND * (3 if asked.requires_grad else 1)
    return [cost.Estimate("sdpa_math", setup, need, 0, seconds)], cost.available(device)


def cmd_why(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof why``: every backend's verdict for the inputs asked about, and SDPA's pick."""
    asked, device = case(args)
    described = describe(asked)
    calls = not args.no_call
    estimates, limit = _estimate(asked, device)
    refused = checks.refusal(estimates, limit, args.force or not calls)
    if refused is not None and not args.dry_run:
        raise BadInput(f"{refused} (or --no-call to ask the checks only)")
    if args.dry_run:
        plan = "the checks and one call of each backend, timed" if calls else "the checks only"
        line = f"dry run; would ask {plan}: {described} on {device}"
        if calls:
            line += f"; the math backend needs about {cost.human_bytes(estimates[0].bytes)}"
            if estimates[0].seconds is not None:
                line += f", about {cost.human_seconds(estimates[0].seconds)} of calls"
        out.write(line + "\n")
        if refused is not None:
            out.write(f"would be refused: {refused} (or --no-call to ask the checks only)\n")
        return 0
    import_torch()
    from attnprof.measure import eligibility

    answer = eligibility.measure_case(asked, device, call=calls, timed=calls)
    raise_if_interrupted(args.interrupts_seen)
    if args.json:
        out.write(json.dumps({"case": asked.to_dict(), "answer": answer.to_dict()}, indent=1, sort_keys=True) + "\n")
        return 0
    out.write(why_report(answer, described) + "\n")
    return 0
