"""Words of decoded kernel labels and kernel families (:mod:`attnprof.analysis.kernels`).

A label's form (``kernel.<form>``) lays out values that stay the same in every language (identifiers, dtypes,
tiles, numbers) around words that do not. Kernel identifiers (``flash_fwd``, ``nvjet``, ``cuDNN``, ``xmma``) stay as
they are in Japanese too, as the glossary keeps code and kernel names.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

KERNELS: dict[str, dict[str, str]] = {
    # --- forms ---
    "kernel.memcpy": {"en": "memcpy {direction} ({src} -> {dst})", "ja": "memcpy {direction} ({src} → {dst})"},
    "kernel.memset": {"en": "memset ({target})", "ja": "memset ({target})"},
    "kernel.flash": {
        "en": "{kernel} hd{head_dim} {tile} ({dtype}{causal})",
        "ja": "{kernel} hd{head_dim} {tile} ({dtype}{causal})",
    },
    "kernel.flash3": {"en": "flash-attention 3 {direction} ({arch})", "ja": "flash-attention 3 {direction} ({arch})"},
    "kernel.mem_efficient": {
        "en": "mem-efficient {direction} {tile} ({dtype}{where})",
        "ja": "mem-efficient {direction} {tile} ({dtype}{where})",
    },
    "kernel.cudnn": {"en": "cuDNN {op} {algo} {arch}{mma}{tile}", "ja": "cuDNN {op} {algo} {arch}{mma}{tile}"},
    "kernel.triton_index": {"en": "triton {kind} #{index}", "ja": "triton {kind} #{index}"},
    "kernel.triton_ops": {"en": "triton {kind}: ", "ja": "triton {kind}: "},
    "kernel.nvjet": {"en": "nvjet gemm {tile} ({dtype}{math})", "ja": "nvjet gemm {tile} ({dtype}{math})"},
    "kernel.xmma": {"en": "xmma {op} {tile} ({dtype} {math})", "ja": "xmma {op} {tile} ({dtype}、{math})"},
    "kernel.cublas": {"en": "cuBLAS {mma} {tile} ({dtype} {math})", "ja": "cuBLAS {mma} {tile} ({dtype}、{math})"},
    "kernel.cutlass": {"en": "CUTLASS gemm {tile} ({dtype} {math})", "ja": "CUTLASS gemm {tile} ({dtype}、{math})"},
    "kernel.cutlass3": {"en": "CUTLASS3 gemm {tile} ({dtype})", "ja": "CUTLASS3 gemm {tile} ({dtype})"},
    "kernel.softmax_warp": {
        "en": "{op} warp {direction} ({input}, {accumulate} acc, row <= {elements})",
        "ja": "{op} ワープ {direction} ({input}、累積 {accumulate}、行 ≤ {elements})",
    },
    "kernel.softmax_block": {
        "en": "{op} block {direction} ({input}, {accumulate} acc)",
        "ja": "{op} ブロック {direction} ({input}、累積 {accumulate})",
    },
    "kernel.softmax_reg": {
        "en": "softmax block forward, in registers ({input}, {accumulate} acc)",
        "ja": "softmax ブロック フォワード、レジスタ内 ({input}、累積 {accumulate})",
    },
    "kernel.flash_splitkv": {
        "en": "flash {step} hd{head_dim} ({dtype})",
        "ja": "flash {step} hd{head_dim} ({dtype})",
    },
    "kernel.flash_bwd": {
        "en": "flash bwd {step} hd{head_dim}{tile} ({dtype})",
        "ja": "flash バックワード {step} hd{head_dim}{tile} ({dtype})",
    },
    "kernel.cudnn_helper": {"en": "{step}{head_dim}", "ja": "{step}{head_dim}"},
    "kernel.gemv": {"en": "cuBLAS gemv ({dtype})", "ja": "cuBLAS gemv ({dtype})"},
    "kernel.nccl": {"en": "NCCL {coll}{how}", "ja": "NCCL {coll}{how}"},
    "kernel.reduce": {"en": "reduce: {op} ({dtype})", "ja": "リダクション: {op} ({dtype})"},
    "kernel.elementwise": {"en": "elementwise: {op} ({dtype})", "ja": "要素ごと: {op} ({dtype})"},
    "kernel.copy": {"en": "copy ({dtype})", "ja": "コピー ({dtype})"},
    "kernel.copy_to": {"en": "copy: {dtype} -> {to}", "ja": "コピー: {dtype} → {to}"},
    "kernel.fill": {"en": "fill ({dtype})", "ja": "フィル ({dtype})"},
    # --- the words inside them ---
    "kernel.step.fwd_splitkv": {"en": "split-KV fwd", "ja": "split-KV フォワード"},
    "kernel.step.fwd_splitkv_combine": {"en": "split-KV combine", "ja": "split-KV 結合"},
    "kernel.step.dot_do_o": {"en": "dot(dO, O)", "ja": "dot(dO, O)"},
    "kernel.step.dq_dk_dv": {"en": "dQ dK dV", "ja": "dQ dK dV"},
    "kernel.step.convert_dq": {"en": "convert dQ", "ja": "dQ 変換"},
    "kernel.step.convert_dkv": {"en": "convert dK dV", "ja": "dK dV 変換"},
    "kernel.cudnn.compute_dot_do_o": {"en": "cuDNN bwd dot(dO, O)", "ja": "cuDNN バックワード dot(dO, O)"},
    "kernel.cudnn.convert_dq_to_16bits": {
        "en": "cuDNN bwd convert dQ to 16 bit",
        "ja": "cuDNN バックワード dQ を 16 ビットに変換",
    },
    "kernel.cudnn.lean_reduction_kernel": {
        "en": "cuDNN split-KV reduction (lean attention)",
        "ja": "cuDNN split-KV リダクション (lean attention)",
    },
    "kernel.dir.fwd": {"en": "fwd", "ja": "フォワード"},
    "kernel.dir.bwd": {"en": "bwd", "ja": "バックワード"},
    "kernel.dir.forward": {"en": "forward", "ja": "フォワード"},
    "kernel.dir.backward": {"en": "backward", "ja": "バックワード"},
    "kernel.causal": {"en": " causal", "ja": "、因果マスク"},
    "kernel.out.registers": {"en": ", out in registers", "ja": "、出力はレジスタ"},
    "kernel.out.gmem": {"en": ", out in gmem", "ja": "、出力はデバイスメモリ"},
    "kernel.tensor_core": {"en": " tensor core", "ja": "、Tensor コア"},
    "kernel.math.tensor core": {"en": "tensor core", "ja": "Tensor コア"},
    "kernel.math.CUDA cores": {"en": "CUDA cores", "ja": "CUDA コア"},
    "kernel.math.CUDA cores (FMA)": {"en": "CUDA cores (FMA)", "ja": "CUDA コア (FMA)"},
    "kernel.math.FFMA": {"en": "FFMA", "ja": "FFMA"},
    "kernel.math.SIMT": {"en": "SIMT", "ja": "SIMT"},
    "kernel.math.unknown": {"en": "unknown", "ja": "不明"},
    "kernel.place.Device": {"en": "Device", "ja": "デバイス"},
    "kernel.place.Host": {"en": "Host", "ja": "ホスト"},
    "kernel.place.Pinned": {"en": "Pinned", "ja": "ピン留めメモリ"},
    "kernel.place.Pageable": {"en": "Pageable", "ja": "ページング可能メモリ"},
    "kernel.triton.pointwise": {"en": "pointwise", "ja": "ポイントワイズ"},
    "kernel.triton.persistent reduction": {"en": "persistent reduce", "ja": "永続リダクション"},
    "kernel.triton.reduction": {"en": "reduce", "ja": "リダクション"},
    "kernel.triton.template": {"en": "template", "ja": "テンプレート"},
    "kernel.triton.foreach": {"en": "foreach", "ja": "foreach"},
    "kernel.triton.split scan": {"en": "split scan", "ja": "分割スキャン"},
    "kernel.triton.scan": {"en": "scan", "ja": "スキャン"},
    "kernel.item_sep": {"en": ", ", "ja": ", "},
    "kernel.more": {"en": ", +{n} more", "ja": "、ほか {n} 件"},
    "kernel.ops": {"en": "{n} ops", "ja": "{n} 演算"},
    # --- kernel families (the "Family" column, the timeline legend) ---
    "family.gemm": {"en": "gemm", "ja": "gemm"},
    "family.flash": {"en": "flash", "ja": "flash"},
    "family.mem_efficient": {"en": "mem_efficient", "ja": "memory-efficient"},
    "family.cudnn": {"en": "cudnn", "ja": "cuDNN"},
    "family.triton": {"en": "triton", "ja": "Triton"},
    "family.softmax": {"en": "softmax", "ja": "softmax"},
    "family.reduce": {"en": "reduce", "ja": "リダクション"},
    "family.elementwise": {"en": "elementwise", "ja": "要素ごと"},
    "family.copy": {"en": "copy", "ja": "コピー"},
    "family.fill": {"en": "fill", "ja": "フィル"},
    "family.memcpy": {"en": "memcpy", "ja": "Memcpy"},
    "family.memset": {"en": "memset", "ja": "Memset"},
    "family.other": {"en": "other", "ja": "その他"},
}
