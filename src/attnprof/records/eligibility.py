"""What SDPA's backends say about given inputs: the inputs asked about, each backend's verdict in PyTorch's words,
SDPA's own pick, and (for the eligibility map) the grid of conditions saved as one versioned file.

Written by :mod:`attnprof.measure.backends` (one set of inputs) and :mod:`attnprof.measure.eligibility` (the grid);
read by the pages, the claims and ``attnprof why``. No torch here.

A backend's verdict has two halves that can disagree:

``check``
    What PyTorch's own check answers, without running anything: ``accepts`` or ``refuses`` (with PyTorch's reason,
    and the names of the checks that failed when PyTorch named them), or why it could not be asked: ``cuda_only``
    (a CUDA backend asked about CPU inputs: SDPA's CPU dispatch has only flash and math), ``no_cuda`` (CUDA inputs
    asked where there is no CUDA device), ``no_check`` (this torch has no such check), ``error`` (the check itself
    raised; the reason says what).
``call``
    What one real call with that backend forced did: ``ran``, or a failure status of
    :func:`attnprof.measure.failure.failure` (``unsupported``, ``oom``, ``error``) with PyTorch's reason; ``None``
    when no call was made.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from attnprof.noise import Figure
from attnprof.records import kinds
from attnprof.records.results import Environment, StaleResultError

#: SDPA's backends, as ``torch.nn.attention.SDPBackend`` names them, in the order the tables show them.
BACKENDS: tuple[str, ...] = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
#: What a check can answer (see the module docstring).
CHECKS: tuple[str, ...] = ("accepts", "refuses", "cuda_only", "no_cuda", "no_check", "error")
#: Why a whole set of inputs could not be asked about.
UNASKED: tuple[str, ...] = ("no_torch", "no_cuda", "no_shapes", "error")


@dataclass(frozen=True)
class Operand:
    """One input tensor as the checks see it: shape, dtype (``"bfloat16"``, ``"bool"``, ...) and strides.

    Attributes:
        shape: Sizes; for a nested (jagged) tensor, the ragged dimension holds its longest length.
        dtype: A ``torch`` dtype name.
        stride: Strides, or ``None`` for a contiguous tensor of ``shape``.
    """

    shape: tuple[int, ...]
    dtype: str
    stride: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "stride": None if self.stride is None else list(self.stride),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Operand | None:
        if data is None:
            return None
        stride = data.get("stride")
        return cls(tuple(data["shape"]), data["dtype"], None if stride is None else tuple(stride))


@dataclass
class Verdict:
    """One backend's answer for one set of inputs.

    Attributes:
        backend: ``SDPBackend`` name (:data:`BACKENDS`).
        check: What the check answered (:data:`CHECKS`).
        reason: PyTorch's words when it refuses; why it was not asked otherwise; ``None`` when it accepts.
        failed: The names of the checks PyTorch says failed (``check_for_attn_mask``), when it named them.
        asked: The PyTorch function that answered (``torch.backends.cuda.can_use_flash_attention``).
        call: What one real call with this backend forced did: ``ran``, a failure status, or ``None`` (not called).
        call_reason: PyTorch's reason when the call failed.
        time_ms: The call's time (median and band, ms) where the grid timed it; ``None`` otherwise.
        issue_us: The CPU's time to issue that call (median and band of the timed calls, the GPU kept busy), µs;
            ``None`` where it was not timed or the file did not record it.
    """

    backend: str
    check: str
    reason: str | None = None
    failed: tuple[str, ...] = ()
    asked: str | None = None
    call: str | None = None
    call_reason: str | None = None
    time_ms: Figure | None = None
    issue_us: Figure | None = None

    @property
    def accepts(self) -> bool:
        return self.check == "accepts"

    @property
    def asked_ok(self) -> bool:
        """Whether the check gave an answer (accepts or refuses)."""
        return self.check in ("accepts", "refuses")

    @property
    def ran(self) -> bool:
        return self.call == "ran"

    @property
    def agrees(self) -> bool | None:
        """Whether the check and the call say the same (``None`` when either is missing)."""
        if not self.asked_ok or self.call is None:
            return None
        return self.accepts == self.ran

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["failed"] = list(self.failed)
        d["time_ms"] = None if self.time_ms is None else self.time_ms.to_dict()
        d["issue_us"] = None if self.issue_us is None else self.issue_us.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Verdict:
        d = dict(data)
        d["failed"] = tuple(d.get("failed") or ())
        d["time_ms"] = Figure.from_dict(d.get("time_ms"))
        d["issue_us"] = Figure.from_dict(d.get("issue_us"))
        return cls(**d)


@dataclass
class Answer:
    """Every backend's verdict for one set of inputs, and SDPA's own pick.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        query, key, value: The inputs (``None`` when not known).
        mask: The ``attn_mask`` (``None``: no mask).
        dropout_p: Dropout probability.
        is_causal: ``is_causal=True``.
        enable_gqa: ``enable_gqa=True`` (fewer KV heads than query heads).
        requires_grad: The inputs require gradients (a training step; the calls run the backward too).
        nested: The inputs are nested (jagged) tensors.
        verdicts: One per backend, in :data:`BACKENDS` order (none when the inputs could not be asked about).
        pick: The backend SDPA's selector picks for these inputs (an ``SDPBackend`` name), or ``None``.
        pick_reason: Why there is no pick, in PyTorch's words.
        ran: The backend the unforced call ran (read from the operators it dispatched), or ``None`` (not called, or
            it failed: ``ran_reason`` says why).
        ran_reason: PyTorch's reason when the unforced call failed.
        unasked: Why nothing could be asked (:data:`UNASKED`), or ``None``.
        unasked_reason: The details of ``unasked``.
    """

    device: str
    query: Operand | None
    key: Operand | None
    value: Operand | None
    mask: Operand | None = None
    dropout_p: float = 0.0
    is_causal: bool = False
    enable_gqa: bool = False
    requires_grad: bool = False
    nested: bool = False
    verdicts: list[Verdict] = field(default_factory=list)
    pick: str | None = None
    pick_reason: str | None = None
    ran: str | None = None
    ran_reason: str | None = None
    unasked: str | None = None
    unasked_reason: str | None = None

    def verdict(self, backend: str) -> Verdict | None:
        """The verdict of ``backend`` (an ``SDPBackend`` name), or ``None``."""
        return next((v for v in self.verdicts if v.backend == backend), None)

    @property
    def accepting(self) -> tuple[str, ...]:
        """The backends whose check accepts, in :data:`BACKENDS` order."""
        return tuple(v.backend for v in self.verdicts if v.accepts)

    @property
    def disagreements(self) -> tuple[str, ...]:
        """The backends whose check and call disagree, and ``"pick"`` when the selector's pick is not what the
        unforced call ran."""
        out = tuple(v.backend for v in self.verdicts if v.agrees is False)
        if self.pick is not None and self.ran is not None and self.pick != self.ran:
            out += ("pick",)
        return out

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("query", "key", "value", "mask"):
            d[name] = None if d[name] is None else d[name].to_dict()
        d["verdicts"] = [v.to_dict() for v in self.verdicts]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Answer:
        d = dict(data)
        for name in ("query", "key", "value", "mask"):
            d[name] = Operand.from_dict(d.get(name))
        d["verdicts"] = [Verdict.from_dict(v) for v in d.get("verdicts", [])]
        return cls(**d)


# --- the grid of conditions -----------------------------------------------------------------------------------------

#: Version of the grid file (``eligibility__<device>.json``); a reader refuses any other.
GRID_VERSION = 1
#: How the masks are given: none, ``is_causal=True``, a boolean ``attn_mask`` (True: may attend), an additive float
#: ``attn_mask`` (0 or -inf) of the inputs' dtype. Both masks are causal, ``[batch, 1, seq, seq]``.
MASKS: tuple[str, ...] = ("none", "causal", "bool", "float")
#: How the inputs are laid out in memory: contiguous ``[B, H, S, D]``; ``transposed``, a ``[B, S, H, D]`` tensor
#: viewed as ``[B, H, S, D]`` (what a projection followed by ``view`` and ``transpose`` gives); ``strided``, head_dim
#: not contiguous (stride along it greater than 1); ``nested``, a nested (jagged) tensor whose rows have different
#: lengths (``seq`` the longest).
LAYOUTS: tuple[str, ...] = ("contiguous", "transposed", "strided", "nested")


@dataclass(frozen=True)
class Case:
    """One condition of the grid: the inputs of an SDPA call, as a reader would describe them.

    Attributes:
        shape: ``[batch, heads, seq, head_dim]`` of the queries.
        dtype: Canonical dtype name.
        kv_heads: Heads of the keys and values when fewer than the queries' (``enable_gqa=True``); ``None``: as many.
        mask: One of :data:`MASKS`.
        dropout: Dropout probability.
        requires_grad: The inputs require gradients, and each call runs the backward too.
        layout: One of :data:`LAYOUTS`.
    """

    shape: tuple[int, int, int, int]
    dtype: str
    kv_heads: int | None = None
    mask: str = "causal"
    dropout: float = 0.0
    requires_grad: bool = False
    layout: str = "contiguous"

    def __post_init__(self) -> None:
        if self.mask not in MASKS:
            raise ValueError(f"unknown mask {self.mask!r}; choose one of: {', '.join(MASKS)}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}; choose one of: {', '.join(LAYOUTS)}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"bad dropout {self.dropout!r}; expected a probability from 0 up to (not including) 1")
        heads = self.shape[1]
        if self.kv_heads is not None and (self.kv_heads <= 0 or heads % self.kv_heads):
            raise ValueError(f"bad kv_heads {self.kv_heads}: the {heads} query heads must share them in equal groups")

    def differs(self, other: Case) -> dict[str, Any]:
        """The fields whose values differ from ``other``'s (``shape`` split into batch, heads, seq and head_dim)."""
        mine, theirs = self.flat(), other.flat()
        return {k: v for k, v in mine.items() if theirs[k] != v}

    def flat(self) -> dict[str, Any]:
        """Every field by name, ``shape`` split into batch, heads, seq and head_dim."""
        b, h, s, d = self.shape
        d_ = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "shape"}
        return {"batch": b, "heads": h, "seq": s, "head_dim": d, **d_}

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["shape"] = list(self.shape)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Case:
        d = dict(data)
        d["shape"] = tuple(d["shape"])
        return cls(**d)


@dataclass
class Row:
    """One row of the grid: a family of conditions (``"dtype"``, ``"head_dim"``...), one case, its answer, and the
    seconds measuring it took (0 for a case measured in an earlier row)."""

    family: str
    case: Case
    answer: Answer
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "case": self.case.to_dict(), "answer": self.answer.to_dict(),
                "seconds": self.seconds}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Row:
        return cls(data["family"], Case.from_dict(data["case"]), Answer.from_dict(data["answer"]),
                   float(data.get("seconds", 0.0)))  # fmt: skip


@dataclass
class Grid:
    """The eligibility map of one device: every row, the base case the rows vary from, and how times were taken.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        base: The case every family varies one thing of.
        rows: The rows, family by family.
        environment: Where and when it was measured.
        timer: What timed the calls (:func:`attnprof.measure.timing.timer_name`).
        plan: The timing plan (:class:`attnprof.measure.timing.Plan` as a dict).
        unasked: Why nothing could be asked on this device (``no_cuda``...), or ``None``.
        unasked_reason: The details.
        seconds: Wall time of measuring the whole grid.
    """

    device: str
    base: Case
    rows: list[Row]
    environment: Environment
    timer: str = ""
    plan: dict[str, float] = field(default_factory=dict)
    unasked: str | None = None
    unasked_reason: str | None = None
    seconds: float = 0.0
    schema_version: int = GRID_VERSION

    @property
    def families(self) -> tuple[str, ...]:
        """The families, in the order of the rows."""
        return tuple(dict.fromkeys(r.family for r in self.rows))

    def family(self, name: str) -> list[Row]:
        """The rows of the family ``name``."""
        return [r for r in self.rows if r.family == name]

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["base"] = self.base.to_dict()
        d["rows"] = [r.to_dict() for r in self.rows]
        d["environment"] = dataclasses.asdict(self.environment)
        return d

    @classmethod
    def from_dict(cls, data: Any) -> Grid:
        """Rebuild from :meth:`to_dict` output.

        Raises:
            StaleResultError: for another schema version, or data that is not a grid.
        """
        try:
            d = dict(data)
            d["base"] = Case.from_dict(d["base"])
            d["rows"] = [Row.from_dict(r) for r in d["rows"]]
            d["environment"] = Environment(**d["environment"])
            return cls(**d)
        except (TypeError, KeyError, AttributeError, ValueError) as exc:
            raise StaleResultError(f"not an eligibility grid: {exc}") from exc


#: The eligibility map: ``eligibility__<device>.json``.
KIND: kinds.Kind[Grid] = kinds.Kind("eligibility", "eligibility map", Grid)
filename, save, load, find = KIND.filename, KIND.save, KIND.load, KIND.find
