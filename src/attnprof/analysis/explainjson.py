"""The JSON form of an :class:`~attnprof.analysis.explain.Explanation` (its schema is in :mod:`.explain`'s
docstring), and a step of a foreign trace as the site's :class:`~attnprof.records.results.StepTrace`.

No torch here.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from attnprof.analysis import attnflags
from attnprof.analysis.summary import KernelRow
from attnprof.analysis.tracetree import Tree
from attnprof.records.results import CpuOp, GpuActivity, StepTrace

# The readings (Explanation, StepReading, CallReading, Group) are attnprof.analysis.explain's, which imports this
# module: they are typed Any here.
Explanation = CallReading = Group = StepReading = Any

SCHEMA = "attnprof.explain"
#: 2: calls and groups name their module, phase and projections' time (no longer counted as attention: the encoder
#: fast path's ``gpu_us`` lost its projections); steps have ``generation``; a flag's ``gpu_us`` is ``null`` where it
#: causes no GPU work of its own.
VERSION = 2
#: What a CPU event's kind is called in a Chrome trace (the viewer's lanes and tooltips use the categories).
CATEGORY = {"op": "cpu_op", "annotation": "user_annotation", "runtime": "cuda_runtime", "driver": "cuda_driver"}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3) + 0.0


def _share(x: float | None) -> float | None:
    return None if x is None else round(x, 4) + 0.0


def _list(v: Any) -> list | None:
    return None if v is None else list(v)


def _step(s: StepReading) -> dict[str, Any]:
    st = s.step
    gpu = bool(st.gpu)
    gaps = [g[1] for g in st.gaps]
    return {
        "index": st.index,
        "name": st.name,
        "wall_us": st.wall_us,
        "span_us": _r(st.span_us),
        "gpu_busy_us": _r(st.busy_us) if gpu else None,
        "gpu_time_us": _r(st.gpu_us) if gpu else None,
        "gpu_busy_share": _share(st.busy_share),
        "idle_us": _r(st.idle_us) if gpu else None,
        "gaps": len(gaps) if gpu else None,
        "largest_gap_us": _r(max(gaps, default=0.0)) if gpu else None,
        "waiting_us": _r(st.waiting_us) if gpu else None,
        "launch_bound": st.launch_bound,
        "attention_gpu_us": _r(s.attention_gpu_us) if gpu else None,
        "attention_share": _share(s.attention_share),
        "calls": dict(s.calls),
        "activities": len(st.gpu),
        "generation": s.generation.to_dict() if s.generation else None,
    }


def _inputs(i: attnflags.Inputs) -> dict[str, Any] | None:
    if not i.known:
        return None
    return {"query": _list(i.query), "key": _list(i.key), "value": _list(i.value), "dtype": i.dtype, "mask": i.mask,
            "causal": i.causal, "dropout": i.dropout, "gqa": i.gqa, "op": i.op,
            "strides": None if i.strides is None else [_list(s) for s in i.strides]}  # fmt: skip


def _call(c: CallReading) -> dict[str, Any]:
    k = c.call
    return {
        "index": c.index,
        "step": c.step,
        "kind": k.kind,
        "backend": k.backend,
        "direction": k.direction,
        "compiled": k.compiled,
        "op": k.op,
        "evidence": k.evidence,
        "thread": c.thread,
        "start_us": c.start_us,
        "cpu_us": c.cpu_us,
        "gpu_us": c.gpu_us,
        "kernels": [[kid, n] for kid, n in c.kernels],
        "inputs": _inputs(c.inputs),
        "flags": [{"code": f.code, "ops": list(f.ops), "count": f.count, "gpu_us": _r(f.gpu_us)} for f in c.flags],
        "forward": k.forward,
        "module": k.module,
        "phase": c.phase,
        "projection_us": c.projection_us,
    }


def _group(g: Group, x: Explanation) -> dict[str, Any]:
    first = x.calls[g.calls[0]]
    return {
        "kind": first.call.kind,
        "backend": first.call.backend,
        "direction": first.call.direction,
        "compiled": first.call.compiled,
        "op": first.call.op,
        "inputs": _inputs(first.inputs),
        "calls": len(g.calls),
        "per_step": _share(g.per_step),
        "cpu_us": g.cpu_us,
        "gpu_us": g.gpu_us,
        "kernels": [{"id": kid, "per_call": _share(n), "avg_us": _r(us)} for kid, n, us in g.kernels],
        "flags": dict(g.flags),
        "first": first.index,
        "module": first.call.module,
        "phase": first.phase,
        "projection_us": g.projection_us,
        "kv": list(g.kv) if g.kv else None,
    }


def _kernel(k: int, r: KernelRow, attention: bool) -> dict[str, Any]:
    theo = r.theoretical
    return {
        "id": k,
        "name": r.name,
        "kind": r.kind,
        "family": r.info.family,
        "label": r.info.short,
        "fields": dict(r.info.fields),
        "launches": r.count,
        "per_step": _share(r.per_step),
        "total_us": _r(r.total_us),
        "avg_us": _r(r.avg_us),
        "launch_api": r.launch_api,
        "grid": _list(r.grid),
        "block": _list(r.block),
        "registers_per_thread": r.registers_per_thread,
        "shared_memory": r.shared_memory,
        "blocks_per_sm": r.blocks_per_sm,
        "reported_occupancy": r.reported_occupancy,
        "theoretical_occupancy": None
        if theo is None
        else {"percent": _share(theo.percent), "blocks_per_sm": theo.blocks_per_sm, "limiters": list(theo.limiters)},
        "attention": attention,
    }


def flag_summary(x: Explanation) -> dict[str, Any]:
    """The ``flags`` object: for each flag that occurs, its calls, their steps and the GPU time of what it caused."""
    out: dict[str, Any] = {}
    for code in attnflags.FLAGS:
        hit = [(c, f) for c in x.calls for f in c.flags if f.code == code]
        if hit:
            steps = sorted({c.step for c, _ in hit if c.step is not None})
            timed = [f.gpu_us for _, f in hit if f.gpu_us is not None]
            out[code] = {"calls": len(hit), "steps": steps, "gpu_us": _r(sum(timed)) if timed else None}
    return out


def summary(x: Explanation) -> dict[str, Any]:
    """The ``summary`` object: steps, calls per step, attention's share of GPU time, launch-bound steps."""
    n = len(x.steps)
    inside = [c for c in x.calls if c.step is not None]
    gpu = sum(s.step.gpu_us for s in x.steps)
    att = sum(s.attention_gpu_us for s in x.steps)
    return {
        "steps": n,
        "calls": {d: _share(sum(1 for c in inside if c.call.direction == d) / n) if n else 0 for d in ("fwd", "bwd")},
        "outside_steps": len(x.calls) - len(inside),
        "attention_share": _share(att / gpu) if gpu > 0 else None,
        "launch_bound_steps": [s.step.index for s in x.steps if s.step.launch_bound],
    }


def to_dict(x: Explanation) -> dict[str, Any]:
    """The JSON form of ``x`` (schema in :mod:`attnprof.analysis.explain`)."""
    t, props = x.trace, x.device_properties
    info = t.meta.get("distributedInfo") if isinstance(t.meta.get("distributedInfo"), dict) else {}
    cc = f"{props['computeMajor']}.{props['computeMinor']}" if "computeMajor" in props else None
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "trace": {
            "name": t.name,
            "events": t.events,
            "cpu_events": len(t.cpu),
            "gpu_events": len(t.gpu),
            "layout": t.layout,
            "gpus": sorted({g.device for g in t.gpu if g.kind == "kernel"}, key=str),
            "device": x.device,
            "compute_capability": cc,
            "shapes": t.shapes,
            "rank": info.get("rank"),
            "world_size": info.get("world_size"),
        },
        "notes": [{"code": code, **fields} for code, fields in x.notes],
        "summary": summary(x),
        "steps": [_step(s) for s in x.steps],
        "calls": [_call(c) for c in x.calls],
        "groups": [_group(g, x) for g in x.groups],
        "kernels": [_kernel(k, r, k in x.attention_rows) for k, r in enumerate(x.rows)],
        "flags": flag_summary(x),
    }


# --- a step for the viewer ------------------------------------------------------------------------------------------


def step_trace(x: Explanation, k: int) -> StepTrace:
    """Step ``k`` of the trace as a :class:`StepTrace`: the CPU events of its process inside its window (the step's
    own thread first, as thread ``""``; other threads by name), nested, and its GPU work."""
    tree, st = x.tree, x.tree.steps[k]
    cpu = tree.trace.cpu
    main = tree.main
    ops: list[CpuOp] = []
    threads = sorted(tree.order, key=lambda key: (key != main, x.calls and str(key[1]), str(key)))
    for key in threads:
        if main is not None and key[0] != main[0]:
            continue
        order = tree.order[key]
        starts = [cpu[i].ts for i in order]
        lo, hi = bisect.bisect_left(starts, st.start - 1e-3), bisect.bisect_right(starts, st.end + 1e-3)
        inside = [i for i in order[lo:hi] if cpu[i].ts + cpu[i].dur <= st.end + 1e-3 and cpu[i].name != st.name]
        if not inside:
            continue
        name = "" if key == main else _thread(tree, key)
        at: dict[int, int] = {}
        for i in inside:
            p = tree.parent[i]
            while p >= 0 and p not in at:
                p = tree.parent[p]
            parent = at.get(p)
            depth = 0 if parent is None else ops[parent].depth + 1
            at[i] = len(ops)
            e = cpu[i]
            ops.append(CpuOp(e.name, CATEGORY[e.kind], _r(e.ts - st.start), _r(e.dur), depth, parent, name))
    gpu = gpu_steps(tree, [k])[0]
    acts = gpu.activities
    span = max((a.start_us + a.duration_us for a in acts), default=0.0) - min((a.start_us for a in acts), default=0.0)
    return StepTrace(st.index, st.wall_us, st.gpu_us, _r(span), acts, ops)


def _activity(g: Any, t0: float, launch: Any) -> GpuActivity:
    return GpuActivity(
        kind=g.kind, name=g.name, start_us=_r(g.ts - t0), duration_us=_r(g.dur), correlation=g.correlation,
        stream=g.stream if isinstance(g.stream, int) else None, grid=list(g.grid) if g.grid else None,
        block=list(g.block) if g.block else None, registers_per_thread=g.registers, shared_memory=g.shared_memory,
        blocks_per_sm=g.blocks_per_sm, warps_per_sm=g.warps_per_sm, reported_occupancy=g.occupancy,
        launch_api=launch.name if launch is not None else None,
        launch_start_us=_r(launch.ts - t0) if launch is not None else None,
        launch_duration_us=_r(launch.dur) if launch is not None else None, bytes=g.bytes,
    )  # fmt: skip


def gpu_steps(tree: Tree, which: Sequence[int] | None = None) -> list[StepTrace]:
    """The GPU work of the steps (all, or those ``which`` indexes) as the site's :class:`StepTrace` (no CPU ops),
    times from each step's start: what :func:`attnprof.analysis.summary.kernel_rows` reads."""
    out = []
    for s in tree.steps if which is None else [tree.steps[k] for k in which]:
        acts = [_activity(tree.trace.gpu[j], s.start, tree.launch_of.get(tree.trace.gpu[j].correlation))
                for j in s.gpu]  # fmt: skip
        out.append(StepTrace(s.index, s.wall_us, s.gpu_us, 0.0, acts, []))
    return out


def _thread(tree: Any, key: tuple) -> str:
    name = tree.trace.threads.get(key, "")
    return name.split("(")[-1].rstrip(")") if "(" in name else name or f"thread {key[1]}"


def steps_and_calls(x: Explanation) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The JSON's ``steps`` and ``calls`` alone (what :mod:`.diff` compares), without the kernel table."""
    return [_step(s) for s in x.steps], [_call(c) for c in x.calls]
