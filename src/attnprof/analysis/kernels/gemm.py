"""Rules for matrix multiplications: cuBLAS (``nvjet``, ``xmma``, the older ``ampere_*`` names, gemv) and CUTLASS.

CUTLASS 2.x library names follow the CUTLASS profiler's documented scheme; cuBLAS's ``xmma``/``ampere_*`` names
follow the same conventions (tile, stages, warps, math instruction) but are not documented by NVIDIA. cuBLAS
``nvjet_*`` names are undocumented: fields are decoded only where the trace corroborates them (``(tile_m + tile_n)
x k_tile x 2 bytes x stages`` accounts for all but ~16 KiB of the shared memory the trace reports); tokens whose
meaning we cannot establish are kept verbatim under ``undocumented`` or ``extra`` instead of being guessed at.
"""

from __future__ import annotations

from attnprof.analysis.kernels.engine import RAW, Classify, Find, Rule, Search, Show, When, pick

# nvjet: cuBLAS's Hopper/Blackwell GEMM kernels (cuBLAS 12.8+ names them so). Undocumented; positional tokens:
#   nvjet[_sm90]_<types>_<tile M x N>_<k tile>x<stages>_<cluster>_<h|v>_<bz>_<schedule>_<layouts>
# Corroborated by the trace: tile, k tile and stages account for the shared memory reported for the kernel
# (nvjet_sm90_tst_256x128_64x4: (256+128) x 64 x 2 B x 4 = 196608 B of 213188 B). The cluster shape fits the
# launch: these kernels go through cuLaunchKernelEx, the driver call that can set a cluster. 384 threads are three
# warpgroups, consistent with the warp-specialised "cooperative" schedule that "coop" suggests. The type letters
# follow BLAS convention where known (h = fp16, s = fp32); t is what bf16 operands show in the traces we have.
NVJET_TYPES = {"h": "fp16", "s": "fp32", "t": "bf16", "d": "fp64"}
#: The tokens after the cluster, by what they are (each matched whole).
NVJET_TOKENS = (
    ("schedule", r"coop[AB]?|pingpong|splitK|streamK|2cta|1cta|persistent"),
    ("layout", r"[TN]{2,4}"),
    # "h"/"v" and "bz" recur in every nvjet name (h or v in the same slot whatever the data type); what they
    # select is not documented, so they are kept verbatim rather than guessed at.
    ("undocumented", r"[hv]|bz"),
)

# Math instructions: tensor-core ones (BLAS-style h/s/i + MMA shape, hmma, wgmma, ...) and CUDA-core ones.
MMA_TENSOR = r"(?:^|_)(?:[hsi]\d{3,6}gemm|[hsi]\d{3,6}|hmma|imma|wgmma|gmma|qgmma|tensorop|tf32)(?:_|$)"
MMA_CUDA_CORE = r"(?:^|_)(?:ffma|dfma|hfma2|sgemm|dgemm|hgemm|simt)(?:_|$)"
#: Element types as cuBLAS's and CUTLASS 3's names spell them, in order.
TYPE_TOKENS = r"bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|s32|i8|i32"


def _math(text: str, *tensor_core: dict) -> tuple:
    """Steps that set ``math`` from the instruction names in ``text``: tensor core (or when one of ``tensor_core``
    holds), CUDA cores, or unknown."""
    return (
        Search(f"(?P<_tensor_core>{MMA_TENSOR})", text),
        Search(f"(?P<_cuda_core>{MMA_CUDA_CORE})", text),
        pick(
            "math",
            [({"_tensor_core": True}, "tensor core"), *((c, "tensor core") for c in tensor_core),
             ({"_cuda_core": True}, "CUDA cores (FMA)")],
            "unknown",
        ),
    )  # fmt: skip


#: The operand type a BLAS-style instruction name implies: ``sgemm`` -> fp32, ``h884gemm`` -> fp16 (a fp16
#: tensor-core instruction with fp16 accumulation).
IMPLIED_DTYPE = (("dtype", "{mma|map:blas_dtypes}"), When({"mma": r"h\d+gemm"}, (("dtype", "fp16"),)))

# cuBLAS xmma: sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_...
# types are A B _ C D _ compute; "tn" the A/B layouts, then the C layout.
XMMA = Rule(
    "gemm",
    r"(?P<arch>sm\d+)_xmma_(?P<op>gemm|fprop|dgrad|wgrad)_(?P<types>[a-z0-9_]+?)_(?P<layout>[tn]{2})"
    r"(?:_(?P<layout_c>[tn]))?_tilesize(?P<tile>\d+x\d+x\d+)(?:_stage(?P<stages>\d+))?"
    r"(?:_warpsize(?P<warps>\d+x\d+x\d+))?(?:_warpgroupsize(?P<warpgroups>\d+x\d+x\d+))?(?P<rest>\w*)",
    (
        ("arch", "{arch}"),
        ("op", "{op}"),
        ("types", "{types}"),
        ("layout", "{layout}"),
        ("tile", "{tile}"),
        Find("_types", "{types}", TYPE_TOKENS),
        ("dtype", "{_types|item:0|dtype}"),
        ("compute", "{_types|item:-1|dtype}"),
        ("layout_c", "{layout_c}"),
        ("stages", "{stages}"),
        ("warps", "{warps}"),
        ("warpgroups", "{warpgroups}"),
        *_math("{rest}", {"warpgroups": True}),
        Search(r"(?P<_ffma>(?:^|_)ffma(?:_|$))", "{rest}"),
        When({"_ffma": True}, (("math", "CUDA cores (FP32 FFMA)"),)),
        Search(r"(?P<_cublas>_cublas)", "{rest}"),
        When({"_cublas": True}, (("library", "cuBLAS"),)),
        Show(
            "xmma",
            values={"op": "{op}", "tile": "{tile}", "dtype": "{dtype|default:?}"},
            words={"math": ("kernel.math.{math|lookup:math_words}", "{math|lookup:math_words}")},
        ),
    ),
)

# CUTLASS 2.x library: cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_tn_align8 (CUTLASS profiler's
# naming: arch, math, types, instruction, epilogue, output type, tile MxN, k tile x stages, layouts, alignment).
CUTLASS2 = Rule(
    "gemm",
    r"cutlass_(?P<arch>\d+)_(?P<math>wmma_tensorop|tensorop|simt)_(?:(?P<dtype>bf16|f16|f32|tf32|f64|s8|i8)_)?"
    r"(?P<mma>[a-z]?\d*gemm)(?:_(?P<epilogue>relu|gelu|silu|bias))?(?:_(?P<dtype_out>bf16|f16|f32|f64|s8|i8))?"
    r"_(?P<tile>\d+x\d+)_(?P<k_tile>\d+)x(?P<stages>\d+)_(?P<layout>[tn]{2})(?:_align(?P<align>\d+))?",
    (
        ("arch", "sm{arch}"),
        When({"math": r"\w*tensorop\w*"}, (("math", "tensor core"),), (("math", "CUDA cores (SIMT)"),)),
        ("mma", "{mma}"),
        ("dtype", "{dtype|dtype}"),
        When({"dtype": False, "dtype_out": False}, IMPLIED_DTYPE),
        ("epilogue", "{epilogue}"),
        ("dtype_out", "{dtype_out|dtype}"),
        ("tile", "{tile}"),
        ("k_tile", "{k_tile}"),
        ("stages", "{stages}"),
        ("layout", "{layout}"),
        ("alignment", "{align}"),
        Show(
            "cutlass",
            values={"tile": "{tile}", "dtype": ("{dtype}", "{dtype_out}", "?")},
            words={"math": "{math|map:cutlass_math_words}"},
        ),
    ),
)

# CUTLASS 3.x: cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized...
CUTLASS3 = Rule(
    "gemm",
    r"cutlass3x_(?P<arch>sm\d+)_(?P<math>\w*?tensorop|simt)_(?:\w*?gemm)_(?P<types>(?:[a-z0-9]+_)+?)"
    r"(?P<tile>\d+x\d+x\d+)_(?P<cluster>\d+x\d+x\d+)_(?P<stages>\d+)_(?P<layout>[tn]{2,3})"
    r"_align(?P<align>\d+)(?P<rest>\w*)",
    (
        Find("_types", "{types}", TYPE_TOKENS),
        ("arch", "{arch}"),
        When({"math": r"\w*tensorop\w*"}, (("math", "tensor core"),), (("math", "CUDA cores (SIMT)"),)),
        ("dtype", "{_types|item:0|dtype}"),
        ("accumulate", ("{_types|item:2|dtype}", "{_types|item:-1|dtype}")),
        ("tile", "{tile}"),
        ("cluster", "{cluster}"),
        ("stages", "{stages}"),
        ("layout", "{layout}"),
        ("alignment", "{align}"),
        ("schedule", "{rest|nonempty|strip:_}"),
        Show("cutlass3", values={"tile": "{tile}", "dtype": "{dtype|default:?}"}),
    ),
)

# cuBLAS's older names: ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn. "s16816gemm": fp32
# accumulation (s) on the m16n8k16 tensor-core instruction; "stages_32x5": k tile 32, 5 pipeline stages.
ARCH_NAMES = {"maxwell": "sm50", "pascal": "sm60", "volta": "sm70", "turing": "sm75", "ampere": "sm80"}
CUBLAS_LEGACY = Rule(
    "gemm",
    r"^(?:void )?(?P<archname>maxwell|pascal|volta|turing|ampere)_"
    r"(?:(?P<dtype>bf16|fp16|fp32|tf32|int8|i8)_)?(?P<mma>[a-z]\d*gemm)_(?:(?P<dtype_out>bf16|fp16|fp32|int8|i8)_)?"
    r"(?P<tile>\d+x\d+)(?P<rest>(?:_\w+?)*?)_(?P<layout>[tn]{2})\b",
    (
        ("arch", "{archname} ({archname|map:arch_names|default:?}+)"),
        ("mma", "{mma}"),
        ("tile", "{tile}"),
        ("layout", "{layout}"),
        ("dtype", "{dtype|dtype}"),
        ("dtype_out", "{dtype_out|dtype}"),
        Search(r"^(?P<_accumulate>[hsidz])(?P<_instruction>\d+)gemm$", "{mma}"),
        ("accumulate", "{_accumulate|lookup:blas_letters}"),
        ("instruction", "{_instruction}"),
        Search(r"stages_(?P<_k_tile>\d+)x(?P<_stages>\d+)", "{rest}"),
        ("k_tile", "{_k_tile}"),
        ("stages", "{_stages}"),
        ("options", "{rest|nonempty|strip:_}"),
        *_math("{mma}"),
        When({"dtype": False}, IMPLIED_DTYPE),
        Show(
            "cublas",
            values={"mma": "{mma}", "tile": "{tile}", "dtype": "{dtype|default:?}"},
            words={"math": "{math|map:cublas_math_words|default:kernel.math.CUDA cores}"},
        ),
    ),
)

RULES = (
    Rule(
        "gemm",
        r"^nvjet_(?:(?P<arch>sm\d+)_)?(?P<types>[a-z]{3})(?:_(?P<math>tf32|mma))?_(?P<tile>\d+x\d+(?:x\d+)?)"
        r"(?:_(?P<k_tile>\d+)x(?P<stages>\d+))?(?:_(?P<cluster>\d+x\d+))?(?P<rest>(?:_\w+)*)$",
        (
            ("arch", "{arch}"),
            ("types", "{types}"),
            ("dtype", "{types|char:0|map:nvjet_types|default:unknown}"),
            When({"math": "tf32"}, (("dtype", "tf32"),)),
            ("accumulate", "{types|char:1|map:nvjet_types|default:unknown}"),
            ("tile", "{tile}"),
            ("k_tile", "{k_tile}"),
            ("stages", "{stages}"),
            ("cluster", "{cluster}"),
            Classify("{rest|split:_|nonempty}", NVJET_TOKENS, rest="extra", sep="_"),
            # cuBLAS runs 16-bit and tf32 GEMMs on tensor cores; for fp32/fp64 nvjet names we cannot tell
            ("math", "{dtype|map:tensor_core_dtypes|default:unknown}"),
            Show(
                "nvjet",
                values={"tile": "{tile}", "dtype": "{dtype}"},
                words={"math": "{math|map:nvjet_math_words}"},
            ),
        ),
    ),
    XMMA,
    CUTLASS3,
    CUTLASS2,
    CUBLAS_LEGACY,
    # cuBLAS's matrix-vector kernel: internal::gemvx::kernel<index, index, T_in, T_in, T_compute, T_out, ...>. A
    # decoding step's q @ k^T has one query row, so cuBLAS runs it as gemv on CUDA cores.
    Rule(
        "gemm",
        r"gemvx?::kernel<\w+,\s*\w+,\s*(?P<dtype>[\w:]+),\s*[\w:]+,\s*(?P<compute>[\w:]+)",
        (
            ("op", "gemv"),
            ("dtype", "{dtype|dtype}"),
            ("compute", "{compute|dtype}"),
            ("library", "cuBLAS"),
            Show("gemv", values={"dtype": "{dtype}"}),
        ),
    ),
    Rule("gemm", r"gemm|gemv|Gemm|Gemv|cublasLt::|cutlass::Kernel", (RAW,)),
)

TABLES = {
    "nvjet_types": NVJET_TYPES,
    "tensor_core_dtypes": {"fp16": "tensor core", "bf16": "tensor core", "tf32": "tensor core"},
    "nvjet_math_words": {"tensor core": "kernel.tensor_core"},
    #: How a label names the math units a gemm's ``math`` field records.
    "math_words": {"CUDA cores (FP32 FFMA)": "FFMA"},
    "blas_dtypes": {"sgemm": "fp32", "dgemm": "fp64", "hgemm": "fp16"},
    "blas_letters": {"h": "fp16", "s": "fp32", "i": "int32", "d": "fp64"},
    "arch_names": ARCH_NAMES,
    "cublas_math_words": {"tensor core": "kernel.math.tensor core"},
    "cutlass_math_words": {"tensor core": "kernel.math.tensor core", "CUDA cores (SIMT)": "kernel.math.SIMT"},
}
