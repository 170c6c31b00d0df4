"""Probe the workloads of issues 14 and 15 on a GPU builder: training, GQA decoding, CUDA graphs, context parallel.

Standalone: imports only torch and the standard library (not attnprof), so what it records can serve as fixtures and
facts while the product code is written. One run writes, under ``--out``:

* ``findings.json``: every measured figure and every refusal, in PyTorch's words (rewritten after each part, so a
  run cut short keeps what it had);
* ``traces.tar.gz``: small gzipped Chrome traces (``train/``, ``decode/``, ``graph/``, ``cp/``).

Parts, each wrapped so that one failure never loses the others, each skipped when the time budget is spent:

1. facts: versions, GPUs, NVLink topology, device copy bandwidth, bf16 matmul rate, the torch APIs present;
2. context parallelism over all GPUs (``torch.multiprocessing`` spawn, NCCL), against one GPU;
3. decoding: one query token against a KV cache with grouped-query attention, every SDPA backend;
4. CUDA graphs: the decode step captured and replayed, side by side with the eager step;
5. training: forward + backward of every attention variant;
6. FlexAttention decoding (compiled once per KV length; last, because compiling is slow).

``--cpu-smoke`` runs everything that can run on a CPU at tiny shapes (context parallelism through gloo), to catch
bugs before spending GPU time.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import warnings
from collections import defaultdict

# NVLink multicast stays off on the shared multi-GPU hosts; spawned ranks inherit os.environ.
SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
for _k, _v in SAFE_ENV.items():
    os.environ[_k] = _v

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

#: The real SDPA, captured before anything can patch it: context_parallel() swaps F.scaled_dot_product_attention
#: for its ring version while the context is open (and, in torch 2.11, leaves it swapped if the body raises).
SDPA_ORIG = F.scaled_dot_product_attention
T_START = time.time()
DEADLINE = T_START + 330.0
FINDINGS: dict = {"meta": {}, "parts": {}}
OUT = "."
TRACE_DIR = "."
SDPA_BACKENDS = {
    "sdpa_math": "MATH",
    "sdpa_efficient": "EFFICIENT_ATTENTION",
    "sdpa_flash": "FLASH_ATTENTION",
    "sdpa_cudnn": "CUDNN_ATTENTION",
    "sdpa_auto": None,
}
NOISE = ("kernel not used because", "has been runtime disabled", "Profiler clears events")


def left() -> float:
    return DEADLINE - time.time()


def log(*a) -> None:
    print(f"[{time.time() - T_START:7.1f}s]", *a, flush=True)


# --- bookkeeping ----------------------------------------------------------------------------------------------------


def save() -> None:
    """findings.json and traces.tar.gz, rewritten whole (cheap), so that a cut-short run keeps what it had."""
    FINDINGS["meta"]["elapsed_s"] = round(time.time() - T_START, 1)
    sizes = {}
    for root, _, files in os.walk(TRACE_DIR):
        for f in files:
            p = os.path.join(root, f)
            sizes[os.path.relpath(p, TRACE_DIR)] = os.path.getsize(p)
    FINDINGS["traces"] = dict(sorted(sizes.items()))
    tmp = os.path.join(OUT, "findings.json.tmp")
    with open(tmp, "w") as f:
        json.dump(FINDINGS, f, indent=1, default=str)
    os.replace(tmp, os.path.join(OUT, "findings.json"))
    if sizes:
        tmp = os.path.join(OUT, "traces.tar.gz.tmp")
        with tarfile.open(tmp, "w:gz") as tar:
            tar.add(TRACE_DIR, arcname="traces")
        os.replace(tmp, os.path.join(OUT, "traces.tar.gz"))


def part(name: str, min_left: float = 0.0):
    """Decorator: run a part, record its time, status and any exception; skip it when the budget is spent."""

    def wrap(fn):
        def run(*a, **kw):
            rec = FINDINGS["parts"].setdefault(name, {})
            if left() < min_left:
                rec.update(status="skipped", reason=f"time budget: {left():.0f} s left, part needs ~{min_left:.0f} s")
                log(f"== {name}: skipped ({rec['reason']})")
                save()
                return None
            log(f"== {name}")
            t0 = time.time()
            try:
                out = fn(*a, **kw)
                rec["status"] = "ok"
                return out
            except Exception as exc:  # a part's failure is data
                rec.update(status="error", reason=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc())
                log(f"!! {name} failed: {type(exc).__name__}: {exc}")
                return None
            finally:
                rec["seconds"] = round(time.time() - t0, 1)
                if torch.cuda.is_available():
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                save()

        return run

    return wrap


def reason(exc: BaseException | None, caught) -> str:
    """PyTorch's words: the exception's first line plus the substantive warnings emitted before it."""
    parts = []
    if exc is not None:
        text = str(exc).strip()
        parts.append(f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}")
    for w in caught or ():
        t = str(w.message).split(" (Triggered internally at")[0].strip()
        if t and not any(n in t for n in NOISE) and t not in parts:
            parts.append(t)
    return " | ".join(parts) if parts else "unknown reason"


def classify(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, torch.OutOfMemoryError) or "out of memory" in text.lower():
        return "oom"
    if "No available kernel" in text or "No viable backend" in text or isinstance(exc, NotImplementedError):
        return "unsupported"
    return "error"


def med(xs):
    return statistics.median(xs) if xs else None


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))]


def rnd(x, n=3):
    return None if x is None else round(float(x), n)


# --- timing ---------------------------------------------------------------------------------------------------------


def sync(dev: str) -> None:
    if dev == "cuda":
        torch.cuda.synchronize()


class GpuSleep:
    """A calibrated GPU busy-wait (torch.cuda._sleep) queued before a timed call: CUDA events then time GPU work."""

    def __init__(self) -> None:
        torch.cuda._sleep(1000)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.cuda._sleep(2_000_000)
        e.record()
        e.synchronize()
        self.cycles_per_us = 2_000_000 / max(s.elapsed_time(e) * 1e3, 1.0)

    def __call__(self, us: float) -> None:
        torch.cuda._sleep(int(self.cycles_per_us * us))


SLEEP: GpuSleep | None = None


def time_gpu_ms(fn, dev: str, min_reps: int = 20, budget_s: float = 0.2, max_reps: int = 300, prefill: bool = True):
    """Per-call ms: CUDA events (GPU pre-filled by a busy-wait 3x the last issue time) or perf_counter on the CPU."""
    out, spent, issue_us = [], 0.0, 1000.0
    while len(out) < min_reps or (spent < budget_s * 1e3 and len(out) < max_reps):
        if dev == "cuda":
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if prefill and SLEEP is not None:
                SLEEP(min(max(200.0, 3.0 * issue_us), 50_000.0))
            s.record()
            t0 = time.perf_counter()
            fn()
            issue_us = (time.perf_counter() - t0) * 1e6
            e.record()
            e.synchronize()
            ms = s.elapsed_time(e)
        else:
            t0 = time.perf_counter()
            fn()
            ms = (time.perf_counter() - t0) * 1e3
        out.append(ms)
        spent += ms
    return out


def time_dispatch_us(fn, dev: str, reps: int = 20):
    """CPU time to return from one call, the GPU idle at the start (microseconds)."""
    out = []
    for _ in range(reps):
        sync(dev)
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e6)
    sync(dev)
    return out


def time_wall_us(fn, dev: str, reps: int = 20):
    """Call + synchronize, from an idle GPU (microseconds): what one isolated step costs end to end."""
    out = []
    for _ in range(reps):
        sync(dev)
        t0 = time.perf_counter()
        fn()
        sync(dev)
        out.append((time.perf_counter() - t0) * 1e6)
    return out


def time_loop_us(fn, dev: str, n: int = 100):
    """n calls back to back, then one synchronize: the per-step cost of a decode loop (microseconds)."""
    sync(dev)
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync(dev)
    return (time.perf_counter() - t0) * 1e6 / n


def timing_summary(ms):
    return {"median": rnd(med(ms), 4), "p10": rnd(pct(ms, 10), 4), "p90": rnd(pct(ms, 90), 4), "reps": len(ms)}


# --- profiling and trace reading ------------------------------------------------------------------------------------


def activities(dev: str):
    return [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])


def export(prof, rel_path: str) -> dict:
    """Export the Chrome trace, keep it gzipped under TRACE_DIR/rel_path, return it parsed."""
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "t.json")
        prof.export_chrome_trace(p)
        with open(p, "rb") as f:
            raw = f.read()
    if rel_path:
        dst = os.path.join(TRACE_DIR, rel_path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with gzip.open(dst, "wb", compresslevel=9) as f:
            f.write(raw)
    return json.loads(raw)


def profile_steps(body, annotation: str, dev: str, rel_path: str, steps: int = 5) -> dict:
    """The site's method: schedule(wait=1, warmup=1, active=3), steps inside record_function, sync before step()."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=activities(dev), schedule=schedule(wait=1, warmup=1, active=3, repeat=1)) as prof:
            for _ in range(steps):
                with record_function(annotation):
                    body()
                sync(dev)
                prof.step()
    return export(prof, rel_path)


GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")


class Trace:
    """Just enough of a Kineto trace: annotations, launch calls, GPU activities joined by correlation id."""

    def __init__(self, d: dict):
        self.raw = d
        self.events = [e for e in d.get("traceEvents", ()) if e.get("ph") == "X" and "ts" in e]
        self.gpu = [e for e in self.events if e.get("cat") in GPU_CATS]
        self.by_corr = defaultdict(list)
        for e in self.gpu:
            c = e.get("args", {}).get("correlation")
            if c is not None:
                self.by_corr[int(c)].append(e)
        self.launches = [e for e in self.events if e.get("cat") in LAUNCH_CATS]

    def marks(self, name: str):
        return sorted(
            (e for e in self.events if e.get("cat") == "user_annotation" and e.get("name") == name),
            key=lambda e: e["ts"],
        )

    def launches_in(self, t0: float, t1: float, pid=None, tid=None, other_tids: bool = False):
        out = []
        for e in self.launches:
            if not (t0 <= e["ts"] <= t1) or (pid is not None and e.get("pid") != pid):
                continue
            if tid is not None and ((e.get("tid") == tid) == other_tids):
                continue
            out.append(e)
        return out

    def kernels_of(self, launches):
        seen, out = set(), []
        for lc in launches:
            c = lc.get("args", {}).get("correlation")
            for g in self.by_corr.get(int(c), ()) if c is not None else ():
                if id(g) not in seen:
                    seen.add(id(g))
                    out.append(g)
        return sorted(out, key=lambda g: g["ts"])

    def step_kernels(self, annotation: str):
        """Per occurrence of the annotation: GPU activities launched from inside its time window (any thread)."""
        res = []
        for m in self.marks(annotation):
            res.append(self.kernels_of(self.launches_in(m["ts"], m["ts"] + m.get("dur", 0), pid=m.get("pid"))))
        return res


def kernel_table(steps, limit: int = 25):
    """Kernel rows over the given steps: name, count per step, mean us, stream, grid/block of the first launch."""
    agg: dict = {}
    n = max(len(steps), 1)
    for ks in steps:
        for g in ks:
            a = g.get("args", {})
            r = agg.setdefault(
                g["name"],
                {
                    "name": g["name"][:240],
                    "cat": g.get("cat"),
                    "count": 0,
                    "total_us": 0.0,
                    "stream": a.get("stream"),
                    "grid": a.get("grid"),
                    "block": a.get("block"),
                },
            )
            r["count"] += 1
            r["total_us"] += g.get("dur", 0.0)
    rows = sorted(agg.values(), key=lambda r: -r["total_us"])[:limit]
    for r in rows:
        r["per_step"] = round(r["count"] / n, 2)
        r["avg_us"] = round(r["total_us"] / max(r["count"], 1), 3)
        r["total_us"] = round(r["total_us"] / n, 3)  # per step
    return rows


def gpu_time_per_step(steps):
    return rnd(med([sum(g.get("dur", 0.0) for g in ks) for ks in steps]) if steps else None)


def union_len(intervals):
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def intersect_len(a, b):
    a, b = merge(a), merge(b)
    i = j = 0
    tot = 0.0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            tot += e - s
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tot


def is_attention_kernel(name: str) -> bool:
    n = name.lower()
    return any(s in n for s in ("flash", "fmha", "sdpa", "attention", "cudnn", "triton_tem", "flex"))


# --- inputs ---------------------------------------------------------------------------------------------------------


def randn(shape, dev, dtype, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    return torch.randn(shape, generator=g, device=dev, dtype=torch.float32 if dev == "cpu" else dtype).to(dtype)


def rel_err(out, ref) -> float:
    out, ref = out.double(), ref.double()
    return float((out - ref).norm() / ref.norm())


@contextlib.contextmanager
def forced(backend: str | None):
    if backend is None:
        yield
    else:
        with sdpa_kernel(getattr(SDPBackend, backend)):
            yield


# --- part 1: facts --------------------------------------------------------------------------------------------------


def sh(cmd, timeout=15):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except Exception as exc:
        return f"unavailable: {type(exc).__name__}: {exc}"


@part("facts")
def part_facts(dev: str, smoke: bool):
    f = FINDINGS["facts"] = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "cpu_count": os.cpu_count(),
        "env": {k: os.environ.get(k) for k in (*SAFE_ENV, "NCCL_P2P_DISABLE", "CUDA_VISIBLE_DEVICES")},
    }
    try:
        nv = torch.cuda.nccl.version() if dev == "cuda" else None
        f["nccl"] = nv if nv is None or isinstance(nv, int) else ".".join(map(str, nv))
    except Exception as exc:
        f["nccl"] = f"unavailable: {exc}"
    if dev != "cuda":
        f["device_count"] = 0
        return
    n = torch.cuda.device_count()
    f["device_count"] = n
    f["gpus"] = [
        {
            "name": torch.cuda.get_device_name(i),
            "capability": list(torch.cuda.get_device_capability(i)),
            "props": str(torch.cuda.get_device_properties(i)),
        }
        for i in range(n)
    ]
    f["nvidia_smi_topo"] = sh(["nvidia-smi", "topo", "-m"])
    f["nvidia_smi"] = sh(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem", "--format=csv"]
    )
    f["peer_access"] = {
        f"{i}->{j}": torch.cuda.can_device_access_peer(i, j) for i in range(n) for j in range(n) if i != j
    }
    global SLEEP
    SLEEP = GpuSleep()
    f["gpu_sleep_cycles_per_us"] = rnd(SLEEP.cycles_per_us, 1)

    # device-to-device copy: bytes read + written, median of 10 after warm-up
    nbytes = 2 * 1024**3
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    ms = time_gpu_ms(lambda: dst.copy_(src), dev, min_reps=10, budget_s=0, prefill=False)
    f["copy"] = {
        "bytes_each_way": nbytes,
        "ms": timing_summary(ms),
        "GBps_read_plus_write": rnd(2 * nbytes / (med(ms) * 1e-3) / 1e9, 1),
    }
    src = dst = None
    # GPU0 -> GPU1 copy (for the scaling model)
    if n >= 2:
        a = torch.empty(1024**3, dtype=torch.uint8, device="cuda:0").fill_(1)
        b = torch.empty_like(a, device="cuda:1")
        for _ in range(3):
            b.copy_(a)
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
        ts = []
        for _ in range(5):
            torch.cuda.synchronize(0)
            torch.cuda.synchronize(1)
            t0 = time.perf_counter()
            b.copy_(a)
            torch.cuda.synchronize(0)
            torch.cuda.synchronize(1)
            ts.append(time.perf_counter() - t0)
        f["copy_gpu0_to_gpu1"] = {
            "bytes": a.numel(),
            "ms_median": rnd(med(ts) * 1e3, 3),
            "GBps": rnd(a.numel() / med(ts) / 1e9, 1),
        }
        del a, b
    # bf16 matmul 8192^3
    m = 8192
    x = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        x @ y
    ms = time_gpu_ms(lambda: x @ y, dev, min_reps=10, budget_s=0, prefill=False)
    f["matmul_bf16_8192"] = {"ms": timing_summary(ms), "TFLOPs": rnd(2 * m**3 / (med(ms) * 1e-3) / 1e12, 1)}
    x = y = None


@part("api")
def part_api():
    """What this torch spells and where: the authority for the versions the builders run."""
    import inspect

    a = FINDINGS["api"] = {}

    def sig(obj):
        try:
            return str(inspect.signature(obj))
        except Exception as exc:
            return f"n/a: {exc}"

    a["sdpa_doc_first_line"] = (F.scaled_dot_product_attention.__doc__ or "").strip().splitlines()[0:2]
    a["sdpa_kernel"] = sig(sdpa_kernel)
    a["SDPBackend"] = {k: int(v.value) for k, v in SDPBackend.__members__.items()}
    a["_fused_sdp_choice"] = hasattr(torch, "_fused_sdp_choice")
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        a["flex_attention"] = sig(flex_attention)
        a["create_block_mask"] = sig(create_block_mask)
    except Exception as exc:
        a["flex_attention"] = f"unavailable: {exc}"
    a["CUDAGraph"] = sig(torch.cuda.graph)
    try:
        import torch.distributed.tensor.experimental as ex
        import torch.distributed.tensor.experimental._attention as att

        a["context_parallel"] = {
            "module": ex.context_parallel.__module__,
            "signature": sig(ex.context_parallel),
            "file": inspect.getsourcefile(att),
        }
        for name in (
            "context_parallel_unshard",
            "set_rotate_method",
            "_context_parallel_shard",
            "_enable_context_parallel_dispatcher",
        ):
            a[name] = sig(getattr(att, name)) if hasattr(att, name) else "absent"
        a["_cp_options"] = repr(getattr(att, "_cp_options", "absent"))
        a["_RotateMethod"] = list(att._RotateMethod.__members__) if hasattr(att, "_RotateMethod") else None
        a["_attention_exports"] = sorted(n for n in dir(att) if not n.startswith("__"))
        try:
            import torch.distributed.tensor.experimental._context_parallel._attention as cpa

            a["cp_impl_file"] = inspect.getsourcefile(cpa)
            a["cp_custom_ops"] = sorted(str(k) for k in getattr(cpa, "custom_ops", {}))
            src = inspect.getsource(cpa)
            a["cp_mentions"] = {
                s: (s in src)
                for s in (
                    "_cp_options.enable_load_balance",
                    "_HeadTailLoadBalancer",
                    "convert_to_f32",
                    "MODULE_WRAPPER",
                    "CUDNN",
                )
            }
            import torch.distributed.tensor.experimental._context_parallel._load_balancer as lb

            a["load_balancers"] = sorted(n for n in dir(lb) if "LoadBalancer" in n or "load_balancer" in n)
            a["_create_default_load_balancer_src"] = (
                inspect.getsource(lb._create_default_load_balancer)
                if hasattr(lb, "_create_default_load_balancer")
                else None
            )
        except Exception as exc:
            a["cp_impl"] = f"n/a: {exc}"
        a["context_parallel_doc"] = (ex.context_parallel.__doc__ or "")[:1500]
        try:
            import torch.distributed.tensor.experimental._context_parallel._attention as cpa2

            lines = inspect.getsource(
                cpa2.context_parallel.__wrapped__
                if hasattr(cpa2.context_parallel, "__wrapped__")
                else cpa2.context_parallel
            ).splitlines()
            i = next(n for n, ln in enumerate(lines) if ln.strip() == "yield" or ln.strip().startswith("yield"))
            a["context_parallel_yield_block"] = lines[max(0, i - 3) : i + 4]
        except Exception as exc:
            a["context_parallel_yield_block"] = f"n/a: {type(exc).__name__}: {exc}"
    except Exception as exc:
        a["context_parallel"] = f"unavailable: {type(exc).__name__}: {exc}"


# --- part 3: decode -------------------------------------------------------------------------------------------------


def decode_fn(name: str, q, k, v):
    """The decode call of one backend: one query token, no mask (it may see every cached key), GQA broadcast."""
    if name in SDPA_BACKENDS:
        b = SDPA_BACKENDS[name]

        def fn():
            with forced(b):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

        return fn
    if name == "naive_repeat":
        rep = q.size(1) // k.size(1)
        scale = 1.0 / math.sqrt(q.size(-1))

        def fn():
            kk = k.repeat_interleave(rep, dim=1)
            vv = v.repeat_interleave(rep, dim=1)
            w = torch.softmax((q @ kk.transpose(-2, -1)) * scale, dim=-1)
            return w @ vv

        return fn
    raise ValueError(name)


def decode_reference(q, k, v):
    rep = q.size(1) // k.size(1)
    qf = q.float()
    kf = k.float().repeat_interleave(rep, dim=1)
    s = (qf @ kf.transpose(-2, -1)) / math.sqrt(q.size(-1))
    del kf
    vf = v.float().repeat_interleave(rep, dim=1)
    return torch.softmax(s, dim=-1) @ vf


@part("decode")
def part_decode(dev: str, smoke: bool):
    B, Hq, Hkv, D = (1, 4, 2, 16) if smoke else (8, 32, 8, 128)
    Ls = [64, 256] if smoke else [1024, 4096, 8192, 16384, 65536, 131072]
    prof_Ls = [256] if smoke else [8192, 131072]
    dtype = torch.bfloat16
    names = [*SDPA_BACKENDS, "naive_repeat"]
    d = FINDINGS["decode"] = {
        "shape": {"B": B, "Hq": Hq, "Hkv": Hkv, "D": D, "q_len": 1, "dtype": "bfloat16"},
        "call": "F.scaled_dot_product_attention(q, k, v, enable_gqa=True) (no mask, is_causal=False: the one new "
        "token may attend to every cached position); forced backends inside sdpa_kernel(...)",
        "bytes_counted": "K + V + Q + out, each read or written once",
        "copy_GBps": (FINDINGS.get("facts", {}).get("copy") or {}).get("GBps_read_plus_write"),
        "rows": [],
    }
    ceiling = d["copy_GBps"]
    for L in Ls:
        if left() < 25:
            d["rows"].append({"L": L, "status": "skipped", "reason": "time budget"})
            continue
        q = randn((B, Hq, 1, D), dev, dtype, 1)
        k = randn((B, Hkv, L, D), dev, dtype, 2)
        v = randn((B, Hkv, L, D), dev, dtype, 3)
        ref = decode_reference(q, k, v)
        nbytes = (2 * B * Hkv * L * D + 2 * B * Hq * D) * 2
        calls = {}
        for name in names:
            row = {"backend": name, "L": L, "bytes": nbytes}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    fn = decode_fn(name, q, k, v)
                    for _ in range(3):
                        out = fn()
                    sync(dev)
                    row["rel_err_vs_fp32"] = rnd(rel_err(out, ref), 6)
                    del out
                    ms = time_gpu_ms(fn, dev, min_reps=20, budget_s=0.1)
                    us = med(ms) * 1e3
                    row.update(
                        status="ok",
                        gpu_us=timing_summary([m * 1e3 for m in ms]),
                        dispatch_us=rnd(med(time_dispatch_us(fn, dev)), 2),
                        GBps=rnd(nbytes / (us * 1e-6) / 1e9, 1),
                    )
                    if ceiling:
                        row["pct_of_copy"] = rnd(100 * row["GBps"] / ceiling, 1)
                    if name in SDPA_BACKENDS and hasattr(torch, "_fused_sdp_choice") and SDPA_BACKENDS[name] is None:
                        row["fused_sdp_choice"] = SDPBackend(
                            torch._fused_sdp_choice(q, k, v, is_causal=False, enable_gqa=True)
                        ).name
                    calls[name] = fn
                except Exception as exc:
                    row.update(status=classify(exc), reason=reason(exc, caught))
            d["rows"].append(row)
            log(
                f"decode L={L} {name}: {row.get('status')} {row.get('gpu_us', {}).get('median')} us "
                f"{row.get('GBps')} GB/s {row.get('reason', '')[:150]}"
            )
        # kernels of every backend at this L: one profiler session, one annotated call each
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with profile(activities=activities(dev)) as prof:
                    for name, fn in calls.items():
                        with record_function(f"{name}_decode"):
                            fn()
                        sync(dev)
            tr = Trace(export(prof, ""))
            for row in d["rows"]:
                if row.get("L") == L and row.get("backend") in calls:
                    ks = tr.step_kernels(f"{row['backend']}_decode")
                    row["kernels"] = [
                        {
                            "name": g["name"][:200],
                            "us": rnd(g.get("dur"), 2),
                            "grid": g.get("args", {}).get("grid"),
                            "block": g.get("args", {}).get("block"),
                        }
                        for g in (ks[0] if ks else [])
                    ]
        except Exception as exc:
            d.setdefault("kernel_errors", []).append(f"L={L}: {type(exc).__name__}: {exc}")
        # the site-style profile (5 steps, 3 active) of each backend, kept as fixtures
        if L in prof_Ls:
            for name, fn in calls.items():
                try:
                    profile_steps(fn, f"{name}_decode", dev, f"decode/{name}-L{L}.json.gz")
                except Exception as exc:
                    d.setdefault("profile_errors", []).append(f"{name} L={L}: {type(exc).__name__}: {exc}")
        q = k = v = ref = None  # free this length's cache before the next one
        calls = {}
        if dev == "cuda":
            torch.cuda.empty_cache()
        save()

    # the pitfall: is_causal=True with one query row is top-left aligned in SDPA, so the token sees key 0 only
    L = Ls[0]
    q = randn((B, Hq, 1, D), dev, dtype, 1)
    k = randn((B, Hkv, L, D), dev, dtype, 2)
    v = randn((B, Hkv, L, D), dev, dtype, 3)
    pit = d["causal_pitfall"] = {"L": L}
    ref = decode_reference(q, k, v)
    for name, b in SDPA_BACKENDS.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with forced(b):
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                pit[name] = {
                    "status": "ok",
                    "rel_diff_vs_no_mask": rnd(rel_err(o, ref), 4),
                    "equals_v0": bool(
                        torch.allclose(o.float(), v[:, :, :1].float().repeat_interleave(Hq // Hkv, dim=1), atol=1e-2)
                    ),
                }
            except Exception as exc:
                pit[name] = {"status": classify(exc), "reason": reason(exc, caught)}


@part("decode_flex", min_left=40)
def part_decode_flex(dev: str, smoke: bool, cap_s: float):
    from torch.nn.attention.flex_attention import flex_attention

    _raise_recompile_limit()
    B, Hq, Hkv, D = (1, 4, 2, 16) if smoke else (8, 32, 8, 128)
    Ls = [64, 256] if smoke else [8192, 131072, 1024, 4096, 16384, 65536]
    dtype = torch.bfloat16
    compiled = torch.compile(flex_attention, dynamic=False)
    rows = FINDINGS.setdefault("decode", {}).setdefault("flex_rows", [])
    ceiling = (FINDINGS.get("facts", {}).get("copy") or {}).get("GBps_read_plus_write")
    t_start = time.time()
    for L in Ls:
        if time.time() - t_start > cap_s or left() < 20:
            rows.append({"backend": "flex", "L": L, "status": "skipped", "reason": f"compile time cap {cap_s:.0f} s"})
            continue
        q = randn((B, Hq, 1, D), dev, dtype, 1)
        k = randn((B, Hkv, L, D), dev, dtype, 2)
        v = randn((B, Hkv, L, D), dev, dtype, 3)
        nbytes = (2 * B * Hkv * L * D + 2 * B * Hq * D) * 2
        row = {
            "backend": "flex",
            "L": L,
            "bytes": nbytes,
            "call": "torch.compile(flex_attention, dynamic=False)(q, k, v, enable_gqa=True), no block mask",
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:

                def fn(q=q, k=k, v=v):
                    return compiled(q, k, v, enable_gqa=True)

                t0 = time.time()
                out = fn()
                sync(dev)
                row["compile_s"] = rnd(time.time() - t0, 2)
                for _ in range(2):
                    out = fn()
                sync(dev)
                row["rel_err_vs_fp32"] = rnd(rel_err(out, decode_reference(q, k, v)), 6)
                ms = time_gpu_ms(fn, dev, min_reps=20, budget_s=0.1)
                us = med(ms) * 1e3
                row.update(
                    status="ok",
                    gpu_us=timing_summary([m * 1e3 for m in ms]),
                    dispatch_us=rnd(med(time_dispatch_us(fn, dev)), 2),
                    GBps=rnd(nbytes / (us * 1e-6) / 1e9, 1),
                )
                if ceiling:
                    row["pct_of_copy"] = rnd(100 * row["GBps"] / ceiling, 1)
                tr = profile_steps(
                    fn, "flex_decode", dev, f"decode/flex-L{L}.json.gz" if L in (8192, 131072, 256) else ""
                )
                row["kernels"] = kernel_table(Trace(tr).step_kernels("flex_decode"))
            except Exception as exc:
                row.update(status=classify(exc), reason=reason(exc, caught))
        rows.append(row)
        log(
            f"decode flex L={L}: {row.get('status')} {row.get('gpu_us', {}).get('median')} us "
            f"compile {row.get('compile_s')} s {row.get('reason', '')[:200]}"
        )
        q = k = v = None
        save()


def _raise_recompile_limit():
    import torch._dynamo.config as dc

    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(dc, name):
            setattr(dc, name, 64)


# --- part 4: CUDA graphs --------------------------------------------------------------------------------------------


@part("graph", min_left=20)
def part_graph(dev: str, smoke: bool):
    g_rec = FINDINGS["graph"] = {}
    if dev != "cuda":
        g_rec["status"] = "skipped: CUDA graphs need a CUDA device"
        return
    B, Hq, Hkv, D, L = 8, 32, 8, 128, 4096
    g_rec["shape"] = {"B": B, "Hq": Hq, "Hkv": Hkv, "D": D, "L": L}
    g_rec["method"] = (
        "static q/k/v; 3 warm-up calls on a side stream; torch.cuda.graph(g) capture; "
        "CPU us = time to return from the call with the GPU idle; wall us = call + synchronize "
        "from idle; loop us = 100 back-to-back calls then one synchronize, per call; GPU us = CUDA "
        "events with the GPU pre-filled"
    )
    q = randn((B, Hq, 1, D), dev, torch.bfloat16, 1)
    k = randn((B, Hkv, L, D), dev, torch.bfloat16, 2)
    v = randn((B, Hkv, L, D), dev, torch.bfloat16, 3)
    for name in ("sdpa_auto", "sdpa_flash", "sdpa_cudnn", "sdpa_efficient"):
        rec = g_rec[name] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn = decode_fn(name, q, k, v)
                eager_out = fn()
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        fn()
                torch.cuda.current_stream().wait_stream(s)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    static_out = fn()
                graph.replay()
                torch.cuda.synchronize()
                rec["replay_matches_eager"] = bool(torch.allclose(static_out.float(), eager_out.float(), atol=1e-2))
                for label, call in (("eager", fn), ("graph", graph.replay)):
                    for _ in range(3):
                        call()
                    rec[label] = {
                        "cpu_us": rnd(med(time_dispatch_us(call, dev, reps=30)), 2),
                        "wall_us": rnd(med(time_wall_us(call, dev, reps=30)), 2),
                        "loop_us": rnd(time_loop_us(call, dev, n=100), 2),
                        "gpu_us": rnd(med(time_gpu_ms(call, dev, min_reps=30, budget_s=0.05)) * 1e3, 2),
                        "gpu_us_no_prefill": rnd(
                            med(time_gpu_ms(call, dev, min_reps=30, budget_s=0.05, prefill=False)) * 1e3, 2
                        ),
                    }
                # the trace: 5 replays then 5 eager steps, each annotated, in one session
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with profile(activities=activities(dev)) as prof:
                        for ann, call in (("decode_graph", graph.replay), ("decode_eager", fn)):
                            for _ in range(5):
                                with record_function(ann):
                                    call()
                                torch.cuda.synchronize()
                tr = Trace(export(prof, f"graph/{name}.json.gz"))
                rec["trace"] = graph_trace_report(tr)
                rec["status"] = "ok"
                del graph, static_out
            except Exception as exc:
                rec.update(status=classify(exc), reason=reason(exc, caught))
        log(
            f"graph {name}: {rec.get('status')} eager {rec.get('eager')} graph {rec.get('graph')} "
            f"{rec.get('reason', '')[:200]}"
        )
        torch.cuda.synchronize()


def graph_trace_report(tr: Trace) -> dict:
    rep = {}
    for ann in ("decode_graph", "decode_eager"):
        marks = tr.marks(ann)
        steps = []
        for m in marks:
            t0, t1 = m["ts"], m["ts"] + m.get("dur", 0)
            lc = tr.launches_in(t0, t1, pid=m.get("pid"))
            ks = tr.kernels_of(lc)
            # GPU activity inside the window up to the end of the last kernel, whatever its correlation
            steps.append(
                {
                    "cpu_us": rnd(m.get("dur"), 2),
                    "launch_calls": sorted({e["name"] for e in lc}),
                    "launch_correlations": [e.get("args", {}).get("correlation") for e in lc],
                    "kernels_by_correlation": [
                        {
                            "name": g["name"][:160],
                            "us": rnd(g.get("dur"), 2),
                            "correlation": g.get("args", {}).get("correlation"),
                            "graph_args": {k: v for k, v in g.get("args", {}).items() if "graph" in k.lower()},
                        }
                        for g in ks
                    ],
                }
            )
        # whatever the GPU ran from the annotation's start to the next annotation (the sync is in between)
        starts = sorted(m2["ts"] for m2 in tr.events if m2.get("cat") == "user_annotation")
        for st, m in zip(steps, marks, strict=True):
            nxt = next((t for t in starts if t > m["ts"]), m["ts"] + m.get("dur", 0) + 10_000)
            st["gpu_in_time_window"] = [
                {
                    "name": g["name"][:120],
                    "us": rnd(g.get("dur"), 2),
                    "correlation": g.get("args", {}).get("correlation"),
                    "stream": g.get("args", {}).get("stream"),
                }
                for g in tr.gpu
                if m["ts"] <= g["ts"] < nxt
            ]
        rep[ann] = {
            "steps": len(marks),
            "first_step": steps[0] if steps else None,
            "kernels_per_step": [len(s["kernels_by_correlation"]) for s in steps],
            "cpu_us_per_step": [s["cpu_us"] for s in steps],
        }
    # do graph kernels exist that no launch call inside an annotation explains?
    all_corr = {e.get("args", {}).get("correlation") for e in tr.launches}
    orphan = [g for g in tr.gpu if g.get("args", {}).get("correlation") not in all_corr]
    rep["gpu_events_without_launch_call"] = len(orphan)
    rep["gpu_arg_keys"] = sorted({k for g in tr.gpu for k in g.get("args", {})})
    rep["graph_launch_events"] = [
        {"name": e["name"], "args": e.get("args")} for e in tr.launches if "Graph" in e["name"]
    ][:3]
    return rep


# --- part 5: training -----------------------------------------------------------------------------------------------


def naive(q, k, v, mask):
    s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    s = s.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def naive_inplace(q, k, v, mask):
    s = torch.matmul(q, k.transpose(-2, -1))
    s = s * (1.0 / math.sqrt(q.size(-1)))
    s.masked_fill_(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def build_train_variant(name: str, S: int, dev: str):
    mask = torch.ones(S, S, dtype=torch.bool, device=dev).triu(1)
    if name == "naive":
        return lambda q, k, v: naive(q, k, v, mask)
    if name == "naive_inplace":
        return lambda q, k, v: naive_inplace(q, k, v, mask)
    if name in SDPA_BACKENDS:
        b = SDPA_BACKENDS[name]

        def fn(q, k, v):
            with forced(b):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

        return fn
    if name == "flex":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        bm = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, S, S, device=dev)
        comp = torch.compile(flex_attention)
        return lambda q, k, v: comp(q, k, v, block_mask=bm)
    if name == "compiled_naive":
        comp = torch.compile(naive_inplace)
        return lambda q, k, v: comp(q, k, v, mask)
    raise ValueError(name)


TRAIN_VARIANTS = [
    "naive",
    "naive_inplace",
    "sdpa_math",
    "sdpa_efficient",
    "sdpa_flash",
    "sdpa_cudnn",
    "sdpa_auto",
    "compiled_naive",
    "flex",
]


@part("train")
def part_train(dev: str, smoke: bool, compile_ok: bool):
    shape = (1, 2, 64, 16) if smoke else (8, 16, 1024, 64)
    B, H, S, D = shape
    dtype = torch.bfloat16
    t = FINDINGS["train"] = {
        "shape": list(shape),
        "dtype": "bfloat16",
        "variants": {},
        "method": "q, k, v leaf tensors with requires_grad; fixed upstream gradient (seed 7); step = grads set to "
        "None, forward, out.backward(grad); profile: 5 steps schedule(1,1,3), annotation <v>_train "
        "around <v>_fwd and <v>_bwd; timing: CUDA events, GPU pre-filled, >=20 reps after 3 warm-ups; "
        "fwd timed with autograd recording (what training runs); peak = max_memory_allocated during one "
        "step minus memory allocated before it; saved = memory held after the forward (output + what "
        "autograd saved) minus before",
    }
    q = randn(shape, dev, dtype, 11).requires_grad_()
    k = randn(shape, dev, dtype, 12).requires_grad_()
    v = randn(shape, dev, dtype, 13).requires_grad_()
    grad = randn(shape, dev, dtype, 7)
    # float32 reference gradients (math backend, causal)
    q32, k32, v32 = (x.detach().float().requires_grad_() for x in (q, k, v))
    with forced("MATH"):
        o32 = F.scaled_dot_product_attention(q32, k32, v32, is_causal=True)
    o32.backward(grad.float())
    ref = {"out": o32.detach(), "dq": q32.grad, "dk": k32.grad, "dv": v32.grad}
    del q32, k32, v32, o32
    flops_fwd = 2.0 * B * H * S * S * D  # causal: two matmuls, half the score matrix
    t["flops"] = {
        "fwd": flops_fwd,
        "fwd_bwd": 3.5 * flops_fwd,
        "rule": "fwd = 2*B*H*S*S*D (causal half); bwd = 2.5 x fwd (five matmuls instead of two); fwd+bwd = 3.5 x fwd",
    }
    if hasattr(torch, "_fused_sdp_choice"):
        t["fused_sdp_choice_training"] = SDPBackend(torch._fused_sdp_choice(q, k, v, is_causal=True)).name
        with torch.no_grad():
            t["fused_sdp_choice_inference"] = SDPBackend(
                torch._fused_sdp_choice(q.detach(), k.detach(), v.detach(), is_causal=True)
            ).name
    for name in TRAIN_VARIANTS:
        compiled = name in ("flex", "compiled_naive")
        rec = t["variants"][name] = {}
        if compiled and not compile_ok:
            rec.update(status="skipped", reason="compiled variants off in this run")
            continue
        need = 70 if compiled else 8
        if left() < need:
            rec.update(status="skipped", reason=f"time budget: {left():.0f} s left")
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn = build_train_variant(name, S, dev)

                def fwd(fn=fn):
                    return fn(q, k, v)

                def step(fn=fn):
                    q.grad = k.grad = v.grad = None
                    fn(q, k, v).backward(grad)

                t0 = time.time()
                step()
                sync(dev)
                rec["first_step_s"] = rnd(time.time() - t0, 2)
                for _ in range(2):
                    step()
                sync(dev)
                q.grad = k.grad = v.grad = None
                out = fwd()
                out.backward(grad)
                rec["rel_err"] = {
                    "out": rnd(rel_err(out.detach(), ref["out"]), 5),
                    "dq": rnd(rel_err(q.grad, ref["dq"]), 5),
                    "dk": rnd(rel_err(k.grad, ref["dk"]), 5),
                    "dv": rnd(rel_err(v.grad, ref["dv"]), 5),
                }
                del out
                q.grad = k.grad = v.grad = None

                def body(fn=fn, name=name):
                    q.grad = k.grad = v.grad = None
                    with record_function(f"{name}_fwd"):
                        out = fn(q, k, v)
                    with record_function(f"{name}_bwd"):
                        out.backward(grad)

                tr = Trace(profile_steps(body, f"{name}_train", dev, f"train/{name}.json.gz"))
                rec["trace"] = train_trace_report(tr, name)
                fwd_ms = time_gpu_ms(fwd, dev, min_reps=20, budget_s=0.2)
                step_ms = time_gpu_ms(step, dev, min_reps=20, budget_s=0.3)
                rec.update(status="ok", fwd_ms=timing_summary(fwd_ms), fwd_bwd_ms=timing_summary(step_ms))
                rec["bwd_over_fwd"] = rnd((med(step_ms) - med(fwd_ms)) / med(fwd_ms), 3)
                rec["TFLOPs_fwd"] = rnd(flops_fwd / (med(fwd_ms) * 1e-3) / 1e12, 1)
                rec["TFLOPs_fwd_bwd"] = rnd(3.5 * flops_fwd / (med(step_ms) * 1e-3) / 1e12, 1)
                rec["dispatch_us_fwd_bwd"] = rnd(med(time_dispatch_us(step, dev, reps=10)), 1)
                if dev == "cuda":
                    q.grad = k.grad = v.grad = None
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    base = torch.cuda.memory_allocated()
                    out = fwd()
                    torch.cuda.synchronize()
                    rec["saved_after_fwd_MiB"] = rnd((torch.cuda.memory_allocated() - base) / 2**20, 1)
                    out.backward(grad)
                    torch.cuda.synchronize()
                    rec["peak_fwd_bwd_MiB"] = rnd((torch.cuda.max_memory_allocated() - base) / 2**20, 1)
                    del out
                    q.grad = k.grad = v.grad = None
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    base = torch.cuda.memory_allocated()
                    with torch.no_grad():
                        out = fwd()
                    torch.cuda.synchronize()
                    rec["peak_fwd_no_grad_MiB"] = rnd((torch.cuda.max_memory_allocated() - base) / 2**20, 1)
                    del out
                warn = [str(w.message)[:300] for w in caught if not any(n in str(w.message) for n in NOISE)]
                if warn:
                    rec["warnings"] = warn[:5]
            except Exception as exc:
                rec.update(status=classify(exc), reason=reason(exc, caught))
        q.grad = k.grad = v.grad = None
        log(
            f"train {name}: {rec.get('status')} fwd {rec.get('fwd_ms', {}).get('median')} ms fwd+bwd "
            f"{rec.get('fwd_bwd_ms', {}).get('median')} ms peak {rec.get('peak_fwd_bwd_MiB')} MiB "
            f"{rec.get('reason', '')[:200]}"
        )
        save()


def train_trace_report(tr: Trace, name: str) -> dict:
    """Where the backward's CPU ops and launches sit (thread), and which kernels they reach (correlation)."""
    rep: dict = {}
    train = tr.marks(f"{name}_train")
    fwd = tr.marks(f"{name}_fwd")
    bwd = tr.marks(f"{name}_bwd")
    rep["annotation_threads"] = sorted({(m.get("pid"), m.get("tid")) for m in train + fwd + bwd}, key=str)
    cpu = [e for e in tr.events if e.get("cat") in ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")]
    steps = []
    for mb in bwd:
        t0, t1, pid, tid = mb["ts"], mb["ts"] + mb.get("dur", 0), mb.get("pid"), mb.get("tid")
        inside = [e for e in cpu if e is not mb and t0 <= e["ts"] <= t1 and e.get("pid") == pid]
        same = [e for e in inside if e.get("tid") == tid]
        other = [e for e in inside if e.get("tid") != tid]
        k_same = tr.kernels_of([e for e in same if e.get("cat") in LAUNCH_CATS])
        k_other = tr.kernels_of([e for e in other if e.get("cat") in LAUNCH_CATS])
        steps.append(
            {
                "bwd_tid": tid,
                "other_tids": sorted({e.get("tid") for e in other}, key=str),
                "cpu_events_same_tid": len(same),
                "cpu_events_other_tids": len(other),
                "same_tid_names": sorted({e["name"] for e in same})[:12],
                "other_tid_top_names": sorted({e["name"] for e in other if e.get("cat") == "cpu_op"})[:25],
                "other_tid_launch_calls": sorted({e["name"] for e in other if e.get("cat") in LAUNCH_CATS}),
                "other_with_seq_nr": sum(1 for e in other if "Sequence number" in e.get("args", {})),
                "other_with_fwd_thread_id": sum(1 for e in other if "Fwd thread id" in e.get("args", {})),
                "kernels_via_same_tid": len(k_same),
                "kernels_via_other_tids": len(k_other),
                "bwd_kernels": [g["name"][:200] for g in (k_same + k_other)][:30],
                "bwd_gpu_us": rnd(sum(g.get("dur", 0) for g in k_same + k_other), 2),
            }
        )
    rep["bwd_steps"] = steps[-1:] if steps else []
    rep["bwd_steps_count"] = len(steps)
    # forward ops with sequence numbers, and the same numbers on backward ops
    fwd_seq = {}
    for mf in fwd[-1:]:
        for e in cpu:
            a = e.get("args", {})
            if mf["ts"] <= e["ts"] <= mf["ts"] + mf.get("dur", 0) and "Sequence number" in a:
                fwd_seq[a["Sequence number"]] = {
                    "name": e["name"],
                    "tid": e.get("tid"),
                    "fwd_thread_id": a.get("Fwd thread id"),
                }
    bwd_seq = {}
    for mb in bwd[-1:]:
        for e in cpu:
            a = e.get("args", {})
            if mb["ts"] <= e["ts"] <= mb["ts"] + mb.get("dur", 0) and "Sequence number" in a:
                bwd_seq.setdefault(a["Sequence number"], []).append(
                    {"name": e["name"][:120], "tid": e.get("tid"), "fwd_thread_id": a.get("Fwd thread id")}
                )
    rep["fwd_seq_ops"] = dict(list(fwd_seq.items())[:12])
    rep["bwd_seq_ops"] = dict(list(bwd_seq.items())[:12])
    rep["seq_numbers_shared"] = sorted(set(fwd_seq) & set(bwd_seq))[:20]
    rep["fwd_kernels"] = kernel_table(tr.step_kernels(f"{name}_fwd"))
    # kernels of the backward, whichever thread launched them
    bsteps = [tr.kernels_of(tr.launches_in(m["ts"], m["ts"] + m.get("dur", 0), pid=m.get("pid"))) for m in bwd]
    rep["bwd_kernels"] = kernel_table(bsteps)
    rep["fwd_gpu_us_per_step"] = gpu_time_per_step(tr.step_kernels(f"{name}_fwd"))
    rep["bwd_gpu_us_per_step"] = gpu_time_per_step(bsteps)
    return rep


# --- part 2: context parallelism (spawned ranks) --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@part("cp", min_left=60)
def part_cp(dev: str, smoke: bool):
    import torch.multiprocessing as mp

    world = torch.cuda.device_count() if dev == "cuda" else 2
    c = FINDINGS["cp"] = {"world": world}
    if world < 2:
        c["status"] = f"needs >= 2 GPUs; torch.cuda.device_count() = {world}"
        return
    if dev == "cuda":
        torch.cuda.empty_cache()
    tmp = tempfile.mkdtemp(prefix="cp_")
    cfg = {
        "device": dev,
        "smoke": smoke,
        "trace_dir": TRACE_DIR,
        "deadline": time.time() + max(30.0, left() - 150.0),
        "shape": (2, 4, None, 16) if smoke else (2, 16, None, 64),
        "S": [64, 128] if smoke else [32768, 65536, 131072],
        "methods": ["allgather", "alltoall"],
    }
    c["config"] = {k: v for k, v in cfg.items() if k not in ("trace_dir",)}
    c["launch"] = (
        "torch.multiprocessing.start_processes(cp_worker, nprocs=world, start_method='spawn'); NCCL "
        "process group (gloo on the CPU) with device_id; init_device_mesh(dev, (world,), "
        "mesh_dim_names=('cp',)); a gloo group for barriers"
    )
    port = free_port()
    ctx = mp.start_processes(cp_worker, args=(world, port, cfg, tmp), nprocs=world, join=False, start_method="spawn")
    hard = cfg["deadline"] + 60
    try:
        while not ctx.join(timeout=5):
            if time.time() > hard:
                c["killed"] = "ranks outlived the deadline and were terminated"
                for p in ctx.processes:
                    if p.is_alive():
                        p.terminate()
                break
    except Exception as exc:
        c["spawn_error"] = f"{type(exc).__name__}: {str(exc)[:2000]}"
    ranks = []
    for r in range(world):
        p = os.path.join(tmp, f"cp_rank{r}.json")
        if os.path.exists(p):
            with open(p) as f:
                ranks.append(json.load(f))
    c["ranks"] = ranks
    c["summary"] = cp_summary(ranks, world)
    shutil.rmtree(tmp, ignore_errors=True)


def cp_summary(ranks, world):
    """Per (backend, method, S): step time = slowest rank; speed-up vs the same backend on one GPU."""
    if not ranks:
        return []
    rows = []
    by_key = defaultdict(list)
    for r in ranks:
        for cf in r.get("configs", []):
            by_key[(cf.get("backend"), cf.get("method"), cf.get("S"), cf.get("case", "main"))].append(cf)
    for (backend, method, S, case), cfs in sorted(by_key.items(), key=str):
        cfs = sorted(cfs, key=lambda x: x.get("rank", 0))
        row = {
            "case": case,
            "backend": backend,
            "method": method,
            "S": S,
            "status": [cf.get("status") for cf in cfs],
            "reason": next((cf.get("reason") for cf in cfs if cf.get("reason")), None),
        }
        for cf in cfs:
            if cf.get("rel_err_vs_single_gpu") is not None or cf.get("rel_err_dq_vs_single_gpu") is not None:
                row.setdefault("rel_err_by_rank", []).append(
                    cf.get("rel_err_vs_single_gpu", cf.get("rel_err_dq_vs_single_gpu"))
                )
            for key in ("load_balance_inside", "all_local_shapes", "local_shape"):
                if key in cf:
                    row.setdefault(key, []).append(cf[key])
        if all(cf.get("status") == "ok" and "cp_ms" in cf for cf in cfs):
            step = [cf["cp_ms"]["median"] for cf in cfs]
            base = cfs[0].get("single_gpu_ms", {}).get("median")
            row["rank_ms"] = step
            row["step_ms"] = max(step)
            row["single_gpu_ms"] = base
            if base:
                row["speedup"] = rnd(base / max(step), 3)
                row["efficiency"] = rnd(base / max(step) / world, 3)
            row["rel_err"] = cfs[0].get("rel_err_vs_single_gpu")
            row["peak_extra_MiB"] = [cf.get("cp_peak_extra_MiB") for cf in cfs]
            row["single_gpu_peak_extra_MiB"] = cfs[0].get("single_gpu_peak_extra_MiB")
            tr = [cf.get("trace") or {} for cf in cfs]
            row["comm_share"] = [t.get("comm_share_of_span") for t in tr]
            row["overlap_of_comm"] = [t.get("comm_overlapped_fraction") for t in tr]
            row["attention_us"] = [t.get("attention_us") for t in tr]
        rows.append(row)
    return rows


def cp_worker(rank: int, world: int, port: int, cfg: dict, outdir: str) -> None:
    for k, v in SAFE_ENV.items():
        os.environ[k] = v
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import datetime

    import torch.distributed as dist

    global TRACE_DIR, SLEEP
    TRACE_DIR = cfg["trace_dir"]
    dev = cfg["device"]
    res: dict = {"rank": rank, "configs": [], "env": {k: os.environ.get(k) for k in SAFE_ENV}}
    path = os.path.join(outdir, f"cp_rank{rank}.json")

    def dump():
        with open(path + ".tmp", "w") as f:
            json.dump(res, f, default=str)
        os.replace(path + ".tmp", path)

    t_init = time.time()
    try:
        if dev == "cuda":
            torch.cuda.set_device(rank)
            dist.init_process_group(
                "nccl",
                rank=rank,
                world_size=world,
                device_id=torch.device("cuda", rank),
                timeout=datetime.timedelta(seconds=90),
            )
        else:
            dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=60))
        cpu_group = dist.new_group(backend="gloo")
        from torch.distributed.device_mesh import init_device_mesh

        mesh = init_device_mesh(dev, (world,), mesh_dim_names=("cp",))
        res["init_s"] = rnd(time.time() - t_init, 2)
        res["mesh"] = str(mesh)
        if dev == "cuda":
            res["device"] = torch.cuda.get_device_name(rank)
        dump()
        cp_bandwidth(res, dev, world, cpu_group)
        dump()
        B, H, _, D = cfg["shape"]
        main_backend = "FLASH_ATTENTION" if dev == "cuda" else None
        # the main matrix: every S, every rotation method; flash (as PyTorch's tutorial does) and SDPA's own choice
        for backend in [main_backend, None] if dev == "cuda" else [None]:
            for S in cfg["S"]:
                if time.time() > cfg["deadline"] - 20:
                    res["configs"].append(
                        {
                            "rank": rank,
                            "S": S,
                            "status": "skipped",
                            "reason": "time budget",
                            "backend": backend or "auto",
                            "method": "*",
                        }
                    )
                    continue
                cp_run_S(
                    res,
                    dev,
                    world,
                    rank,
                    mesh,
                    cpu_group,
                    (B, H, S, D),
                    backend,
                    cfg["methods"],
                    dump,
                    profile_it=True,
                )
        S0 = cfg["S"][0]
        # forward + backward under CP (the ring backward), flash and auto
        for backend in [main_backend, None] if dev == "cuda" else []:
            if time.time() < cfg["deadline"] - 10:
                cp_backward(res, dev, world, rank, mesh, cpu_group, (B, H, S0, D), backend, dump)
        # errors as data: S not divisible by 2 x world, non-causal with load balancing, uneven shards
        if time.time() < cfg["deadline"] - 10:
            cp_edge_cases(res, dev, world, rank, mesh, cpu_group, (B, H, S0, D), main_backend, dump)
        # which backends CP supports, at the first S, all-gather (math last: it raises inside the context)
        for backend in ["EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"] if dev == "cuda" else ["MATH"]:
            if time.time() > cfg["deadline"] - 10:
                break
            cp_run_S(
                res,
                dev,
                world,
                rank,
                mesh,
                cpu_group,
                (B, H, S0, D),
                backend,
                ["allgather"],
                dump,
                profile_it=False,
                case="backend_survey",
            )
    except Exception as exc:
        res["fatal"] = f"{type(exc).__name__}: {exc}"
        res["traceback"] = traceback.format_exc()
    finally:
        dump()
        try:
            dist.destroy_process_group()
        except Exception:
            pass


def cp_bandwidth(res, dev, world, cpu_group):
    import torch.distributed as dist

    nbytes = (256 if dev == "cuda" else 4) * 2**20
    out = torch.empty(nbytes // 2, dtype=torch.bfloat16, device=dev)
    inp = torch.ones(nbytes // 2 // world, dtype=torch.bfloat16, device=dev)
    bw = {}
    out2 = torch.ones_like(out)
    ops = {
        "all_gather_into_tensor": lambda: dist.all_gather_into_tensor(out, inp),
        "all_to_all_single": lambda: dist.all_to_all_single(out, out2),
    }
    for label, op in ops.items():
        try:
            for _ in range(3):
                op()
            sync(dev)
            dist.barrier(group=cpu_group)
            ms = (
                time_gpu_ms(op, dev, min_reps=10, budget_s=0, prefill=False)
                if dev == "cuda"
                else time_gpu_ms(op, dev, min_reps=3, budget_s=0)
            )
            t = med(ms) * 1e-3
            bw[label] = {
                "output_bytes": nbytes,
                "ms": timing_summary(ms),
                "algbw_GBps": rnd(nbytes / t / 1e9, 1),
                "busbw_GBps": rnd(nbytes / t / 1e9 * (world - 1) / world, 1),
            }
        except Exception as exc:
            bw[label] = {"status": "error", "reason": f"{type(exc).__name__}: {exc}"}
    res["nccl_bandwidth"] = bw


def _cp_api():
    from torch.distributed.tensor.experimental import context_parallel
    from torch.distributed.tensor.experimental._attention import (
        _cp_options,
        context_parallel_unshard,
        set_rotate_method,
    )

    return context_parallel, context_parallel_unshard, set_rotate_method, _cp_options


def _check_restored(cf) -> None:
    """Record whether SDPA is the real one again after the context; if not, undo the leak so later cases are clean."""
    leaked = F.scaled_dot_product_attention is not SDPA_ORIG
    cf["sdpa_patched_after_exit"] = leaked
    if leaked:
        try:
            from torch.distributed.tensor.experimental._context_parallel import _attention as cpa

            cpa._disable_context_parallel_dispatcher_impl()
            cf["cleanup"] = "_disable_context_parallel_dispatcher_impl()"
        except Exception as exc:
            cf["cleanup"] = f"dispatcher cleanup failed: {type(exc).__name__}: {exc}"
        if F.scaled_dot_product_attention is not SDPA_ORIG:
            F.scaled_dot_product_attention = SDPA_ORIG
            cf["cleanup"] += "; F.scaled_dot_product_attention reassigned by hand"


def _full_inputs(shape, dev, rank, seed=0):
    """Full q, k, v, identical on every rank: made on rank 0's device and broadcast."""
    import torch.distributed as dist

    ts = []
    for i in range(3):
        t = (
            randn(shape, dev, torch.bfloat16, seed + i)
            if rank == 0
            else torch.empty(shape, dtype=torch.bfloat16, device=dev)
        )
        dist.broadcast(t, src=0)
        ts.append(t)
    return ts


def _aligned(fn, dev, cpu_group, reps):
    """Per-step times with both ranks released together: (CUDA-event ms, wall ms, dispatch ms) lists."""
    import torch.distributed as dist

    ev, wall, disp = [], [], []
    for _ in range(reps):
        sync(dev)
        dist.barrier(group=cpu_group)
        if dev == "cuda":
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
        t0 = time.perf_counter()
        fn()
        disp.append((time.perf_counter() - t0) * 1e3)
        if dev == "cuda":
            e.record()
        sync(dev)
        wall.append((time.perf_counter() - t0) * 1e3)
        ev.append(s.elapsed_time(e) if dev == "cuda" else wall[-1])
    return ev, wall, disp


def cp_run_S(res, dev, world, rank, mesh, cpu_group, shape, backend, methods, dump, profile_it, case="main"):
    import torch.distributed as dist

    context_parallel, unshard, set_rotate_method, cp_options = _cp_api()
    B, H, S, D = shape
    reps = 3 if dev == "cpu" else (10 if S <= 65536 else 6)
    q, k, v = _full_inputs(shape, dev, rank)
    base = {"rank": rank, "S": S, "B": B, "H": H, "D": D, "backend": backend or "auto", "case": case}
    # single GPU baseline (each rank runs it on its own GPU)
    single = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with forced(backend):
                ref = SDPA_ORIG(q, k, v, is_causal=True)
                sync(dev)
                if dev == "cuda":
                    torch.cuda.reset_peak_memory_stats()
                    b0 = torch.cuda.memory_allocated()
                    o = SDPA_ORIG(q, k, v, is_causal=True)
                    sync(dev)
                    single["single_gpu_peak_extra_MiB"] = rnd((torch.cuda.max_memory_allocated() - b0) / 2**20, 1)
                    del o
                ev, wall, disp = _aligned(lambda: SDPA_ORIG(q, k, v, is_causal=True), dev, cpu_group, reps)
            single["single_gpu_ms"] = timing_summary(ev)
        except Exception as exc:
            ref = None
            single["single_gpu_status"] = classify(exc)
            single["single_gpu_reason"] = reason(exc, caught)
    for method in methods:
        cf = dict(base, method=method, **single)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                set_rotate_method(method)
                cp_options.enable_load_balance = True
                cq, ck, cv = (t.clone() for t in (q, k, v))
                with forced(backend):
                    with context_parallel(
                        mesh, buffers=[cq, ck, cv], buffer_seq_dims=[2, 2, 2], no_restore_buffers={cq, ck, cv}
                    ):
                        cf["local_shape"] = list(cq.shape)
                        cf["load_balance_inside"] = bool(cp_options.enable_load_balance)
                        cf["rotate_method_inside"] = str(cp_options.rotate_method)

                        def call(cq=cq, ck=ck, cv=cv):
                            return F.scaled_dot_product_attention(cq, ck, cv, is_causal=True)

                        out = call()
                        call()
                        sync(dev)
                        if dev == "cuda":
                            torch.cuda.reset_peak_memory_stats()
                            b0 = torch.cuda.memory_allocated()
                            o = call()
                            sync(dev)
                            cf["cp_peak_extra_MiB"] = rnd((torch.cuda.max_memory_allocated() - b0) / 2**20, 1)
                            del o
                        ev, wall, disp = _aligned(call, dev, cpu_group, reps)
                        cf["cp_ms"] = timing_summary(ev)
                        cf["cp_wall_ms"] = timing_summary(wall)
                        cf["cp_dispatch_ms"] = timing_summary(disp)
                        if profile_it:

                            def body():
                                call()

                            ann = f"cp_{method}"
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                with profile(
                                    activities=activities(dev),
                                    schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                                ) as prof:
                                    for _ in range(5):
                                        sync(dev)
                                        dist.barrier(group=cpu_group)
                                        with record_function(ann):
                                            call()
                                        sync(dev)
                                        prof.step()
                            tag = "" if backend == "FLASH_ATTENTION" else f"{(backend or 'auto').lower()}-"
                            tr = Trace(export(prof, f"cp/{tag}{method}-S{S}-rank{rank}.json.gz"))
                            cf["trace"] = cp_trace_report(tr, ann)
                (full,) = unshard(mesh, [out], [2])
                if ref is not None:
                    cf["rel_err_vs_single_gpu"] = rnd(rel_err(full, ref), 6)
                cf["status"] = "ok"
            except Exception as exc:
                cf.update(status=classify(exc), reason=reason(exc, caught), traceback=traceback.format_exc()[-1500:])
            finally:
                _check_restored(cf)
        res["configs"].append(cf)
        dump()
        try:
            sync(dev)
            dist.barrier(group=cpu_group)
        except Exception:
            pass
    if dev == "cuda":
        torch.cuda.empty_cache()


def cp_trace_report(tr: Trace, ann: str) -> dict:
    """Per active step on this rank: attention kernels (in order), NCCL kernels, streams, overlap of the two."""
    steps = []
    for m in tr.marks(ann):
        ks = tr.kernels_of(tr.launches_in(m["ts"], m["ts"] + m.get("dur", 0), pid=m.get("pid")))
        ks = [g for g in ks if g.get("cat") == "kernel"]
        if not ks:
            continue
        nccl = [g for g in ks if "nccl" in g["name"].lower()]
        comp = [g for g in ks if "nccl" not in g["name"].lower()]
        attn = [g for g in comp if is_attention_kernel(g["name"])]
        iv = lambda gs: [(g["ts"], g["ts"] + g.get("dur", 0)) for g in gs]  # noqa: E731
        t0 = min(g["ts"] for g in ks)
        span = max(g["ts"] + g.get("dur", 0) for g in ks) - t0
        comm = union_len(iv(nccl))
        ov = intersect_len(iv(nccl), iv(comp))
        steps.append(
            {
                "span_us": rnd(span, 2),
                "cpu_us": rnd(m.get("dur"), 2),
                "attention_us": rnd(sum(g.get("dur", 0) for g in attn), 2),
                "compute_us": rnd(union_len(iv(comp)), 2),
                "comm_us": rnd(comm, 2),
                "overlap_us": rnd(ov, 2),
                "other_compute_us": rnd(sum(g.get("dur", 0) for g in comp if g not in attn), 2),
                "streams": {
                    "attention": sorted({g.get("args", {}).get("stream") for g in attn}, key=str),
                    "nccl": sorted({g.get("args", {}).get("stream") for g in nccl}, key=str),
                },
                "attention_kernels": [
                    {
                        "name": g["name"][:160],
                        "start_us": rnd(g["ts"] - t0, 2),
                        "us": rnd(g.get("dur"), 2),
                        "grid": g.get("args", {}).get("grid"),
                    }
                    for g in attn
                ],
                "nccl_kernels": [
                    {"name": g["name"][:160], "start_us": rnd(g["ts"] - t0, 2), "us": rnd(g.get("dur"), 2)}
                    for g in nccl
                ],
                "n_kernels": len(ks),
            }
        )
    if not steps:
        return {"steps": 0}
    last = steps[-1]
    return {
        "steps": len(steps),
        "last_step": last,
        "attention_us": rnd(med([s["attention_us"] for s in steps]), 2),
        "comm_us": rnd(med([s["comm_us"] for s in steps]), 2),
        "span_us": rnd(med([s["span_us"] for s in steps]), 2),
        "comm_share_of_span": rnd(med([s["comm_us"] / s["span_us"] for s in steps if s["span_us"]]), 4),
        "comm_overlapped_fraction": rnd(med([s["overlap_us"] / s["comm_us"] for s in steps if s["comm_us"]]), 4)
        if any(s["comm_us"] for s in steps)
        else None,
        "kernel_table": kernel_table(
            [
                [g for g in tr.kernels_of(tr.launches_in(m["ts"], m["ts"] + m.get("dur", 0), pid=m.get("pid")))]
                for m in tr.marks(ann)
            ],
            limit=20,
        ),
    }


def cp_edge_cases(res, dev, world, rank, mesh, cpu_group, shape, backend, dump):
    import torch.distributed as dist

    context_parallel, unshard, set_rotate_method, cp_options = _cp_api()
    B, H, S0, D = shape
    set_rotate_method("allgather")
    # S divisible by world but not by 2 x world: what does the load balancer do?
    S = S0 - world
    cases = [
        ("S_not_div_2world", S, True, True),
        ("S_not_div_2world_lb_off", S, True, False),
        ("non_causal_with_load_balance", S0, False, True),
        ("non_causal_lb_off", S0, False, False),
        ("S_odd", S0 - 1, True, True),
        ("S_odd_lb_off", S0 - 1, True, False),
    ]
    for case, S, causal, lb in cases:
        cf = {
            "rank": rank,
            "case": case,
            "S": S,
            "backend": backend or "auto",
            "method": "allgather",
            "is_causal": causal,
            "enable_load_balance": lb,
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                q, k, v = _full_inputs((B, H, S, D), dev, rank, seed=5)
                with forced(backend):
                    ref = SDPA_ORIG(q, k, v, is_causal=causal)
                cp_options.enable_load_balance = lb
                cq, ck, cv = (t.clone() for t in (q, k, v))
                with forced(backend):
                    with context_parallel(
                        mesh, buffers=[cq, ck, cv], buffer_seq_dims=[2, 2, 2], no_restore_buffers={cq, ck, cv}
                    ):
                        cf["local_shape"] = list(cq.shape)
                        cf["load_balance_inside"] = bool(cp_options.enable_load_balance)
                        sizes = [None] * world
                        dist.all_gather_object(sizes, list(cq.shape), group=cpu_group)
                        cf["all_local_shapes"] = sizes
                        if len({tuple(s) for s in sizes}) > 1:
                            cf.update(
                                status="not_called",
                                reason="context_parallel accepted S and sharded unevenly "
                                f"({[s[2] for s in sizes]}); the SDPA call was not made, since the "
                                "ring would pass different sizes to one NCCL collective",
                            )
                        else:
                            out = F.scaled_dot_product_attention(cq, ck, cv, is_causal=causal)
                            sync(dev)
                            cf["status"] = "ok"
                if cf.get("status") == "ok":
                    (full,) = unshard(mesh, [out], [2])
                    cf["rel_err_vs_single_gpu"] = rnd(rel_err(full, ref), 6)
            except Exception as exc:
                cf.update(status=classify(exc), reason=reason(exc, caught), traceback=traceback.format_exc()[-1200:])
            finally:
                _check_restored(cf)
                cp_options.enable_load_balance = True
        res["configs"].append(cf)
        dump()
        try:
            sync(dev)
            dist.barrier(group=cpu_group)
        except Exception:
            pass


def cp_backward(res, dev, world, rank, mesh, cpu_group, shape, backend, dump):
    """Forward + backward under CP (the ring backward), timed: inputs sharded by the context, then made leaves."""
    context_parallel, unshard, set_rotate_method, cp_options = _cp_api()
    S = shape[2]
    cf = {"rank": rank, "case": "fwd_bwd", "S": S, "backend": backend or "auto", "method": "allgather"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            set_rotate_method("allgather")
            cp_options.enable_load_balance = True
            q, k, v = _full_inputs(shape, dev, rank, seed=9)
            g = _full_inputs(shape, dev, rank, seed=20)[0]
            # single-GPU fwd+bwd
            ql, kl, vl = (t.detach().requires_grad_() for t in (q, k, v))

            def single():
                ql.grad = kl.grad = vl.grad = None
                with forced(backend):
                    SDPA_ORIG(ql, kl, vl, is_causal=True).backward(g)

            single()
            ev, _, _ = _aligned(single, dev, cpu_group, 6)
            cf["single_gpu_ms"] = timing_summary(ev)
            ref_dq = ql.grad.detach().clone()
            cq, ck, cv, cg = (t.clone() for t in (q, k, v, g))
            with forced(backend):
                with context_parallel(
                    mesh, buffers=[cq, ck, cv, cg], buffer_seq_dims=[2, 2, 2, 2], no_restore_buffers={cq, ck, cv, cg}
                ):
                    lq, lk, lv = (t.detach().requires_grad_() for t in (cq, ck, cv))

                    def step():
                        lq.grad = lk.grad = lv.grad = None
                        F.scaled_dot_product_attention(lq, lk, lv, is_causal=True).backward(cg)

                    step()
                    step()
                    ev, _, _ = _aligned(step, dev, cpu_group, 6)
                    cf["cp_ms"] = timing_summary(ev)
                    dq_local = lq.grad.detach().clone()
                    if backend == "FLASH_ATTENTION":
                        import torch.distributed as dist

                        ann = "cp_fwd_bwd_allgather"
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            with profile(
                                activities=activities(dev), schedule=schedule(wait=1, warmup=1, active=3, repeat=1)
                            ) as prof:
                                for _ in range(5):
                                    sync(dev)
                                    dist.barrier(group=cpu_group)
                                    lq.grad = lk.grad = lv.grad = None
                                    with record_function(ann):
                                        with record_function("cp_fwd"):
                                            o = F.scaled_dot_product_attention(lq, lk, lv, is_causal=True)
                                        with record_function("cp_bwd"):
                                            o.backward(cg)
                                    sync(dev)
                                    prof.step()
                        tr = Trace(export(prof, f"cp/fwd_bwd-allgather-S{S}-rank{rank}.json.gz"))
                        cf["trace"] = cp_trace_report(tr, ann)
                        cf["trace_bwd_threads"] = train_trace_report(tr, "cp")
            (dq,) = unshard(mesh, [dq_local], [2])
            cf["rel_err_dq_vs_single_gpu"] = rnd(rel_err(dq, ref_dq), 6)
            cf["status"] = "ok"
        except Exception as exc:
            cf.update(status=classify(exc), reason=reason(exc, caught), traceback=traceback.format_exc()[-1500:])
        finally:
            _check_restored(cf)
    res["configs"].append(cf)
    dump()


# --- summary --------------------------------------------------------------------------------------------------------


def print_summary() -> None:
    print("\n==== summary ====")
    f = FINDINGS.get("facts", {})
    print(
        f"torch {f.get('torch')} cuda {f.get('cuda')} cudnn {f.get('cudnn')} nccl {f.get('nccl')} "
        f"gpus {f.get('device_count')} copy {((f.get('copy') or {}).get('GBps_read_plus_write'))} GB/s "
        f"matmul {((f.get('matmul_bf16_8192') or {}).get('TFLOPs'))} TFLOP/s"
    )
    t = FINDINGS.get("train", {})
    if t:
        print(f"\ntrain {t.get('shape')} (SDPA picks {t.get('fused_sdp_choice_training')} for training)")
        print(f"{'variant':16} {'status':12} {'fwd ms':>8} {'f+b ms':>8} {'b/f':>6} {'peak MiB':>9}  reason")
        for n, r in t.get("variants", {}).items():
            print(
                f"{n:16} {r.get('status', ''):12} {(r.get('fwd_ms') or {}).get('median')!s:>8} "
                f"{(r.get('fwd_bwd_ms') or {}).get('median')!s:>8} {r.get('bwd_over_fwd')!s:>6} "
                f"{r.get('peak_fwd_bwd_MiB')!s:>9}  {(r.get('reason') or '')[:90]}"
            )
    d = FINDINGS.get("decode", {})
    if d:
        print(f"\ndecode {d.get('shape')}")
        print(
            f"{'backend':15} {'L':>7} {'status':11} {'us':>9} {'GB/s':>7} {'%copy':>6} {'disp us':>8}  "
            f"kernels / reason"
        )
        for r in d.get("rows", []) + d.get("flex_rows", []):
            ks = ",".join(sorted({x["name"][:40] for x in r.get("kernels", []) if isinstance(x, dict)}))[:80]
            print(
                f"{r.get('backend', ''):15} {r.get('L', ''):>7} {r.get('status', ''):11} "
                f"{(r.get('gpu_us') or {}).get('median')!s:>9} {r.get('GBps')!s:>7} "
                f"{r.get('pct_of_copy')!s:>6} {r.get('dispatch_us')!s:>8}  {ks or (r.get('reason') or '')[:80]}"
            )
    g = FINDINGS.get("graph", {})
    if g:
        print("\ngraph (L=4096)")
        for n, r in g.items():
            if isinstance(r, dict) and "status" in r:
                print(
                    f"{n:15} {r.get('status')}: eager {r.get('eager')} | graph {r.get('graph')} "
                    f"{(r.get('reason') or '')[:80]}"
                )
    c = FINDINGS.get("cp", {})
    if c:
        print(f"\ncp world={c.get('world')}")
        for r in c.get("summary", []):
            print(
                f"{r.get('case'):28} {r.get('backend')!s:20} {r.get('method')!s:9} S={r.get('S')} "
                f"{r.get('status')} step {r.get('step_ms')} ms single {r.get('single_gpu_ms')} ms speedup "
                f"{r.get('speedup')} err {r.get('rel_err')} comm {r.get('comm_share')} overlap "
                f"{r.get('overlap_of_comm')} {(r.get('reason') or '')[:100]}"
            )
        for rk in c.get("ranks", []):
            print(
                f"rank {rk.get('rank')}: init {rk.get('init_s')} s nccl {rk.get('nccl_bandwidth')} "
                f"{rk.get('fatal', '')}"
            )
    print("\nparts:", {k: (v.get("status"), v.get("seconds")) for k, v in FINDINGS["parts"].items()})
    print("traces:", sum(FINDINGS.get("traces", {}).values()), "bytes in", len(FINDINGS.get("traces", {})), "files")


def main() -> None:
    global OUT, TRACE_DIR, DEADLINE
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="probe-out")
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU, to test this script")
    ap.add_argument("--budget-s", type=float, default=330.0, help="stop starting new work after this many seconds")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile variants")
    ap.add_argument("--smoke-compile", action="store_true", help="with --cpu-smoke, also run the compiled parts")
    ap.add_argument("--flex-cap-s", type=float, default=45.0, help="time cap for FlexAttention decode compiles")
    ap.add_argument("--parts", default="facts,api,cp,decode,graph,train,decode_flex")
    args = ap.parse_args()
    DEADLINE = T_START + args.budget_s
    OUT = os.path.abspath(args.out)
    os.makedirs(OUT, exist_ok=True)
    TRACE_DIR = tempfile.mkdtemp(prefix="probe_traces_")
    smoke = args.cpu_smoke
    dev = "cpu" if smoke or not torch.cuda.is_available() else "cuda"
    FINDINGS["meta"].update(
        script="scripts/probe_workloads.py",
        argv=sys.argv[1:],
        device=dev,
        smoke=smoke,
        started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T_START)),
        budget_s=args.budget_s,
    )
    compile_ok = not args.no_compile and (not smoke or args.smoke_compile)
    parts = args.parts.split(",")
    save()
    if "facts" in parts:
        part_facts(dev, smoke)
    if "api" in parts:
        part_api()
    if "cp" in parts:
        part_cp(dev, smoke)
    if "decode" in parts:
        part_decode(dev, smoke)
    if "graph" in parts:
        part_graph(dev, smoke)
    if "train" in parts:
        part_train(dev, smoke, compile_ok)
    if "decode_flex" in parts and compile_ok:
        part_decode_flex(dev, smoke, args.flex_cap_s)
    FINDINGS["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save()
    print_summary()


if __name__ == "__main__":
    main()
