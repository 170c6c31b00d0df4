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
read with :func:`attnprof.records.trace.parse_trace` (kernels launched from the annotated thread). No torch here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attnprof.analysis import kernels
from attnprof.inputs import element_bytes
from attnprof.records import trace
from attnprof.records.rank_trace import (
    KINDS,
    RankKernel,
    RankStep,
    RankTrace,
    intersection_length,
    merged,
    union_length,
)

__all__ = [
    "KINDS",
    "RankKernel",
    "RankStep",
    "RankTrace",
    "intersection_length",
    "merged",
    "read_rank",
    "union_length",
]

#: Kernel families that are one attention chunk each.
ATTENTION_FAMILIES: tuple[str, ...] = ("flash", "mem_efficient", "cudnn")
#: The family of communication kernels (:mod:`attnprof.analysis.kernels`).
COMM_FAMILY = "nccl"
#: NCCL's spellings of element types (the ``dtype`` argument of its kernels) -> :mod:`attnprof.inputs` names.
_NCCL_DTYPES = {"BFloat16": "bfloat16", "Half": "float16", "Float": "float32", "Double": "float64"}


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
