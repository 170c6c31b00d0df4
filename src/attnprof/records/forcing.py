"""What a call costs the CPU, measured side by side at every shape of the decision table: the file
``forcing__<device>.json``.

Forcing a backend is more than the empty ``sdpa_kernel`` context (:mod:`attnprof.records.fixedcosts`): inside it,
SDPA dispatches another way, and the forced call can take longer to issue than SDPA's own choice by much more than
the context alone. What the user pays is the whole difference, so that is what is measured: at each shape of the
decision table (training, prefill and decoding, each at its lengths), SDPA's own choice and every backend it can be
forced to (and the naive code) are issued in the same rounds, in turn, and each round gives one median per call and
one difference per forced call against SDPA's own choice in that round. The figures are the medians over the rounds
with their confidence intervals (:func:`attnprof.noise.median_interval`): the rounds are the samples, because CPU
times drift with the state of the machine by more than they vary from call to call.

The issue time of a call is the CPU time until the call returns, the device idle before it (so that the launch queue
never blocks): what the CPU spends before it can issue the next call. Where it is longer than the GPU's time, the
GPU waits for the CPU and the step is CPU-bound (:mod:`attnprof.analysis.verdicts`).

Written by :mod:`attnprof.measure.forcing`; no torch here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from attnprof.noise import Figure
from attnprof.records import kinds
from attnprof.records.results import Environment, StaleResultError

SCHEMA_VERSION = 1
#: How a call of a case can end: issued and timed, or why not (PyTorch's refusal, out of memory, a call too slow to
#: be worth timing on the CPU side, no CUDA).
STATUSES: tuple[str, ...] = ("ok", "unsupported", "oom", "error", "slow", "no_cuda")


@dataclass
class IssueRow:
    """One call of one case.

    Attributes:
        variant: The registry name.
        status: One of :data:`STATUSES`.
        reason: Why it was not timed (PyTorch's words for a refusal).
        issue: CPU time until the call returns, µs: the median over the rounds of each round's median, with its
            confidence interval over the rounds.
        over_auto: This call's issue time minus SDPA's own choice's, µs, round by round (the two timed in the same
            round), median and interval over the rounds; ``None`` for SDPA's own choice itself.
        wall_ms: One warmed call until the device finished, ms (the time the slow rule looked at).
    """

    variant: str
    status: str = "ok"
    reason: str | None = None
    issue: Figure | None = None
    over_auto: Figure | None = None
    wall_ms: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.issue is not None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for key in ("issue", "over_auto"):
            d[key] = None if getattr(self, key) is None else getattr(self, key).to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> IssueRow:
        d = dict(d)
        for key in ("issue", "over_auto"):
            d[key] = Figure.from_dict(d.get(key))
        return cls(**d)


@dataclass
class ForcingCase:
    """Every call of one workload at one shape, issued side by side.

    Attributes:
        workload: ``"train"``, ``"prefill"`` or ``"decode"``.
        shape: ``[batch, heads, seq, head_dim]`` of the queries.
        dtype: Input dtype name.
        kv_heads, kv_len: The KV cache of a decoding case (``None`` otherwise).
        rounds: Rounds behind each figure.
        calls: Calls per variant and round.
        rows: One per call, in the order of the registry.
        seconds: Wall time of the case, warm-up included.
    """

    workload: str
    shape: list[int]
    dtype: str
    kv_heads: int | None = None
    kv_len: int | None = None
    rounds: int = 0
    calls: int = 0
    rows: list[IssueRow] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def length(self) -> int:
        """The length the decision table lists the case under: the cache for decoding, else the sequence."""
        return self.kv_len if self.kv_len is not None else self.shape[2]

    def row(self, variant: str) -> IssueRow | None:
        """The row of ``variant``, or ``None``."""
        return next((r for r in self.rows if r.variant == variant), None)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["rows"] = [r.to_dict() for r in self.rows]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ForcingCase:
        d = dict(d)
        d["rows"] = [IssueRow.from_dict(r) for r in d.get("rows", [])]
        return cls(**d)


@dataclass
class Forcing:
    """The side-by-side issue times of one build, case by case.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        environment: Where and when.
        cases: One per shape of the decision table.
        seconds: Wall time of the whole measurement.
    """

    device: str
    environment: Environment
    cases: list[ForcingCase] = field(default_factory=list)
    seconds: float = 0.0
    kind: str = "forcing"
    schema_version: int = SCHEMA_VERSION

    @property
    def filename(self) -> str:
        return filename(self.device)

    def case(self, workload: str, shape: list[int] | tuple[int, ...], dtype: str,
             kv_len: int | None = None) -> ForcingCase | None:  # fmt: skip
        """The case measured at exactly this workload, shape, dtype (and cache length), or ``None``."""
        for c in self.cases:
            if (c.workload, list(c.shape), c.dtype, c.kv_len) == (workload, list(shape), dtype, kv_len):
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "schema_version": self.schema_version,
            "device": self.device,
            "environment": dataclasses.asdict(self.environment),
            "cases": [c.to_dict() for c in self.cases],
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Forcing:
        """Rebuild from :meth:`to_dict` output (checked first by :data:`KIND`: version, kind, every field's type).

        Raises:
            attnprof.records.results.StaleResultError: for data that is not a forcing file.
        """
        try:
            return cls(
                str(data["device"]),
                Environment(**data["environment"]),
                [ForcingCase.from_dict(c) for c in data["cases"]],
                float(data.get("seconds", 0.0)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StaleResultError(f"not a forcing file of this attnprof: {exc!r}") from None


#: The side-by-side issue times: ``forcing__<device>.json``.
KIND: kinds.Kind[Forcing] = kinds.Kind("forcing", "forcing file", Forcing)
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
