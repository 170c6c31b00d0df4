"""The commands, each ``(args, out, err) -> exit status``: checks first (:mod:`.checks`), then the work."""

from __future__ import annotations

import argparse
import json
import tempfile
import textwrap
from pathlib import Path
from typing import IO

from attnprof import inputs, variants, workloads
from attnprof.cli import checks, why, workload
from attnprof.cli.progress import QUIET_BELOW_S, ProgressBar, Ticker
from attnprof.measure import cost, profiling, sweeprun
from attnprof.measure.interrupts import deferred_interrupts, import_torch, raise_if_interrupted
from attnprof.records import files, results, sweep
from attnprof.render import report, workloadreport
from attnprof.words import fmt


class WriteFailed(Exception):
    """An output file could not be written at the end of a run (a full disk, ...): one line, exit status 1."""


def write(shown: str, data: bytes | str, force: bool, out: IO[str], since: int | None = None) -> None:
    """Write an output file through the one checked writer (:func:`attnprof.records.files.write_output`: checked
    again, in the format its name asks for, atomically; ``-`` to ``out``), unless interrupted on the way. A failure
    at the end of a long run is one line (:class:`WriteFailed`); what was printed before stays."""
    if since is not None:
        raise_if_interrupted(since)
    try:
        files.write_output(shown, data, force=force, out=out)
    except (files.BadPath, files.UnreadableFile) as exc:
        raise WriteFailed(f"cannot write {fmt.quoted_path(shown)}: {exc}") from None
    except OSError as exc:
        raise WriteFailed(f"cannot write {fmt.quoted_path(shown)}: {exc.strerror or exc}") from None


def write_all(outputs: list[tuple[str, bytes | str]], force: bool, since: int | None = None) -> None:
    """Write several output files together: each staged beside its target (:func:`attnprof.records.files.
    stage_output`), then all renamed at once with Ctrl-C held for those microseconds, so that a run stopped or failing
    on the way leaves none of them (and the files they would replace as they were). A failure is one line
    (:class:`WriteFailed`)."""
    if since is not None:
        raise_if_interrupted(since)
    staged: list[tuple[Path, Path]] = []
    try:
        for shown, data in outputs:
            try:
                staged.append(files.stage_output(shown, data, force=force))
            except (files.BadPath, files.UnreadableFile) as exc:
                raise WriteFailed(f"cannot write {fmt.quoted_path(shown)}: {exc}") from None
            except OSError as exc:
                raise WriteFailed(f"cannot write {fmt.quoted_path(shown)}: {exc.strerror or exc}") from None
        if since is not None:
            raise_if_interrupted(since)
        with deferred_interrupts():
            files.commit(staged)
    finally:
        files.discard(staged)  # the temporary files still there: none after a commit


def cmd_list(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof list``: every variant, where it can run, and whether it runs here."""
    checks.device_name(args.device)  # a bad name is refused before torch is imported
    import_torch()
    device = checks.device(args.device)
    dtype = inputs.default_setup(device).dtype
    rows = []
    notes = []
    for v in variants.VARIANTS.values():
        if v.compiled and args.no_compile:
            here = "not checked (--no-compile; the check compiles with torch.compile)"
        else:
            if v.compiled:
                err.write(f"checking {v.name}: the first call compiles, this can take a while\n")
            status, reason = profiling.check_variant(v.name, device, dtype)
            here = "yes" if status == "ok" else f"no ({status}): {reason}"
        rows.append([v.name, ", ".join(v.devices), here])
        notes.append(textwrap.fill(f"{v.name}: {v.title}. {v.description} Needs: {v.requirements}.", 110,
                                   subsequent_indent="    "))  # fmt: skip
    shape = ",".join(map(str, profiling.CHECK_SHAPE))
    out.write(f'variants ("runs here": one call of shape {shape}, {dtype}, on {device})\n\n')
    out.write(report.table(["variant", "devices", "runs here"], rows) + "\n\n")
    out.write("\n".join(notes) + "\n")
    return 0


def cmd_profile(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof profile``: the kernel table and summary of one variant (or its result as JSON)."""
    (name,) = checks.variant_names([args.variant])
    trace_to = checks.output(args.trace, "trace file", args.force, stdout=True)
    if args.trace == files.STDOUT and args.json:
        raise checks.BadInput("--trace - and --json both ask for standard output; give the trace a file name")
    job = workload.name(args)
    workload.check_variant(name, job)
    (run,) = workload.setups(args)
    estimates, limit = checks.plan([name], run, args.force, args.dry_run)
    if args.dry_run:
        return checks.dry_run(out, "profile", estimates, limit, args.force)
    if (estimates[0].seconds or 0) >= QUIET_BELOW_S:
        err.write(checks.describe_plan("profile", estimates, limit) + "\n")
    import_torch()
    with tempfile.TemporaryDirectory() as tmp, Ticker(err, 1).item(1, name, estimates[0].seconds):
        res = profiling.profile(name, run, workload=job, save_to=tmp if trace_to else None)
        raise_if_interrupted(args.interrupts_seen)
        trace = files.read_bytes(Path(tmp) / res.trace_file) if trace_to and res.trace_file else None
    if args.trace != files.STDOUT:  # the tables first: a trace that cannot be written at the end keeps them
        if args.json:
            out.write(results.dumps(res).decode())
        else:
            summary = report.summary(res) if workloads.get(job).article else workloadreport.workload_summary(res)
            out.write(report.kernel_table(res) + "\n\n" + summary + "\n")
    if trace_to is not None:
        if trace is not None:
            write(args.trace, trace, args.force, out, args.interrupts_seen)
            if args.trace != files.STDOUT:
                err.write(f"Chrome trace written to {args.trace} (open it in Perfetto UI or chrome://tracing)\n")
        else:
            err.write(f"no trace written: {name} did not run ({res.status})\n")
    return 0


def cmd_compare(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof compare``: one row per variant (all when none are named), at one setup or at every length of
    ``--lengths``."""
    job = workload.name(args)
    names = checks.variant_names(args.variants) if args.variants else list(variants.for_workload(job))
    for name in names:
        workload.check_variant(name, job)
    runs = workload.setups(args)
    estimates, limit = [], None
    for run in runs:
        some, limit = checks.plan(names, run, args.force, args.dry_run)
        estimates += some
    if args.dry_run:
        return checks.dry_run(out, "compare", estimates, limit, args.force)
    err.write(checks.describe_plan("compare", estimates, limit) + "\n")
    err.flush()
    import_torch()
    ticker = Ticker(err, len(estimates))
    found = []
    for i, est in enumerate(estimates, start=1):
        label = est.variant if len(runs) == 1 else f"{est.variant} {job} {est.setup.describe()}"
        with ticker.item(i, label, est.seconds):
            found.append(profiling.profile(est.variant, est.setup, workload=job))
        raise_if_interrupted(args.interrupts_seen)
    if args.json:
        out.write(json.dumps([r.to_dict() for r in found], indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        return 0
    head = "; ".join(run.describe() for run in runs)
    head = head if workloads.get(job).article else f"{job}: {head}"
    out.write(f"{head}\n\n{workload.table(job, found)}\n")
    return 0


def cmd_sweep(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof sweep``: time every variant's forward over sequence lengths and head dims, without the profiler."""
    out_path = checks.output(args.out, "output file", args.force, stdout=True)
    cfg = checks.sweep_config(args)
    limit = None if args.force else cost.available(cfg.device)
    points = [(v, d, s) for v in cfg.variants for d in cfg.head_dims for s in cfg.seqs_for(v)]
    need, v, d, s = max(
        (cost.variant_bytes(v, (cfg.batch, cfg.heads, s, d), cfg.dtype), v, d, s) for v, d, s in points
    )
    many = "s" if len(cfg.variants) != 1 else ""
    plan = (
        f"sweep: {len(cfg.variants)} variant{many}, seq {', '.join(map(str, cfg.seqs))}, head_dim "
        f"{', '.join(map(str, cfg.head_dims))}, batch {cfg.batch}, {cfg.heads} heads, {cfg.dtype} on {cfg.device}; "
        f"time budget {cfg.budget_s:g} s; the largest point ({v} hd{d} seq{s}) needs about {cost.human_bytes(need)}"
    )
    if limit is not None:
        plan += f" ({cost.human_bytes(limit.bytes)} of {limit.source}; points that need more are not run)"
    if args.dry_run:
        out.write(f"dry run; would run {plan}\n")
        return 0
    err.write(plan + "\n")
    err.flush()
    import_torch(dynamo=True)
    ceilings = sweeprun.measure_ceilings(cfg.device)
    bar = ProgressBar(err)

    def progress(done: int, total: int, point: sweep.SweepPoint) -> None:
        raise_if_interrupted(args.interrupts_seen)
        bar(done, total, point)

    result = sweeprun.run_sweep(cfg, ceilings=ceilings, progress=progress, memory_limit=limit, strict_budget=True)
    if args.out != files.STDOUT:  # "--out -": the JSON is what standard output shows
        for metric in ("gpu_ms", "tflops"):
            out.write(report.sweep_table(result, metric) + "\n\n")
        out.write(report.sweep_summary(result) + "\n")
    if result.stopped:
        err.write(f"incomplete: {result.stopped}\n")
    if out_path is not None:
        write(args.out, sweep.dumps(result), args.force, out, args.interrupts_seen)
        if args.out != files.STDOUT:
            err.write(f"sweep written to {args.out}\n")
    return 0


#: Each command's function, by name.
COMMANDS = {"list": cmd_list, "profile": cmd_profile, "compare": cmd_compare, "sweep": cmd_sweep, "why": why.cmd_why}
