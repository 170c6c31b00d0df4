"""Run causal attention with PyTorch's context parallelism on every GPU of the machine, and measure it.

One process per GPU (a *rank*). Each holds the whole ``q``, ``k`` and ``v`` at first (the same on every rank);
``context_parallel`` then shards them in place along the sequence and replaces
``torch.nn.functional.scaled_dot_product_attention`` with its ring version while the context is open: each rank
computes attention for its queries while the keys and values of the other ranks travel over NCCL, by all-gather or
by all-to-all (``set_rotate_method``). PyTorch's head-tail load balancer (``_cp_options.enable_load_balance``) cuts
the sequence into ``2 * world`` chunks and gives each rank one from the head and one from the tail, so that the
causal mask leaves every rank the same amount of work.

How one rank measures a case (backend, rotation method, sequence length), with :mod:`attnprof.measure`:

* the same attention on the rank's GPU alone, whole sequence: the yardstick for time and for the result;
* inside the context: ``warmup`` calls, the peak memory of one call, ``reps`` timed calls (CUDA events from an idle
  GPU, every rank released by a barrier before each call), the CPU time to issue a call, and five profiler steps
  with the reference article's schedule, one trace per rank;
* after the context: the output gathered from every rank (``context_parallel_unshard``) against the one-GPU output.

Launch: :func:`run` spawns the ranks with ``torch.multiprocessing`` (``start_method="spawn"``; the worker,
:func:`worker`, lives here so the children can import it: this works from a plain script and from inside a Sphinx
build), or, when the calling script was started by ``torchrun``, runs as the rank torchrun made it. NVLink
multicast stays off in every process (:data:`SAFE_ENV`).

Failure is data: fewer than two GPUs, a CPU-only torch, a backend context parallelism refuses, a sequence length
the ranks cannot split, running out of memory: the run or the case records why, in PyTorch's words where PyTorch
gives any. Two things are checked before the context is entered, because PyTorch 2.11 reports them badly: a
sequence the load balancer cannot split (a bare ``AssertionError``) and load balancing without a causal mask. And
since ``context_parallel`` leaves its replacement of ``scaled_dot_product_attention`` in place when its body raises,
every case restores the original afterwards.

torch is imported inside the functions only.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import socket
import statistics
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import inputs, parallel, ranks, results
from .measure import PeakMemory, capture_trace, percentile, sync, time_dispatch_us, timed_calls
from .parallel import BACKENDS, METHODS, Collective, ParallelCase, ParallelConfig, ParallelRun

#: Set in the parent and in every rank: NVLink multicast (NVLS) stays off on shared multi-GPU hosts.
SAFE_ENV: dict[str, str] = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
#: The sequence lengths of the default run: the docs build's budget for this page is a few seconds of GPU time.
DEFAULT_SEQS: tuple[int, ...] = (32768, 65536)
#: Seconds the parent waits for the ranks beyond the configuration's budget before it stops them.
GRACE_S = 90.0
#: Timeout of the process group's collectives, seconds.
COLLECTIVE_TIMEOUT_S = 120.0

_ORIGINAL_SDPA: Any = None


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
        methods: Rotation methods (default both of :data:`attnprof.parallel.METHODS`).
        backends: SDPA backends, keys of :data:`attnprof.parallel.BACKENDS` (default flash, as in PyTorch's
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


def split_problem(seq: int, world: int, load_balance: bool, causal: bool) -> str | None:
    """Why ``world`` ranks cannot split a sequence of ``seq`` (``None`` when they can), checked before PyTorch is
    asked: its load balancer fails on a bad length with a bare ``AssertionError``, and an uneven split without it
    would hand NCCL different sizes on different ranks."""
    if load_balance and not causal:
        return 'load balancing requires is_causal=True (PyTorch: "Load balancing requires `is_causal=True`.")'
    chunks = 2 * world if load_balance else world
    if seq % chunks:
        how = "the head-tail load balancer cuts it into 2 x world" if load_balance else "each rank takes 1/world"
        return (
            f"sequence length {seq} cannot be split over {world} ranks: {how} = {chunks} equal chunks, and "
            f"{seq} is not a multiple of {chunks}"
        )
    return None


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

    from .profiling import cuda_missing_reason

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
        save_to: Folder for the run file (:func:`attnprof.parallel.save`) and the ranks' traces; nothing is saved
            when ``None`` (traces go to a temporary folder then).

    Returns:
        The run; under ``torchrun``, every rank returns it (the ranks exchange what they measured) and rank 0
        saves it.
    """
    from .profiling import environment

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
    args = (world, _free_port(), json.dumps(_config_dict(cfg)), str(trace_dir), str(tmp))
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


def _config_dict(cfg: ParallelConfig) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.__dict__.items()}


def _config_from(data: str) -> ParallelConfig:
    d = json.loads(data)
    return ParallelConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


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


# --- one rank -------------------------------------------------------------------------------------------------------


def worker(rank: int, world: int, port: int, config: str, trace_dir: str, outdir: str) -> None:
    """The spawned rank: set the environment, run :func:`rank_main`, write what it measured to ``outdir``."""
    for key, value in SAFE_ENV.items():
        os.environ[key] = value
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    data = rank_main(rank, world, _config_from(config), Path(trace_dir))
    path = Path(outdir) / f"rank{rank}.json"
    path.with_suffix(".tmp").write_text(json.dumps(data))
    path.with_suffix(".tmp").replace(path)


class _Rank:
    """What one rank works with: its place in the world, the process groups, the mesh, and where traces go."""

    def __init__(self, rank: int, world: int, cfg: ParallelConfig, trace_dir: Path) -> None:
        import torch
        import torch.distributed as dist
        from torch.distributed.device_mesh import init_device_mesh

        self.rank, self.world, self.cfg, self.trace_dir = rank, world, cfg, trace_dir
        self.device = cfg.device
        timeout = _dt.timedelta(seconds=COLLECTIVE_TIMEOUT_S)
        if self.device == "cuda":
            local = int(os.environ.get("LOCAL_RANK", rank))
            torch.cuda.set_device(local)
            dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", local),
                                    timeout=timeout)  # fmt: skip
        else:
            dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)
        self.cpu_group = dist.new_group(backend="gloo")  # barriers and small agreements, off the GPU
        self.mesh = init_device_mesh(self.device, (world,), mesh_dim_names=("cp",))
        self.started = time.perf_counter()

    def release(self) -> None:
        """A barrier: every rank waits here until all arrive, so timed calls start together."""
        import torch.distributed as dist

        sync(self.device)
        dist.barrier(group=self.cpu_group)

    def agree(self, value: Any) -> list[Any]:
        """Every rank's ``value``, on every rank."""
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, value, group=self.cpu_group)
        return out


def rank_main(rank: int, world: int, cfg: ParallelConfig, trace_dir: Path, gather: bool = False) -> dict[str, Any]:
    """One rank, every case: join the process group, time NCCL alone, then run each case (see the module docstring).

    Returns:
        What the rank measured (plain JSON data); with ``gather``, also every rank's, under ``"_all"`` (torchrun:
        no parent process collects them).
    """
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F

    global _ORIGINAL_SDPA
    _ORIGINAL_SDPA = _ORIGINAL_SDPA or F.scaled_dot_product_attention
    out: dict[str, Any] = {"rank": rank, "cases": [], "collectives": []}
    t0 = time.perf_counter()
    try:
        me = _Rank(rank, world, cfg, trace_dir)
        out["init_s"] = time.perf_counter() - t0
        if cfg.device == "cuda":
            out["device_name"] = torch.cuda.get_device_name()
            out["nccl_version"] = ".".join(str(x) for x in torch.cuda.nccl.version())
        out["collectives"] = _bandwidth(me)
        for backend in cfg.backends:
            for seq in cfg.seqs:
                out["cases"] += _cases_of_seq(me, backend, seq)
        if gather:
            out["_all"] = me.agree(dict(out))
    except Exception as exc:  # failure is data: the parent reports it
        out["fatal"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc()[-2000:]
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()
    return out


def _bandwidth(me: _Rank) -> list[dict[str, Any]]:
    """NCCL all-gather and all-to-all of ``bandwidth_bytes`` timed alone (CUDA events, ranks released together)."""
    import torch
    import torch.distributed as dist

    n = me.cfg.bandwidth_bytes // 2
    out_t = torch.empty(n, dtype=torch.bfloat16, device=me.device)
    in_t = torch.ones(n // me.world, dtype=torch.bfloat16, device=me.device)
    src = torch.ones(n, dtype=torch.bfloat16, device=me.device)
    ops = {
        "all_gather_into_tensor": lambda: dist.all_gather_into_tensor(out_t, in_t),
        "all_to_all_single": lambda: dist.all_to_all_single(out_t, src),
    }
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # all_gather_into_tensor's new name varies across versions
        for op, call in ops.items():
            for _ in range(3):
                call()
            ms = timed_calls(call, me.device, min_reps=10, before=me.release).gpu_ms
            t = statistics.median(ms) * 1e-3
            algbw = me.cfg.bandwidth_bytes / t / 1e9
            rows.append(Collective(op, me.cfg.bandwidth_bytes, t * 1e3, algbw, algbw * (me.world - 1) / me.world,
                                   len(ms)).__dict__)  # fmt: skip
    return rows


def _case(backend: str, method: str, seq: int, status: str = "ok", reason: str | None = None, **kw: Any) -> dict:
    return {"backend": backend, "method": method, "seq": seq, "status": status, "reason": reason, **kw}


def _cases_of_seq(me: _Rank, backend: str, seq: int) -> list[dict[str, Any]]:
    """Every rotation method at one sequence length: the one-GPU yardstick first, then each method."""
    import torch
    import torch.distributed as dist

    cfg = me.cfg
    problem = split_problem(seq, me.world, cfg.load_balance, cfg.causal)
    late = me.agree(time.perf_counter() - me.started > cfg.budget_s)[0]  # rank 0 decides for everyone
    if problem or late:
        status, reason = ("unsupported", problem) if problem else ("skipped", "skipped: time budget spent")
        return [_case(backend, m, seq, status, reason, rank_run={"rank": me.rank}) for m in cfg.methods]
    shape = cfg.shape(seq)
    dtype = getattr(torch, cfg.dtype)
    gen = torch.Generator(device="cpu").manual_seed(cfg.seed)
    qkv = []
    for _ in range(3):  # identical on every rank: made on rank 0, broadcast
        t = torch.randn(shape, generator=gen).to(me.device, dtype) if me.rank == 0 else None
        t = t if t is not None else torch.empty(shape, dtype=dtype, device=me.device)
        dist.broadcast(t, src=0)
        qkv.append(t)
    q, k, v = qkv
    single, ref = _single_gpu(me, backend, q, k, v)
    statuses, reasons = me.agree(single.get("status")), me.agree(single.get("reason"))
    failed = next((s for s in statuses if s), None)
    if failed:
        reason = next(r for s, r in zip(statuses, reasons, strict=True) if s)
        return [_case(backend, m, seq, failed, reason, rank_run={"rank": me.rank}) for m in cfg.methods]
    out = [_one_case(me, backend, method, q, k, v, ref, single) for method in cfg.methods]
    del q, k, v, ref
    if me.device == "cuda":
        torch.cuda.empty_cache()
    return out


@contextlib.contextmanager
def _forced(backend: str) -> Iterator[None]:
    """``sdpa_kernel`` forcing one backend, or nothing for ``auto``."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    name = BACKENDS[backend]
    if name is None:
        yield
    else:
        with sdpa_kernel(getattr(SDPBackend, name)):
            yield


#: Words of PyTorch's refusals of an operator under context parallelism (the math backend, a CPU kernel).
_REFUSALS = ("got mixed torch.Tensor and DTensor", "does not have a sharding strategy")


def _failure(exc: BaseException, caught: Sequence[warnings.WarningMessage]) -> tuple[str, str]:
    """``(status, reason)`` of a call that raised: ``unsupported`` for an operator context parallelism refuses."""
    from .profiling import _classify, pytorch_reason

    status = _classify(exc)
    if status == "error" and any(words in str(exc) for words in _REFUSALS):
        status = "unsupported"
    return status, pytorch_reason(exc, caught)


def _single_gpu(me: _Rank, backend: str, q: Any, k: Any, v: Any) -> tuple[dict[str, Any], Any]:
    """The same attention on this rank's GPU alone, whole sequence: time, peak memory, and the output."""
    import torch

    cfg = me.cfg

    def call() -> torch.Tensor:
        return _ORIGINAL_SDPA(q, k, v, is_causal=cfg.causal)

    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with _forced(backend):
                for _ in range(max(cfg.warmup, 1)):
                    ref = call()
                with PeakMemory(me.device) as peak:
                    ref = call()
                ms = timed_calls(call, me.device, min_reps=cfg.reps, before=me.release).gpu_ms
            return {"single_ms": statistics.median(ms), "single_peak_extra_bytes": peak.bytes}, ref
        except Exception as exc:  # failure is data; the other ranks learn of it through agree()
            status, reason = _failure(exc, caught)
            return {"status": status, "reason": reason}, None


def restore_sdpa() -> bool:
    """Put the real ``scaled_dot_product_attention`` back if ``context_parallel`` left its ring version in place
    (PyTorch 2.11 does when the context's body raises). Returns True when it had to."""
    import torch.nn.functional as F

    if _ORIGINAL_SDPA is None or F.scaled_dot_product_attention is _ORIGINAL_SDPA:
        return False
    with contextlib.suppress(Exception):
        from torch.distributed.tensor.experimental._context_parallel import _attention as cp_impl

        cp_impl._disable_context_parallel_dispatcher_impl()
    F.scaled_dot_product_attention = _ORIGINAL_SDPA
    return True


def _one_case(me: _Rank, backend: str, method: str, q: Any, k: Any, v: Any, ref: Any,
              single: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """One rotation method: the ring call timed, its memory, one profiled trace per rank, and its output checked."""
    import torch
    import torch.nn.functional as F
    from torch.distributed.tensor.experimental import context_parallel
    from torch.distributed.tensor.experimental._attention import (
        _cp_options,
        context_parallel_unshard,
        set_rotate_method,
    )

    cfg, t0 = me.cfg, time.perf_counter()
    seq = q.shape[2]
    rank_run: dict[str, Any] = {"rank": me.rank, "single_ms": single["single_ms"]}
    case = _case(backend, method, seq, rank_run=rank_run, **single)
    annotation = f"cp_{method}"
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            set_rotate_method(method)  # "allgather" or "alltoall"
            _cp_options.enable_load_balance = cfg.load_balance
            cq, ck, cv = (t.clone() for t in (q, k, v))
            with _forced(backend):
                # shards cq, ck, cv in place along dim 2, and swaps F.scaled_dot_product_attention for ring attention
                with context_parallel(me.mesh, buffers=[cq, ck, cv], buffer_seq_dims=[2, 2, 2],
                                      no_restore_buffers={cq, ck, cv}):  # fmt: skip

                    def call() -> torch.Tensor:
                        return F.scaled_dot_product_attention(cq, ck, cv, is_causal=cfg.causal)

                    rank_run["local_seq"] = cq.shape[2]
                    for _ in range(cfg.warmup):
                        call()
                    with PeakMemory(me.device) as peak:
                        out = call()
                    ms = timed_calls(call, me.device, min_reps=cfg.reps, before=me.release).gpu_ms
                    dispatch = time_dispatch_us(call, me.device, reps=cfg.reps)
                    raw, parsed = capture_trace(call, annotation, me.device, record_shapes=False, before=me.release)
            (full,) = context_parallel_unshard(me.mesh, [out], [2])
            case["rel_error"] = inputs.relative_error(full, ref.double())
            name = parallel.trace_name(me.device, backend, method, seq, me.rank)
            results.write_if_changed(me.trace_dir / name, _gzip(raw))
            rank_run.update(
                step_ms=statistics.median(ms), step_ms_p10=percentile(ms, 10), step_ms_p90=percentile(ms, 90),
                dispatch_ms=statistics.median(dispatch) / 1e3, peak_extra_bytes=peak.bytes, trace_file=name,
                trace=ranks.read_rank(parsed, annotation).to_dict(),
            )  # fmt: skip
            del full, out
        except Exception as exc:  # failure is data: the case says why, in PyTorch's words
            case["status"], case["reason"] = _failure(exc, caught)
        finally:
            rank_run["sdpa_restored"] = restore_sdpa()
    with contextlib.suppress(Exception):
        me.release()
    case["wall_s"] = time.perf_counter() - t0
    return case


def _gzip(raw: bytes) -> bytes:
    import gzip

    return gzip.compress(raw, mtime=0)
