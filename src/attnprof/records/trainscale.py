"""Training across lengths and head dims: the forward and the backward of each SDPA backend, measured like a kernel
benchmark, and what each rate is as a share of the build's matmul ceiling and of the GPU's published peak.

A :class:`TrainScale` holds one :class:`TrainPoint` per ``(variant, head_dim, causal, seq)``: the median time of the
forward (autograd recording, as in training) and of the backward alone, each with its confidence band
(:func:`attnprof.noise.median_interval`), and the rates they give by the count of :mod:`attnprof.workloads` (the
causal mask halves the forward's FLOPs, the backward is :data:`attnprof.workloads.BACKWARD_FLOP_FACTOR` forwards).
The ceilings are :class:`attnprof.records.sweep.Ceilings`, the same record the sweep keeps. The GPU's peak is not
measured: it is the maker's figure, as published, with its source (:data:`PUBLISHED_PEAKS`).

The file is one versioned JSON file, ``trainscale__<device>.json``; :mod:`attnprof.measure.trainscale` measures it.
This module imports no torch.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from attnprof import workloads
from attnprof.noise import Figure
from attnprof.records import kinds, results
from attnprof.records.results import Environment
from attnprof.records.sweep import Ceilings

SCHEMA_VERSION = 1
#: The two passes a point times.
PASSES = ("fwd", "bwd")


def check_pass(phase: str) -> str:
    """``phase``, after checking that it is one of :data:`PASSES`.

    Raises:
        ValueError: for another name, listing the accepted ones.
    """
    if phase not in PASSES:
        raise ValueError(f"unknown pass {phase!r}; choose one of: {', '.join(PASSES)}")
    return phase


@dataclass(frozen=True)
class PublishedPeak:
    """A GPU's dense bf16/fp16 tensor-core peak, as its maker publishes it (not measured here).

    Attributes:
        gpu: The product the figure is for (``"NVIDIA H100 SXM"``).
        match: Words that must all appear in the device's name as torch reports it (``("H100", "HBM3")``).
        tflops: Dense (no sparsity) bf16 TFLOP/s, as published.
        source: Where it is published.
    """

    gpu: str
    match: tuple[str, ...]
    tflops: float
    source: str


#: Published dense bf16 peaks; the first whose words all appear in the device's name applies. The makers print the
#: figure with sparsity (twice the dense one) in the headline and mark it; the dense one is given here.
PUBLISHED_PEAKS: tuple[PublishedPeak, ...] = (
    PublishedPeak("NVIDIA H200", ("H200",), 989.5, "https://www.nvidia.com/en-us/data-center/h200/"),
    PublishedPeak("NVIDIA H100 SXM", ("H100", "HBM3"), 989.5, "https://www.nvidia.com/en-us/data-center/h100/"),
    PublishedPeak("NVIDIA H100 SXM", ("H100", "SXM"), 989.5, "https://www.nvidia.com/en-us/data-center/h100/"),
    PublishedPeak(
        "NVIDIA A100",
        ("A100",),
        312.0,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
    ),
)


def published_peak(device_name: str) -> PublishedPeak | None:
    """The published peak of the GPU called ``device_name`` (torch's name for it), or ``None`` for a device the
    table does not know (and for a CPU)."""
    name = device_name.upper()
    return next((p for p in PUBLISHED_PEAKS if all(w.upper() in name for w in p.match)), None)


@dataclass
class TrainPoint:
    """One variant at one ``(head_dim, causal, seq)``.

    Attributes:
        variant: Registry name.
        head_dim: Head dimension.
        causal: With the causal mask (``False``: no mask, every query sees every key).
        seq: Sequence length.
        batch: Batch size (the grid keeps the tokens per batch fixed: :func:`attnprof.workloads.train_scale_shape`).
        heads: Number of heads.
        status: ``ok``, or one of the statuses of a result (``unsupported``, ``oom``, ``no_cuda``, ``error``) or
            ``skipped`` (not run, :attr:`reason` says why).
        reason: Why the point has no measurement, in PyTorch's words where PyTorch refused; ``None`` when ok.
        fwd: The forward's median time (ms) and its band.
        bwd: The backward's median time (ms) and its band.
        repetitions: Timed calls behind each median.
        wall_s: Wall time spent on the point.
        issue_us: The CPU's time to issue one step, µs: the forward's and the backward's issue times (each the
            median of its timed calls, the GPU kept busy so the launch queue never blocks) added, bands added;
            ``None`` in a file of a grid that did not record it.
        sdpa_pick: The backend SDPA's own selector picks for these inputs (``SDPBackend`` name, asked without
            running anything: :func:`attnprof.measure.backends.pick`), or ``None``.
    """

    variant: str
    head_dim: int
    causal: bool
    seq: int
    batch: int
    heads: int
    status: str = "ok"
    reason: str | None = None
    fwd: Figure | None = None
    bwd: Figure | None = None
    repetitions: int = 0
    wall_s: float = 0.0
    issue_us: Figure | None = None
    sdpa_pick: str | None = None

    @property
    def ok(self) -> bool:
        """Whether both passes were measured."""
        return self.status == "ok" and self.fwd is not None and self.bwd is not None

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """``[batch, heads, seq, head_dim]``."""
        return (self.batch, self.heads, self.seq, self.head_dim)

    def flops(self, phase: str) -> float:
        """FLOPs of one pass (``"fwd"`` or ``"bwd"``) by the count of :mod:`attnprof.workloads`."""
        check_pass(phase)
        count = workloads.forward_flops if phase == "fwd" else workloads.backward_flops
        return count(self.shape, self.causal)

    def time(self, phase: str) -> Figure | None:
        """The median time of one pass (ms) with its band, or ``None``."""
        check_pass(phase)
        return self.fwd if phase == "fwd" else self.bwd

    def tflops(self, phase: str) -> Figure | None:
        """The rate of one pass, TFLOP/s, with its band (a longer time is a lower rate), or ``None``."""
        t = self.time(phase) if self.ok else None
        if t is None or t.median <= 0:
            return None
        per_ms = self.flops(phase) / 1e9  # FLOP per ms, in TFLOP/s units

        def rate(ms: float) -> float:
            return per_ms / ms if ms > 0 else per_ms / t.median

        return Figure(rate(t.median), rate(t.hi), rate(t.lo), t.n)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["fwd"] = self.fwd.to_dict() if self.fwd else None
        d["bwd"] = self.bwd.to_dict() if self.bwd else None
        d["issue_us"] = self.issue_us.to_dict() if self.issue_us else None
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainPoint:
        d = dict(data)
        d["fwd"], d["bwd"] = Figure.from_dict(d.get("fwd")), Figure.from_dict(d.get("bwd"))
        d["issue_us"] = Figure.from_dict(d.get("issue_us"))
        return cls(**d)


@dataclass
class TrainScale:
    """The whole grid: points, the build's ceilings, where and how it was measured.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        dtype: Canonical dtype name.
        variants: Registry names, one line each.
        seqs: Sequence lengths, ascending.
        head_dims: Head dimensions.
        causal: The masks measured: ``True`` (causal), ``False`` (none).
        environment: Where and when.
        points: One per ``(variant, head_dim, causal, seq)``, in that order.
        ceilings: The build's matmul and bandwidth ceilings (``None`` on the CPU).
        ceilings_from: Where the ceilings come from: ``"sweep"`` (the sequence-length sweep of the same build) or
            ``"measured"`` (measured by the grid itself); ``None`` without ceilings.
        reps: Timed calls per pass and point.
        elapsed_s: Wall time of the whole grid.
        timer: What timed the calls (:func:`attnprof.measure.timing.timer_name`).
    """

    device: str
    dtype: str
    variants: list[str]
    seqs: list[int]
    head_dims: list[int]
    causal: list[bool]
    environment: Environment
    points: list[TrainPoint] = field(default_factory=list)
    ceilings: Ceilings | None = None
    ceilings_from: str | None = None
    reps: int = 0
    elapsed_s: float = 0.0
    timer: str = "perf_counter"
    kind: str = "trainscale"
    schema_version: int = SCHEMA_VERSION

    def point(self, variant: str, head_dim: int, causal: bool, seq: int) -> TrainPoint | None:
        """The point at these coordinates, or ``None``."""
        return next((p for p in self.points if (p.variant, p.head_dim, p.causal, p.seq) ==
                     (variant, head_dim, causal, seq)), None)  # fmt: skip

    def line(self, variant: str, head_dim: int, causal: bool) -> list[TrainPoint]:
        """One variant's points at one head dim and mask, by sequence length."""
        return sorted((p for p in self.points if (p.variant, p.head_dim, p.causal) == (variant, head_dim, causal)),
                      key=lambda p: p.seq)  # fmt: skip

    @property
    def peak(self) -> PublishedPeak | None:
        """The published peak of the device measured on (``None`` on the CPU or a GPU the table does not know)."""
        return None if self.device != "cuda" else published_peak(self.environment.device_name)

    def share_of_ceiling(self, p: TrainPoint, phase: str) -> float | None:
        """The pass's rate over the build's matmul ceiling, or ``None``."""
        rate = p.tflops(phase)
        return None if rate is None or self.ceilings is None else rate.median / self.ceilings.matmul_tflops

    def share_of_peak(self, p: TrainPoint, phase: str) -> float | None:
        """The pass's rate over the GPU's published peak, or ``None``."""
        rate, peak = p.tflops(phase), self.peak
        return None if rate is None or peak is None else rate.median / peak.tflops

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        d = dataclasses.asdict(self)
        d["points"] = [p.to_dict() for p in self.points]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainScale:
        """Rebuild from :meth:`to_dict` output (checked first by :data:`KIND`).

        Raises:
            results.StaleResultError: for data that is not this kind of file.
        """
        try:
            d = dict(data)
            d["environment"] = Environment(**d["environment"])
            d["points"] = [TrainPoint.from_dict(p) for p in d.get("points", [])]
            d["ceilings"] = Ceilings(**d["ceilings"]) if d.get("ceilings") else None
            return cls(**d)
        except (TypeError, KeyError, AttributeError) as exc:
            raise results.StaleResultError(f"does not match the training-scale format: {exc}") from exc


#: The training-scale grid: ``trainscale__<device>.json``.
KIND: kinds.Kind[TrainScale] = kinds.Kind("trainscale", "training-scale file", TrainScale)
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
