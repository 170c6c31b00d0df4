"""Two readings of traces compared (:func:`diff`): what changed between BEFORE and AFTER, by the noise rules.

Each trace is read by :func:`attnprof.analysis.explain.explain`; :func:`side` keeps what the comparison needs (the
``steps`` and ``calls`` of ``attnprof explain --json``, and each call's kernels by name with their time), and
:func:`diff` compares two sides. The drop-in page does the same in the browser (``_assets/attnprof-diff.js``, a
port of this module, function by function); ``tests/test_diff_js.py`` holds the two to the same JSON.

**Steps** are paired by position (the first step of each trace, the second, ...); their figures (wall time, GPU
time, GPU busy time and share, idle time, time waiting for launches, attention's GPU time) are compared over all
steps of each trace: each trace's steps are samples of one figure, its median with the band of
:func:`attnprof.noise.median_interval` (the whole range for five steps or fewer).

**Calls** are gathered in each trace into kinds: the calls of one kind (SDPA, hand-written, FlexAttention, ...),
direction, compiled or not, module, phase (prefill, decode) and inputs (shapes, dtype, mask, causal, dropout, GQA;
a decode call's cache without its length), whatever backend ran them. Kinds are matched across the traces in two
rounds:

``same``
    The same kind and inputs in both traces: the same call, whose backend may have changed.
``replaced``
    Left over from the first round, the same direction and phase and the same query shape (where both traces
    recorded it), paired in the order they first ran: the same place in the model written another way (SDPA
    instead of matmul-softmax-matmul, bf16 instead of fp32, ``enable_gqa`` instead of expanded keys and values).
``vanished``, ``appeared``
    What is left: a kind only BEFORE has, or only AFTER.

For each matched pair: the GPU and CPU time per call (each call a sample), the GPU time per step (the pair's calls'
time summed over each step, each step a sample) and each kernel's time per call. GPU times are compared with
:data:`attnprof.noise.GPU_FLOOR` and :data:`~attnprof.noise.GPU_MIN_EFFECT`, CPU times (a step's wall time, a
call's CPU time) with :data:`~attnprof.noise.CPU_FLOOR` and :data:`~attnprof.noise.CPU_MIN_EFFECT`: ``lower`` or
``higher`` (AFTER against BEFORE) only when the bands lie apart and the medians differ by the minimum effect, ``tie``
(too close to call) otherwise, and ``too_wide`` when a band reaches further than :data:`~attnprof.noise.WIDE_BAND`
of its median (calls that vary too much to stand for one figure).

:meth:`Diff.to_dict` is the ``--json`` output, schema ``attnprof.diff`` version :data:`VERSION` (fields in
:mod:`.diffjson`). Sums run left to right (not Python's compensated ``sum`` of 3.12) so that the page's port gives
the same figures to the last digit.

No torch here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from attnprof import noise
from attnprof.analysis import diffjson, explainjson, generation
from attnprof.noise import Figure

SCHEMA, VERSION, MATCHES = diffjson.SCHEMA, diffjson.VERSION, diffjson.MATCHES
#: The noise rules: name -> (floor, minimum effect).
RULES: dict[str, tuple[float, float]] = {
    "gpu": (noise.GPU_FLOOR, noise.GPU_MIN_EFFECT),
    "cpu": (noise.CPU_FLOOR, noise.CPU_MIN_EFFECT),
}
#: The figures of a step that are compared, each with its rule.
STEP_FIGURES: tuple[tuple[str, str], ...] = (
    ("wall_us", "cpu"), ("gpu_time_us", "gpu"), ("gpu_busy_us", "gpu"), ("gpu_busy_share", "gpu"),
    ("idle_us", "gpu"), ("waiting_us", "gpu"), ("attention_gpu_us", "gpu"),
)  # fmt: skip
#: Notes on what limits a comparison (``notes`` in the JSON; their words: ``diff.note.<code>``).
NOTES = ("devices", "steps", "no_shapes", "cpu_only", "one_gpu", "one_step")
#: A call's ``phase`` in a generate loop whose cache grows call after call.
DECODE = generation.DECODE


def add(xs: Sequence[float]) -> float:
    """``xs`` summed left to right (the page's port sums alike)."""
    total = 0.0
    for x in xs:
        total += x
    return total


def _r(x: float) -> float:
    return round(x, 3) + 0.0


def _r4(x: float) -> float:
    return round(x, 4) + 0.0


# --- the sides ------------------------------------------------------------------------------------------------------


@dataclass
class Side:
    """What :func:`diff` reads of one trace.

    Attributes:
        trace: The explain JSON's ``trace`` fields that the comparison names: ``name``, ``device``,
            ``compute_capability``, ``events``, ``shapes``, and ``gpu`` (whether the trace has GPU work).
        steps: The explain JSON's ``steps``.
        calls: The explain JSON's ``calls``, each with ``kernel_us``: ``{kernel name: [launches, µs]}``.
    """

    trace: dict[str, Any]
    steps: list[dict[str, Any]]
    calls: list[dict[str, Any]]


def side(x: Any) -> Side:
    """The side of an :class:`~attnprof.analysis.explain.Explanation`."""
    steps, calls = explainjson.steps_and_calls(x)
    gpu = x.trace.gpu
    for c, reading in zip(calls, x.calls, strict=True):
        kernels: dict[str, list] = {}
        for j in reading.launched:
            g = gpu[j]
            got = kernels.setdefault(g.name, [0, 0.0])
            got[0] += 1
            got[1] += g.dur
        c["kernel_us"] = {name: [n, _r(us)] for name, (n, us) in kernels.items()}
    props = x.device_properties
    trace = {
        "name": x.trace.name,
        "device": props.get("name"),
        "compute_capability": f"{props['computeMajor']}.{props['computeMinor']}" if "computeMajor" in props else None,
        "events": x.trace.events,
        "shapes": x.trace.shapes,
        "gpu": bool(gpu),
    }
    return Side(trace, steps, calls)


# --- figures and their changes --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One figure in both traces and what the noise rule says of it.

    Attributes:
        rule: ``gpu`` or ``cpu`` (:data:`RULES`).
        before: BEFORE's figure (``None``: BEFORE has none).
        after: AFTER's figure.
        verdict: AFTER against BEFORE: ``lower``, ``higher``, ``tie`` (too close to call) or ``too_wide``; ``None``
            when a side has no figure.
        change: How much higher AFTER is, as a fraction of BEFORE, with the band the two bands allow
            (:func:`attnprof.noise.margin`); ``None`` when BEFORE's band reaches zero or a side has no figure.
    """

    rule: str
    before: Figure | None
    after: Figure | None
    verdict: str | None
    change: Figure | None


def figure(samples: Sequence[float | None]) -> Figure | None:
    """The median of the samples with its band (``None`` for no samples), rounded as the JSON has it."""
    xs = [x for x in samples if x is not None]
    if not xs:
        return None
    f = noise.median_interval(xs)
    return Figure(_r4(f.median), _r4(f.lo), _r4(f.hi), f.n)


def change(before: Sequence[float | None], after: Sequence[float | None], rule: str) -> Change | None:
    """The :class:`Change` of a figure whose samples are ``before`` and ``after`` (``None`` when neither has one)."""
    a, b = figure(before), figure(after)
    if a is None and b is None:
        return None
    if a is None or b is None:
        return Change(rule, a, b, None, None)
    floor, effect = RULES[rule]
    if noise.too_wide(a) or noise.too_wide(b):
        verdict = "too_wide"
    else:
        verdict = noise.compare(b, a, floor, min_effect=effect)
        verdict = {"lower": "lower", "higher": "higher"}.get(verdict, "tie")
    lo, _ = a.band(floor)
    m = noise.margin(b, a, floor) if lo > 0 and a.median > 0 else None
    return Change(rule, a, b, verdict, None if m is None else Figure(_r4(m.median), _r4(m.lo), _r4(m.hi), m.n))


# --- steps ----------------------------------------------------------------------------------------------------------


@dataclass
class Steps:
    """The steps compared.

    Attributes:
        pairs: ``(BEFORE's step, AFTER's step)`` positions paired.
        only_before: Positions of BEFORE's steps past AFTER's last (and the other way round).
        only_after: See ``only_before``.
        figures: :data:`STEP_FIGURES` name -> its :class:`Change` over all steps (``None``: neither has it).
        launch_bound: How many steps were CPU-bound (the GPU waited for launches), BEFORE and AFTER.
    """

    pairs: list[tuple[int, int]]
    only_before: list[int]
    only_after: list[int]
    figures: dict[str, Change | None]
    launch_bound: tuple[int, int]


def compare_steps(a: Side, b: Side) -> Steps:
    n = min(len(a.steps), len(b.steps))
    figures = {name: change([s[name] for s in a.steps], [s[name] for s in b.steps], rule)
               for name, rule in STEP_FIGURES}  # fmt: skip
    bound = (sum(1 for s in a.steps if s["launch_bound"]), sum(1 for s in b.steps if s["launch_bound"]))
    return Steps([(k, k) for k in range(n)], list(range(n, len(a.steps))), list(range(n, len(b.steps))), figures,
                 bound)  # fmt: skip


# --- calls ----------------------------------------------------------------------------------------------------------


def _no_length(shape: list | None) -> list | None:
    """A cache's shape without its length (the axis that grows while a generate loop decodes)."""
    return None if shape is None or len(shape) < 2 else [*shape[:-2], None, shape[-1]]


def signature(c: dict[str, Any]) -> tuple:
    """What makes two calls the same call: kind, direction, compiled, module, phase and inputs (not the backend)."""
    i = c["inputs"] or {}
    decode = c.get("phase") == DECODE
    key, value = i.get("key"), i.get("value")
    if decode:
        key, value = _no_length(key), _no_length(value)
    inputs = (i.get("query"), key, value, i.get("dtype"), i.get("mask"), i.get("causal"), i.get("dropout"),
              i.get("gqa"))  # fmt: skip
    return (c["kind"], c["direction"], c["compiled"], c.get("module"), c.get("phase"), _frozen(inputs))


def replaces(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether call ``b`` may stand where ``a`` stood: the same direction and phase, and the same query shape where
    both traces recorded it."""
    qa, qb = (a["inputs"] or {}).get("query"), (b["inputs"] or {}).get("query")
    return (a["direction"], a.get("phase")) == (b["direction"], b.get("phase")) and (qa is None or qb is None
                                                                                     or qa == qb)  # fmt: skip


def _frozen(v: Any) -> Any:
    return tuple(_frozen(x) for x in v) if isinstance(v, (list, tuple)) else v


@dataclass
class Kind:
    """The calls of one trace that share a :func:`signature` (indexes into :attr:`Side.calls`, in time order)."""

    calls: list[int]

    def per_step(self, s: Side) -> float:
        return _r4(len(self.calls) / max(len(s.steps), 1))

    def backends(self, s: Side) -> dict[str, int]:
        out: dict[str, int] = {}
        for k in self.calls:
            b = s.calls[k]["backend"]
            out[b] = out.get(b, 0) + 1
        return out


def kinds(s: Side) -> list[Kind]:
    """The kinds of calls of a side, in the order their first call ran."""
    by: dict[tuple, Kind] = {}
    for k, c in enumerate(s.calls):
        by.setdefault(signature(c), Kind([])).calls.append(k)
    return list(by.values())


@dataclass(frozen=True)
class KernelChange:
    """One kernel of a matched pair of kinds: launches per call on each side (``None``: not launched there) and its
    time per call (each call a sample, ``0`` where a call did not launch it)."""

    name: str
    per_call: tuple[float | None, float | None]
    us: Change


@dataclass
class Row:
    """A kind of call matched across the traces, or left over.

    Attributes:
        match: One of :data:`MATCHES`.
        before: BEFORE's kind (``None`` for ``appeared``).
        after: AFTER's kind (``None`` for ``vanished``).
        gpu_us: GPU time per call (``None`` when neither trace has GPU work).
        cpu_us: CPU time per call.
        step_gpu_us: The kind's GPU time per step.
        kernels: Its kernels, the most time first.
    """

    match: str
    before: Kind | None
    after: Kind | None
    gpu_us: Change | None
    cpu_us: Change | None
    step_gpu_us: Change | None
    kernels: list[KernelChange] = field(default_factory=list)

    def backend_changed(self, a: Side, b: Side) -> bool:
        return (self.before is not None and self.after is not None
                and set(self.before.backends(a)) != set(self.after.backends(b)))  # fmt: skip


def _samples(s: Side, kind: Kind | None, what: str) -> list[float | None]:
    if kind is None:
        return []
    if what == "gpu_us" and not s.trace["gpu"]:
        return []
    return [s.calls[k][what] for k in kind.calls]


def _per_step(s: Side, kind: Kind | None) -> list[float]:
    if kind is None or not s.trace["gpu"]:
        return []
    totals = [[] for _ in s.steps]
    for k in kind.calls:
        step = s.calls[k]["step"]
        if step is not None:
            totals[step].append(s.calls[k]["gpu_us"])
    return [_r(add(t)) for t in totals]


def _kernels(a: Side, ka: Kind | None, b: Side, kb: Kind | None) -> list[KernelChange]:
    def launches(s: Side, kind: Kind | None) -> dict[str, tuple[float, list[float]]]:
        if kind is None:
            return {}
        names: list[str] = []
        for k in kind.calls:
            names += [n for n in s.calls[k]["kernel_us"] if n not in names]
        out = {}
        for name in names:
            got = [s.calls[k]["kernel_us"].get(name, [0, 0.0]) for k in kind.calls]
            out[name] = (_r4(add([g[0] for g in got]) / len(kind.calls)), [g[1] for g in got])
        return out

    before, after = launches(a, ka), launches(b, kb)
    names = list(before) + [n for n in after if n not in before]
    total = {n: max(add(before[n][1]) if n in before else 0.0, add(after[n][1]) if n in after else 0.0)
             for n in names}  # fmt: skip
    names.sort(key=lambda n: -total[n])
    out = []
    for n in names:
        us = change(before[n][1] if n in before else [], after[n][1] if n in after else [], "gpu")
        assert us is not None
        out.append(KernelChange(n, (before[n][0] if n in before else None, after[n][0] if n in after else None), us))
    return out


def _row(match: str, a: Side, ka: Kind | None, b: Side, kb: Kind | None) -> Row:
    return Row(match, ka, kb, change(_samples(a, ka, "gpu_us"), _samples(b, kb, "gpu_us"), "gpu"),
               change(_samples(a, ka, "cpu_us"), _samples(b, kb, "cpu_us"), "cpu"),
               change(_per_step(a, ka), _per_step(b, kb), "gpu"), _kernels(a, ka, b, kb))  # fmt: skip


def match(a: Side, b: Side) -> list[Row]:
    """The kinds of calls of the two sides matched (see the module docstring): ``same`` and ``replaced`` pairs in
    BEFORE's order, then what vanished, then what appeared."""
    ka, kb = kinds(a), kinds(b)
    sig_b = {signature(b.calls[k.calls[0]]): n for n, k in enumerate(kb)}
    pairs: dict[int, tuple[str, int]] = {}
    taken: set[int] = set()
    for n, k in enumerate(ka):
        m = sig_b.get(signature(a.calls[k.calls[0]]))
        if m is not None:
            pairs[n] = ("same", m)
            taken.add(m)
    for n, k in enumerate(ka):
        if n in pairs:
            continue
        first = a.calls[k.calls[0]]
        m = next((m for m, other in enumerate(kb) if m not in taken and replaces(first, b.calls[other.calls[0]])),
                 None)  # fmt: skip
        if m is not None:
            pairs[n] = ("replaced", m)
            taken.add(m)
    rows = [_row(pairs[n][0], a, ka[n], b, kb[pairs[n][1]]) for n in range(len(ka)) if n in pairs]
    rows += [_row("vanished", a, ka[n], b, None) for n in range(len(ka)) if n not in pairs]
    rows += [_row("appeared", a, None, b, kb[m]) for m in range(len(kb)) if m not in taken]
    return rows


# --- the whole ------------------------------------------------------------------------------------------------------


@dataclass
class Diff:
    """Two traces compared (:func:`diff`).

    Attributes:
        before: BEFORE's side.
        after: AFTER's side.
        steps: The steps compared.
        rows: The kinds of calls, matched and left over.
        notes: What limits the comparison: ``(code, fields)`` (:data:`NOTES`).
        rules: The noise rules the verdicts used (:data:`RULES`).
    """

    before: Side
    after: Side
    steps: Steps
    rows: list[Row]
    notes: list[tuple[str, dict[str, Any]]]
    rules: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(RULES))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (:mod:`.diffjson`)."""
        return diffjson.to_dict(self)


def notes(a: Side, b: Side) -> list[tuple[str, dict[str, Any]]]:
    ta, tb = a.trace, b.trace
    out: list[tuple[str, dict[str, Any]]] = []
    if (ta["device"], ta["compute_capability"]) != (tb["device"], tb["compute_capability"]):
        out.append(("devices", {"before": ta["device"] or "-", "after": tb["device"] or "-"}))
    if len(a.steps) != len(b.steps):
        out.append(("steps", {"before": len(a.steps), "after": len(b.steps)}))
    missing = [w for w, t in (("before", ta), ("after", tb)) if not t["shapes"]]
    if missing:
        out.append(("no_shapes", {"which": "+".join(missing)}))
    if not ta["gpu"] and not tb["gpu"]:
        out.append(("cpu_only", {}))
    elif not ta["gpu"] or not tb["gpu"]:
        out.append(("one_gpu", {"which": "before" if not ta["gpu"] else "after"}))
    single = [w for w, s in (("before", a), ("after", b)) if len(s.steps) == 1]
    if single:
        out.append(("one_step", {"which": "+".join(single)}))
    return out


def diff(before: Side, after: Side) -> Diff:
    """Compare two sides (:func:`side`): steps, calls, kernels, by the noise rules (see the module docstring)."""
    return Diff(before, after, compare_steps(before, after), match(before, after), notes(before, after))
