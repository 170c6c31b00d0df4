"""A generate loop, read from its attention calls: which calls are the prefill (the prompt, many queries) and which
decode (one query against the KV cache), and how many forward passes of each a profiler step holds, with the cache's
lengths (:func:`phases`, :func:`passes`).

Read from the recorded shapes alone (``record_shapes=True``): a trace without them has no phases. A trace is a
generate loop when it has no backward call and at least one forward call of one query against more than one key;
then every forward call with shapes is ``decode`` (one query) or ``prefill`` (more: the prompt, or a chunk of it).
A forward pass runs one call per attention layer; the layers are the calls of the first pass (one run of calls with
the same lengths), so that a cache that does not grow (a static cache) still counts its passes.

No torch here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The phases of a generate loop (phases of a call, not the workloads of those names).
PHASES = PREFILL, DECODE = ("prefill", "decode")


@dataclass(frozen=True)
class Generation:
    """The forward passes of a generate loop in one profiler step.

    Attributes:
        prefill: Prefill passes.
        decode: Decode passes.
        kv: The shortest and longest KV cache the decode passes attended to (``None`` without decode passes).
        layers: Attention calls per pass.
    """

    prefill: int
    decode: int
    kv: tuple[int, int] | None
    layers: int

    def to_dict(self) -> dict[str, Any]:
        return {"prefill": self.prefill, "decode": self.decode, "kv": list(self.kv) if self.kv else None,
                "layers": self.layers}  # fmt: skip


def lengths(kind: str, inputs: Any) -> tuple[int, int] | None:
    """``(queries, keys)`` of a call's recorded inputs, or ``None``: the sequence axis of the query and the key
    (the key as the first product took it, transposed, for a hand-written call)."""
    q, k = inputs.query, inputs.key
    if not q or not k or len(q) < 2 or len(k) < 2:
        return None
    return q[-2], (k[-1] if kind == "handwritten" else k[-2])


def phases(calls: Sequence[Any]) -> list[str | None]:
    """The phase of each call (:class:`attnprof.analysis.explain.CallReading`), ``None`` where it has none (see the
    module docstring)."""
    if any(c.call.direction == "bwd" for c in calls):
        return [None] * len(calls)
    found = [lengths(c.call.kind, c.inputs) if c.call.direction == "fwd" else None for c in calls]
    if not any(n is not None and n[0] == 1 < n[1] for n in found):
        return [None] * len(calls)
    return [None if n is None else DECODE if n[0] == 1 else PREFILL for n in found]


def passes(calls: Sequence[Any], phase: Sequence[str | None]) -> Generation | None:
    """The forward passes of one step's calls (in time order, with their :func:`phases`), or ``None`` when none of
    them has a phase."""
    runs: list[tuple[str, tuple[int, int], int]] = []  # (phase, lengths, calls) of each run of alike calls
    for c, p in zip(calls, phase, strict=True):
        if p is None:
            continue
        n = lengths(c.call.kind, c.inputs)
        if runs and runs[-1][:2] == (p, n):
            runs[-1] = (p, n, runs[-1][2] + 1)
        else:
            runs.append((p, n, 1))  # type: ignore[arg-type]
    if not runs:
        return None
    layers = runs[0][2]
    count = {p: sum(r[2] for r in runs if r[0] == p) for p in PHASES}
    kv = [r[1][1] for r in runs if r[0] == DECODE]
    return Generation(-(-count[PREFILL] // layers), -(-count[DECODE] // layers),
                      (min(kv), max(kv)) if kv else None, layers)  # fmt: skip
