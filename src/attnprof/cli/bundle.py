"""``attnprof bundle``: pack a build's results (or one run's files) with their provenance, and show a bundle.

``attnprof bundle create --from _build/results --out h200.tar.gz`` writes one archive
(:mod:`attnprof.records.bundle`) that a site built elsewhere shows in its cross-GPU view; ``attnprof bundle show
FILE`` reads one back with every check (each result, sweep and run file by its own reader too) and prints its
provenance and members. No torch is imported.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
from pathlib import Path
from typing import IO

from attnprof.cli import checks
from attnprof.cli.checks import BadInput
from attnprof.cli.commands import WriteFailed
from attnprof.records import bundle, files
from attnprof.words import fmt

ACTIONS = ("create", "show")


def git_commit(folder: Path) -> str | None:
    """The commit checked out in ``folder``'s git work tree, or ``None`` outside one (or without git)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _count(value: str | None) -> int | None:
    if value is None:
        return None
    if not value.isdigit():
        raise BadInput(f"bad --gpus {value!r}; expected a whole number of GPUs such as 2 (0 for a CPU build)")
    return int(value)


def create(args: argparse.Namespace, out: IO[str]) -> int:
    if not args.sources or not args.out:
        raise BadInput("bundle create needs --from FOLDER_OR_FILE (one or more) and --out FILE.tar.gz")
    if not args.out.endswith(bundle.SUFFIX):
        raise BadInput(f"bad --out {args.out!r}; expected a file name ending in {bundle.SUFFIX}")
    checks.distinct({"--out": args.out}, {f"--from {src}": src for src in args.sources})
    try:
        target = files.check_output(args.out, "bundle")
        paths = bundle.collect(args.sources, traces=not args.no_traces)
        checks.distinct({"--out": args.out}, {f"--from {p.name}": str(p) for p in paths})  # a file in a folder given
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        commit = args.commit or git_commit(Path(__file__).parent)
        prov = bundle.provenance_of(paths, created, attnprof_commit=commit, label=args.label,
                                    gpu_count=_count(args.gpus))  # fmt: skip
        data, manifest = bundle.pack({p.name: files.read_bytes(p, bundle.MAX_MEMBER_BYTES) for p in paths}, prov)
    except (FileNotFoundError, files.UnreadableFile, files.BadPath) as exc:
        raise BadInput(str(exc)) from None
    try:
        files.atomic_write(target, data)
    except OSError as exc:
        raise WriteFailed(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    out.write(f"wrote {args.out}: {len(manifest.members)} files, {fmt.number(len(data) / 2**20)} MiB, "
              f"measured on {prov.machine} ({prov.day})\n")  # fmt: skip
    return 0


def show(args: argparse.Namespace, out: IO[str]) -> int:
    if not args.file:
        raise BadInput("bundle show needs the bundle: attnprof bundle show FILE.tar.gz")
    try:
        b = bundle.read(args.file)
        b.results(), b.sweep(), b.parallel_run()  # every member read by its kind's reader: schema checked
    except (FileNotFoundError, files.UnreadableFile) as exc:
        raise BadInput(str(exc)) from None
    p = b.provenance
    for key, value in (
        ("bundle", f"{b.path} (version {b.manifest.bundle_version})"),
        ("machine", p.machine),
        ("GPU", f"{p.gpu_count} × {p.gpu_model}"),
        ("driver", p.driver),
        ("CUDA", p.cuda),
        ("cuDNN", p.cudnn),
        ("PyTorch", p.torch),
        ("attnprof", f"{p.attnprof_version} ({p.attnprof_commit or 'commit unknown'})"),
        ("measured", p.measured),
        ("bundled", p.created),
    ):
        out.write(f"{key:9} {value if value is not None else 'not recorded'}\n")
    for kind in bundle.KINDS:
        names = b.names(kind)
        if names:
            out.write(f"{kind:9} {len(names)}: {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}\n")
    return 0


def cmd_bundle(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof bundle create|show``."""
    if args.action not in ACTIONS:
        raise BadInput(f"unknown bundle action {args.action!r}; choose one of: {', '.join(ACTIONS)}")
    return create(args, out) if args.action == "create" else show(args, out)
