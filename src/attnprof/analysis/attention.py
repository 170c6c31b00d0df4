"""Find every attention call in a foreign trace, whatever wrote it (:class:`Call`, :func:`find_calls`).

What counts as an attention call, by the CPU ops the trace recorded on one thread:

``sdpa``
    ``aten::scaled_dot_product_attention``, or one of its backends' ops called directly (:data:`BACKEND_OPS`); the
    backend is the backend op inside it, or, without one, the family of its fused kernels. Its backward is the
    autograd node ``ScaledDotProduct<Backend>AttentionBackward0`` (inside ``autograd::engine::evaluate_function``)
    or a backend's backward op (:data:`BACKWARD_OPS`).
``mha``
    ``aten::_native_multi_head_attention``: the inference fast path of ``nn.MultiheadAttention`` and of
    ``nn.TransformerEncoder`` (inside ``aten::_transformer_encoder_layer_fwd``), backend from the SDPA op inside it.
``flex``
    An op whose name holds ``flex_attention`` (Inductor's template kernel ``triton_tem_fused_flex_attention_0``, its
    backward ``..._flex_attention_backward_1``; eager ``FlexAttentionAutogradOp``); Inductor's other kernels that
    name it are parts of a call, not calls: the backward's pre-kernel (``triton_per_fused_flex_attention_backward_0``,
    the sum of dO * O) belongs to the backward call after it.
``handwritten``
    A matrix product, a softmax, then a matrix product, as siblings on one thread with at most
    :data:`PATTERN_GAP` other ops between (masking, scaling, dropout, a dtype conversion), and shapes that fit where
    the trace recorded them: the softmax over the last axis of the first product's ``[..., M, N]`` result, the second
    product taking ``[..., M, N]``. The softmax may be an Inductor kernel that fused it (a compiled model). A softmax
    that no such products surround (a cross-entropy's ``log_softmax``, a router's or a sampler's softmax) is not
    attention.

Which module made a call (:attr:`Call.module`): ``nn.TransformerEncoderLayer`` for the fast path inside
``aten::_transformer_encoder_layer_fwd``, ``nn.MultiheadAttention`` for its own fast path and for the calls of
``F.multi_head_attention_forward`` (its packed in-projection, ``aten::linear`` then ``aten::unflatten``, or the
weights chunked then three ``aten::linear``, a few ops before the call). A call of those modules has its
projections (:attr:`Call.projections`: the in- and out-projections' ``aten::linear``, inside the fast path's op or
beside the call) apart from the attention itself, so that every path counts the same work as attention: the
products, the softmax, the masking and scaling, and what they copy; never the projections.

The backward of a call no op names (the math backend's, a hand-written one's) is found through autograd's sequence
numbers: every autograd node (``autograd::engine::evaluate_function: XBackward0``) whose ``Sequence number`` is one
of the forward call's ops'. In a compiled graph's backward, a fused ``_softmax_backward_data`` kernel between
matrix products is one backward call.

No torch here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from attnprof.analysis import kernels
from attnprof.analysis.tracetree import Tree

SDPA_OP = "aten::scaled_dot_product_attention"
MHA_OP = "aten::_native_multi_head_attention"
#: Forward ops of SDPA's backends -> backend.
BACKEND_OPS: dict[str, str] = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash",
    "aten::_flash_attention_forward": "flash",
    "aten::_scaled_dot_product_efficient_attention": "mem_efficient",
    "aten::_efficient_attention_forward": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_cudnn_attention_forward": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_attention_math_for_mps": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable",
}
#: Backward ops of SDPA's backends -> backend.
BACKWARD_OPS: dict[str, str] = {
    "aten::_scaled_dot_product_flash_attention_backward": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward": "flash",
    "aten::_flash_attention_backward": "flash",
    "aten::_scaled_dot_product_efficient_attention_backward": "mem_efficient",
    "aten::_efficient_attention_backward": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention_backward": "cudnn",
    "aten::_cudnn_attention_backward": "cudnn",
    "aten::_scaled_dot_product_fused_attention_overrideable_backward": "overrideable",
}
#: SDPA's autograd nodes: ``ScaledDotProduct<X>AttentionBackward0``, X -> backend.
NODE_BACKENDS = {"Flash": "flash", "FlashForCpu": "flash", "Efficient": "mem_efficient", "Cudnn": "cudnn",
                 "FusedOverrideable": "overrideable"}  # fmt: skip
_NODE = re.compile(r"^ScaledDotProduct(\w+?)Attention(\w*?)Backward\d*$")
EVALUATE = "autograd::engine::evaluate_function: "
#: Ops that multiply matrices, as a hand-written attention calls them.
MATMUL_OPS = frozenset({"aten::matmul", "aten::bmm", "aten::baddbmm", "aten::einsum", "aten::mm"})
#: Ops that compute a softmax (not a log-softmax).
SOFTMAX_OPS = frozenset({"aten::softmax", "aten::_softmax", "aten::_safe_softmax", "aten::special_softmax"})
#: The most other ops between the three parts of a hand-written attention.
PATTERN_GAP = 8
#: Names of the regions a compiled graph runs in.
COMPILED_MARKS = ("Torch-Compiled Region", "CompiledFunction", "## Call CompiledFxGraph")
#: Inductor's kernel names (``triton_per_fused__softmax_..._0``, ``graph_0_cpp_fused__softmax_..._2``).
_INDUCTOR = re.compile(r"^(?:graph_\d+_)?(?:triton|cpp)_\w*?fused_(?P<ops>\w+?)_\d+$")
_INDUCTOR_KIND = re.compile(r"^(?:graph_\d+_)?triton_([a-z]+)_")
#: The kind of a FlexAttention call (a call's kind, not the variant of that name).
FLEX = "flex"
#: Backends that run one fused kernel.
FUSED = ("flash", "mem_efficient", "cudnn", "flex")

#: Op names whose input shapes the analysis reads (:func:`attnprof.records.foreign.load`'s ``inputs_of``).
SHAPED = frozenset({SDPA_OP, MHA_OP, *BACKEND_OPS, *BACKWARD_OPS, *MATMUL_OPS, *SOFTMAX_OPS, "aten::expand",
                    "aten::repeat_interleave", "aten::reshape", "aten::to", "aten::_to_copy", "aten::copy_",
                    "aten::clone", "aten::contiguous"})  # fmt: skip
#: The op of the encoder layer's fast path, around its multi-head attention.
ENCODER_OP = "aten::_transformer_encoder_layer_fwd"
#: Ops that project (the in- and out-projections of multi-head attention).
PROJECTION_OPS = frozenset({"aten::linear", "aten::addmm", "aten::_addmm_activation", "aten::mm", "aten::matmul"})
#: How far before a call the in-projection of ``F.multi_head_attention_forward`` may lie (sibling ops), and how far
#: after it its out-projection.
IN_PROJECTION_LOOKBACK, OUT_PROJECTION_LOOKAHEAD = 24, 6


def wants_inputs(name: str) -> bool:
    """Whether the analysis reads the input shapes of op ``name``."""
    return name in SHAPED or name.startswith("ScaledDotProduct") or _is_flex(name)


def _is_flex(name: str) -> bool:
    low = name.lower()
    return "flex_attention" in low or "flexattention" in low


@dataclass
class Call:
    """One attention call.

    Attributes:
        kind: What wrote it: ``sdpa``, ``mha``, ``flex`` or ``handwritten``.
        backend: ``flash``, ``mem_efficient``, ``cudnn``, ``math``, ``overrideable``, ``flex``, ``unfused``
            (separate matrix products and softmax) or ``unknown``.
        direction: ``fwd`` or ``bwd``.
        compiled: Inside a ``torch.compile``'d region.
        roots: The CPU ops (indexes into ``trace.cpu``) that make the call, in time order: one op for a named
            call, the products and what lies between them for a hand-written one, the autograd nodes for a backward
            found through sequence numbers.
        op: The op that names it (the backend op, the node, the softmax of a hand-written call).
        evidence: How it was found: ``op`` (by name), ``pattern`` (matrix product, softmax, matrix product) or
            ``sequence`` (autograd nodes of a forward call).
        parts: Indexes of the parts a flag needs: ``softmax``, ``first``, ``second`` (the products), ``impl`` (the
            backend op).
        forward: For a backward call, the index (in the list of calls) of its forward call, when the trace has it.
        module: The ``torch.nn`` module that made the call, when the trace shows it: ``MultiheadAttention`` or
            ``TransformerEncoderLayer``; ``None`` otherwise.
        projections: The CPU ops of the module's in- and out-projections (indexes into ``trace.cpu``): their GPU
            work is shown apart from the call's attention time.
    """

    kind: str
    backend: str
    direction: str
    compiled: bool
    roots: list[int]
    op: str
    evidence: str
    parts: dict[str, int] = field(default_factory=dict)
    forward: int | None = None
    module: str | None = None
    projections: list[int] = field(default_factory=list)


@functools.lru_cache(maxsize=4096)
def inductor_ops(name: str) -> tuple[str, ...] | None:
    """The ops an Inductor kernel fused, from its name, read by the kernel decoder's own rule; ``None`` for a name
    Inductor did not give."""
    m = _INDUCTOR.match(name)
    if m is None:
        return None
    ops = kernels.decode(f"triton_x_fused_{m['ops']}_0").fields.get("ops", "")
    return tuple(ops.split(",")) if ops else ()


def _is_softmax(name: str) -> bool:
    if name in SOFTMAX_OPS:
        return True
    ops = inductor_ops(name)
    return (
        ops is not None
        and any(o.lstrip("_") in ("softmax", "safe_softmax") for o in ops)
        and not any("backward" in o or o.lstrip("_") == "log_softmax" for o in ops)
    )


def _is_softmax_backward(name: str) -> bool:
    ops = inductor_ops(name)
    return ops is not None and any(o.lstrip("_") == "softmax_backward_data" for o in ops)


def _is_matmul(name: str) -> bool:
    return name in MATMUL_OPS


class _Finder:
    def __init__(self, tree: Tree) -> None:
        self.tree, self.cpu = tree, tree.trace.cpu
        self.calls: list[Call] = []

    def compiled(self, i: int) -> bool:
        return any(self.cpu[a].name.startswith(COMPILED_MARKS) for a in self.tree.ancestors(i)) or bool(
            _INDUCTOR.match(self.cpu[i].name)
        )

    def in_backward(self, i: int) -> bool:
        return self.cpu[i].backward or any(self.cpu[a].name.startswith(EVALUATE) for a in self.tree.ancestors(i))

    def add(self, kind: str, backend: str, direction: str, roots: list[int], op: str, evidence: str,
            **parts: int) -> Call:  # fmt: skip
        call = Call(kind, backend, direction, self.compiled(roots[0]), roots, op, evidence, dict(parts))
        self.calls.append(call)
        return call

    # --- by name ---

    def named(self, i: int) -> Call | None:
        name = self.cpu[i].name
        if name == SDPA_OP or name == MHA_OP:
            inner = next((d for d in self.tree.descendants(i) if self.cpu[d].name in BACKEND_OPS), None)
            backend = BACKEND_OPS[self.cpu[inner].name] if inner is not None else self.by_kernels(i, name)
            kind = "sdpa" if name == SDPA_OP else "mha"
            return self.add(kind, backend, "fwd", [i], name if inner is None else self.cpu[inner].name, "op",
                            impl=i if inner is None else inner)  # fmt: skip
        if name in BACKEND_OPS:
            return self.add("sdpa", BACKEND_OPS[name], "fwd", [i], name, "op", impl=i)
        node = name.removeprefix(EVALUATE)
        m = _NODE.match(node)
        if m and m[1] + m[2] in NODE_BACKENDS:
            inner = next((d for d in self.tree.descendants(i) if self.cpu[d].name in BACKWARD_OPS), i)
            return self.add("sdpa", NODE_BACKENDS[m[1] + m[2]], "bwd", [i], node, "op", impl=inner)
        if name in BACKWARD_OPS:
            return self.add("sdpa", BACKWARD_OPS[name], "bwd", [i], name, "op", impl=i)
        if _is_flex(name):
            m = _INDUCTOR_KIND.match(name)
            if m and m[1] != "tem":  # a helper kernel of the call (the backward's sum of dO * O), not the call
                return None
            direction = "bwd" if "backward" in name.lower() or self.in_backward(i) else "fwd"
            helpers = self.flex_helpers(i) if direction == "bwd" else []
            return self.add("flex", "flex", direction, [*helpers, i], name, "op", impl=i)
        return None

    def flex_helpers(self, i: int) -> list[int]:
        """The helper kernels of a compiled FlexAttention backward just before its template ``i`` (its sum of
        dO * O), as ops of the same compiled graph, nearest last."""
        out, p = [], self._previous(i)
        while p is not None and len(out) < 2:
            m = _INDUCTOR_KIND.match(self.cpu[p].name)
            if not (m and m[1] != "tem" and "flex_attention_backward" in self.cpu[p].name):
                break
            out.insert(0, p)
            p = self._previous(p)
        return out

    def by_kernels(self, i: int, name: str) -> str:
        """The backend of an SDPA or MHA call without a backend op inside: its fused kernels' family, else math
        when it ran a softmax of its own, else unknown."""
        under = self.tree.under([i])
        families = {kernels.decode(self.tree.trace.gpu[j].name).family for j in self.tree.launched(under)}
        for backend in ("flash", "mem_efficient", "cudnn"):
            if backend in families:
                return backend
        if any(_is_softmax(self.cpu[d].name) for d in under) or "softmax" in families:
            return "math"
        return "unknown"

    # --- matrix product, softmax, matrix product ---

    def siblings(self, i: int, n: int) -> list[int]:
        out, s = [], self.tree.next_sibling(i)
        while s is not None and len(out) < n:
            if self.cpu[s].kind == "op":
                out.append(s)
            s = self.tree.next_sibling(s)
        return out

    def pattern(self, i: int) -> Call | None:
        """A hand-written (or compiled) attention starting at the matrix product ``i``."""
        ahead = self.siblings(i, 2 * PATTERN_GAP + 2)
        soft = next((k for k, s in enumerate(ahead[: PATTERN_GAP + 1]) if _is_softmax(self.cpu[s].name)), None)
        if soft is None or any(_is_matmul(self.cpu[s].name) for s in ahead[:soft]):
            return None
        rest = ahead[soft + 1 : soft + 2 + PATTERN_GAP]
        second = next((k for k, s in enumerate(rest) if _is_matmul(self.cpu[s].name)), None)
        if second is None:
            return None
        s, m2 = ahead[soft], rest[second]
        if not _shapes_fit(self.cpu[i], self.cpu[s], self.cpu[m2]):
            return None
        roots = [i, *ahead[: soft + 1], *rest[: second + 1]]
        direction = "bwd" if self.in_backward(i) else "fwd"
        return self.add("handwritten", "unfused", direction, roots, self.cpu[s].name, "pattern", softmax=s, first=i,
                        second=m2)  # fmt: skip

    def compiled_backward(self, i: int) -> Call | None:
        """A compiled graph's attention backward: a fused softmax backward between matrix products."""
        before, s = [], i
        for _ in range(PATTERN_GAP):
            p = self._previous(s)
            if p is None:
                break
            s = p
            if _is_matmul(self.cpu[p].name):
                before.insert(0, p)
        after = [s for s in self.siblings(i, PATTERN_GAP) if _is_matmul(self.cpu[s].name)]
        if not before or not after:
            return None
        roots = sorted([*before[-2:], i, *after[:2]], key=lambda r: self.cpu[r].ts)
        return self.add("handwritten", "unfused", "bwd", roots, self.cpu[i].name, "pattern", softmax=i)

    def _previous(self, i: int) -> int | None:
        order, p = self.tree.thread(i), self.tree.pos[i] - 1
        while p >= 0:
            j = order[p]
            if self.tree.parent[j] == self.tree.parent[i]:
                return j
            if self.tree.pos[j] < self.tree.pos[i] and self.tree.stop[j] > self.tree.pos[i]:
                return None  # reached the parent
            p -= 1
        return None

    # --- the scan ---

    def scan(self) -> None:
        tree, cpu = self.tree, self.cpu
        for order in tree.order.values():
            p, claimed_until = 0, 0
            while p < len(order):
                i = order[p]
                e = cpu[i]
                if e.kind != "op" or p < claimed_until:
                    p += 1
                    continue
                call = self.named(i)
                if call is None and _is_matmul(e.name):
                    call = self.pattern(i)
                if call is None and _is_softmax_backward(e.name):
                    call = self.compiled_backward(i)
                if call is not None:
                    claimed_until = p = max(tree.stop[r] for r in call.roots)
                    continue
                p += 1

    def link_backward(self) -> None:
        """Backward calls through sequence numbers: pair the named ones with their forward, and gather the autograd
        nodes of the others."""
        cpu, tree = self.cpu, self.tree
        owner: dict[tuple[Any, int], int] = {}
        for k, c in enumerate(self.calls):
            if c.direction != "fwd" or c.compiled:
                continue
            for i in tree.under(c.roots):
                if cpu[i].sequence is not None and not cpu[i].backward:
                    owner.setdefault((cpu[i].pid, cpu[i].sequence), k)
        if not owner:
            return
        paired = set()
        for c in self.calls:
            if c.direction == "bwd" and c.evidence == "op":
                seq = cpu[c.roots[0]].sequence
                c.forward = owner.get((cpu[c.roots[0]].pid, seq)) if seq is not None else None
                if c.forward is not None:
                    paired.add(c.forward)
        nodes: dict[int, list[int]] = {}
        taken = {r for c in self.calls for r in c.roots}
        for i, e in enumerate(cpu):
            if e.sequence is not None and e.name.startswith(EVALUATE) and i not in taken:
                k = owner.get((e.pid, e.sequence))
                if k is not None and k not in paired:
                    nodes.setdefault(k, []).append(i)
        for k, roots in sorted(nodes.items()):
            fwd = self.calls[k]
            roots.sort(key=lambda r: (cpu[r].ts, r))
            call = Call(fwd.kind, fwd.backend, "bwd", False, roots, fwd.op, "sequence", {}, k)
            self.calls.append(call)

    def link_compiled(self) -> None:
        """Pair the backward calls of a compiled graph with its forward calls: the backward graph
        (``CompiledFunctionBackward``) shares its forward's (``CompiledFunction``) sequence number and runs their
        layers in reverse order."""
        cpu, tree = self.cpu, self.tree

        def region(c: Call, name: str) -> int | None:
            return next((a for a in tree.ancestors(c.roots[0]) if cpu[a].name.removeprefix(EVALUATE) == name), None)

        forward: dict[tuple[Any, int], list[int]] = {}
        for k, c in enumerate(self.calls):
            r = region(c, "CompiledFunction") if c.compiled and c.direction == "fwd" else None
            if r is not None and cpu[r].sequence is not None:
                forward.setdefault((cpu[r].pid, cpu[r].sequence), []).append(k)
        backward: dict[tuple[Any, int], list[int]] = {}
        for k, c in enumerate(self.calls):
            r = region(c, "CompiledFunctionBackward") if c.compiled and c.direction == "bwd" else None
            if r is not None and c.forward is None:
                top = tree.parent[r] if cpu[tree.parent[r]].name.startswith(EVALUATE) else r
                seq = cpu[r].sequence if cpu[r].sequence is not None else cpu[top].sequence
                if seq is not None:
                    backward.setdefault((cpu[r].pid, seq), []).append(k)
        for key, bwd in backward.items():
            fwd = forward.get(key, [])
            if len(fwd) == len(bwd):
                for b, f in zip(bwd, reversed(fwd), strict=True):
                    self.calls[b].forward = f


def _last2(dims: Any, k: int) -> tuple | None:
    """The last two sizes of input ``k``, or ``None`` when not recorded."""
    if not dims or len(dims) <= k or not isinstance(dims[k], tuple) or len(dims[k]) < 2:
        return None
    d = dims[k]
    return (d[-2], d[-1]) if all(isinstance(x, int) for x in d[-2:]) else None


def _operands(e: Any) -> tuple[tuple | None, tuple | None]:
    """The two matrices a product multiplies (``baddbmm`` adds to its first input)."""
    first = 1 if e.name == "aten::baddbmm" else 0
    return _last2(e.dims, first), _last2(e.dims, first + 1)


def _shapes_fit(m1: Any, soft: Any, m2: Any) -> bool:
    """Whether recorded shapes allow ``m2(softmax(m1(q, k)), v)``; true where a shape is missing."""
    if m1.name == "aten::einsum" or m2.name == "aten::einsum":
        return True
    a, b = _operands(m1)
    scores = (a[0], b[1]) if a and b and a[1] == b[0] else None
    if a and b and a[1] != b[0]:
        return False
    s = _last2(soft.dims, 0)
    if soft.concrete and len(soft.concrete) > 1 and soft.dims and soft.dims[0]:
        dim = soft.concrete[1]
        if dim not in ("-1", str(len(soft.dims[0]) - 1), "", None):
            return False
    p, v = _operands(m2)
    if scores and s and scores != s:
        return False
    probs = s or scores
    if probs and p and p != probs:
        return False
    return not (p and v and p[1] != v[0])


def previous_ops(tree: Tree, i: int, n: int, stop: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Up to ``n`` ops before ``i`` with the same parent, nearest first, not past any op in ``stop``."""
    cpu, order, out = tree.trace.cpu, tree.thread(i), []
    p = tree.pos[i] - 1
    while p >= 0 and len(out) < n:
        j = order[p]
        if tree.pos[j] < tree.pos[i] < tree.stop[j]:
            break  # the parent
        if tree.parent[j] == tree.parent[i]:
            if j in stop:
                break
            if cpu[j].kind == "op":
                out.append(j)
        p -= 1
    return out


def _in_projection(tree: Tree, i: int) -> list[int]:
    """The in-projection of ``F.multi_head_attention_forward`` before the call starting at op ``i`` (its
    ``aten::linear`` ops), or ``[]`` when none is there."""
    cpu = tree.trace.cpu
    before = previous_ops(tree, i, IN_PROJECTION_LOOKBACK)
    names = [cpu[j].name for j in before]
    for k, name in enumerate(names[:-1]):
        if name == "aten::unflatten" and names[k + 1] == "aten::linear":  # packed: one linear, unflattened to q, k, v
            linears = [before[k + 1]]
            if k + 2 < len(names) and names[k + 2] == "aten::linear":  # q apart, k and v packed
                linears.append(before[k + 2])
            return linears
        if name == "aten::linear" and names[k + 1 : k + 3] == ["aten::linear", "aten::linear"] and (
                names[k + 3 : k + 4] == ["aten::chunk"]):  # fmt: skip
            return [before[k + 2], before[k + 1], before[k]]  # the weights chunked, three linears
    return []


def _out_projection(tree: Tree, last: int) -> list[int]:
    """The out-projection (an ``aten::linear`` a few ops after the call's last op), or ``[]``."""
    cpu, s = tree.trace.cpu, tree.next_sibling(last)
    for _ in range(OUT_PROJECTION_LOOKAHEAD):
        if s is None or _is_matmul(cpu[s].name) or cpu[s].name == SDPA_OP:
            return []
        if cpu[s].name == "aten::linear":
            return [s]
        s = tree.next_sibling(s)
    return []


def _modules(tree: Tree, calls: list[Call]) -> None:
    """Name the module of each call and find its projections (see the module docstring)."""
    cpu = tree.trace.cpu
    for c in calls:
        if c.direction != "fwd":
            continue
        if c.kind == "mha":
            encoder = any(cpu[a].name == ENCODER_OP for a in tree.ancestors(c.roots[0]))
            c.module = "TransformerEncoderLayer" if encoder else "MultiheadAttention"
            c.projections = [d for d in tree.descendants(c.roots[0])
                             if tree.parent[d] == c.roots[0] and cpu[d].name in PROJECTION_OPS]  # fmt: skip
        elif c.kind in ("handwritten", "sdpa") and not c.compiled:
            found = _in_projection(tree, c.roots[0])
            if found:
                c.module = "MultiheadAttention"
                c.projections = [*found, *_out_projection(tree, max(c.roots, key=lambda r: cpu[r].ts))]
    for c in calls:
        if c.direction == "bwd" and c.forward is not None:
            c.module = calls[c.forward].module


def find_calls(tree: Tree) -> list[Call]:
    """Every attention call of the trace (see the module docstring), in time order; a backward call's
    :attr:`Call.forward` indexes into the returned list."""
    finder = _Finder(tree)
    finder.scan()
    finder.link_backward()
    finder.link_compiled()
    cpu = tree.trace.cpu
    order = sorted(range(len(finder.calls)), key=lambda k: (cpu[finder.calls[k].roots[0]].ts, k))
    new = {old: n for n, old in enumerate(order)}
    calls = [finder.calls[k] for k in order]
    for c in calls:
        if c.forward is not None:
            c.forward = new[c.forward]
    _modules(tree, calls)
    return calls
