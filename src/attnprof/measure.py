"""How attnprof measures: synchronisation, the timed-call loop, CPU-side timers, peak memory, and trace capture.

Every figure the package reports is taken by the functions here, so that a profiled variant, the side-by-side CPU
comparison and the sweep measure a call the same way:

* :func:`timed_calls` times single calls. On CUDA, a GPU-side busy wait (:class:`GpuSleep`) is queued before each
  start event, long enough for the CPU to enqueue the whole call behind it, so the CUDA events time the GPU's
  execution of the call alone, not the gaps a slow CPU would leave between launches. On the CPU, ``perf_counter``
  times the call.
* :func:`time_dispatch_us` times how long the CPU takes to issue one call (the GPU idle at the start, so the
  launch queue never blocks); :func:`time_context_us` the backend-forcing context alone.
* :class:`PeakMemory` reads the allocator's peak over a region, above what was allocated before it.
* :func:`capture_trace` runs calls under ``torch.profiler`` with the reference article's schedule and returns
  the exported Chrome trace.

torch is imported inside the functions only.
"""

from __future__ import annotations

import json
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch.profiler import profile

#: The reference article's profiler schedule: wait, warm-up and active steps (``repeat=1``).
ARTICLE_SCHEDULE: tuple[int, int, int] = (1, 1, 3)
#: Longest GPU busy wait queued before a timed call, microseconds.
MAX_PREFILL_US = 50_000.0


def sync(device: str) -> None:
    """Wait for the device to finish its queued work (nothing to wait for on the CPU)."""
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def percentile(xs: list[float], p: float) -> float:
    """The ``p``-th percentile of ``xs`` (nearest rank)."""
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


def timer_name(device: str, sleep: GpuSleep | None) -> str:
    """What timed the calls: ``"cuda_event_prefilled"``, ``"cuda_event"`` (no GPU pre-fill) or ``"perf_counter"``."""
    if device != "cuda":
        return "perf_counter"
    return "cuda_event_prefilled" if sleep is not None else "cuda_event"


@dataclass
class Samples:
    """What :func:`timed_calls` measured, one entry per call.

    Attributes:
        gpu_ms: Time of each call, ms: CUDA events on CUDA, ``perf_counter`` on the CPU.
        issue_us: CPU time until each call returned, µs (on CUDA with the GPU busy, so the launch queue never
            blocks; on the CPU the whole call).
    """

    gpu_ms: list[float] = field(default_factory=list)
    issue_us: list[float] = field(default_factory=list)


def timed_calls(
    fn: Callable[[], Any],
    device: str,
    *,
    min_reps: int,
    budget_ms: float = 0.0,
    max_reps: int = 500,
    sleep: GpuSleep | None = None,
    issue_hint_us: float = 1000.0,
    before: Callable[[], Any] | None = None,
) -> Samples:
    """Time single calls of ``fn`` (call after warm-up): at least ``min_reps``, more while the measured time is
    under ``budget_ms``, at most ``max_reps``.

    With ``sleep``, a GPU busy wait of three times the previous call's issue time (``issue_hint_us`` before the
    first call; between 200 µs and :data:`MAX_PREFILL_US`) is queued before each start event, so the events time
    the GPU's execution without CPU launch gaps; without it they also include the CPU's issue time.

    ``before`` is called before each timed call, the device idle (a barrier that releases the ranks of a
    distributed run together, say). A distributed run must give every rank the same ``min_reps`` and no budget, so
    that every rank makes the same calls.
    """
    import torch

    out = Samples()
    spent = 0.0
    while len(out.gpu_ms) < min_reps or (spent < budget_ms and len(out.gpu_ms) < max_reps):
        if before is not None:
            before()
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if sleep is not None:
                last = out.issue_us[-1] if out.issue_us else issue_hint_us
                sleep(min(max(200.0, 3.0 * last), MAX_PREFILL_US))
            start.record()
            t0 = time.perf_counter()
            fn()
            out.issue_us.append((time.perf_counter() - t0) * 1e6)
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
        else:
            t0 = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - t0
            ms = elapsed * 1e3
            out.issue_us.append(elapsed * 1e6)
        out.gpu_ms.append(ms)
        spent += ms
    return out


def time_dispatch_us(fn: Callable[[], Any], device: str, reps: int = 30) -> list[float]:
    """CPU time to issue one call, the GPU idle at the start so the launch queue never blocks (microseconds).

    On the CPU there is no queue: this is the whole call.
    """
    samples = []
    for _ in range(reps):
        sync(device)
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    sync(device)
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


class PeakMemory:
    """``with PeakMemory(device) as peak: ...``; then ``peak.bytes`` is the allocator's peak during the block above
    what was allocated before it (``None`` on the CPU, where PyTorch keeps no such counter)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.bytes: int | None = None
        self._base = 0

    def __enter__(self) -> PeakMemory:
        if self.device == "cuda":
            import torch

            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self._base = torch.cuda.memory_allocated()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.device == "cuda" and exc[0] is None:
            import torch

            torch.cuda.synchronize()
            self.bytes = int(torch.cuda.max_memory_allocated() - self._base)


# --- the profiler ---------------------------------------------------------------------------------------------------


@contextmanager
def recording(device: str, *, record_shapes: bool = True, schedule: Any = None) -> Iterator[profile]:
    """``torch.profiler.profile`` recording CPU activity (and CUDA activity on CUDA), its chatter silenced."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with torch_profile(activities=activities, schedule=schedule, record_shapes=record_shapes) as prof:
            yield prof


def exported(prof: profile) -> tuple[bytes, dict[str, Any]]:
    """The Chrome trace of a finished profiler session: its bytes and the parsed JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        raw = path.read_bytes()
    return raw, json.loads(raw)


def capture_trace(
    fn: Callable[[], Any],
    annotation: str,
    device: str,
    *,
    schedule: tuple[int, int, int] | None = ARTICLE_SCHEDULE,
    record_shapes: bool = True,
    before: Callable[[], Any] | None = None,
) -> tuple[bytes, dict[str, Any]]:
    """Run ``fn`` under the profiler, each call inside ``record_function(annotation)``; return the Chrome trace.

    With ``schedule`` ``(wait, warmup, active)`` (the reference article's ``(1, 1, 3)`` by default), ``wait +
    warmup + active`` steps run, the device synchronised before each ``prof.step()``, and only the active steps are
    recorded. With ``None``, one call is recorded. ``before`` is called before each step, outside the annotation
    (a barrier that releases the ranks of a distributed run together, say).

    Returns:
        The exported trace's bytes and its parsed JSON.
    """
    import torch
    from torch.profiler import record_function
    from torch.profiler import schedule as make_schedule

    if schedule is None:
        with recording(device, record_shapes=record_shapes) as prof:
            if before is not None:
                before()
            with record_function(annotation):
                fn()
            sync(device)
    else:
        wait, warmup, active = schedule
        plan = make_schedule(wait=wait, warmup=warmup, active=active, repeat=1)
        with recording(device, record_shapes=record_shapes, schedule=plan) as prof:
            for _ in range(wait + warmup + active):
                if before is not None:
                    before()
                with record_function(annotation):
                    fn()
                sync(device)
                prof.step()
    out = exported(prof)
    del prof
    if device == "cuda":
        torch.cuda.empty_cache()
    return out
