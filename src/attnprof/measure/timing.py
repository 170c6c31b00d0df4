"""How attnprof measures: synchronisation, the timed-call loop, CPU-side timers, peak memory, and trace capture.

Every figure the package reports is taken by the functions here, so that a profiled variant, the side-by-side CPU
comparison and the sweep measure a call the same way:

* :func:`time_shape` is the one timer of a shape: a variant's page (:mod:`attnprof.measure.profiling`) and a point of
the
  sweep (:mod:`attnprof.measure.sweeprun`) both call it with the same :class:`Plan` (warm-up, number of samples,
  statistic, retry of unstable samples), so a shape present in both is measured the same way.
* :func:`timed_calls` times single calls. On CUDA, a GPU-side busy wait (:class:`GpuSleep`) is queued before each
  start event, long enough for the CPU to enqueue the whole call behind it, so the CUDA events time the GPU's
  execution of the call alone, not the gaps a slow CPU would leave between launches. On the CPU, ``perf_counter``
  times the call.
* :func:`time_dispatch_us` times how long the CPU takes to issue one call (the GPU idle at the start, so the
  launch queue never blocks); :func:`time_context_us` the backend-forcing context alone.
* :class:`PeakMemory` reads the allocator's peak over a region, above what was allocated before it.
* :func:`read_bandwidth` measures how fast the GPU reads device memory (the ceiling of a decoding step).
* :func:`capture_trace` runs calls under ``torch.profiler`` with the reference article's schedule and returns
  the exported Chrome trace.
* :func:`reraise_interrupt` keeps Ctrl-C an interrupt: the code that records a failing call as data calls it
  first, so a ``KeyboardInterrupt`` (or one that the profiler turned into another error on its way out) stops
  the run instead of becoming a variant's failure.

torch is imported inside the functions only.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof import noise
from attnprof.measure.interrupts import (
    reraise_interrupt,
)
from attnprof.noise import Figure, percentile
from attnprof.settings import measuring, refuse_while_replaying

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


class GpuSleep:
    """Queues a GPU-side busy wait of a given length (``torch.cuda._sleep``, calibrated once in microseconds).

    Queued before a timed call, it keeps the GPU busy while the CPU enqueues the whole call, so CUDA events around
    the call measure the GPU's work alone, not the gaps a slower CPU would leave between launches.

    ``torch.cuda._sleep`` spins for a number of SM clock cycles, so the calibration spins for a while first (about
    10 ms at full clock): measured from an idle GPU whose clock is still ramping up, the cycles per microsecond
    would come out low and every later wait short.
    """

    #: Cycles spun before the calibration, to bring the SM clock up.
    RAMP_CYCLES = 20_000_000

    def __init__(self) -> None:
        import torch

        self._sleep = torch.cuda._sleep  # private but long-standing; gpu_sleeper() falls back without it
        self._sleep(self.RAMP_CYCLES)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 2_000_000
        start.record()
        self._sleep(cycles)
        end.record()
        end.synchronize()
        self.cycles_per_us = cycles / max(start.elapsed_time(end) * 1e3, 1.0)

    def __call__(self, us: float) -> None:
        self._sleep(int(self.cycles_per_us * us))


_SLEEPER: list[GpuSleep] = []  # the process's one calibrated pre-fill, made on first use


def gpu_sleeper(device: str) -> GpuSleep | None:
    """The process's :class:`GpuSleep` on CUDA (calibrated once, on first use, so that the variant pages and the
    sweep pre-fill the GPU with the same waits), or ``None`` on the CPU or where this torch has no
    ``torch.cuda._sleep``."""
    if device != "cuda":
        return None
    if not _SLEEPER:
        try:
            _SLEEPER.append(GpuSleep())
        except (AttributeError, RuntimeError):
            return None
    return _SLEEPER[0]


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


@measuring
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


#: Spreads narrower than this (ms) never count as unstable: CUDA events resolve about half a microsecond, and a
#: 20 µs kernel jitters by a few.
UNSTABLE_FLOOR_MS = 0.005


@dataclass(frozen=True)
class Plan:
    """How one shape is timed (:func:`time_shape`): the same plan for a variant's page and for a sweep point.

    Attributes:
        warmup: Untimed calls first, each waited for (the first may compile) ...
        warmup_ms: ... and more while their wall time is under this, so that the GPU's clocks and caches are in the
            same state whatever the size of the call.
        reps: Timed calls, at least ...
        budget_ms: ... and more while their summed time is under this (enough samples to bound the median) ...
        max_reps: ... up to this many.
        reps_slow: Timed calls, with no budget, when the last warm-up call took ``slow_ms`` or more.
        slow_ms: See ``reps_slow``.
        retries: Times the whole measurement (warm-up included) is repeated when its samples are unstable
            (:func:`attnprof.noise.unstable`); the steadier attempt is kept, and flagged if it is unstable too.
    """

    warmup: int = 2
    warmup_ms: float = 25.0
    reps: int = 10
    budget_ms: float = 50.0
    max_reps: int = 100
    reps_slow: int = 5
    slow_ms: float = 20.0
    retries: int = 1

    def to_dict(self) -> dict[str, float]:
        """The JSON-ready form (a sweep file records its plan)."""
        return dataclasses.asdict(self)


#: The plan of every page and of the sweep.
DEFAULT_PLAN = Plan()


@dataclass
class Timed:
    """What :func:`time_shape` measured.

    Attributes:
        samples: The timed calls of the attempt kept.
        warmup_ms: Wall time of the last warm-up call of that attempt, ms (compilation included for the first
            attempt of a compiled variant, if it had a single warm-up call).
        attempts: Measurements made (1, or more after unstable samples).
        unstable: The samples kept are unstable (see :func:`attnprof.noise.unstable`) after every retry.
    """

    samples: Samples
    warmup_ms: float
    attempts: int
    unstable: bool

    @property
    def gpu(self) -> Figure:
        """The median time and its confidence interval (:func:`attnprof.noise.median_interval`), ms."""
        return noise.median_interval(self.samples.gpu_ms)

    @property
    def p10(self) -> float:
        return percentile(self.samples.gpu_ms, 10)

    @property
    def p90(self) -> float:
        return percentile(self.samples.gpu_ms, 90)


@measuring
def warm_up(fn: Callable[[], Any], device: str, calls: int, min_ms: float = 0.0) -> tuple[float, float]:
    """Call ``fn`` at least ``calls`` times, and more while their wall time is under ``min_ms``, each waited for.

    Returns:
        The last call's CPU time until it returned (µs) and its wall time until the device finished (ms).
    """
    issue_us = wall_ms = spent = 0.0
    n = 0
    while n < calls or spent < min_ms:
        sync(device)
        t0 = time.perf_counter()
        fn()
        issue_us = (time.perf_counter() - t0) * 1e6
        sync(device)
        wall_ms = (time.perf_counter() - t0) * 1e3
        spent += wall_ms
        n += 1
    return issue_us, wall_ms


@measuring
def time_shape(fn: Callable[[], Any], device: str, plan: Plan = DEFAULT_PLAN, sleep: GpuSleep | None = None) -> Timed:
    """Time one shape the way every figure of the site is timed: warm up, then time single calls, then check that
    the samples hold together, retrying when they do not.

    Args:
        fn: The call (inputs bound).
        device: ``"cuda"`` or ``"cpu"``.
        plan: Warm-up, number of samples and retries (:data:`DEFAULT_PLAN` for every page and the sweep).
        sleep: The GPU pre-fill (:func:`gpu_sleeper`); ``None`` on the CPU.

    Returns:
        The samples of the steadier attempt, with the number of attempts and whether they are still unstable.
    """
    best: Timed | None = None
    for attempt in range(1, plan.retries + 2):
        issue_us, wall_ms = warm_up(fn, device, plan.warmup, plan.warmup_ms)
        slow = wall_ms >= plan.slow_ms
        samples = timed_calls(
            fn,
            device,
            min_reps=plan.reps_slow if slow else plan.reps,
            budget_ms=0.0 if slow else plan.budget_ms,
            max_reps=max(plan.max_reps, plan.reps, plan.reps_slow),
            sleep=sleep,
            issue_hint_us=issue_us,
        )
        bad = noise.unstable(samples.gpu_ms, UNSTABLE_FLOOR_MS)
        timed = Timed(samples, wall_ms, attempt, bad)
        if best is None or _spread(timed) < _spread(best):
            best = timed
        if not bad:
            break
    assert best is not None
    best.attempts = attempt
    best.unstable = noise.unstable(best.samples.gpu_ms, UNSTABLE_FLOOR_MS)
    return best


def _spread(t: Timed) -> float:
    return t.p90 / t.p10 if t.p10 > 0 else float("inf")


@measuring
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


@measuring
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
        refuse_while_replaying("measure.timing.PeakMemory")
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


#: Size of the buffer :func:`read_bandwidth` reads, bytes.
READ_BYTES = 2 * 2**30
_READ_CACHE: dict[tuple[str, int], tuple[float, int]] = {}


def read_all(x: Any) -> Any:
    """What :func:`read_bandwidth` times: the sum of every element of ``x`` (a 0-dim tensor; reads all of ``x``)."""
    return x.sum()


@measuring
def read_bandwidth(device: str, nbytes: int = READ_BYTES, reps: int = 10) -> tuple[float, int] | None:
    """How fast the device reads memory: ``(GB/s, bytes read)``, or ``None`` on the CPU or without CUDA.

    A sum over ``nbytes`` of float32 in device memory (random, made on the device), timed like every call here
    (:func:`timed_calls` with the GPU pre-filled, median of ``reps`` after three warm-up calls). Only the bytes
    read count: the result is one number. This is the ceiling of a step that reads much and writes little, such
    as decoding, which a copy's figure (bytes read plus bytes written) does not give. Measured once per process
    and size, then reused.
    """
    if device != "cuda":
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    key = (torch.cuda.get_device_name(), nbytes)
    if key not in _READ_CACHE:
        gen = torch.Generator(device="cuda").manual_seed(0)
        x = torch.rand(nbytes // 4, generator=gen, device="cuda", dtype=torch.float32)
        for _ in range(3):
            read_all(x)
        sleep = gpu_sleeper("cuda")
        ms = percentile(timed_calls(lambda: read_all(x), "cuda", min_reps=reps, sleep=sleep).gpu_ms, 50)
        _READ_CACHE[key] = (x.numel() * 4 / (ms * 1e-3) / 1e9, x.numel() * 4)
        del x
        torch.cuda.empty_cache()
    return _READ_CACHE[key]


# --- the profiler ---------------------------------------------------------------------------------------------------


@contextmanager
def recording(device: str, *, record_shapes: bool = True, schedule: Any = None) -> Iterator[profile]:
    """``torch.profiler.profile`` recording CPU activity (and CUDA activity on CUDA), its chatter silenced."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        try:
            with torch_profile(activities=activities, schedule=schedule, record_shapes=record_shapes) as prof:
                yield prof
        except Exception as exc:  # an interrupt the profiler turned into its own error stays an interrupt
            reraise_interrupt(exc)
            raise


def exported(prof: profile) -> tuple[bytes, dict[str, Any]]:
    """The Chrome trace of a finished profiler session: its bytes and the parsed JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        raw = path.read_bytes()
    return raw, json.loads(raw)


@measuring
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
