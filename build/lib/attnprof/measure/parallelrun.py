"""Run causal attention with PyTorch's context parallelism on every GPU of the machine: the configuration, starting
the ranks, and the one run file made of what they measured.

:func:`make_config` validates what to run (one-line errors naming the bad value and what is accepted). :func:`run`
then starts one process per GPU with ``torch.multiprocessing`` (``start_method="spawn"``; the ranks run
:func:`attnprof.measure.parallelrank.worker`, which lives in the package so the children can import it: this works
from a plain script and from inside a Sphinx build), or, when the calling script was started by ``torchrun``, runs as
the rank torchrun made it. Each rank measures every case (:mod:`attnprof.measure.parallelrank` says how);
:func:`merge` makes one :class:`~attnprof.records.parallel.ParallelRun` of what they recorded, saved as
``parallel__<device>.json``. NVLink multicast stays off in every process
(:data:`attnprof.measure.parallelrank.SAFE_ENV`).

Failure is data: fewer than two GPUs, a CPU-only torch, ranks that die or outlive their time: the run records why,
and nothing starts on a machine that cannot run it.

torch is imported inside the functions only.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from attnprof import inputs
from attnprof.measure.parallelrank import SAFE_ENV, config_json, rank_main, worker
from attnprof.records import parallel
from attnprof.records.parallel import BACKENDS, METHODS, Collective, ParallelCase, ParallelConfig, ParallelRun

#: The sequence lengths of the default run: the docs build's budget for this page is a few seconds of GPU time.
DEFAULT_SEQS: tuple[int, ...] = (32768, 65536)
#: Seconds the parent waits for the ranks beyond the configuration's budget before it stops them.
GRACE_S = 90.0


# --- configuration --------------------------------------------------------------------------------------------------


def _positive(name: str, value: Any, example: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    if not ok:
        raise ValueError(f"bad {name} {value!r}; expected a positive integer such as {example}")
    return int(value)


def _choices(name: str, values: Sequence[str] | None, accepted: Sequence[str], default: tuple[str, ...]) -> tuple:
    if values is None:
        return default
    if isinstance(values, str) or not values:
        raise ValueError(f"bad {name} {values!r}; expected a non-empty list of: {', '.join(accepted)}")
    for v in values:
        if v not in accepted:
            raise ValueError(f"unknown {name[:-1]} {v!r}; choose from: {', '.join(accepted)}")
    return tuple(dict.fromkeys(values))


def make_config(
    seqs: Sequence[int] | None = None,
    methods: Sequence[str] | None = None,
    backends: Sequence[str] | None = None,
    *,
    world: int | None = None,
    batch: int = 2,
    heads: int = 16,
    head_dim: int = 64,
    dtype: str = "bf16",
    causal: bool = True,
    load_balance: bool = True,
    device: str = "cuda",
    warmup: int = 2,
    reps: int = 5,
    bandwidth_bytes: int | None = None,
    budget_s: float = 60.0,
    seed: int = 0,
) -> ParallelConfig:
    """Validate a context-parallel run's configuration.

    Args:
        seqs: Sequence lengths (default :data:`DEFAULT_SEQS`), deduplicated and sorted.
        methods: Rotation methods (default both of :data:`attnprof.records.parallel.METHODS`).
        backends: SDPA backends, keys of :data:`attnprof.records.parallel.BACKENDS` (default flash, as in PyTorch's
            tutorial). ``math`` is accepted: context parallelism refuses it, and the run records how.
        world: Number of ranks, at least 2; every GPU of the machine when ``None``.
        batch: Batch size.
        heads: Number of heads.
        head_dim: Head dimension.
        dtype: Any spelling :func:`attnprof.inputs.canonical_dtype` accepts.
        causal: Causal attention.
        load_balance: PyTorch's head-tail load balancer (needs ``causal``; checked per case, as data).
        device: ``"cuda"`` or ``"cpu"``.
        warmup: Untimed calls before timing.
        reps: Timed calls.
        bandwidth_bytes: Output size of the timed NCCL collectives (256 MiB on CUDA, 4 MiB on the CPU).
        budget_s: Cases not started within this many seconds are skipped.
        seed: Seed of the random inputs.

    Raises:
        ValueError: one line naming the bad value and what is accepted.
    """
    if device not in inputs.DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(inputs.DEVICES)}")
    if seqs is None:
        seq_list = DEFAULT_SEQS
    elif isinstance(seqs, (str, int)) or not seqs:
        raise ValueError(f"bad sequence lengths {seqs!r}; expected a non-empty list of positive integers")
    else:
        seq_list = tuple(sorted({_positive("sequence length", s, "32768") for s in seqs}))
    if world is not None and (_positive("world size", world, "2") < 2):
        raise ValueError(f"bad world size {world!r}; context parallelism needs at least 2 ranks")
    if not isinstance(budget_s, (int, float)) or isinstance(budget_s, bool) or not budget_s > 0:
        raise ValueError(f"bad time budget {budget_s!r}; expected a positive number of seconds such as 60")
    for flag, value in (("causal", causal), ("load_balance", load_balance)):
        if not isinstance(value, bool):
            raise ValueError(f"bad {flag} {value!r}; expected True or False")
    if warmup != 0:
        _positive("number of warm-up calls", warmup, "2")
    default_bytes = 256 * 2**20 if device == "cuda" else 4 * 2**20
    nbytes = default_bytes if bandwidth_bytes is None else bandwidth_bytes
    return ParallelConfig(
        seqs=seq_list,
        methods=_choices("methods", methods, METHODS, METHODS),
        backends=_choices("backends", backends, tuple(BACKENDS), ("flash",)),
        world=world,
        batch=_positive("batch size", batch, "2"),
        heads=_positive("number of heads", heads, "16"),
        head_dim=_positive("head_dim", head_dim, "64"),
        dtype=inputs.canonical_dtype(dtype),
        causal=causal,
        load_balance=load_balance,
        device=device,
        warmup=warmup,
        reps=_positive("number of timed calls", reps, "5"),
        bandwidth_bytes=_positive("bandwidth size", nbytes, "268435456"),
        budget_s=float(budget_s),
        seed=int(seed),
    )


def default_config() -> ParallelConfig:
    """The docs build's run: batch 2, 16 heads, head_dim 64, bf16, causal, flash, both rotation methods,
    :data:`DEFAULT_SEQS`, on every GPU."""
    return make_config()


def launched_by_torchrun() -> bool:
    """Whether this process is one rank started by ``torchrun`` (its environment names the rank and the world)."""
    return all(k in os.environ for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"))


# --- the parent: start the ranks, merge what they measured ---------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _main_script_hidden() -> Iterator[None]:
    """Keep spawned ranks from re-running the calling script.

    multiprocessing's spawn re-imports the parent's ``__main__`` file in every child (as ``__mp_main__``), which
    runs a gallery script's top-level code again. The ranks need nothing from it (their code is :func:`worker`),
    so its path is hidden while they start.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    hide = main is not None and path is not None and getattr(main, "__spec__", None) is None
    if hide:
        del main.__file__  # type: ignore[union-attr]
    try:
        yield
    finally:
        if hide:
            main.__file__ = path  # type: ignore[union-attr]


def _gpus_missing(cfg: ParallelConfig) -> tuple[str, str, int] | None:
    """``(status, reason, world)`` when this machine cannot run ``cfg``; ``None`` when it can."""
    import torch

    from attnprof.measure.profiling import cuda_missing_reason

    if cfg.device != "cuda":
        return None
    missing = cuda_missing_reason()
    if missing:
        # the status already says "no CUDA device"; the reason says why and what is needed
        why = missing.removeprefix("no CUDA device: ")
        return "no_cuda", f"{why}; context parallelism needs at least 2 CUDA GPUs", 0
    count = torch.cuda.device_count()
    if count < 2:
        reason = f"context parallelism needs at least 2 GPUs; torch.cuda.device_count() = {count}"
        return "too_few_gpus", reason, count
    if cfg.world is not None and cfg.world > count:
        return "too_few_gpus", f"world size {cfg.world} asks for more GPUs than the {count} here", count
    return None


def run(config: ParallelConfig | None = None, save_to: str | Path | None = None) -> ParallelRun:
    """Run every case of ``config`` on every rank; never raises for a case or a machine that cannot run.

    Args:
        config: From :func:`make_config`; :func:`default_config` when omitted.
        save_to: Folder for the run file (:func:`attnprof.records.parallel.save`) and the ranks' traces; nothing is
        saved
            when ``None`` (traces go to a temporary folder then).

    Returns:
        The run; under ``torchrun``, every rank returns it (the ranks exchange what they measured) and rank 0
        saves it.
    """
    from attnprof.measure.profiling import environment

    cfg = config or default_config()
    t0 = time.perf_counter()
    for key, value in SAFE_ENV.items():
        os.environ[key] = value
    base: dict[str, Any] = {"device": cfg.device, "config": cfg, "environment": environment(cfg.device)}
    torchrun = launched_by_torchrun()
    problem = _gpus_missing(cfg) if not torchrun else None
    if problem is not None:
        status, reason, _ = problem
        out = ParallelRun(**base, status=status, reason=reason)
    else:
        with tempfile.TemporaryDirectory(prefix="attnprof-cp-") as tmp:
            trace_dir = Path(save_to) if save_to is not None else Path(tmp)
            if torchrun:
                world = int(os.environ["WORLD_SIZE"])
                rank_data = rank_main(int(os.environ["RANK"]), world, cfg, trace_dir, gather=True)
                per_rank, launcher, fatal = rank_data.pop("_all", [rank_data]), "torchrun", None
            else:
                per_rank, world, fatal = _spawn(cfg, trace_dir, Path(tmp))
                launcher = "torch.multiprocessing (spawn)"
        out = merge(cfg, base, per_rank, world, launcher, fatal)
    out.elapsed_s = time.perf_counter() - t0
    if save_to is not None and (not torchrun or int(os.environ["RANK"]) == 0):
        parallel.save(out, save_to)
    return out


def _spawn(cfg: ParallelConfig, trace_dir: Path, tmp: Path) -> tuple[list[dict[str, Any]], int, str | None]:
    """Start one process per rank, wait for them (at most the budget plus :data:`GRACE_S`), read what they wrote."""
    import torch
    import torch.multiprocessing as mp

    world = cfg.world or (torch.cuda.device_count() if cfg.device == "cuda" else 2)
    args = (world, _free_port(), config_json(cfg), str(trace_dir), str(tmp))
    fatal = None
    with _main_script_hidden():
        ctx = mp.start_processes(worker, args=args, nprocs=world, join=False, start_method="spawn")
    deadline = time.monotonic() + cfg.budget_s + GRACE_S
    try:
        while not ctx.join(timeout=1):
            if time.monotonic() > deadline:
                fatal = f"the ranks were still running {cfg.budget_s + GRACE_S:.0f} s after they started; stopped"
                for p in ctx.processes:
                    if p.is_alive():
                        p.terminate()
                break
    except Exception as exc:  # a rank that died (a crash, a signal): the others' data is still read
        fatal = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    per_rank = []
    for r in range(world):
        path = tmp / f"rank{r}.json"
        if path.exists():
            per_rank.append(json.loads(path.read_text()))
    return per_rank, world, fatal


def merge(cfg: ParallelConfig, base: dict[str, Any], per_rank: list[dict[str, Any]], world: int, launcher: str,
          fatal: str | None) -> ParallelRun:  # fmt: skip
    """One :class:`ParallelRun` from what every rank recorded (a case's status is its first failing rank's)."""
    per_rank = sorted(per_rank, key=lambda d: d["rank"])
    fatal = fatal or next((d["fatal"] for d in per_rank if d.get("fatal")), None)
    if not per_rank or len(per_rank) < world:
        reason = fatal or f"only {len(per_rank)} of {world} ranks reported"
        return ParallelRun(**base, status="error", reason=reason, world=world, launcher=launcher)
    first = per_rank[0]
    cases = []
    for i, c0 in enumerate(first["cases"]):
        rows = [d["cases"][i] for d in per_rank if i < len(d["cases"])]
        bad = next((c for c in rows if c["status"] != "ok"), None)
        singles = [c["single_ms"] for c in rows if c.get("single_ms") is not None]
        cases.append(
            ParallelCase(
                backend=c0["backend"],
                method=c0["method"],
                seq=c0["seq"],
                status=bad["status"] if bad else ("ok" if len(rows) == world else "error"),
                reason=bad["reason"] if bad else None,
                single_ms=statistics.median(singles) if singles else None,
                single_peak_extra_bytes=c0.get("single_peak_extra_bytes"),
                rel_error=c0.get("rel_error"),
                ranks=[parallel.rank_run(c["rank_run"]) for c in rows],
                wall_s=c0.get("wall_s", 0.0),
            )
        )
    return ParallelRun(
        **base,
        status="error" if fatal and not cases else "ok",
        reason=fatal,
        world=world,
        gpus=[d.get("device_name") or "" for d in per_rank],
        nccl_version=first.get("nccl_version"),
        launcher=launcher,
        collectives=[Collective(**c) for c in first.get("collectives", [])],
        init_s=[d.get("init_s", 0.0) for d in per_rank],
        cases=cases,
    )
