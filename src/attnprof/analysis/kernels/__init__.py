"""Decode GPU kernel names into a family, a short label and the parameters the name encodes.

A profiler trace names each kernel by its (demangled) symbol, which is often hundreds of characters of C++
templates (ATen, FlashAttention), or a generated string whose fields are positional (cuBLAS ``nvjet``,
cuDNN, CUTLASS, Triton). :func:`decode` turns a name into a :class:`KernelInfo`:

>>> info = decode("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<...>::Params)")
>>> info.family, info.short
('mem_efficient', 'mem-efficient fwd 64x64 (bf16, out in registers)')
>>> info.text("ja")
'mem-efficient フォワード 64x64 (bf16、出力はレジスタ)'

The decoder is a table of data: :data:`RULES` is a list of regular expressions, each with the family it
identifies and the steps (:mod:`.engine`) that turn the match into fields and a :class:`Label`; :data:`TABLES` holds
the token tables the steps look words up in. The first rule whose pattern matches wins; a name no rule matches
passes through unchanged (family ``"other"``, no fields). One family of kernels per module: :mod:`.transfers`
(memcpy, memset, NCCL), :mod:`.attention` (FlashAttention, memory-efficient, cuDNN), :mod:`.generated` (Triton),
:mod:`.gemm` (cuBLAS, CUTLASS), :mod:`.aten` (softmax, reductions, elementwise, copies).

The same table decodes names in the browser: :func:`export_rules` gives it as JSON data, with the words the
labels need, and ``_assets/attnprof-kernels.js`` interprets it (:mod:`.export`;
:mod:`attnprof.render.decoder` writes both for a page).

The label is language-neutral: a form (a key of the word table, :mod:`attnprof.words`), the values that stay as
they are in every language (identifiers, dtypes, numbers), and the words that do not (``fwd``, ``tensor core``,
``+4 more``). :attr:`KernelInfo.short` is the English label; :meth:`KernelInfo.text` gives it in any language of the
site.

How sure the fields are differs by library: each rule module says what its names were read from. Tokens whose
meaning we cannot establish are kept verbatim (under ``undocumented`` or ``extra``) instead of being guessed at.
"""

from __future__ import annotations

import functools
from typing import Any

from attnprof.analysis.kernels import aten, attention, dtypes, export, gemm, generated, transfers
from attnprof.analysis.kernels.engine import Decoder, Rule
from attnprof.analysis.kernels.labels import FAMILIES, SHORT_MAX, KernelInfo, Label, family_text, shorten

__all__ = [
    "FAMILIES",
    "RULES",
    "SHORT_MAX",
    "TABLES",
    "KernelInfo",
    "Label",
    "Rule",
    "decode",
    "export_rules",
    "family_text",
    "shorten",
]

#: The decoder table, most specific first.
RULES: tuple[Rule, ...] = (
    *transfers.MEMORY,
    *attention.FLASH,
    *attention.MEM_EFFICIENT,
    *attention.CUDNN,
    *generated.RULES,
    *gemm.RULES,
    *aten.RULES,
    *transfers.COLLECTIVES,
)


def _merge(*tables: dict) -> dict:
    merged: dict = {}
    for table in tables:
        for key, value in table.items():
            if key in merged:
                raise KeyError(f"kernel table {key!r} is defined twice")
            merged[key] = value
    return merged


#: The token tables the rules' pipes name (``map:<table>``, ``lookup:<table>``, ``names:<table>``, and ``dtypes``).
TABLES: dict = _merge(dtypes.TABLES, transfers.TABLES, attention.TABLES, generated.TABLES, gemm.TABLES, aten.TABLES)

_DECODER = Decoder(RULES, TABLES)


@functools.lru_cache(maxsize=8192)
def decode(name: str) -> KernelInfo:
    """Decode one kernel (or memcpy/memset) name.

    A trace names the same few kernels thousands of times, so the answers are kept (the last 8192 names): the
    :class:`KernelInfo` is frozen, and its ``fields`` are to be read, not changed.

    Args:
        name: The activity name from the trace, demangled as Kineto writes it.

    Returns:
        The :class:`KernelInfo` of the first rule in :data:`RULES` that matches; for names no rule matches,
        family ``"other"``, the name shortened (see :func:`shorten`) as label, and no fields.
    """
    return _DECODER.decode(name)


def export_rules() -> dict[str, Any]:
    """:data:`RULES`, :data:`TABLES` and the words their labels need, as JSON-able data for the browser's decoder
    (``_assets/attnprof-kernels.js``; the format: :mod:`attnprof.analysis.kernels.export`).

    Raises:
        ValueError: for a pattern of the table that JavaScript would read differently.
    """
    return export.export(RULES, TABLES)
