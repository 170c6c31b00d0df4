"""Masks beyond causal, and the ways to run attention under them: two registries, :data:`MASKS` and :data:`METHODS`.

A mask says which keys each query may see. Each one is written once, as FlexAttention's ``mask_mod``: a function of
``(batch, head, q_idx, kv_idx)`` that is ``True`` where the query may look. FlexAttention builds its block mask
from it; the dense boolean mask that SDPA and the naive code take is the same function evaluated at every
``(q_idx, kv_idx)`` pair, so every method computes the same attention.

``sliding_window``
    Causal, and no further back than ``window`` positions: ``0 <= q_idx - kv_idx < window``.
``documents``
    Packed documents: each batch row holds several sequences of different lengths back to back
    (:func:`document_lengths`); a query sees the earlier keys of its own document only (causal within a document).
``prefix_lm``
    Prefix-LM: the first ``prefix`` positions (the prompt) see each other both ways; after them, causal.

FLOPs count the pairs a mask keeps (:func:`kept_pairs`), so a rate says how fast the *useful* work goes: a kernel
that computes masked-out blocks anyway does not get credit for them.

Facts only, no torch: the tensors, the block masks and the calls are built by :mod:`attnprof.measure.maskrun`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: How the documents of one packed row divide its length, in sixteenths, for row 0; row ``b`` rotates them by ``b``,
#: so that rows differ in where their boundaries fall.
DOCUMENT_SIXTEENTHS: tuple[int, ...] = (7, 4, 3, 2)
#: The prefix of prefix-LM, as a fraction of the sequence.
PREFIX_FRACTION = 0.25
#: The sliding windows the build measures, positions.
WINDOWS: tuple[int, ...] = (256, 1024)
#: The sequence lengths the build measures on CUDA, and the shape around them (batch, heads, head dim).
CUDA_SEQS: tuple[int, ...] = (4096, 8192)
#: The lengths the docs build measures on CUDA (within its time budget).
BUILD_SEQS: tuple[int, ...] = (8192,)
CUDA_BHD: tuple[int, int, int] = (2, 16, 64)
#: The same on the CPU: small enough for the tests.
CPU_SEQS: tuple[int, ...] = (128,)
CPU_BHD: tuple[int, int, int] = (2, 2, 16)
CPU_WINDOWS: tuple[int, ...] = (32,)


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
        windowed: Measured at each of :data:`WINDOWS`.
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


def forward_flops(head_dim: int, heads: int, pairs: int) -> float:
    """FLOPs of one forward under a mask: two products over the kept pairs, ``4 · H · D · pairs``."""
    return 4.0 * heads * head_dim * pairs
