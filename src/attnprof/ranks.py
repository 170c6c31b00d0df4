"""Read the traces of a multi-GPU run: one Chrome trace per rank, each split into attention, communication and the
rest, and how much of the communication ran while the GPU computed.

A distributed run under ``torch.profiler`` writes one trace per process. Each carries ``distributedInfo`` (the
rank, the world size, the NCCL version) and, per NCCL kernel, what the collective moved (``Collective name``,
``In msg nelems``, ``Out msg nelems``, ``dtype``, ``Group size``). NCCL runs its kernels on a stream of its own, so
communication and computation can overlap in time; this module measures that overlap by intersecting the time
intervals of the two kinds of kernels.

:func:`read_rank` reads one rank's trace into a :class:`RankTrace`: for every occurrence of the annotation that
wraps the distributed call (one profiler step), a :class:`RankStep` with every kernel classified as

``attention``
    a fused attention kernel (decoded family ``flash``, ``mem_efficient`` or ``cudnn``): one per chunk of the
    ring;
``comm``
    an NCCL kernel (family ``nccl``);
``other``
    everything else: the copies, concatenations and float32 arithmetic that merge the chunks' partial results.

All times are microseconds, relative to the start of the step's annotation; ``start_us`` of a step is the
annotation's absolute timestamp, so the ranks of one host (one clock) can be drawn on one time axis. Traces are
read with :func:`attnprof.trace.parse_trace` (kernels launched from the annotated thread). No torch here.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import kernels, trace
from .inputs import element_bytes

#: Kernel families that are one attention chunk each.
ATTENTION_FAMILIES: tuple[str, ...] = ("flash", "mem_efficient", "cudnn")
#: The family of communication kernels (:mod:`attnprof.kernels`).
COMM_FAMILY = "nccl"
#: The classes of kernels a step is split into.
KINDS: tuple[str, ...] = ("attention", "comm", "other")

#: NCCL's spellings of element types (the ``dtype`` argument of its kernels) -> :mod:`attnprof.inputs` names.
_NCCL_DTYPES = {"BFloat16": "bfloat16", "Half": "float16", "Float": "float32", "Double": "float64"}


@dataclass
class RankKernel:
    """One kernel of one step on one rank.

    Attributes:
        kind: One of :data:`KINDS`.
        name: The kernel's name as the trace has it.
        short: Its decoded short name (:func:`attnprof.kernels.decode`).
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


# --- reading --------------------------------------------------------------------------------------------------------


def rank_info(tr: dict[str, Any]) -> tuple[int | None, int | None, str | None]:
    """``(rank, world_size, nccl_version)`` from the trace's ``distributedInfo`` (``None`` where absent)."""
    info = tr.get("distributedInfo") or {}
    rank, world = info.get("rank"), info.get("world_size")
    return (
        None if rank is None else int(rank),
        None if world is None else int(world),
        str(info["nccl_version"]) if info.get("nccl_version") else None,
    )


def kind_of(family: str) -> str:
    """The :data:`KINDS` entry of a decoded kernel family."""
    if family in ATTENTION_FAMILIES:
        return "attention"
    return "comm" if family == COMM_FAMILY else "other"


def _comm_bytes(args: dict[str, Any]) -> int | None:
    n, dtype = args.get("Out msg nelems"), _NCCL_DTYPES.get(str(args.get("dtype")))
    if n is None or dtype is None:
        return None
    return int(n) * element_bytes(dtype)


def read_rank(tr: dict[str, Any], annotation: str) -> RankTrace:
    """One rank's trace, split into steps and classified kernels (see the module docstring).

    Args:
        tr: The parsed Chrome trace of one rank.
        annotation: The ``record_function`` name around the distributed call (``"cp_allgather"``).

    Returns:
        The :class:`RankTrace`; memcpys and memsets are left out (the forward pass launches none).

    Raises:
        ValueError: if the trace has no such annotation (the message lists the annotations it has).
    """
    rank, world, nccl = rank_info(tr)
    steps = trace.parse_trace(tr, annotation)
    marks = sorted(
        (e["ts"] for e in tr.get("traceEvents", ()) if e.get("ph") == "X" and e.get("cat") == "user_annotation"
         and e.get("name") == annotation),
    )  # fmt: skip
    by_corr: dict[int, dict[str, Any]] = {}
    devices: set[int] = set()
    for e in tr.get("traceEvents", ()):
        if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") is not None:
            by_corr[int(e["args"]["correlation"])] = e["args"]
            if e["args"].get("device") is not None:
                devices.add(int(e["args"]["device"]))
    out = []
    for st, t0 in zip(steps, marks, strict=True):
        ks = []
        for a in st.kernels:
            info = kernels.decode(a.name)
            kind = kind_of(info.family)
            args = by_corr.get(a.correlation, {}) if a.correlation is not None else {}
            causal = info.fields.get("causal")
            ks.append(
                RankKernel(
                    kind=kind,
                    name=a.name,
                    short=info.short,
                    family=info.family,
                    stream=a.stream,
                    start_us=a.start_us,
                    duration_us=a.duration_us,
                    grid=a.grid,
                    causal=None if causal is None else causal == "true",
                    collective=args.get("Collective name") if kind == "comm" else None,
                    bytes=_comm_bytes(args) if kind == "comm" else None,
                )
            )
        out.append(RankStep(index=st.index, start_us=t0, cpu_us=st.cpu_time_us, kernels=ks))
    device = next(iter(sorted(devices)), None)
    props = trace.device_properties(tr, device)
    return RankTrace(rank, world, nccl, props.get("name"), annotation, out)


def chunk_rows(ranks: Sequence[RankTrace]) -> list[tuple[int | None, int, RankKernel]]:
    """``(rank, position, kernel)`` for every attention kernel of every rank's middle step: which kernel ran on
    which chunk of the ring, in the order it ran (position from 1)."""
    rows = []
    for r in ranks:
        st = r.middle()
        for i, k in enumerate(st.of("attention") if st else [], start=1):
            rows.append((r.rank, i, k))
    return rows
