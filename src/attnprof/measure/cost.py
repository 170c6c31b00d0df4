"""What a run will cost, before it runs: the memory a shape needs, the time it takes on the CPU, and what the
machine has.

Memory, per variant (:func:`variant_bytes`): the inputs ``q, k, v`` and the output (``4 * B * H * S * D`` elements
of the dtype), plus, for a variant that materialises the scores, :attr:`~attnprof.variants.Variant.score_copies`
``[B, H, S, S]`` matrices (in float32 at least when the variant computes them so) and the ``[S, S]`` boolean mask.
A decoding step (a setup with a KV cache: :attr:`attnprof.inputs.Setup.kv_shape`) holds the cache instead, keys and
values of ``[B, Hkv, L, D]``, its scores are ``[B, H, 1, L]``, and a variant that writes its scores out (the naive
code, the math backend) also repeats the cache up to the query heads. The float64 reference check
(:func:`reference_bytes`) holds float64 copies of the inputs and the output and three float64 score matrices at its
peak (float32, against a cache). Measured peaks on the CPU (``ru_maxrss``) are within 10 % of these.

Time, on the CPU only (:func:`call_seconds`): the number of score elements times ``head_dim / 64`` times a cost per
element and dtype (:data:`NAIVE_NS_PER_ELEMENT`, measured for the naive code on one core), shared by the cores
this process may use, and a rough factor for the kind of variant. It is an estimate good to a factor of a few
(it is not measured on this machine, so that it is the same every time and costs nothing): the commands show it as
"about", use it for progress, and refuse only runs estimated at over an hour.

What the machine has (:func:`available`): on the CPU the memory the kernel says is available without swapping
(psutil when installed, else ``MemAvailable`` in ``/proc/meminfo``); on CUDA the free device memory plus what
PyTorch's allocator holds unused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import variants
from attnprof.inputs import Setup, canonical_dtype, element_bytes

if TYPE_CHECKING:
    from collections.abc import Iterable

#: The longest a command may be estimated to run on the CPU before it is refused (``--force`` runs it anyway).
MAX_CPU_SECONDS = 3600.0
#: Calls of the variant one :func:`attnprof.measure.profiling.profile` makes besides its timed calls: 3 warm-up, 5
# profiler : steps, 1 for peak memory, 30 for the dispatch time.
UNTIMED_CALLS = 39
#: Timed calls of a slow variant (``timed_calls(min_reps=15)``), and the time the loop fills for fast ones.
TIMED_CALLS, TIMED_BUDGET_S = 15, 0.25
#: Fixed cost of one profile on the CPU: profiler start, trace export and parsing, the context timings.
PROFILE_OVERHEAD_S = 0.5
#: Time of a variant's call relative to the naive code's, by kind: fused kernels never write the score matrix.
FUSED_FACTOR, FLOAT32_SCORES_FACTOR = 0.3, 1.5
#: The float64 reference relative to the naive code in float64 (it also makes float64 copies and the error).
REFERENCE_FACTOR = 1.5
#: Time of the naive code per score element (``B * H * S * S``) at head_dim 64 on one CPU core, nanoseconds
#: (2-core x86 machine, torch 2.13: about 0.8 s per call at [8, 16, 1024, 64] in float32 and bfloat16).
NAIVE_NS_PER_ELEMENT = {"float32": 12.0, "bfloat16": 11.0, "float16": 60.0, "float64": 25.0}
#: A first call that compiles (``torch.compile`` with a C++ compiler on the CPU), seconds.
COMPILE_S = 30.0


class TooCostly(ValueError):
    """A run estimated to need more memory or time than the machine gives it; the message is one line naming the
    estimate, the limit and the override (``--force``)."""


@dataclass(frozen=True)
class Limit:
    """How much memory there is for a run, and where the number comes from."""

    bytes: int
    source: str


@dataclass(frozen=True)
class Estimate:
    """What one variant will cost at one setup.

    Attributes:
        variant: Registry name.
        setup: Shape, dtype, device.
        bytes: Peak memory of one call (:func:`variant_bytes`).
        reference_bytes: Peak memory of the float64 reference check (:func:`reference_bytes`).
        seconds: Expected time of a whole profile on the CPU (:func:`profile_seconds`); ``None`` on CUDA.
    """

    variant: str
    setup: Setup
    bytes: int
    reference_bytes: int
    seconds: float | None


def human_bytes(n: float) -> str:
    """``17179869184`` -> ``16.0 GiB`` (binary units, three significant digits)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}" if n / size < 1000 else f"{n / size:.0f} {unit}"
    return f"{int(n)} B"


def human_seconds(s: float) -> str:
    """``42.1`` -> ``42 s``; ``400`` -> ``6.7 min``; ``11000`` -> ``3.1 h``; ``950000`` -> ``264 h`` (never in
    scientific notation)."""
    if s < 60:
        return f"{s:.0f} s" if s >= 1 else f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.2g} min"
    return f"{s / 3600:.2g} h" if s < 360_000 else f"{s / 3600:.0f} h"


# --- memory ---------------------------------------------------------------------------------------------------------


def variant_bytes(variant: str, shape: Iterable[int], dtype: str, kv_shape: Iterable[int] | None = None) -> int:
    """Peak memory of one call of ``variant`` at ``shape`` and ``dtype`` (see the module docstring), bytes; against
    a KV cache of ``kv_shape`` when given (a decoding step)."""
    v = variants.get(variant)
    b, h, s, d = (int(x) for x in shape)
    _, hk, n, _ = (int(x) for x in kv_shape) if kv_shape is not None else (b, h, s, d)
    size = element_bytes(dtype)
    total = (2 * b * h * s * d + 2 * b * hk * n * d) * size
    if v.score_copies:
        score_size = max(size, 4) if v.scores_in_float32 else size
        total += v.score_copies * b * h * s * n * score_size + s * n
        if hk < h:  # the cache repeated up to the query heads before the products
            total += 2 * b * h * n * d * size
    return total


def reference_bytes(shape: Iterable[int], kv_shape: Iterable[int] | None = None) -> int:
    """Peak memory of the reference check (:func:`attnprof.inputs.reference_attention` and the error, in float64;
    against a KV cache of ``kv_shape``, :func:`attnprof.measure.steps.decode_reference` in float32)."""
    b, h, s, d = (int(x) for x in shape)
    if kv_shape is None:
        return 4 * b * h * s * d * 8 + 3 * b * h * s * s * 8 + s * s
    _, hk, n, _ = (int(x) for x in kv_shape)
    return (2 * b * h * s * d + 2 * b * hk * n * d) * 4 + 3 * b * h * s * n * 4


def _meminfo_available(path: Path = Path("/proc/meminfo")) -> int | None:
    try:
        for line in path.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def available(device: str) -> Limit | None:
    """The memory a run on ``device`` can use (see the module docstring), or ``None`` when it cannot be told."""
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            return None
        free, _ = torch.cuda.mem_get_info()
        cached = torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        return Limit(int(free + cached), "free CUDA memory (torch.cuda.mem_get_info)")
    try:
        import psutil  # optional
    except ImportError:
        found = _meminfo_available()
        return None if found is None else Limit(found, "available RAM (MemAvailable in /proc/meminfo)")
    return Limit(int(psutil.virtual_memory().available), "available RAM (psutil)")


# --- time on the CPU ------------------------------------------------------------------------------------------------


def cpu_threads() -> int:
    """The CPU cores this process may run on (PyTorch's intra-op threads use them)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def _naive_seconds(shape: Iterable[int], dtype: str, kv_len: int | None = None) -> float:
    """The naive code's time for one call at ``shape`` (against ``kv_len`` keys when given): score elements x
    head_dim/64 x a cost per element."""
    b, h, s, d = (int(x) for x in shape)
    per_element = NAIVE_NS_PER_ELEMENT[canonical_dtype(dtype)] * 1e-9 * max(d, 16) / 64
    return float(b) * h * s * (kv_len or s) * per_element / cpu_threads()


def call_seconds(variant: str, shape: Iterable[int], dtype: str, kv_len: int | None = None) -> float:
    """Estimated time of one call of ``variant`` on the CPU (see the module docstring)."""
    v = variants.get(variant)
    naive = _naive_seconds(shape, dtype, kv_len)
    if not v.materializes_scores:
        return naive * FUSED_FACTOR
    return naive * (FLOAT32_SCORES_FACTOR if v.scores_in_float32 else 1.0)


def reference_seconds(shape: Iterable[int], kv_len: int | None = None) -> float:
    """Estimated time of the float64 reference check on the CPU."""
    return _naive_seconds(shape, "float64", kv_len) * REFERENCE_FACTOR


def profile_seconds(variant: str, shape: Iterable[int], dtype: str, *, reference: bool = True,
                    kv_len: int | None = None) -> float:  # fmt: skip
    """Estimated time of :func:`attnprof.measure.profiling.profile` of ``variant`` on the CPU."""
    call = call_seconds(variant, shape, dtype, kv_len)
    total = UNTIMED_CALLS * call + max(TIMED_CALLS * call, TIMED_BUDGET_S) + PROFILE_OVERHEAD_S
    if reference:
        total += reference_seconds(shape, kv_len)
    if variants.get(variant).compiled:
        total += COMPILE_S
    return total


# --- putting it together --------------------------------------------------------------------------------------------


def estimate(variant: str, setup: Setup, *, limit: Limit | None = None) -> Estimate:
    """What :func:`attnprof.measure.profiling.profile` of ``variant`` at ``setup`` will cost.

    The reference check is left out of the time when it will be skipped (its memory over ``limit``).
    """
    cache = setup.kv_shape if setup.kv_len is not None or setup.kv_heads is not None else None
    ref = reference_bytes(setup.shape, cache)
    seconds = None
    if setup.device == "cpu":
        with_ref = limit is None or ref <= limit.bytes
        seconds = profile_seconds(variant, setup.shape, setup.dtype, reference=with_ref,
                                  kv_len=cache[2] if cache else None)  # fmt: skip
    return Estimate(variant, setup, variant_bytes(variant, setup.shape, setup.dtype, cache), ref, seconds)


def check(estimates: Iterable[Estimate], limit: Limit | None, *, max_seconds: float = MAX_CPU_SECONDS) -> None:
    """Refuse a run that cannot fit: a variant whose memory exceeds ``limit``, or a total CPU time over
    ``max_seconds``.

    Raises:
        TooCostly: naming the largest offender, its estimate and the limit, and ``--force``.
    """
    estimates = list(estimates)
    if limit is not None and estimates:
        worst = max(estimates, key=lambda e: e.bytes)
        if worst.bytes > limit.bytes:
            raise TooCostly(
                f"{worst.variant} at {worst.setup.describe()} needs about {human_bytes(worst.bytes)} (estimated), "
                f"more than the {human_bytes(limit.bytes)} of {limit.source}; choose a smaller shape, or add "
                "--force to run it anyway"
            )
    seconds = [e.seconds for e in estimates if e.seconds is not None]
    if seconds and sum(seconds) > max_seconds:
        what = estimates[0].variant if len(estimates) == 1 else f"{len(estimates)} variants"
        raise TooCostly(
            f"{what} at {estimates[0].setup.describe()} would take about {human_seconds(sum(seconds))} (estimated), "
            f"more than the {human_seconds(max_seconds)} one command may take on the CPU; choose a smaller shape, "
            "or add --force to run it anyway"
        )
