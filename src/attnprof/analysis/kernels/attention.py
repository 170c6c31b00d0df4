"""Rules for the fused attention kernels: FlashAttention 2 and 3, memory-efficient attention, cuDNN's SDPA.

FlashAttention-2 and memory-efficient attention names come from source code we can read (PyTorch's
``flash_fwd_launch_template.h``, ``flash_bwd_launch_template.h``, ``mem_eff_attention/kernels/generate_kernels.py``),
so their fields are definite. cuDNN's ``cudnn_generated_*`` names are undocumented: tokens are kept verbatim.
"""

from __future__ import annotations

import re

from attnprof.analysis.kernels.engine import RAW, Find, Rule, Search, Show, Spread, When

# flash_fwd_kernel<Traits, Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap,
# Return_softmax> (DEFINE_FLASH_FORWARD_KERNEL in PyTorch's flash_fwd_launch_template.h)
FLASH_FWD_FLAGS = ("dropout", "causal", "local", "alibi", "even_mn", "even_k", "softcap", "return_softmax")

#: flash-decoding: the keys split over blocks, each with a partial softmax, merged by the combine kernel. The
#: kernel (less ``flash_`` and ``_kernel``) -> its step (labels: ``kernel.step.<kernel>``).
FLASH_SPLITKV = {"fwd_splitkv": "split-KV fwd", "fwd_splitkv_combine": "split-KV combine"}

# Flash_bwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, AtomLayoutMSdP, AtomLayoutNdKV, AtomLayoutMdQ,
# Is_V_in_regs, No_double_buffer, elem_type> (PyTorch's flash_bwd_launch_template.h). The backward runs three
# kernels: dot(dO, O) per row (the softmax's backward term), the main dQ/dK/dV loop over key blocks in parallel,
# and a conversion of the fp32 dQ accumulator to the input type.
FLASH_BWD_STEPS = {
    "flash_bwd_dot_do_o_kernel": "dot(dO, O)",
    "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel": "dQ dK dV",
    "flash_bwd_dq_dk_dv_loop_kernel": "dQ dK dV",
    "flash_bwd_convert_dq_kernel": "convert dQ",
    "flash_bwd_convert_dkv_kernel": "convert dK dV",
}
#: The backward steps' labels (``kernel.step.<key>``; a step no rule names is shown as it is).
FLASH_BWD_WORDS = {"dot(dO, O)": "dot_do_o", "dQ dK dV": "dq_dk_dv", "convert dQ": "convert_dq",
                   "convert dK dV": "convert_dkv"}  # fmt: skip

FLASH = (
    Rule(
        "flash",
        r"(?P<kernel>flash_(?:fwd|bwd)\w*_kernel)<Flash_(?:fwd|bwd)_kernel_traits<\s*(?P<head_dim>\d+),\s*"
        r"(?P<block_m>\d+),\s*(?P<block_n>\d+),\s*(?P<warps>\d+),\s*(?P<q_in_regs>true|false),\s*"
        r"(?P<share_qk>true|false),\s*(?P<elem>[\w:]+)",
        (
            ("kernel", "{kernel}"),
            ("head_dim", "{head_dim}"),
            ("block_m", "{block_m}"),
            ("block_n", "{block_n}"),
            ("warps", "{warps}"),
            ("q_in_regs", "{q_in_regs}"),
            ("share_qk_smem", "{share_qk}"),
            ("dtype", "{elem|dtype}"),
            # The booleans after the traits' closing brackets: named where the kernel's signature is known.
            Find("_bools", "{@after|before:(}", r"\b(true|false)\b"),
            When(
                {"kernel": "flash_fwd_kernel"},
                (Spread("_bools", FLASH_FWD_FLAGS, rest="flags"),),
                (Spread("_bools", (), rest="flags"),),
            ),
            ("_short", "{kernel|removeprefix:flash_|removesuffix:_kernel}"),
            ("step", "{_short|map:flash_splitkv}"),
            When(
                {"step": True},
                (
                    Show(
                        "flash_splitkv",
                        values={"head_dim": "{head_dim}", "dtype": "{dtype}"},
                        words={"step": "kernel.step.{_short}"},
                    ),
                ),
                (
                    When({"causal": "true"}, (("_causal", "kernel.causal"),)),
                    Show(
                        "flash",
                        values={
                            "kernel": "flash_{_short}",
                            "head_dim": "{head_dim}",
                            "tile": "{block_m}x{block_n}",
                            "dtype": "{dtype}",
                        },
                        words={"causal": "{_causal}"},
                    ),
                ),
            ),
        ),
    ),
    Rule(
        "flash",
        r"(?P<kernel>flash_bwd\w*_kernel)<(?:(?:true|false),\s*)?Flash_bwd_kernel_traits<\s*(?P<head_dim>\d+),\s*"
        r"(?P<block_m>\d+),\s*(?P<block_n>\d+),\s*(?P<warps>\d+),\s*\d+,\s*\d+,\s*\d+,\s*(?:true|false),\s*"
        r"(?:true|false),\s*(?P<elem>[\w:]+)",
        (
            ("kernel", "{kernel}"),
            ("direction", "bwd"),
            ("head_dim", "{head_dim}"),
            ("block_m", "{block_m}"),
            ("block_n", "{block_n}"),
            ("warps", "{warps}"),
            ("dtype", "{elem|dtype}"),
            ("step", ("{kernel|map:flash_bwd_steps}", "{kernel|removeprefix:flash_bwd_|removesuffix:_kernel}")),
            When({"step": "dQ dK dV"}, (("_tile", " {block_m}x{block_n}"),)),
            Show(
                "flash_bwd",
                values={"head_dim": "{head_dim}", "tile": "{_tile}", "dtype": "{dtype}"},
                words={"step": ("kernel.step.{step|lookup:flash_bwd_words}", "{step}")},
            ),
        ),
    ),
    # FlashAttention-3 (Hopper): cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<...>>>
    Rule(
        "flash",
        r"flash::FlashAttn(?P<direction>Fwd|Bwd)(?P<arch>Sm\d+)",
        (
            ("kernel", "FlashAttn{direction}{arch}"),
            ("version", "3"),
            ("arch", "{arch|lower}"),
            Show("flash3", values={"arch": "{arch}"}, words={"direction": "kernel.dir.{direction|lower}"}),
        ),
    ),
    Rule("flash", r"(?P<kernel>flash_(?:fwd|bwd)\w*_kernel)\b", (("kernel", "{kernel}"), RAW)),
)

# fmha_cutlass{F,B}_<dtype>_<aligned|notaligned>_<queries>x<keys>[_k<max_k>]_<rf|gmem>_sm<arch>: PyTorch's
# mem_eff_attention/kernels/generate_kernels.py. "rf": the kernel's max head dim fits one key block, so the
# output accumulates in registers (kSingleValueIteration); "gmem": it accumulates in global memory.
MEM_EFFICIENT = (
    Rule(
        "mem_efficient",
        r"fmha_cutlass(?P<pass>[FB])_(?P<dtype>[a-z0-9]+)_(?P<aligned>aligned|notaligned)_"
        r"(?P<block_q>\d+)x(?P<block_k>\d+)(?:_k(?P<max_k>\d+))?(?:_(?P<out>rf|gmem))?(?:_dropout)?(?:_seqaligned)?"
        r"_(?P<arch>sm\d+)",
        (
            ("direction", "{pass|map:mem_efficient_pass}"),
            ("dtype", "{dtype|dtype}"),
            ("aligned", "{aligned|map:mem_efficient_aligned}"),
            ("block_q", "{block_q}"),
            ("block_k", "{block_k}"),
            ("arch", "{arch}"),
            ("max_k", "{max_k}"),
            ("output", "{out|map:mem_efficient_output}"),
            # AttentionKernel<scalar_t, ArchTag, isAligned, kQueriesPerBlock, kKeysPerBlock, kMaxK, dropout, bias>
            Search(r"AttentionKernel<(?P<_targs>[^<>]+)>", "{@name}"),
            ("_args", "{_targs|split:,|strip}"),
            Spread("_args", (None, None, None, None, None, "max_k", "supports_dropout", "supports_bias")),
            Show(
                "mem_efficient",
                values={"tile": "{block_q}x{block_k}", "dtype": "{dtype}"},
                words={"direction": "kernel.dir.{direction}", "where": "{output|map:mem_efficient_where}"},
            ),
        ),
    ),
)

#: cuDNN's helper kernels beside its generated attention kernel -> direction (their labels: ``kernel.cudnn.<key>``).
#: cuDNN's fused SDPA runs small helper kernels beside the generated one: the backward's dot(dO, O) per row and
#: its conversion of the fp32 dQ accumulator; decoding's reduction of the partial results of split keys ("lean
#: attention", cuDNN's split-KV scheme for one query row).
CUDNN_HELPERS = {"compute_dot_do_o": "bwd", "convert_dq_to_16bits": "bwd", "lean_reduction_kernel": "fwd"}

CUDNN = (
    # Kept verbatim: "f16" is cuDNN's word for its 16-bit path (the fixtures run this kernel on bf16 inputs), and
    # "shape" (4x1x1 with 384 threads per block) is not a warp count; cga is NVIDIA's name for a block cluster.
    Rule(
        "cudnn",
        r"^cudnn_generated_fort_native_(?P<op>[a-z0-9]+)_(?P<arch>sm\d+)_(?P<algo>flash_[a-z]+)"
        r"(?:_(?P<mma>wgmma|wmma|hmma|mma|umma|utcmma))?(?:_(?P<dtype>bf16|f16|fp16|f8|fp8|e4m3|e5m2|f32))?"
        r"(?:_knob_(?P<knob>\d+))?(?:_(?P<tile>\d+x\d+x\d+))?(?:_(?P<shape>\d+x\d+x\d+))?"
        r"(?:_cga(?P<cluster>\d+x\d+x\d+))?(?P<rest>_\w+)?$",
        (
            ("op", "{op}"),
            ("arch", "{arch}"),
            ("algo", "{algo}"),
            ("mma", "{mma}"),
            ("dtype", "{dtype}"),
            ("knob", "{knob}"),
            ("tile", "{tile}"),
            ("shape", "{shape}"),
            ("cluster", "{cluster}"),
            ("suffix", "{rest|strip:_}"),
            Show(
                "cudnn",
                values={
                    "op": "{op}",
                    "algo": "{algo|replace:_: }",
                    "arch": "{arch}",
                    "mma": " {mma}",
                    "tile": " {tile}",
                },
            ),
        ),
    ),
    Rule(
        "cudnn",
        r"^(?:void )?cudnn|\bcudnn::|^sm\d+_cudnn_",
        (
            Search(tuple(rf"cudnn::fusion::(?P<_helper>{re.escape(k)})" for k in CUDNN_HELPERS), "{@name}"),
            When(
                {"_helper": True},
                (
                    ("kernel", "{_helper}"),
                    ("direction", "{_helper|map:cudnn_helpers}"),
                    Search(r"compute_dot_do_o_specialized<\w+,\s*(?P<_head_dim>\d+)>", "{@name}"),
                    ("head_dim", "{_head_dim}"),
                    Show(
                        "cudnn_helper",
                        values={"head_dim": " (hd{head_dim})"},
                        words={"step": "kernel.cudnn.{_helper}"},
                    ),
                ),
                (RAW,),
            ),
        ),
    ),
)

TABLES = {
    "flash_splitkv": FLASH_SPLITKV,
    "flash_bwd_steps": FLASH_BWD_STEPS,
    "flash_bwd_words": FLASH_BWD_WORDS,
    "mem_efficient_pass": {"F": "fwd", "B": "bwd"},
    "mem_efficient_aligned": {"aligned": "true", "notaligned": "false"},
    "mem_efficient_output": {"rf": "registers", "gmem": "global memory"},
    "mem_efficient_where": {"registers": "kernel.out.registers", "global memory": "kernel.out.gmem"},
    "cudnn_helpers": CUDNN_HELPERS,
}
