"""Read a PyTorch profiler (Chrome/Kineto) trace into :class:`~attnprof.records.results.StepTrace` objects.

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

The backward of a training step runs elsewhere. On CUDA, ``out.backward()`` hands the work to the autograd engine's
thread (``thread_name`` metadata ``thread <tid> (pt_autograd_0)``) and waits: inside the annotation the annotating
thread records nothing, and the backward's ops and launch calls (whose ``correlation`` ids link to the backward
kernels) sit on the engine's thread, inside the annotation's time window. So a step also takes the CPU events of
the same process's autograd threads inside its window, nested per thread (:attr:`CpuOp.thread` names the thread).
Autograd threads are those named ``pt_autograd_*``; a trace without such names (older PyTorch) falls back to the
threads that run ``autograd::engine::evaluate_function`` ops. Other threads (a communication library's, say) are
not part of the step. Calls the trace names ``INVALID`` (CUPTI could not name the callback) are kept as they are.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attnprof.records import files, schema
from attnprof.records.results import CpuOp, GpuActivity, StepTrace

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
#: What names an autograd engine thread (``thread_name`` metadata), and the op that gives one away without it.
AUTOGRAD_THREAD = re.compile(r"\((pt_autograd_\d+)\)|^(pt_autograd_\d+)$")
AUTOGRAD_OP = "autograd::engine::evaluate_function"


def _r(x: float) -> float:
    """Round to the nanosecond, so that the same trace always gives the same numbers."""
    return round(x, 3) + 0.0


def read_trace(path: str | Path) -> dict[str, Any]:
    """Load a Chrome trace from ``.json`` or ``.json.gz``.

    Raises:
        FileNotFoundError: if there is no such file.
        attnprof.records.files.UnreadableFile: for a truncated or corrupt gzip file, a file that is not JSON, or JSON
        that
            is not a trace (an object with ``traceEvents``).
    """
    path = Path(path)
    data = files.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise files.UnreadableFile(f"{path.name} is not a Chrome trace (no traceEvents list)", path)
    found = schema.event_problem(data["traceEvents"])
    if found is not None:
        raise files.UnreadableFile(f"{path.name}: {found}", path)
    return data


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


def _nest(inside: list[tuple[float, float, dict[str, Any]]], thread: str = "", offset: int = 0) -> list[CpuOp]:
    """CpuOps with parent and depth from time containment; ``inside`` is (start, duration, event), sorted, all of
    one thread. ``offset`` is where the returned ops will start in the step's list (their ``parent`` indexes)."""
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
                parent=stack[-1] + offset if stack else None,
                thread=thread,
            )
        )
        stack.append(len(ops) - 1)
    return ops


def autograd_threads(trace: dict[str, Any]) -> dict[tuple[Any, Any], str]:
    """``{(pid, tid): "pt_autograd_0"}``: the autograd engine threads of a trace (see the module docstring)."""
    found: dict[tuple[Any, Any], str] = {}
    for e in trace.get("traceEvents", ()):
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            m = AUTOGRAD_THREAD.search(str(e.get("args", {}).get("name", "")))
            if m:
                found[(e.get("pid"), e.get("tid"))] = m.group(1) or m.group(2)
    if not found:
        for e in _events(trace):
            if e.get("cat") == "cpu_op" and str(e.get("name", "")).startswith(AUTOGRAD_OP):
                found.setdefault((e.get("pid"), e.get("tid")), f"thread {e.get('tid')}")
    return found


def _inside(events: list[dict[str, Any]], t0: float, span: float, mark: dict[str, Any]) -> list[tuple]:
    """``(start, duration, order, event)`` of the events wholly inside ``[t0, t0 + span]``, sorted for nesting."""
    # Relative times first: absolute timestamps (~1e12 us) carry only about a nanosecond of precision.
    inside = []
    for order, e in enumerate(events):
        start, dur = e["ts"] - t0, e.get("dur", 0.0)
        if e is not mark and start >= -_EPS and start + dur <= span + _EPS:
            inside.append((start, dur, order, e))
    inside.sort(key=lambda x: (x[0], -x[1], x[2]))
    return inside


def parse_trace(trace: dict[str, Any], annotation: str) -> list[StepTrace]:
    """Split a trace into one :class:`StepTrace` per occurrence of a ``record_function`` annotation.

    Args:
        trace: The parsed Chrome trace (a dict with ``traceEvents``).
        annotation: Name of the ``user_annotation`` that wraps the profiled call (``"sdpa_flash_fwd"``).

    Returns:
        One step per occurrence, in time order, indexed from 0. For each: ``cpu_time_us`` is the annotation's
        duration; ``cpu_ops`` every CPU-thread event (ATen op, nested annotation, runtime or driver call) inside
        it on the same thread, with ``parent``/``depth`` from time containment, followed by those of the
        process's autograd threads inside its time window (nested per thread); ``activities`` every kernel,
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

    engines = autograd_threads(trace)
    steps = []
    for index, mark in enumerate(marks):
        t0, span = mark["ts"], mark.get("dur", 0.0)
        key = (mark.get("pid"), mark.get("tid"))
        inside = _inside(by_thread[key], t0, span, mark)
        cpu_ops = _nest([(s, d, e) for s, d, _, e in inside])
        for thread, name in sorted(engines.items(), key=lambda kv: kv[1]):
            if thread[0] != key[0] or thread == key:
                continue
            theirs = _inside(by_thread[thread], t0, span, mark)
            cpu_ops += _nest([(s, d, e) for s, d, _, e in theirs], name, len(cpu_ops))
            inside += theirs

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


@dataclass(frozen=True)
class LaunchCall:
    """A runtime or driver call of a step, with the correlation id it shares with the GPU work it launched.

    Attributes:
        start_us: Start, relative to the step's annotation.
        duration_us: Duration.
        name: The call (``cudaLaunchKernel``, ``cuLaunchKernelEx``, ``cudaStreamIsCapturing``, ...).
        category: ``cuda_runtime`` or ``cuda_driver``; ``None`` for a call known only from the activity it
            launched (the step's CPU events do not hold it).
        correlation: The correlation id of the activity it launched, or ``None`` for a call that launched nothing.
    """

    start_us: float
    duration_us: float
    name: str
    category: str | None
    correlation: int | None


def launch_calls(step: StepTrace) -> list[LaunchCall]:
    """The runtime and driver calls of ``step``, sorted by start, each linked to what it launched.

    A call is matched to its GPU activities by its start time: an activity keeps its launching call's start
    (:attr:`~attnprof.records.results.GpuActivity.launch_start_us`) and the correlation id they share. Calls that only
    the activities record are added, named by their launch API.
    """
    correlation = {_r(a.launch_start_us): a.correlation for a in step.activities if a.launch_start_us is not None}
    calls = [
        LaunchCall(op.start_us, op.duration_us, op.name, op.category, correlation.get(_r(op.start_us)))
        for op in step.cpu_ops
        if op.category in LAUNCH_CATEGORIES
    ]
    seen = {_r(c.start_us) for c in calls}
    for a in step.activities:
        if a.launch_start_us is not None and _r(a.launch_start_us) not in seen:
            seen.add(_r(a.launch_start_us))
            calls.append(
                LaunchCall(a.launch_start_us, a.launch_duration_us or 0.0, a.launch_api or "launch", None,
                           a.correlation)
            )  # fmt: skip
    return sorted(calls, key=lambda c: c.start_us)


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
