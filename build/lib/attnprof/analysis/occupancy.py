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

Device properties come from the trace's ``deviceProperties`` entry (see
:func:`attnprof.records.trace.device_properties`); per-architecture constants that the trace does not carry are in the
tables below.
"""

from __future__ import annotations

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
        limiter: The first of :attr:`limiters` (one of :data:`RESOURCES`).
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
        limiters: Every resource that allows the fewest blocks, in the order of :data:`RESOURCES`: several when
            they tie (registers and shared memory each allowing one block, say), and then raising only one of
            them would not raise the occupancy.
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
    limiters: tuple[str, ...] = ()


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def _props(props: dict[str, Any]) -> dict[str, int]:
    missing = [k for k in _REQUIRED if k not in props]
    if missing:
        raise ValueError(
            f"device properties lack {', '.join(missing)}; pass the trace's deviceProperties entry "
            "(attnprof.records.trace.device_properties), which has: " + (", ".join(sorted(props)) or "nothing")
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
    limiters = tuple(r for r in RESOURCES if limits[r] == blocks)
    active = blocks * warps_per_block
    return Occupancy(
        blocks_per_sm=blocks,
        active_warps=active,
        max_warps=max_warps,
        percent=100.0 * active / max_warps,
        limiter=limiters[0],
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
        limiters=limiters,
    )


def _why(o: Occupancy, limiter: str) -> str:
    """One limiter's arithmetic, in words."""
    if limiter == "registers":
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
    if limiter == "shared memory":
        reserved = f", {o.reserved_shared_memory} reserved included" if o.reserved_shared_memory else ""
        return f"{o.shared_memory_per_block} B/block{reserved}, of {o.shared_memory_per_sm} B per SM"
    if limiter == "threads":
        return f"{o.warps_per_block} warps/block, of {o.max_warps} warp slots per SM"
    return f"at most {o.limits['blocks per SM']} resident blocks per SM on this architecture"


def explain(o: Occupancy) -> str:
    r"""One line of English: how many blocks and warps fit, and which resources stop more from fitting (every one
    of them, when several allow the same number of blocks).

    >>> from attnprof.analysis.occupancy import theoretical, explain
    >>> h200 = {"computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
    ...         "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536,
    ...         "warpSize": 32, "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448}
    >>> print(explain(theoretical(255, 128, 49152, h200)).replace(": ", ":\n"))
    2 blocks/SM x 4 warps = 8 of 64 warps (12.5%), limited by registers:
    256 regs/thread x 128 threads = 32768 of 65536
    >>> print(explain(theoretical(168, 384, 132096, h200)).replace(": ", ":\n").replace("; ", ";\n"))
    1 block/SM x 12 warps = 12 of 64 warps (18.75%), limited by registers and shared memory:
    168 regs/thread x 384 threads = 64512 of 65536;
    133120 B/block, 1024 reserved included, of 233472 B per SM
    """
    blocks = "block" if o.blocks_per_sm == 1 else "blocks"
    warps = "warp" if o.warps_per_block == 1 else "warps"
    head = (
        f"{o.blocks_per_sm} {blocks}/SM x {o.warps_per_block} {warps} = {o.active_warps} of {o.max_warps} "
        f"warps ({o.percent:g}%)"
    )
    if o.blocks_per_sm == 0:
        head += ", cannot launch"
    limiters = o.limiters or (o.limiter,)
    return f"{head}, limited by {' and '.join(limiters)}: {'; '.join(_why(o, r) for r in limiters)}"
