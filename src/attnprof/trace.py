"""Read a PyTorch profiler (Chrome/Kineto) trace into :class:`~attnprof.results.StepTrace` objects.

The trace is the JSON that ``torch.profiler.profile.export_chrome_trace`` writes. What this module relies on:

* CPU-thread events (``ph: "X"``) of category ``cpu_op`` (ATen ops), ``user_annotation``
  (``record_function`` regions and ``ProfilerStep#N``), ``cuda_runtime`` and ``cuda_driver`` (API calls such as
  ``cudaLaunchKernel`` or ``cuLaunchKernelEx``). Nesting is not recorded; it is implied by time containment on
  the same process and thread.
* GPU events of category ``kernel``, ``gpu_memcpy`` and ``gpu_memset``. Each carries ``args.correlation``, the id
  of the runtime or driver call that launched it. Kernels also carry their launch configuration (``grid``,
  ``block``, ``registers per thread``, ``shared memory``) and Kineto's estimates (``blocks per SM``,
  ``warps per SM``, ``est. achieved occupancy %``); copies and sets carry ``bytes``.
* The top-level ``deviceProperties`` list and the ``cuda_driver_version``, ``cuda_runtime_version`` and
  ``cupti_version`` keys.

A step is one occurrence of the annotation that wraps the profiled call; everything is timed relative to the
start of that annotation, in microseconds, rounded to the nanosecond.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import kernels, occupancy
from .kernels import KernelInfo
from .occupancy import Occupancy
from .results import CpuOp, GpuActivity, StepTrace

#: Categories of CPU-thread events kept under a step.
CPU_CATEGORIES = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver")
#: Categories of API calls that can launch GPU work.
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")
#: GPU event categories and the :attr:`GpuActivity.kind` each becomes.
GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
#: Trace keys :func:`trace_metadata` reports.
METADATA_KEYS = ("cuda_driver_version", "cuda_runtime_version", "cupti_version")

# Timestamps are microseconds with nanosecond decimals; two events that touch may overlap by a rounding step.
_EPS = 1e-3
_PROFILER_STEP = re.compile(r"^ProfilerStep#\d+$")


def _r(x: float) -> float:
    """Round to the nanosecond, so that the same trace always gives the same numbers."""
    return round(x, 3) + 0.0


def read_trace(path: str | Path) -> dict[str, Any]:
    """Load a Chrome trace from ``.json`` or ``.json.gz``."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace.get("traceEvents", ()) if e.get("ph") == "X" and "ts" in e]


def _annotation_names(events: list[dict[str, Any]]) -> list[str]:
    """Distinct user annotation names, ``ProfilerStep#N`` collapsed to ``ProfilerStep#*``."""
    names: dict[str, None] = {}
    for e in events:
        if e.get("cat") == "user_annotation":
            names[_PROFILER_STEP.sub("ProfilerStep#*", e.get("name", ""))] = None
    return sorted(names)


def _gpu_activity(e: dict[str, Any], t0: float, launch: dict[str, Any]) -> GpuActivity:
    args = e.get("args", {})
    kind = GPU_KINDS[e["cat"]]

    def arg(key: str, cast: type) -> Any:
        v = args.get(key)
        return None if v is None else cast(v)

    return GpuActivity(
        kind=kind,
        name=e.get("name", ""),
        start_us=_r(e["ts"] - t0),
        duration_us=_r(e.get("dur", 0.0)),
        correlation=arg("correlation", int),
        stream=arg("stream", int),
        grid=list(args["grid"]) if kind == "kernel" and args.get("grid") is not None else None,
        block=list(args["block"]) if kind == "kernel" and args.get("block") is not None else None,
        registers_per_thread=arg("registers per thread", int),
        shared_memory=arg("shared memory", int),
        blocks_per_sm=arg("blocks per SM", float),
        warps_per_sm=arg("warps per SM", float),
        reported_occupancy=arg("est. achieved occupancy %", float),
        launch_api=launch.get("name"),
        launch_start_us=_r(launch["ts"] - t0),
        launch_duration_us=_r(launch.get("dur", 0.0)),
        bytes=arg("bytes", int),
    )


def _nest(inside: list[tuple[float, float, dict[str, Any]]]) -> list[CpuOp]:
    """CpuOps with parent and depth from time containment; ``inside`` is (start, duration, event), sorted."""
    ops: list[CpuOp] = []
    stack: list[int] = []  # indices into ops of the currently open ancestors
    for start, dur, e in inside:
        end = start + dur
        while stack:
            top = ops[stack[-1]]
            if start >= top.start_us - _EPS and end <= top.start_us + top.duration_us + _EPS:
                break
            stack.pop()
        ops.append(
            CpuOp(
                name=e.get("name", ""),
                category=e.get("cat", ""),
                start_us=_r(start),
                duration_us=_r(dur),
                depth=len(stack),
                parent=stack[-1] if stack else None,
            )
        )
        stack.append(len(ops) - 1)
    return ops


def parse_trace(trace: dict[str, Any], annotation: str) -> list[StepTrace]:
    """Split a trace into one :class:`StepTrace` per occurrence of a ``record_function`` annotation.

    Args:
        trace: The parsed Chrome trace (a dict with ``traceEvents``).
        annotation: Name of the ``user_annotation`` that wraps the profiled call (``"sdpa_flash_fwd"``).

    Returns:
        One step per occurrence, in time order, indexed from 0. For each: ``cpu_time_us`` is the annotation's
        duration; ``cpu_ops`` every CPU-thread event (ATen op, nested annotation, runtime or driver call) inside
        it on the same thread, with ``parent``/``depth`` from time containment; ``activities`` every kernel,
        memcpy and memset launched by a runtime or driver call inside it, sorted by start, with the launching
        call's name and timing; ``gpu_time_us`` the sum of their durations and ``gpu_span_us`` first start to
        last end (0 when there are none). Times are relative to the annotation's start.

    Raises:
        ValueError: if the trace has no ``user_annotation`` named ``annotation`` (the message lists those it has).
    """
    events = _events(trace)
    marks = sorted(
        (e for e in events if e.get("cat") == "user_annotation" and e.get("name") == annotation),
        key=lambda e: e["ts"],
    )
    if not marks:
        present = ", ".join(_annotation_names(events)) or "none"
        raise ValueError(f"no user_annotation named {annotation!r} in the trace; annotations present: {present}")

    by_thread: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e.get("cat") in CPU_CATEGORIES:
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    gpu_by_corr: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        corr = e.get("args", {}).get("correlation")
        if e.get("cat") in GPU_KINDS and corr is not None:
            gpu_by_corr[int(corr)].append(e)

    steps = []
    for index, mark in enumerate(marks):
        t0, span = mark["ts"], mark.get("dur", 0.0)
        # Relative times first: absolute timestamps (~1e12 us) carry only about a nanosecond of precision.
        inside = []
        for order, e in enumerate(by_thread[(mark.get("pid"), mark.get("tid"))]):
            start, dur = e["ts"] - t0, e.get("dur", 0.0)
            if e is not mark and start >= -_EPS and start + dur <= span + _EPS:
                inside.append((start, dur, order, e))
        inside.sort(key=lambda x: (x[0], -x[1], x[2]))
        cpu_ops = _nest([(s, d, e) for s, d, _, e in inside])

        activities, seen = [], set()
        for _, _, _, e in inside:
            corr = e.get("args", {}).get("correlation")
            if e.get("cat") not in LAUNCH_CATEGORIES or corr is None:
                continue
            for g in gpu_by_corr.get(int(corr), ()):
                if id(g) not in seen:
                    seen.add(id(g))
                    activities.append(_gpu_activity(g, t0, e))
        activities.sort(key=lambda a: (a.start_us, a.correlation or 0))

        gpu_time = sum(a.duration_us for a in activities)
        gpu_span = (
            max(a.start_us + a.duration_us for a in activities) - min(a.start_us for a in activities)
            if activities
            else 0.0
        )
        steps.append(
            StepTrace(
                index=index,
                cpu_time_us=_r(span),
                gpu_time_us=_r(gpu_time),
                gpu_span_us=_r(gpu_span),
                activities=activities,
                cpu_ops=cpu_ops,
            )
        )
    return steps


def device_properties(trace: dict[str, Any], device: int | None = None) -> dict[str, Any]:
    """The trace's ``deviceProperties`` entry (SM count, registers, shared memory, ...), or ``{}``.

    Args:
        trace: The parsed Chrome trace.
        device: Device id to pick; the first entry when ``None`` (or when no entry has that id).
    """
    props = trace.get("deviceProperties") or []
    if not props:
        return {}
    if device is not None:
        for p in props:
            if p.get("id") == device:
                return dict(p)
    return dict(props[0])


def trace_metadata(trace: dict[str, Any]) -> dict[str, Any]:
    """CUDA driver, runtime and CUPTI versions as the trace records them (``13000`` = 13.0), where present."""
    return {k: trace[k] for k in METADATA_KEYS if trace.get(k) is not None}


# --- aggregation ----------------------------------------------------------------------------------------------------


@dataclass
class KernelRow:
    """One line of the kernel table: every launch of one kernel (or memcpy/memset) name over the steps.

    Attributes:
        name: The activity name.
        kind: ``"kernel"``, ``"memcpy"`` or ``"memset"``.
        info: What the name decodes to (:func:`attnprof.kernels.decode`).
        count: Launches over all steps.
        per_step: ``count`` / number of steps.
        total_us: Summed duration over all steps.
        avg_us: ``total_us`` / ``count``.
        launch_api: The API call that launched it (``"cudaLaunchKernel"``), or ``"mixed: a, b"`` (most common
            first) when launches differ.
        grid: Grid of the launches (the most common one when they differ, see ``varying``).
        block: Block of the launches (likewise).
        registers_per_thread: Registers per thread (likewise).
        shared_memory: Shared memory per block in bytes (likewise).
        reported_occupancy: Median of Kineto's ``est. achieved occupancy %`` over the launches.
        theoretical: Theoretical occupancy of the (most common) configuration, or ``None`` for memcpy/memset,
            without device properties, or for a device the calculator does not know.
        varying: Names of the launch-configuration fields above that differ between launches.
    """

    name: str
    kind: str
    info: KernelInfo
    count: int
    per_step: float
    total_us: float
    avg_us: float
    launch_api: str | None
    grid: list[int] | None
    block: list[int] | None
    registers_per_thread: int | None
    shared_memory: int | None
    reported_occupancy: float | None
    theoretical: Occupancy | None
    varying: tuple[str, ...] = field(default_factory=tuple)


def _most_common(values: list[Any]) -> Any:
    """The most frequent value (the first seen among equals); ``None`` if there are none."""
    counts = Counter(repr(v) for v in values)
    if not counts:
        return None
    best = max(counts.values())
    return next(v for v in values if counts[repr(v)] == best)


def _launch_api(apis: list[str | None]) -> str | None:
    counts = Counter(a for a in apis if a)
    if not counts:
        return None
    if len(counts) == 1:
        return next(iter(counts))
    first = {a: i for i, a in reversed(list(enumerate(apis)))}
    ordered = sorted(counts, key=lambda a: (-counts[a], first[a]))
    return "mixed: " + ", ".join(ordered)


def _theoretical(row_kind: str, regs: int | None, block: list[int] | None, smem: int | None, props: dict) -> Any:
    if row_kind != "kernel" or not props or regs is None or not block or smem is None:
        return None
    threads = 1
    for d in block:
        threads *= d
    try:
        return occupancy.theoretical(regs, threads, smem, props)
    except ValueError:
        return None  # a device or configuration the calculator does not cover: show nothing rather than a guess


def kernel_table(steps: list[StepTrace], device_properties: dict[str, Any]) -> list[KernelRow]:
    """Aggregate the steps' GPU activities by name.

    Args:
        steps: The steps of one result (:func:`parse_trace`).
        device_properties: The trace's device properties (:func:`device_properties`), for theoretical
            occupancy; ``{}`` to leave it out.

    Returns:
        One :class:`KernelRow` per distinct activity name, in order of first appearance in step 0 (names that
        step 0 lacks follow, in order of first appearance in later steps).
    """
    groups: dict[str, list[GpuActivity]] = {}
    for step in steps:
        for a in step.activities:
            groups.setdefault(a.name, []).append(a)
    n_steps = len(steps) or 1
    rows = []
    config_fields = ("grid", "block", "registers_per_thread", "shared_memory")
    for name, acts in groups.items():
        kind = _most_common([a.kind for a in acts])
        config = {f: _most_common([getattr(a, f) for a in acts]) for f in config_fields}
        varying = tuple(f for f in config_fields if len({repr(getattr(a, f)) for a in acts}) > 1)
        occ = [a.reported_occupancy for a in acts if a.reported_occupancy is not None]
        total = sum(a.duration_us for a in acts)
        rows.append(
            KernelRow(
                name=name,
                kind=kind,
                info=kernels.decode(name),
                count=len(acts),
                per_step=len(acts) / n_steps,
                total_us=_r(total),
                avg_us=_r(total / len(acts)),
                launch_api=_launch_api([a.launch_api for a in acts]),
                reported_occupancy=statistics.median(occ) if occ else None,
                theoretical=_theoretical(
                    kind,
                    config["registers_per_thread"],
                    config["block"],
                    config["shared_memory"],
                    device_properties,
                ),
                varying=varying,
                **config,
            )
        )
    return rows


def op_counts(steps: list[StepTrace]) -> dict[str, float]:
    """Mean occurrences per step of each CPU event name (ATen ops, annotations, API calls), in order of first
    appearance; a name missing from a step counts 0 there."""
    if not steps:
        return {}
    totals: dict[str, int] = {}
    for step in steps:
        for name, n in step.op_counts().items():
            totals[name] = totals.get(name, 0) + n
    return {name: n / len(steps) for name, n in totals.items()}
