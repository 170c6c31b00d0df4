"""Run one attention variant, profile it the way the reference article did, and measure it without the profiler.

The profiled part reproduces the article's set-up: inputs made once, three warm-up calls, then
``torch.profiler.profile`` with ``schedule(wait=1, warmup=1, active=3, repeat=1)`` over five steps, each forward
inside ``record_function("<variant>_fwd")`` under ``torch.no_grad()``, the device synchronised before each
``prof.step()``. The Chrome trace is parsed by :mod:`attnprof.trace` into the active steps.

The measured part runs without the profiler: CUDA events around single calls (median of many), CPU time to issue
one call without waiting for the GPU, the cost of the backend-forcing context alone, peak extra device memory,
achieved TFLOP/s, and the error against a float64 reference.

A variant that cannot run does not raise: :func:`profile` returns a :class:`~attnprof.results.Result` whose
``status`` says why (``unsupported`` with PyTorch's own reason, ``no_cuda``, ``oom``, ``error``). Only bad
arguments raise ``ValueError``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, results, trace, variants
from .results import CpuCostRow, CpuCosts, Environment, Result, Timing

if TYPE_CHECKING:
    import torch

#: The article's shape: [batch, heads, seq, head_dim].
REFERENCE_SHAPE: tuple[int, int, int, int] = (8, 16, 1024, 64)
#: The shape used when no GPU is there: small enough for a laptop CPU, same head_dim.
CPU_SHAPE: tuple[int, int, int, int] = (1, 4, 256, 64)

#: Accepted dtype spellings and their canonical names.
DTYPE_ALIASES: dict[str, str] = {
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp16": "float16",
    "half": "float16",
    "float16": "float16",
    "fp32": "float32",
    "float": "float32",
    "float32": "float32",
    "fp64": "float64",
    "float64": "float64",
}
DEVICES = ("cuda", "cpu")

#: Environment variable naming the folder where results are written (the docs build sets it).
RESULTS_ENV = "ATTNPROF_RESULTS_DIR"


@dataclass(frozen=True)
class Setup:
    """What to run: shape ``[batch, heads, seq, head_dim]``, dtype name and device."""

    shape: tuple[int, int, int, int]
    dtype: str
    device: str

    def describe(self) -> str:
        """``[8, 16, 1024, 64] bfloat16 on cuda``."""
        return f"{list(self.shape)} {self.dtype} on {self.device}"


def canonical_dtype(name: str) -> str:
    """``"bf16"`` -> ``"bfloat16"``.

    Raises:
        ValueError: for an unknown spelling, listing the accepted ones.
    """
    try:
        return DTYPE_ALIASES[str(name).lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; choose one of: {', '.join(DTYPE_ALIASES)}") from None


def parse_shape(text: str | Iterable[int]) -> tuple[int, int, int, int]:
    """``"8,16,1024,64"`` (or four ints) -> ``(8, 16, 1024, 64)``.

    Raises:
        ValueError: unless there are exactly four positive integers.
    """
    parts = text.replace("x", ",").split(",") if isinstance(text, str) else list(text)
    try:
        dims = tuple(int(p) for p in parts)
    except (TypeError, ValueError):
        dims = ()
    if len(dims) != 4 or any(d <= 0 for d in dims):
        raise ValueError(f"bad shape {text!r}; expected four positive integers B,H,S,D such as 8,16,1024,64")
    return dims  # type: ignore[return-value]


def make_setup(shape: str | Iterable[int], dtype: str = "bfloat16", device: str = "cuda") -> Setup:
    """Validate and build a :class:`Setup`.

    Raises:
        ValueError: for a malformed shape, an unknown dtype or an unknown device name.
    """
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(DEVICES)}")
    return Setup(parse_shape(shape), canonical_dtype(dtype), device)


def default_setup(device: str | None = None) -> Setup:
    """The article's shape in bf16 on CUDA when a GPU is there, else :data:`CPU_SHAPE` in bf16 on the CPU."""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    shape = REFERENCE_SHAPE if device == "cuda" else CPU_SHAPE
    return make_setup(shape, "bfloat16", device)


def results_dir(default: str | Path = "attnprof-results") -> Path:
    """Where results go: ``$ATTNPROF_RESULTS_DIR`` if set (the docs build sets it), else ``default``."""
    return Path(os.environ.get(RESULTS_ENV) or default)


def causal_flops(shape: Iterable[int]) -> float:
    """Floating-point operations of one causal attention forward, as FlashAttention's benchmarks count them.

    Two matrix products of ``2 * seq * seq * head_dim`` operations per (batch, head), halved because the
    causal mask leaves half of the score matrix: ``2 * B * H * S * S * D``. Softmax and scaling are not counted.
    """
    b, h, s, d = shape
    return 2.0 * b * h * s * s * d


def make_inputs(setup: Setup, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random ``q, k, v`` (standard normal; never zeros, which can run faster than real data)."""
    import torch

    gen = torch.Generator(device="cpu").manual_seed(seed)
    dtype = getattr(torch, setup.dtype)
    return tuple(  # type: ignore[return-value]
        torch.randn(setup.shape, generator=gen, dtype=torch.float32).to(device=setup.device, dtype=dtype)
        for _ in range(3)
    )


def reference_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention in float64, written out, as the yardstick for every variant's error."""
    import torch

    q64, k64, v64 = (t.double() for t in (q, k, v))
    s = q64.size(-2)
    scores = q64 @ k64.transpose(-2, -1) / q64.size(-1) ** 0.5
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ v64


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """``||out - ref|| / ||ref||`` in float64; NaN anywhere gives NaN."""
    diff = out.double() - ref
    return float(diff.norm() / ref.norm())


# --- failure as data ------------------------------------------------------------------------------------------------

_NOISE = ("kernel not used because", "has been runtime disabled", "Profiler clears events")


def pytorch_reason(exc: BaseException | None, caught: Iterable[warnings.WarningMessage]) -> str:
    """PyTorch's own explanation: the error message plus the substantive warnings it emitted before it.

    SDPA explains a refused backend in warnings ("Flash attention requires ... Got ...") and then raises "No
    available kernel"; the headers of those warnings and the ``(Triggered internally at ...)`` suffix are
    dropped.
    """
    parts: list[str] = []
    if exc is not None:
        parts.append(f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}")
    for w in caught:
        text = str(w.message).split(" (Triggered internally at")[0].strip()
        if text and not any(n in text for n in _NOISE) and text not in parts:
            parts.append(text)
    return " | ".join(parts) if parts else "unknown reason"


def _classify(exc: BaseException) -> str:
    import torch

    if isinstance(exc, torch.OutOfMemoryError) or "out of memory" in str(exc).lower():
        return "oom"
    text = str(exc)
    if "No available kernel" in text or "No viable backend" in text or isinstance(exc, NotImplementedError):
        return "unsupported"
    return "error"


def failure(
    exc: BaseException, caught: Iterable[warnings.WarningMessage], variant: variants.Variant, device: str
) -> tuple[str, str]:
    """The status and reason of a call of ``variant`` on ``device`` that raised ``exc``.

    Args:
        exc: What the call (or building the variant) raised.
        caught: The warnings recorded during the call (SDPA explains refusals there).
        variant: The variant that was called.
        device: ``"cuda"`` or ``"cpu"``.

    Returns:
        ``(status, reason)``: status ``oom``, ``unsupported``, ``no_cuda`` (a CUDA-only variant asked to run on
        the CPU) or ``error``; the reason in PyTorch's words, plus where the variant can run when ``device`` is
        not one of its devices.
    """
    status = _classify(exc)
    if status == "unsupported" and device not in variant.devices and device == "cpu":
        status = "no_cuda"
    reason = pytorch_reason(exc, caught)
    if device not in variant.devices:
        reason += f" ({variant.title} runs on: {', '.join(variant.devices)})"
    return status, reason


def cuda_missing_reason() -> str | None:
    """Why CUDA cannot be used here (``"no CUDA device: ..."``), or ``None`` when a CUDA device is available."""
    import torch

    if torch.cuda.is_available():
        return None
    why = "torch.cuda.is_available() is False"
    if torch.version.cuda is None:
        why += f" (this torch {torch.__version__} is a CPU-only build)"
    return f"no CUDA device: {why}"


# --- environment ----------------------------------------------------------------------------------------------------


def _driver_version() -> str | None:
    try:
        import pynvml  # nvidia-ml-py, present on most GPU images

        pynvml.nvmlInit()
        try:
            v = pynvml.nvmlSystemGetDriverVersion()
        finally:
            pynvml.nvmlShutdown()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:  # optional: the trace still gives the CUDA driver API version
        return None


def _cuda_api_version(v: Any) -> str | None:
    """``13000`` -> ``"13.0"`` (the encoding CUDA uses for driver and runtime versions)."""
    try:
        n = int(v)
    except (TypeError, ValueError):
        return None
    return f"{n // 1000}.{(n % 1000) // 10}"


def environment(device: str, trace_meta: dict[str, Any] | None = None) -> Environment:
    """Where and when: device name, driver, CUDA, cuDNN, torch, Python, date (UTC)."""
    import torch

    meta = trace_meta or {}
    if device == "cuda" and torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        driver = _driver_version()
        api = _cuda_api_version(meta.get("cuda_driver_version"))
        if api:
            driver = f"{driver} (CUDA driver API {api})" if driver else f"CUDA driver API {api}"
        cuda = torch.version.cuda
    else:
        name = platform.processor() or platform.machine() or "CPU"
        name = f"CPU ({name}, {os.cpu_count()} cores)"
        cudnn = driver = cuda = None
    return Environment(
        device_name=name,
        torch_version=torch.__version__,
        python_version=platform.python_version(),
        date=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        cuda_version=cuda,
        cudnn_version=str(cudnn) if cudnn else None,
        driver_version=driver,
        cupti_version=str(meta["cupti_version"]) if meta.get("cupti_version") else None,
        attnprof_version=__version__,
        platform=platform.platform(terse=True),
    )


# --- timing ---------------------------------------------------------------------------------------------------------


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    i = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
    return xs[i]


class GpuSleep:
    """Queues a GPU-side busy wait of a given length (``torch.cuda._sleep``, calibrated once in microseconds).

    Queued before a timed call, it keeps the GPU busy while the CPU enqueues the whole call, so CUDA events around
    the call measure the GPU's work alone, not the gaps a slower CPU would leave between launches.
    """

    def __init__(self) -> None:
        import torch

        self._sleep = torch.cuda._sleep  # private but long-standing; gpu_sleeper() falls back without it
        self._sleep(1000)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 2_000_000
        start.record()
        self._sleep(cycles)
        end.record()
        end.synchronize()
        self.cycles_per_us = cycles / max(start.elapsed_time(end) * 1e3, 1.0)

    def __call__(self, us: float) -> None:
        self._sleep(int(self.cycles_per_us * us))


def gpu_sleeper(device: str) -> GpuSleep | None:
    """A :class:`GpuSleep` on CUDA, or ``None`` on the CPU or where this torch has no ``torch.cuda._sleep``."""
    if device != "cuda":
        return None
    try:
        return GpuSleep()
    except (AttributeError, RuntimeError):
        return None


def time_gpu_ms(
    fn: Callable[[], Any],
    device: str,
    budget_s: float = 0.25,
    min_reps: int = 15,
    sleep: GpuSleep | None = None,
) -> list[float]:
    """Per-call times in milliseconds: CUDA events on CUDA, ``perf_counter`` on CPU. Call after warm-up.

    With ``sleep``, a GPU busy-wait three times the previous call's issue time is queued before each start event,
    so the events time the GPU's execution of the call without CPU launch gaps (see :class:`GpuSleep`); without
    it they also include whatever time the CPU takes to issue the call. Repeats until ``budget_s`` of measured
    time or ``min_reps`` calls, whichever is more (at most 500).
    """
    import torch

    samples: list[float] = []
    spent = 0.0
    issue_us = 1000.0
    while len(samples) < min_reps or (spent < budget_s * 1e3 and len(samples) < 500):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if sleep is not None:
                sleep(min(max(200.0, 3.0 * issue_us), 50_000.0))
            start.record()
            t0 = time.perf_counter()
            fn()
            issue_us = (time.perf_counter() - t0) * 1e6
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            t0 = time.perf_counter()
            fn()
            ms = (time.perf_counter() - t0) * 1e3
        samples.append(ms)
        spent += ms
    return samples


def _timer_name(device: str, sleep: GpuSleep | None) -> str:
    if device != "cuda":
        return "perf_counter"
    return "cuda_event_prefilled" if sleep is not None else "cuda_event"


def time_dispatch_us(fn: Callable[[], Any], device: str, reps: int = 30) -> list[float]:
    """CPU time to issue one call, the GPU idle at the start so the launch queue never blocks (microseconds).

    On the CPU there is no queue: this is the whole call.
    """
    samples = []
    for _ in range(reps):
        _sync(device)
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    _sync(device)
    return samples


def time_context_us(backend: str, reps: int = 200) -> list[float]:
    """CPU cost of entering and leaving ``sdpa_kernel(backend)`` with nothing inside (microseconds)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    b = getattr(SDPBackend, backend)
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        with sdpa_kernel(b):
            pass
        samples.append((time.perf_counter() - t0) * 1e6)
    return samples


def peak_extra_bytes(fn: Callable[[], Any], device: str) -> int | None:
    """Peak device memory allocated during one call above what was allocated before it (CUDA only)."""
    if device != "cuda":
        return None
    import torch

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out
    return int(peak)


# --- the profiled run -----------------------------------------------------------------------------------------------


def _run_profiler(fn: Callable[[], Any], annotation: str, device: str) -> bytes:
    """Five profiler steps (wait 1, warm-up 1, active 3); returns the exported Chrome trace as bytes."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(
            activities=activities,
            schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
            record_shapes=True,
        ) as prof:
            for _ in range(5):
                with record_function(annotation):
                    fn()
                _sync(device)
                prof.step()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        del prof
        torch.cuda.empty_cache() if device == "cuda" else None
        return path.read_bytes()


def profile(
    variant: str,
    setup: Setup | None = None,
    *,
    save_to: str | Path | None = None,
    measure: bool = True,
) -> Result:
    """Profile one variant and measure it; never raises for a variant that cannot run.

    Args:
        variant: A name from :data:`attnprof.variants.VARIANTS`.
        setup: Shape, dtype and device; :func:`default_setup` when omitted.
        save_to: Folder to write the result and its trace into (see :func:`attnprof.results.save`); nothing is
            written when ``None``.
        measure: Also take the measurements outside the profiler (:class:`~attnprof.results.Timing`).

    Returns:
        The result; check ``result.status`` before reading ``steps`` or ``timing``.

    Raises:
        ValueError: for an unknown variant.
    """
    import json

    import torch

    v = variants.get(variant)
    setup = setup or default_setup()
    base = dict(variant=v.name, shape=list(setup.shape), dtype=setup.dtype, device=setup.device)

    def failed(status: str, reason: str) -> Result:
        res = Result(**base, status=status, reason=reason, environment=environment(setup.device))
        if save_to is not None:
            results.save(res, Path(save_to))
        return res

    missing = cuda_missing_reason() if setup.device == "cuda" else None
    if missing:
        return failed("no_cuda", missing)

    trace_bytes: bytes | None = None
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            q, k, v_ = make_inputs(setup)
            fn = v.build(setup.shape[2], setup.device)

            def call() -> torch.Tensor:
                return fn(q, k, v_)

            t0 = time.perf_counter()
            for _ in range(3):
                out = call()
            _sync(setup.device)
            warmup_s = time.perf_counter() - t0
            err = relative_error(out, reference_attention(q, k, v_))
            del out

            t0 = time.perf_counter()
            trace_bytes = _run_profiler(call, v.annotation, setup.device)
            parsed = json.loads(trace_bytes)
            steps = trace.parse_trace(parsed, v.annotation)
            profile_s = time.perf_counter() - t0

            timing = None
            if measure:
                sleep = gpu_sleeper(setup.device)
                gpu = time_gpu_ms(call, setup.device, sleep=sleep)
                med = statistics.median(gpu)
                flops = causal_flops(setup.shape)
                timing = Timing(
                    gpu_ms_median=med,
                    gpu_ms_p10=_percentile(gpu, 10),
                    gpu_ms_p90=_percentile(gpu, 90),
                    repetitions=len(gpu),
                    dispatch_us_median=statistics.median(time_dispatch_us(call, setup.device)),
                    context_us_median=statistics.median(time_context_us(v.backend)) if v.backend else None,
                    peak_extra_bytes=peak_extra_bytes(call, setup.device),
                    flops=flops,
                    tflops=flops / (med * 1e-3) / 1e12,
                    rel_error=err,
                    timer=_timer_name(setup.device, sleep),
                    warmup_s=warmup_s,
                    profile_s=profile_s,
                )
        except Exception as exc:  # failure is data: the result says why
            status, reason = failure(exc, caught, v, setup.device)
            if setup.device == "cuda":
                torch.cuda.empty_cache()
            return failed(status, reason)

    res = Result(
        **base,
        status="ok",
        environment=environment(setup.device, trace.trace_metadata(parsed)),
        device_properties=trace.device_properties(parsed),
        steps=steps,
        timing=timing,
    )
    if save_to is not None:
        results.save(res, Path(save_to), trace_bytes)
    return res


def profile_all(
    names: Iterable[str] | None = None, setup: Setup | None = None, *, save_to: str | Path | None = None
) -> list[Result]:
    """:func:`profile` for several variants (all when ``names`` is None); one failing never stops the rest."""
    return [profile(n, setup, save_to=save_to) for n in (names or variants.VARIANTS)]


#: The SDPA backends whose CPU cost the guide compares (the article's three, and SDPA's own choice).
CPU_COST_VARIANTS: tuple[str, ...] = ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto")


def measure_cpu_costs(
    names: Iterable[str] = CPU_COST_VARIANTS,
    setup: Setup | None = None,
    *,
    rounds: int = 10,
    calls: int = 10,
    profiled_calls: int = 3,
    save_to: str | Path | None = None,
) -> CpuCosts:
    """CPU cost per call of several variants, with and without the profiler, measured side by side.

    Every variant is built and warmed up first. Then, in each of ``rounds`` rounds (the order of the variants
    rotated by one each round), each variant is called ``calls`` times without the profiler (the GPU idle before
    each call; the time until the call returns is its dispatch cost) and its forcing context entered and left
    ``calls`` times with nothing inside. Afterwards one profiler session (CPU and CUDA activities, shapes recorded,
    as in :func:`profile`) runs the same rounds with ``profiled_calls`` calls per variant, each inside
    ``record_function("<variant>_fwd")``; the annotation lengths are the profiled CPU times. Medians are reported.

    A variant that cannot run gets a row saying why; it never stops the others. Bad names raise ``ValueError``.
    """
    import json

    import torch
    from torch.profiler import ProfilerActivity, record_function
    from torch.profiler import profile as torch_profile

    chosen = [variants.get(n) for n in names]
    setup = setup or default_setup()
    rows = {v.name: CpuCostRow(v.name, "ok") for v in chosen}
    calls_of: dict[str, Callable[[], Any]] = {}
    missing = cuda_missing_reason() if setup.device == "cuda" else None
    with torch.no_grad():
        q, k, v_ = make_inputs(setup) if missing is None else (None, None, None)
        for v in chosen:
            if missing is not None:
                rows[v.name] = CpuCostRow(v.name, "no_cuda", missing)
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    fn = v.build(setup.shape[2], setup.device)
                    for _ in range(3):
                        fn(q, k, v_)
                    _sync(setup.device)
                    calls_of[v.name] = functools.partial(fn, q, k, v_)
                except Exception as exc:  # failure is data: the row says why
                    status, reason = failure(exc, caught, v, setup.device)
                    rows[v.name] = CpuCostRow(v.name, status, reason)
        live = [n for n in rows if n in calls_of]
        dispatch: dict[str, list[float]] = {n: [] for n in live}
        context: dict[str, list[float]] = {n: [] for n in live}
        for r in range(rounds):
            for n in live[r % len(live) :] + live[: r % len(live)] if live else []:
                dispatch[n] += time_dispatch_us(calls_of[n], setup.device, reps=calls)
                backend = variants.get(n).backend
                if backend:
                    context[n] += time_context_us(backend, reps=calls)
        profiled: dict[str, list[float]] = {n: [] for n in live}
        if live:
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if setup.device == "cuda" else [])
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
                with torch_profile(activities=activities, record_shapes=True) as prof:
                    for r in range(rounds):
                        for n in live[r % len(live) :] + live[: r % len(live)]:
                            for _ in range(profiled_calls):
                                with record_function(variants.get(n).annotation):
                                    calls_of[n]()
                                _sync(setup.device)
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "trace.json"
                prof.export_chrome_trace(str(path))
                parsed = json.loads(path.read_text(encoding="utf-8"))
            for n in live:
                profiled[n] = [s.cpu_time_us for s in trace.parse_trace(parsed, variants.get(n).annotation)]
    for n in live:
        rows[n] = CpuCostRow(
            n,
            "ok",
            profiled_us=statistics.median(profiled[n]) if profiled[n] else None,
            dispatch_us=statistics.median(dispatch[n]) if dispatch[n] else None,
            context_us=statistics.median(context[n]) if context[n] else None,
            samples=[len(profiled[n]), len(dispatch[n])],
        )
    costs = CpuCosts(
        device=setup.device,
        shape=list(setup.shape),
        dtype=setup.dtype,
        rounds=rounds,
        environment=environment(setup.device),
        rows=[rows[v.name] for v in chosen],
    )
    if save_to is not None:
        results.save_cpu_costs(costs, Path(save_to))
    return costs
