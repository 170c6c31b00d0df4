"""Decode GPU kernel names into a family, a short label and the parameters the name encodes.

A profiler trace names each kernel by its (demangled) symbol, which is often hundreds of characters of C++
templates (ATen, FlashAttention), or a generated string whose fields are positional (cuBLAS ``nvjet``,
cuDNN, CUTLASS, Triton). :func:`decode` turns a name into a :class:`KernelInfo`:

>>> info = decode("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<...>::Params)")
>>> info.family, info.short
('mem_efficient', 'mem-efficient fwd 64x64 (bf16, out in registers)')
>>> info.text("ja")
'mem-efficient フォワード 64x64 (bf16、出力はレジスタ)'

The decoder is a table: :data:`RULES` is a list of regular expressions, each with the family it identifies and a
function that turns the match into fields and a :class:`Label`. The first rule whose pattern matches wins; a name
no rule matches passes through unchanged (family ``"other"``, no fields).

The label is language-neutral: a form (a key of the word table, :mod:`attnprof.words`), the values that stay as
they are in every language (identifiers, dtypes, numbers), and the words that do not (``fwd``, ``tensor core``,
``+4 more``). :attr:`KernelInfo.short` is the English label; :meth:`KernelInfo.text` gives it in any language of the
site.

What the fields mean, and how sure we are:

* FlashAttention-2, memory-efficient attention, ATen and Triton names come from source code we can read
  (PyTorch's ``flash_fwd_launch_template.h``, ``mem_eff_attention/kernels/generate_kernels.py``,
  ``SoftMax.cu``, ``TriangularOps.cu``, Inductor's kernel naming), so their fields are definite.
* CUTLASS 2.x library names follow the CUTLASS profiler's documented scheme; cuBLAS's ``xmma``/``ampere_*``
  names follow the same conventions (tile, stages, warps, math instruction) but are not documented by NVIDIA.
* cuBLAS ``nvjet_*`` and cuDNN ``cudnn_generated_*`` names are undocumented. Fields are decoded only where the
  trace corroborates them (for ``nvjet``, ``(tile_m + tile_n) x k_tile x 2 bytes x stages`` accounts for all
  but ~16 KiB of the shared memory the trace reports); tokens whose meaning we cannot establish are kept verbatim
  under ``undocumented`` or ``extra`` instead of being guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from attnprof import words

#: Kernel families, in the order the docs list them.
FAMILIES = (
    "gemm",
    "flash",
    "mem_efficient",
    "cudnn",
    "triton",
    "softmax",
    "reduce",
    "elementwise",
    "copy",
    "fill",
    "memcpy",
    "memset",
    "nccl",
    "other",
)

#: Longest label :func:`decode` produces.
SHORT_MAX = 60


@dataclass(frozen=True)
class Label:
    """A short label, before it is put into words: the same in every language.

    Attributes:
        form: The word-table key ``kernel.<form>`` whose text lays the label out; ``"raw"`` for a name shown as
            it is (``values["name"]``).
        values: Placeholder -> text kept verbatim in every language (identifiers, dtypes, tiles, numbers).
        words: Placeholder -> ``(word key, fallback)``: words that have a text in every language, or, for a key the
            table does not have (a memset target nobody named), the fallback as recorded. ``("", "")`` is empty.
        items: A list (the ops a Triton kernel fused) joined after the form's text, as many as fit, then
            ``+N more`` in the page's language.
    """

    form: str
    values: dict[str, str] = field(default_factory=dict, hash=False)
    words: dict[str, tuple[str, str]] = field(default_factory=dict, hash=False)
    items: tuple[str, ...] = ()

    def text(self, language: str | None = None, limit: int = SHORT_MAX) -> str:
        """The label in ``language`` (a language of the site; English for others), at most ``limit`` characters."""
        if self.form == "raw":
            return _clip(self.values["name"], limit)
        filled = {k: words.text_or(key, fb, language) if key else "" for k, (key, fb) in self.words.items()}
        head = words.text(f"kernel.{self.form}", language, **self.values, **filled)
        if not self.items:
            return _clip(head, limit)
        items = list(self.items)
        sep = words.text("kernel.item_sep", language)
        for n in range(len(items), 0, -1):
            more = words.text("kernel.more", language, n=len(items) - n) if n < len(items) else ""
            s = head + sep.join(items[:n]) + more
            if len(s) <= limit:
                return s
        return _clip(head + words.text("kernel.ops", language, n=len(items)), limit)


def _label(form: str, words_: Mapping[str, str | tuple[str, str]] | None = None, **values: str) -> Label:
    """``Label(form, values, words)``; a word given as a key alone falls back to the key itself."""
    pairs = {k: w if isinstance(w, tuple) else (w, w) for k, w in (words_ or {}).items()}
    return Label(form, dict(values), pairs)


def _raw(text: str) -> Label:
    return Label("raw", {"name": text})


@dataclass(frozen=True)
class KernelInfo:
    """What a kernel name says.

    Attributes:
        name: The name as the trace has it.
        family: One of :data:`FAMILIES`.
        short: A readable label of at most :data:`SHORT_MAX` characters, in English.
        fields: Parameters decoded from the name (``{"head_dim": "64", "dtype": "bf16", ...}``); empty for
            names no rule knows. Values are strings, as they appear in (or are derived from) the name.
        label: The label before it is put into words (:meth:`text` puts it into any language of the site).
    """

    name: str
    family: str
    short: str
    fields: dict[str, str] = field(default_factory=dict, hash=False)
    label: Label | None = field(default=None, hash=False, compare=False)

    def text(self, language: str | None = None) -> str:
        """The short label in ``language`` (identifiers, dtypes and numbers stay as they are)."""
        return self.label.text(language) if self.label is not None else self.short

    def family_text(self, language: str | None = None) -> str:
        """The kernel family in ``language``, as tables show it."""
        return family_text(self.family, language)


def family_text(family: str, language: str | None = None) -> str:
    """A kernel family (:data:`FAMILIES`) in ``language``: ``"elementwise"`` -> ``"要素ごと"``."""
    return words.text_or(f"family.{family}", family, language)


# --- helpers --------------------------------------------------------------------------------------------------------

# C++ and library spellings of element types -> the short names PyTorch users know.
_DTYPES = {
    "c10::BFloat16": "bf16",
    "cutlass::bfloat16_t": "bf16",
    "__nv_bfloat16": "bf16",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "c10::Half": "fp16",
    "cutlass::half_t": "fp16",
    "__half": "fp16",
    "half": "fp16",
    "fp16": "fp16",
    "f16": "fp16",
    "float": "fp32",
    "fp32": "fp32",
    "f32": "fp32",
    "tf32": "tf32",
    "double": "fp64",
    "f64": "fp64",
    "bool": "bool",
    "long": "int64",
    "int64_t": "int64",
    "int": "int32",
    "unsigned int": "uint32",
    "signed char": "int8",
    "char": "int8",
    "unsigned char": "uint8",
    "c10::Float8_e4m3fn": "fp8e4m3",
    "c10::Float8_e5m2": "fp8e5m2",
    "e4m3": "fp8e4m3",
    "e5m2": "fp8e5m2",
    "s8": "int8",
    "i8": "int8",
    "int8": "int8",
}


def _dtype(s: str | None) -> str:
    """``"c10::BFloat16"`` -> ``"bf16"``; unknown spellings come back stripped of namespaces."""
    if not s:
        return "?"
    s = s.strip().removesuffix(" const").strip()
    return _DTYPES.get(s, s.rsplit("::", 1)[-1])


def _strip_signature(name: str) -> str:
    """Drop a leading ``void `` and a trailing parameter list: ``void f<T>(int, T)`` -> ``f<T>``."""
    s = name.strip()
    s = s.removeprefix("void ")
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    if i > 0:
                        s = s[:i]
                    break
    return s.strip()


def _collapse_templates(s: str) -> str:
    """Replace every outermost ``<...>`` with ``<…>``: ``a::f<x<y>, z>`` -> ``a::f<…>``."""
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            if depth == 0:
                out.append("<…")
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _clip(s: str, limit: int = SHORT_MAX) -> str:
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def shorten(name: str, limit: int = SHORT_MAX) -> str:
    """A name cut down for a table cell: no ``void``, no parameter list, templates collapsed if too long.

    >>> shorten("void at::native::foo_kernel<float, 4>(float*, int)")
    'at::native::foo_kernel<float, 4>'
    """
    s = _strip_signature(name)
    if len(s) > limit:
        s = _collapse_templates(s)
    if len(s) > limit and "::" in s:
        # keep the innermost qualified names: ``a::b::c::kernel<…>`` -> ``c::kernel<…>``
        head, _, tail = s.partition("<")
        parts = head.split("::")
        while len(parts) > 1 and len("::".join(parts)) + len(tail) + 1 > limit:
            parts.pop(0)
        s = "::".join(parts) + ("<" + tail if tail else "")
    return _clip(s, limit)


# --- rule functions: match -> (fields, label) -----------------------------------------------------------------------

_Fields = dict[str, str]
_Result = tuple[_Fields, Label]


def _memcpy(m: re.Match[str], name: str) -> _Result:
    f = {"direction": m["direction"], "source": m["src"], "destination": m["dst"]}
    places = {"src": (f"kernel.place.{m['src']}", m["src"]), "dst": (f"kernel.place.{m['dst']}", m["dst"])}
    return f, _label("memcpy", places, direction=m["direction"])


def _memset(m: re.Match[str], name: str) -> _Result:
    return {"target": m["target"]}, _label("memset", {"target": (f"kernel.place.{m['target']}", m["target"])})


# flash_fwd_kernel<Traits, Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap,
# Return_softmax> (DEFINE_FLASH_FORWARD_KERNEL in PyTorch's flash_fwd_launch_template.h)
_FLASH_FWD_FLAGS = ("dropout", "causal", "local", "alibi", "even_mn", "even_k", "softcap", "return_softmax")


def _flash(m: re.Match[str], name: str) -> _Result:
    kernel = m["kernel"]
    f = {
        "kernel": kernel,
        "head_dim": m["head_dim"],
        "block_m": m["block_m"],
        "block_n": m["block_n"],
        "warps": m["warps"],
        "q_in_regs": m["q_in_regs"],
        "share_qk_smem": m["share_qk"],
        "dtype": _dtype(m["elem"]),
    }
    # The booleans after the traits' closing brackets: name them where the kernel's signature is known.
    rest = name[m.end() :]
    bools = re.findall(r"\b(true|false)\b", rest.split("(", 1)[0])
    if kernel == "flash_fwd_kernel" and len(bools) == len(_FLASH_FWD_FLAGS):
        f.update(zip(_FLASH_FWD_FLAGS, bools, strict=True))
    elif bools:
        f["flags"] = ",".join(bools)
    causal = "kernel.causal" if f.get("causal") == "true" else ""
    label = kernel.removeprefix("flash_").removesuffix("_kernel")
    if label in _FLASH_SPLITKV:
        # flash-decoding: the keys split over blocks, each with a partial softmax, merged by the combine kernel
        f["step"] = _FLASH_SPLITKV[label]
        step = {"step": f"kernel.step.{label}"}
        return f, _label("flash_splitkv", step, head_dim=m["head_dim"], dtype=f["dtype"])
    return f, _label(
        "flash",
        {"causal": causal},
        kernel="flash_" + kernel.removeprefix("flash_").removesuffix("_kernel"),
        head_dim=m["head_dim"],
        tile=f"{m['block_m']}x{m['block_n']}",
        dtype=f["dtype"],
    )


_FLASH_SPLITKV = {"fwd_splitkv": "split-KV fwd", "fwd_splitkv_combine": "split-KV combine"}


# Flash_bwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, AtomLayoutMSdP, AtomLayoutNdKV, AtomLayoutMdQ,
# Is_V_in_regs, No_double_buffer, elem_type> (PyTorch's flash_bwd_launch_template.h). The backward runs three
# kernels: dot(dO, O) per row (the softmax's backward term), the main dQ/dK/dV loop over key blocks in parallel,
# and a conversion of the fp32 dQ accumulator to the input type.
_FLASH_BWD_STEPS = {
    "flash_bwd_dot_do_o_kernel": "dot(dO, O)",
    "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel": "dQ dK dV",
    "flash_bwd_dq_dk_dv_loop_kernel": "dQ dK dV",
    "flash_bwd_convert_dq_kernel": "convert dQ",
    "flash_bwd_convert_dkv_kernel": "convert dK dV",
}
#: The backward steps' labels (``kernel.step.<key>``; a step no rule names is shown as it is).
_FLASH_BWD_WORDS = {"dot(dO, O)": "dot_do_o", "dQ dK dV": "dq_dk_dv", "convert dQ": "convert_dq",
                    "convert dK dV": "convert_dkv"}  # fmt: skip


def _flash_bwd(m: re.Match[str], name: str) -> _Result:
    kernel = m["kernel"]
    f = {
        "kernel": kernel,
        "direction": "bwd",
        "head_dim": m["head_dim"],
        "block_m": m["block_m"],
        "block_n": m["block_n"],
        "warps": m["warps"],
        "dtype": _dtype(m["elem"]),
    }
    step = _FLASH_BWD_STEPS.get(kernel, kernel.removeprefix("flash_bwd_").removesuffix("_kernel"))
    f["step"] = step
    tile = f" {m['block_m']}x{m['block_n']}" if step == "dQ dK dV" else ""
    step_words = {"step": (f"kernel.step.{_FLASH_BWD_WORDS.get(step, step)}", step)}  # unnamed: shown as it is
    return f, _label("flash_bwd", step_words, head_dim=m["head_dim"], tile=tile, dtype=f["dtype"])


def _flash_other(m: re.Match[str], name: str) -> _Result:
    return {"kernel": m["kernel"]}, _raw(shorten(name))


# FlashAttention-3 (Hopper): cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<...>>>
def _flash3(m: re.Match[str], name: str) -> _Result:
    direction = m["direction"].lower()
    f = {"kernel": f"FlashAttn{m['direction']}{m['arch']}", "version": "3", "arch": m["arch"].lower()}
    return f, _label("flash3", {"direction": f"kernel.dir.{direction}"}, arch=f["arch"])


# fmha_cutlass{F,B}_<dtype>_<aligned|notaligned>_<queries>x<keys>[_k<max_k>]_<rf|gmem>_sm<arch>: PyTorch's
# mem_eff_attention/kernels/generate_kernels.py. "rf": the kernel's max head dim fits one key block, so the
# output accumulates in registers (kSingleValueIteration); "gmem": it accumulates in global memory.
def _mem_efficient(m: re.Match[str], name: str) -> _Result:
    direction = "fwd" if m["pass"] == "F" else "bwd"
    f = {
        "direction": direction,
        "dtype": _dtype(m["dtype"]),
        "aligned": "true" if m["aligned"] == "aligned" else "false",
        "block_q": m["block_q"],
        "block_k": m["block_k"],
        "arch": m["arch"],
    }
    if m["max_k"]:
        f["max_k"] = m["max_k"]
    if m["out"]:
        f["output"] = "registers" if m["out"] == "rf" else "global memory"
    # AttentionKernel<scalar_t, ArchTag, isAligned, kQueriesPerBlock, kKeysPerBlock, kMaxK, dropout, bias>
    t = re.search(r"AttentionKernel<([^<>]+)>", name)
    if t:
        args = [a.strip() for a in t.group(1).split(",")]
        if len(args) == 8:
            f["max_k"] = args[5]
            f["supports_dropout"], f["supports_bias"] = args[6], args[7]
    where = {"registers": "kernel.out.registers", "global memory": "kernel.out.gmem"}.get(f.get("output", ""), "")
    tile = f"{m['block_q']}x{m['block_k']}"
    return f, _label("mem_efficient", {"direction": f"kernel.dir.{direction}", "where": where}, tile=tile,
                     dtype=f["dtype"])  # fmt: skip


def _cudnn_sdpa(m: re.Match[str], name: str) -> _Result:
    # Kept verbatim: "f16" is cuDNN's word for its 16-bit path (the fixtures run this kernel on bf16 inputs), and
    # "shape" (4x1x1 with 384 threads per block) is not a warp count; cga is NVIDIA's name for a block cluster.
    f = {"op": m["op"], "arch": m["arch"], "algo": m["algo"]}
    for key in ("mma", "dtype", "knob", "tile", "shape", "cluster"):
        if m[key]:
            f[key] = m[key]
    if m["rest"]:
        f["suffix"] = m["rest"].strip("_")
    mma = f" {m['mma']}" if m["mma"] else ""
    tile = f" {m['tile']}" if m["tile"] else ""
    algo = m["algo"].replace("_", " ")
    return f, _label("cudnn", op=m["op"], algo=algo, arch=m["arch"], mma=mma, tile=tile)


# cuDNN's fused SDPA runs small helper kernels beside the generated one: the backward's dot(dO, O) per row and
# its conversion of the fp32 dQ accumulator; decoding's reduction of the partial results of split keys ("lean
# attention", cuDNN's split-KV scheme for one query row).
#: cuDNN's helper kernels beside its generated attention kernel -> direction (their labels: ``kernel.cudnn.<key>``).
_CUDNN_HELPERS = {"compute_dot_do_o": "bwd", "convert_dq_to_16bits": "bwd", "lean_reduction_kernel": "fwd"}


def _cudnn_other(m: re.Match[str], name: str) -> _Result:
    for key, direction in _CUDNN_HELPERS.items():
        if f"cudnn::fusion::{key}" in name:
            f = {"kernel": key, "direction": direction}
            hd = re.search(r"compute_dot_do_o_specialized<\w+,\s*(\d+)>", name)
            if hd:
                f["head_dim"] = hd.group(1)
            head_dim = f" (hd{f['head_dim']})" if "head_dim" in f else ""
            return f, _label("cudnn_helper", {"step": f"kernel.cudnn.{key}"}, head_dim=head_dim)
    return {}, _raw(shorten(name))


# Inductor names kernels triton_<kind>_fused_<origin ops joined by "_">_<n>. Op names contain underscores
# themselves, so the joined list is split greedily against the multi-word names below; single-word ops need no
# entry. A leading underscore survives as a doubled separator ("fused__softmax").
_INDUCTOR_KINDS = {
    "poi": "pointwise",
    "per": "persistent reduction",
    "red": "reduction",
    "tem": "template",
    "for": "foreach",
    "spl": "split scan",
    "sca": "scan",
}
_MULTIWORD_OPS = tuple(
    sorted(
        """
        masked_fill prepare_softmax_online flex_attention flex_attention_backward to_copy unsafe_view
        log_softmax safe_softmax native_layer_norm native_layer_norm_backward layer_norm group_norm
        native_group_norm batch_norm native_batch_norm scaled_dot_product_attention
        scaled_dot_product_flash_attention scaled_dot_product_efficient_attention
        scaled_dot_product_cudnn_attention index_put index_select index_add scatter_add scatter_reduce
        constant_pad_nd native_dropout rand_like randn_like full_like zeros_like ones_like empty_like
        new_zeros new_ones new_empty slice_scatter select_scatter split_with_sizes max_pool2d_with_indices
        avg_pool2d adaptive_avg_pool2d upsample_nearest2d upsample_bilinear2d nll_loss_forward cross_entropy
        gelu_backward silu_backward threshold_backward softmax_backward_data where_self bitwise_and
        bitwise_or bitwise_not logical_and logical_or logical_not clamp_min clamp_max sort_stable as_strided
        """.split(),
        key=lambda op: -op.count("_"),
    )
)


def _inductor_ops(joined: str) -> list[str]:
    """``"_softmax_exp_masked_fill_mul"`` -> ``["_softmax", "exp", "masked_fill", "mul"]``."""
    tokens = joined.split("_")
    ops: list[str] = []
    i = 0
    while i < len(tokens):
        prefix = ""
        if tokens[i] == "" and i + 1 < len(tokens):  # "__x": an op whose name starts with "_"
            prefix, i = "_", i + 1
        for op in _MULTIWORD_OPS:
            n = op.count("_") + 1
            if tokens[i : i + n] == op.split("_"):
                ops.append(prefix + op)
                i += n
                break
        else:
            if tokens[i]:
                ops.append(prefix + tokens[i])
            i += 1
    return ops


def _triton(m: re.Match[str], name: str) -> _Result:
    kind = _INDUCTOR_KINDS.get(m["kind"], m["kind"])
    ops = _inductor_ops(m["ops"]) if m["ops"] else []
    f = {"generator": "inductor", "kind": kind, "index": m["index"]}
    if ops:
        f["ops"] = ",".join(ops)
    label = {"kind": (f"kernel.triton.{kind}", kind)}
    if not ops:
        return f, _label("triton_index", label, index=m["index"])
    return f, Label("triton_ops", {}, {"kind": label["kind"]}, tuple(op.lstrip("_") for op in ops))


def _triton_other(m: re.Match[str], name: str) -> _Result:
    return {"generator": "triton"}, _raw(shorten(name))


# nvjet: cuBLAS's Hopper/Blackwell GEMM kernels (cuBLAS 12.8+ names them so). Undocumented; positional tokens:
#   nvjet[_sm90]_<types>_<tile M x N>_<k tile>x<stages>_<cluster>_<h|v>_<bz>_<schedule>_<layouts>
# Corroborated by the trace: tile, k tile and stages account for the shared memory reported for the kernel
# (nvjet_sm90_tst_256x128_64x4: (256+128) x 64 x 2 B x 4 = 196608 B of 213188 B). The cluster shape fits the
# launch: these kernels go through cuLaunchKernelEx, the driver call that can set a cluster. 384 threads are three
# warpgroups, consistent with the warp-specialised "cooperative" schedule that "coop" suggests. The type letters
# follow BLAS convention where known (h = fp16, s = fp32); t is what bf16 operands show in the traces we have.
_NVJET_TYPES = {"h": "fp16", "s": "fp32", "t": "bf16", "d": "fp64"}
_NVJET_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("schedule", re.compile(r"^(?:coop[AB]?|pingpong|splitK|streamK|2cta|1cta|persistent)$")),
    ("layout", re.compile(r"^[TN]{2,4}$")),
    # "h"/"v" and "bz" recur in every nvjet name (h or v in the same slot whatever the data type); what they
    # select is not documented, so they are kept verbatim rather than guessed at.
    ("undocumented", re.compile(r"^(?:[hv]|bz)$")),
)


def _nvjet(m: re.Match[str], name: str) -> _Result:
    f: _Fields = {}
    if m["arch"]:
        f["arch"] = m["arch"]
    types = m["types"]
    f["types"] = types
    dtype = _NVJET_TYPES.get(types[0], "unknown")
    if m["math"] == "tf32":
        dtype = "tf32"
    f["dtype"] = dtype
    f["accumulate"] = _NVJET_TYPES.get(types[1], "unknown")
    f["tile"] = m["tile"]
    if m["k_tile"]:
        f["k_tile"], f["stages"] = m["k_tile"], m["stages"]
    if m["cluster"]:
        f["cluster"] = m["cluster"]
    extra = []
    for tok in filter(None, (m["rest"] or "").split("_")):
        for key, pat in _NVJET_TOKENS:
            if pat.match(tok):
                f[key] = f"{f[key]},{tok}" if key in f else tok
                break
        else:
            extra.append(tok)
    if extra:
        f["extra"] = "_".join(extra)
    # cuBLAS runs 16-bit and tf32 GEMMs on tensor cores; for fp32/fp64 nvjet names we cannot tell
    f["math"] = "tensor core" if dtype in ("fp16", "bf16", "tf32") else "unknown"
    tc = "kernel.tensor_core" if f["math"] == "tensor core" else ""
    return f, _label("nvjet", {"math": tc}, tile=m["tile"], dtype=dtype)


#: How a label names the math units a gemm's ``math`` field records.
_MATH_WORDS = {"CUDA cores (FP32 FFMA)": "FFMA"}

_MMA_TENSOR = re.compile(r"(?:^|_)(?:[hsi]\d{3,6}gemm|[hsi]\d{3,6}|hmma|imma|wgmma|gmma|qgmma|tensorop|tf32)(?:_|$)")
_MMA_CUDA_CORE = re.compile(r"(?:^|_)(?:ffma|dfma|hfma2|sgemm|dgemm|hgemm|simt)(?:_|$)")


def _math(text: str, warpgroups: bool = False) -> str:
    if _MMA_TENSOR.search(text) or warpgroups:
        return "tensor core"
    if _MMA_CUDA_CORE.search(text):
        return "CUDA cores (FMA)"
    return "unknown"


def _implied_dtype(mma: str) -> _Fields:
    """Operand type a BLAS-style instruction name implies: ``sgemm`` -> fp32, ``h884gemm`` -> fp16."""
    if mma in ("sgemm", "dgemm", "hgemm"):
        return {"dtype": {"s": "fp32", "d": "fp64", "h": "fp16"}[mma[0]]}
    if re.fullmatch(r"h\d+gemm", mma):  # fp16 tensor-core instruction with fp16 accumulation
        return {"dtype": "fp16"}
    return {}


def _types(s: str) -> list[str]:
    return [_dtype(t) for t in re.findall(r"bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|s32|i8|i32", s)]


# cuBLAS xmma: sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_...
# types are A B _ C D _ compute; "tn" the A/B layouts, then the C layout.
def _xmma(m: re.Match[str], name: str) -> _Result:
    types = _types(m["types"])
    f = {"arch": m["arch"], "op": m["op"], "types": m["types"], "layout": m["layout"], "tile": m["tile"]}
    if types:
        f["dtype"] = types[0]
        f["compute"] = types[-1]
    for key in ("layout_c", "stages", "warps", "warpgroups"):
        if m[key]:
            f[key] = m[key]
    rest = m["rest"] or ""
    f["math"] = _math(rest, warpgroups=bool(m["warpgroups"]))
    if re.search(r"(?:^|_)ffma(?:_|$)", rest):
        f["math"] = "CUDA cores (FP32 FFMA)"
    if "_cublas" in rest:
        f["library"] = "cuBLAS"
    where = _MATH_WORDS.get(f["math"], f["math"])
    return f, _label("xmma", {"math": (f"kernel.math.{where}", where)}, op=m["op"], tile=m["tile"],
                     dtype=f.get("dtype", "?"))  # fmt: skip


_ARCH_NAMES = {"maxwell": "sm50", "pascal": "sm60", "volta": "sm70", "turing": "sm75", "ampere": "sm80"}


# cuBLAS's older names: ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn. "s16816gemm": fp32
# accumulation (s) on the m16n8k16 tensor-core instruction; "stages_32x5": k tile 32, 5 pipeline stages.
def _cublas_legacy(m: re.Match[str], name: str) -> _Result:
    f = {"arch": f"{m['archname']} ({_ARCH_NAMES.get(m['archname'], '?')}+)", "mma": m["mma"], "tile": m["tile"]}
    f["layout"] = m["layout"]
    if m["dtype"]:
        f["dtype"] = _dtype(m["dtype"])
    if m["dtype_out"]:
        f["dtype_out"] = _dtype(m["dtype_out"])
    mma = re.fullmatch(r"([hsidz])(\d+)gemm", m["mma"])
    if mma:
        f["accumulate"] = {"h": "fp16", "s": "fp32", "i": "int32", "d": "fp64"}.get(mma[1], mma[1])
        f["instruction"] = mma[2]
    stages = re.search(r"stages_(\d+)x(\d+)", m["rest"] or "")
    if stages:
        f["k_tile"], f["stages"] = stages.groups()
    if m["rest"]:
        f["options"] = m["rest"].strip("_")
    f["math"] = _math(m["mma"])
    if "dtype" not in f:
        f.update(_implied_dtype(m["mma"]))
    where = "kernel.math.tensor core" if f["math"] == "tensor core" else "kernel.math.CUDA cores"
    return f, _label("cublas", {"math": where}, mma=m["mma"], tile=m["tile"], dtype=f.get("dtype", "?"))


# CUTLASS 2.x library: cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_tn_align8 (CUTLASS profiler's
# naming: arch, math, types, instruction, epilogue, output type, tile MxN, k tile x stages, layouts, alignment).
def _cutlass2(m: re.Match[str], name: str) -> _Result:
    f = {"arch": f"sm{m['arch']}", "math": "tensor core" if "tensorop" in m["math"] else "CUDA cores (SIMT)"}
    f["mma"] = m["mma"]
    if m["dtype"]:
        f["dtype"] = _dtype(m["dtype"])
    elif not m["dtype_out"]:
        f.update(_implied_dtype(m["mma"]))
    if m["epilogue"]:
        f["epilogue"] = m["epilogue"]
    if m["dtype_out"]:
        f["dtype_out"] = _dtype(m["dtype_out"])
    f.update(tile=m["tile"], k_tile=m["k_tile"], stages=m["stages"], layout=m["layout"])
    if m["align"]:
        f["alignment"] = m["align"]
    where = "kernel.math.tensor core" if f["math"] == "tensor core" else "kernel.math.SIMT"
    return f, _label("cutlass", {"math": where}, tile=m["tile"], dtype=f.get("dtype", f.get("dtype_out", "?")))


# CUTLASS 3.x: cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized...
def _cutlass3(m: re.Match[str], name: str) -> _Result:
    types = _types(m["types"])
    f = {"arch": m["arch"], "math": "tensor core" if "tensorop" in m["math"] else "CUDA cores (SIMT)"}
    if types:
        f["dtype"], f["accumulate"] = types[0], types[2] if len(types) > 2 else types[-1]
    f.update(tile=m["tile"], cluster=m["cluster"], stages=m["stages"], layout=m["layout"], alignment=m["align"])
    if m["rest"]:
        f["schedule"] = m["rest"].strip("_")
    return f, _label("cutlass3", tile=m["tile"], dtype=f.get("dtype", "?"))


def _gemm_other(m: re.Match[str], name: str) -> _Result:
    return {}, _raw(shorten(name))


# cuBLAS's matrix-vector kernel: internal::gemvx::kernel<index, index, T_in, T_in, T_compute, T_out, ...>. A
# decoding step's q @ k^T has one query row, so cuBLAS runs it as gemv on CUDA cores.
def _gemv(m: re.Match[str], name: str) -> _Result:
    f = {"op": "gemv", "dtype": _dtype(m["dtype"]), "compute": _dtype(m["compute"]), "library": "cuBLAS"}
    return f, _label("gemv", dtype=f["dtype"])


# softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax, is_masked> (PersistentSoftmax.cuh)
def _softmax_warp(m: re.Match[str], name: str) -> _Result:
    f = {
        "kernel": f"softmax_warp_{m['direction']}",
        "input": _dtype(m["input"]),
        "output": _dtype(m["output"]),
        "accumulate": _dtype(m["acc"]),
        "elements": str(2 ** int(m["log2"])),
        "log_softmax": m["is_log"],
        "masked": m["masked"],
        "op": "log_softmax" if m["is_log"] == "true" else "softmax",
    }
    direction = {"direction": f"kernel.dir.{m['direction']}"}
    return f, _label("softmax_warp", direction, op=f["op"], input=f["input"], accumulate=f["accumulate"],
                     elements=f["elements"])  # fmt: skip


# cunn_SoftMaxForward<ILP, scalar_t, accscalar_t, outscalar_t, Epilogue> (SoftMax.cu), also the Smem variant
def _softmax_block(m: re.Match[str], name: str) -> _Result:
    f = {
        "kernel": f"cunn_SoftMax{m['direction']}{m['smem'] or ''}",
        "ilp": m["ilp"],
        "input": _dtype(m["input"]),
        "accumulate": _dtype(m["acc"]),
        "output": _dtype(m["output"]),
    }
    f["op"] = "log_softmax" if "LogSoftMax" in name else "softmax"
    direction = {"direction": f"kernel.dir.{m['direction'].lower()}"}
    return f, _label("softmax_block", direction, op=f["op"], input=f["input"], accumulate=f["accumulate"])


# cunn_SoftMaxForwardReg<scalar_t, accscalar_t, outscalar_t, Epilogue, index_t, ILP>: one row held in registers
def _softmax_reg(m: re.Match[str], name: str) -> _Result:
    f = {"kernel": "cunn_SoftMaxForwardReg", "input": _dtype(m["input"]), "accumulate": _dtype(m["acc"]),
         "output": _dtype(m["output"]), "op": "softmax"}  # fmt: skip
    return f, _label("softmax_reg", input=f["input"], accumulate=f["accumulate"])


def _softmax_other(m: re.Match[str], name: str) -> _Result:
    return {"op": "softmax"}, _raw(shorten(name))


# Reduction ops as they show up inside ATen's reduce_kernel template arguments.
_REDUCE_OPS = (
    re.compile(r"::(\w+?)_kernel_cuda\b"),  # and_kernel_cuda, or_kernel_cuda, ...
    re.compile(r"::(\w+?)_functor\b"),  # sum_functor, prod_functor
    re.compile(r"::(\w+?)Ops<"),  # MeanOps, MaxOps, MinOps, WelfordOps, NormOps, ...
)


def _reduce(m: re.Match[str], name: str) -> _Result:
    f = {"threads": m["threads"], "output_vec": m["vt"], "dtype": _dtype(m["dtype"])}
    body = name[m.end() :]
    for pat in _REDUCE_OPS:
        op = pat.search(body)
        if op:
            f["op"] = op.group(1).lower().removesuffix("_impl")
            break
    else:
        f["op"] = "?"
    return f, _label("reduce", op=f["op"], dtype=f["dtype"])


# triu_tril_kernel<scalar_t, IndexType, upper, elements_per_thread, inplace> (TriangularOps.cu)
def _triu_tril(m: re.Match[str], name: str) -> _Result:
    op = "triu" if m["upper"] == "true" else "tril"
    f = {"op": op, "dtype": _dtype(m["dtype"]), "index": m["index"], "elements_per_thread": m["ept"]}
    f["inplace"] = m["inplace"]
    return f, _label("elementwise", op=op, dtype=f["dtype"])


# ATen TensorIterator kernels: the functor or the lambda's enclosing function names the op.
_FUNCTOR = re.compile(
    r"(?:(?:at::native::|\(anonymous namespace\)::|binary_internal::|::)+)"
    r"(?!AUnary|BUnary|Binary)(?P<name>\w*?)Functor(?:OnSelf|OnOther)?(?:_(?P<suffix>\w+))?<(?P<args>[^<>]*)>"
)
_LAMBDA_OWNER = re.compile(r"(?:::|\s|<)(?P<op>\w+?)_kernel(?:_impl|_cuda)*(?:_\w+)?\(")
_LAMBDA_ARGS = re.compile(r"\{lambda\((?P<args>[^()]+)\)#\d+\}")
_COPY_OPS = ("copy", "direct_copy", "bfloat16_copy", "float8_copy", "to_copy")


def _elementwise(m: re.Match[str], name: str) -> _Result:
    f = {"launcher": m["launcher"]}
    vec = re.match(r"\s*(\d+)\s*,", name[m.end() :])
    if m["launcher"] == "vectorized_elementwise_kernel" and vec:
        f["vector"] = vec.group(1)
    inner = name[m.end() :]
    op = dtype = None
    fm = _FUNCTOR.search(inner)
    if fm:
        op = (fm["suffix"] or fm["name"] or "?").removeprefix("CUDA").lower()
        dtype = _dtype(fm["args"].split(",")[0])
    else:
        lo = _LAMBDA_OWNER.search(inner)
        if lo:
            op = lo["op"]
        la = _LAMBDA_ARGS.findall(inner)
        if la:
            dtype = ", ".join(_dtype(a) for a in la[0].split(","))
    # AUnaryFunctor<in, in, out, Op>: the storage type is the wrapper's first argument
    wrap = re.search(r"[AB]UnaryFunctor<(?P<t>[\w:]+),", inner)
    if wrap:
        f["scalar_operand"] = "true"
        dtype = _dtype(wrap["t"])
    op = op or "?"
    f["op"] = op
    if dtype:
        f["dtype"] = dtype
    dtype = dtype or "?"
    if op in _COPY_OPS or op.endswith("_copy"):  # copy_ between dtypes or layouts
        f.update(family="copy", op="copy", copy=op.removesuffix("_copy") or "copy")
        if op == "bfloat16_copy":
            return f, _label("copy_to", dtype=dtype, to="bf16")
        return f, _label("copy", dtype=dtype)
    if op == "fill":
        f["family"] = "fill"
        return f, _label("fill", dtype=dtype)
    return f, _label("elementwise", op=op, dtype=dtype)


def _cat_copy(m: re.Match[str], name: str) -> _Result:
    return {"op": "cat"}, _raw(shorten(name))


# NCCL's device kernels: ncclDevKernel_<Collective>[_<RedOp>_<type>]_<ALGORITHM>_<PROTOCOL> (NCCL 2.19 and later;
# older releases say ncclKernel_); point-to-point transfers (send/recv, all-to-all) are ncclDevKernel_SendRecv.
# The algorithm (RING, TREE, NVLS, ...) and protocol (LL, LL128, SIMPLE) are NCCL's documented names.
def _nccl(m: re.Match[str], name: str) -> _Result:
    f = {"collective": m["coll"]}
    for key, group in (("reduction", "op"), ("dtype", "dtype"), ("algorithm", "algo"), ("protocol", "proto")):
        if m[group]:
            f[key] = m[group] if key != "dtype" else _dtype(m[group])
    how = ", ".join(x for x in (f.get("algorithm", "").lower(), f.get("protocol", "")) if x)
    return f, _label("nccl", coll=m["coll"], how=f" ({how})" if how else "")


def _nccl_other(m: re.Match[str], name: str) -> _Result:
    return {"collective": m["coll"]}, _label("nccl", coll=m["coll"], how="")


# --- the table ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One line of the decoder table: a pattern, the family it identifies, and how to read a match.

    ``read(match, name)`` returns the fields and the :class:`Label`; it may override the family by putting a
    ``"family"`` entry in the fields (ATen's elementwise launcher serves copies and fills too).
    """

    family: str
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str], str], _Result]


_TYPE = r"[\w:]+(?: const)?"

#: The decoder table, most specific first.
RULES: tuple[Rule, ...] = (
    Rule("memcpy", re.compile(r"^Memcpy (?P<direction>\w+) \((?P<src>[^)]*?) -> (?P<dst>[^)]*)\)$"), _memcpy),
    Rule("memset", re.compile(r"^Memset \((?P<target>[^)]*)\)$"), _memset),
    Rule(
        "flash",
        re.compile(
            r"(?P<kernel>flash_(?:fwd|bwd)\w*_kernel)<Flash_(?:fwd|bwd)_kernel_traits<\s*(?P<head_dim>\d+),\s*"
            r"(?P<block_m>\d+),\s*(?P<block_n>\d+),\s*(?P<warps>\d+),\s*(?P<q_in_regs>true|false),\s*"
            r"(?P<share_qk>true|false),\s*(?P<elem>[\w:]+)"
        ),
        _flash,
    ),
    Rule(
        "flash",
        re.compile(
            r"(?P<kernel>flash_bwd\w*_kernel)<(?:(?:true|false),\s*)?Flash_bwd_kernel_traits<\s*(?P<head_dim>\d+),\s*"
            r"(?P<block_m>\d+),\s*(?P<block_n>\d+),\s*(?P<warps>\d+),\s*\d+,\s*\d+,\s*\d+,\s*(?:true|false),\s*"
            r"(?:true|false),\s*(?P<elem>[\w:]+)"
        ),
        _flash_bwd,
    ),
    Rule("flash", re.compile(r"flash::FlashAttn(?P<direction>Fwd|Bwd)(?P<arch>Sm\d+)"), _flash3),
    Rule("flash", re.compile(r"(?P<kernel>flash_(?:fwd|bwd)\w*_kernel)\b"), _flash_other),
    Rule(
        "mem_efficient",
        re.compile(
            r"fmha_cutlass(?P<pass>[FB])_(?P<dtype>[a-z0-9]+)_(?P<aligned>aligned|notaligned)_"
            r"(?P<block_q>\d+)x(?P<block_k>\d+)(?:_k(?P<max_k>\d+))?(?:_(?P<out>rf|gmem))?(?:_dropout)?(?:_seqaligned)?"
            r"_(?P<arch>sm\d+)"
        ),
        _mem_efficient,
    ),
    Rule(
        "cudnn",
        re.compile(
            r"^cudnn_generated_fort_native_(?P<op>[a-z0-9]+)_(?P<arch>sm\d+)_(?P<algo>flash_[a-z]+)"
            r"(?:_(?P<mma>wgmma|wmma|hmma|mma|umma|utcmma))?(?:_(?P<dtype>bf16|f16|fp16|f8|fp8|e4m3|e5m2|f32))?"
            r"(?:_knob_(?P<knob>\d+))?(?:_(?P<tile>\d+x\d+x\d+))?(?:_(?P<shape>\d+x\d+x\d+))?"
            r"(?:_cga(?P<cluster>\d+x\d+x\d+))?(?P<rest>_\w+)?$"
        ),
        _cudnn_sdpa,
    ),
    Rule("cudnn", re.compile(r"^(?:void )?cudnn|\bcudnn::|^sm\d+_cudnn_"), _cudnn_other),
    Rule(
        "triton",
        re.compile(r"^triton_(?P<kind>[a-z]+)_(?:fused_(?P<ops>\w+?)_)?(?P<index>\d+)$"),
        _triton,
    ),
    Rule("triton", re.compile(r"^triton_"), _triton_other),
    Rule(
        "gemm",
        re.compile(
            r"^nvjet_(?:(?P<arch>sm\d+)_)?(?P<types>[a-z]{3})(?:_(?P<math>tf32|mma))?_(?P<tile>\d+x\d+(?:x\d+)?)"
            r"(?:_(?P<k_tile>\d+)x(?P<stages>\d+))?(?:_(?P<cluster>\d+x\d+))?(?P<rest>(?:_\w+)*)$"
        ),
        _nvjet,
    ),
    Rule(
        "gemm",
        re.compile(
            r"(?P<arch>sm\d+)_xmma_(?P<op>gemm|fprop|dgrad|wgrad)_(?P<types>[a-z0-9_]+?)_(?P<layout>[tn]{2})"
            r"(?:_(?P<layout_c>[tn]))?_tilesize(?P<tile>\d+x\d+x\d+)(?:_stage(?P<stages>\d+))?"
            r"(?:_warpsize(?P<warps>\d+x\d+x\d+))?(?:_warpgroupsize(?P<warpgroups>\d+x\d+x\d+))?(?P<rest>\w*)"
        ),
        _xmma,
    ),
    Rule(
        "gemm",
        re.compile(
            r"cutlass3x_(?P<arch>sm\d+)_(?P<math>\w*?tensorop|simt)_(?:\w*?gemm)_(?P<types>(?:[a-z0-9]+_)+?)"
            r"(?P<tile>\d+x\d+x\d+)_(?P<cluster>\d+x\d+x\d+)_(?P<stages>\d+)_(?P<layout>[tn]{2,3})"
            r"_align(?P<align>\d+)(?P<rest>\w*)"
        ),
        _cutlass3,
    ),
    Rule(
        "gemm",
        re.compile(
            r"cutlass_(?P<arch>\d+)_(?P<math>wmma_tensorop|tensorop|simt)_(?:(?P<dtype>bf16|f16|f32|tf32|f64|s8|i8)_)?"
            r"(?P<mma>[a-z]?\d*gemm)(?:_(?P<epilogue>relu|gelu|silu|bias))?(?:_(?P<dtype_out>bf16|f16|f32|f64|s8|i8))?"
            r"_(?P<tile>\d+x\d+)_(?P<k_tile>\d+)x(?P<stages>\d+)_(?P<layout>[tn]{2})(?:_align(?P<align>\d+))?"
        ),
        _cutlass2,
    ),
    Rule(
        "gemm",
        re.compile(
            r"^(?:void )?(?P<archname>maxwell|pascal|volta|turing|ampere)_"
            r"(?:(?P<dtype>bf16|fp16|fp32|tf32|int8|i8)_)?(?P<mma>[a-z]\d*gemm)_(?:(?P<dtype_out>bf16|fp16|fp32|int8|i8)_)?(?P<tile>\d+x\d+)"
            r"(?P<rest>(?:_\w+?)*?)_(?P<layout>[tn]{2})\b"
        ),
        _cublas_legacy,
    ),
    Rule(
        "gemm", re.compile(r"gemvx?::kernel<\w+,\s*\w+,\s*(?P<dtype>[\w:]+),\s*[\w:]+,\s*(?P<compute>[\w:]+)"), _gemv
    ),
    Rule("gemm", re.compile(r"gemm|gemv|Gemm|Gemv|cublasLt::|cutlass::Kernel"), _gemm_other),
    Rule(
        "softmax",
        re.compile(
            rf"softmax_warp_(?P<direction>forward|backward)<(?P<input>{_TYPE}),\s*(?P<output>{_TYPE}),\s*"
            rf"(?P<acc>{_TYPE}),\s*(?P<log2>\d+),\s*(?P<is_log>true|false)(?:,\s*(?P<masked>true|false))?"
        ),
        _softmax_warp,
    ),
    Rule(
        "softmax",
        re.compile(
            rf"cunn_(?:Log)?SoftMax(?P<direction>Forward|Backward)(?P<smem>Smem)?<(?P<ilp>\d+),\s*"
            rf"(?P<input>{_TYPE}),\s*(?P<acc>{_TYPE}),\s*(?P<output>{_TYPE})"
        ),
        _softmax_block,
    ),
    Rule(
        "softmax",
        re.compile(rf"cunn_SoftMaxForwardReg<(?P<input>{_TYPE}),\s*(?P<acc>{_TYPE}),\s*(?P<output>{_TYPE})"),
        _softmax_reg,
    ),
    Rule("softmax", re.compile(r"[Ss]oft[Mm]ax"), _softmax_other),
    Rule(
        "reduce",
        re.compile(r"reduce_kernel<(?P<threads>\d+),\s*(?P<vt>\d+),\s*at::native::ReduceOp<(?P<dtype>[\w:]+)"),
        _reduce,
    ),
    Rule(
        "elementwise",
        re.compile(
            r"triu_tril_kernel<(?P<dtype>[\w:]+),\s*(?P<index>\w+),\s*(?P<upper>true|false),\s*(?P<ept>\d+),\s*"
            r"(?P<inplace>true|false)>"
        ),
        _triu_tril,
    ),
    Rule(
        "elementwise",
        re.compile(
            r"at::native::(?:\w+::)*(?P<launcher>vectorized_elementwise_kernel|unrolled_elementwise_kernel|"
            r"elementwise_kernel|index_elementwise_kernel|elementwise_kernel_with_index)<"
        ),
        _elementwise,
    ),
    Rule("copy", re.compile(r"CatArrayBatchedCopy"), _cat_copy),
    Rule(
        "nccl",
        re.compile(
            r"^(?:void )?nccl(?:Dev)?Kernel_(?P<coll>[A-Za-z]+?)(?:_(?P<op>Sum|Prod|Max|Min|PreMulSum|SumPostDiv)"
            r"_(?P<dtype>[a-z]+\d*))?(?:_(?P<algo>RING|TREE|COLLNET_DIRECT|COLLNET_CHAIN|NVLS_TREE|NVLS|PAT)"
            r"_(?P<proto>LL128|LL|SIMPLE))?(?:\(|$)"
        ),
        _nccl,
    ),
    Rule("nccl", re.compile(r"^(?:void )?nccl(?:Dev)?Kernel_(?P<coll>[A-Za-z]+)"), _nccl_other),
)


def decode(name: str) -> KernelInfo:
    """Decode one kernel (or memcpy/memset) name.

    Args:
        name: The activity name from the trace, demangled as Kineto writes it.

    Returns:
        The :class:`KernelInfo` of the first rule in :data:`RULES` that matches; for names no rule matches,
        family ``"other"``, the name shortened (see :func:`shorten`) as label, and no fields.
    """
    for rule in RULES:
        m = rule.pattern.search(name)
        if m is None:
            continue
        fields, label = rule.read(m, name)
        family = fields.pop("family", rule.family)
        return KernelInfo(name=name, family=family, short=label.text("en"), fields=fields, label=label)
    label = _raw(shorten(name))
    return KernelInfo(name=name, family="other", short=label.text("en"), fields={}, label=label)
