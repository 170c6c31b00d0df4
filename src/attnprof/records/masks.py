"""The mask runs as a file: every (mask, method, workload, size) measured, and FlexAttention's block masks built
apart from its kernel. Written by :mod:`attnprof.measure.maskrun`, read by the masks page, its claims and the tests.
No torch here.

One file per device, ``masks__<device>.json``; each traced case keeps its Chrome trace beside it, gzipped
(``<mask>__<method>__<workload>__S<seq>[__w<window>].trace.json.gz``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from attnprof.noise import Figure
from attnprof.records import kinds
from attnprof.records.results import Environment, StaleResultError

#: Version of the file's layout; a file of another version is stale.
VERSION = 1
#: What a case can end as: ran, or why not (``unsupported``: PyTorch refused, in its words; ``not_applicable``: the
#: method cannot express this mask; ``not_measured``: left out on this device, saying why; ``no_cuda``: a CUDA-only
#: backend asked on the CPU; ``oom``; ``error``).
STATUSES: tuple[str, ...] = ("ok", "unsupported", "not_applicable", "not_measured", "no_cuda", "oom", "error")


#: The fields of a case or a build that hold a figure with its band.
_FIGURES: tuple[str, ...] = ("time_ms", "issue_us", "dense_ms", "prebuilt_ms")


def _timed_to_dict(record: MaskCase | BlockMaskBuild) -> dict[str, Any]:
    """A case's or a build's fields as JSON: its figures with their bands, its kernels as pairs."""
    d = dataclasses.asdict(record)
    for key in _FIGURES:
        if key in d:
            d[key] = None if getattr(record, key) is None else getattr(record, key).to_dict()
    d["kernels"] = [list(k) for k in record.kernels]
    return d


def _timed_fields(d: dict[str, Any]) -> dict[str, Any]:
    """The fields of a case or a build read back from :func:`_timed_to_dict`'s JSON."""
    d = dict(d)
    for key in _FIGURES:
        if key in d:
            d[key] = Figure.from_dict(d.get(key))
    d["kernels"] = [(str(n), float(us)) for n, us in d.get("kernels", [])]
    return d


@dataclass
class MaskCase:
    """One measured case.

    Attributes:
        mask, method, workload: What ran (``workload``: ``"prefill"``, one forward, or ``"train"``).
        shape: ``[batch, heads, seq, head_dim]``.
        dtype: Input dtype name.
        window, prefix: The mask's size (0 when it has none).
        status, reason: How it ended; the reason in PyTorch's words when it did not run.
        time_ms: One step's GPU time (CPU time on the CPU), median and its band.
        first_ms: Wall time of the first step, the device waited for (FlexAttention compiles there), or ``None``.
        peak_bytes: The allocator's peak during one step above what was allocated before (CUDA only).
        flops: FLOPs of the kept pairs (:func:`attnprof.workloads.mask_flops`, times 3.5 for training).
        rel_error: Relative error of the output against a float64 reference (forward only).
        ran: The SDPA backend that ran (SDPA's choice and nested tensors: read from the dispatched operators).
        kernels: Kernel (GPU) or operator (CPU) names of one step in the trace, with their summed time, µs.
        trace_file: The gzipped Chrome trace beside the file, or ``None``.
        issue_us: The CPU's time to issue one step (the median of the timed calls, the GPU kept busy), µs, or
            ``None`` (a run that did not record it).
        prebuilt_ms: Nested tensors, forward only: the step's time on nested tensors built once, before the calls
            (``time_ms`` builds them in every step, as a loop over new batches does), ms, or ``None``.
    """

    mask: str
    method: str
    workload: str
    shape: list[int]
    dtype: str
    window: int = 0
    prefix: int = 0
    status: str = "ok"
    reason: str | None = None
    time_ms: Figure | None = None
    first_ms: float | None = None
    peak_bytes: int | None = None
    flops: float = 0.0
    rel_error: float | None = None
    ran: str | None = None
    kernels: list[tuple[str, float]] = field(default_factory=list)
    trace_file: str | None = None
    issue_us: Figure | None = None
    prebuilt_ms: Figure | None = None

    @property
    def seq(self) -> int:
        return self.shape[2]

    @property
    def key(self) -> tuple[str, str, str, int, int, int]:
        """``(mask, method, workload, seq, window, prefix)``."""
        return (self.mask, self.method, self.workload, self.seq, self.window, self.prefix)

    @property
    def tflops(self) -> float | None:
        """Useful TFLOP/s (kept pairs only), or ``None`` when it did not run."""
        if self.time_ms is None or self.time_ms.median <= 0:
            return None
        return self.flops / (self.time_ms.median * 1e-3) / 1e12

    def stem(self) -> str:
        size = f"__w{self.window}" if self.window else ""
        return f"{self.mask}__{self.method}__{self.workload}__S{self.seq}{size}"

    def to_dict(self) -> dict[str, Any]:
        return _timed_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MaskCase:
        return cls(**_timed_fields(d))


@dataclass
class BlockMaskBuild:
    """FlexAttention's block mask, built apart from the kernel (``create_block_mask``).

    Attributes:
        mask, seq, window, prefix: Which block mask.
        time_ms: Wall time of one build, the device waited for (it is a sequence of small kernels and host work).
        kept_blocks: Blocks FlexAttention computes (partly or fully kept) over the total, as a share.
        density: Pairs the mask keeps over ``seq²`` (per row).
        kernels: Kernel (GPU) or operator (CPU) names of one build in the trace, with their summed time, µs.
        launches: Kernels (or operators on the CPU) one build launches.
        trace_file: The gzipped Chrome trace of the builds, or ``None``.
        status, reason: How it ended.
        dense_ms: Wall time of building the dense boolean mask from the same ``mask_mod`` (what SDPA and the naive
            code need instead), the device waited for; ``None`` in a run that did not record it.
    """

    mask: str
    seq: int
    window: int = 0
    prefix: int = 0
    time_ms: Figure | None = None
    kept_blocks: float | None = None
    density: float | None = None
    kernels: list[tuple[str, float]] = field(default_factory=list)
    launches: int = 0
    trace_file: str | None = None
    status: str = "ok"
    reason: str | None = None
    dense_ms: Figure | None = None

    def stem(self) -> str:
        size = f"__w{self.window}" if self.window else ""
        return f"{self.mask}__block_mask__S{self.seq}{size}"

    def to_dict(self) -> dict[str, Any]:
        return _timed_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BlockMaskBuild:
        return cls(**_timed_fields(d))


@dataclass
class MaskRun:
    """Every mask case of one device, and the block-mask builds.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        environment: Where and when.
        cases: The measured cases, in the order measured.
        builds: The block-mask builds.
        seconds: Wall time of the whole run.
        min_reps: The fewest timed calls behind a time (the timing plan's).
        plan: What the run was asked to measure (:class:`attnprof.measure.maskrun.MaskPlan` as JSON), so that a
            saved run stands for a new one only when it was planned the same way.
    """

    device: str
    environment: Environment
    cases: list[MaskCase] = field(default_factory=list)
    builds: list[BlockMaskBuild] = field(default_factory=list)
    seconds: float = 0.0
    min_reps: int = 0
    plan: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "device": self.device,
            "environment": dataclasses.asdict(self.environment),
            "cases": [c.to_dict() for c in self.cases],
            "builds": [b.to_dict() for b in self.builds],
            "seconds": self.seconds,
            "min_reps": self.min_reps,
            "plan": self.plan,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MaskRun:
        """Rebuild from :meth:`to_dict` output (checked first by :data:`KIND`).

        Raises:
            StaleResultError: for data that is not a mask run.
        """
        try:
            return cls(
                d["device"],
                Environment(**d["environment"]),
                [MaskCase.from_dict(c) for c in d["cases"]],
                [BlockMaskBuild.from_dict(b) for b in d["builds"]],
                float(d.get("seconds", 0.0)),
                int(d.get("min_reps", 0)),
                dict(d.get("plan", {})),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StaleResultError(f"not a mask run of this attnprof: {exc!r}") from None


#: The mask run: ``masks__<device>.json``, each traced case's trace beside it.
KIND: kinds.Kind[MaskRun] = kinds.Kind("masks", "mask run", MaskRun, version="version", version_number=VERSION)
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
