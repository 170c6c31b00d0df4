"""Why some kernels report 0% occupancy: explanations tested against every kernel of a build.

Kineto's ``est. achieved occupancy %`` is an estimate, and some kernels report 0% although they clearly ran. This
module gathers, for every kernel of every result, what the trace reports next to what the launch configuration
allows (:func:`attnprof.analysis.occupancy.theoretical`, through :mod:`attnprof.analysis.summary`), and tests
candidate explanations for the zeros against all of them: an explanation predicts which kernels report 0%; a kernel it
predicts as zero that is not is a counterexample; a zero it does not predict is a miss.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from attnprof.analysis.occupancy import Occupancy
from attnprof.analysis.summary import Analysis

#: Launch calls whose name starts with this belong to the CUDA driver API (``cuLaunchKernel``,
#: ``cuLaunchKernelEx``); the others to the runtime API (``cudaLaunchKernel``, ``cudaLaunchKernelExC``).
DRIVER_API_PREFIX = "cuLaunch"
#: Shared memory a block may use without opting in to more (``sharedMemPerBlock``), when the trace lacks it.
DEFAULT_SHARED_MEMORY_PER_BLOCK = 48 * 1024


@dataclass(frozen=True)
class KernelOccupancy:
    """Reported and theoretical occupancy of one kernel of one result with one launch configuration, over its
    launches in the active steps (a kernel launched with two grids is two of these, as in the kernel table).

    Attributes:
        variant: The result's variant.
        name: The kernel name as the trace has it.
        short: Its decoded label (:func:`attnprof.analysis.kernels.decode`).
        family: Its decoded family.
        launches: Launches over the active steps.
        launch_api: The call that launched it (``"mixed: ..."`` when launches differ).
        grid: Grid of the launches.
        block: Block of the launches.
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
        limiter (one of :data:`attnprof.analysis.occupancy.RESOURCES`); ``None`` without a theoretical figure."""
        o = self.theoretical
        if o is None:
            return None
        grid = self.grid_percent
        return "grid" if grid is not None and grid < o.percent else o.limiter

    @property
    def limiters(self) -> tuple[str, ...]:
        """Everything that caps occupancy: ``("grid",)`` when the grid allows less than the resources do, else every
        resource that ties for the fewest blocks (:attr:`attnprof.analysis.occupancy.Occupancy.limiters`); ``()``
        without a theoretical figure."""
        o = self.theoretical
        if o is None:
            return ()
        if self.limiter == "grid":
            return ("grid",)
        return o.limiters or (o.limiter,)


def kernel_occupancies(analyses: Iterable[Analysis]) -> list[KernelOccupancy]:
    """Every kernel of every result that ran, reported against theoretical occupancy.

    Args:
        analyses: Analysed results (:func:`attnprof.analysis.summary.analyse`); those that did not run contribute
        nothing.

    Returns:
        One :class:`KernelOccupancy` per kernel row of each result (:attr:`Analysis.kernels`), results in the given
        order, kernels in table order. Memcpy and memset are left out.
    """
    out = []
    for a in analyses:
        if not a.result.ok:
            continue
        props = a.result.device_properties or {}
        default = int(props.get("sharedMemPerBlock") or DEFAULT_SHARED_MEMORY_PER_BLOCK)
        for row in a.kernels:
            out.append(
                KernelOccupancy(
                    variant=a.variant,
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
                    blocks_per_sm=row.blocks_per_sm,
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
