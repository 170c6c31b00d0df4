"""How cost grows: every variant at several sequence lengths and head dims, against the device's own ceilings.

A sweep runs each variant of a :class:`SweepConfig` at every ``(head_dim, seq)`` and records one
:class:`SweepPoint` per run: median GPU time, achieved TFLOP/s, peak extra device memory, the CPU time to issue
the call and, for ``sdpa_auto``, the backend SDPA picked. :func:`measure_ceilings` measures what the device can do
at best (a large bf16 matrix multiply and a large device-to-device copy), and :func:`roofline` puts each point
against those ceilings. The whole :class:`Sweep` is one versioned JSON file, ``sweep__<device>.json``.

How a point is measured (no profiler):

* inputs are made on the device (making gigabytes of random numbers on the CPU would take longer than the sweep);
* ``warmup`` calls (2), whose last one estimates the time per call; then ``reps`` timed calls (10, or
  ``reps_slow`` = 5 for calls slower than ``slow_ms``), the median reported;
* on CUDA each timed call is bracketed by CUDA events, and a GPU-side sleep (``torch.cuda._sleep``) is queued
  before the start event, so the whole call is already queued when the GPU reaches it: the events measure GPU
  execution alone, without the gaps a slow CPU would leave. The same call's CPU time up to its return is its
  dispatch cost. Where ``_sleep`` is missing the events bracket the call from an idle GPU (``timer`` says which);
* peak extra memory is the allocator's peak over the timed calls above what was allocated before them.

Failure is data, as in :mod:`attnprof.profiling`: a point that cannot run records why (``unsupported`` with
PyTorch's reason, ``oom``, ``no_cuda``, ``error``). Once a variant runs out of memory at some ``seq``, its larger
``seq`` values (same head_dim) are marked ``oom`` without running. Points not reached within ``budget_s`` are
``skipped``. Variants that compile (``flex``) recompile for every new shape, seconds each, so they run only at
``compiled_seqs``; their other sequence lengths have no point at all.

This module imports torch only inside the functions that measure: reading a sweep file and the analysis
(:meth:`Sweep.fastest`, :meth:`Sweep.sdpa_comparisons`, :meth:`Sweep.cpu_bound`, :func:`roofline`) need no
torch, so the Sphinx extension can use them.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import kernels, profiling, results, variants
from .profiling import GpuSleep as _GpuSleep
from .profiling import gpu_sleeper as _sleeper
from .results import Environment

if TYPE_CHECKING:
    import torch

SCHEMA_VERSION = 1

#: Statuses a sweep point can carry: those of a result, and ``skipped`` (the time budget ran out first).
STATUSES = (*results.STATUSES, "skipped")

#: What :meth:`SweepPoint.metric` can read (and the plots can draw).
METRICS = ("gpu_ms", "tflops", "peak_mib", "dispatch_us")

#: The GPU sweep (:func:`default_config` on CUDA).
GPU_VARIANTS = ("sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto", "flex", "naive",
                "naive_inplace")  # fmt: skip
GPU_SEQS = (512, 1024, 2048, 4096, 8192, 16384)
GPU_HEAD_DIMS = (64, 128)
GPU_BATCH, GPU_HEADS, GPU_DTYPE = 8, 16, "bfloat16"
#: Sequence lengths at which variants that compile are measured: each new shape costs a recompilation.
COMPILED_SEQS = (1024, 4096, 16384)
#: Time budget of the default GPU sweep, seconds: no point starts later (ceilings and the point under way not
#: counted). About 20 s go to the variants that do not compile; flex's six compilations share the rest.
GPU_BUDGET_S = 30.0

#: The CPU sweep: small, eager variants that run on the CPU only.
CPU_VARIANTS = ("sdpa_math", "sdpa_flash", "sdpa_auto", "naive", "naive_inplace")
CPU_SEQS = (128, 256, 512)
CPU_HEAD_DIMS = (64,)
CPU_BATCH, CPU_HEADS, CPU_DTYPE = 1, 2, "float32"
CPU_BUDGET_S = 60.0
CPU_NOTE = (
    "A sweep on the CPU (batch {batch}, {heads} heads, {dtype}, seq {seqs}, head_dim {head_dims}). Times are the "
    "CPU's wall-clock times and say nothing about a GPU; there is no memory counter, no ceiling to compare with, "
    "and no CPU-bound region (the CPU does all the work)."
)

#: Variants that write the whole ``[seq, seq]`` score matrix to memory (``sdpa_auto`` too when it picks math).
MATERIALIZING = frozenset({"naive", "naive_inplace", "sdpa_math", "compiled_naive"})

#: SDPA's backends, by the family :func:`attnprof.kernels.decode` gives their kernels, and the forced variant.
BACKEND_VARIANTS = {"flash": "sdpa_flash", "mem_efficient": "sdpa_efficient", "cudnn": "sdpa_cudnn",
                    "math": "sdpa_math"}  # fmt: skip

#: The ATen op each SDPA backend dispatches to (what the CPU side of a trace shows).
SDPA_OPS = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash",
    "aten::_scaled_dot_product_efficient_attention": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable",
}

_ELEMENT_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def element_bytes(dtype: str) -> int:
    """Bytes per element of a canonical dtype name (``"bfloat16"`` -> 2).

    Raises:
        ValueError: for a name :func:`attnprof.profiling.canonical_dtype` does not know.
    """
    return _ELEMENT_BYTES[profiling.canonical_dtype(dtype)]


# --- data -----------------------------------------------------------------------------------------------------------


@dataclass
class SweepPoint:
    """One variant at one ``(head_dim, seq)``.

    Attributes:
        variant: Registry name.
        seq: Sequence length.
        head_dim: Head dimension.
        status: One of :data:`STATUSES`.
        reason: Why the point has no measurement (PyTorch's words, or ``"skipped: ..."``); ``None`` when ok.
        gpu_ms: Median GPU time of one forward call, ms (CPU wall time on the CPU).
        gpu_ms_min: Fastest timed call, ms.
        gpu_ms_max: Slowest timed call, ms.
        repetitions: Number of timed calls.
        tflops: Causal FLOPs (:func:`attnprof.profiling.causal_flops`) over ``gpu_ms``, in TFLOP/s.
        peak_extra_bytes: Peak device memory during the timed calls above what was allocated before them
            (``None`` on the CPU).
        dispatch_us: Median CPU time to issue one call (to the call's return), µs.
        sdpa_choice: For ``sdpa_auto``: the backend SDPA ran (``flash``, ``mem_efficient``, ``cudnn``, ``math``).
        sdpa_evidence: The kernel (or, on the CPU, the ATen op) that identified ``sdpa_choice``.
        wall_s: Wall time spent on this point, warm-up and compilation included.
    """

    variant: str
    seq: int
    head_dim: int
    status: str
    reason: str | None = None
    gpu_ms: float | None = None
    gpu_ms_min: float | None = None
    gpu_ms_max: float | None = None
    repetitions: int = 0
    tflops: float | None = None
    peak_extra_bytes: int | None = None
    dispatch_us: float | None = None
    sdpa_choice: str | None = None
    sdpa_evidence: str | None = None
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the point was measured."""
        return self.status == "ok"

    def metric(self, name: str) -> float | None:
        """One of :data:`METRICS` (``peak_mib`` is ``peak_extra_bytes`` in MiB); ``None`` when not measured.

        Raises:
            ValueError: for an unknown metric, listing the accepted ones.
        """
        if name not in METRICS:
            raise ValueError(f"unknown metric {name!r}; choose one of: {', '.join(METRICS)}")
        if name == "peak_mib":
            return None if self.peak_extra_bytes is None else self.peak_extra_bytes / 2**20
        return getattr(self, name)


@dataclass
class Ceilings:
    """What the device does at best, measured in the same process as the sweep.

    Attributes:
        matmul_tflops: bf16 matrix multiply ``[n, n] @ [n, n]`` on random data: ``2 n³`` FLOPs over the median
            time, TFLOP/s.
        matmul_n: ``n``.
        bandwidth_gbs: Device-to-device copy of ``copy_bytes``: bytes read plus bytes written over the median
            time, GB/s (10⁹ bytes per second).
        copy_bytes: Size of the copied buffer, bytes.
        repetitions: Timed calls behind each median.
    """

    matmul_tflops: float
    matmul_n: int
    bandwidth_gbs: float
    copy_bytes: int
    repetitions: int

    @property
    def ridge(self) -> float:
        """Arithmetic intensity (FLOP per byte) where the ceilings meet: memory limits below it, compute above."""
        return self.matmul_tflops * 1e12 / (self.bandwidth_gbs * 1e9)


@dataclass(frozen=True)
class Roofline:
    """One point against the ceilings (see :func:`roofline` for the byte count).

    Attributes:
        flops: Causal FLOPs of one call.
        min_bytes: The least device-memory traffic the variant's algorithm needs.
        intensity: ``flops / min_bytes``, FLOP per byte.
        materializes_scores: Whether ``min_bytes`` includes the ``[seq, seq]`` score matrix.
        matmul_fraction: Achieved TFLOP/s over the matmul ceiling (``None`` without ceilings).
        bandwidth_fraction: ``min_bytes`` per second over the bandwidth ceiling (``None`` without ceilings).
    """

    flops: float
    min_bytes: float
    intensity: float
    materializes_scores: bool
    matmul_fraction: float | None
    bandwidth_fraction: float | None


@dataclass(frozen=True)
class SdpaComparison:
    """At one ``(head_dim, seq)``: the backend SDPA picked, against the fastest of the backends it can pick.

    Attributes:
        head_dim: Head dimension.
        seq: Sequence length.
        pick: The backend ``sdpa_auto`` ran (``None`` if it did not run).
        auto_ms: ``sdpa_auto``'s median time.
        pick_ms: The median time of the forced variant running the picked backend (``None`` if not measured).
        fastest_backend: The fastest forced SDPA variant measured here (``sdpa_flash``, ...).
        fastest_backend_ms: Its median time.
        fastest_variant: The fastest of all measured variants except ``sdpa_auto`` (may be ``flex``, which SDPA
            cannot pick).
        fastest_variant_ms: Its median time.
    """

    head_dim: int
    seq: int
    pick: str | None
    auto_ms: float | None
    pick_ms: float | None
    fastest_backend: str | None
    fastest_backend_ms: float | None
    fastest_variant: str | None
    fastest_variant_ms: float | None

    @property
    def pick_variant(self) -> str | None:
        """The forced variant that runs the picked backend (``"cudnn"`` -> ``"sdpa_cudnn"``)."""
        return BACKEND_VARIANTS.get(self.pick or "")

    @property
    def agrees(self) -> bool | None:
        """Whether SDPA picked the fastest of its backends (``None`` when either side is unknown)."""
        if self.pick_variant is None or self.fastest_backend is None:
            return None
        return self.pick_variant == self.fastest_backend

    @property
    def pick_slowdown(self) -> float | None:
        """How much slower the picked backend is than the fastest backend: ``0.12`` = 12 % slower."""
        if self.pick_ms is None or not self.fastest_backend_ms:
            return None
        return self.pick_ms / self.fastest_backend_ms - 1.0


@dataclass
class Sweep:
    """A whole sweep: the configuration, the points, the ceilings and where it was measured.

    The JSON file holds :meth:`to_dict`; :data:`SCHEMA_VERSION` versions it.
    """

    device: str
    dtype: str
    batch: int
    heads: int
    seqs: list[int]
    head_dims: list[int]
    variants: list[str]
    environment: Environment
    points: list[SweepPoint] = field(default_factory=list)
    ceilings: Ceilings | None = None
    compiled_seqs: list[int] | None = None
    warmup: int = 2
    reps: int = 10
    reps_slow: int = 5
    slow_ms: float = 20.0
    timer: str = "perf_counter"
    budget_s: float = 0.0
    elapsed_s: float = 0.0
    complete: bool = True
    note: str | None = None
    kind: str = "sweep"
    schema_version: int = SCHEMA_VERSION

    # --- reading ---

    def point(self, variant: str, head_dim: int, seq: int) -> SweepPoint | None:
        """The point of ``variant`` at ``(head_dim, seq)``, or ``None`` when there is none."""
        return next(
            (p for p in self.points if p.variant == variant and p.head_dim == head_dim and p.seq == seq), None
        )

    def points_of(self, variant: str, head_dim: int) -> list[SweepPoint]:
        """The points of one variant at one head_dim, by sequence length."""
        return sorted(
            (p for p in self.points if p.variant == variant and p.head_dim == head_dim), key=lambda p: p.seq
        )

    def largest_ok(self, variant: str, head_dim: int) -> SweepPoint | None:
        """The measured point of ``variant`` with the longest sequence at ``head_dim``."""
        ok = [p for p in self.points_of(variant, head_dim) if p.ok]
        return ok[-1] if ok else None

    def fastest(self, head_dim: int, seq: int, among: Iterable[str] | None = None) -> SweepPoint | None:
        """The measured point with the lowest median time at ``(head_dim, seq)``, ``sdpa_auto`` left out.

        Args:
            head_dim: Head dimension.
            seq: Sequence length.
            among: Variants to consider (all of the sweep's when ``None``).
        """
        names = set(among) if among is not None else set(self.variants)
        names.discard("sdpa_auto")
        candidates = [
            p
            for p in self.points
            if p.ok and p.head_dim == head_dim and p.seq == seq and p.variant in names and p.gpu_ms is not None
        ]
        return min(candidates, key=lambda p: p.gpu_ms) if candidates else None  # type: ignore[arg-type,return-value]

    def sdpa_comparisons(self) -> list[SdpaComparison]:
        """SDPA's pick against the fastest backend, at every ``(head_dim, seq)`` where ``sdpa_auto`` has a point."""
        out = []
        for auto in sorted((p for p in self.points if p.variant == "sdpa_auto"), key=lambda p: (p.head_dim, p.seq)):
            pick = auto.sdpa_choice if auto.ok else None
            forced = self.point(BACKEND_VARIANTS.get(pick or "", ""), auto.head_dim, auto.seq)
            backend = self.fastest(auto.head_dim, auto.seq, among=BACKEND_VARIANTS.values())
            overall = self.fastest(auto.head_dim, auto.seq)
            out.append(
                SdpaComparison(
                    head_dim=auto.head_dim,
                    seq=auto.seq,
                    pick=pick,
                    auto_ms=auto.gpu_ms if auto.ok else None,
                    pick_ms=forced.gpu_ms if forced is not None and forced.ok else None,
                    fastest_backend=backend.variant if backend else None,
                    fastest_backend_ms=backend.gpu_ms if backend else None,
                    fastest_variant=overall.variant if overall else None,
                    fastest_variant_ms=overall.gpu_ms if overall else None,
                )
            )
        return out

    def cpu_bound(self) -> list[SweepPoint]:
        """Measured CUDA points whose dispatch cost exceeds their GPU time: the GPU would wait for the CPU.

        Empty on the CPU, where the CPU does the work and dispatch and execution are the same time.
        """
        if self.device != "cuda":
            return []
        return [
            p
            for p in self.points
            if p.ok and p.dispatch_us is not None and p.gpu_ms is not None and p.dispatch_us > p.gpu_ms * 1e3
        ]

    def roofline(self, p: SweepPoint) -> Roofline:
        """:func:`roofline` of one of this sweep's points."""
        return roofline(p, self.batch, self.heads, self.dtype, self.ceilings)

    # --- file format ---

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sweep:
        """Rebuild a sweep from :meth:`to_dict` output.

        Raises:
            results.StaleResultError: for another schema version, or data that is not a sweep.
        """
        version = data.get("schema_version") if isinstance(data, dict) else None
        if not isinstance(data, dict) or data.get("kind") != "sweep" or version != SCHEMA_VERSION:
            raise results.StaleResultError(
                f"sweep schema version {version!r} is not the supported version {SCHEMA_VERSION} (or not a sweep "
                "file); run the sweep again to regenerate it"
            )
        d = dict(data)
        d["environment"] = Environment(**d["environment"])
        d["points"] = [SweepPoint(**p) for p in d.get("points", [])]
        d["ceilings"] = Ceilings(**d["ceilings"]) if d.get("ceilings") else None
        return cls(**d)


def filename(device: str) -> str:
    """``sweep__cuda.json``: the file name of a device's sweep."""
    return f"sweep__{device}.json"


def dumps(sweep: Sweep) -> bytes:
    """Serialise deterministically (sorted keys, fixed indentation)."""
    return results.json_bytes(sweep.to_dict())


def save(sweep: Sweep, directory: str | Path) -> Path:
    """Write ``sweep`` into ``directory`` as :func:`filename`, only if its content changed. Returns the path."""
    path = Path(directory) / filename(sweep.device)
    results.write_if_changed(path, dumps(sweep))
    return path


def load(path: str | Path) -> Sweep:
    """Read a sweep file.

    Raises:
        FileNotFoundError: if there is no such file.
        results.StaleResultError: if it is not valid JSON, not a sweep, or of another schema version.
    """
    data = results.read_json(Path(path))
    try:
        return Sweep.from_dict(data)
    except (TypeError, KeyError) as exc:  # a field missing or unknown: written by other code
        raise results.StaleResultError(f"{path.name} does not match the sweep format: {exc}") from exc


# --- roofline -------------------------------------------------------------------------------------------------------


def materializes_scores(variant: str, sdpa_choice: str | None = None) -> bool:
    """Whether ``variant`` writes the ``[seq, seq]`` score matrix to device memory."""
    return variant in MATERIALIZING or (variant == "sdpa_auto" and sdpa_choice == "math")


def min_bytes(variant: str, batch: int, heads: int, seq: int, head_dim: int, dtype: str,
              sdpa_choice: str | None = None) -> float:  # fmt: skip
    """The least device-memory traffic of one causal forward call, in bytes.

    Every variant reads ``q``, ``k`` and ``v`` once and writes ``out`` once: ``4 * B * H * S * D`` elements. A
    variant that materialises the scores (:func:`materializes_scores`) also writes the ``[B, H, S, S]`` score matrix
    once and reads it back once: ``2 * B * H * S * S`` more elements. Elements have the size of ``dtype``.

    This is a floor, not the traffic the kernels really cause: the naive code passes over the score matrix five
    times or more (scale, mask, softmax, each reading and writing it), the math backend computes it in float32, and
    a fused kernel reads ``k`` and ``v`` once per query block, not once. The floor is what the algorithm cannot
    avoid, so it is what the bandwidth ceiling bounds.
    """
    size = element_bytes(dtype)
    elements = 4.0 * batch * heads * seq * head_dim
    if materializes_scores(variant, sdpa_choice):
        elements += 2.0 * batch * heads * seq * seq
    return elements * size


def roofline(p: SweepPoint, batch: int, heads: int, dtype: str, ceilings: Ceilings | None) -> Roofline:
    """One point against the ceilings: arithmetic intensity from :func:`min_bytes`, fractions of both ceilings.

    ``matmul_fraction`` is the point's TFLOP/s over the matmul ceiling; ``bandwidth_fraction`` is
    ``min_bytes / time`` over the bandwidth ceiling. Both are ``None`` without ceilings or without a time.
    """
    flops = profiling.causal_flops((batch, heads, p.seq, p.head_dim))
    nbytes = min_bytes(p.variant, batch, heads, p.seq, p.head_dim, dtype, p.sdpa_choice)
    matmul = bandwidth = None
    if ceilings is not None and p.ok and p.gpu_ms:
        matmul = (p.tflops or flops / (p.gpu_ms * 1e-3) / 1e12) / ceilings.matmul_tflops
        bandwidth = nbytes / (p.gpu_ms * 1e-3) / (ceilings.bandwidth_gbs * 1e9)
    return Roofline(flops, nbytes, flops / nbytes, materializes_scores(p.variant, p.sdpa_choice), matmul, bandwidth)


# --- configuration --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepConfig:
    """What a sweep runs, and how carefully.

    Attributes:
        variants: Registry names, in the order of the sweep's tables.
        seqs: Sequence lengths, ascending.
        head_dims: Head dimensions.
        batch: Batch size.
        heads: Number of heads.
        dtype: Canonical dtype name.
        device: ``"cuda"`` or ``"cpu"``.
        compiled_seqs: Sequence lengths for variants that compile (``None``: all of ``seqs``).
        warmup: Untimed calls before timing (the first compiles, for compiled variants).
        reps: Timed calls per point.
        reps_slow: Timed calls for points whose last warm-up call took ``slow_ms`` or more.
        slow_ms: See ``reps_slow``.
        budget_s: Points not started within this many seconds are ``skipped``.
        seed: Seed of the random inputs.
    """

    variants: tuple[str, ...]
    seqs: tuple[int, ...]
    head_dims: tuple[int, ...]
    batch: int
    heads: int
    dtype: str
    device: str
    compiled_seqs: tuple[int, ...] | None = None
    warmup: int = 2
    reps: int = 10
    reps_slow: int = 5
    slow_ms: float = 20.0
    budget_s: float = GPU_BUDGET_S
    seed: int = 0

    def seqs_for(self, variant: str) -> tuple[int, ...]:
        """The sequence lengths ``variant`` runs at (fewer for variants that compile)."""
        if variants.get(variant).compiled and self.compiled_seqs is not None:
            return tuple(s for s in self.seqs if s in self.compiled_seqs)
        return self.seqs


def _positive(name: str, value: Any, example: str) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n <= 0 or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"bad {name} {value!r}; expected a positive integer such as {example}")
    return n


def make_config(
    variants_: Sequence[str] | None = None,
    seqs: Sequence[int] | None = None,
    head_dims: Sequence[int] | None = None,
    *,
    batch: int | None = None,
    heads: int | None = None,
    dtype: str | None = None,
    device: str | None = None,
    compiled_seqs: Sequence[int] | None = (),
    budget_s: float | None = None,
    **timing: Any,
) -> SweepConfig:
    """Validate arguments and fill what is left out from the defaults of the device (:func:`default_config`).

    Args:
        variants_: Registry names (default: the device's default list).
        seqs: Sequence lengths (sorted and deduplicated).
        head_dims: Head dimensions.
        batch: Batch size.
        heads: Number of heads.
        dtype: Any spelling :func:`attnprof.profiling.canonical_dtype` accepts.
        device: ``"cuda"`` or ``"cpu"``; CUDA when available if left out.
        compiled_seqs: Sequence lengths for variants that compile; ``()`` (the default) keeps the device default
            when ``seqs`` is also left out and means "all of ``seqs``" when ``seqs`` is given; ``None`` means all.
        budget_s: Time budget in seconds.
        **timing: ``warmup``, ``reps``, ``reps_slow``, ``slow_ms``, ``seed``.

    Raises:
        ValueError: for an unknown variant, dtype or device, a sequence length, head dim, batch or head count that
            is not a positive integer, or an unknown timing option; the message names the value and what is
            accepted.
    """
    if device is not None and device not in profiling.DEVICES:
        raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(profiling.DEVICES)}")
    base = default_config(device)
    unknown = set(timing) - {"warmup", "reps", "reps_slow", "slow_ms", "seed"}
    if unknown:
        raise ValueError(
            f"unknown option {sorted(unknown)[0]!r}; choose from: warmup, reps, reps_slow, slow_ms, seed"
        )
    names = tuple(variants.get(v).name for v in variants_) if variants_ else base.variants
    if seqs:
        seq_list = tuple(sorted({_positive("sequence length", s, "1024") for s in seqs}))
    else:
        seq_list = base.seqs
    dims = tuple(sorted({_positive("head_dim", d, "64") for d in head_dims})) if head_dims else base.head_dims
    if compiled_seqs == ():
        compiled: tuple[int, ...] | None = base.compiled_seqs if not seqs else None
    elif compiled_seqs is None:
        compiled = None
    else:
        compiled = tuple(sorted({_positive("sequence length", s, "1024") for s in compiled_seqs}))
    budget = base.budget_s if budget_s is None else float(budget_s)
    if not budget > 0:
        raise ValueError(f"bad time budget {budget_s!r}; expected a positive number of seconds such as 45")
    for key in ("reps", "reps_slow"):
        if key in timing:
            timing[key] = _positive(f"number of {key}", timing[key], "5")
    if "warmup" in timing and timing["warmup"] != 0:
        timing["warmup"] = _positive("number of warm-up calls", timing["warmup"], "2")
    return SweepConfig(
        variants=names,
        seqs=seq_list,
        head_dims=dims,
        batch=base.batch if batch is None else _positive("batch size", batch, "8"),
        heads=base.heads if heads is None else _positive("number of heads", heads, "16"),
        dtype=base.dtype if dtype is None else profiling.canonical_dtype(dtype),
        device=base.device,
        compiled_seqs=compiled,
        budget_s=budget,
        **timing,
    )


def default_config(device: str | None = None) -> SweepConfig:
    """The GPU sweep on CUDA (CUDA when available if ``device`` is left out), the tiny CPU sweep on the CPU."""
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda":
        return SweepConfig(GPU_VARIANTS, GPU_SEQS, GPU_HEAD_DIMS, GPU_BATCH, GPU_HEADS, GPU_DTYPE, "cuda",
                           compiled_seqs=COMPILED_SEQS, budget_s=GPU_BUDGET_S)  # fmt: skip
    if device == "cpu":
        return SweepConfig(CPU_VARIANTS, CPU_SEQS, CPU_HEAD_DIMS, CPU_BATCH, CPU_HEADS, CPU_DTYPE, "cpu",
                           budget_s=CPU_BUDGET_S)  # fmt: skip
    raise ValueError(f"unknown device {device!r}; choose one of: {', '.join(profiling.DEVICES)}")


# --- measuring ------------------------------------------------------------------------------------------------------


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


@dataclass
class _Measured:
    gpu_ms: list[float]
    dispatch_us: list[float]
    peak_extra_bytes: int | None


def _measure(fn: Callable[[], Any], cfg: SweepConfig, sleep: _GpuSleep | None) -> _Measured:
    """Warm up, then time ``reps`` (or ``reps_slow``) calls; see the module docstring."""
    import torch

    cuda = cfg.device == "cuda"
    issue_us = wall_ms = 0.0
    for _ in range(cfg.warmup):
        _sync(cfg.device)
        t0 = time.perf_counter()
        fn()
        issue_us = (time.perf_counter() - t0) * 1e6
        _sync(cfg.device)
        wall_ms = (time.perf_counter() - t0) * 1e3
    reps = cfg.reps if wall_ms < cfg.slow_ms else cfg.reps_slow
    base = None
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    gpu: list[float] = []
    dispatch: list[float] = []
    for _ in range(reps):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if sleep is not None:
                # long enough for the CPU to queue the whole call behind it (3x the last issue time)
                sleep(min(max(200.0, 3.0 * (dispatch[-1] if dispatch else issue_us)), 50_000.0))
            start.record()
            t0 = time.perf_counter()
            fn()
            dispatch.append((time.perf_counter() - t0) * 1e6)
            end.record()
            end.synchronize()
            gpu.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - t0
            gpu.append(elapsed * 1e3)
            dispatch.append(elapsed * 1e6)
    peak = None
    if cuda:
        torch.cuda.synchronize()
        peak = int(torch.cuda.max_memory_allocated() - (base or 0))
    return _Measured(gpu, dispatch, peak)


def sdpa_choice_from_trace(trace: dict[str, Any]) -> tuple[str, str]:
    """The SDPA backend a Chrome trace of one unforced call shows, and the name that tells.

    The GPU kernels are read first (:func:`attnprof.kernels.decode`): a ``flash``, ``mem_efficient`` or ``cudnn``
    kernel names its backend. Otherwise the ATen op SDPA dispatched to (:data:`SDPA_OPS`) decides: on the CPU there
    are no kernels, and the math backend runs only generic kernels (gemm, softmax, elementwise). A trace with GPU
    kernels but none of those ops is ``math``; one with nothing is ``unknown``.

    Returns:
        ``(family, evidence)``: a key of :data:`BACKEND_VARIANTS` (or ``"unknown"``) and the kernel or op name.
    """
    events = [e for e in trace.get("traceEvents", []) if isinstance(e, dict)]
    gpu = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: -float(e.get("dur", 0)))
    for e in gpu:
        info = kernels.decode(e.get("name", ""))
        if info.family in ("flash", "mem_efficient", "cudnn"):
            return info.family, info.name
    for e in events:
        if e.get("cat") == "cpu_op" and e.get("name") in SDPA_OPS:
            return SDPA_OPS[e["name"]], e["name"]
    if gpu:
        return "math", gpu[0].get("name", "")
    return "unknown", ""


def _sdpa_choice(fn: Callable[[], Any], device: str) -> tuple[str, str]:
    """Run ``fn`` once under a minimal profiler capture and read the backend from its trace."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(activities=activities) as prof:
            fn()
            _sync(device)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        trace = json.loads(path.read_text(encoding="utf-8"))
    return sdpa_choice_from_trace(trace)


def _inputs(cfg: SweepConfig, seq: int, head_dim: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal ``q, k, v`` made on the device itself (same seed, same inputs for every variant)."""
    import torch

    gen = torch.Generator(device=cfg.device).manual_seed(cfg.seed)
    shape = (cfg.batch, cfg.heads, seq, head_dim)
    dtype = getattr(torch, cfg.dtype)
    return tuple(torch.randn(shape, generator=gen, device=cfg.device, dtype=dtype) for _ in range(3))  # type: ignore[return-value]


def _run_point(cfg: SweepConfig, variant: variants.Variant, seq: int, head_dim: int,
               sleep: _GpuSleep | None) -> SweepPoint:  # fmt: skip
    """Measure one point; never raises for a variant that cannot run."""
    import torch

    t0 = time.perf_counter()
    point = SweepPoint(variant.name, seq, head_dim, "ok")
    if cfg.device == "cuda":
        torch.cuda.empty_cache()
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            q, k, v = _inputs(cfg, seq, head_dim)
            fn = variant.build(seq, cfg.device)

            def call() -> torch.Tensor:
                return fn(q, k, v)

            m = _measure(call, cfg, sleep)
            med = statistics.median(m.gpu_ms)
            point.gpu_ms, point.gpu_ms_min, point.gpu_ms_max = med, min(m.gpu_ms), max(m.gpu_ms)
            point.repetitions = len(m.gpu_ms)
            point.tflops = profiling.causal_flops((cfg.batch, cfg.heads, seq, head_dim)) / (med * 1e-3) / 1e12
            point.dispatch_us = statistics.median(m.dispatch_us)
            point.peak_extra_bytes = m.peak_extra_bytes
            if variant.name == "sdpa_auto":
                point.sdpa_choice, point.sdpa_evidence = _sdpa_choice(call, cfg.device)
        except Exception as exc:  # failure is data: the point says why
            point.status, point.reason = profiling.failure(exc, caught, variant, cfg.device)
    if point.status == "oom" and cfg.device == "cuda":
        gc.collect()  # the traceback held the frames that held the tensors
        torch.cuda.empty_cache()
    point.wall_s = time.perf_counter() - t0
    return point


def _dynamo_limits() -> Any:
    """Room for one compiled entry per shape: the default limit (8 per function) could send flex back to eager."""
    import contextlib

    try:
        import torch._dynamo

        config = torch._dynamo.config
        name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
        return config.patch(**{name: max(64, getattr(config, name))})
    except (ImportError, AttributeError, RuntimeError):  # pragma: no cover - a torch without dynamo
        return contextlib.nullcontext()


def _cpu_note(cfg: SweepConfig) -> str:
    return CPU_NOTE.format(batch=cfg.batch, heads=cfg.heads, dtype=cfg.dtype, seqs=", ".join(map(str, cfg.seqs)),
                           head_dims=", ".join(map(str, cfg.head_dims)))  # fmt: skip


def run_sweep(
    config: SweepConfig | None = None,
    *,
    ceilings: Ceilings | None = None,
    progress: Callable[[int, int, SweepPoint], None] | None = None,
) -> Sweep:
    """Run a sweep; never raises for a point that cannot run.

    Variants that do not compile run first, then those that do (so that the time budget, if it runs out, cuts
    the expensive compilations rather than the cheap points). The points come back in table order: variants as
    configured, then head_dim, then sequence length.

    Args:
        config: What to run; :func:`default_config` when omitted.
        ceilings: The device's ceilings (:func:`measure_ceilings`), stored with the sweep.
        progress: Called after every point with ``(done, total, point)``.

    Returns:
        The sweep, with ``elapsed_s`` and ``complete`` (False when the time budget skipped points).
    """
    cfg = config or default_config()
    t_start = time.perf_counter()
    plan = [(variants.get(n), d, s) for n in cfg.variants for d in cfg.head_dims for s in cfg.seqs_for(n)]
    order = sorted(range(len(plan)), key=lambda i: plan[i][0].compiled)
    found: dict[int, SweepPoint] = {}
    missing = profiling.cuda_missing_reason() if cfg.device == "cuda" else None
    sleep = None if missing else _sleeper(cfg.device)
    oom_at: dict[tuple[str, int], int] = {}
    with _dynamo_limits():
        for done, i in enumerate(order, start=1):
            v, d, s = plan[i]
            if missing:
                point = SweepPoint(v.name, s, d, "no_cuda", missing)
            elif (v.name, d) in oom_at:
                point = SweepPoint(v.name, s, d, "oom", f"skipped: out of memory at seq {oom_at[(v.name, d)]}")
            elif time.perf_counter() - t_start > cfg.budget_s:
                point = SweepPoint(
                    v.name, s, d, "skipped", f"skipped: the time budget of {cfg.budget_s:g} s was spent"
                )
            else:
                point = _run_point(cfg, v, s, d, sleep)
                if point.status == "oom":
                    oom_at[(v.name, d)] = s
            found[i] = point
            if progress is not None:
                progress(done, len(plan), point)
    env_device = cfg.device if not missing else "cpu"
    timer = "perf_counter"
    if cfg.device == "cuda" and not missing:
        timer = "cuda_event_prefilled" if sleep is not None else "cuda_event"
    return Sweep(
        device=cfg.device,
        dtype=cfg.dtype,
        batch=cfg.batch,
        heads=cfg.heads,
        seqs=list(cfg.seqs),
        head_dims=list(cfg.head_dims),
        variants=list(cfg.variants),
        environment=profiling.environment(env_device),
        points=[found[i] for i in range(len(plan))],
        ceilings=ceilings,
        compiled_seqs=None if cfg.compiled_seqs is None else list(cfg.compiled_seqs),
        warmup=cfg.warmup,
        reps=cfg.reps,
        reps_slow=cfg.reps_slow,
        slow_ms=cfg.slow_ms,
        timer=timer,
        budget_s=cfg.budget_s,
        elapsed_s=time.perf_counter() - t_start,
        complete=not any(p.status == "skipped" for p in found.values()),
        note=_cpu_note(cfg) if cfg.device == "cpu" else None,
    )


def _median_event_ms(fn: Callable[[], Any], reps: int, warmup: int) -> float:
    """Median CUDA-event time of ``fn`` over ``reps`` calls after ``warmup`` calls."""
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def _matmul_ms(n: int, reps: int, warmup: int) -> float:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    a, b = (torch.randn(n, n, generator=gen, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    c = torch.empty_like(a)
    return _median_event_ms(lambda: torch.matmul(a, b, out=c), reps, warmup)


def _copy_ms(nbytes: int, reps: int, warmup: int) -> float:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    src = torch.rand(nbytes // 4, generator=gen, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    return _median_event_ms(lambda: dst.copy_(src), reps, warmup)


def measure_ceilings(
    device: str, *, matmul_n: int = 8192, copy_bytes: int = 2 * 2**30, reps: int = 10, warmup: int = 3
) -> Ceilings | None:
    """The device's matmul and bandwidth ceilings; ``None`` on the CPU (or without CUDA).

    Matmul: ``[n, n] @ [n, n]`` in bf16 on random data (random, not zeros: zeros draw less power and can run
    faster), ``2 n³`` FLOPs per call. Bandwidth: a device-to-device copy of ``copy_bytes`` (float32 elements),
    counting the bytes read and the bytes written. Each is the median of ``reps`` calls timed with CUDA events
    after ``warmup`` calls. Takes well under a second on an H200.
    """
    if device != "cuda":
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    nbytes = copy_bytes // 4 * 4
    mm_ms = _matmul_ms(matmul_n, reps, warmup)
    copy_ms = _copy_ms(nbytes, reps, warmup)
    torch.cuda.empty_cache()
    return Ceilings(
        matmul_tflops=2.0 * matmul_n**3 / (mm_ms * 1e-3) / 1e12,
        matmul_n=matmul_n,
        bandwidth_gbs=2.0 * nbytes / (copy_ms * 1e-3) / 1e9,
        copy_bytes=nbytes,
        repetitions=reps,
    )
