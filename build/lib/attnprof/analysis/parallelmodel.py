"""Beyond the GPUs of this build, on paper: a model of one context-parallel step on more GPUs and more nodes.

The model takes three figures this build measured and nothing else measured:

* the one-GPU time ``t1`` of causal attention over the whole sequence (its compute rate);
* the bus bandwidth of NCCL's all-gather between the GPUs of this host (``busbw``);
* the share ``f`` of the communication that overlapped computation in the measured two-GPU run.

and states the rest as assumptions (:class:`Basis` holds them, the page prints them):

* compute divides evenly: each of ``N`` GPUs computes ``t1 / N`` (the load balancer evens the causal mask; the rate
  of the smaller chunks is assumed to stay that of the whole sequence);
* the all-gather rotation moves, to every GPU, the keys and values of the other ``N - 1``: ``(N - 1) / N`` of their
  bytes at bus bandwidth, so communication takes ``(N - 1) / N * kv_bytes / bandwidth``;
* within one node (:data:`GPUS_PER_NODE` GPUs, all joined by NVLink through NVSwitch) the bus bandwidth stays the
  one measured here between two GPUs; across nodes the ring is as fast as its slowest link, one network link per GPU
  of :data:`INTER_NODE_GBS` (an assumption: this build has one node and cannot measure a network);
* communication overlaps computation as much as it did here (``f``), and never more than the computation lasts:
  the exposed part is ``max((1 - f) * comm, comm - compute)``;
* the merging of partial results (the copies and float32 arithmetic beside the attention kernels) is left out.

Step time: ``t1 / N + exposed``; speed-up ``t1`` over it, efficiency the speed-up over ``N``. The model's value at
the measured number of GPUs stands beside the measured step time on the page, so the reader sees how far off it is
where it can be checked. Communication per GPU barely shrinks with ``N`` while computation falls as ``1 / N``: the
model's point is where the two cross.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from attnprof.inputs import causal_flops, element_bytes
from attnprof.records.parallel import ParallelCase, ParallelRun

#: GPUs per node of the model (an HGX/DGX-style node: eight GPUs on NVSwitch).
GPUS_PER_NODE = 8
#: Assumed network bandwidth per GPU between nodes, GB/s: one 400 Gb/s InfiniBand NDR link per GPU.
INTER_NODE_GBS = 50.0
#: The numbers of GPUs the model's table shows.
GPU_COUNTS: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
#: The collective whose bandwidth the model uses (the all-gather rotation).
COLLECTIVE = "all_gather_into_tensor"


@dataclass(frozen=True)
class Basis:
    """What the model is computed from: the measured figures, then the assumed ones.

    Attributes:
        seq: Sequence length of the measured case the model starts from.
        method: Its rotation method.
        backend: Its SDPA backend.
        world: GPUs of the measured run.
        single_ms: One-GPU time of the whole sequence, ms.
        tflops: The compute rate that gives: causal FLOPs over ``single_ms``, TFLOP/s.
        kv_bytes: Bytes of the keys and values of the whole sequence.
        busbw_gbs: Measured NCCL all-gather bus bandwidth within this host, GB/s.
        overlap: Measured share of the communication that overlapped computation (the worst rank).
        measured_step_ms: The measured step time at ``world`` GPUs, ms.
        gpus_per_node: Assumed GPUs per node.
        inter_node_gbs: Assumed network bandwidth per GPU between nodes, GB/s.
    """

    seq: int
    method: str
    backend: str
    world: int
    single_ms: float
    tflops: float
    kv_bytes: int
    busbw_gbs: float
    overlap: float
    measured_step_ms: float
    gpus_per_node: int = GPUS_PER_NODE
    inter_node_gbs: float = INTER_NODE_GBS


@dataclass(frozen=True)
class Row:
    """The model at one number of GPUs (times in ms, bandwidth in GB/s)."""

    gpus: int
    nodes: int
    bandwidth_gbs: float
    compute_ms: float
    comm_ms: float
    exposed_ms: float
    step_ms: float

    @property
    def speedup(self) -> float:
        """One-GPU time over the step time (the one-GPU time is ``compute_ms * gpus``)."""
        return self.compute_ms * self.gpus / self.step_ms

    @property
    def efficiency(self) -> float:
        return self.speedup / self.gpus

    @property
    def comm_bound(self) -> bool:
        """Communication takes longer than computation: more GPUs no longer help much."""
        return self.comm_ms > self.compute_ms


def _start_case(run: ParallelRun) -> ParallelCase | None:
    """The case the model starts from: the longest sequence that ran with the all-gather rotation, every rank's
    trace read (the other method's when no all-gather case ran)."""
    usable = [c for c in run.ran() if c.single_ms and c.step_ms and c.overlap is not None]
    preferred = [c for c in usable if c.method == "allgather"] or usable
    return max(preferred, key=lambda c: c.seq, default=None)


def basis(run: ParallelRun) -> Basis | None:
    """The model's basis from a run, or ``None`` when the run measured too little (no case, no bandwidth)."""
    case = _start_case(run)
    coll = run.collective(COLLECTIVE)
    if case is None or coll is None or coll.busbw_gbs <= 0:
        return None
    cfg = run.config
    shape = cfg.shape(case.seq)
    kv = 2 * math.prod(shape) * element_bytes(cfg.dtype)
    return Basis(
        seq=case.seq,
        method=case.method,
        backend=case.backend,
        world=len(case.ranks),
        single_ms=case.single_ms,  # type: ignore[arg-type]
        tflops=causal_flops(shape) / (case.single_ms * 1e-3) / 1e12,  # type: ignore[operator]
        kv_bytes=kv,
        busbw_gbs=coll.busbw_gbs,
        overlap=case.overlap,  # type: ignore[arg-type]
        measured_step_ms=case.step_ms,  # type: ignore[arg-type]
    )


def predict(b: Basis, gpus: int) -> Row:
    """The model at ``gpus`` GPUs (see the module docstring).

    Raises:
        ValueError: for fewer than 2 GPUs.
    """
    if gpus < 2:
        raise ValueError(f"bad number of GPUs {gpus!r}; the model starts at 2")
    nodes = math.ceil(gpus / b.gpus_per_node)
    bandwidth = b.busbw_gbs if nodes == 1 else min(b.busbw_gbs, b.inter_node_gbs)
    compute = b.single_ms / gpus
    comm = (gpus - 1) / gpus * b.kv_bytes / (bandwidth * 1e9) * 1e3
    exposed = max((1 - b.overlap) * comm, comm - compute)
    return Row(gpus, nodes, bandwidth, compute, comm, exposed, compute + exposed)


def rows(b: Basis, gpus: Sequence[int] = GPU_COUNTS) -> list[Row]:
    """:func:`predict` at each of ``gpus``."""
    return [predict(b, n) for n in gpus]


def crossover(b: Basis) -> int | None:
    """The fewest GPUs (up to 4096) at which communication takes longer than computation, or ``None``."""
    n = 2
    while n <= 4096:
        if predict(b, n).comm_bound:
            return n
        n += 1
    return None
