"""What a variant is asked to do: prefill, train, or decode. One registry, :data:`WORKLOADS`.

``prefill``
    One causal forward over the whole sequence, gradients off: the reference article's workload, and what the rest
    of the site measures. Annotation ``<variant>_fwd``.
``train``
    Forward and backward: ``q``, ``k`` and ``v`` require gradients, a fixed upstream gradient flows back through
    ``out.backward(grad)``. Annotation ``<variant>_train`` around ``<variant>_fwd`` and ``<variant>_bwd``. FLOPs:
    the forward's two matrix products (:func:`attnprof.inputs.causal_flops`) and, for the backward, five products of
    the same size (``dV``, ``dP``, ``dQ``, ``dK`` and the recomputed scores), 2.5 times the forward; 3.5 times the
    forward in all. A kernel that keeps the score matrix from the forward does less; the count is the one
    FlashAttention's benchmarks use, so that rates compare.
``decode``
    One new query token against a KV cache with grouped-query attention: ``q`` is ``[B, H, 1, D]``, ``k`` and ``v``
    ``[B, H_kv, L, D]`` with ``H`` a multiple of ``H_kv``; no mask (the token sees every cached position). Annotation
    ``<variant>_decode``. FLOPs ``4·B·H·L·D``; the step is memory-bound, so what counts is the bytes it cannot avoid
    moving (:func:`decode_bytes`): the cache read once, the query read and the output written.

Which variants take part in which workload is a fact of the variant registry (:meth:`attnprof.variants.Variant.
supports`). A variant PyTorch refuses for a workload (the memory-efficient backend with grouped heads) is not
excluded: it runs, and its result records PyTorch's reason.

A mask other than causal is a dimension of its own, measured in the prefill and train workloads: the second half of
this module registers the masks (:data:`MASKS`: sliding window, packed documents, prefix-LM) and the ways to run
attention under them (:data:`METHODS`: FlexAttention, SDPA with a dense mask, nested tensors, the naive code).

Facts only: the steps themselves (tensors, torch) are built by :mod:`attnprof.measure.steps`, and under a mask by
:mod:`attnprof.measure.maskrun`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from attnprof import inputs, variants
from attnprof.inputs import Setup
from attnprof.words.fmt import quoted

#: FLOPs of the backward over the forward's: five matrix products where the forward has two.
BACKWARD_FLOP_FACTOR = 2.5
#: Seed of the fixed upstream gradient of a training step.
GRAD_SEED = 7

#: Variants the build does not train: compiling their backward takes seconds of the build's time budget (FlexAttention
#: about five on an H200, the most of any variant), so they are left to ``attnprof profile V --workload train``.
TRAIN_NOT_IN_BUILD: tuple[str, ...] = ("compiled_naive", "flex")
#: Decoding on CUDA: batch, query heads, one token, head dim; KV heads; the cache lengths the build measures.
DECODE_SHAPE: tuple[int, int, int, int] = (8, 32, 1, 128)
DECODE_KV_HEADS = 8
DECODE_LENS: tuple[int, ...] = (1024, 16384, 131072)
#: Variants whose decoding step takes tens of milliseconds at long caches (``Variant.slow_decode``) run only up to
#: this length in the build.
DECODE_SLOW_MAX_LEN = 16384
#: Variants that compile (one kernel per cache length) run at this length only in the build (one of DECODE_LENS).
DECODE_COMPILED_LEN = 16384
#: The cache length of the CUDA-graph comparison: the shortest, where the CPU's share of a step is largest.
GRAPH_LEN = 1024
#: Decoding on the CPU: a small shape, the same grouping (4 query heads per KV head).
CPU_DECODE_SHAPE: tuple[int, int, int, int] = (1, 8, 1, 64)
CPU_DECODE_KV_HEADS = 2
CPU_DECODE_LENS: tuple[int, ...] = (256, 1024)
#: The training-scale grid (:mod:`attnprof.measure.trainscale`): forward and backward over sequence lengths, head
#: dims, with and without the causal mask, one line per SDPA backend, like a kernel benchmark. The batch holds
#: :data:`TRAIN_SCALE_TOKENS` tokens at every length (batch = tokens // seq) and the model is
#: :data:`TRAIN_SCALE_WIDTH` wide (heads = width // head_dim), so every point does work of the same order and the
#: lines compare rates, not sizes.
TRAIN_SCALE_LENS: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384)
TRAIN_SCALE_HEAD_DIMS: tuple[int, ...] = (64, 128)
TRAIN_SCALE_TOKENS = 16384
TRAIN_SCALE_WIDTH = 2048
#: The grid on the CPU: tiny lengths, float32, the same code.
CPU_TRAIN_SCALE_LENS: tuple[int, ...] = (64, 128, 256)
CPU_TRAIN_SCALE_TOKENS = 256
CPU_TRAIN_SCALE_WIDTH = 128
#: A variant whose step (forward and backward) took longer than this at one length is not run at the longer ones
#: (same head dim, same mask): the math backend, whose step on an H200 takes about 110 to 170 ms at 8k tokens and
#: twice that at 16k (its 16k point at head_dim 64 holds 129 GiB), a second of the build's time per point.
TRAIN_SCALE_SLOW_MS = 60.0
#: The same on the CPU, whose tiny points take milliseconds, and a loaded CPU tens of them.
CPU_TRAIN_SCALE_SLOW_MS = 1000.0


# --- the workloads --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """One registered workload.

    Attributes:
        name: Registry key, also part of the result file's name.
        title: Short human title.
        suffix: The step annotation is ``<variant>_<suffix>``.
        phases: Annotations nested inside the step (``<variant>_<phase>``), in order; empty when there are none.
        grad: Runs with autograd recording: a step has a backward pass.
        flops: FLOPs of one step for a setup.
        kv_cache: A step reads a KV cache (one query token against ``kv_len`` cached positions, grouped heads).
        graph_replay: The build also replays a step from a CUDA graph, to show what the CPU's share of it was.
        sweeps: The sequence-length sweep (:mod:`attnprof.measure.sweeprun`) measures this workload.
        article: The reference article's workload: the variant pages, the article's claims and every command are
            about it unless told otherwise; the others are named where they appear.
        causal: Each query sees only the keys before it (the causal mask); ``False`` for one new token against its
            whole cache, which has no mask.
    """

    name: str
    title: str
    suffix: str
    phases: tuple[str, ...]
    grad: bool
    flops: Callable[[Setup], float]
    kv_cache: bool = False
    graph_replay: bool = False
    sweeps: bool = False
    article: bool = False
    causal: bool = True

    @property
    def backward(self) -> bool:
        """Whether a step runs a backward pass (the same as :attr:`grad`)."""
        return self.grad

    def annotation(self, variant: str) -> str:
        """The annotation around one step of ``variant`` (``"sdpa_flash_train"``)."""
        return f"{variant}_{self.suffix}"

    def phase_annotation(self, variant: str, phase: str) -> str:
        """The annotation of one phase of a step (``"sdpa_flash_bwd"``)."""
        return f"{variant}_{phase}"


def prefill_flops(setup: Setup) -> float:
    """FLOPs of one causal forward (:func:`attnprof.inputs.causal_flops`)."""
    return inputs.causal_flops(setup.shape)


def train_flops(setup: Setup) -> float:
    """FLOPs of one training step: the causal forward's, times 1 + :data:`BACKWARD_FLOP_FACTOR`."""
    return (1.0 + BACKWARD_FLOP_FACTOR) * inputs.causal_flops(setup.shape)


def forward_flops(shape: tuple[int, int, int, int], causal: bool = True) -> float:
    """FLOPs of one attention forward: two matrix products of ``2·S·S·D`` per (batch, head), ``4·B·H·S²·D``; the
    causal mask halves them (:func:`attnprof.inputs.causal_flops`). Softmax and scaling are not counted."""
    full = 2.0 * inputs.causal_flops(shape)
    return full / 2.0 if causal else full


def backward_flops(shape: tuple[int, int, int, int], causal: bool = True) -> float:
    """FLOPs of one attention backward: :data:`BACKWARD_FLOP_FACTOR` times :func:`forward_flops`."""
    return BACKWARD_FLOP_FACTOR * forward_flops(shape, causal)


def train_scale_shape(seq: int, head_dim: int, device: str) -> tuple[int, int, int, int]:
    """The grid's ``[batch, heads, seq, head_dim]`` at one point: :data:`TRAIN_SCALE_TOKENS` tokens per batch and a
    model :data:`TRAIN_SCALE_WIDTH` wide on CUDA (the CPU's smaller pair on the CPU); batch and heads at least 1."""
    tokens, width = (TRAIN_SCALE_TOKENS, TRAIN_SCALE_WIDTH) if device == "cuda" else (
        CPU_TRAIN_SCALE_TOKENS, CPU_TRAIN_SCALE_WIDTH)  # fmt: skip
    return (max(1, tokens // seq), max(1, width // head_dim), seq, head_dim)


def decode_flops(setup: Setup) -> float:
    """FLOPs of one decoding step: two products of one query row with ``L`` keys, per query head: ``4·B·H·L·D``."""
    b, h, s, d = setup.shape
    return 4.0 * b * h * s * (setup.kv_len or s) * d


def decode_bytes(setup: Setup) -> int:
    """Bytes one decoding step cannot avoid moving: ``k`` and ``v`` read once (``2·B·H_kv·L·D`` elements), ``q``
    read and the output written (``2·B·H·D`` per query token)."""
    b, h, s, d = setup.shape
    _, hk, length, _ = setup.kv_shape
    return (2 * b * hk * length * d + 2 * b * h * s * d) * inputs.element_bytes(setup.dtype)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            "prefill", "Prefill: one causal forward", "fwd", (), False, prefill_flops, sweeps=True, article=True
        ),
        Workload("train", "Training: forward and backward", "train", ("fwd", "bwd"), True, train_flops),
        Workload(
            "decode",
            "Decoding: one token against a KV cache",
            "decode",
            (),
            False,
            decode_flops,
            kv_cache=True,
            graph_replay=True,
            causal=False,
        ),
    )
}


def article() -> str:
    """The name of the reference article's workload (:attr:`Workload.article`): ``"prefill"``."""
    return next(w.name for w in WORKLOADS.values() if w.article)


def get(name: str) -> Workload:
    """The workload called ``name``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    found = WORKLOADS.get(name) or (WORKLOADS.get(name.lower()) if isinstance(name, str) else None)
    if found is None:
        raise ValueError(f"unknown workload {quoted(name)}; choose one of: {', '.join(WORKLOADS)}")
    return found


def check(variant: str, workload: str) -> variants.Variant:
    """The variant, after checking that it takes part in ``workload``.

    Raises:
        ValueError: for an unknown variant or workload, or a variant that does not take part (saying why and
            which variants do).
    """
    v, w = variants.get(variant), get(workload)
    if not v.supports(w.name):
        raise ValueError(
            f"variant {v.name!r} does not take part in the {w.name} workload "
            f"({v.why_not(w.name) or 'no form for it'}); "
            f"choose one of: {', '.join(variants.for_workload(w.name))}"
        )
    return v


# --- setups ---------------------------------------------------------------------------------------------------------


def default_setup(workload: str, device: str | None = None) -> Setup:
    """The build's setup of ``workload``: prefill and train take :func:`attnprof.inputs.default_setup`'s; decode
    :data:`DECODE_SHAPE` with :data:`DECODE_KV_HEADS` KV heads and a cache of :data:`GRAPH_LEN` on CUDA
    (:data:`CPU_DECODE_SHAPE`, the shortest of :data:`CPU_DECODE_LENS` on the CPU), bf16."""
    base = inputs.default_setup(device)
    if not get(workload).kv_cache:
        return base
    if base.device == "cuda":
        return inputs.make_setup(DECODE_SHAPE, "bfloat16", "cuda", kv_heads=DECODE_KV_HEADS, kv_len=GRAPH_LEN)
    return inputs.make_setup(CPU_DECODE_SHAPE, "bfloat16", "cpu", kv_heads=CPU_DECODE_KV_HEADS,
                             kv_len=CPU_DECODE_LENS[0])  # fmt: skip


def check_setup(workload: str, setup: Setup) -> Setup:
    """``setup``, after checking that it fits ``workload``; a decoding setup without a cache gets the queries'
    heads (no grouping) and a cache as long as the shape's ``S``, with one query token.

    Raises:
        ValueError: one line naming the bad value: a KV cache outside decoding, or a decoding shape whose
            ``S`` (query tokens) is not 1 when a cache length is given.
    """
    w = get(workload)
    has_cache = setup.kv_heads is not None or setup.kv_len is not None
    if not w.kv_cache:
        if has_cache:
            raise ValueError(f"a KV cache (kv_heads, kv_len) belongs to the decode workload, not {w.name!r}; drop it "
                             "or choose workload 'decode'")  # fmt: skip
        return setup
    b, h, s, d = setup.shape
    if setup.kv_len is None:  # B,H,L,D given: one new token against a cache of L
        return inputs.make_setup((b, h, 1, d), setup.dtype, setup.device, kv_heads=setup.kv_heads or h, kv_len=s)
    if s != 1:
        raise ValueError(f"bad decode shape {list(setup.shape)}: S is the number of new tokens and must be 1, e.g. "
                         f"{b},{h},1,{d} with kv_len {setup.kv_len}")  # fmt: skip
    return (
        setup
        if setup.kv_heads is not None
        else inputs.make_setup(setup.shape, setup.dtype, setup.device, kv_heads=h, kv_len=setup.kv_len)
    )


@dataclass(frozen=True)
class Planned:
    """One run of a build plan: a variant, its setup, and whether to compare its step with a CUDA graph."""

    variant: str
    setup: Setup
    graph: bool = False


def plan(workload: str, device: str, names: tuple[str, ...] | None = None) -> list[Planned]:
    """What the build measures for ``workload`` on ``device``, in order (the gallery scripts run this).

    Training: every variant that trains, at the default shape, except those that compile
    (:data:`TRAIN_NOT_IN_BUILD`); on the CPU no variant that compiles either (the CUDA-only ones stay: their results
    record why they cannot run).
    Decoding on CUDA: the fused variants at every length of :data:`DECODE_LENS`, the slow ones
    (``Variant.slow_decode``: math, naive) up to :data:`DECODE_SLOW_MAX_LEN`, the compiled one (flex) at
    :data:`DECODE_COMPILED_LEN` only, and the CUDA-graph comparison at :data:`GRAPH_LEN` for the variants the registry
    marks (``Variant.graph``). On the CPU, the variants that do not compile at :data:`CPU_DECODE_LENS` (the graph
    comparison planned as well: it records that it needs
    CUDA).
    """
    w = get(workload)
    chosen = [variants.get(n) for n in (names or variants.for_workload(w.name))]
    chosen = [v for v in chosen if v.supports(w.name)]
    if device == "cpu":
        # no compiling on the CPU (tens of seconds each); CUDA-only variants stay, to record why they cannot run
        chosen = [v for v in chosen if not v.compiled]
    if not w.kv_cache:
        setup = default_setup(w.name, device)
        skip = TRAIN_NOT_IN_BUILD if w.backward and not names else ()
        return [Planned(v.name, setup) for v in chosen if v.name not in skip]
    base = default_setup(w.name, device)
    lens = DECODE_LENS if device == "cuda" else CPU_DECODE_LENS
    out = []
    for v in chosen:
        for length in lens:
            if v.compiled and length != DECODE_COMPILED_LEN:
                continue
            if v.slow_decode and length > DECODE_SLOW_MAX_LEN:
                continue
            setup = inputs.make_setup(base.shape, base.dtype, device, kv_heads=base.kv_heads, kv_len=length)
            out.append(Planned(v.name, setup, graph=v.graph and length == GRAPH_LEN))
    return out


# --- masks beyond causal --------------------------------------------------------------------------------------------
#
# Masks beyond causal, and the ways to run attention under them: two registries, :data:`MASKS` and :data:`METHODS`.
#
# A mask says which keys each query may see. Each one is written once, as FlexAttention's ``mask_mod``: a function of
# ``(batch, head, q_idx, kv_idx)`` that is ``True`` where the query may look. FlexAttention builds its block mask
# from it; the dense boolean mask that SDPA and the naive code take is the same function evaluated at every
# ``(q_idx, kv_idx)`` pair, so every method computes the same attention.
#
# ``sliding_window``
#     Causal, and no further back than ``window`` positions: ``0 <= q_idx - kv_idx < window``.
# ``documents``
#     Packed documents: each batch row holds several sequences of different lengths back to back
#     (:func:`document_lengths`); a query sees the earlier keys of its own document only (causal within a document).
# ``prefix_lm``
#     Prefix-LM: the first ``prefix`` positions (the prompt) see each other both ways; after them, causal.
#
# FLOPs count the pairs a mask keeps (:attr:`Mask.pairs`), so a rate says how fast the *useful* work goes: a kernel
# that computes masked-out blocks anyway does not get credit for them.
#
# The tensors, the block masks and the calls are built by :mod:`attnprof.measure.maskrun`.

#: How the documents of one packed row divide its length, in sixteenths, for row 0; row ``b`` rotates them by ``b``,
#: so that rows differ in where their boundaries fall.
DOCUMENT_SIXTEENTHS: tuple[int, ...] = (7, 4, 3, 2)
#: The prefix of prefix-LM, as a fraction of the sequence.
PREFIX_FRACTION = 0.25
#: The sliding windows the build measures, positions.
MASK_WINDOWS: tuple[int, ...] = (256, 1024)
#: The sequence lengths the build measures on CUDA, and the shape around them (batch, heads, head dim).
MASK_CUDA_SEQS: tuple[int, ...] = (4096, 8192)
#: The lengths the docs build measures on CUDA (within its time budget).
MASK_BUILD_SEQS: tuple[int, ...] = (8192,)
MASK_CUDA_BHD: tuple[int, int, int] = (2, 16, 64)
#: The same on the CPU: small enough for the tests.
MASK_CPU_SEQS: tuple[int, ...] = (128,)
MASK_CPU_BHD: tuple[int, int, int] = (2, 2, 16)
MASK_CPU_WINDOWS: tuple[int, ...] = (32,)


@dataclass(frozen=True)
class Geometry:
    """The sizes a mask depends on, for one sequence length.

    Attributes:
        batch: Batch rows (documents differ per row).
        seq: Positions per row.
        window: Sliding window, positions (``sliding_window`` only).
        prefix: Prompt length (``prefix_lm`` only).
    """

    batch: int
    seq: int
    window: int = 0
    prefix: int = 0

    def documents(self) -> list[list[int]]:
        """The document lengths of each row (:func:`document_lengths`)."""
        return [document_lengths(self.seq, row) for row in range(self.batch)]


def document_lengths(seq: int, row: int = 0) -> list[int]:
    """Lengths of the packed documents of batch row ``row``: ``seq`` divided by :data:`DOCUMENT_SIXTEENTHS`,
    rotated by ``row``; the last takes the rounding remainder.

    Raises:
        ValueError: for a ``seq`` below 16 (a document would be empty).
    """
    if seq < 16:
        raise ValueError(f"bad seq {seq} for packed documents: need at least 16 positions")
    parts = (
        DOCUMENT_SIXTEENTHS[row % len(DOCUMENT_SIXTEENTHS) :] + DOCUMENT_SIXTEENTHS[: row % len(DOCUMENT_SIXTEENTHS)]
    )
    lengths = [seq * p // 16 for p in parts]
    lengths[-1] += seq - sum(lengths)
    return lengths


def document_ids(lengths: Sequence[int]) -> list[int]:
    """The document of each position of one row: ``[0, 0, 0, 1, 1, ...]``."""
    return [i for i, n in enumerate(lengths) for _ in range(n)]


# --- the mask functions (FlexAttention's mask_mod) ------------------------------------------------------------------

ModFn = Callable[[Any, Any, Any, Any], Any]


def sliding_window_mod(window: int) -> ModFn:
    """Causal within ``window`` positions."""

    def mask_mod(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < window)

    return mask_mod


def documents_mod(doc: Any) -> ModFn:
    """Causal within a document; ``doc`` is a ``[batch, seq]`` tensor of document ids (:func:`document_ids`)."""

    def mask_mod(b, h, q_idx, kv_idx):
        return (doc[b, q_idx] == doc[b, kv_idx]) & (q_idx >= kv_idx)

    return mask_mod


def prefix_lm_mod(prefix: int) -> ModFn:
    """The first ``prefix`` keys visible to every query; causal after them."""

    def mask_mod(b, h, q_idx, kv_idx):
        return (kv_idx < prefix) | (q_idx >= kv_idx)

    return mask_mod


# --- kept pairs ----------------------------------------------------------------------------------------------------


def _window_pairs(g: Geometry) -> int:
    w, s = g.window, g.seq
    return g.batch * sum(min(q + 1, w) for q in range(s))


def _document_pairs(g: Geometry) -> int:
    return sum(n * (n + 1) // 2 for row in g.documents() for n in row)


def _prefix_pairs(g: Geometry) -> int:
    p, s = g.prefix, g.seq
    return g.batch * (p * p + sum(q + 1 for q in range(p, s)))


@dataclass(frozen=True)
class Mask:
    """One registered mask.

    Attributes:
        name: Registry key, part of file names and annotations.
        title: Short human title.
        description: What it is, in one sentence.
        mod: Its ``mask_mod`` for a geometry; the packed-document mask also takes the ``[batch, seq]`` document ids
            as a tensor (made by the measuring code), the others ignore that argument.
        pairs: The (query, key) pairs it keeps, over all rows.
        packed: Its rows are packed documents: nested (jagged) tensors can run it without any mask.
        windowed: Measured at each of :data:`MASK_WINDOWS`.
    """

    name: str
    title: str
    description: str
    mod: Callable[[Geometry, Any], ModFn]
    pairs: Callable[[Geometry], int]
    packed: bool = False
    windowed: bool = False

    def geometries(self, batch: int, seq: int, windows: Sequence[int]) -> list[Geometry]:
        """The geometries measured at ``seq``: one per window for a windowed mask, else one."""
        if self.windowed:
            return [Geometry(batch, seq, window=w) for w in windows if w < seq]
        return [Geometry(batch, seq, prefix=int(seq * PREFIX_FRACTION))]

    def density(self, g: Geometry) -> float:
        """The share of the ``[seq, seq]`` score matrix it keeps (causal: about one half)."""
        return self.pairs(g) / (g.batch * g.seq * g.seq)

    def label(self, g: Geometry) -> str:
        """``sliding_window w256`` / ``prefix_lm p1024`` / ``documents``: the mask and the size that sets it."""
        if self.windowed:
            return f"{self.name} w{g.window}"
        return f"{self.name} p{g.prefix}" if g.prefix and not self.packed else self.name


MASKS: dict[str, Mask] = {
    m.name: m
    for m in (
        Mask(
            "sliding_window",
            "Sliding window",
            "Causal, and no further back than a window of positions.",
            lambda g, doc: sliding_window_mod(g.window),
            _window_pairs,
            windowed=True,
        ),
        Mask(
            "documents",
            "Packed documents",
            "Several documents of different lengths packed into each batch row; causal within a document.",
            lambda g, doc: documents_mod(doc),
            _document_pairs,
            packed=True,
        ),
        Mask(
            "prefix_lm",
            "Prefix-LM",
            "A prompt that sees itself both ways, then causal.",
            lambda g, doc: prefix_lm_mod(g.prefix),
            _prefix_pairs,
        ),
    )
}


# --- the methods ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One way to run attention under a mask.

    Attributes:
        name: Registry key.
        title: Short human title.
        backend: The ``SDPBackend`` forced for a dense-mask SDPA call (``None``: SDPA's own choice, or not SDPA).
        dense: Takes the dense boolean mask (SDPA and the naive code).
        sdpa: Calls ``F.scaled_dot_product_attention``.
        compiled: Compiles on its first call (FlexAttention): not run on the CPU.
        packed_only: Applies only to a packed-document mask (nested tensors: one sequence per document).
    """

    name: str
    title: str
    backend: str | None = None
    dense: bool = False
    sdpa: bool = False
    compiled: bool = False
    packed_only: bool = False

    def applies(self, mask: Mask) -> bool:
        """Whether this method can express ``mask`` at all (nested tensors: packed documents only)."""
        return mask.packed or not self.packed_only


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("flex", "FlexAttention with a block mask", compiled=True),
        Method("sdpa_auto", "SDPA with a dense mask, PyTorch's choice", dense=True, sdpa=True),
        Method("sdpa_efficient", "SDPA with a dense mask, memory-efficient", "EFFICIENT_ATTENTION", True, True),
        Method("sdpa_cudnn", "SDPA with a dense mask, cuDNN", "CUDNN_ATTENTION", True, True),
        Method("sdpa_flash", "SDPA with a dense mask, flash", "FLASH_ATTENTION", True, True),
        Method("sdpa_math", "SDPA with a dense mask, math", "MATH", True, True),
        Method("nested", "SDPA on nested (jagged) tensors, one per document", sdpa=True, packed_only=True),
        Method("naive", "Naive attention with the dense mask", dense=True),
    )
}


def get_mask(name: str) -> Mask:
    """The mask called ``name``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    try:
        return MASKS[name]
    except KeyError:
        raise ValueError(f"unknown mask {name!r}; choose one of: {', '.join(MASKS)}") from None


def get_method(name: str) -> Method:
    """The method called ``name``.

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown mask method {name!r}; choose one of: {', '.join(METHODS)}") from None


def mask_flops(head_dim: int, heads: int, pairs: int) -> float:
    """FLOPs of one forward under a mask: two products over the kept pairs, ``4 · H · D · pairs``."""
    return 4.0 * heads * head_dim * pairs
