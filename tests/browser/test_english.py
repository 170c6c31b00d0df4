"""The rule that counts English sentences on Japanese pages (:mod:`.english`), on its own: no browser needed."""

from __future__ import annotations

import pytest

from .english import english_runs


@pytest.mark.parametrize(
    "text",
    [
        "+4 more",
        "nvjet gemm 256x128 (bf16 tensor core)",
        "mem-efficient fwd 64x64 (bf16, out in registers)",
        "CUDA cores (SIMT)",
        "GPU time per forward (median, ms)",
        "この表は What the trace reveals を示します",
        "Run it yourself",
    ],
)
def test_english_prose_is_found(text: str) -> None:
    assert english_runs(text), text


@pytest.mark.parametrize(
    "text",
    [
        "nvjet gemm 256x128 (bf16、Tensor コア)",
        "mem-efficient フォワード 64x64 (bf16、出力はレジスタ)",
        "triton リダクション: softmax, add, amax, exp, masked_fill、ほか 6 件",
        "リダクション: and (bool)",
        "この記事は “Profiling in PyTorch (Part 3): Attention is all you profile” です。",
        "因果アテンション (causal attention) を使います。",
        "カーネルを起動します (カーネルの起動、kernel launch)。",
        "sdpa_flash の主カーネルは flash_fwd hd64 128x128 です。起動 API: cudaLaunchKernel、0.162 ms。",
        "計測環境: NVIDIA H200 · PyTorch 2.11.0+cu130 · cuDNN 9.19.0",
        # what PyTorch wrote, recorded on an H200-built page: its words, its profiler table, attnprof's own reason
        "flash 拒否 PyTorch: Flash Attention does not support non-null attn_mask.",
        "PyTorch の警告: Memory efficient kernel not used because:",
        "void at::native::elementwise_kernel<128, 4, at:...         0.00%       0.000us         0.00%       0.000us"
        "       0.000us       1.105ms        34.26%       1.105ms     368.396us             3",
        "Memset (Device)         0.00%       0.000us         0.00%       0.000us       0.000us       2.176us         "
        "1.26%       2.176us       0.725us             3",
        "状態: context parallelism needs at least 2 GPUs; torch.cuda.device_count() = 1",
        "SDPA、flash を強制 - - - PyTorch が拒否: Expected query, key and value to all be of dtype: {Half}.",
        "efficient: “For dense input, both fused kernels require query, key and value to have the same num_heads",
        "2 q 32×1024×64, k 32×64×1024, v 32×1024×64 fp32 306 621 347 -",
    ],
)
def test_names_codes_and_glosses_are_not_prose(text: str) -> None:
    assert english_runs(text) == [], english_runs(text)
