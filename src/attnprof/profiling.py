"""Run one attention variant, profile it the way the reference article did, and measure it without the profiler.

The profiled part reproduces the article's set-up: inputs made once, three warm-up calls, then
``torch.profiler.profile`` with ``schedule(wait=1, warmup=1, active=3, repeat=1)`` over five steps, each forward
inside ``record_function("<variant>_fwd")`` under ``torch.no_grad()``, the device synchronised before each
``prof.step()``. The Chrome trace is parsed by :mod:`attnprof.trace` into the active steps. Other workloads
(:mod:`attnprof.workloads`) are profiled the same way, with their own step and annotation: a training step
(forward and backward, autograd on) or a decoding step.

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
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, results, trace, variants, workloads
from .inputs import Setup, default_setup, make_inputs
from .measure import (
    PeakMemory,
    capture_trace,
    exported,
    gpu_sleeper,
    percentile,
    read_bandwidth,
    recording,
    sync,
    time_context_us,
    time_dispatch_us,
    timed_calls,
    timer_name,
)
from .results import CpuCostRow, CpuCosts, DecodeFigures, Environment, GraphFigures, Result, Timing

if TYPE_CHECKING:
    pass

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


# --- the profiled run -----------------------------------------------------------------------------------------------


#: Timed calls of a training or decoding step: at least 15, more within 100 ms of GPU time, at most 100 (their
#: builds measure dozens of steps; prefill keeps its 250 ms and 500).
WORKLOAD_BUDGET_MS, WORKLOAD_MAX_REPS = 100.0, 100


def _timing(call: Callable[[], Any], v: variants.Variant, setup: Setup, err: float, warmup_s: float,
            profile_s: float, flops: float, budget_ms: float = 250.0, max_reps: int = 500) -> Timing:  # fmt: skip
    """The measurements taken without the profiler (see the module docstring)."""
    sleep = gpu_sleeper(setup.device)
    gpu = timed_calls(call, setup.device, min_reps=15, budget_ms=budget_ms, max_reps=max_reps, sleep=sleep).gpu_ms
    med = statistics.median(gpu)
    with PeakMemory(setup.device) as peak:
        out = call()
    del out
    return Timing(
        gpu_ms_median=med,
        gpu_ms_p10=percentile(gpu, 10),
        gpu_ms_p90=percentile(gpu, 90),
        repetitions=len(gpu),
        dispatch_us_median=statistics.median(time_dispatch_us(call, setup.device)),
        context_us_median=statistics.median(time_context_us(v.backend)) if v.backend else None,
        peak_extra_bytes=peak.bytes,
        flops=flops,
        tflops=flops / (med * 1e-3) / 1e12,
        rel_error=err,
        timer=timer_name(setup.device, sleep),
        warmup_s=warmup_s,
        profile_s=profile_s,
    )


def _decode_figures(step: workloads.Step, v: variants.Variant, setup: Setup, timing: Timing | None, graph: bool,
                    caught: list[warnings.WarningMessage]) -> DecodeFigures:  # fmt: skip
    """Bytes, bandwidth against the read ceiling, and (``graph``) the step replayed from a CUDA graph."""
    nbytes = workloads.decode_bytes(setup)
    gbs = nbytes / (timing.gpu_ms_median * 1e-3) / 1e9 if timing is not None else float("nan")
    ceiling = read_bandwidth(setup.device)
    figures = DecodeFigures(nbytes, gbs, *(ceiling or (None, None)))
    if graph:
        try:
            figures.graph = workloads.graph_figures(step, f"{v.name}_decode_graph", setup.device)
        except Exception as exc:  # failure is data: the comparison says why
            status, reason = ("no_cuda", str(exc)) if setup.device != "cuda" else failure(exc, caught, v, "cuda")
            figures.graph = GraphFigures(status, reason)
    return figures


def profile(
    variant: str,
    setup: Setup | None = None,
    *,
    workload: str = "prefill",
    save_to: str | Path | None = None,
    measure: bool = True,
    graph: bool = False,
) -> Result:
    """Profile one variant on one workload and measure it; never raises for a variant that cannot run.

    Args:
        variant: A name from :data:`attnprof.variants.VARIANTS`.
        setup: Shape, dtype and device (and KV cache, for decoding); the workload's default
            (:func:`attnprof.workloads.default_setup`) when omitted.
        workload: ``"prefill"`` (the article's forward), ``"train"`` or ``"decode"`` (:mod:`attnprof.workloads`).
        save_to: Folder to write the result and its trace into (see :func:`attnprof.results.save`); nothing is
            written when ``None``.
        measure: Also take the measurements outside the profiler (:class:`~attnprof.results.Timing`, and the
            workload's own figures).
        graph: Decoding only: also capture the step in a CUDA graph and measure it beside the eager step.

    Returns:
        The result; check ``result.status`` before reading ``steps`` or ``timing``.

    Raises:
        ValueError: for an unknown variant or workload, a variant that does not take part in the workload, or a
            setup that does not fit it.
    """
    import torch

    v = workloads.check(variant, workload)
    w = workloads.get(workload)
    setup = workloads.check_setup(w.name, setup or workloads.default_setup(w.name))
    base = dict(variant=v.name, shape=list(setup.shape), dtype=setup.dtype, device=setup.device, workload=w.name,
                kv_heads=setup.kv_heads, kv_len=setup.kv_len)  # fmt: skip

    def failed(status: str, reason: str) -> Result:
        res = Result(**base, status=status, reason=reason, environment=environment(setup.device))
        if save_to is not None:
            results.save(res, Path(save_to))
        return res

    missing = cuda_missing_reason() if setup.device == "cuda" else None
    if missing:
        return failed("no_cuda", missing)

    trace_bytes: bytes | None = None
    figures: dict[str, Any] = {}
    grad_mode = torch.enable_grad() if w.grad else torch.no_grad()
    with grad_mode, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            step = w.prepare(v, setup)
            t0 = time.perf_counter()
            for _ in range(3):
                step.call()
            sync(setup.device)
            warmup_s = time.perf_counter() - t0
            err, grad_err = step.error()

            t0 = time.perf_counter()
            annotation = w.annotation(v.name)
            trace_bytes, parsed = capture_trace(step.body, annotation, setup.device)
            steps = trace.parse_trace(parsed, annotation)
            profile_s = time.perf_counter() - t0

            timing = None
            if measure:
                budget = {} if w.name == "prefill" else dict(budget_ms=WORKLOAD_BUDGET_MS, max_reps=WORKLOAD_MAX_REPS)
                timing = _timing(step.call, v, setup, err, warmup_s, profile_s, w.flops(setup), **budget)
                if w.name == "train":
                    figures["train_figures"] = workloads.train_figures(step, setup, grad_err)
                if w.name == "decode":
                    figures["decode_figures"] = _decode_figures(step, v, setup, timing, graph, caught)
            del step
        except Exception as exc:  # failure is data: the result says why
            status, reason = failure(exc, caught, v, setup.device)
            if setup.device == "cuda":
                torch.cuda.empty_cache()
            return failed(status, reason)
    if setup.device == "cuda":
        torch.cuda.empty_cache()

    res = Result(
        **base,
        status="ok",
        environment=environment(setup.device, trace.trace_metadata(parsed)),
        device_properties=trace.device_properties(parsed),
        steps=steps,
        timing=timing,
        **figures,
    )
    if save_to is not None:
        results.save(res, Path(save_to), trace_bytes)
    return res


def profile_all(
    names: Iterable[str] | None = None, setup: Setup | None = None, *, save_to: str | Path | None = None
) -> list[Result]:
    """:func:`profile` for several variants (all when ``names`` is None); one failing never stops the rest."""
    return [profile(n, setup, save_to=save_to) for n in (names or variants.VARIANTS)]


def measure_cpu_costs(
    names: Iterable[str] | None = None,
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

    ``names`` defaults to the variants the registry marks for this comparison (``Variant.cpu_cost``: the
    article's three fused backends and SDPA's own choice). A variant that cannot run gets a row saying why; it never
    stops the others. Bad names raise ``ValueError``.
    """
    import torch
    from torch.profiler import record_function

    chosen = [variants.get(n) for n in (variants.names(cpu_cost=True) if names is None else names)]
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
                    sync(setup.device)
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
            with recording(setup.device) as prof:
                for r in range(rounds):
                    for n in live[r % len(live) :] + live[: r % len(live)]:
                        for _ in range(profiled_calls):
                            with record_function(variants.get(n).annotation):
                                calls_of[n]()
                            sync(setup.device)
            _, parsed = exported(prof)
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
