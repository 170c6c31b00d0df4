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
    ],
)
def test_names_codes_and_glosses_are_not_prose(text: str) -> None:
    assert english_runs(text) == [], english_runs(text)
