"""CPU costs that do not depend on the shape, measured once per build: the file ``fixed_costs__<device>.json``.

Two costs are the same whatever the tensors are: entering and leaving the ``sdpa_kernel`` context that forces a
backend (it sets and restores four flags; nothing in it looks at a tensor), and what the profiler adds to each op it
records. A page that needs either cites the one figure of this file (:class:`FixedCosts`), measured directly with
thousands of calls by :func:`attnprof.measure.fixedcosts.measure_fixed_costs`, instead of working it out as the
difference of two per-shape measurements (which drift apart by more than the cost itself).

No torch here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from attnprof.noise import Figure
from attnprof.records import kinds
from attnprof.records.results import Environment, StaleResultError

SCHEMA_VERSION = 1


@dataclass
class FixedCosts:
    """The shape-independent CPU costs of one build, each a median with its 95% confidence interval over rounds.

    Each round takes ``calls`` samples of a figure and gives their median; the figure is the median of the rounds'
    medians, its interval the confidence interval of that median over the rounds
    (:func:`attnprof.noise.median_interval`): the rounds, not the single calls, are the independent samples, because
    CPU times drift with the machine's state.

    Attributes:
        device: The device whose profiler settings were used (CPU activities, and CUDA activities on ``"cuda"``).
        environment: Where it was measured.
        rounds: Rounds behind each figure.
        calls: Samples per round.
        forcing: Entering and leaving ``sdpa_kernel(backend)`` with nothing inside, µs per call, the backends of
            ``backends`` taken in turn; ``None`` when it could not be measured (``reason`` says why).
        backends: The ``SDPBackend`` members entered.
        op: The op whose calls measure the profiler's cost (``"aten::add"``, on one-element tensors on the device).
        op_us: That op's CPU time per call without the profiler, µs.
        profiled_op_us: The same with the profiler recording as the pages record (shapes too), µs.
        profiler_per_op: What the profiler adds to one call of the op, µs: ``profiled_op_us - op_us`` round by round.
        events_per_call: Events the profiler records on the CPU for one call of the op (the op and, on CUDA, its
            launch call), so that the cost per event can be read off too.
        reason: Why a figure is missing, in PyTorch's words.
    """

    device: str
    environment: Environment
    rounds: int
    calls: int
    forcing: Figure | None = None
    backends: list[str] = field(default_factory=list)
    op: str = "aten::add"
    op_us: Figure | None = None
    profiled_op_us: Figure | None = None
    profiler_per_op: Figure | None = None
    events_per_call: float | None = None
    reason: str | None = None
    kind: str = "fixed_costs"
    schema_version: int = SCHEMA_VERSION

    @property
    def filename(self) -> str:
        """``fixed_costs__<device>.json``."""
        return filename(self.device)

    @property
    def forcing_calls(self) -> int:
        """Calls of the forcing context behind :attr:`forcing`."""
        return self.rounds * self.calls if self.forcing is not None else 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FixedCosts:
        """Rebuild from :meth:`to_dict` output.

        Raises:
            attnprof.records.results.StaleResultError: for another schema version, or a document that is not a
                fixed-cost file.
        """
        try:
            d = dict(data)
            d["environment"] = Environment(**d["environment"])
            for key in ("forcing", "op_us", "profiled_op_us", "profiler_per_op"):
                d[key] = Figure.from_dict(d.get(key))
            return cls(**d)
        except (TypeError, KeyError, AttributeError) as exc:
            raise StaleResultError(f"not a fixed-cost file: {exc}") from exc


#: The shape-independent CPU costs: ``fixed_costs__<device>.json``.
KIND: kinds.Kind[FixedCosts] = kinds.Kind("fixed_costs", "fixed-cost file", FixedCosts)
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
