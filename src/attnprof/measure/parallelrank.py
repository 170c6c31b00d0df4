"""One rank of a context-parallel run: join the process group, time NCCL alone, then measure every case.

One process per GPU (a *rank*). Each holds the whole ``q``, ``k`` and ``v`` at first (the same on every rank);
``context_parallel`` then shards them in place along the sequence and replaces
``torch.nn.functional.scaled_dot_product_attention`` with its ring version while the context is open: each rank
computes attention for its queries while the keys and values of the other ranks travel over NCCL, by all-gather or
by all-to-all (``set_rotate_method``). PyTorch's head-tail load balancer (``_cp_options.enable_load_balance``) cuts
the sequence into ``2 * world`` chunks and gives each rank one from the head and one from the tail, so that the
causal mask leaves every rank the same amount of work.

How one rank measures a case (backend, rotation method, sequence length), with :mod:`attnprof.measure.timing`:

* the same attention on the rank's GPU alone, whole sequence: the yardstick for time and for the result;
* inside the context: ``warmup`` calls, the peak memory of one call, ``reps`` timed calls (CUDA events from an idle
  GPU, every rank released by a barrier before each call), the CPU time to issue a call, and five profiler steps
  with the reference article's schedule, one trace per rank;
* after the context: the output gathered from every rank (``context_parallel_unshard``) against the one-GPU output.

Failure is data: a backend context parallelism refuses, a sequence length the ranks cannot split, running out of
memory: the case records why, in PyTorch's words where PyTorch gives any. Two things are checked before the context
is entered, because PyTorch 2.11 reports them badly (:func:`split_problem`): a sequence the load balancer cannot
split (a bare ``AssertionError``) and load balancing without a causal mask. And since ``context_parallel`` leaves
its replacement of ``scaled_dot_product_attention`` in place when its body raises (PyTorch 2.11), every case
restores the original afterwards (:func:`restore_sdpa`).

:func:`worker` is what :mod:`attnprof.measure.parallelrun` spawns (it lives in the package so that the children can
import it); under ``torchrun`` the calling process runs :func:`rank_main` itself. torch is imported inside the
functions only.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import statistics
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from attnprof import inputs
from attnprof.analysis import rank_traces
from attnprof.measure.failure import attempt, classify, pytorch_reason
from attnprof.measure.timing import PeakMemory, capture_trace, percentile, sync, time_dispatch_us, timed_calls
from attnprof.records import files, parallel
from attnprof.records.parallel import BACKENDS, Collective, ParallelConfig

#: Set in the parent and in every rank: NVLink multicast (NVLS) stays off on shared multi-GPU hosts.
SAFE_ENV: dict[str, str] = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
#: Timeout of the process group's collectives, seconds.
COLLECTIVE_TIMEOUT_S = 120.0

_ORIGINAL_SDPA: Any = None


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


def config_json(cfg: ParallelConfig) -> str:
    """The configuration as JSON text, for the spawned ranks."""
    return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in cfg.__dict__.items()})


def config_from_json(data: str) -> ParallelConfig:
    """The configuration :func:`config_json` wrote."""
    d = json.loads(data)
    return ParallelConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


# --- one rank -------------------------------------------------------------------------------------------------------


def worker(rank: int, world: int, port: int, config: str, trace_dir: str, outdir: str) -> None:
    """The spawned rank: set the environment, run :func:`rank_main`, write what it measured to ``outdir``."""
    for key, value in SAFE_ENV.items():
        os.environ[key] = value
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    data = rank_main(rank, world, config_from_json(config), Path(trace_dir))
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
    status = classify(exc)
    if status == "error" and any(words in str(exc) for words in _REFUSALS):
        status = "unsupported"
    return status, pytorch_reason(exc, caught)


def _single_gpu(me: _Rank, backend: str, q: Any, k: Any, v: Any) -> tuple[dict[str, Any], Any]:
    """The same attention on this rank's GPU alone, whole sequence: time, peak memory, and the output."""
    import torch

    cfg = me.cfg

    def call() -> torch.Tensor:
        return _ORIGINAL_SDPA(q, k, v, is_causal=cfg.causal)

    with torch.no_grad(), attempt(judge=_failure) as outcome:  # failure is data; the other ranks learn of it
        with _forced(backend):
            for _ in range(max(cfg.warmup, 1)):
                ref = call()
            with PeakMemory(me.device) as peak:
                ref = call()
            ms = timed_calls(call, me.device, min_reps=cfg.reps, before=me.release).gpu_ms
    if not outcome.ok:
        return {"status": outcome.status, "reason": outcome.reason}, None
    return {"single_ms": statistics.median(ms), "single_peak_extra_bytes": peak.bytes}, ref


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
    with torch.no_grad(), attempt(judge=_failure) as outcome:  # failure is data: the case says why
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
            files.write_if_changed(me.trace_dir / name, _gzip(raw))
            rank_run.update(
                step_ms=statistics.median(ms), step_ms_p10=percentile(ms, 10), step_ms_p90=percentile(ms, 90),
                dispatch_ms=statistics.median(dispatch) / 1e3, peak_extra_bytes=peak.bytes, trace_file=name,
                trace=rank_traces.read_rank(parsed, annotation).to_dict(),
            )  # fmt: skip
            del full, out
        finally:
            rank_run["sdpa_restored"] = restore_sdpa()
    if not outcome.ok:
        case["status"], case["reason"] = outcome.status, outcome.reason
    with contextlib.suppress(Exception):
        me.release()
    case["wall_s"] = time.perf_counter() - t0
    return case


def _gzip(raw: bytes) -> bytes:
    import gzip

    return gzip.compress(raw, mtime=0)
