"""The structure of a foreign trace (:class:`attnprof.records.foreign.ForeignTrace`): which CPU event runs inside
which, what each launch call started on the GPU, and the profiler steps with their GPU time, idle gaps and whether
the GPU waited for the CPU.

Nesting is time containment on one thread, as in :mod:`attnprof.records.trace`. A step is one ``ProfilerStep#N``
annotation (the whole trace when there is none); it owns the CPU events of its process that lie inside its window
(the backward's, on the autograd engine's thread, included) and the GPU work their launch calls started, wherever
and whenever that work ran.

No torch here.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from attnprof.records.foreign import CpuEvent, ForeignTrace

_STEP = re.compile(r"^ProfilerStep#(\d+)$")
_EPS = 1e-3  # timestamps carry nanoseconds; events that touch may overlap by a rounding step
#: The GPU waited for the CPU in a step where it was busy less than this share of the step ...
LAUNCH_BOUND_BUSY = 0.5
#: ... and where at least this share of its idle time came before kernels whose launch had not yet begun when the
#: GPU went idle.
LAUNCH_BOUND_WAIT = 0.5


def _r(x: float) -> float:
    return round(x, 3) + 0.0


@dataclass
class Step:
    """One profiler step.

    Attributes:
        index: 0, 1, ... in time order.
        name: ``ProfilerStep#N``, or ``""`` for the whole trace.
        start: Start, the trace's microseconds.
        end: End of the step's CPU window.
        gpu: Indexes into :attr:`ForeignTrace.gpu` of the GPU work its launches started, by start time.
        busy_us: The time the GPU was busy with that work (overlaps counted once).
        gpu_us: The work's summed durations.
        span_us: From the step's start to the later of its CPU end and its GPU work's end.
        gaps: Idle gaps between the step's GPU work, ``(start, length, waited)``: ``waited`` when the next work's
            launch call began only after the GPU had gone idle (the GPU waited for the CPU).
    """

    index: int
    name: str
    start: float
    end: float
    gpu: list[int] = field(default_factory=list)
    busy_us: float = 0.0
    gpu_us: float = 0.0
    span_us: float = 0.0
    gaps: list[tuple[float, float, bool]] = field(default_factory=list)

    @property
    def wall_us(self) -> float:
        """The step's CPU window, µs."""
        return _r(self.end - self.start)

    @property
    def busy_share(self) -> float | None:
        """GPU busy time over the step's span; ``None`` without GPU work."""
        return self.busy_us / self.span_us if self.gpu and self.span_us > 0 else None

    @property
    def idle_us(self) -> float:
        return sum(g[1] for g in self.gaps)

    @property
    def waiting_us(self) -> float:
        """Idle time before work whose launch began after the GPU went idle."""
        return sum(g[1] for g in self.gaps if g[2])

    @property
    def launch_bound(self) -> bool | None:
        """Whether the GPU waited for the CPU's launches more than it worked (see :data:`LAUNCH_BOUND_BUSY` and
        :data:`LAUNCH_BOUND_WAIT`); ``None`` without GPU work."""
        share = self.busy_share
        if share is None:
            return None
        idle = self.idle_us
        return share < LAUNCH_BOUND_BUSY and idle > 0 and self.waiting_us / idle >= LAUNCH_BOUND_WAIT


class Tree:
    """The nesting of a trace's CPU events and the links from launches to GPU work.

    Attributes:
        trace: The trace.
        order: ``(pid, tid) -> [index into trace.cpu]`` sorted by start (longer first among equal starts).
        pos: For each CPU event, its position in its thread's ``order``.
        stop: For each CPU event, the position in its thread's ``order`` just after its last descendant.
        parent: For each CPU event, the index of the innermost event containing it, or -1.
        gpu_of: correlation id -> indexes into ``trace.gpu`` (the chosen device's).
        launch_of: correlation id -> the launch call (runtime or driver) that carries it.
        steps: The profiler steps.
        main: The thread of the steps (or of the most events, without steps).
        devices: The GPUs the trace's GPU work ran on.
    """

    def __init__(self, trace: ForeignTrace, device: Any = None) -> None:
        self.trace = trace
        cpu = trace.cpu
        threads: dict[tuple[Any, Any], list[int]] = defaultdict(list)
        for i, e in enumerate(cpu):
            threads[(e.pid, e.tid)].append(i)
        n = len(cpu)
        self.pos, self.stop, self.parent = [0] * n, [0] * n, [-1] * n
        self.order: dict[tuple[Any, Any], list[int]] = {}
        for key, idx in threads.items():
            idx.sort(key=lambda i: (cpu[i].ts, -cpu[i].dur, i))
            self.order[key] = idx
            self._nest(idx)
        self.devices = sorted({g.device for g in trace.gpu}, key=str)
        self.device = device
        self.gpu_of: dict[int, list[int]] = defaultdict(list)
        for j, g in enumerate(trace.gpu):
            if g.correlation is not None and (device is None or g.device == device):
                self.gpu_of[g.correlation].append(j)
        self.main, self.steps = self._steps()
        self._assign()

    def _nest(self, idx: list[int]) -> None:
        cpu, pos, stop, parent = self.trace.cpu, self.pos, self.stop, self.parent
        stack: list[int] = []
        for p, i in enumerate(idx):
            e = cpu[i]
            while stack:
                top = cpu[stack[-1]]
                if e.ts + e.dur <= top.ts + top.dur + _EPS and e.ts >= top.ts - _EPS:
                    break
                stop[stack.pop()] = p
            parent[i] = stack[-1] if stack else -1
            pos[i] = p
            stack.append(i)
        for i in stack:
            stop[i] = len(idx)

    # --- walking the tree ---

    def thread(self, i: int) -> list[int]:
        """The ordered events of the thread of event ``i``."""
        e = self.trace.cpu[i]
        return self.order[(e.pid, e.tid)]

    def descendants(self, i: int) -> list[int]:
        """The events inside event ``i``, in order."""
        return self.thread(i)[self.pos[i] + 1 : self.stop[i]]

    def next_sibling(self, i: int) -> int | None:
        """The event after ``i`` with the same parent, or ``None``."""
        order = self.thread(i)
        p = self.stop[i]
        return order[p] if p < len(order) and self.parent[order[p]] == self.parent[i] else None

    def ancestors(self, i: int) -> list[int]:
        """From the parent of ``i`` up to the thread's outermost event."""
        out, p = [], self.parent[i]
        while p >= 0:
            out.append(p)
            p = self.parent[p]
        return out

    def launched(self, events: list[int]) -> list[int]:
        """The GPU work (indexes into ``trace.gpu``) the launch calls among ``events`` started, in start order."""
        cpu, out = self.trace.cpu, []
        for i in events:
            e = cpu[i]
            if e.correlation is not None and (e.kind == "runtime" or e.kind == "driver"):
                out.extend(self.gpu_of.get(e.correlation, ()))
        return sorted(set(out), key=lambda j: (self.trace.gpu[j].ts, j))

    def under(self, roots: list[int]) -> list[int]:
        """``roots`` and every event inside them, in order."""
        out: list[int] = []
        for r in roots:
            out.append(r)
            out.extend(self.descendants(r))
        return out

    # --- steps ---

    def _steps(self) -> tuple[tuple[Any, Any] | None, list[Step]]:
        cpu = self.trace.cpu
        marks = sorted((i for i, e in enumerate(cpu) if e.kind in ("annotation", "op") and _STEP.match(e.name)),
                       key=lambda i: cpu[i].ts)  # fmt: skip
        if marks:
            main = (cpu[marks[0]].pid, cpu[marks[0]].tid)
            marks = [i for i in marks if (cpu[i].pid, cpu[i].tid) == main]
            return main, [Step(k, cpu[i].name, cpu[i].ts, cpu[i].ts + cpu[i].dur) for k, i in enumerate(marks)]
        if not cpu and not self.trace.gpu:
            return None, []
        main = max(self.order, key=lambda t: len(self.order[t])) if self.order else None
        times = [(e.ts, e.ts + e.dur) for e in cpu] or [(g.ts, g.ts + g.dur) for g in self.trace.gpu]
        return main, [Step(0, "", min(t[0] for t in times), max(t[1] for t in times))]

    def step_of(self, ts: float) -> int | None:
        """The index of the step whose window holds ``ts``, or ``None``."""
        k = bisect.bisect_right(self._starts, ts + _EPS) - 1
        return k if k >= 0 and ts <= self.steps[k].end + _EPS else None

    def _assign(self) -> None:
        trace, steps = self.trace, self.steps
        self._starts = [s.start for s in steps]
        pid = self.main[0] if self.main else None
        owner: dict[int, int] = {}
        for e in trace.cpu:
            if e.correlation is not None and (e.kind == "runtime" or e.kind == "driver") and e.pid == pid:
                k = self.step_of(e.ts)
                if k is not None:
                    for j in self.gpu_of.get(e.correlation, ()):
                        owner.setdefault(j, k)
        for j, g in enumerate(trace.gpu):  # work no launch of the process accounts for: by its own start
            if j not in owner and (self.device is None or g.device == self.device):
                k = self.step_of(g.ts)
                if k is not None:
                    owner[j] = k
        for j, k in sorted(owner.items(), key=lambda jk: (trace.gpu[jk[0]].ts, jk[0])):
            steps[k].gpu.append(j)
        self.launch_of: dict[int, CpuEvent] = {}
        for e in trace.cpu:
            if e.correlation is not None and (e.kind == "runtime" or e.kind == "driver"):
                self.launch_of.setdefault(e.correlation, e)
        for s in steps:
            _gpu_time(s, trace, self.launch_of)


def _gpu_time(s: Step, trace: ForeignTrace, launch_of: dict[int, CpuEvent]) -> None:
    """Busy time, summed time, span and idle gaps of one step's GPU work."""
    gpu = trace.gpu
    s.gpu_us = _r(sum(gpu[j].dur for j in s.gpu))
    if not s.gpu:
        s.span_us = s.wall_us
        return
    busy, gaps = 0.0, []
    cur_start, cur_end = gpu[s.gpu[0]].ts, gpu[s.gpu[0]].ts + gpu[s.gpu[0]].dur
    for j in s.gpu[1:]:
        g = gpu[j]
        if g.ts > cur_end + _EPS:
            busy += cur_end - cur_start
            launch = launch_of.get(g.correlation) if g.correlation is not None else None
            waited = launch is not None and launch.ts >= cur_end - _EPS
            gaps.append((_r(cur_end - s.start), _r(g.ts - cur_end), waited))
            cur_start, cur_end = g.ts, g.ts + g.dur
        else:
            cur_end = max(cur_end, g.ts + g.dur)
    busy += cur_end - cur_start
    last = max(gpu[j].ts + gpu[j].dur for j in s.gpu)
    s.busy_us, s.gaps = _r(busy), gaps
    s.span_us = _r(max(s.end, last) - min(s.start, gpu[s.gpu[0]].ts))
