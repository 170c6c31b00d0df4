"""From a reading to the options worth measuring (:func:`plan`), and from what they measured to a verdict per call
(:func:`verdicts`): what ``attnprof explain TRACE --measure`` plans and concludes. :mod:`attnprof.measure.advice`
runs the plan.

**What is a distinct call.** Every forward attention call of the trace whose inputs were recorded, grouped by what
it was (SDPA, the multi-head attention fast path, a hand-written matrix product, softmax and matrix product) and
what it got: shapes, dtype, mask kind, dropout, ``enable_gqa``, strides. A call whose backward the trace holds is
measured as forward and backward together (a training step of it). Calls with the same rebuilt inputs are one
case. The trace's time of a case is one call's GPU time (CPU time in a CPU trace), its backward's added, and the
copies that expanded its keys and values to every query head (the ``kv_expand`` flag) when the code made them.

**How a call is rebuilt** (:class:`~attnprof.records.advice.Spec`): SDPA calls from the op's recorded inputs; the
multi-head attention fast path from the SDPA op inside it; a hand-written call from its two matrix products (the
first one's right operand is the keys, transposed), its mask from an ``add`` (an additive mask) or a ``masked_fill``
or ``where`` (a boolean one) between the first product and the softmax, broadcast over the heads, and its dropout
from the ``dropout`` op after the softmax. The trace records a mask's shape, never its values: a dense mask is
rebuilt as ``mask_fill`` says (the causal triangle by default, aligned to the last key).

**The options** (:func:`options`): the call as recorded (its backend forced, or the hand-written code), SDPA with
each backend this device has, SDPA's own choice, and then the changes the reading points to, each alone on top of
SDPA's own choice, and all of them together: ``enable_gqa=True`` where the code expanded the keys and values,
``is_causal=True`` where a square dense mask is causal, bf16 for an fp32 call, and FlexAttention with the mask's
block mask for a dense mask (on CUDA; it compiles).

**The verdict** (:func:`verdicts`): the options' times compared by the one rule of :mod:`attnprof.noise` (GPU times
with :data:`~attnprof.noise.GPU_FLOOR` and :data:`~attnprof.noise.GPU_MIN_EFFECT`; CPU times, which drift more,
with :data:`~attnprof.noise.CPU_FLOOR` and :data:`~attnprof.noise.CPU_MIN_EFFECT`). The fastest option saves,
per step, its difference from the call as recorded times the calls per step, with the band the two figures allow;
where the fastest and the call as recorded overlap, the call is too close to call and nothing is saved.

No torch here.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, replace
from typing import Any

from attnprof import noise
from attnprof.analysis import attnflags
from attnprof.analysis.attnflags import Inputs
from attnprof.analysis.explain import CallReading, Explanation
from attnprof.noise import Figure
from attnprof.records.advice import FLEX, Advice, Case, Measured, Option, Spec

#: The backends as the reading names them -> SDPA's names for them.
SDPA_BACKENDS = {"flash": "FLASH_ATTENTION", "mem_efficient": "EFFICIENT_ATTENTION", "cudnn": "CUDNN_ATTENTION",
                 "math": "MATH"}  # fmt: skip
#: The backends SDPA can run on each device.
DEVICE_BACKENDS = {"cuda": ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"),
                   "cpu": ("FLASH_ATTENTION", "MATH")}  # fmt: skip
#: At most this many distinct calls are measured by default, the costliest per step first (``--max-calls``).
MAX_CALLS = 12
#: Ops between a hand-written call's first product and its softmax that apply a mask: additive, boolean.
ADD_MASK_OPS = ("aten::add", "aten::add_", "aten::sub")
BOOL_MASK_OPS = ("aten::masked_fill", "aten::masked_fill_", "aten::where")
DROPOUT_OPS = ("aten::dropout", "aten::native_dropout")
_FILL = re.compile(r"^(?:causal|sliding=(?P<w>[1-9]\d*)|documents=(?P<n>[1-9]\d*))$")


def mask_fill(text: str) -> str:
    """``--mask``'s value, checked: ``causal``, ``sliding=W`` or ``documents=N``.

    Raises:
        ValueError: one line naming the value and what is accepted.
    """
    value = text.strip().lower()
    if not _FILL.match(value):
        raise ValueError(f"bad --mask {text!r}; expected causal, sliding=W (a window such as sliding=256) or "
                         "documents=N (documents per row such as documents=4)")  # fmt: skip
    return value


# --- rebuilding a call --------------------------------------------------------------------------------------------


def _four(shape: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """A shape as ``[batch, heads, seq, dim]`` (an unbatched or a ``[batch * heads, seq, dim]`` one gets a leading
    1); ``None`` for any other rank."""
    if shape is None:
        return None
    if len(shape) == 3:
        return (1, *shape)
    return tuple(shape) if len(shape) == 4 else None


def _fits(q: tuple[int, ...], k: tuple[int, ...], v: tuple[int, ...]) -> bool:
    """Whether the shapes make one attention call: one batch, one head dim for query and key, one key length, and
    key heads that divide the query heads."""
    return (q[0] == k[0] == v[0] and q[3] == k[3] and k[2] == v[2] and k[1] == v[1] and k[1] > 0
            and q[1] % k[1] == 0)  # fmt: skip


def _flag(c: CallReading, code: str) -> attnflags.Flag | None:
    return next((f for f in c.flags if f.code == code), None)


def _expanded_from(c: CallReading, key_heads: int) -> int | None:
    f = _flag(c, "kv_expand")
    n = f.kv_heads if f is not None else None
    return n if n is not None and 0 < n < key_heads and key_heads % n == 0 else None


def _sdpa_spec(i: Inputs, c: CallReading, train: bool, fill: str) -> tuple[Spec | None, list[str]]:
    q, k, v = _four(i.query), _four(i.key), _four(i.value)
    if q is None or k is None or v is None or not i.dtype:
        return None, []
    if not _fits(q, k, v) or (k[1] != q[1] and not i.gqa):
        return None, []
    mask, shape = "none", None
    notes = []
    if i.causal:
        mask = "causal"
    elif i.mask:
        mask = "bool" if i.mask_dtype == "bool" else "float"
        shape = _four(i.mask_shape) or (q[0], 1, q[2], k[2])
        notes.append("mask_fill")
    strides = None
    if i.strides and len(i.query or ()) == 4 and all(s is not None and len(s) == 4 for s in i.strides):
        strides = tuple(i.strides)
    return Spec(q, k, v, i.dtype, mask, shape, fill if shape else "causal", i.dropout or 0.0, bool(i.gqa), train,
                strides, _expanded_from(c, k[1])), notes  # fmt: skip


def _mha_inputs(x: Explanation, c: CallReading) -> Inputs:
    """The inputs of a multi-head attention fast-path call: the SDPA op inside it, or the call's own op's
    ``[batch, seq, embed]`` split into its heads (``num_head``, recorded among its scalars)."""
    cpu = x.trace.cpu
    impl = c.call.parts.get("impl")
    if impl is not None and impl != c.call.roots[0] and cpu[impl].dims:
        inner = attnflags.op_inputs(cpu[impl])
        return replace(inner, dtype=inner.dtype or c.inputs.dtype, mask=c.inputs.mask, mask_shape=c.inputs.mask_shape,
                       mask_dtype=c.inputs.mask_dtype)  # fmt: skip
    root = cpu[c.call.roots[0]]
    heads = attnflags.int_scalar(root, 4)
    if heads is None or not c.inputs.query or len(c.inputs.query) != 3:
        return Inputs(op=root.name)
    b, s, e = c.inputs.query
    if e % heads:
        return Inputs(op=root.name)
    shape = (b, heads, s, e // heads)
    return replace(c.inputs, query=shape, key=shape, value=shape, strides=None)


def _handwritten_spec(x: Explanation, c: CallReading, train: bool, fill: str) -> tuple[Spec | None, list[str]]:
    i = c.inputs
    q, kt, v = _four(i.query), _four(i.key), _four(i.value)
    if q is None or kt is None or v is None or not i.dtype:
        return None, []
    k = (*kt[:2], kt[3], kt[2])  # the first product took the keys transposed
    if not _fits(q, k, v) or k[1] != q[1]:
        return None, []
    cpu, parts = x.trace.cpu, c.call.parts
    notes = []
    order = {r: n for n, r in enumerate(c.call.roots)}
    soft, first = order.get(parts.get("softmax", -1)), order.get(parts.get("first", -1))
    between = [cpu[r].name for r in c.call.roots[(first or 0) + 1 : soft or 0]]
    mask = "float" if any(n in ADD_MASK_OPS for n in between) else "none"
    mask = "bool" if any(n in BOOL_MASK_OPS for n in between) else mask
    shape = (q[0], 1, q[2], k[2]) if mask != "none" else None
    if shape:
        notes.append("mask_assumed")
    dropout = 0.0
    for r in c.call.roots[(soft or 0) + 1 :]:
        if cpu[r].name in DROPOUT_OPS:
            p, on = attnflags.float_scalar(cpu[r], 1), attnflags.bool_scalar(cpu[r], 2)
            if p is None:
                notes.append("dropout_unknown")
            elif on is not False:
                dropout = p
    if c.call.compiled:
        notes.append("compiled")
    fp32_softmax = _flag(c, "fp32_softmax") is not None
    return Spec(q, k, v, i.dtype, mask, shape, fill if shape else "causal", dropout, False, train, None,
                _expanded_from(c, k[1]), fp32_softmax), notes  # fmt: skip


def _flex_spec(i: Inputs, train: bool, fill: str) -> Spec | None:
    """A FlexAttention call: its block mask is not in the trace, so it stands as a dense mask of ``fill`` (which the
    options made of SDPA take, and FlexAttention's block mask is made from)."""
    q, k, v = _four(i.query), _four(i.key), _four(i.value)
    if q is None or k is None or v is None or not i.dtype or not _fits(q, k, v):
        return None
    return Spec(q, k, v, i.dtype, "bool", (1, 1, q[2], k[2]), fill, 0.0, k[1] != q[1], train)


def rebuild(x: Explanation, c: CallReading, train: bool, fill: str = "causal") -> tuple[Spec | None, str | None,
                                                                                          list[str]]:  # fmt: skip
    """The call ``c`` rebuilt: ``(spec, None, notes)``, or ``(None, why, [])`` with a code of
    :data:`attnprof.records.advice.UNMEASURED`."""
    if c.call.kind == FLEX:
        spec = _flex_spec(c.inputs, train, fill)
        return (spec, None, ["block_mask"]) if spec is not None else (None, "flex_shapes", [])
    if not c.inputs.known and c.call.kind != "mha":
        return None, "no_shapes", []
    if c.call.kind == "handwritten":
        spec, notes = _handwritten_spec(x, c, train, fill)
    else:
        i = _mha_inputs(x, c) if c.call.kind == "mha" else c.inputs
        if not i.known:
            return None, "no_shapes", []
        spec, notes = _sdpa_spec(i, c, train, fill)
    return (spec, None, notes) if spec is not None else (None, "not_rebuildable", [])


# --- the options ----------------------------------------------------------------------------------------------------


def _changes(spec: Spec) -> list[tuple[str, Spec]]:
    """The changes the call points to, each as the spec it makes (in :data:`~attnprof.records.advice.CHANGES`'s
    order)."""
    out = []
    if spec.expanded_from is not None:  # (keys and values with fewer heads than the query: enable_gqa=True)
        heads = spec.expanded_from
        out.append(("gqa", replace(spec, key=(spec.key[0], heads, *spec.key[2:]),
                                   value=(spec.value[0], heads, *spec.value[2:]), gqa=True, expanded_from=None,
                                   strides=None)))  # fmt: skip
    if spec.mask in ("bool", "float") and spec.query[2] == spec.key[2] and spec.mask_fill == "causal":
        out.append(("causal", replace(spec, mask="causal", mask_shape=None)))
    if spec.dtype == "fp32":
        out.append(("bf16", replace(spec, dtype="bf16", fp32_softmax=False)))
    return out


def _combined(spec: Spec, changes: list[tuple[str, Spec]]) -> Spec:
    """``spec`` with every change applied."""
    for code, changed in changes:
        if code == "gqa":
            spec = replace(spec, key=changed.key, value=changed.value, gqa=True, expanded_from=None, strides=None)
        elif code == "causal":
            spec = replace(spec, mask="causal", mask_shape=None)
        elif code == "bf16":
            spec = replace(spec, dtype="bf16", fp32_softmax=False)
    return spec


def options(spec: Spec, kind: str, backend: str, device: str) -> list[Option]:
    """Every option for one call (see the module docstring), the call as recorded first.

    Args:
        spec: The call rebuilt.
        kind: What wrote it (``sdpa``, ``mha``, ``handwritten``).
        backend: The backend it ran (the reading's name: ``flash``, ``math``, ``unfused``...).
        device: Where the options will run.
    """
    written = kind if kind in ("handwritten", FLEX) else "sdpa"
    recorded = SDPA_BACKENDS.get(backend) if written == "sdpa" else None
    out = [Option("recorded", written, recorded, (), spec)]
    to_sdpa = ("sdpa",) if written != "sdpa" else ()
    for b in DEVICE_BACKENDS[device]:
        if b != recorded:
            out.append(Option("backend", "sdpa", b, to_sdpa, spec))
    out.append(Option("auto", "sdpa", None, to_sdpa, spec))
    changes = _changes(spec)
    for code, changed in changes:
        out.append(Option("change", "sdpa", None, (*to_sdpa, code), changed))
    if len(changes) > 1:
        out.append(Option("change", "sdpa", None, (*to_sdpa, *(c for c, _ in changes)), _combined(spec, changes)))
    if spec.mask in ("bool", "float") and spec.dropout == 0 and written != FLEX:
        flex = (
            replace(
                spec,
                gqa=True,
                expanded_from=None,
                strides=None,
                key=(spec.key[0], spec.expanded_from, *spec.key[2:]),
                value=(spec.value[0], spec.expanded_from, *spec.value[2:]),
            )
            if spec.expanded_from
            else spec
        )
        out.append(Option(FLEX, FLEX, None, (FLEX, *(("gqa",) if spec.expanded_from else ())), flex))
    return out


# --- the plan -------------------------------------------------------------------------------------------------------


def _step_us(x: Explanation) -> float | None:
    """The trace's step, median: its span on a GPU trace (to the end of its GPU work), its wall time on a CPU one."""
    spans = [s.step.span_us if x.trace.gpu else s.step.wall_us for s in x.steps]
    spans = [s for s in spans if s > 0]
    return statistics.median(spans) if spans else None


@dataclass
class _Draft:
    key: tuple
    groups: list[int]
    kind: str
    backend: str
    compiled: bool
    spec: Spec | None
    per_step: float
    time_sum: float  # one call's trace time times the calls, summed over the groups
    calls: int
    unmeasured: str | None
    notes: list[str]
    kv: list[int] | None = None


def _call_time(x: Explanation, c: CallReading) -> float:
    return c.gpu_us if x.trace.gpu else c.cpu_us


def plan(x: Explanation, device: str, *, fill: str = "causal", max_calls: int = MAX_CALLS) -> Advice:
    """The measurement of every distinct attention call of ``x`` on ``device`` (the trace's: ``"cuda"`` for a GPU
    trace, ``"cpu"`` for a CPU one), planned: each case with its options, none run yet (status ``dry_run``).

    Args:
        x: The reading.
        device: Where the options will run.
        fill: What dense masks hold (:func:`mask_fill`).
        max_calls: At most this many distinct calls are measured, the costliest per step first; the others are
            listed as ``max_calls``.
    """
    backward: dict[int, list[CallReading]] = {}
    for c in x.calls:
        if c.call.direction == "bwd" and c.call.forward is not None:
            backward.setdefault(c.call.forward, []).append(c)
    drafts: dict[tuple, _Draft] = {}
    orphans: list[int] = []
    for k, g in enumerate(x.groups):
        members = [x.calls[i] for i in g.calls]
        first = members[0]
        kv = None
        if g.kv is not None and g.kv[0] != g.kv[1]:  # a growing cache: measured at its median length
            by_length = sorted(members, key=lambda c: (c.inputs.key or (0, 0))[-2])
            first = by_length[len(by_length) // 2]
            kv = [g.kv[0], g.kv[1], (first.inputs.key or (0, 0))[-2]]
        if first.call.direction == "bwd":
            if first.call.forward is None:
                orphans.append(k)
            continue
        bwd = [b for c in members for b in backward.get(c.index, [])]
        train = bool(bwd)
        spec, why, notes = rebuild(x, first, train, fill)
        expand = sum(f.gpu_us or 0.0 for c in members for f in c.flags if f.code == "kv_expand")
        time_sum = sum(_call_time(x, c) for c in members) + sum(_call_time(x, b) for b in bwd) + expand
        bwd_groups = sorted({gk for gk, h in enumerate(x.groups) if set(h.calls) & {b.index for b in bwd}})
        key = (first.call.kind, first.call.backend, spec) if spec is not None else ("group", k)
        d = drafts.get(key)
        if d is None:
            drafts[key] = _Draft(key, [k, *bwd_groups], first.call.kind, first.call.backend, first.call.compiled,
                                 spec, g.per_step, time_sum, len(members), why, notes, kv)  # fmt: skip
        else:
            d.groups += [k, *bwd_groups]
            d.per_step += g.per_step
            d.time_sum += time_sum
            d.calls += len(members)
    for k in orphans:
        g = x.groups[k]
        first = x.calls[g.calls[0]]
        drafts[("group", k)] = _Draft(("group", k), [k], first.call.kind, first.call.backend, first.call.compiled,
                                      None, g.per_step, sum(_call_time(x, x.calls[i]) for i in g.calls), len(g.calls),
                                      "no_forward", [])  # fmt: skip
    order = sorted(drafts.values(), key=lambda d: (d.unmeasured is not None, -d.time_sum / d.calls * d.per_step,
                                                   min(d.groups)))  # fmt: skip
    cases = []
    measurable = 0
    has_time = bool(x.trace.gpu) or any(c.cpu_us for c in x.calls)
    for n, d in enumerate(order, start=1):
        why = d.unmeasured
        if why is None:
            measurable += 1
            if measurable > max_calls:
                why = "max_calls"
        opts = [Measured(o) for o in options(d.spec, d.kind, d.backend, device)] if why is None and d.spec else []
        trace_us = round(d.time_sum / d.calls, 3) if has_time and d.calls else None
        notes = list(dict.fromkeys(d.notes + (["decode"] if d.kv else [])))
        cases.append(Case(n, sorted(set(d.groups)), d.kind, d.backend, d.compiled, d.spec, d.per_step, trace_us,
                          opts, why, notes, d.kv))  # fmt: skip
    return Advice(x.trace.name, x.device, _cuda(x.trace.meta), device, "dry_run", None, _step_us(x), cases,
                  mask_fill=fill)  # fmt: skip


def _cuda(meta: dict[str, Any]) -> str | None:
    """``cuda_runtime_version`` 13000 -> ``"13.0"``."""
    v = meta.get("cuda_runtime_version")
    if not isinstance(v, int) or v <= 0:
        return None
    return f"{v // 1000}.{v % 1000 // 10}"


# --- the verdicts ---------------------------------------------------------------------------------------------------


def floors(device: str) -> tuple[float, float]:
    """``(floor, min_effect)`` of the comparison of times measured on ``device`` (see the module docstring)."""
    if device == "cuda":
        return noise.GPU_FLOOR, noise.GPU_MIN_EFFECT
    return noise.CPU_FLOOR, noise.CPU_MIN_EFFECT


@dataclass(frozen=True)
class Verdict:
    """What one case's measurements say.

    Attributes:
        case: The case.
        here: The call as recorded, measured here (``None`` when it did not run).
        fastest: The fastest option and every option too close to call with it (empty when nothing ran).
        outcome: ``faster`` (an option is faster than the call as recorded, beyond the noise), ``recorded`` (the call
            as recorded is the fastest), ``tie`` (the fastest and the call as recorded are too close to call),
            ``unreliable`` (the call as recorded ran, but its band is too wide to compare) or ``unmeasured`` (no
            comparison: the call as recorded, or every option, did not run).
        saves_us: What the fastest saves per profiler step, µs, with its band (``faster`` only).
        share: ``saves_us`` over the trace's step (``None`` without steps).
        unreliable: Options whose band is too wide to decide anything (:func:`attnprof.noise.too_wide`), kept out
            of the comparison.
    """

    case: Case
    here: Measured | None
    fastest: tuple[Measured, ...]
    outcome: str
    saves_us: Figure | None = None
    share: Figure | None = None
    unreliable: tuple[Measured, ...] = ()


def verdict(case: Case, device: str, step_us: float | None) -> Verdict:
    """The verdict on one case (see the module docstring)."""
    timed = [m for m in case.options if m.status == "ok" and m.time_us is not None]
    wide = tuple(m for m in timed if noise.too_wide(m.time_us))
    usable = {m.option.key: m for m in timed if m not in wide}
    here = case.option("recorded")
    here = here if here is not None and here.status == "ok" and here.time_us is not None else None
    if not usable:
        return Verdict(case, here, (), "unreliable" if here is not None else "unmeasured", unreliable=wide)
    floor, effect = floors(device)
    keys = noise.extreme({k: m.time_us for k, m in usable.items()}, floor, min_effect=effect)
    fastest = tuple(usable[k] for k in keys)
    if here is None or "recorded" not in usable:
        return Verdict(case, here, fastest, "unreliable" if here is not None else "unmeasured", unreliable=wide)
    if "recorded" in keys:
        return Verdict(case, here, fastest, "recorded" if len(keys) == 1 else "tie", unreliable=wide)
    best = fastest[0].time_us
    h_lo, h_hi = here.time_us.band(floor)
    b_lo, b_hi = best.band(floor)
    n = case.calls_per_step
    saves = Figure((here.time_us.median - best.median) * n, max(h_lo - b_hi, 0.0) * n, (h_hi - b_lo) * n,
                   min(here.time_us.n, best.n))  # fmt: skip
    share = None
    if step_us:
        share = Figure(saves.median / step_us, saves.lo / step_us, saves.hi / step_us, saves.n)
    return Verdict(case, here, fastest, "faster", saves, share, wide)


def verdicts(advice: Advice) -> list[Verdict]:
    """The verdict on every case that was measured."""
    return [verdict(c, advice.device, advice.step_us) for c in advice.cases if c.options]


def total(found: list[Verdict], step_us: float | None) -> tuple[Figure | None, Figure | None]:
    """What taking the fastest option of every call would save per step, µs, and as a share of the step: the sum
    of the calls that have a verdict of ``faster`` (``(None, None)`` when none has)."""
    saving = [v.saves_us for v in found if v.saves_us is not None]
    if not saving:
        return None, None
    s = Figure(sum(f.median for f in saving), sum(f.lo for f in saving), sum(f.hi for f in saving),
               min(f.n for f in saving))  # fmt: skip
    if not step_us:
        return s, None
    return s, Figure(s.median / step_us, s.lo / step_us, s.hi / step_us, s.n)
