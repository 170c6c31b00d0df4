"""How cost grows: the data of a sweep (every variant at several sequence lengths and head dims), its file format,
and what it says against the device's own ceilings.

A :class:`Sweep` holds one :class:`SweepPoint` per variant and ``(head_dim, seq)``: median GPU time, achieved
TFLOP/s, peak extra device memory, the CPU time to issue the call and, for ``sdpa_auto``, the backend SDPA picked;
and the device's :class:`Ceilings` (a large bf16 matrix multiply and a large device-to-device copy).
:func:`roofline` puts each point against those ceilings. The whole sweep is one versioned JSON file,
``sweep__<device>.json``. :mod:`attnprof.measure.sweeprun` measures a sweep; this module reads and analyses one and
imports no torch, so the Sphinx extension can use it.

Statuses: those of a result (``unsupported`` with PyTorch's reason, ``oom``, ``no_cuda``, ``error``), and
``skipped`` for points not reached within the time budget.

A point can be wrong without being unstable: measured while the GPU's clocks were down after a long run of heavy
points, or on a CPU while other processes ran. :meth:`Sweep.suspects` names the points whose measurement the sweep
itself contradicts (a band too wide to decide anything, a time longer than at a longer sequence, SDPA's own call
and the forced backend it runs disagreeing, a variant page's measurement of the same shape disagreeing), so that
the sweep re-measures them (:func:`attnprof.measure.sweeprun.run_sweep`) and records that it did
(:attr:`SweepPoint.remeasured`). A point whose band is still too wide is shown as unreliable and decides nothing
(:attr:`SweepPoint.reliable`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from attnprof import noise, variants
from attnprof.inputs import causal_flops, element_bytes
from attnprof.noise import Figure
from attnprof.records import kinds, results
from attnprof.records.results import Environment

SCHEMA_VERSION = 2

#: Statuses a sweep point can carry: those of a result, and ``skipped`` (the time budget ran out first).
STATUSES = (*results.STATUSES, "skipped")

#: What :meth:`SweepPoint.metric` can read (and the plots can draw).
METRICS = ("gpu_ms", "tflops", "peak_mib", "dispatch_us")

#: Why the sweep re-measures a point (:meth:`Sweep.suspects`).
SUSPECT_REASONS = ("wide", "neighbours", "twin", "reference")
#: Doubling the sequence length at most quadruples the work of causal attention; a point that took more than this
#: many times the point at half its length (beyond the noise) was measured slow.
GROWTH_LIMIT = 5.0


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
        gpu_ms: Median GPU time of one forward call, ms (CPU wall time on the CPU), timed by
            :func:`attnprof.measure.timing.time_shape` as the variant pages are.
        gpu_ms_min: Fastest timed call, ms.
        gpu_ms_max: Slowest timed call, ms.
        repetitions: Number of timed calls.
        gpu_ms_lo: Lower end of the 95% confidence interval of the median (:func:`attnprof.noise.median_interval`).
        gpu_ms_hi: Upper end of it.
        gpu_ms_p10: 10th percentile of the timed calls, ms.
        gpu_ms_p90: 90th percentile of the timed calls, ms.
        attempts: Measurements made: more than 1 when the first samples were unstable.
        unstable: The samples spread too widely to stand for one time, after every retry
            (:func:`attnprof.noise.unstable`); pages flag the point instead of using it silently.
        tflops: Causal FLOPs (:func:`attnprof.inputs.causal_flops`) over ``gpu_ms``, in TFLOP/s.
        peak_extra_bytes: Peak device memory during the timed calls above what was allocated before them
            (``None`` on the CPU).
        dispatch_us: Median CPU time to issue one call (to the call's return), µs.
        sdpa_choice: For ``sdpa_auto``: the backend SDPA ran (``flash``, ``mem_efficient``, ``cudnn``, ``math``).
        sdpa_evidence: The kernel (or, on the CPU, the ATen op) that identified ``sdpa_choice``.
        wall_s: Wall time spent on this point, warm-up and compilation included.
        remeasured: Why the sweep measured this point a second time (one of :data:`SUSPECT_REASONS`), or ``None``.
            The faster of the two measurements is kept: interference (clocks down, other work on the device or the
            CPU) only ever slows a call down.
        first_gpu_ms: The median of the first measurement of a re-measured point, ms.
        first_gpu_ms_lo: Lower end of its confidence interval.
        first_gpu_ms_hi: Upper end of it.
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
    gpu_ms_lo: float | None = None
    gpu_ms_hi: float | None = None
    gpu_ms_p10: float | None = None
    gpu_ms_p90: float | None = None
    attempts: int = 1
    unstable: bool = False
    remeasured: str | None = None
    first_gpu_ms: float | None = None
    first_gpu_ms_lo: float | None = None
    first_gpu_ms_hi: float | None = None

    @property
    def ok(self) -> bool:
        """True when the point was measured."""
        return self.status == "ok"

    @property
    def reliable(self) -> bool:
        """Measured, with a band narrow enough to decide something (:func:`attnprof.noise.too_wide`)."""
        return self.ok and self.gpu is not None and not noise.too_wide(self.gpu)

    @property
    def first(self) -> Figure | None:
        """The first measurement of a re-measured point (ms), or ``None``."""
        if self.first_gpu_ms is None:
            return None
        lo = self.first_gpu_ms if self.first_gpu_ms_lo is None else self.first_gpu_ms_lo
        hi = self.first_gpu_ms if self.first_gpu_ms_hi is None else self.first_gpu_ms_hi
        return Figure(self.first_gpu_ms, lo, hi, 0)

    @property
    def gpu(self) -> Figure | None:
        """The median time (ms) with its confidence interval, or ``None`` when not measured."""
        if self.gpu_ms is None:
            return None
        lo = self.gpu_ms if self.gpu_ms_lo is None else self.gpu_ms_lo
        hi = self.gpu_ms if self.gpu_ms_hi is None else self.gpu_ms_hi
        return Figure(self.gpu_ms, lo, hi, self.repetitions)

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
        outcome: Whether SDPA's own call is as fast as the fastest backend: ``"no"`` when it is slower by at least
            the minimum effect (:data:`attnprof.noise.GPU_MIN_EFFECT`) even at the low end of the band of ``margin``
            (bands at least ±:data:`attnprof.noise.GPU_FLOOR`), else ``"yes"`` when it picked that backend, and
            ``"tie"`` (too close to call) when it picked another; ``"unreliable"`` (a time measured with a band too
            wide to decide anything), or ``None`` when either side is unknown. The low end, not the median: two
            cold builds on one H200 put the median either side of the line (+4.2 %, +7.8 %, bands
            [-1.8 %, +10.7 %] and [+1.5 %, +14.4 %]) and the answer flipped.
        auto: ``sdpa_auto``'s time with its band (ms).
        fastest: The fastest forced backend's time with its band (ms).
        margin: How much slower ``sdpa_auto`` is than the fastest forced backend, with the band both allow
            (:func:`attnprof.noise.margin`, ±3 % floors).
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
    outcome: str | None = None
    auto: Figure | None = None
    fastest: Figure | None = None
    margin: Figure | None = None

    @property
    def pick_variant(self) -> str | None:
        """The forced variant that runs the picked backend (``"cudnn"`` -> ``"sdpa_cudnn"``)."""
        return variants.by_sdpa_family(self.pick)

    @property
    def agrees(self) -> bool | None:
        """Whether SDPA picked the fastest of its backends (``None`` when either side is unknown)."""
        if self.pick_variant is None or self.fastest_backend is None:
            return None
        return self.pick_variant == self.fastest_backend

    @property
    def pick_slowdown(self) -> float | None:
        """How much slower SDPA's own call is than the fastest backend: ``0.12`` = 12 % slower."""
        return None if self.margin is None else self.margin.median


@dataclass
class Sweep:
    """A whole sweep: the configuration, the points, the ceilings and where it was measured.

    The JSON file holds :meth:`to_dict`; :data:`SCHEMA_VERSION` versions it. ``plan`` records how every point was
    timed (the fields of :class:`attnprof.measure.timing.Plan`). ``complete`` is False when the time budget ran out
    before every point was measured; ``stopped`` then says where and what was skipped (the skipped points carry status
    ``skipped`` and a reason). ``recheck`` is the most points the sweep would measure a second time
    (:meth:`suspects`); the points it did carry :attr:`SweepPoint.remeasured`.
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
    plan: dict[str, float] = field(default_factory=dict)
    timer: str = "perf_counter"
    budget_s: float = 0.0
    elapsed_s: float = 0.0
    complete: bool = True
    stopped: str | None = None
    note: str | None = None
    recheck: int = 0
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
        """The measured point with the lowest median time at ``(head_dim, seq)``, ``sdpa_auto`` and points too wide to
        decide anything (:attr:`SweepPoint.reliable`) left out.

        Args:
            head_dim: Head dimension.
            seq: Sequence length.
            among: Variants to consider (all of the sweep's when ``None``).
        """
        names = set(among) if among is not None else set(self.variants)
        names.discard(variants.sdpa_chooser())
        candidates = [
            p
            for p in self.points
            if p.reliable and p.head_dim == head_dim and p.seq == seq and p.variant in names and p.gpu_ms is not None
        ]
        return min(candidates, key=lambda p: p.gpu_ms) if candidates else None  # type: ignore[arg-type,return-value]

    def sdpa_comparisons(self) -> list[SdpaComparison]:
        """SDPA's pick against the fastest backend, at every ``(head_dim, seq)`` where ``sdpa_auto`` has a point.

        The fastest backend is picked among the forced backends measured with a band that can decide something
        (:attr:`SweepPoint.reliable`); SDPA's own time is compared with it (see :class:`SdpaComparison`)."""
        out = []
        chooser = variants.sdpa_chooser()
        for auto in sorted((p for p in self.points if p.variant == chooser), key=lambda p: (p.head_dim, p.seq)):
            pick = auto.sdpa_choice if auto.ok else None
            forced = self.point(variants.by_sdpa_family(pick) or "", auto.head_dim, auto.seq)
            backend = self.fastest(auto.head_dim, auto.seq, among=variants.forced())
            overall = self.fastest(auto.head_dim, auto.seq)
            outcome = margin = None
            if auto.ok and backend is not None:
                if not auto.reliable or not backend.reliable:
                    outcome = "unreliable"
                else:
                    margin = noise.margin(auto.gpu, backend.gpu, noise.GPU_FLOOR)  # type: ignore[arg-type]
                    # "no" only when slower by at least the minimum effect at the band's low end: a difference
                    # whose band straddles the line said "no" in one cold build and "yes" in the next
                    outcome = "no" if margin.lo >= noise.GPU_MIN_EFFECT else "yes" if forced is backend else "tie"
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
                    outcome=outcome,
                    auto=auto.gpu if auto.ok else None,
                    fastest=backend.gpu if backend else None,
                    margin=margin,
                )
            )
        return out

    def suspects(
        self, references: Mapping[tuple[str, int, int], Figure] | None = None
    ) -> list[tuple[SweepPoint, str]]:
        """The measured points whose measurement the sweep itself contradicts, with the reason (one of
        :data:`SUSPECT_REASONS`), the most telling reasons first (``"reference"``, ``"twin"``, ``"neighbours"``,
        ``"wide"``), in the sweep's order within a reason; each point once, with the first reason that names it.

        ``"wide"``: its band is too wide to decide anything (:func:`attnprof.noise.too_wide`), or its samples are
        unstable. ``"neighbours"``: it took longer than the same variant at the next longer sequence (same head
        dim), beyond the noise (a longer sequence never costs less), or more than :data:`GROWTH_LIMIT` times the
        next shorter one (doubling the length at most quadruples the work). ``"twin"``: ``sdpa_auto`` and the forced
        variant of the backend it ran (the same kernel) disagree beyond the noise; the slower of the two is named.
        ``"reference"``: slower beyond the noise than ``references[(variant, head_dim, seq)]``, the same shape
        measured elsewhere by the same timer (a variant page). Bands are at least ±3 % (:data:`attnprof.noise.
        GPU_FLOOR`); orders against a longer sequence or a twin take the GPU minimum effect too.
        """
        found: dict[int, str] = {}

        def flag(p: SweepPoint, why: str) -> None:
            found.setdefault(id(p), why)

        def above(a: Figure, b: Figure, min_effect: float = noise.GPU_MIN_EFFECT) -> bool:
            return noise.compare(a, b, noise.GPU_FLOOR, min_effect=min_effect) == "higher"

        ok = [p for p in self.points if p.ok and p.gpu is not None]
        # the most telling reason first: a point is flagged once, with the reason found first
        for p in ok:
            ref = (references or {}).get((p.variant, p.head_dim, p.seq))
            if ref is not None and above(p.gpu, ref, 0.0):  # type: ignore[arg-type]
                flag(p, "reference")
        for auto in (p for p in ok if p.variant == variants.sdpa_chooser()):
            twin = self.point(variants.by_sdpa_family(auto.sdpa_choice) or "", auto.head_dim, auto.seq)
            if twin is None or not twin.ok or twin.gpu is None:
                continue
            if above(auto.gpu, twin.gpu):  # type: ignore[arg-type]
                flag(auto, "twin")
            elif above(twin.gpu, auto.gpu):  # type: ignore[arg-type]
                flag(twin, "twin")
        for p in ok:
            line = [q for q in self.points_of(p.variant, p.head_dim) if q.ok and q.gpu is not None]
            i = line.index(p)
            longer = line[i + 1] if i + 1 < len(line) else None
            shorter = line[i - 1] if i > 0 else None
            if longer is not None and above(p.gpu, longer.gpu):  # type: ignore[arg-type]
                flag(p, "neighbours")
            if shorter is not None and p.seq == 2 * shorter.seq:
                limit = shorter.gpu.scaled(GROWTH_LIMIT)  # type: ignore[union-attr]
                if above(p.gpu, limit, 0.0):  # type: ignore[arg-type]
                    flag(p, "neighbours")
        for p in ok:
            if not p.reliable or p.unstable:
                flag(p, "wide")
        order = {p: i for i, p in enumerate(("reference", "twin", "neighbours", "wide"))}
        named = [(p, found[id(p)]) for p in self.points if id(p) in found]
        return sorted(named, key=lambda pw: order[pw[1]])

    def unreliable(self) -> list[SweepPoint]:
        """Measured points whose band is too wide to decide anything, even after a re-measurement."""
        return [p for p in self.points if p.ok and not p.reliable]

    def remeasured(self) -> list[SweepPoint]:
        """Points the sweep measured a second time (see :meth:`suspects`)."""
        return [p for p in self.points if p.remeasured]

    def unstable(self) -> list[SweepPoint]:
        """Measured points whose samples spread too widely to stand for one time, even after a retry."""
        return [p for p in self.points if p.ok and p.unstable]

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
        try:
            d = dict(data)
            d["environment"] = Environment(**d["environment"])
            d["points"] = [SweepPoint(**p) for p in d.get("points", [])]
            d["ceilings"] = Ceilings(**d["ceilings"]) if d.get("ceilings") else None
            return cls(**d)
        except (TypeError, KeyError, AttributeError) as exc:  # a field missing or unknown: written by other code
            raise results.StaleResultError(f"does not match the sweep format: {exc}") from exc


#: The sequence-length sweep: ``sweep__<device>.json``.
KIND: kinds.Kind[Sweep] = kinds.Kind("sweep", "sweep file", Sweep, bundle="sweep")
filename, dumps, save, load = KIND.filename, KIND.dumps, KIND.save, KIND.load


# --- roofline -------------------------------------------------------------------------------------------------------


def materializes_scores(variant: str, sdpa_choice: str | None = None) -> bool:
    """Whether ``variant`` writes the ``[seq, seq]`` score matrix to device memory (``sdpa_auto`` does when it
    picked the math backend)."""
    v = variants.get(variant)
    if v.sdpa_chooses:
        v = variants.get(variants.by_sdpa_family(sdpa_choice) or v.name)
    return v.materializes_scores


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
    flops = causal_flops((batch, heads, p.seq, p.head_dim))
    nbytes = min_bytes(p.variant, batch, heads, p.seq, p.head_dim, dtype, p.sdpa_choice)
    matmul = bandwidth = None
    if ceilings is not None and p.ok and p.gpu_ms:
        matmul = (p.tflops or flops / (p.gpu_ms * 1e-3) / 1e12) / ceilings.matmul_tflops
        bandwidth = nbytes / (p.gpu_ms * 1e-3) / (ceilings.bandwidth_gbs * 1e9)
    return Roofline(flops, nbytes, flops / nbytes, materializes_scores(p.variant, p.sdpa_choice), matmul, bandwidth)
