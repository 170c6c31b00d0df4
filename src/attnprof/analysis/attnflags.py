"""What an attention call was given (:class:`Inputs`, :func:`inputs`) and what the site's method teaches to look for
around it (:func:`flags`).

Inputs come from the op that names the call, where the trace recorded them (``record_shapes=True``): ``Input
Dims``, ``Input type`` and ``Concrete Inputs`` (scalars such as ``is_causal`` and ``dropout_p``, newer PyTorch
only). A backward call takes its forward call's.

The flags (:data:`FLAGS`):

``hidden_copy``
    A copy inside the call that the code did not write: ``aten::copy_``, ``aten::clone`` or ``aten::contiguous``
    run by another op of the call (SDPA copying inputs to make them contiguous, ``matmul`` copying an expanded
    tensor through ``reshape``), and memcpys the call launched. A copy the code wrote at the call's own level (a
    ``.to()``, a ``.contiguous()``), and the backward of one, is not flagged.
``fp32_softmax``
    A softmax computed in fp32 for bf16 or fp16 inputs: the softmax op's input, or the dtype it was asked for, is
    fp32 while the matrix products are 16-bit, or its kernel reads 16-bit and writes fp32.
``math_backend``
    SDPA (or the multi-head attention fast path) ran its math backend: separate kernels and the scores in memory.
    Whether a fused backend would take these inputs is PyTorch's to say (``attnprof explain`` asks it).
``kv_expand``
    Keys or values expanded to the query heads before the call (``repeat_interleave``, or ``expand`` then a
    ``reshape`` that copies): grouped-query attention made into a copy the size of full multi-head attention.

No torch here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from attnprof.analysis import kernels
from attnprof.analysis.attention import FLEX, MATMUL_OPS, SDPA_OP, SOFTMAX_OPS, Call, previous_ops
from attnprof.analysis.tracetree import Tree

#: The flags, in the order reports list them.
FLAGS = ("hidden_copy", "fp32_softmax", "math_backend", "kv_expand")
#: ``Input type`` spellings -> the short names the site uses.
DTYPES = {"c10::BFloat16": "bf16", "c10::Half": "fp16", "float": "fp32", "double": "fp64",
          "c10::Float8_e4m3fn": "fp8e4m3", "c10::Float8_e5m2": "fp8e5m2"}  # fmt: skip
#: PyTorch's ScalarType numbers, as ``Concrete Inputs`` records a dtype argument.
SCALAR_TYPES = {"5": "fp16", "6": "fp32", "7": "fp64", "15": "bf16"}
SIXTEEN_BIT = ("bf16", "fp16")
COPY_OPS = frozenset({"aten::copy_", "aten::clone", "aten::contiguous"})
#: Ops (and autograd nodes) under which a copy is one the code wrote: a conversion, or the backward of one.
CONVERSIONS = ("aten::to", "aten::_to_copy", "aten::type_as", "aten::contiguous", "aten::clone", "aten::copy_",
               "ToCopyBackward", "CloneBackward", "CopyBackwards")  # fmt: skip
_EVALUATE = "autograd::engine::evaluate_function: "
#: Positions of (attention mask, dropout_p, is_causal, enable_gqa) among the inputs of the ops that name a call.
_ARGS: dict[str, tuple[int | None, int | None, int | None, int | None]] = {
    SDPA_OP: (3, 4, 5, 7),
    "aten::_scaled_dot_product_flash_attention": (None, 3, 4, None),
    "aten::_scaled_dot_product_flash_attention_for_cpu": (5, 3, 4, None),
    "aten::_scaled_dot_product_efficient_attention": (3, 5, 6, None),
    "aten::_scaled_dot_product_cudnn_attention": (3, 5, 6, None),
    "aten::_scaled_dot_product_attention_math": (3, 4, 5, 8),
    "aten::_native_multi_head_attention": (9, None, None, None),
}
#: How far back before a call :func:`flags` looks for an expansion of the keys and values (sibling ops).
EXPAND_LOOKBACK = 24


@dataclass(frozen=True)
class Inputs:
    """What an attention call was given, as recorded; ``None`` where the trace does not say.

    Attributes:
        query, key, value: The shapes. For a hand-written call, the operands of its two matrix products: ``key``
            as the first product took it (usually transposed), ``value`` as the second.
        dtype: The query's dtype (``bf16``, ``fp16``, ``fp32``...).
        mask: Whether an attention mask tensor was passed.
        causal: ``is_causal``.
        dropout: ``dropout_p``.
        gqa: ``enable_gqa``.
        op: The op the inputs were read from.
        strides: The strides of query, key and value, where recorded.
        mask_shape, mask_dtype: The attention mask's shape and dtype, when one was passed.
    """

    query: tuple[int, ...] | None = None
    key: tuple[int, ...] | None = None
    value: tuple[int, ...] | None = None
    dtype: str | None = None
    mask: bool | None = None
    causal: bool | None = None
    dropout: float | None = None
    gqa: bool | None = None
    op: str | None = None
    strides: tuple[tuple[int, ...] | None, ...] | None = None
    mask_shape: tuple[int, ...] | None = None
    mask_dtype: str | None = None

    @property
    def known(self) -> bool:
        return self.query is not None


def dtype_name(spelling: Any) -> str | None:
    """``"c10::BFloat16"`` -> ``"bf16"``; ``None`` for no type (a scalar, an absent input)."""
    if not isinstance(spelling, str) or not spelling or spelling == "Scalar":
        return None
    return DTYPES.get(spelling, spelling)


def _dims(e: Any, k: int) -> tuple | None:
    """Input ``k``'s shape (``()`` for a scalar tensor), or ``None`` when not recorded."""
    d = e.dims[k] if e.dims and len(e.dims) > k else None
    return d if isinstance(d, tuple) and all(isinstance(x, int) for x in d) else None


def _shape(e: Any, k: int) -> tuple | None:
    """Input ``k``'s shape, ``None`` for a scalar, an absent input or one not recorded."""
    return _dims(e, k) or None


def _concrete(e: Any, k: int | None) -> str | None:
    if k is None or not e.concrete or len(e.concrete) <= k or not isinstance(e.concrete[k], str):
        return None
    return e.concrete[k] or None


def _bool(text: str | None) -> bool | None:
    return {"True": True, "False": False, "1": True, "0": False}.get(text) if text else None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def inputs(tree: Tree, calls: Sequence[Call], k: int) -> Inputs:
    """The inputs of ``calls[k]`` (a backward call: its forward call's, or its backward op's own)."""
    call, cpu = calls[k], tree.trace.cpu
    if call.direction == "bwd" and call.forward is not None:
        return inputs(tree, calls, call.forward)
    if call.kind == "handwritten" and "first" in call.parts:
        m1, m2 = cpu[call.parts["first"]], cpu[call.parts["second"]]
        first = 1 if m1.name == "aten::baddbmm" else 0
        types = m1.types or ()
        return Inputs(_shape(m1, first), _shape(m1, first + 1), _shape(m2, 1),
                      dtype_name(types[first]) if len(types) > first else None, op=m1.name)  # fmt: skip
    root = cpu[call.roots[0] if call.kind != FLEX else call.parts.get("impl", call.roots[0])]
    e = root if root.dims else cpu[call.parts.get("impl", call.roots[0])]
    if not e.dims:
        return Inputs(op=e.name)
    if call.direction == "bwd" and call.kind != FLEX:  # a backend's backward op: grad_out, query, key, value, ...
        return Inputs(_shape(e, 1), _shape(e, 2), _shape(e, 3), dtype_name((e.types or (None,) * 2)[1]), op=e.name)
    mask, dropout, causal, gqa = _ARGS.get(e.name, (None, None, None, None))
    masked = mask is not None and bool(_dims(e, mask))
    return Inputs(
        _shape(e, 0),
        _shape(e, 1),
        _shape(e, 2),
        dtype_name(e.types[0]) if e.types else None,
        mask=None if mask is None or not e.dims or len(e.dims) <= mask else masked,
        causal=_bool(_concrete(e, causal)),
        dropout=_float(_concrete(e, dropout)),
        gqa=_bool(_concrete(e, gqa)),
        op=e.name,
        strides=tuple(_stride(e, k) for k in range(3)) if e.strides else None,
        mask_shape=_shape(e, mask) if masked else None,
        mask_dtype=dtype_name(e.types[mask]) if masked and e.types and len(e.types) > mask else None,
    )


def _stride(e: Any, k: int) -> tuple[int, ...] | None:
    d = e.strides[k] if e.strides and len(e.strides) > k else None
    return d if isinstance(d, tuple) and d and all(isinstance(x, int) for x in d) else None


@dataclass
class Flag:
    """One thing flagged on one call.

    Attributes:
        code: One of :data:`FLAGS`.
        ops: The ops that show it (``aten::matmul > aten::reshape > aten::clone``), at most a few.
        count: How many times it occurs in the call.
        gpu_us: GPU time of the work it caused (the copies' kernels and memcpys), µs; ``None`` for a flag that
            causes no work of its own (an fp32 softmax, the math backend) and in a trace without GPU work.
    """

    code: str
    ops: list[str] = field(default_factory=list)
    count: int = 1
    gpu_us: float | None = None


def _path(tree: Tree, i: int, top: int) -> str:
    """``a > b > c``: the ops from the call's root ``top`` down to ``i``."""
    cpu, names, p = tree.trace.cpu, [tree.trace.cpu[i].name], tree.parent[i]
    while p >= 0 and p != tree.parent[top]:
        name = cpu[p].name.removeprefix(_EVALUATE)
        if name != names[-1]:  # an autograd node inside its own evaluate_function
            names.append(name)
        p = tree.parent[p]
    return " > ".join(reversed(names[-4:]))


def _gpu_us(tree: Tree, ops: list[int]) -> float:
    return sum(tree.trace.gpu[j].dur for j in tree.launched(tree.under(ops)))


def _hidden_copies(tree: Tree, call: Call) -> Flag | None:
    cpu, found, paths = tree.trace.cpu, [], []
    for r in call.roots:
        skip_until = -1
        for i in tree.under([r]):
            if tree.pos[i] < skip_until or cpu[i].name not in COPY_OPS or _dims(cpu[i], 0) == ():
                continue  # inside a copy already counted, not a copy, or a copy of a scalar
            chain, p = [], tree.parent[i]
            if i != r:
                chain.append(cpu[r].name.removeprefix(_EVALUATE))
                while p >= 0 and p != r:
                    chain.append(cpu[p].name.removeprefix(_EVALUATE))
                    p = tree.parent[p]
            if any(not n.startswith(CONVERSIONS) for n in chain):
                found.append(i)
                paths.append(_path(tree, i, r))
                skip_until = tree.stop[i]
    gpu = [j for j in tree.launched(tree.under(call.roots)) if tree.trace.gpu[j].kind == "memcpy"]
    copied = {j for j in tree.launched(tree.under(found))}
    memcpy = [j for j in gpu if j not in copied]
    if not found and not memcpy:
        return None
    time = sum(tree.trace.gpu[j].dur for j in copied | set(memcpy))
    names = list(dict.fromkeys(paths)) + [tree.trace.gpu[j].name for j in memcpy[:1]]
    return Flag("hidden_copy", names[:3], len(found) + len(memcpy), round(time, 3) if tree.trace.gpu else None)


def _softmax_op(tree: Tree, call: Call) -> int | None:
    if "softmax" in call.parts:
        return call.parts["softmax"]
    return next((i for i in tree.under(call.roots) if tree.trace.cpu[i].name in SOFTMAX_OPS), None)


def _fp32_softmax(tree: Tree, call: Call, model: str | None) -> Flag | None:
    cpu = tree.trace.cpu
    s = _softmax_op(tree, call)
    if s is None or call.direction != "fwd":
        return None
    e = cpu[s]
    if model is None:
        model = next((dtype_name(cpu[i].types[0]) for i in tree.under(call.roots)
                      if cpu[i].name in MATMUL_OPS and cpu[i].types), None)  # fmt: skip
    asked = SCALAR_TYPES.get(_concrete(e, 2) or "") if e.name == "aten::softmax" else None
    given = dtype_name(e.types[0]) if e.types else None
    why = None
    if model in SIXTEEN_BIT and (given == "fp32" or asked == "fp32"):
        why = f"{e.name}({given or '?'} -> {asked or given})"
    for j in tree.launched(tree.under([s])):
        f = kernels.decode(tree.trace.gpu[j].name).fields
        if why is None and f.get("input") in SIXTEEN_BIT and f.get("output") == "fp32":
            why = f"{e.name}: {f['input']} in, fp32 out"
        elif why is None and model in SIXTEEN_BIT and f.get("input") == "fp32":
            why = f"{e.name}: fp32 in ({model} model)"
    return Flag("fp32_softmax", [why]) if why else None


def _copies(tree: Tree, i: int) -> bool:
    return any(tree.trace.cpu[d].name in ("aten::clone", "aten::copy_") for d in tree.descendants(i))


def _kv_expand(tree: Tree, call: Call, roots: set[int]) -> Flag | None:
    cpu = tree.trace.cpu
    before = previous_ops(tree, call.roots[0], EXPAND_LOOKBACK, roots)
    found: list[int] = []
    for n, j in enumerate(before):
        name = cpu[j].name
        if name == "aten::repeat_interleave" and (_concrete(cpu[j], 1) or "2") not in ("1", "[1]"):
            found.append(j)
        elif name == "aten::expand":
            nxt = before[:n]  # the ops after the expand, nearest the call first
            reshape = next((r for r in reversed(nxt) if cpu[r].name in ("aten::reshape", "aten::contiguous")), None)
            if reshape is not None and _copies(tree, reshape) and _grows_heads(cpu[j]):
                found.extend((j, reshape))
    if not found:
        return None
    names = list(dict.fromkeys(cpu[j].name for j in found))
    count = sum(1 for j in found if cpu[j].name != "aten::expand")
    return Flag("kv_expand", names, count, round(_gpu_us(tree, found), 3) if tree.trace.gpu else None)


def _grows_heads(e: Any) -> bool:
    """Whether an ``expand`` repeats a singleton axis, as ``repeat_kv`` does (true where shapes are missing)."""
    d = _dims(e, 0)
    return d is None or 1 in d[1:]


def flags(tree: Tree, calls: Sequence[Call], k: int, given: Inputs, roots: set[int] | None = None) -> list[Flag]:
    """The flags of ``calls[k]`` (see the module docstring), in the order of :data:`FLAGS`; ``roots`` are every
    call's roots (worked out here when not given)."""
    call = calls[k]
    roots = {r for c in calls for r in c.roots} if roots is None else roots
    out = [
        _hidden_copies(tree, call),
        _fp32_softmax(tree, call, given.dtype),
        Flag("math_backend", [call.op]) if call.kind in ("sdpa", "mha") and call.backend == "math" else None,
        _kv_expand(tree, call, roots) if call.direction == "fwd" else None,
    ]
    return [f for f in out if f is not None]
