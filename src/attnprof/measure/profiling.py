"""Run one attention variant, profile it the way the reference article did, and measure it without the profiler.

The profiled part reproduces the article's set-up: inputs made once, three warm-up calls, then
``torch.profiler.profile`` with ``schedule(wait=1, warmup=1, active=3, repeat=1)`` over five steps, each forward
inside ``record_function("<variant>_fwd")`` under ``torch.no_grad()``, the device synchronised before each
``prof.step()``. The Chrome trace is parsed by :mod:`attnprof.records.trace` into the active steps. Other workloads
(:mod:`attnprof.workloads`) are profiled the same way, with their own step and annotation: a training step
(forward and backward, autograd on) or a decoding step.

The measured part runs without the profiler: CUDA events around single calls (the median of many, with its
confidence interval, timed by :func:`attnprof.measure.timing.time_shape` exactly as the sweep times a point), CPU time
to issue one call without waiting for the GPU, the cost of the backend-forcing context alone, peak extra device
memory, achieved TFLOP/s, and the error against a float64 reference.

A variant that cannot run does not raise: :func:`profile` returns a :class:`~attnprof.records.results.Result` whose
``status`` says why (``unsupported`` with PyTorch's own reason, ``no_cuda``, ``oom``, ``error``). The float64
reference check is recorded apart from that status (``Result.reference_check``): a variant whose kernel ran is
``ok`` even when its check could not be made. Only bad arguments raise ``ValueError``, and an interrupt (Ctrl-C)
is never a failure: it stops the run (:mod:`attnprof.measure.failure`).
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof import __version__, settings, variants, words, workloads
from attnprof.inputs import (
    Setup,
    causal_flops,
    default_setup,
    make_inputs,
    make_setup,
    reference_attention,
    relative_error,
)
from attnprof.measure import cost, steps
from attnprof.measure.failure import attempt, classify, pytorch_reason
from attnprof.measure.interrupts import import_torch, interrupts_seen, raise_if_interrupted
from attnprof.measure.reuse import replayed_result, reusable_result
from attnprof.measure.timing import (
    DEFAULT_PLAN,
    PeakMemory,
    capture_trace,
    gpu_sleeper,
    read_bandwidth,
    sync,
    time_context_us,
    time_dispatch_us,
    time_shape,
    timer_name,
)
from attnprof.noise import median_interval
from attnprof.records import files, results, trace
from attnprof.records.results import DecodeFigures, Environment, GraphFigures, Result, Timing

if TYPE_CHECKING:
    import torch

# --- where it cannot run --------------------------------------------------------------------------------------------


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
        name = words.CPU_NAME.format(arch=name, cores=os.cpu_count())
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


def _checked(compute: Callable[[], tuple[float, float | None]],
             setup: Setup) -> tuple[str, str | None, float | None, float | None]:  # fmt: skip
    """Run a check against the float64 reference: ``(reference_check, reference_reason, rel_error, grad_error)``.

    ``compute`` returns the output's relative error and the gradients' largest (``None`` when there are none).
    Skipped (not attempted) when its estimated memory (:func:`attnprof.measure.cost.reference_bytes`) exceeds what the
    device has; its own failure is ``oom`` or ``error`` with PyTorch's first line. Never raises for a failing
    reference, so that the variant's own status stays what its kernel did.
    """
    import torch

    cache = setup.kv_shape if setup.kv_len is not None or setup.kv_heads is not None else None
    need, limit = cost.reference_bytes(setup.shape, cache), cost.available(setup.device)
    if limit is not None and need > limit.bytes:
        reason = (
            f"not run: the float64 reference needs about {cost.human_bytes(need)} (estimated), more than the "
            f"{cost.human_bytes(limit.bytes)} of {limit.source}"
        )
        return "skipped", reason, None, None
    err = grad_err = None
    with attempt(judge=_check_failed) as outcome:  # the check's failure is data too, apart from the variant's status
        err, grad_err = compute()
    if setup.device == "cuda":
        torch.cuda.empty_cache()
    return outcome.status, outcome.reason, err, grad_err


def _check_failed(exc: BaseException, caught: Sequence[warnings.WarningMessage]) -> tuple[str, str]:
    """A failed reference check is ``oom`` or ``error``, with PyTorch's first line (its warnings explain nothing)."""
    return ("oom" if classify(exc) == "oom" else "error"), pytorch_reason(exc, ())


def reference_check(out: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                    setup: Setup) -> tuple[str, str | None, float | None]:  # fmt: skip
    """Check ``out`` against the float64 reference: ``(reference_check, reference_reason, rel_error)`` (see
    :func:`_checked`)."""
    return _checked(lambda: (relative_error(out, reference_attention(q, k, v)), None), setup)[:3]


def _timing(call: Callable[[], Any], v: variants.Variant, setup: Setup, err: float | None,
            warmup_s: float | None, profile_s: float | None, flops: float | None = None) -> Timing:  # fmt: skip
    """The measurements taken without the profiler (see the module docstring).

    The GPU time is taken by :func:`attnprof.measure.timing.time_shape` with
    :data:`attnprof.measure.timing.DEFAULT_PLAN`, the same timer and plan as every point of the sweep, so that a shape
    on both agrees within the noise.
    """
    sleep = gpu_sleeper(setup.device)
    timed = time_shape(call, setup.device, DEFAULT_PLAN, sleep)
    gpu = timed.gpu
    flops = causal_flops(setup.shape) if flops is None else flops
    with PeakMemory(setup.device) as peak:
        out = call()
    del out
    dispatch = median_interval(time_dispatch_us(call, setup.device))
    return Timing(
        gpu_ms_median=gpu.median,
        gpu_ms_p10=timed.p10,
        gpu_ms_p90=timed.p90,
        repetitions=gpu.n,
        dispatch_us_median=dispatch.median,
        context_us_median=statistics.median(time_context_us(v.backend)) if v.backend else None,
        peak_extra_bytes=peak.bytes,
        flops=flops,
        tflops=flops / (gpu.median * 1e-3) / 1e12,
        rel_error=err,
        timer=timer_name(setup.device, sleep),
        warmup_s=warmup_s,
        profile_s=profile_s,
        gpu_ms_lo=gpu.lo,
        gpu_ms_hi=gpu.hi,
        dispatch_us_lo=dispatch.lo,
        dispatch_us_hi=dispatch.hi,
        attempts=timed.attempts,
        unstable=timed.unstable,
    )


def _run_fields(setup: Setup, workload: str) -> dict[str, Any]:
    """The fields of a :class:`~attnprof.records.results.Result` that say what ran, besides the variant."""
    return dict(shape=list(setup.shape), dtype=setup.dtype, device=setup.device, workload=workload,
                kv_heads=setup.kv_heads, kv_len=setup.kv_len)  # fmt: skip


def _failed(v: variants.Variant, setup: Setup, status: str, reason: str, save_to: str | Path | None,
            workload: str = "prefill") -> Result:  # fmt: skip
    """The result of a variant that could not run here (saved when ``save_to`` is given)."""
    res = Result(variant=v.name, **_run_fields(setup, workload), status=status, environment=environment(setup.device),
                 reason=reason)  # fmt: skip
    if save_to is not None:
        results.save(res, Path(save_to))
    return res


def _finish(v: variants.Variant, setup: Setup, raw: bytes, timing: Timing | None, save_to: str | Path | None,
            check: tuple[str | None, str | None], seen: int, workload: str = "prefill",
            annotation: str | None = None, **figures: Any) -> Result:  # fmt: skip
    """The result of a run from its exported Chrome trace (parsed by :mod:`attnprof.records.trace`), its timing and
    its reference check; the trace is saved beside the result when ``save_to`` is given, unless an interrupt arrived
    since ``seen`` (:func:`attnprof.measure.interrupts.interrupts_seen`). :func:`profile` and :func:`from_trace` end
    here."""
    parsed = json.loads(raw)
    res = Result(
        variant=v.name,
        **_run_fields(setup, workload),
        status="ok",
        environment=environment(setup.device, trace.trace_metadata(parsed)),
        device_properties=trace.device_properties(parsed),
        steps=trace.parse_trace(parsed, annotation or v.annotation),
        timing=timing,
        reference_check=check[0],
        reference_reason=check[1],
        **figures,
    )
    raise_if_interrupted(seen)  # one that a library swallowed: stop before saving anything
    if save_to is not None:
        results.save(res, Path(save_to), raw)
    return res


def _decode_figures(step: steps.Step, v: variants.Variant, setup: Setup, timing: Timing | None,
                    graph: bool) -> DecodeFigures:  # fmt: skip
    """Bytes, bandwidth against the read ceiling, and (``graph``) the step replayed from a CUDA graph."""
    nbytes = workloads.decode_bytes(setup)
    gbs = nbytes / (timing.gpu_ms_median * 1e-3) / 1e9 if timing is not None else float("nan")
    ceiling = read_bandwidth(setup.device)
    figures = DecodeFigures(nbytes, gbs, *(ceiling or (None, None)))
    if graph:
        judge = None if setup.device == "cuda" else lambda exc, _: ("no_cuda", str(exc))
        with attempt(v, "cuda", judge=judge) as outcome:  # failure is data: the comparison says why
            figures.graph = steps.graph_figures(step, f"{v.name}_decode_graph", setup.device)
        if not outcome.ok:
            figures.graph = GraphFigures(outcome.status, outcome.reason)
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
        save_to: Folder to write the result and its trace into (see :func:`attnprof.records.results.save`); nothing is
            written when ``None``.
        measure: Also take the measurements outside the profiler (:class:`~attnprof.records.results.Timing`, and the
            workload's own figures).
        graph: Decoding only: also capture the step in a CUDA graph and measure it beside the eager step.

    With ``$ATTNPROF_REUSE=replay`` (the docs build's languages after the first), nothing runs: the result the first
    language saved in ``save_to`` is returned (:func:`attnprof.measure.reuse.replayed_result`, which raises
    :class:`~attnprof.measure.reuse.NotRecorded` when there is none).

    Returns:
        The result; check ``result.status`` before reading ``steps`` or ``timing``.

    Raises:
        ValueError: for an unknown variant or workload, a variant that does not take part in the workload, or a
            setup that does not fit it.
    """
    seen = interrupts_seen()
    import torch

    v = workloads.check(variant, workload)
    w = workloads.get(workload)
    setup = workloads.check_setup(w.name, setup or workloads.default_setup(w.name))
    if settings.replaying():  # the docs build's other languages: what the first one measured (attnprof.measure.reuse)
        return replayed_result(v.name, setup, save_to if save_to is not None else settings.results_dir(), w.name)
    missing = cuda_missing_reason() if setup.device == "cuda" else None
    if missing:
        return _failed(v, setup, "no_cuda", missing, save_to, w.name)

    figures: dict[str, Any] = {}
    grad_mode = torch.enable_grad() if w.grad else torch.no_grad()
    step = None
    with grad_mode, attempt(v, setup.device, since=seen) as outcome:
        step = steps.prepare(w, v, setup)
        t0 = time.perf_counter()
        for _ in range(3):
            step.call()
        sync(setup.device)
        warmup_s = time.perf_counter() - t0
        check, check_reason, err, grad_err = _checked(step.error, setup)

        t0 = time.perf_counter()
        annotation = w.annotation(v.name)
        raw, _ = capture_trace(step.body, annotation, setup.device)
        profile_s = time.perf_counter() - t0

        timing = None
        if measure:
            timing = _timing(step.call, v, setup, err, warmup_s, profile_s, w.flops(setup))
            if w.backward:
                figures["train_figures"] = steps.train_figures(step, setup, grad_err)
            if w.kv_cache:
                figures["decode_figures"] = _decode_figures(step, v, setup, timing, graph and w.graph_replay)
    step = None  # its inputs, also when the step failed half-way (out of memory: nothing of it stays allocated)
    if setup.device == "cuda":
        torch.cuda.empty_cache()
    if not outcome.ok:
        return _failed(v, setup, outcome.status, outcome.reason, save_to, w.name)
    return _finish(v, setup, raw, timing, save_to, (check, check_reason), seen, w.name, annotation, **figures)


# --- a trace recorded elsewhere (the gallery scripts' own profiler) -------------------------------------------------


def _read_trace(trace_file: str | Path | bytes) -> bytes:
    if isinstance(trace_file, bytes):
        return trace_file
    path = Path(trace_file)
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def from_trace(
    variant: str,
    setup: Setup | None = None,
    trace_file: str | Path | bytes | None = None,
    *,
    attention: Callable[..., Any] | None = None,
    save_to: str | Path | None = None,
    measure: bool = True,
    reuse: bool | None = None,
) -> Result:
    """The result of a run whose trace was recorded by the caller's own profiler: a gallery script profiles its
    variant inline, exports the trace, and hands it here, so the trace it recorded is the one the pages read.

    Like :func:`profile` after its profiler session: the trace is parsed by :mod:`attnprof.records.trace`, the call is
    measured without the profiler (:class:`~attnprof.records.results.Timing`, the warm-up and profiling wall times
    left out: the caller did those), and the result is saved with the trace beside it. Never raises for a variant that
    cannot run.

    Args:
        variant: The registry name of what the trace recorded; each call inside ``record_function`` of its
            annotation (``"<variant>_fwd"``).
        setup: Shape, dtype and device of the recorded calls; :func:`default_setup` when omitted.
        trace_file: The exported Chrome trace (``.json`` or ``.json.gz``, or its bytes); ``None`` when the call
            could not run, in which case the variant is called once more to record why, in PyTorch's words.
        attention: The ``(q, k, v) -> out`` callable the trace recorded (measured without the profiler);
            the registry's when omitted.
        save_to: Folder to write the result and its trace into; nothing is written when ``None``.
        measure: Take the measurements outside the profiler.
        reuse: Take them from a result saved in ``save_to`` for the same variant, shape, dtype and device, written
            after the file that defines ``attention`` last changed, instead
            (:func:`attnprof.measure.reuse.reusable_result`); by default when ``$ATTNPROF_REUSE`` asks for it (the
            docs build's first language). With ``$ATTNPROF_REUSE=replay`` (its other languages), the whole result
            the first language saved in ``save_to`` is returned, and its trace written over ``trace_file``: the
            caller's own run is not shown.

    Returns:
        The result; check ``result.status`` before reading ``steps`` or ``timing``.

    Raises:
        ValueError: for an unknown variant, a trace without the variant's annotation, or no trace of a call that
            runs.
        FileNotFoundError: for a trace file that is not there.
        attnprof.measure.reuse.NotRecorded: replaying, when the first language saved no result.
    """
    seen = interrupts_seen()
    import torch

    v = variants.get(variant)
    setup = setup or default_setup()
    if settings.replaying():
        return _replayed(v.name, setup, trace_file, save_to if save_to is not None else settings.results_dir())
    raw = None if trace_file is None else _read_trace(trace_file)
    reuse = settings.reuse_measurements() if reuse is None else reuse
    if reuse and save_to is not None and raw is not None:
        defined_in = Path(getattr(getattr(attention, "__code__", None), "co_filename", ""))  # the script, if any
        more = [defined_in] if defined_in.is_file() else []
        saved = reusable_result(v.name, setup, save_to, environment(setup.device), *more)
    else:
        saved = None
    missing = cuda_missing_reason() if setup.device == "cuda" else None
    if missing:
        return _failed(v, setup, "no_cuda", missing, save_to)

    timing = saved.timing if saved is not None else None
    check = (saved.reference_check, saved.reference_reason) if saved is not None else (None, None)
    with torch.no_grad(), attempt(v, setup.device, since=seen) as outcome:
        q, k, v_ = make_inputs(setup)
        fn = attention if attention is not None else v.build(setup.shape[2], setup.device)

        def call() -> torch.Tensor:
            return fn(q, k, v_)

        if saved is None:
            out = call()
            *check, err = reference_check(out, q, k, v_, setup)
            del out
            timing = _timing(call, v, setup, err, None, None) if measure and raw is not None else None
    if not outcome.ok:
        if setup.device == "cuda":
            torch.cuda.empty_cache()
        return _failed(v, setup, outcome.status, outcome.reason, save_to)
    if raw is None:
        raise ValueError(f"no trace of {variant!r} given, yet it runs here: export the profiler's trace and pass it")
    return _finish(v, setup, raw, timing, save_to, (check[0], check[1]), seen)


def _replayed(variant: str, setup: Setup, trace_file: str | Path | bytes | None, folder: str | Path) -> Result:
    """:func:`from_trace` in the docs build's other languages: the result the first language saved, whose trace also
    goes back where the caller exported its own (that run is not shown; :mod:`attnprof.measure.reuse`)."""
    saved = replayed_result(variant, setup, folder)
    if isinstance(trace_file, (str, Path)) and saved.trace_file:
        exported = files.gunzip(files.read_bytes(Path(folder) / saved.trace_file), saved.trace_file)
        files.write_if_changed(Path(trace_file), exported)
    return saved


def profile_all(
    names: Iterable[str] | None = None, setup: Setup | None = None, *, save_to: str | Path | None = None
) -> list[Result]:
    """:func:`profile` for several variants (all when ``names`` is None); one failing never stops the rest."""
    return [profile(n, setup, save_to=save_to) for n in (names or variants.VARIANTS)]


#: Shape of the call ``attnprof list`` makes to see whether a variant runs here.
CHECK_SHAPE = (1, 2, 128, 64)


def default_device() -> str:
    """CUDA when torch sees a CUDA device, else the CPU."""
    import_torch()
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def check_variant(name: str, device: str, dtype: str = "bfloat16") -> tuple[str, str | None]:
    """Whether ``name`` runs here: one tiny real call (:data:`CHECK_SHAPE`), judged like a profiled run.

    Returns:
        ``(status, reason)``: ``("ok", None)``, or a status of :data:`attnprof.records.results.STATUSES` and PyTorch's
        reason (see :func:`attnprof.measure.failure.failure`).
    """
    import torch

    v = variants.get(name)
    missing = cuda_missing_reason() if device == "cuda" else None
    if missing:
        return "no_cuda", missing
    setup = make_setup(CHECK_SHAPE, dtype, device)
    with torch.no_grad(), attempt(v, device) as outcome:
        q, k, v_ = make_inputs(setup)
        v.build(setup.shape[2], device)(q, k, v_)
        if device == "cuda":
            torch.cuda.synchronize()
    return outcome.status, outcome.reason
