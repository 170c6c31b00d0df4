"""The JSON form of a :class:`~attnprof.analysis.diff.Diff`: schema ``attnprof.diff``, version
:data:`~attnprof.analysis.diff.VERSION`.

``schema``, ``version``
    ``"attnprof.diff"`` and the version.
``rules``
    The noise rules the verdicts use: ``{"gpu": {"floor", "min_effect"}, "cpu": {...}, "wide_band"}``.
``before``, ``after``
    Each trace: ``name``, ``device``, ``compute_capability``, ``events``, ``shapes``, ``gpu`` (whether it has GPU
    work), ``steps`` and ``calls`` (how many).
``notes``
    What limits the comparison, each ``{"code": ..., more fields}`` (:data:`~attnprof.analysis.diff.NOTES`).
``steps``
    ``pairs`` (one object per pair of steps: ``before`` and ``after`` (the steps' indexes), ``names``, and
    ``[BEFORE, AFTER]`` of ``wall_us``, ``gpu_busy_share``, ``attention_gpu_us``, ``launch_bound``),
    ``only_before`` and ``only_after`` (indexes of unpaired steps), ``figures`` (each of ``wall_us``,
    ``gpu_time_us``, ``gpu_busy_us``, ``gpu_busy_share``, ``idle_us``, ``waiting_us``, ``attention_gpu_us``: a
    change, or ``null``) and ``launch_bound`` (``{"before": n, "after": n}`` CPU-bound steps).
``calls``
    One object per kind of call: ``match`` (``same``, ``replaced``, ``vanished``, ``appeared``), ``before`` and
    ``after`` (the kind in each trace, or ``null``: ``kind``, ``direction``, ``compiled``, ``module``, ``phase``,
    ``op``, ``inputs`` (as in ``attnprof explain --json``), ``backend`` (the one most of its calls ran),
    ``backends`` (``{backend: calls}``), ``calls``, ``per_step``, ``first`` (the index of its first call)),
    ``backend_changed``, ``gpu_us`` and ``cpu_us`` (per call), ``step_gpu_us`` (per step), each a change or
    ``null``, and ``kernels`` (``[{"name", "per_call": [BEFORE, AFTER], "us": change}]``, launches per call
    ``null`` on the side that did not launch it).
``summary``
    ``matches`` (``{match: kinds}``), ``backends`` (``[{"kind", "direction", "before", "after"}]`` for every kind
    whose backend changed, backends by how many calls ran them) and ``attention_gpu_us`` (the change of attention's
    GPU time per step, as in ``steps.figures``).

A change is ``{"rule", "before", "after", "verdict", "change"}``: figures ``{"median", "lo", "hi", "n"}`` (or
``null``), the verdict (``lower``, ``higher``, ``tie``, ``too_wide``, or ``null`` when a side has no figure), the
change of AFTER over BEFORE as a fraction with its band (or ``null``). Figures are rounded to four places; the same
two traces give the same JSON byte for byte (``json.dumps(..., sort_keys=True)``).

No torch here.
"""

from __future__ import annotations

from typing import Any

from attnprof import noise
from attnprof.noise import Figure

# The comparison's classes (Change, Diff, Kind, Row, Side) are attnprof.analysis.diff's, which imports this module:
# they are typed Any here.
Change = Diff = Kind = Row = Side = Any

SCHEMA = "attnprof.diff"
VERSION = 1
#: How matched kinds of calls came to be matched (:mod:`.diff`), and the kinds left over.
MATCHES = ("same", "replaced", "vanished", "appeared")


def _figure(f: Figure | None) -> dict[str, Any] | None:
    return None if f is None else f.to_dict()


def change(c: Change | None) -> dict[str, Any] | None:
    """A change's JSON form (``None`` stays ``None``)."""
    if c is None:
        return None
    return {"rule": c.rule, "before": _figure(c.before), "after": _figure(c.after), "verdict": c.verdict,
            "change": _figure(c.change)}  # fmt: skip


def main_backend(backends: dict[str, int]) -> str:
    """The backend most calls ran (the first of equals, in the order the calls ran)."""
    return max(backends, key=lambda b: backends[b])


def kind(k: Kind | None, s: Side) -> dict[str, Any] | None:
    if k is None:
        return None
    first = s.calls[k.calls[0]]
    backends = k.backends(s)
    return {
        "kind": first["kind"],
        "direction": first["direction"],
        "compiled": first["compiled"],
        "module": first.get("module"),
        "phase": first.get("phase"),
        "op": first["op"],
        "inputs": first["inputs"],
        "backend": main_backend(backends),
        "backends": backends,
        "calls": len(k.calls),
        "per_step": k.per_step(s),
        "first": first["index"],
    }


def row(r: Row, a: Side, b: Side) -> dict[str, Any]:
    return {
        "match": r.match,
        "before": kind(r.before, a),
        "after": kind(r.after, b),
        "backend_changed": r.backend_changed(a, b),
        "gpu_us": change(r.gpu_us),
        "cpu_us": change(r.cpu_us),
        "step_gpu_us": change(r.step_gpu_us),
        "kernels": [{"name": k.name, "per_call": list(k.per_call), "us": change(k.us)} for k in r.kernels],
    }


def _trace(s: Side) -> dict[str, Any]:
    return {**s.trace, "steps": len(s.steps), "calls": len(s.calls)}


def _pair(a: Side, b: Side, i: int, j: int) -> dict[str, Any]:
    sa, sb = a.steps[i], b.steps[j]
    figures = ("wall_us", "gpu_busy_share", "attention_gpu_us", "launch_bound")
    return {"before": i, "after": j, "names": [sa["name"], sb["name"]], **{f: [sa[f], sb[f]] for f in figures}}


def summary(d: Diff) -> dict[str, Any]:
    matches = {m: sum(1 for r in d.rows if r.match == m) for m in MATCHES}
    backends = []
    for r in d.rows:
        if r.backend_changed(d.before, d.after):
            first = d.before.calls[r.before.calls[0]]  # type: ignore[union-attr]
            backends.append({"kind": first["kind"], "direction": first["direction"],
                             "before": list(r.before.backends(d.before)),  # type: ignore[union-attr]
                             "after": list(r.after.backends(d.after))})  # type: ignore[union-attr]  # fmt: skip
    return {"matches": matches, "backends": backends, "attention_gpu_us": change(d.steps.figures["attention_gpu_us"])}


def to_dict(d: Diff) -> dict[str, Any]:
    """The JSON form of ``d`` (see the module docstring)."""
    a, b, st = d.before, d.after, d.steps
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "rules": {
            **{name: {"floor": f, "min_effect": m} for name, (f, m) in d.rules.items()},
            "wide_band": noise.WIDE_BAND,
        },
        "before": _trace(a),
        "after": _trace(b),
        "notes": [{"code": code, **fields} for code, fields in d.notes],
        "steps": {
            "pairs": [_pair(a, b, i, j) for i, j in st.pairs],
            "only_before": st.only_before,
            "only_after": st.only_after,
            "figures": {name: change(c) for name, c in st.figures.items()},
            "launch_bound": {"before": st.launch_bound[0], "after": st.launch_bound[1]},
        },
        "calls": [row(r, a, b) for r in d.rows],
        "summary": summary(d),
    }
