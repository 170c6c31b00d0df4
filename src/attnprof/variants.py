"""The attention variants, all ``(q, k, v) -> out`` on ``[batch, heads, seq, head_dim]``.

Each variant is registered once in :data:`VARIANTS`. A :class:`Variant` knows how to *prepare* its callable for
one shape and device: whatever should stay outside the timed region (the boolean causal mask of the naive
variants, the block mask of FlexAttention, the ``torch.compile`` wrapper) is built there, and the returned
callable is what the profiler sees.

Every variant is causal self-attention for prefill and training (:mod:`attnprof.workloads`). For decoding (one new
query token against a KV cache with fewer KV heads than query heads), a variant has a second form, ``decode``:
no mask (the new token may see every cached key) and the KV heads shared by groups of query heads. Which
workloads a variant takes part in is a fact of the registry (:meth:`Variant.supports`).

The functions below are the code shown on the site, so they are written to be read.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attnprof.words.fmt import quoted

if TYPE_CHECKING:
    import torch

Attention = Callable[["torch.Tensor", "torch.Tensor", "torch.Tensor"], "torch.Tensor"]


# --- the code being profiled -------------------------------------------------------------------------------------


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Causal attention from basic ops; ``masked_fill`` returns a new tensor (out of place).

    ``mask`` is ``True`` above the diagonal (the positions a query may not see).
    """
    import torch

    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1))  # [batch, heads, seq, seq]
    scores = scores * scale
    scores = scores.masked_fill(mask, float("-inf"))  # copies scores, then fills the copy
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v)  # [batch, heads, seq, head_dim]


def naive_inplace_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The same as :func:`naive_attention` with one change: ``masked_fill_`` writes into ``scores``.

    Safe because nothing else holds ``scores``, with or without autograd: the scaling before it saves no tensor
    for its backward (only the constant), and the backward of ``masked_fill_`` needs only the mask, so the fill
    overwrites nothing that a backward pass would read.
    """
    import torch

    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1))
    scores = scores * scale
    scores.masked_fill_(mask, float("-inf"))  # fills in place: no copy
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v)


def sdpa_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, backend: str | None = None, causal: bool = True
) -> torch.Tensor:
    """``F.scaled_dot_product_attention`` with ``is_causal=True``; ``backend`` forces one implementation.

    ``backend`` is a name of ``torch.nn.attention.SDPBackend`` (``"MATH"``, ``"EFFICIENT_ATTENTION"``,
    ``"FLASH_ATTENTION"``, ``"CUDNN_ATTENTION"``), or ``None`` to let PyTorch choose. The forcing context is
    entered inside the call, so its cost is part of what the profiler sees. ``causal=False`` drops the mask: every
    query sees every key (the full attention of an encoder, measured by the training-scale grid).
    """
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if backend is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def sdpa_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, backend: str | None = None) -> torch.Tensor:
    """One decoding step: ``q`` is ``[batch, heads, 1, head_dim]``, ``k`` and ``v`` the cache ``[batch, kv_heads,
    kv_len, head_dim]`` with ``heads`` a multiple of ``kv_heads`` (grouped-query attention).

    No mask: the new token may attend to every cached position. Not ``is_causal=True``: with one query row, SDPA
    aligns the causal mask to the top left, so the token would see the first key only (math and cuDNN run and
    return the wrong result; flash refuses). ``enable_gqa=True`` lets SDPA share each KV head among its group of
    query heads without copying the cache. ``backend`` forces one implementation, as in :func:`sdpa_attention`.
    """
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if backend is None:
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def naive_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """One decoding step from basic ops: the cache's KV heads repeated up to the query heads
    (``repeat_interleave``, a copy of the cache on every call), then matmul, scale, softmax, matmul; no mask."""
    import torch

    group = q.size(1) // k.size(1)
    k = k.repeat_interleave(group, dim=1)  # [batch, heads, kv_len, head_dim]: the cache copied
    v = v.repeat_interleave(group, dim=1)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))  # [batch, heads, 1, kv_len]
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def causal_mask(seq: int, device: str) -> torch.Tensor:
    """Boolean ``[seq, seq]`` mask, ``True`` where a query would look ahead (strictly above the diagonal)."""
    import torch

    return torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)


# --- preparing each variant for one shape and device ---------------------------------------------------------------


def _prepare_naive(seq: int, device: str) -> Attention:
    mask = causal_mask(seq, device)
    return lambda q, k, v: naive_attention(q, k, v, mask)


def _prepare_naive_inplace(seq: int, device: str) -> Attention:
    mask = causal_mask(seq, device)
    return lambda q, k, v: naive_inplace_attention(q, k, v, mask)


def _prepare_sdpa(backend: str | None, causal: bool = True) -> Callable[[int, str], Attention]:
    def prepare(seq: int, device: str) -> Attention:
        return lambda q, k, v: sdpa_attention(q, k, v, backend, causal)

    return prepare


def _prepare_flex(seq: int, device: str) -> Attention:
    import torch

    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as exc:  # pragma: no cover - torch < 2.5
        raise RuntimeError(f"FlexAttention needs torch >= 2.5 (this is {torch.__version__}): {exc}") from exc

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    block_mask = create_block_mask(causal, None, None, seq, seq, device=device)
    compiled = torch.compile(flex_attention, dynamic=False)  # one kernel per shape, each compiled for that shape
    return lambda q, k, v: compiled(q, k, v, block_mask=block_mask)


def _decode_sdpa(backend: str | None) -> Callable[[int, str], Attention]:
    def prepare(kv_len: int, device: str) -> Attention:
        return lambda q, k, v: sdpa_decode(q, k, v, backend)

    return prepare


def _decode_naive(kv_len: int, device: str) -> Attention:
    return naive_decode


def _decode_flex(kv_len: int, device: str) -> Attention:
    import torch
    from torch.nn.attention.flex_attention import flex_attention

    compiled = torch.compile(flex_attention, dynamic=False)  # one kernel per cache length, as in prefill
    return lambda q, k, v: compiled(q, k, v, enable_gqa=True)


def _prepare_compiled_naive(seq: int, device: str) -> Attention:
    import torch

    mask = causal_mask(seq, device)
    compiled = torch.compile(naive_inplace_attention)
    return lambda q, k, v: compiled(q, k, v, mask)


@dataclass(frozen=True)
class Variant:
    """One registered attention variant.

    Attributes:
        name: Registry key, also the stem of result files and the profiler annotation (``<name>_fwd``).
        title: Short human title.
        description: What it is and what to expect, in one or two sentences.
        devices: Where it can run at all (``"cuda"``, ``"cpu"``).
        dtypes: Dtypes it accepts, by canonical name.
        requirements: Other limits, in words (head_dim, GPU generation, compiler).
        backend: The forced ``SDPBackend`` name, or ``None``.
        compiled: True if the first call compiles (``torch.compile``); its warm-up takes seconds.
        short: The name sentences use for it (``"flash"``, ``"cuDNN"``).
        sdpa_family: For a variant that forces an SDPA backend, that backend's family as the trace shows it
            (``"flash"``, ``"mem_efficient"``, ``"cudnn"``, ``"math"``; see :func:`by_sdpa_family`); else ``None``.
        materializes_scores: Writes the whole ``[seq, seq]`` score matrix to device memory.
        score_copies: How many ``[batch, heads, seq, seq]`` score matrices are alive at once at the call's peak
            (``scores * scale`` makes a new one while the old one is still held); 0 for fused kernels. Read by
            :func:`attnprof.measure.cost.variant_bytes`.
        scores_in_float32: The scores are computed in float32 at least, whatever the input dtype (SDPA's math
            backend upcasts float16 and bfloat16).
        fused: One of the three fused SDPA backends the reference article compares.
        cpu_cost: Measured in the side-by-side CPU-cost comparison
            (:func:`attnprof.measure.cpucosts.measure_cpu_costs`): every variant, so that the CPU figures of the
            at-a-glance table share one measurement.
        decode: Prepares the decoding form ``(kv_len, device) -> (q, k, v) -> out`` (no mask, grouped KV heads),
            or ``None`` for a variant that has none (see ``not_for``).
        not_for: ``(workload, why)`` pairs: the workloads this variant does not take part in, and why in words.
            PyTorch's own refusals are not listed here: those are measured, and recorded in the result.
        graph: Its decoding step is captured in a CUDA graph for the side-by-side comparison with the eager step.
        sdpa_chooses: No backend forced: SDPA chooses one itself, by its priority list and the inputs (the trace
            shows which; see :func:`sdpa_chooser`).
        full: Prepares the same attention without a mask ``(seq, device) -> (q, k, v) -> out`` (every query sees
            every key), or ``None`` for a variant that has no such form (see :meth:`build_masking`).
        slow_decode: Its decoding step takes tens of milliseconds at long caches (it reads the cache in ATen ops),
            so the build decodes it at the shorter cache lengths only
            (:data:`attnprof.workloads.DECODE_SLOW_MAX_LEN`).
    """

    name: str
    title: str
    description: str
    devices: tuple[str, ...]
    dtypes: tuple[str, ...]
    requirements: str
    prepare: Callable[[int, str], Attention]
    backend: str | None = None
    compiled: bool = False
    short: str = ""
    sdpa_family: str | None = None
    materializes_scores: bool = False
    score_copies: int = 0
    scores_in_float32: bool = False
    fused: bool = False
    cpu_cost: bool = False
    decode: Callable[[int, str], Attention] | None = None
    not_for: tuple[tuple[str, str], ...] = ()
    graph: bool = False
    sdpa_chooses: bool = False
    slow_decode: bool = False
    full: Callable[[int, str], Attention] | None = None

    @property
    def annotation(self) -> str:
        """The ``record_function`` label wrapped around each profiled call."""
        return f"{self.name}_fwd"

    def build(self, seq: int, device: str) -> Attention:
        """The ``(q, k, v) -> out`` callable for sequence length ``seq`` on ``device``."""
        return self.prepare(seq, device)

    def build_masking(self, seq: int, device: str, causal: bool) -> Attention:
        """The callable with the causal mask (``causal=True``, :meth:`build`) or without any mask.

        Raises:
            ValueError: for ``causal=False`` and a variant without an unmasked form (:attr:`full`).
        """
        if causal:
            return self.build(seq, device)
        if self.full is None:
            raise ValueError(f"variant {self.name!r} has no form without a mask; choose one of: "
                             f"{', '.join(names_unmasked())}")  # fmt: skip
        return self.full(seq, device)

    def build_decode(self, kv_len: int, device: str) -> Attention:
        """The decoding ``(q, k, v) -> out`` callable for a cache of ``kv_len`` positions on ``device``.

        Raises:
            ValueError: for a variant without a decoding form, saying why.
        """
        if self.decode is None:
            raise ValueError(f"variant {self.name!r} has no decode form: {self.why_not('decode')}")
        return self.decode(kv_len, device)

    def supports(self, workload: str) -> bool:
        """Whether this variant takes part in ``workload`` (``"prefill"``, ``"train"``, ``"decode"``)."""
        if workload == "decode" and self.decode is None:
            return False
        return all(w != workload for w, _ in self.not_for)

    def why_not(self, workload: str) -> str:
        """Why this variant does not take part in ``workload`` (``""`` when it does)."""
        return next((why for w, why in self.not_for if w == workload), "")


_FLOATS = ("float16", "bfloat16", "float32", "float64")
_HALF = ("float16", "bfloat16")

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "naive",
            "Naive attention",
            "Matmul, scale, out-of-place masked_fill, softmax, matmul: five ATen ops, each its own kernel, plus a "
            "copy of the score matrix made by masked_fill.",
            ("cuda", "cpu"),
            _FLOATS,
            "none beyond memory: it materialises the [seq, seq] score matrix several times",
            _prepare_naive,
            short="naive",
            cpu_cost=True,
            materializes_scores=True,
            score_copies=2,
            decode=_decode_naive,
            slow_decode=True,
        ),
        Variant(
            "naive_inplace",
            "Naive attention, in-place mask",
            "The naive code with masked_fill_ (in place): the copy of the score matrix disappears.",
            ("cuda", "cpu"),
            _FLOATS,
            "none beyond memory; the in-place fill is safe under autograd too (no backward reads what it overwrites)",
            _prepare_naive_inplace,
            short="in-place",
            cpu_cost=True,
            materializes_scores=True,
            score_copies=2,
            not_for=(("decode", "a decoding step has no mask to fill, so its code is the naive variant's"),),
        ),
        Variant(
            "sdpa_math",
            "SDPA, math backend",
            "PyTorch's reference implementation of scaled_dot_product_attention, written in ATen ops.",
            ("cuda", "cpu"),
            _FLOATS,
            "none; it is the fallback that always runs",
            _prepare_sdpa("MATH"),
            full=_prepare_sdpa("MATH", causal=False),
            decode=_decode_sdpa("MATH"),
            backend="MATH",
            short="math",
            cpu_cost=True,
            sdpa_family="math",
            materializes_scores=True,
            score_copies=2,
            scores_in_float32=True,
            slow_decode=True,
        ),
        Variant(
            "sdpa_efficient",
            "SDPA, memory-efficient backend",
            "One fused CUTLASS kernel from the xFormers lineage; never stores the [seq, seq] matrix.",
            ("cuda",),
            ("float16", "bfloat16", "float32"),
            "CUDA only",
            _prepare_sdpa("EFFICIENT_ATTENTION"),
            full=_prepare_sdpa("EFFICIENT_ATTENTION", causal=False),
            decode=_decode_sdpa("EFFICIENT_ATTENTION"),
            backend="EFFICIENT_ATTENTION",
            short="efficient",
            sdpa_family="mem_efficient",
            fused=True,
            cpu_cost=True,
        ),
        Variant(
            "sdpa_flash",
            "SDPA, flash backend",
            "FlashAttention-2 as built into PyTorch: one fused kernel that tiles keys and values with an online "
            "softmax.",
            ("cuda", "cpu"),
            (*_HALF, "float32"),
            "CUDA: compute capability >= 8.0, float16/bfloat16, head_dim <= 256; CPU: a separate C++ kernel",
            _prepare_sdpa("FLASH_ATTENTION"),
            full=_prepare_sdpa("FLASH_ATTENTION", causal=False),
            decode=_decode_sdpa("FLASH_ATTENTION"),
            backend="FLASH_ATTENTION",
            short="flash",
            sdpa_family="flash",
            fused=True,
            cpu_cost=True,
            graph=True,
        ),
        Variant(
            "sdpa_cudnn",
            "SDPA, cuDNN backend",
            "A kernel generated by cuDNN's attention engine for this problem, launched through the driver API.",
            ("cuda",),
            _HALF,
            "CUDA with cuDNN >= 9, compute capability >= 8.0, head_dim <= 256",
            _prepare_sdpa("CUDNN_ATTENTION"),
            full=_prepare_sdpa("CUDNN_ATTENTION", causal=False),
            decode=_decode_sdpa("CUDNN_ATTENTION"),
            backend="CUDNN_ATTENTION",
            short="cuDNN",
            sdpa_family="cudnn",
            fused=True,
            cpu_cost=True,
            graph=True,
        ),
        Variant(
            "sdpa_auto",
            "SDPA, PyTorch's choice",
            "scaled_dot_product_attention with no backend forced: PyTorch picks by its priority list and the inputs.",
            ("cuda", "cpu"),
            _FLOATS,
            "none",
            _prepare_sdpa(None),
            full=_prepare_sdpa(None, causal=False),
            short="SDPA's choice",
            cpu_cost=True,
            decode=_decode_sdpa(None),
            graph=True,
            sdpa_chooses=True,
        ),
        Variant(
            "flex",
            "FlexAttention",
            "torch.compile'd flex_attention with a causal block mask: one Triton kernel generated for this mask, "
            "skipping fully masked blocks.",
            ("cuda", "cpu"),
            ("float16", "bfloat16", "float32"),
            "torch >= 2.5 and a working torch.compile (Triton on CUDA, a C++ compiler on CPU)",
            _prepare_flex,
            compiled=True,
            short="flex",
            cpu_cost=True,
            decode=_decode_flex,
        ),
        Variant(
            "compiled_naive",
            "torch.compile of naive attention",
            "The in-place naive code through torch.compile: the gemms stay library calls, the elementwise ops "
            "and the softmax fuse into one generated kernel.",
            ("cuda", "cpu"),
            _FLOATS,
            "a working torch.compile (Triton on CUDA, a C++ compiler on CPU)",
            _prepare_compiled_naive,
            compiled=True,
            short="compiled",
            cpu_cost=True,
            materializes_scores=True,
            score_copies=2,
            not_for=(
                (
                    "decode",
                    "not measured: compiling the naive decoding step teaches nothing FlexAttention's does not",
                ),
            ),
        ),
    )
}


def get(name: str) -> Variant:
    """The registered variant called ``name``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    found = VARIANTS.get(name) or (VARIANTS.get(name.lower()) if isinstance(name, str) else None)
    if found is None:
        raise ValueError(f"unknown variant {quoted(name)}; choose one of: {', '.join(VARIANTS)}")
    return found


def names(**facts: object) -> tuple[str, ...]:
    """Registry names of the variants whose attributes equal ``facts``, in registry order.

    >>> names(fused=True)
    ('sdpa_efficient', 'sdpa_flash', 'sdpa_cudnn')

    Raises:
        ValueError: for an attribute a :class:`Variant` does not have.
    """
    fields = Variant.__dataclass_fields__
    unknown = [k for k in facts if k not in fields]
    if unknown:
        raise ValueError(f"unknown variant attribute {unknown[0]!r}; choose from: {', '.join(fields)}")
    return tuple(v.name for v in VARIANTS.values() if all(getattr(v, k) == x for k, x in facts.items()))


def for_workload(workload: str) -> tuple[str, ...]:
    """The variants that take part in ``workload``, in registry order (:meth:`Variant.supports`)."""
    return tuple(v.name for v in VARIANTS.values() if v.supports(workload))


def names_unmasked() -> tuple[str, ...]:
    """The variants with a form without a mask (:attr:`Variant.full`), in registry order."""
    return tuple(v.name for v in VARIANTS.values() if v.full is not None)


def forced() -> tuple[str, ...]:
    """The variants that force one SDPA backend, in registry order."""
    return tuple(v.name for v in VARIANTS.values() if v.sdpa_family is not None)


def sdpa_chooser() -> str:
    """The variant that leaves the backend to SDPA's own choice (:attr:`Variant.sdpa_chooses`): ``"sdpa_auto"``."""
    return next(v.name for v in VARIANTS.values() if v.sdpa_chooses)


def by_sdpa_family(family: str | None) -> str | None:
    """The variant that forces the SDPA backend ``family`` (``"cudnn"`` -> ``"sdpa_cudnn"``), or ``None``."""
    return next((v.name for v in VARIANTS.values() if family is not None and v.sdpa_family == family), None)
