"""The ``attnprof`` command: list the variants, profile one, compare several, sweep sequence lengths.

Usage::

    attnprof list [--device cuda|cpu] [--no-compile]
    attnprof profile VARIANT [--shape B,H,S,D] [--dtype bf16] [--device cuda|cpu] [--trace FILE] [--json]
    attnprof compare [VARIANT ...] [--shape B,H,S,D] [--dtype bf16] [--device cuda|cpu] [--json]
    attnprof sweep [--variants V ...] [--seqs S ...] [--head-dims D ...] [--batch N] [--heads N] [--dtype bf16]
                   [--device cuda|cpu] [--compiled-seqs S ...] [--budget-s SECONDS] [--out FILE]

``profile``, ``compare`` and ``sweep`` also take ``--workload prefill|train|decode`` (:mod:`attnprof.workloads`;
prefill by default) and, for decoding, ``--kv-heads N --kv-len L`` (the KV cache; the shape's ``S`` is then the one
new token). A training or decoding sweep runs ``--seqs`` as sequence or cache lengths (the build's plan by default)
at ``--batch``, ``--heads`` and the first ``--head-dims``.

The device defaults to CUDA when there is one, else the CPU; the shape to :func:`attnprof.inputs.default_setup`'s
(``8,16,1024,64`` on CUDA, ``1,4,256,64`` on the CPU) and the dtype to bf16. A variant that cannot run is a row
(or a summary) that says why, and the exit status is 0. Bad input (an unknown variant, dtype or device, a malformed
shape, a device that is not there) prints one line naming the value and what is accepted, and exits with 2.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import textwrap
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import IO, NoReturn

from . import __version__, inputs, profiling, report, results, sweep, sweeprun, variants, workloads
from .analysis import analyse
from .workload_analysis import Build

#: Exit status for bad input.
USAGE_ERROR = 2
#: Shape of the call ``attnprof list`` makes to see whether a variant runs here.
CHECK_SHAPE = (1, 2, 128, 64)


class BadInput(Exception):
    """Input the command cannot use; the message names the value and what is accepted (one line)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (with the usage folded in), raised instead of exiting."""

    def error(self, message: str) -> NoReturn:
        usage = " ".join(self.format_usage().split())
        raise BadInput(f"{message}; {usage}")


# --- checking input -------------------------------------------------------------------------------------------------


def _device(name: str | None) -> str:
    """The device to use: ``name`` if it is there, CUDA when available if ``None``."""
    import torch

    if name is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name not in inputs.DEVICES:
        raise BadInput(f"unknown device {name!r}; choose one of: {', '.join(inputs.DEVICES)}")
    missing = profiling.cuda_missing_reason() if name == "cuda" else None
    if missing:
        raise BadInput(f"device 'cuda' is not available here ({missing}); choose one of: cpu")
    return name


def _setup(args: argparse.Namespace) -> inputs.Setup:
    device = _device(args.device)
    shape = args.shape if args.shape is not None else inputs.default_setup(device).shape
    try:
        return inputs.make_setup(shape, args.dtype, device)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _variant_names(names: Sequence[str]) -> list[str]:
    try:
        return [variants.get(n).name for n in names]
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _numbers(values: Sequence[str] | None) -> list[str] | None:
    """``["512,1024", "2048"]`` -> ``["512", "1024", "2048"]`` (commas or spaces)."""
    if values is None:
        return None
    return [part for v in values for part in v.split(",") if part.strip()]


# --- commands -------------------------------------------------------------------------------------------------------


def check_variant(name: str, device: str, dtype: str = "bfloat16") -> tuple[str, str | None]:
    """Whether ``name`` runs here: one tiny real call (:data:`CHECK_SHAPE`), judged like a profiled run.

    Returns:
        ``(status, reason)``: ``("ok", None)``, or a status of :data:`attnprof.results.STATUSES` and PyTorch's
        reason (see :func:`attnprof.profiling.failure`).
    """
    import torch

    v = variants.get(name)
    missing = profiling.cuda_missing_reason() if device == "cuda" else None
    if missing:
        return "no_cuda", missing
    setup = inputs.make_setup(CHECK_SHAPE, dtype, device)
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            q, k, v_ = inputs.make_inputs(setup)
            v.build(setup.shape[2], device)(q, k, v_)
            if device == "cuda":
                torch.cuda.synchronize()
        except Exception as exc:  # failure is data: the row says why
            return profiling.failure(exc, caught, v, device)
    return "ok", None


def cmd_list(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof list``: every variant, where it can run, and whether it runs here."""
    device = _device(args.device)
    dtype = inputs.default_setup(device).dtype
    rows = []
    notes = []
    for v in variants.VARIANTS.values():
        if v.compiled and args.no_compile:
            here = "not checked (--no-compile; the check compiles with torch.compile)"
        else:
            if v.compiled:
                err.write(f"checking {v.name}: the first call compiles, this can take a while\n")
            status, reason = check_variant(v.name, device, dtype)
            here = "yes" if status == "ok" else f"no ({status}): {reason}"
        rows.append([v.name, ", ".join(v.devices), here])
        notes.append(textwrap.fill(f"{v.name}: {v.title}. {v.description} Needs: {v.requirements}.", 110,
                                   subsequent_indent="    "))  # fmt: skip
    shape = ",".join(map(str, CHECK_SHAPE))
    out.write(f'variants ("runs here": one call of shape {shape}, {dtype}, on {device})\n\n')
    out.write(report.table(["variant", "devices", "runs here"], rows) + "\n\n")
    out.write("\n".join(notes) + "\n")
    return 0


def cmd_profile(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof profile``: the kernel table and summary of one variant (or its result as JSON)."""
    (name,) = _variant_names([args.variant])
    _check_workload(name, args.workload)
    setup = _workload_setup(args)
    trace_to = Path(args.trace) if args.trace else None
    with tempfile.TemporaryDirectory() as tmp:
        res = profiling.profile(name, setup, workload=args.workload, save_to=tmp if trace_to else None)
        if trace_to is not None:
            if res.trace_file:
                src = Path(tmp) / res.trace_file
                trace_to.parent.mkdir(parents=True, exist_ok=True)
                if trace_to.suffix == ".gz":
                    shutil.copyfile(src, trace_to)
                else:
                    trace_to.write_bytes(gzip.decompress(src.read_bytes()))
                err.write(f"Chrome trace written to {trace_to} (open it in Perfetto UI or chrome://tracing)\n")
            else:
                err.write(f"no trace written: {name} did not run ({res.status})\n")
    if args.json:
        out.write(results.dumps(res).decode())
        return 0
    out.write(report.kernel_table(res) + "\n\n" + report.workload_summary(res) + "\n")
    return 0


def cmd_compare(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof compare``: one row per variant (all when none are named)."""
    names = _variant_names(args.variants) if args.variants else list(variants.for_workload(args.workload))
    for name in names:
        _check_workload(name, args.workload)
    setup = _workload_setup(args)
    found = []
    for name in names:
        err.write(f"profiling {name} ({args.workload}, {setup.describe()})\n")
        found.append(profiling.profile(name, setup, workload=args.workload))
    if args.json:
        out.write(json.dumps([r.to_dict() for r in found], indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        return 0
    out.write(f"{args.workload}: {setup.describe()}\n\n{_workload_table(args.workload, found)}\n")
    return 0


class ProgressBar:
    """A plain-text progress bar: redrawn in place on a terminal, one line per point otherwise."""

    def __init__(self, stream: IO[str], width: int = 28) -> None:
        self.stream = stream
        self.width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._last = 0

    def __call__(self, done: int, total: int, point: sweep.SweepPoint) -> None:
        filled = round(self.width * done / total) if total else self.width
        what = f"{point.gpu_ms:.3f} ms" if point.ok and point.gpu_ms is not None else point.status
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {point.variant} hd{point.head_dim} "
        text += f"seq{point.seq}: {what}"
        if self.tty:
            self.stream.write("\r" + text.ljust(self._last) + ("\n" if done == total else ""))
            self._last = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def cmd_sweep(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof sweep``: time every variant over sequence lengths and head dims."""
    if args.workload != "prefill":
        return cmd_workload_sweep(args, out, err)
    device = _device(args.device)
    try:
        cfg = sweeprun.make_config(
            _variant_names(_numbers(args.variants) or []) or None,
            _numbers(args.seqs),
            _numbers(args.head_dims),
            batch=args.batch,
            heads=args.heads,
            dtype=args.dtype,
            device=device,
            compiled_seqs=_numbers(args.compiled_seqs) if args.compiled_seqs else (),
            budget_s=args.budget_s,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    err.write(
        f"sweep: {len(cfg.variants)} variants, seq {', '.join(map(str, cfg.seqs))}, head_dim "
        f"{', '.join(map(str, cfg.head_dims))}, batch {cfg.batch}, {cfg.heads} heads, {cfg.dtype} on {device}\n"
    )
    ceilings = sweeprun.measure_ceilings(device)
    result = sweeprun.run_sweep(cfg, ceilings=ceilings, progress=ProgressBar(err))
    for metric in ("gpu_ms", "tflops"):
        out.write(report.sweep_table(result, metric) + "\n\n")
    out.write(report.sweep_summary(result) + "\n")
    if args.out:
        path = Path(args.out)
        results.write_if_changed(path, sweep.dumps(result))
        err.write(f"sweep written to {path}\n")
    return 0


# --- the other workloads: training and decoding ---------------------------------------------------------------------


def _check_workload(name: str, workload: str) -> None:
    try:
        workloads.check(name, workload)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _workload_setup(
    args: argparse.Namespace, kv_len: int | str | None = None, shape: str | None = None
) -> inputs.Setup:
    """The setup of ``--workload``: the shape (``shape``, ``--shape``, or the workload's default), dtype, device, and
    for decoding the KV cache (``--kv-heads``, ``--kv-len``; defaults when no shape is given either)."""
    device = _device(args.device)
    base = workloads.default_setup(args.workload, device)
    shape = shape or getattr(args, "shape", None)
    kv_heads, kv_len = args.kv_heads, kv_len or args.kv_len
    if args.workload == "decode" and shape is None:
        kv_heads, kv_len = kv_heads or base.kv_heads, kv_len or base.kv_len
    try:
        setup = inputs.make_setup(shape or base.shape, args.dtype or base.dtype, device, kv_heads=kv_heads,
                                  kv_len=kv_len)  # fmt: skip
        return workloads.check_setup(args.workload, setup)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _sweep_shape(args: argparse.Namespace, length: str) -> str:
    """``B,H,S,D`` of one point of a training or decoding sweep: ``--batch``, ``--heads`` and the first of
    ``--head-dims`` (the workload's defaults where left out); ``S`` is the length (training) or 1 (decoding)."""
    b, h, _, d = workloads.default_setup(args.workload, _device(args.device)).shape
    dims = _numbers(args.head_dims) or [d]
    try:
        b, h, d = (inputs.positive_int(n, v, e) for n, v, e in (("batch", args.batch or b, "8"),
                   ("heads", args.heads or h, "16"), ("head_dim", dims[0], "64")))  # fmt: skip
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return f"{b},{h},{1 if args.workload == 'decode' else length},{d}"


def _workload_table(workload: str, found: list[results.Result]) -> str:
    if workload == "prefill":
        return report.compare_table(found)
    build = Build({workload: [analyse(r) for r in found]})
    return report.train_table(build.train_rows()) if workload == "train" else report.decode_table(build.decode_rows())


def cmd_workload_sweep(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof sweep --workload train|decode``: profile the variants over sequence (train) or cache (decode)
    lengths, ``--seqs`` (the build's plan when left out)."""
    device = _device(args.device)
    names = _variant_names(_numbers(args.variants) or []) or None
    for name in names or ():
        _check_workload(name, args.workload)
    lengths = _numbers(args.seqs)
    if lengths is None:
        plan = workloads.plan(args.workload, device, tuple(names) if names else None)
        runs = [(p.variant, p.setup) for p in plan]
    else:
        try:
            lengths = [str(inputs.positive_int("length", n, "4096")) for n in lengths]
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        chosen = names or list(variants.for_workload(args.workload))
        runs = []
        for n in lengths:
            kv_len = n if args.workload == "decode" else None
            setup = _workload_setup(args, kv_len=kv_len, shape=_sweep_shape(args, n))
            runs += [(v, setup) for v in chosen]
    found = []
    for i, (name, setup) in enumerate(runs, start=1):
        err.write(f"[{i}/{len(runs)}] {name} {args.workload} {setup.describe()}\n")
        found.append(profiling.profile(name, setup, workload=args.workload))
    out.write(_workload_table(args.workload, found) + "\n")
    if args.out:
        data = json.dumps([r.to_dict() for r in found], indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        results.write_if_changed(Path(args.out), data.encode())
        err.write(f"results written to {args.out}\n")
    return 0


def _add_workload_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workload", default="prefill", choices=list(workloads.WORKLOADS),
                   help="prefill (one causal forward; default), train (forward + backward) or decode")  # fmt: skip
    p.add_argument("--kv-heads", default=None, help="decode: KV heads, a divisor of the query heads (e.g. 8)")
    p.add_argument("--kv-len", default=None, help="decode: KV cache length (e.g. 4096)")


# --- the parser -----------------------------------------------------------------------------------------------------


def _add_setup_options(p: argparse.ArgumentParser, *, shape: bool = True) -> None:
    if shape:
        p.add_argument("--shape", help="B,H,S,D (default: 8,16,1024,64 on CUDA, 1,4,256,64 on the CPU)")
    p.add_argument("--dtype", default=None, help=f"one of: {', '.join(inputs.DTYPE_ALIASES)}")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")


def parser() -> argparse.ArgumentParser:
    """The argument parser of the ``attnprof`` command."""
    top = _Parser(prog="attnprof", description="Profile attention variants in PyTorch and read the profiler.")
    top.add_argument("--version", action="version", version=f"attnprof {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="{list,profile,compare,sweep}")

    p = sub.add_parser("list", help="the variants, and whether each runs here")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--no-compile", action="store_true", help="do not check the variants that compile (slow)")
    p.set_defaults(run=cmd_list)

    p = sub.add_parser("profile", help="profile one variant: kernel table and summary")
    p.add_argument("variant", help=f"one of: {', '.join(variants.VARIANTS)}")
    _add_setup_options(p)
    _add_workload_options(p)
    p.add_argument("--trace", metavar="FILE", help="also write the Chrome trace (gzipped if FILE ends in .gz)")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of tables")
    p.set_defaults(run=cmd_profile)

    p = sub.add_parser("compare", help="profile several variants: one row each")
    p.add_argument("variants", nargs="*", help="variants to compare (default: all)")
    _add_setup_options(p)
    _add_workload_options(p)
    p.add_argument("--json", action="store_true", help="print the results as a JSON list instead of a table")
    p.set_defaults(run=cmd_compare)

    p = sub.add_parser("sweep", help="time the variants over sequence lengths and head dims")
    p.add_argument("--variants", nargs="+", metavar="V", help="variants (default: the device's sweep)")
    p.add_argument("--seqs", nargs="+", metavar="S", help="sequence lengths, e.g. 512 1024 or 512,1024")
    p.add_argument("--head-dims", nargs="+", metavar="D", help="head dimensions, e.g. 64 128")
    p.add_argument("--batch", default=None, help="batch size (default: 8 on CUDA, 1 on the CPU)")
    p.add_argument("--heads", default=None, help="number of heads (default: 16 on CUDA, 2 on the CPU)")
    _add_setup_options(p, shape=False)
    p.add_argument("--compiled-seqs", nargs="+", metavar="S",
                   help="sequence lengths for variants that compile (default: 1024 4096 16384 on CUDA)")  # fmt: skip
    p.add_argument(
        "--budget-s", type=str, default=None, help="time budget in seconds (default: 30 on CUDA, 60 on the CPU)"
    )
    _add_workload_options(p)
    p.add_argument("--out", metavar="FILE", help="write the sweep as JSON to FILE")
    p.set_defaults(run=cmd_sweep)
    return top


def _budget(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        budget = float(value)
    except ValueError:
        budget = -1.0
    if not budget > 0:
        raise BadInput(f"bad time budget {value!r}; expected a positive number of seconds such as 45")
    return budget


def main(argv: Sequence[str] | None = None, *, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run the command line ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status.

    Args:
        argv: The arguments after the program name.
        out: Where tables go (standard output by default).
        err: Where progress and errors go (standard error by default).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = parser().parse_args(argv)
        if args.command == "sweep":
            args.budget_s = _budget(args.budget_s)
        elif args.command in ("profile", "compare"):
            args.dtype = args.dtype or "bfloat16"
        return args.run(args, out, err)
    except BadInput as exc:
        err.write(f"attnprof: {exc}\n")
        return USAGE_ERROR
