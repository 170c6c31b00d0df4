"""The command line's other workloads (:mod:`attnprof.workloads`): ``--workload train|decode`` for ``profile``,
``compare`` and ``sweep``, with the decoding step's KV cache (``--kv-heads``, ``--kv-len``)."""

from __future__ import annotations

import argparse
import json
from typing import IO

from attnprof import inputs, variants, workloads
from attnprof.analysis.summary import analyse
from attnprof.analysis.workload_rows import Build
from attnprof.cli import checks
from attnprof.cli.checks import BadInput
from attnprof.measure import profiling
from attnprof.measure.interrupts import import_torch, raise_if_interrupted
from attnprof.records import files, results
from attnprof.render import report, workloadreport


def name(args: argparse.Namespace) -> str:
    """``--workload``, checked: one of the registry's workloads."""
    chosen = args.workload or "prefill"
    if chosen not in workloads.WORKLOADS:
        raise BadInput(f"unknown workload {chosen!r}; choose one of: {', '.join(map(repr, workloads.WORKLOADS))}")
    return chosen


def check_variant(variant: str, workload: str) -> None:
    """Refuse a variant that does not take part in ``workload``, saying why."""
    try:
        workloads.check(variant, workload)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def setup(args: argparse.Namespace, kv_len: int | str | None = None, shape: str | None = None) -> inputs.Setup:
    """The setup of ``--workload``: the shape (``shape``, ``--shape``, or the workload's default), dtype, device, and
    for decoding the KV cache (``--kv-heads``, ``--kv-len``; the workload's defaults when no shape is given)."""
    workload = name(args)
    where = checks.device(args.device)
    base = workloads.default_setup(workload, where)
    shape = shape or getattr(args, "shape", None)
    kv_heads, kv_len = args.kv_heads, kv_len or args.kv_len
    if workload == "decode" and shape is None:
        kv_heads, kv_len = kv_heads or base.kv_heads, kv_len or base.kv_len
    try:
        made = inputs.make_setup(shape or base.shape, args.dtype or base.dtype, where, kv_heads=kv_heads,
                                 kv_len=kv_len)  # fmt: skip
        return workloads.check_setup(workload, made)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def table(workload: str, found: list[results.Result]) -> str:
    """The comparison table of ``found``: the article's for prefill, the training or decoding table otherwise."""
    if workload == "prefill":
        return report.compare_table(found)
    build = Build({workload: [analyse(r) for r in found]})
    rows = build.train_rows() if workload == "train" else build.decode_rows()
    return workloadreport.train_table(rows) if workload == "train" else workloadreport.decode_table(rows)


def _sweep_shape(args: argparse.Namespace, length: str) -> str:
    """``B,H,S,D`` of one point of a training or decoding sweep: ``--batch``, ``--heads`` and the first of
    ``--head-dims`` (the workload's defaults where left out); ``S`` is the length (training) or 1 (decoding)."""
    b, h, _, d = workloads.default_setup(args.workload, checks.device(args.device)).shape
    dims = checks.items("--head-dims", args.head_dims) or [d]
    try:
        b, h, d = (inputs.positive_int(n, v, e) for n, v, e in (("batch", args.batch or b, "8"),
                   ("heads", args.heads or h, "16"), ("head_dim", dims[0], "64")))  # fmt: skip
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return f"{b},{h},{1 if args.workload == 'decode' else length},{d}"


def cmd_sweep(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof sweep --workload train|decode``: profile the variants over sequence (train) or cache (decode)
    lengths, ``--seqs`` (the build's plan when left out)."""
    workload = name(args)
    where = checks.device(args.device)
    out_path = checks.output(args.out, "output file")
    chosen = checks.variant_names(checks.items("--variants", args.variants) or []) or None
    for variant in chosen or ():
        check_variant(variant, workload)
    lengths = checks.items("--seqs", args.seqs)
    if lengths is None:
        runs = [(p.variant, p.setup) for p in workloads.plan(workload, where, tuple(chosen) if chosen else None)]
    else:
        try:
            lengths = [str(inputs.positive_int("length", n, "4096")) for n in lengths]
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        runs = []
        for n in lengths:
            kv_len = n if workload == "decode" else None
            run = setup(args, kv_len=kv_len, shape=_sweep_shape(args, n))
            runs += [(v, run) for v in chosen or variants.for_workload(workload)]
    if args.dry_run:
        out.write(f"dry run; would profile {len(runs)} {workload} runs: "
                  + ", ".join(f"{v} {s.describe()}" for v, s in runs) + "\n")  # fmt: skip
        return 0
    import_torch()
    found = []
    for i, (variant, run) in enumerate(runs, start=1):
        err.write(f"[{i}/{len(runs)}] {variant} {workload} {run.describe()}\n")
        found.append(profiling.profile(variant, run, workload=workload))
        raise_if_interrupted(args.interrupts_seen)
    out.write(table(workload, found) + "\n")
    if out_path is not None:
        data = json.dumps([r.to_dict() for r in found], indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        files.atomic_write(out_path, data.encode())
        err.write(f"results written to {args.out}\n")
    return 0
