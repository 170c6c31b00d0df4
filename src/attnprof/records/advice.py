"""What ``attnprof explain TRACE --measure`` measured, as data and as a file: each distinct attention call of a
trace rebuilt (:class:`Spec`), the ways it was run (:class:`Option`), what each took here (:class:`Measured`), per
call (:class:`Case`), for the whole trace (:class:`Advice`). Planned by :mod:`attnprof.analysis.advice`, measured by
:mod:`attnprof.measure.advice`, shown by :mod:`attnprof.render.advice`.

The file is the ``measure`` object of ``attnprof explain --measure --json`` and, saved alone, ``advice__<trace
stem>.json`` in a results folder (the guide's page "from trace to change" reads it). Schema ``attnprof.advice``,
version :data:`VERSION`; a file of another version is stale. Times are microseconds: a figure with its band
(:class:`attnprof.noise.Figure`).

No torch here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprof.noise import Figure
from attnprof.records import kinds, schema
from attnprof.records.files import StaleResultError
from attnprof.records.results import Environment

SCHEMA = "attnprof.advice"
#: Version of the layout; a file of another version is stale.
VERSION = 1
#: What a call's mask is, as rebuilt: none, ``is_causal=True``, a dense boolean mask, a dense additive float mask.
MASKS: tuple[str, ...] = ("none", "causal", "bool", "float")
#: How an option writes the call.
METHODS: tuple[str, ...] = ("sdpa", "handwritten", "flex")
#: The method (and the change) that is FlexAttention.
FLEX = METHODS[2]
#: What an option changes from the call as recorded: ``sdpa`` (a hand-written call as one SDPA call), ``gqa``
#: (``enable_gqa=True`` instead of keys and values expanded to every query head), ``causal`` (``is_causal=True``
#: instead of a dense causal mask), ``bf16`` (an fp32 call in bf16), ``flex`` (FlexAttention with a block mask).
CHANGES: tuple[str, ...] = ("sdpa", "gqa", "causal", "bf16", "flex")
#: How an option ended: timed (``ok``); PyTorch's check refused it (``refuses``); the call failed (``failed``); its
#: estimated memory is more than the device has (``too_big``); it cannot run on this device (``not_here``); the
#: run's time budget was spent before it (``over_budget``); planned but not run (``planned``: a dry run).
STATUSES: tuple[str, ...] = ("ok", "refuses", "failed", "too_big", "not_here", "over_budget", "planned")
#: Why a call was not measured: its shapes were not recorded (``no_shapes``), FlexAttention's op records none
#: (``flex_shapes``), the recorded operands do not make an attention call (``not_rebuildable``), a backward whose
#: forward is not in the trace (``no_forward``), more distinct calls than ``--max-calls`` (``max_calls``).
UNMEASURED: tuple[str, ...] = ("no_shapes", "flex_shapes", "not_rebuildable", "no_forward", "max_calls")
#: What the whole run ended as: measured; a dry run (the plan only); refused for want of the trace's device.
RUN_STATUSES: tuple[str, ...] = ("measured", "dry_run", "no_device")


@dataclass(frozen=True)
class Spec:
    """One attention call as it is rebuilt: ``[batch, heads, seq, head_dim]`` shapes and what was passed.

    Attributes:
        query, key, value: The call's shapes (keys and values as the call got them: expanded, if the code expanded
            them).
        dtype: ``bf16``, ``fp16``, ``fp32`` or ``fp64``.
        mask: One of :data:`MASKS`.
        mask_shape: The dense mask's shape (broadcast over the heads when its second axis is 1).
        mask_fill: What a dense mask holds, as rebuilt (the trace records its shape, not its values): ``causal``,
            ``sliding=W`` (causal within ``W`` positions) or ``documents=N`` (``N`` packed documents per row, causal
            within each). FlexAttention's block mask is made from it.
        dropout: ``dropout_p``.
        gqa: ``enable_gqa=True`` was passed (keys and values have fewer heads than the query).
        train: The trace has the call's backward: forward and backward are measured together.
        strides: The recorded strides of query, key and value (``None``: contiguous).
        expanded_from: Key and value heads before the code expanded them to ``key``'s heads (``repeat_kv``,
            ``repeat_interleave``), or ``None``.
        fp32_softmax: A hand-written call whose softmax runs in fp32 (``softmax(..., dtype=torch.float32)``).
    """

    query: tuple[int, ...]
    key: tuple[int, ...]
    value: tuple[int, ...]
    dtype: str
    mask: str = "none"
    mask_shape: tuple[int, ...] | None = None
    mask_fill: str = "causal"
    dropout: float = 0.0
    gqa: bool = False
    train: bool = False
    strides: tuple[tuple[int, ...] | None, ...] | None = None
    expanded_from: int | None = None
    fp32_softmax: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for k in ("query", "key", "value", "mask_shape"):
            d[k] = None if d[k] is None else list(d[k])
        d["strides"] = None if self.strides is None else [None if s is None else list(s) for s in self.strides]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Spec:
        d = dict(d)
        for k in ("query", "key", "value", "mask_shape"):
            d[k] = None if d.get(k) is None else tuple(d[k])
        s = d.get("strides")
        d["strides"] = None if s is None else tuple(None if x is None else tuple(x) for x in s)
        return cls(**d)


@dataclass(frozen=True)
class Option:
    """One way to run a call.

    Attributes:
        code: ``recorded`` (the call as the trace has it), ``backend`` (SDPA with one backend forced, on the recorded
            inputs), ``auto`` (SDPA's own choice on the recorded inputs), ``change`` (SDPA's own choice with the
            changes of ``changes``) or ``flex``.
        method: One of :data:`METHODS`.
        backend: The ``SDPBackend`` forced (``FLASH_ATTENTION``...), or ``None`` (SDPA's own choice; not SDPA).
        changes: Codes of :data:`CHANGES` applied to the call as recorded.
        spec: The call this option runs.
    """

    code: str
    method: str
    backend: str | None
    changes: tuple[str, ...]
    spec: Spec

    @property
    def flex(self) -> bool:
        """Whether the option runs FlexAttention."""
        return self.method == FLEX

    @property
    def named_changes(self) -> tuple[str, ...]:
        """The changes besides the way the call is written (one SDPA call, FlexAttention)."""
        return tuple(c for c in self.changes if c not in (CHANGES[0], FLEX))

    @property
    def key(self) -> str:
        """A short unique name: ``recorded``, ``sdpa:FLASH_ATTENTION``, ``sdpa:auto+gqa+bf16``, ``flex+gqa``."""
        if self.code == "recorded":
            return "recorded"
        head = FLEX if self.flex else f"sdpa:{self.backend or 'auto'}"
        return "+".join([head, *self.named_changes])

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "method": self.method, "backend": self.backend, "changes": list(self.changes),
                "spec": self.spec.to_dict()}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Option:
        return cls(d["code"], d["method"], d["backend"], tuple(d["changes"]), Spec.from_dict(d["spec"]))


@dataclass
class Measured:
    """What one option did here.

    Attributes:
        option: The option.
        status: One of :data:`STATUSES`.
        reason: Why it did not run, in PyTorch's words where PyTorch said it; ``None`` when it ran.
        time_us: One call's time (forward and backward for a training call), median and band, µs: GPU time (CUDA
            events) on a GPU, CPU time on the CPU; ``None`` when not timed.
        unstable: The samples spread too widely to stand for one figure (:func:`attnprof.noise.unstable`).
        ran: The backend SDPA ran, for an option that left the choice to it.
        bytes_estimate: Its estimated peak memory (:func:`attnprof.analysis.advice.option_bytes`).
        seconds_estimate: Its estimated measuring time.
    """

    option: Option
    status: str = "planned"
    reason: str | None = None
    time_us: Figure | None = None
    unstable: bool = False
    ran: str | None = None
    bytes_estimate: int = 0
    seconds_estimate: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"option": self.option.to_dict(), "status": self.status, "reason": self.reason,
                "time_us": None if self.time_us is None else self.time_us.to_dict(), "unstable": self.unstable,
                "ran": self.ran, "bytes_estimate": self.bytes_estimate,
                "seconds_estimate": round(self.seconds_estimate, 3)}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Measured:
        d = dict(d)
        d["option"] = Option.from_dict(d["option"])
        d["time_us"] = Figure.from_dict(d.get("time_us"))
        return cls(**d)


@dataclass
class Case:
    """One distinct attention call of the trace and what its options did.

    Attributes:
        index: Its number in the report, from 1.
        groups: The groups of :attr:`attnprof.analysis.explain.Explanation.groups` it stands for (forward, and
            backward where the trace has it).
        kind, backend, compiled: The call as the trace recorded it (:class:`attnprof.analysis.attention.Call`).
        spec: The call rebuilt, or ``None`` when it cannot be (see ``unmeasured``).
        calls_per_step: Such calls per profiler step, mean.
        trace_us: One call's time in the trace (forward and backward, and the keys' and values' expansion where the
            code made one), µs: GPU time in a GPU trace, CPU time in a CPU trace; ``None`` when the trace has none.
        options: Every option, measured or why not.
        unmeasured: Why the call was not measured (one of :data:`UNMEASURED`), or ``None``.
        notes: What the rebuilding assumed, codes of the words ``advice.case_note.<code>``.
        kv: For the decoding calls of a generate loop, whose cache grows from call to call: ``[shortest, longest,
            measured]`` cache lengths (the call is measured at the median one), else ``None``.
    """

    index: int
    groups: list[int]
    kind: str
    backend: str
    compiled: bool
    spec: Spec | None
    calls_per_step: float
    trace_us: float | None
    options: list[Measured] = field(default_factory=list)
    unmeasured: str | None = None
    notes: list[str] = field(default_factory=list)
    kv: list[int] | None = None

    def option(self, key: str) -> Measured | None:
        """The option whose :attr:`Option.key` is ``key``."""
        return next((m for m in self.options if m.option.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "groups": list(self.groups), "kind": self.kind, "backend": self.backend,
                "compiled": self.compiled, "spec": None if self.spec is None else self.spec.to_dict(),
                "calls_per_step": round(self.calls_per_step, 4), "trace_us": self.trace_us,
                "options": [m.to_dict() for m in self.options], "unmeasured": self.unmeasured,
                "notes": list(self.notes), "kv": self.kv}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Case:
        d = dict(d)
        d["spec"] = None if d.get("spec") is None else Spec.from_dict(d["spec"])
        d["options"] = [Measured.from_dict(m) for m in d.get("options", [])]
        return cls(**d)


@dataclass
class Advice:
    """Every distinct attention call of one trace, measured on one machine.

    Attributes:
        trace: The trace file's name.
        trace_device: The GPU that recorded the trace (its ``deviceProperties`` name), or ``None`` (a CPU trace).
        trace_cuda: The CUDA runtime the trace records (``"13.0"``), or ``None``.
        device: Where the options ran: ``"cuda"`` or ``"cpu"``, the trace's device.
        status: One of :data:`RUN_STATUSES`.
        reason: Why nothing was measured (``no_device``), or ``None``.
        step_us: The trace's profiler step, median wall time, µs (``None`` without steps).
        cases: The distinct calls.
        environment: Where the options ran, or ``None`` when nothing ran.
        mismatch: How this machine differs from the trace's: codes of the words ``advice.mismatch.<code>``.
        mask_fill: What dense masks were rebuilt as (:attr:`Spec.mask_fill`).
        budget_s: The time the run was allowed (``--budget-s``).
        estimate_s: The run's estimated time.
        seconds: The run's measured time.
        timer: What timed the calls (:func:`attnprof.measure.timing.timer_name`).
        plan: The timing plan (:class:`attnprof.measure.timing.Plan` as a dict).
    """

    trace: str
    trace_device: str | None
    trace_cuda: str | None
    device: str
    status: str
    reason: str | None
    step_us: float | None
    cases: list[Case]
    environment: Environment | None = None
    mismatch: list[str] = field(default_factory=list)
    mask_fill: str = "causal"
    budget_s: float = 0.0
    estimate_s: float = 0.0
    seconds: float = 0.0
    timer: str = ""
    plan: dict[str, float] = field(default_factory=dict)
    schema: str = SCHEMA
    version: int = VERSION

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["cases"] = [c.to_dict() for c in self.cases]
        d["environment"] = None if self.environment is None else dataclasses.asdict(self.environment)
        d["mismatch"] = list(self.mismatch)
        d["plan"] = dict(self.plan)
        for k in ("estimate_s", "seconds"):
            d[k] = round(d[k], 3)
        return d

    @classmethod
    def from_dict(cls, data: Any) -> Advice:
        """Rebuild from :meth:`to_dict` output.

        Raises:
            StaleResultError: for another schema or version, or data that is not an advice record.
        """
        ok = isinstance(data, dict) and data.get("schema") == SCHEMA
        if not ok or data.get("version") != VERSION:
            got = (data.get("schema"), data.get("version")) if isinstance(data, dict) else type(data).__name__
            raise StaleResultError(f"not a {SCHEMA} record of version {VERSION} (found {got!r}); measure it again")
        schema.check(cls, data)
        try:
            d = dict(data)
            d["cases"] = [Case.from_dict(c) for c in d["cases"]]
            d["environment"] = None if d.get("environment") is None else Environment(**d["environment"])
            return cls(**d)
        except (TypeError, KeyError, AttributeError, ValueError) as exc:
            raise StaleResultError(f"not a {SCHEMA} record: {exc}") from exc


def filename(trace: str) -> str:
    """``advice__<trace stem>.json``: the file of the advice on the trace file named ``trace``."""
    stem = Path(trace).name
    for suffix in (".gz", ".json"):
        stem = stem.removesuffix(suffix)
    return f"advice__{stem}.json"


#: The kind of file (:mod:`attnprof.records.kinds`): one file per trace, ``advice__<trace stem>.json``.
KIND: kinds.Kind[Advice] = kinds.Kind("advice", "advice record", Advice, devices=(), version="version",
                                      pattern="advice__*.json", name=lambda a: filename(a.trace))  # fmt: skip
save, find = KIND.save, KIND.find


def load(path: str | Path) -> Advice:
    """Read an advice file: a saved record, or the ``measure`` object of ``attnprof explain --measure --json``.

    Raises:
        FileNotFoundError: if there is no such file.
        attnprof.records.files.UnreadableFile: if it is not valid JSON or not a record of this version.
    """

    def build(data: Any) -> Advice:
        if isinstance(data, dict) and data.get("schema") != SCHEMA and isinstance(data.get("measure"), dict):
            data = data["measure"]
        return KIND.build(data)

    return schema.load(path, build, f"an {KIND.what}")
