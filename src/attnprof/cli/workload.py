"""The command line's other workloads (:mod:`attnprof.workloads`): ``--workload train|decode`` for ``profile`` and
``compare``, with the decoding step's KV cache (``--kv-heads``, ``--kv-len``) and, for ``compare``, several lengths
(``--lengths``: sequence lengths for training, cache lengths for decoding).

``attnprof sweep`` is another thing: it times the article's forward over sequence lengths and head dims without
the profiler (:mod:`attnprof.measure.sweeprun`); ``compare --lengths`` profiles every variant at every length."""

from __future__ import annotations

import argparse

from attnprof import inputs, workloads
from attnprof.analysis.summary import analyse
from attnprof.analysis.workload_rows import Build
from attnprof.cli import checks
from attnprof.cli.checks import BadInput
from attnprof.records import results
from attnprof.render import report, workloadreport


def name(args: argparse.Namespace) -> str:
    """``--workload``, checked: one of the registry's workloads."""
    try:
        return workloads.get(args.workload or workloads.article()).name
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def check_variant(variant: str, workload: str) -> None:
    """Refuse a variant that does not take part in ``workload``, saying why."""
    try:
        workloads.check(variant, workload)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def setup(args: argparse.Namespace, kv_len: int | str | None = None, shape: str | None = None,
          kv_heads: int | None = None) -> inputs.Setup:  # fmt: skip
    """The setup of ``--workload``: the shape (``shape``, ``--shape``, or the workload's default), dtype, device, and
    for decoding the KV cache (``--kv-heads`` or ``kv_heads``, ``--kv-len`` or ``kv_len``; the workload's defaults
    when no shape is given)."""
    workload = name(args)
    shape = shape or getattr(args, "shape", None)
    kv_heads, kv_len = args.kv_heads or kv_heads, kv_len or args.kv_len
    try:  # every value given, before the device is looked at (which may import torch)
        for given, check in ((shape, inputs.parse_shape), (args.dtype, inputs.canonical_dtype)):
            if given is not None:
                check(given)
        for option, given, example in (("kv_heads", kv_heads, "8"), ("kv_len", kv_len, "4096")):
            if given is not None:
                inputs.positive_int(option, given, example)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    where = checks.device(args.device)
    base = workloads.default_setup(workload, where)
    if workloads.get(workload).kv_cache and shape is None:
        kv_heads, kv_len = kv_heads or base.kv_heads, kv_len or base.kv_len
    try:
        made = inputs.make_setup(shape or base.shape, args.dtype or base.dtype, where, kv_heads=kv_heads,
                                 kv_len=kv_len)  # fmt: skip
        return workloads.check_setup(workload, made)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def setups(args: argparse.Namespace) -> list[inputs.Setup]:
    """What ``compare`` runs on: one setup (the article's forward takes :func:`attnprof.cli.checks.setup`'s), or one
    per ``--lengths``: the sequence length of a training step, the KV cache's length of a decoding step."""
    job, lengths = name(args), checks.items("--lengths", getattr(args, "lengths", None))
    w = workloads.get(job)
    if lengths is None:
        plain = w.article and args.kv_heads is None and args.kv_len is None
        return [checks.setup(args) if plain else setup(args)]
    if w.sweeps:
        raise BadInput(f"--lengths is for --workload train or decode; the {job} forward over sequence lengths is "
                       "timed by: attnprof sweep --seqs 512,1024")  # fmt: skip
    if w.kv_cache and args.kv_len is not None:
        raise BadInput(f"--lengths and --kv-len {args.kv_len} both set the KV cache's length; give one of them")
    try:
        ns = [inputs.positive_int("length", n, "4096") for n in lengths]
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    base = setup(args)
    b, h, _, d = base.shape
    if w.kv_cache:  # the KV heads of the workload's default (or --kv-heads) at every length
        return [setup(args, kv_len=n, shape=f"{b},{h},1,{d}", kv_heads=base.kv_heads) for n in ns]
    return [setup(args, shape=f"{b},{h},{n},{d}") for n in ns]


def table(workload: str, found: list[results.Result]) -> str:
    """The comparison table of ``found``: the article's for its forward, the training or decoding table otherwise."""
    w = workloads.get(workload)
    if w.article:
        return report.compare_table(found)
    build = Build({w.name: [analyse(r) for r in found]})
    if w.backward:
        return workloadreport.train_table(build.train_rows())
    return workloadreport.decode_table(build.decode_rows())
