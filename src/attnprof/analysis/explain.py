"""Read any PyTorch profiler trace the way the site reads its own: :func:`explain` and its :class:`Explanation`.

Per profiler step: its wall time, how busy the GPU was, its idle gaps and whether it waited for the CPU's launches
(:mod:`.tracetree`), and the share of GPU time spent in attention. Every attention call, whatever wrote it
(:mod:`.attention`), with its backend, direction, inputs, flags (:mod:`.attnflags`) and kernels; the kernels decoded
(:mod:`.kernels`) with their occupancy from the trace's device properties, in the site's own kernel table
(:func:`attnprof.analysis.summary.kernel_rows`).

From Python (what ``attnprof explain`` does, without the command line)::

    from attnprof.analysis import attention, explain
    from attnprof.records import foreign
    from attnprof.render import explain as report

    x = explain.explain(foreign.load("trace.json.gz", inputs_of=attention.wants_inputs))
    print(report.text(x))  # x.to_dict() is the JSON; attnprof.render.explainhtml.page(x) the page

:meth:`Explanation.to_dict` is the ``--json`` output, schema ``attnprof.explain`` version :data:`VERSION`:

``schema``, ``version``
    ``"attnprof.explain"`` and :data:`VERSION`.
``trace``
    ``name`` (the file's name), ``events``, ``cpu_events``, ``gpu_events``, ``layout`` (``object``, or ``array``:
    the JSON array form, which has no ``deviceProperties``), ``gpus`` (the ids of the GPUs that ran kernels),
    ``device`` (the GPU's name, or ``null``),
    ``compute_capability`` (``"9.0"`` or ``null``), ``shapes`` (whether ``record_shapes`` was on), ``rank`` and
    ``world_size`` (from ``distributedInfo``, or ``null``).
``notes``
    What limits the reading, each ``{"code": ..., more fields}``: :data:`NOTES`.
``summary``
    ``steps``, ``calls`` (``{"fwd": n, "bwd": n}`` per step, mean), ``outside_steps`` (calls outside any step),
    ``attention_share`` (attention's GPU time over all GPU time of the steps, or ``null``), ``launch_bound_steps``.
``steps``
    One object per step: ``index``, ``name``, ``wall_us``, ``span_us``, ``gpu_busy_us``, ``gpu_time_us``,
    ``gpu_busy_share``, ``idle_us``, ``gaps``, ``largest_gap_us``, ``waiting_us``, ``launch_bound``,
    ``attention_gpu_us``, ``attention_share``, ``calls`` (``{"fwd", "bwd"}``), ``activities``, ``generation`` (the
    passes of a generate loop: ``{"prefill", "decode", "kv": [shortest, longest] or null, "layers"}``, or ``null``:
    :mod:`.generation`). GPU figures are ``null`` in a step without GPU work.
``calls``
    Every attention call in time order: ``index``, ``step`` (or ``null``), ``kind``, ``backend``, ``direction``,
    ``compiled``, ``op``, ``evidence``, ``thread``, ``start_us`` (from its step's start), ``cpu_us``, ``gpu_us``,
    ``kernels`` (``[[kernel id, launches], ...]``), ``inputs`` (``query``, ``key``, ``value``, ``dtype``, ``mask``,
    ``causal``, ``dropout``, ``gqa``, ``op``, ``strides`` (of query, key and value, or ``null``); ``null`` when not
    recorded), ``flags`` (``[{"code", "ops", "count",
    "gpu_us"}]``, ``gpu_us`` ``null`` for a flag that causes no GPU work of its own), ``forward`` (a backward call's
    forward call, or ``null``), ``module`` (``MultiheadAttention``, ``TransformerEncoderLayer`` or ``null``),
    ``phase`` (``prefill``, ``decode`` or ``null``) and ``projection_us`` (the GPU time of the module's in- and
    out-projections, never counted in ``gpu_us``, or ``null``).
``groups``
    The calls that look alike (kind, backend, direction, compiled, op, inputs), each with ``calls``, ``per_step``,
    ``cpu_us`` and ``gpu_us`` (means per call), ``kernels`` (``[{"id", "per_call", "avg_us"}]``, most time first),
    ``flags`` (``{code: calls}``), ``first`` (the index of its first call), ``module``, ``phase``,
    ``projection_us`` (mean per call) and ``kv`` (a decode group's shortest and longest cache, or ``null``).

Attention time (a call's ``gpu_us``, a step's ``attention_gpu_us``) is one thing on every path: the GPU work of the
call's products, softmax, masking, scaling and what they copy; the projections of a module are shown apart.
``kernels``
    The kernel table of the steps (one row per name and launch configuration): ``id``, ``name``, ``kind``,
    ``family``, ``label`` (English), ``fields``, ``launches``, ``per_step``, ``total_us``, ``avg_us``,
    ``launch_api``, ``grid``, ``block``, ``registers_per_thread``, ``shared_memory``, ``blocks_per_sm``,
    ``reported_occupancy``, ``theoretical_occupancy`` (``{"percent", "blocks_per_sm", "limiters"}`` or ``null``)
    and ``attention`` (whether an attention call launched it).
``flags``
    ``{code: {"calls", "steps", "gpu_us"}}`` for the flags of :data:`attnprof.analysis.attnflags.FLAGS` that occur.

Times are microseconds rounded to the nanosecond, shares rounded to four places; the same trace gives the same JSON
byte for byte (``json.dumps(..., sort_keys=True)``). What the command line adds (``why``: PyTorch's answers on
this machine) is not part of it.

No torch here.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from attnprof.analysis import attention, attnflags, explainjson, generation, summary
from attnprof.analysis.attention import Call
from attnprof.analysis.attnflags import Flag, Inputs
from attnprof.analysis.summary import KernelRow
from attnprof.analysis.tracetree import Step, Tree
from attnprof.records import foreign
from attnprof.records.foreign import ForeignTrace
from attnprof.records.results import StepTrace

SCHEMA, VERSION = explainjson.SCHEMA, explainjson.VERSION
#: Notes on what limits a reading (``notes`` in the JSON; their words: ``explain.note.<code>``).
NOTES = ("cpu_only", "no_gpu_events", "no_steps", "no_shapes", "no_device_properties", "no_calls", "unlinked",
         "rank")  # fmt: skip


def _r(x: float) -> float:
    return round(x, 3) + 0.0


def _share(x: float | None) -> float | None:
    return None if x is None else round(x, 4) + 0.0


@dataclass
class StepReading:
    """One profiler step, read (see ``steps`` in the module docstring)."""

    step: Step
    attention_gpu_us: float
    calls: dict[str, int]
    generation: generation.Generation | None = None

    @property
    def attention_share(self) -> float | None:
        return self.attention_gpu_us / self.step.gpu_us if self.step.gpu and self.step.gpu_us > 0 else None


@dataclass
class CallReading:
    """One attention call, read (see ``calls`` in the module docstring)."""

    index: int
    call: Call
    step: int | None
    thread: str
    start_us: float
    cpu_us: float
    gpu_us: float
    kernels: list[tuple[int, int]]
    inputs: Inputs
    flags: list[Flag]
    projection_us: float | None = None
    phase: str | None = None
    #: The GPU work of the call that the kernel table counts (indexes into ``trace.gpu``, in start order): what
    #: :mod:`.diff` times kernel by kernel.
    launched: list[int] = field(default_factory=list)


@dataclass
class Group:
    """Calls that look alike: the same kind, backend, direction, compiled or not, op, module, phase and inputs (the
    decode calls of a generate loop alike whatever their cache's length: ``kv`` says its range)."""

    key: tuple
    calls: list[int]
    per_step: float
    cpu_us: float
    gpu_us: float
    kernels: list[tuple[int, float, float]]  # (kernel id, launches per call, mean µs)
    flags: dict[str, int]
    projection_us: float | None = None
    kv: tuple[int, int] | None = None


@dataclass
class Explanation:
    """What a foreign trace says (:func:`explain`).

    Attributes:
        trace: The trace read.
        tree: Its structure: nesting, launches, steps.
        steps: The steps, read.
        calls: Every attention call.
        rows: The kernel table of the steps (:func:`attnprof.analysis.summary.kernel_rows`).
        attention_rows: Ids (indexes into ``rows``) of the rows an attention call launched.
        groups: Calls that look alike.
        notes: What limits the reading: ``(code, fields)``.
        device_properties: The device's entry of ``deviceProperties`` (``{}`` when the trace has none).
    """

    trace: ForeignTrace
    tree: Tree
    steps: list[StepReading]
    calls: list[CallReading]
    rows: list[KernelRow]
    attention_rows: set[int]
    groups: list[Group]
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    device_properties: dict[str, Any] = field(default_factory=dict)

    @property
    def device(self) -> str | None:
        return self.device_properties.get("name")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see the module docstring)."""
        return explainjson.to_dict(self)

    def to_summary(self) -> dict[str, Any]:
        """The JSON's ``summary``."""
        return explainjson.summary(self)

    def to_flags(self) -> dict[str, Any]:
        """The JSON's ``flags``."""
        return explainjson.flag_summary(self)


@dataclass(frozen=True)
class Question:
    """What to ask PyTorch about one group of SDPA calls (:func:`questions`).

    Attributes:
        group: The index of the group in :attr:`Explanation.groups`.
        inputs: The calls' inputs.
        training: Whether the calls had a backward in the trace (``requires_grad`` inputs).
    """

    group: int
    inputs: Inputs
    training: bool


@dataclass(frozen=True)
class Asked:
    """What PyTorch said about the groups of SDPA calls, on the machine that asked.

    Attributes:
        answers: Group index -> ``[(backend, check, PyTorch's words), ...]``: ``check`` is ``accepts``,
            ``refuses`` or ``not_asked`` (a backend this machine's PyTorch does not have for the inputs' device).
        picks: Group index -> the backend SDPA itself picks for those inputs here.
        note: Why PyTorch could not be asked (or not about every group): ``(code, fields)``, the words
            ``explain.why.<code>``; ``None`` when it was.
    """

    answers: dict[int, list[tuple[str, str, str]]] = field(default_factory=dict)
    picks: dict[int, str] = field(default_factory=dict)
    note: tuple[str, dict[str, Any]] | None = None


def questions(x: Explanation) -> list[Question]:
    """The forward SDPA groups whose inputs the trace recorded: what ``attnprof explain`` asks PyTorch about."""
    backward = {c.call.forward for c in x.calls if c.call.direction == "bwd" and c.call.forward is not None}
    out = []
    for k, g in enumerate(x.groups):
        first = x.calls[g.calls[0]]
        if first.call.kind == "sdpa" and first.call.direction == "fwd" and first.inputs.known:
            out.append(Question(k, first.inputs, any(i in backward for i in g.calls)))
    return out


# --- building -------------------------------------------------------------------------------------------------------


def _props(trace: ForeignTrace, device: Any) -> dict[str, Any]:
    props = trace.device_properties
    if not props:
        return {}
    return dict(next((p for p in props if p.get("id") == device), props[0]))


def _thread_name(tree: Tree, e: Any) -> str:
    name = tree.trace.threads.get((e.pid, e.tid), "")
    m = re.search(r"\((\w+)\)\s*$", name)
    return m.group(1) if m else name or str(e.tid)


def _notes(tree: Tree, calls: list[CallReading], props: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    t = tree.trace
    notes: list[tuple[str, dict[str, Any]]] = []
    launches = sum(1 for e in t.cpu if e.kind in ("runtime", "driver") and LAUNCHES.search(e.name))
    if not t.gpu:
        notes.append(("no_gpu_events", {"launches": launches}) if launches else ("cpu_only", {}))
    if not any(s.name for s in tree.steps):
        notes.append(("no_steps", {}))
    if not t.shapes:
        notes.append(("no_shapes", {}))
    if t.gpu and not props:
        notes.append(("no_device_properties", {}))
    if not calls:
        notes.append(("no_calls", {}))
    unlinked = sum(1 for s in tree.steps for j in s.gpu if t.gpu[j].correlation not in tree.launch_of)
    if unlinked:
        notes.append(("unlinked", {"activities": unlinked}))
    info = t.meta.get("distributedInfo")
    if isinstance(info, dict) and info.get("world_size", 1) not in (1, None):
        notes.append(("rank", {"rank": info.get("rank"), "world_size": info.get("world_size")}))
    return notes


#: Runtime and driver calls that start GPU work (a sync or an attribute call starts none).
LAUNCHES = re.compile(r"Launch|Memcpy|Memset")


def _group_key(c: CallReading) -> tuple:
    i = c.inputs
    key, value = (i.key, i.value) if c.phase != generation.DECODE else (_no_length(i.key), _no_length(i.value))
    return (c.call.kind, c.call.backend, c.call.direction, c.call.compiled, c.call.op, c.call.module, c.phase,
            i.query, key, value, i.dtype, i.mask, i.causal)  # fmt: skip


def _no_length(shape: tuple | None) -> tuple | None:
    """A cache's shape without its length (the axis that grows as a generate loop decodes)."""
    return None if shape is None or len(shape) < 2 else (*shape[:-2], None, shape[-1])


def _groups(calls: list[CallReading], rows: list[KernelRow], n_steps: int) -> list[Group]:
    by: dict[tuple, list[CallReading]] = {}
    for c in calls:
        by.setdefault(_group_key(c), []).append(c)
    out = []
    for key, members in by.items():
        launches: Counter = Counter()
        for c in members:
            for kid, n in c.kernels:
                launches[kid] += n
        kern = sorted(((kid, n / len(members), rows[kid].avg_us) for kid, n in launches.items()),
                      key=lambda k: (-k[1] * k[2], k[0]))  # fmt: skip
        flags: Counter = Counter(f.code for c in members for f in c.flags)
        projected = [c.projection_us for c in members if c.projection_us is not None]
        decoded = [generation.lengths(c.call.kind, c.inputs) for c in members if c.phase == generation.DECODE]
        kv = [n[1] for n in decoded if n is not None]
        out.append(Group(key, [c.index for c in members], len(members) / max(n_steps, 1),
                         _r(statistics.fmean(c.cpu_us for c in members)),
                         _r(statistics.fmean(c.gpu_us for c in members)), kern,
                         {code: flags[code] for code in attnflags.FLAGS if flags[code]},
                         _r(statistics.fmean(projected)) if projected else None,
                         (min(kv), max(kv)) if kv else None))  # fmt: skip
    return out


def _projection_nodes(tree: Tree, found: list[Call]) -> dict[int, list[int]]:
    """For each backward call whose forward call has projections, the autograd nodes of those projections (the
    nodes sharing their ops' sequence numbers): the projections' backward, shown apart as the forward's are."""
    cpu, out = tree.trace.cpu, {}
    wanted: dict[tuple[Any, int], int] = {}
    for k, c in enumerate(found):
        if c.direction == "bwd" and c.forward is not None and found[c.forward].projections:
            for i in tree.under(found[c.forward].projections):
                if cpu[i].sequence is not None and not cpu[i].backward:
                    wanted.setdefault((cpu[i].pid, cpu[i].sequence), k)
    if wanted:
        for i, e in enumerate(cpu):
            if e.sequence is not None and e.backward and e.name.startswith(attention.EVALUATE):
                k = wanted.get((e.pid, e.sequence))
                if k is not None:
                    out.setdefault(k, []).append(i)
    return out


def explain(trace: ForeignTrace, device: Any = None) -> Explanation:
    """Read ``trace`` (:func:`attnprof.records.foreign.load`).

    Args:
        trace: The trace.
        device: Which GPU's work to read, for a trace of several GPUs (the ``device`` of its GPU events).

    Returns:
        The :class:`Explanation`.

    Raises:
        ValueError: for a trace of several processes (ranks), or of several GPUs when ``device`` is not one of them;
            the message names them and what to do.
    """
    with foreign.no_gc():
        return _explain(trace, device)


def _explain(trace: ForeignTrace, device: Any) -> Explanation:
    _one_process(trace)
    devices = sorted({g.device for g in trace.gpu if g.kind == "kernel"}, key=str)
    if device is None and len(devices) > 1:
        raise ValueError(
            f"the trace holds kernels of {len(devices)} GPUs ({', '.join(map(str, devices))}); explain reads one at "
            f"a time: choose one with --gpu {devices[0]}"
        )
    if device is not None and device not in devices:
        raise ValueError(f"GPU {device!r} ran no kernel in this trace; choose one of: "
                         f"{', '.join(map(str, devices)) or 'none (the trace has no kernels)'}")  # fmt: skip
    tree = Tree(trace, device)
    props = _props(trace, devices[0] if devices and device is None else device)
    rows = summary.kernel_rows(explainjson.gpu_steps(tree), props)
    row_of = {(r.name, summary.launch_config(r)): k for k, r in enumerate(rows)}
    found = attention.find_calls(tree)
    calls: list[CallReading] = []
    attention_rows: set[int] = set()
    per_step_gpu = [0.0] * len(tree.steps)
    per_step_calls = [Counter() for _ in tree.steps]
    roots = {r for c in found for r in c.roots}
    backward_projections = _projection_nodes(tree, found)
    for k, c in enumerate(found):
        first = trace.cpu[c.roots[0]]
        step = tree.step_of(first.ts) if first.pid == (tree.main or (None,))[0] else None
        projected = c.projections or backward_projections.get(k, [])
        proj = set(tree.launched(tree.under(projected))) if projected else set()
        gpu = [j for j in tree.launched(tree.under(c.roots)) if j not in proj]  # attention: never the projections
        counts: Counter = Counter()
        counted = []
        for j in gpu:
            g = trace.gpu[j]
            kid = row_of.get((g.name, _config(g)))
            if kid is not None:
                counts[kid] += 1
                counted.append(j)
        attention_rows.update(counts)
        gpu_us = _r(sum(trace.gpu[j].dur for j in gpu))
        end = max(trace.cpu[r].ts + trace.cpu[r].dur for r in c.roots)
        cpu_us = sum(trace.cpu[r].dur for r in c.roots) if c.evidence == "sequence" else end - first.ts
        given = attnflags.inputs(tree, found, k)
        t0 = tree.steps[step].start if step is not None else first.ts
        flags = attnflags.flags(tree, found, k, given, roots)
        projection_us = _r(sum(trace.gpu[j].dur for j in proj)) if projected and trace.gpu else None
        calls.append(CallReading(k, c, step, _thread_name(tree, first), _r(first.ts - t0), _r(cpu_us), gpu_us,
                                 sorted(counts.items()), given, flags, projection_us))  # fmt: skip
        calls[-1].launched = counted
        if step is not None:
            per_step_gpu[step] += gpu_us
            per_step_calls[step][c.direction] += 1
    for c, phase in zip(calls, generation.phases(calls), strict=True):
        c.phase = phase
    by_step: dict[int | None, list[CallReading]] = {}
    for c in calls:
        by_step.setdefault(c.step, []).append(c)
    steps = []
    for k, s in enumerate(tree.steps):
        mine = by_step.get(k, [])
        steps.append(StepReading(s, _r(per_step_gpu[k]), {d: per_step_calls[k][d] for d in ("fwd", "bwd")},
                                 generation.passes(mine, [c.phase for c in mine])))  # fmt: skip
    groups = _groups(calls, rows, len(tree.steps))
    return Explanation(trace, tree, steps, calls, rows, attention_rows, groups, _notes(tree, calls, props), props)


def _config(g: Any) -> tuple:
    return (tuple(g.grid) if g.grid else None, tuple(g.block) if g.block else None, g.registers, g.shared_memory)


def _one_process(trace: ForeignTrace) -> None:
    """Refuse a trace that holds several processes' steps (several ranks merged into one file)."""
    pids = Counter(e.pid for e in trace.cpu if e.kind in ("annotation", "op") and e.name.startswith("ProfilerStep#"))
    if len(pids) > 1:
        raise ValueError(
            f"the trace holds the profiler steps of {len(pids)} processes (pids "
            f"{', '.join(map(str, sorted(pids, key=str)))}): several ranks merged into one file; explain reads one "
            "rank's trace at a time: pass the file each rank exported"
        )


def step_traces(x: Explanation, indexes: Sequence[int]) -> list[StepTrace]:
    """Steps of the trace as the site's :class:`~attnprof.records.results.StepTrace`, CPU ops and GPU work, times
    from each step's start: what the interactive viewer draws (:mod:`attnprof.render.viewer`)."""
    return [explainjson.step_trace(x, k) for k in indexes]
