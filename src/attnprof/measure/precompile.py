"""Compile ahead, in parallel, so that the docs build measures with warm caches.

Compiling (Dynamo, AOTAutograd, Inductor, Triton) is CPU work, and the docs build does a lot of it: FlexAttention
once per mask, sequence length and head dim, ``torch.compile`` of the naive code, each taking seconds, one after
another inside the one process that runs the gallery. The GPU is idle meanwhile. So before the first language's
gallery runs, :mod:`attnprof.site.builder` calls :func:`warm`: every compile the build will make is a :class:`Job`,
and a pool of worker processes (forked from a server that imported torch once, each with its own CUDA context, as
many as there are jobs and cores) runs them at once. A job calls the same code of the package that the gallery will
call, on inputs of the same shapes and dtypes, once: Inductor's FX-graph cache and AOTAutograd's cache
(``$TORCHINDUCTOR_CACHE_DIR``) then hold the compiled graphs and Triton's cache their kernels. When the build
compiles the same graph in its own process, it finds it in those caches; what is left is Dynamo's tracing. Nothing
here is measured or saved: a job's numbers are thrown away, and the build measures one script at a time. Meanwhile
the build's own process sets up its CUDA side (:func:`warm_here`), which its first script would otherwise pay for.

A job that fails says why (:class:`Warmed` holds every job's outcome) and costs the build nothing more than the
compile it would have made anyway. The jobs mirror the build's plans (:func:`jobs`): a change to what a script
compiles that is not mirrored here shows as cache misses in the build-time table, not as a wrong number.

torch is imported inside the functions only.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprof import inputs, variants, workloads

#: Environment variable naming the folder of torch.compile's on-disk caches (Inductor puts Triton's inside it).
CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
#: What the workers' server imports once, before it forks them: torch and this module, nothing that touches CUDA.
#: Not the compiler's stack: with Dynamo, Inductor and Triton imported in the server, every worker forked from it
#: failed its CUDA set-up ("CUDA error: initialization error", all 17 jobs of an H200 build, which then compiled
#: everything itself); with these two, all 17 ran.
PRELOAD = ["torch", "attnprof.measure.precompile"]
#: Inductor compiles each worker's kernels in that worker (the workers are the parallelism); set for the workers
#: only.
WORKER_ENV = {"TORCHINDUCTOR_COMPILE_THREADS": "1"}


@dataclass(frozen=True)
class Job:
    """One compile of the build: what to call (``kind``, see :data:`KINDS`) with which arguments."""

    name: str
    kind: str
    args: tuple[Any, ...] = ()


@dataclass
class Done:
    """How one job ended: ``ok`` or why not (PyTorch's first line), its wall time, and its cache hits and misses."""

    name: str
    status: str
    seconds: float
    reason: str | None = None
    hits: int = 0
    misses: int = 0


@dataclass
class Warmed:
    """What :func:`warm` did: every job's outcome, the pool's size and its wall time (start-up included); ``skipped``
    when the caches were filled by the same jobs and code before (a rebuild); ``here_s``, the seconds this process
    spent meanwhile setting up its own CUDA side (:func:`warm_here`)."""

    done: list[Done] = field(default_factory=list)
    workers: int = 0
    seconds: float = 0.0
    skipped: bool = False
    here_s: float = 0.0

    @property
    def failed(self) -> list[Done]:
        return [d for d in self.done if d.status != "ok"]


# --- the jobs: what the build compiles ------------------------------------------------------------------------------


def jobs(device: str) -> list[Job]:
    """Every compile the docs build makes on ``device``, longest first (none on the CPU, where the build compiles
    only the naive code, and two cores leave nothing to run beside it)."""
    if device != "cuda":
        return []
    from attnprof.measure import maskrun, sweeprun

    cfg = sweeprun.default_config(device)
    out = [Job(f"sweep {v} hd{d} seq{s}", "sweep", (device, v, d, s)) for v in cfg.variants
           if variants.get(v).compiled for d in cfg.head_dims for s in cfg.seqs_for(v)]  # fmt: skip
    plan = maskrun.build_plan(device)
    for name in plan.masks:
        mask = workloads.get_mask(name)
        for seq in plan.seqs:
            for i, g in enumerate(mask.geometries(plan.bhd[0], seq, plan.windows)):
                size = (
                    f"window {g.window}" if mask.windowed else f"seq {seq}" if mask.packed else f"prefix {g.prefix}"
                )
                for workload in plan.workloads:
                    out.append(Job(f"mask {name} {size} {workload}", "mask", (device, name, seq, i, workload)))
    out.append(Job("prefill flex", "prefill", (device, "flex")))
    out.append(Job("prefill compiled_naive", "prefill", (device, "compiled_naive")))
    for p in workloads.plan("decode", device):
        if variants.get(p.variant).compiled:
            out.append(Job(f"decode {p.variant} {p.setup.kv_len}", "decode", (device, p.variant, p.setup.kv_len)))
    return out


def _prefill(device: str, variant: str) -> None:
    """Scripts 08 and 09 (their own compiled call, the same code as the registry's) and the CPU-cost comparison."""
    import torch

    setup = inputs.default_setup(device)
    q, k, v = inputs.make_inputs(setup)
    with torch.no_grad():
        variants.get(variant).build(setup.shape[2], device)(q, k, v)


def _sweep(device: str, variant: str, head_dim: int, seq: int) -> None:
    """One point of the sweep of a compiled variant (compiled for its shape alone: ``dynamic=False``)."""
    import torch

    from attnprof.measure import sweeprun

    cfg = sweeprun.default_config(device)
    q, k, v = sweeprun.sweep_inputs(cfg, seq, head_dim)
    with torch.no_grad():
        variants.get(variant).build(seq, device)(q, k, v)


def _mask(device: str, name: str, seq: int, index: int, workload: str) -> None:
    """One FlexAttention case of the mask run (and script 16's own call, the same graph)."""
    from attnprof.measure import maskrun

    plan = maskrun.build_plan(device)
    b, h, d = plan.bhd
    mask = workloads.get_mask(name)
    g = mask.geometries(b, seq, plan.windows)[index]
    setup = inputs.make_setup((b, h, seq, d), plan.dtype, device)
    train = workloads.get(workload).backward
    method = next(workloads.get_method(m) for m in plan.methods if workloads.get_method(m).compiled)
    maskrun.step(maskrun.prepare(method, mask, g, setup, train, {}), train)()


def _decode(device: str, variant: str, kv_len: int) -> None:
    """The decoding step of a compiled variant at the one cache length the build decodes it at."""
    import torch

    from attnprof.measure import steps

    w = workloads.get("decode")
    planned = workloads.plan("decode", device)
    setup = next(p.setup for p in planned if (p.variant, p.setup.kv_len) == (variant, kv_len))
    with torch.no_grad():
        steps.prepare(w, variants.get(variant), setup).call()


#: What each kind of job calls.
KINDS: dict[str, Callable[..., None]] = {"prefill": _prefill, "sweep": _sweep, "mask": _mask, "decode": _decode}


# --- running them ---------------------------------------------------------------------------------------------------


def warm_here(device: str) -> float:
    """Set up what this process's first measurement would otherwise pay for, while the workers compile: the CUDA
    context, the libraries of SDPA's backends and of the matrix products (loaded at their first call), and the
    profiler's CUDA side (CUPTI). Nothing is measured; returns the seconds it took (0 on the CPU)."""
    if device != "cuda":
        return 0.0
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile

    from attnprof.measure.failure import attempt

    t0 = time.perf_counter()
    x = torch.randn(2, 4, 256, 64, device="cuda", dtype=torch.bfloat16)
    for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                    SDPBackend.MATH):  # fmt: skip
        with attempt(), sdpa_kernel(backend):
            F.scaled_dot_product_attention(x, x, x, is_causal=True)
    x @ x.transpose(-1, -2)
    with attempt(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        (x + 1).sum()
        torch.cuda.synchronize()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def build_device() -> str:
    """Where the build measures: ``"cuda"`` when a CUDA device is there, else ``"cpu"`` (as the scripts decide)."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cache_counts() -> tuple[int, int]:
    """This process's FX-graph cache hits and misses so far (``(0, 0)`` before anything was compiled); imports
    nothing that is not imported yet."""
    import sys

    utils = sys.modules.get("torch._dynamo.utils")
    if utils is None:
        return 0, 0
    inductor = utils.counters["inductor"]
    return int(inductor["fxgraph_cache_hit"]), int(inductor["fxgraph_cache_miss"])


def run_job(job: Job) -> Done:
    """Run one job in this process; never raises for a job that fails (its outcome says why)."""
    import torch
    from torch._dynamo.utils import counters

    from attnprof.measure.failure import attempt

    before = dict(counters["inductor"])
    t0 = time.perf_counter()
    with attempt() as outcome:
        KINDS[job.kind](*job.args)
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
    after = counters["inductor"]
    return Done(job.name, outcome.status, time.perf_counter() - t0, outcome.reason,
                hits=after["fxgraph_cache_hit"] - before.get("fxgraph_cache_hit", 0),
                misses=after["fxgraph_cache_miss"] - before.get("fxgraph_cache_miss", 0))  # fmt: skip


def warm(device: str, cache_dir: str | os.PathLike[str], workers: int | None = None,
         todo: list[Job] | None = None) -> Warmed:  # fmt: skip
    """Run every job of :func:`jobs` for ``device`` in a pool of worker processes, their caches in
    ``cache_dir`` (also set as ``$TORCHINDUCTOR_CACHE_DIR`` in this process, so that the build reads what the
    workers wrote). Returns at once, having done nothing, when there are no jobs, or when the same jobs filled this
    cache folder with the same code before (:data:`STAMP`, written when every job ran).

    Args:
        device: ``"cuda"`` or ``"cpu"``.
        cache_dir: The folder of the on-disk caches (the build's own: a cold build starts with none).
        workers: Processes at most; by default one per job, leaving two cores free.
        todo: The jobs, when not :func:`jobs` of ``device``.
    """
    os.environ[CACHE_ENV] = str(cache_dir)
    todo = jobs(device) if todo is None else todo
    out = Warmed()
    stamp, key = Path(cache_dir) / STAMP, warm_key(todo)
    if not todo or _stamped(stamp, key):
        out.skipped = bool(todo)
        return out
    t0 = time.perf_counter()
    out.workers = max(1, min(len(todo), workers or (os.cpu_count() or 2) - 2))
    # The workers fork from one server that imported torch once (the cores import it once, not once per worker);
    # none of them touches CUDA before its first job. The server takes this process's environment when it starts.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    saved = {name: os.environ.get(name) for name in WORKER_ENV}
    os.environ.update(WORKER_ENV)
    try:
        pool = concurrent.futures.ProcessPoolExecutor(out.workers, mp_context=context)
        futures = {pool.submit(run_job, job): job for job in todo}
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    with pool:
        out.here_s = warm_here(device)  # meanwhile, this process, idle otherwise
        for future in concurrent.futures.as_completed(futures):
            try:
                out.done.append(future.result())
            except Exception as exc:  # a worker that died (killed, out of host memory): the build compiles it itself
                out.done.append(Done(futures[future].name, "error", time.perf_counter() - t0,
                                     f"{type(exc).__name__}: {exc}"))  # fmt: skip
    out.done.sort(key=lambda d: [j.name for j in todo].index(d.name))
    out.seconds = time.perf_counter() - t0
    if not out.failed:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps({"key": key, "jobs": [j.name for j in todo]}) + "\n", encoding="utf-8")
    return out


#: The file in the cache folder that says which jobs filled it, with which code (:func:`warm_key`).
STAMP = "attnprof-warmed.json"
#: The modules whose code decides what a job compiles (paths in the package).
COMPILING_CODE = ("measure/precompile", "measure/maskrun", "measure/sweeprun", "measure/steps", "variants",
                  "workloads", "inputs")  # fmt: skip


def warm_key(todo: list[Job]) -> str:
    """What decides the caches the jobs fill: the jobs, torch's version and the code they run (a digest)."""
    import torch

    digest = hashlib.sha256(json.dumps([dataclasses.astuple(j) for j in todo]).encode())
    digest.update(torch.__version__.encode())
    package = Path(__file__).resolve().parent.parent
    for name in COMPILING_CODE:
        digest.update((package / f"{name}.py").read_bytes())
    return digest.hexdigest()


def _stamped(stamp: Path, key: str) -> bool:
    """Whether the cache folder was filled by these jobs with this code already (a rebuild compiles nothing ahead)."""
    try:
        return json.loads(stamp.read_text(encoding="utf-8")).get("key") == key
    except (OSError, ValueError, AttributeError):
        return False
