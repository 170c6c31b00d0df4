"""Theoretical occupancy of a kernel launch, computed the way NVIDIA's occupancy calculator does.

Occupancy is how many warps an SM keeps resident, as a share of the most it could hold. Four resources cap the
number of resident blocks; the smallest cap wins:

``registers``
    Registers are allocated per warp, ``registers_per_thread x warpSize`` rounded up to 256, within each of the
    SM's 4 sub-partitions (``regsPerMultiprocessor / 4`` registers each). A block must fit the per-block
    limit ``regsPerBlock`` too, with its warps rounded up to a multiple of 4.
``shared memory``
    The block's shared memory plus what the driver reserves per block (1 KiB from compute capability 8.0),
    rounded up to the allocation granularity (128 bytes from 8.0, 256 before), out of
    ``sharedMemPerMultiprocessor``.
``threads``
    ``maxThreadsPerMultiprocessor / warpSize`` warp slots, a block taking its thread count rounded up to warps.
``blocks per SM``
    The architecture's limit on resident blocks (:data:`MAX_BLOCKS_PER_SM`).

This follows ``cuda_occupancy.h`` (``cudaOccMaxActiveBlocksPerMultiprocessor``) with the default shared-memory
carveout and partitioned global caching off. It is *theoretical*: what the launch configuration allows, not what
the kernel achieved. Kineto's ``est. achieved occupancy %`` additionally caps it by the grid (a grid of fewer
blocks than the SMs could hold leaves slots empty), and reports 0 when the block uses more shared memory than the
48 KiB default per-block limit (it does not model the opt-in).

Device properties come from the trace's ``deviceProperties`` entry (see :func:`attnprof.trace.device_properties`);
per-architecture constants that the trace does not carry are in the tables below.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: Resident blocks per SM by compute capability (CUDA C++ Programming Guide, "Technical Specifications per
#: Compute Capability"; ``cudaOccMaxBlocksPerMultiprocessor`` in ``cuda_occupancy.h``).
MAX_BLOCKS_PER_SM: dict[tuple[int, int], int] = {
    (5, 0): 32,
    (5, 2): 32,
    (5, 3): 32,
    (6, 0): 32,
    (6, 1): 32,
    (6, 2): 32,
    (7, 0): 32,
    (7, 2): 32,
    (7, 5): 16,
    (8, 0): 32,
    (8, 6): 16,
    (8, 7): 16,
    (8, 9): 24,
    (9, 0): 32,
    (10, 0): 32,
    (10, 3): 32,
    (12, 0): 32,
}
#: Registers per warp are allocated in units of this many (all architectures above).
REGISTER_ALLOCATION_UNIT = 256
#: Most registers one thread may use.
MAX_REGISTERS_PER_THREAD = 255
#: Register-file sub-partitions per SM (2 on compute capability 6.0, 4 everywhere else above).
SUB_PARTITIONS = 4
#: Shared memory is allocated in units of this many bytes from compute capability 8.0 ...
SHARED_MEMORY_GRANULARITY = 128
#: ... and in units of this many before.
SHARED_MEMORY_GRANULARITY_PRE_AMPERE = 256
#: Shared memory the driver reserves per block from compute capability 8.0 (when the trace does not say).
RESERVED_SHARED_MEMORY = 1024

#: Resource names, in the order ties are resolved.
RESOURCES = ("registers", "shared memory", "threads", "blocks per SM")

_UNLIMITED = 2**31 - 1  # cuda_occupancy.h's INT_MAX: a resource the block does not use at all

_REQUIRED = (
    "computeMajor",
    "computeMinor",
    "maxThreadsPerBlock",
    "maxThreadsPerMultiprocessor",
    "regsPerBlock",
    "regsPerMultiprocessor",
    "warpSize",
    "sharedMemPerMultiprocessor",
    "sharedMemPerBlockOptin",
)


@dataclass(frozen=True)
class Occupancy:
    """The theoretical occupancy of one launch configuration.

    Attributes:
        blocks_per_sm: Resident blocks per SM (0: the configuration cannot launch).
        active_warps: ``blocks_per_sm`` x warps per block.
        max_warps: Warp slots per SM.
        percent: ``100 * active_warps / max_warps``.
        limiter: The resource that allows the fewest blocks (one of :data:`RESOURCES`; ties go to the first).
        limits: Blocks per SM each resource allows, keyed by :data:`RESOURCES`; 2**31 - 1 for a resource the
            block does not use.
        warps_per_block: Threads per block rounded up to whole warps.
        warp_size: Threads per warp.
        registers_per_warp: Registers allocated to one warp (rounded up to the allocation unit).
        registers_per_block: ``registers_per_warp x warps_per_block``.
        registers_per_sm: The SM's register file.
        sub_partitions: Register-file sub-partitions per SM.
        shared_memory_per_block: Shared memory allocated to one block, reservation and rounding included.
        reserved_shared_memory: The driver's per-block reservation inside ``shared_memory_per_block``.
        shared_memory_per_sm: Shared memory of the SM.
    """

    blocks_per_sm: int
    active_warps: int
    max_warps: int
    percent: float
    limiter: str
    limits: dict[str, int] = field(hash=False)
    warps_per_block: int = 0
    warp_size: int = 32
    registers_per_warp: int = 0
    registers_per_block: int = 0
    registers_per_sm: int = 0
    sub_partitions: int = SUB_PARTITIONS
    shared_memory_per_block: int = 0
    reserved_shared_memory: int = 0
    shared_memory_per_sm: int = 0


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def _props(props: dict[str, Any]) -> dict[str, int]:
    missing = [k for k in _REQUIRED if k not in props]
    if missing:
        raise ValueError(
            f"device properties lack {', '.join(missing)}; pass the trace's deviceProperties entry "
            "(attnprof.trace.device_properties), which has: " + (", ".join(sorted(props)) or "nothing")
        )
    return {k: int(props[k]) for k in _REQUIRED} | {
        k: int(props[k]) for k in ("reservedSharedMemPerBlock",) if props.get(k) is not None
    }


def theoretical(registers_per_thread: int, threads_per_block: int, shared_memory: int, props: dict) -> Occupancy:
    """Theoretical occupancy of a launch, as NVIDIA's occupancy calculator computes it.

    Args:
        registers_per_thread: Registers each thread uses (the trace's ``registers per thread``).
        threads_per_block: Threads in one block (``block`` multiplied out).
        shared_memory: Shared memory per block in bytes, static plus dynamic (the trace's ``shared memory``).
        props: Device properties as in the trace's ``deviceProperties`` entry: ``computeMajor``,
            ``computeMinor``, ``maxThreadsPerBlock``, ``maxThreadsPerMultiprocessor``, ``regsPerBlock``,
            ``regsPerMultiprocessor``, ``warpSize``, ``sharedMemPerMultiprocessor``, ``sharedMemPerBlockOptin``
            (and ``reservedSharedMemPerBlock`` if known; otherwise 1 KiB from compute capability 8.0).

    Returns:
        The :class:`Occupancy`, with the limit each resource imposes.

    Raises:
        ValueError: if a property is missing, the compute capability is not in :data:`MAX_BLOCKS_PER_SM`, or an
            argument is outside what the device accepts (threads outside 1..maxThreadsPerBlock, registers outside
            0..255, shared memory outside 0..sharedMemPerBlockOptin).
    """
    p = _props(props)
    cc = (p["computeMajor"], p["computeMinor"])
    if cc not in MAX_BLOCKS_PER_SM:
        known = ", ".join(f"{a}.{b}" for a, b in MAX_BLOCKS_PER_SM)
        raise ValueError(f"compute capability {cc[0]}.{cc[1]} is not in the occupancy tables; known: {known}")
    if not 1 <= threads_per_block <= p["maxThreadsPerBlock"]:
        raise ValueError(
            f"threads_per_block={threads_per_block} is outside 1..{p['maxThreadsPerBlock']} (maxThreadsPerBlock)"
        )
    if not 0 <= registers_per_thread <= MAX_REGISTERS_PER_THREAD:
        raise ValueError(f"registers_per_thread={registers_per_thread} is outside 0..{MAX_REGISTERS_PER_THREAD}")
    if not 0 <= shared_memory <= p["sharedMemPerBlockOptin"]:
        raise ValueError(
            f"shared_memory={shared_memory} bytes is outside 0..{p['sharedMemPerBlockOptin']} "
            "(sharedMemPerBlockOptin)"
        )

    warp = p["warpSize"]
    warps_per_block = -(-threads_per_block // warp)
    max_warps = p["maxThreadsPerMultiprocessor"] // warp
    subs = 2 if cc == (6, 0) else SUB_PARTITIONS

    # registers (cudaOccMaxBlocksPerSMRegsLimit)
    regs_per_warp = _round_up(registers_per_thread * warp, REGISTER_ALLOCATION_UNIT)
    regs_per_block = regs_per_warp * warps_per_block
    if regs_per_warp == 0:
        by_regs = _UNLIMITED
    elif p["regsPerBlock"] < regs_per_warp * _round_up(warps_per_block, subs) or p["regsPerBlock"] < regs_per_block:
        by_regs = 0
    else:
        warps_per_sub = (p["regsPerMultiprocessor"] // subs) // regs_per_warp
        by_regs = warps_per_sub * subs // warps_per_block

    # shared memory (cudaOccMaxBlocksPerSMSmemLimit, default carveout)
    reserved = p.get("reservedSharedMemPerBlock", RESERVED_SHARED_MEMORY if cc >= (8, 0) else 0)
    granularity = SHARED_MEMORY_GRANULARITY if cc >= (8, 0) else SHARED_MEMORY_GRANULARITY_PRE_AMPERE
    smem_per_block = _round_up(shared_memory + reserved, granularity)
    by_smem = p["sharedMemPerMultiprocessor"] // smem_per_block if smem_per_block else _UNLIMITED

    limits = {
        "registers": by_regs,
        "shared memory": by_smem,
        "threads": max_warps // warps_per_block,
        "blocks per SM": MAX_BLOCKS_PER_SM[cc],
    }
    blocks = min(limits.values())
    limiter = next(r for r in RESOURCES if limits[r] == blocks)
    active = blocks * warps_per_block
    return Occupancy(
        blocks_per_sm=blocks,
        active_warps=active,
        max_warps=max_warps,
        percent=100.0 * active / max_warps,
        limiter=limiter,
        limits=limits,
        warps_per_block=warps_per_block,
        warp_size=warp,
        registers_per_warp=regs_per_warp,
        registers_per_block=regs_per_block,
        registers_per_sm=p["regsPerMultiprocessor"],
        sub_partitions=subs,
        shared_memory_per_block=smem_per_block,
        reserved_shared_memory=reserved,
        shared_memory_per_sm=p["sharedMemPerMultiprocessor"],
    )


def _why(o: Occupancy) -> str:
    """The limiter's arithmetic, in words."""
    if o.limiter == "registers":
        threads = o.warps_per_block * o.warp_size
        s = (
            f"{o.registers_per_warp // o.warp_size} regs/thread x {threads} threads = "
            f"{o.registers_per_block} of {o.registers_per_sm}"
        )
        if o.registers_per_block and o.registers_per_sm // o.registers_per_block != o.blocks_per_sm:
            per_sub = o.registers_per_sm // o.sub_partitions
            s += (
                f"; registers are handed out per warp ({o.registers_per_warp}) within {o.sub_partitions} "
                f"sub-partitions of {per_sub}, so {per_sub // o.registers_per_warp * o.sub_partitions} warps fit"
            )
        return s
    if o.limiter == "shared memory":
        reserved = f", {o.reserved_shared_memory} reserved included" if o.reserved_shared_memory else ""
        return f"{o.shared_memory_per_block} B/block{reserved}, of {o.shared_memory_per_sm} B per SM"
    if o.limiter == "threads":
        return f"{o.warps_per_block} warps/block, of {o.max_warps} warp slots per SM"
    return f"at most {o.limits['blocks per SM']} resident blocks per SM on this architecture"


def explain(o: Occupancy) -> str:
    r"""One line of English: how many blocks and warps fit, and which resource stops more from fitting.

    >>> from attnprof.occupancy import theoretical, explain
    >>> h200 = {"computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
    ...         "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536,
    ...         "warpSize": 32, "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448}
    >>> print(explain(theoretical(255, 128, 49152, h200)).replace(": ", ":\n"))
    2 blocks/SM x 4 warps = 8 of 64 warps (12.5%), limited by registers:
    256 regs/thread x 128 threads = 32768 of 65536
    """
    blocks = "block" if o.blocks_per_sm == 1 else "blocks"
    warps = "warp" if o.warps_per_block == 1 else "warps"
    head = (
        f"{o.blocks_per_sm} {blocks}/SM x {o.warps_per_block} {warps} = {o.active_warps} of {o.max_warps} "
        f"warps ({o.percent:g}%)"
    )
    if o.blocks_per_sm == 0:
        head += ", cannot launch"
    return f"{head}, limited by {o.limiter}: {_why(o)}"


# --- reported against theoretical, over every kernel of a build -----------------------------------------------------
#
# Kineto's "est. achieved occupancy %" is an estimate, and some kernels report 0% although they clearly ran. The
# functions below gather, for every kernel of every result, what the trace reports next to what the launch
# configuration allows, and test candidate explanations for the zeros against all of them: an explanation predicts
# which kernels report 0%; a kernel it predicts as zero that is not is a counterexample; a zero it does not predict
# is a miss.

#: Launch calls whose name starts with this belong to the CUDA driver API (``cuLaunchKernel``,
#: ``cuLaunchKernelEx``); the others to the runtime API (``cudaLaunchKernel``, ``cudaLaunchKernelExC``).
DRIVER_API_PREFIX = "cuLaunch"
#: Shared memory a block may use without opting in to more (``sharedMemPerBlock``), when the trace lacks it.
DEFAULT_SHARED_MEMORY_PER_BLOCK = 48 * 1024


@dataclass(frozen=True)
class KernelOccupancy:
    """Reported and theoretical occupancy of one kernel of one result, over its launches in the active steps.

    Attributes:
        variant: The result's variant.
        name: The kernel name as the trace has it.
        short: Its decoded label (:func:`attnprof.kernels.decode`).
        family: Its decoded family.
        launches: Launches over the active steps.
        launch_api: The call that launched it (``"mixed: ..."`` when launches differ).
        grid: Grid of the (most common) launch.
        block: Block of the (most common) launch.
        registers_per_thread: Registers per thread.
        shared_memory: Shared memory per block in bytes, static plus dynamic.
        shared_memory_default: The device's per-block shared memory without opt-in (``sharedMemPerBlock``).
        blocks_per_sm: The trace's ``blocks per SM`` (blocks of the grid / SMs), median over the launches.
        reported: The trace's ``est. achieved occupancy %``, median over the launches.
        theoretical: What the launch configuration allows (:func:`theoretical`), or ``None`` when it cannot be
            computed (no device properties, unknown device).
    """

    variant: str
    name: str
    short: str
    family: str
    launches: int
    launch_api: str | None
    grid: tuple[int, ...] | None
    block: tuple[int, ...] | None
    registers_per_thread: int | None
    shared_memory: int | None
    shared_memory_default: int
    blocks_per_sm: float | None
    reported: float | None
    theoretical: Occupancy | None

    @property
    def driver_api(self) -> bool:
        """Launched through the driver API (every launch, when they differ)."""
        api = self.launch_api or ""
        if api.startswith("mixed: "):
            return all(a.startswith(DRIVER_API_PREFIX) for a in api.removeprefix("mixed: ").split(", "))
        return api.startswith(DRIVER_API_PREFIX)

    @property
    def above_default_shared_memory(self) -> bool:
        """Uses more shared memory per block than the device grants without opt-in."""
        return self.shared_memory is not None and self.shared_memory > self.shared_memory_default

    @property
    def small_grid(self) -> bool:
        """Fewer blocks in the grid than SMs (the trace's ``blocks per SM`` below 1)."""
        return self.blocks_per_sm is not None and self.blocks_per_sm < 1

    @property
    def zero(self) -> bool:
        """Reported occupancy is 0%."""
        return self.reported == 0

    @property
    def grid_percent(self) -> float | None:
        """The occupancy the grid allows on its own: ``blocks per SM x warps per block / warp slots``, in %."""
        o = self.theoretical
        if o is None or self.blocks_per_sm is None or not o.max_warps:
            return None
        return 100.0 * self.blocks_per_sm * o.warps_per_block / o.max_warps

    @property
    def limiter(self) -> str | None:
        """What caps occupancy: ``"grid"`` when the grid allows less than the resources do, else the theoretical
        limiter (one of :data:`RESOURCES`); ``None`` without a theoretical figure."""
        o = self.theoretical
        if o is None:
            return None
        grid = self.grid_percent
        return "grid" if grid is not None and grid < o.percent else o.limiter


def kernel_occupancies(results: Iterable[Any]) -> list[KernelOccupancy]:
    """Every kernel of every result that ran, reported against theoretical occupancy.

    Args:
        results: :class:`~attnprof.results.Result` objects; those that did not run contribute nothing.

    Returns:
        One :class:`KernelOccupancy` per distinct kernel name of each result, results in the given order, kernels
        in the order of :func:`attnprof.trace.kernel_table`. Memcpy and memset are left out.
    """
    from . import trace  # trace imports this module

    out = []
    for result in results:
        if not result.ok:
            continue
        props = result.device_properties or {}
        default = int(props.get("sharedMemPerBlock") or DEFAULT_SHARED_MEMORY_PER_BLOCK)
        per_sm: dict[str, list[float]] = {}
        for step in result.steps:
            for a in step.kernels:
                if a.blocks_per_sm is not None:
                    per_sm.setdefault(a.name, []).append(a.blocks_per_sm)
        for row in trace.kernel_table(result.steps, props):
            if row.kind != "kernel":
                continue
            bps = per_sm.get(row.name)
            out.append(
                KernelOccupancy(
                    variant=result.variant,
                    name=row.name,
                    short=row.info.short,
                    family=row.info.family,
                    launches=row.count,
                    launch_api=row.launch_api,
                    grid=tuple(row.grid) if row.grid else None,
                    block=tuple(row.block) if row.block else None,
                    registers_per_thread=row.registers_per_thread,
                    shared_memory=row.shared_memory,
                    shared_memory_default=default,
                    blocks_per_sm=statistics.median(bps) if bps else None,
                    reported=row.reported_occupancy,
                    theoretical=row.theoretical,
                )
            )
    return out


#: The single explanations tested for a reported occupancy of 0%, by key: what each says, in English.
EXPLANATIONS: dict[str, str] = {
    "H1": "launched through the driver API (cuLaunchKernel*)",
    "H2": "more shared memory per block than the default per-block limit (sharedMemPerBlock, 48 KiB)",
    "H3": "fewer blocks in the grid than SMs (blocks per SM below 1)",
}

_PREDICTS_ZERO: dict[str, Callable[[KernelOccupancy], bool]] = {
    "H1": lambda k: k.driver_api,
    "H2": lambda k: k.above_default_shared_memory,
    "H3": lambda k: k.small_grid,
}


@dataclass(frozen=True)
class Hypothesis:
    """An explanation of 0% reported occupancy: one of :data:`EXPLANATIONS`, or several, any of which suffices.

    Attributes:
        parts: Keys of :data:`EXPLANATIONS`.
    """

    parts: tuple[str, ...]

    @property
    def key(self) -> str:
        """``"H2"``, or ``"H2 + H3"`` for a combination."""
        return " + ".join(self.parts)

    def predicts_zero(self, kernel: KernelOccupancy) -> bool:
        """True when any part predicts that ``kernel`` reports 0%."""
        return any(_PREDICTS_ZERO[p](kernel) for p in self.parts)


#: Every single explanation and every combination, simplest first.
HYPOTHESES: tuple[Hypothesis, ...] = tuple(
    Hypothesis(parts) for n in range(1, len(EXPLANATIONS) + 1) for parts in itertools.combinations(EXPLANATIONS, n)
)


@dataclass(frozen=True)
class HypothesisTest:
    """How one hypothesis fares against the kernels of a build.

    Attributes:
        hypothesis: The hypothesis tested.
        predicted: Kernels it predicts to report 0%.
        consistent: Predicted kernels that do report 0%.
        counterexamples: Predicted kernels that report more than 0%.
        missed: Kernels that report 0% although it does not predict them.
        tested: How many kernels (with a reported occupancy) were tested.
    """

    hypothesis: Hypothesis
    predicted: tuple[KernelOccupancy, ...]
    consistent: tuple[KernelOccupancy, ...]
    counterexamples: tuple[KernelOccupancy, ...]
    missed: tuple[KernelOccupancy, ...]
    tested: int

    @property
    def verdict(self) -> str:
        """``"refuted"`` (a counterexample), ``"incomplete"`` (no counterexample, but zeros it misses),
        ``"explains"`` (every zero predicted, no counterexample) or ``"untested"`` (no zero and no prediction)."""
        if self.counterexamples:
            return "refuted"
        if self.missed:
            return "incomplete"
        return "explains" if self.consistent else "untested"


def check_hypotheses(
    kernels: Iterable[KernelOccupancy], hypotheses: Iterable[Hypothesis] = HYPOTHESES
) -> list[HypothesisTest]:
    """Test each hypothesis against every kernel that has a reported occupancy.

    Args:
        kernels: From :func:`kernel_occupancies`.
        hypotheses: The hypotheses to test, :data:`HYPOTHESES` by default.

    Returns:
        One :class:`HypothesisTest` per hypothesis, in the given order.
    """
    tested = [k for k in kernels if k.reported is not None]
    zeros = [k for k in tested if k.zero]
    out = []
    for h in hypotheses:
        predicted = tuple(k for k in tested if h.predicts_zero(k))
        out.append(
            HypothesisTest(
                hypothesis=h,
                predicted=predicted,
                consistent=tuple(k for k in predicted if k.zero),
                counterexamples=tuple(k for k in predicted if not k.zero),
                missed=tuple(k for k in zeros if not h.predicts_zero(k)),
                tested=len(tested),
            )
        )
    return out


def supported(tests: Iterable[HypothesisTest]) -> list[HypothesisTest]:
    """The simplest hypotheses that explain every zero without a counterexample (verdict ``"explains"``).

    "Simplest" is fewest parts, so no part of an answer can be dropped. Several answers of the same size mean the
    data cannot tell them apart; none means no tested hypothesis explains the zeros. In the given order.
    """
    good = [t for t in tests if t.verdict == "explains"]
    fewest = min((len(t.hypothesis.parts) for t in good), default=0)
    return [t for t in good if len(t.hypothesis.parts) == fewest]
