"""What one rank's trace of a multi-GPU run shows, as the context-parallel run file stores it: every kernel of every
step classified as attention, communication or other, and the interval arithmetic that measures their overlap.

:func:`attnprof.analysis.rank_traces.read_rank` fills these from a trace; :mod:`attnprof.records.parallel` stores
and reads them back. All times are microseconds, relative to the start of the step's annotation.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: The classes of kernels a step is split into.
KINDS: tuple[str, ...] = ("attention", "comm", "other")


@dataclass
class RankKernel:
    """One kernel of one step on one rank.

    Attributes:
        kind: One of :data:`KINDS`.
        name: The kernel's name as the trace has it.
        short: Its decoded short name (:func:`attnprof.analysis.kernels.decode`).
        family: Its decoded family.
        stream: The CUDA stream it ran on.
        start_us: Start, relative to the step's annotation.
        duration_us: Duration.
        grid: Grid of the launch.
        causal: For attention kernels whose name says so (flash): whether the kernel applies the causal mask.
        collective: For NCCL kernels: the collective PyTorch asked for (``allgather_into_tensor_coalesced``, ...).
        bytes: For NCCL kernels: bytes of the collective's output (``Out msg nelems`` times the element size).
    """

    kind: str
    name: str
    short: str
    family: str
    stream: int | None
    start_us: float
    duration_us: float
    grid: list[int] | None = None
    causal: bool | None = None
    collective: str | None = None
    bytes: int | None = None

    @property
    def end_us(self) -> float:
        return self.start_us + self.duration_us


@dataclass
class RankStep:
    """One profiler step on one rank, split by kind of kernel.

    Attributes:
        index: Step number (0 for the first active step).
        start_us: Absolute timestamp of the step's annotation (µs, the trace's clock).
        cpu_us: Length of the annotation on the CPU: the time to issue the distributed call.
        kernels: Every kernel launched inside the annotation, by start.
    """

    index: int
    start_us: float
    cpu_us: float
    kernels: list[RankKernel] = field(default_factory=list)

    def of(self, kind: str) -> list[RankKernel]:
        """The kernels of one of :data:`KINDS`."""
        return [k for k in self.kernels if k.kind == kind]

    @property
    def first_us(self) -> float:
        """Start of the first kernel (0 without kernels)."""
        return min((k.start_us for k in self.kernels), default=0.0)

    @property
    def span_us(self) -> float:
        """First kernel start to last kernel end: the step as the GPU saw it."""
        return max((k.end_us for k in self.kernels), default=0.0) - self.first_us

    def busy_us(self, kinds: Iterable[str] = KINDS) -> float:
        """Time during which at least one kernel of ``kinds`` ran (overlaps counted once)."""
        wanted = set(kinds)
        return union_length([(k.start_us, k.end_us) for k in self.kernels if k.kind in wanted])

    @property
    def attention_us(self) -> float:
        return self.busy_us(["attention"])

    @property
    def comm_us(self) -> float:
        return self.busy_us(["comm"])

    @property
    def other_us(self) -> float:
        return self.busy_us(["other"])

    @property
    def overlap_us(self) -> float:
        """Time during which communication and computation (attention or other) ran at once."""
        comm = [(k.start_us, k.end_us) for k in self.of("comm")]
        compute = [(k.start_us, k.end_us) for k in self.kernels if k.kind != "comm"]
        return intersection_length(comm, compute)

    @property
    def idle_us(self) -> float:
        """Time within the span when no kernel ran (the GPU waited: for the CPU, or for the other rank)."""
        return self.span_us - self.busy_us()

    @property
    def comm_share(self) -> float | None:
        """Communication time over the span (``None`` without kernels)."""
        return self.comm_us / self.span_us if self.span_us > 0 else None

    @property
    def overlap_fraction(self) -> float | None:
        """Share of the communication time that overlapped computation (``None`` without communication)."""
        return self.overlap_us / self.comm_us if self.comm_us > 0 else None


def _median(values: Iterable[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


@dataclass
class RankTrace:
    """What one rank's trace shows: who it is, and its steps.

    Attributes:
        rank: The rank (``distributedInfo``).
        world_size: Number of ranks.
        nccl_version: NCCL's version, when the trace records it.
        device_name: The name of the rank's GPU, from ``deviceProperties``.
        annotation: The annotation that wraps the distributed call.
        steps: One per occurrence of the annotation, in time order.
    """

    rank: int | None
    world_size: int | None
    nccl_version: str | None
    device_name: str | None
    annotation: str
    steps: list[RankStep] = field(default_factory=list)

    def median(self, what: str) -> float | None:
        """The median over the steps of one of a step's figures (``"attention_us"``, ``"comm_share"``, ...)."""
        return _median(getattr(s, what) for s in self.steps)

    def middle(self) -> RankStep | None:
        """The middle step (the one the pictures draw)."""
        return self.steps[len(self.steps) // 2] if self.steps else None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RankTrace:
        d = dict(data)
        d["steps"] = [
            RankStep(**{**s, "kernels": [RankKernel(**k) for k in s.get("kernels", [])]}) for s in d.get("steps", [])
        ]
        return cls(**d)


# --- intervals ------------------------------------------------------------------------------------------------------


def merged(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """``(start, end)`` intervals merged where they touch or overlap, sorted."""
    out: list[list[float]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Total length covered by the intervals (overlaps counted once)."""
    return sum(e - s for s, e in merged(intervals))


def intersection_length(a: Iterable[tuple[float, float]], b: Iterable[tuple[float, float]]) -> float:
    """Total length covered by both ``a`` and ``b``."""
    ma, mb = merged(a), merged(b)
    i = j = 0
    total = 0.0
    while i < len(ma) and j < len(mb):
        lo, hi = max(ma[i][0], mb[j][0]), min(ma[i][1], mb[j][1])
        total += max(0.0, hi - lo)
        if ma[i][1] < mb[j][1]:
            i += 1
        else:
            j += 1
    return total
