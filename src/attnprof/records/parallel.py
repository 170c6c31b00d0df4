"""Context parallelism across the GPUs of one host: the data of a run, its file format, and what it says.

:mod:`attnprof.measure.parallelrun` runs causal attention with PyTorch's context parallelism (``context_parallel``
from ``torch.distributed.tensor.experimental``) on every GPU of the machine, one process per GPU, for each rotation
method and sequence length of a :class:`ParallelConfig`, and the same attention on one GPU as the yardstick. This
module holds what it measured and reads it; it imports no torch, so the Sphinx extension can use it.

A :class:`ParallelRun` is one versioned JSON file, ``parallel__<device>.json`` (:data:`SCHEMA_VERSION`), with one
gzipped Chrome trace per rank and case beside it. Statuses: those of a result (``ok``, ``unsupported`` with
PyTorch's reason, ``no_cuda``, ``oom``, ``error``), ``too_few_gpus`` (a run that needs two GPUs found fewer) and
``skipped`` (a case not reached within the time budget).

What a case says (:class:`ParallelCase`): the step time of the distributed call is its slowest rank's; the
speed-up is the one-GPU time over it and the scaling efficiency the speed-up over the number of GPUs; the load
balance is the least attention time of a rank over the most.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from attnprof.records import kinds, results
from attnprof.records.rank_trace import RankTrace
from attnprof.records.results import Environment

SCHEMA_VERSION = 1

#: Statuses a run or a case can carry.
STATUSES = (*results.STATUSES, "too_few_gpus", "skipped")
#: The rotation methods PyTorch offers (``set_rotate_method``).
METHODS: tuple[str, ...] = ("allgather", "alltoall")
#: The SDPA backends a case can force (``auto``: SDPA's own choice), and their ``SDPBackend`` names.
BACKENDS: dict[str, str | None] = {
    "flash": "FLASH_ATTENTION",
    "efficient": "EFFICIENT_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
    "math": "MATH",
    "auto": None,
}
#: The command that runs the gallery script on every GPU of a machine, one process per GPU.
TORCHRUN_COMMAND = "torchrun --standalone --nproc-per-node=2 examples/14-context-parallel.py"
#: The same, with the script spawning its ranks itself.
PLAIN_COMMAND = "python examples/14-context-parallel.py"


@dataclass(frozen=True)
class ParallelConfig:
    """What a context-parallel run measures (validated by :func:`attnprof.measure.parallelrun.make_config`).

    Attributes:
        seqs: Sequence lengths, ascending.
        methods: Rotation methods, from :data:`METHODS`.
        backends: SDPA backends, keys of :data:`BACKENDS`.
        world: Number of ranks (GPUs); ``None``: every GPU of the machine.
        batch: Batch size.
        heads: Number of heads.
        head_dim: Head dimension.
        dtype: Canonical dtype name.
        causal: Causal attention.
        load_balance: PyTorch's head-tail load balancer (``_cp_options.enable_load_balance``).
        device: ``"cuda"``, or ``"cpu"`` (ranks joined by gloo: PyTorch refuses context parallelism there, which the
            tests use to check the failure path).
        warmup: Untimed calls before timing.
        reps: Timed calls per case (every rank makes the same calls).
        bandwidth_bytes: Output size of the NCCL collectives timed for the bandwidth, bytes.
        budget_s: Cases not started within this many seconds of the ranks' start are ``skipped``.
        seed: Seed of the random inputs.
    """

    seqs: tuple[int, ...]
    methods: tuple[str, ...] = METHODS
    backends: tuple[str, ...] = ("flash",)
    world: int | None = None
    batch: int = 2
    heads: int = 16
    head_dim: int = 64
    dtype: str = "bfloat16"
    causal: bool = True
    load_balance: bool = True
    device: str = "cuda"
    warmup: int = 2
    reps: int = 5
    bandwidth_bytes: int = 256 * 2**20
    budget_s: float = 60.0
    seed: int = 0

    def shape(self, seq: int) -> tuple[int, int, int, int]:
        """``[batch, heads, seq, head_dim]``."""
        return (self.batch, self.heads, seq, self.head_dim)


@dataclass
class Collective:
    """One NCCL collective timed alone on every rank (rank 0's figures).

    Attributes:
        op: ``all_gather_into_tensor`` or ``all_to_all_single``.
        bytes: Bytes of the output tensor.
        ms: Median time of one call (CUDA events), ms.
        algbw_gbs: ``bytes`` over the time, GB/s.
        busbw_gbs: NCCL's bus bandwidth: the algorithm bandwidth times ``(world - 1) / world``, GB/s, comparable
            across numbers of GPUs.
        repetitions: Timed calls.
    """

    op: str
    bytes: int
    ms: float
    algbw_gbs: float
    busbw_gbs: float
    repetitions: int


@dataclass
class RankRun:
    """One rank of one case.

    Attributes:
        rank: The rank.
        step_ms: Median time of one distributed call (CUDA events, the ranks released together by a barrier).
        step_ms_p10: 10th percentile.
        step_ms_p90: 90th percentile.
        dispatch_ms: Median CPU time to issue one distributed call.
        peak_extra_bytes: Peak device memory of one call above what was allocated before it.
        local_seq: Sequence length of this rank's shard.
        single_ms: Median time of the same attention on this rank's GPU alone, whole sequence.
        trace_file: The rank's gzipped Chrome trace, beside the run's file.
        trace: What the trace shows (:func:`attnprof.analysis.rank_traces.read_rank`).
        sdpa_restored: True when ``context_parallel`` had left its ring attention in place of
            ``scaled_dot_product_attention`` after the case (its body raised) and the runner put the original back.
    """

    rank: int
    step_ms: float | None = None
    step_ms_p10: float | None = None
    step_ms_p90: float | None = None
    dispatch_ms: float | None = None
    peak_extra_bytes: int | None = None
    local_seq: int | None = None
    single_ms: float | None = None
    trace_file: str | None = None
    trace: RankTrace | None = None
    sdpa_restored: bool = False


@dataclass
class ParallelCase:
    """One backend, rotation method and sequence length, on every rank.

    Attributes:
        backend: A key of :data:`BACKENDS`.
        method: A rotation method.
        seq: Sequence length (whole sequence).
        status: One of :data:`STATUSES`.
        reason: Why it did not run, in PyTorch's words where PyTorch gave any.
        single_ms: One-GPU time of the whole sequence: the median over the ranks of each rank's median.
        single_peak_extra_bytes: Peak extra memory of the one-GPU call.
        rel_error: ``||out - ref|| / ||ref||`` of the gathered output against the one-GPU output.
        ranks: One per rank.
        wall_s: Wall time spent on the case (rank 0).
    """

    backend: str
    method: str
    seq: int
    status: str
    reason: str | None = None
    single_ms: float | None = None
    single_peak_extra_bytes: int | None = None
    rel_error: float | None = None
    ranks: list[RankRun] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def step_ms(self) -> float | None:
        """Time of one distributed call: its slowest rank's median."""
        times = [r.step_ms for r in self.ranks if r.step_ms is not None]
        return max(times) if times and len(times) == len(self.ranks) else None

    @property
    def speedup(self) -> float | None:
        """One-GPU time over the distributed step time."""
        step = self.step_ms
        return self.single_ms / step if step and self.single_ms else None

    @property
    def efficiency(self) -> float | None:
        """Speed-up over the number of GPUs (1 would be perfect scaling)."""
        s = self.speedup
        return s / len(self.ranks) if s is not None and self.ranks else None

    def traces(self) -> list[RankTrace]:
        """The ranks' traces that were read, by rank."""
        return [r.trace for r in self.ranks if r.trace is not None]

    def worst(self, what: str, largest: bool = True) -> float | None:
        """The largest (or smallest) over the ranks of a trace median (``"comm_share"``, ``"overlap_fraction"``)."""
        values = [v for t in self.traces() if (v := t.median(what)) is not None]
        if not values or len(values) != len(self.ranks):
            return None
        return max(values) if largest else min(values)

    @property
    def comm_share(self) -> float | None:
        """The largest share of a rank's GPU span spent in NCCL kernels."""
        return self.worst("comm_share")

    @property
    def overlap(self) -> float | None:
        """The smallest share of a rank's communication that overlapped its computation."""
        return self.worst("overlap_fraction", largest=False)

    @property
    def balance(self) -> float | None:
        """Load balance: the least attention-kernel time of a rank over the most (1 = perfectly even)."""
        values = [v for t in self.traces() if (v := t.median("attention_us")) is not None]
        if not values or len(values) != len(self.ranks) or max(values) <= 0:
            return None
        return min(values) / max(values)

    @property
    def peak_extra_bytes(self) -> int | None:
        """The largest peak extra memory of a rank."""
        peaks = [r.peak_extra_bytes for r in self.ranks if r.peak_extra_bytes is not None]
        return max(peaks) if peaks else None


@dataclass
class ParallelRun:
    """A context-parallel run: where, what, and every case. See the module docstring for the file.

    Attributes:
        device: The device asked for (``"cuda"``).
        status: ``ok`` when the ranks ran (each case has its own status), else why nothing ran.
        reason: Why nothing ran.
        config: What was asked for.
        world: Number of ranks that ran (0 when none did).
        gpus: Name of each rank's GPU.
        nccl_version: NCCL's version.
        launcher: How the ranks were started (``torch.multiprocessing (spawn)`` or ``torchrun``).
        environment: Where and when (of the process that wrote the file).
        collectives: NCCL collectives timed alone.
        init_s: Each rank's time to join the process group and build the device mesh, seconds.
        cases: Every case, in the order they ran.
        elapsed_s: Wall time of the whole run, the ranks' start included, seconds.
    """

    device: str
    status: str
    config: ParallelConfig
    environment: Environment
    reason: str | None = None
    world: int = 0
    gpus: list[str] = field(default_factory=list)
    nccl_version: str | None = None
    launcher: str = ""
    collectives: list[Collective] = field(default_factory=list)
    init_s: list[float] = field(default_factory=list)
    cases: list[ParallelCase] = field(default_factory=list)
    elapsed_s: float = 0.0
    schema_version: int = SCHEMA_VERSION

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def case(self, method: str, seq: int, backend: str | None = None) -> ParallelCase | None:
        """The case of ``method`` and ``seq`` (and ``backend``; the first backend when ``None``)."""
        backend = backend or (self.config.backends[0] if self.config.backends else None)
        return next((c for c in self.cases if (c.method, c.seq, c.backend) == (method, seq, backend)), None)

    def ran(self) -> list[ParallelCase]:
        """The cases that ran."""
        return [c for c in self.cases if c.ok]

    def collective(self, op: str) -> Collective | None:
        return next((c for c in self.collectives if c.op == op), None)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParallelRun:
        """Rebuild a run from :meth:`to_dict` output.

        Raises:
            StaleResultError: for another schema version, or a document that is not a context-parallel run.
        """
        try:
            d = dict(data)
            cfg = dict(d["config"])
            for key in ("seqs", "methods", "backends"):
                cfg[key] = tuple(cfg[key])
            d["config"] = ParallelConfig(**cfg)
            d["environment"] = Environment(**d["environment"])
            d["collectives"] = [Collective(**c) for c in d.get("collectives", [])]
            d["cases"] = [
                ParallelCase(**{**c, "ranks": [rank_run(r) for r in c.get("ranks", [])]}) for c in d.get("cases", [])
            ]
            return cls(**d)
        except (TypeError, KeyError) as exc:
            raise results.StaleResultError(f"not a context-parallel run file: {exc}") from exc


def rank_run(data: dict[str, Any]) -> RankRun:
    """A :class:`RankRun` from its JSON form."""
    d = dict(data)
    if d.get("trace") is not None:
        d["trace"] = RankTrace.from_dict(d["trace"])
    return RankRun(**d)


def trace_name(device: str, backend: str, method: str, seq: int, rank: int) -> str:
    """The file name of one rank's trace of one case.

    >>> trace_name("cuda", "flash", "allgather", 32768, 0)
    'parallel__cuda__flash__allgather__S32768__rank0.trace.json.gz'
    """
    return f"parallel__{device}__{backend}__{method}__S{seq}__rank{rank}.trace.json.gz"


#: The context-parallel run: ``parallel__<device>.json``, its ranks' traces beside it (:func:`trace_name`).
KIND: kinds.Kind[ParallelRun] = kinds.Kind("parallel", "context-parallel run file", ParallelRun, bundle="parallel")
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
