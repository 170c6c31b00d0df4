"""The reference article's claims, checked against the results of this build.

The article ("Profiling in PyTorch (Part 3): Attention is all you profile", measured on an A100) makes seventeen
claims, C1–C17, that a reader can check on their own GPU. :data:`CLAIMS` holds each one: which variants it needs,
the published figure, whether it needs a CUDA result, and a rule that turns the loaded results into a
:class:`Verdict`:

``holds``
    This build measured what the article published, within the claim's rule.
``differs``
    It measured something else; ``measured`` gives both figures.
``unmeasurable``
    It could not be checked here; ``reason`` says why: a variant has no result, or did not run (its status and
    PyTorch's reason), or the claim needs a GPU and this build ran on the CPU, or a needed measurement was not
    recorded.

Verdicts are computed from the results every time; nothing is set by hand. The rules, one per claim (each
claim's rule function repeats its own):

* Counts of a few items must match exactly: C1 and C2 count every GPU activity of a step (kernels, Memcpy and
  Memset), because the article counts its Memcpy among the kernels; C8, C9 and C11 count kernels only and also
  require the decoded kind of the one kernel; C12 counts ``aten::transpose`` ops.
* "About N" (C3, the ~13% of C10) holds within ±10% of N.
* Ratios (C4) hold within ±20% of the published ratio.
* Naming claims compare what the names decode to (:func:`attnprof.kernels.decode`), not the names: C5 holds when
  every gemm of the math backend is FP32 off the tensor cores and every gemm of naive attention is a bf16
  tensor-core gemm; C6 and C7 need the named ops (and, on a GPU, kernels) in every step.
* C13 holds when the cuDNN kernel is launched through ``cuLaunchKernelEx`` and every kernel of naive,
  naive_inplace, math, efficient and flash through ``cudaLaunchKernel``; the exceptions are named.
* C14 holds when the cuDNN kernel reports 0% and the article's explanation (a driver-API launch reports 0%)
  has no counterexample among all kernels of the build (:func:`attnprof.occupancy.check_hypotheses`).
* C15 holds when flash is the fastest of efficient, flash and cuDNN by median GPU time without the profiler
  (by profiled GPU time when that was not measured).
* C16 holds when cuDNN has the largest profiled CPU time of the three; the self-time share of
  ``aten::scaled_dot_product_attention`` and whether the ordering survives without the profiler (dispatch
  cost) are reported beside it.
* C17 (the advice) holds when SDPA's own choice is within 10% of the fastest forced backend AND cuDNN's dispatch
  cost exceeds flash's (the CPU-overhead premise); otherwise it differs, naming the part that failed.

Every string is produced from :data:`TEMPLATES`, an English/Japanese table, in the language asked for.
This module does not import torch.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import kernels, labels, trace
from .results import CpuCosts, Result, StepTrace
from .variants import VARIANTS

#: The verdicts a claim can get.
VERDICTS: tuple[str, ...] = ("holds", "differs", "unmeasurable")
#: Languages of :data:`TEMPLATES`; the first is the fallback.
LANGUAGES: tuple[str, ...] = ("en", "ja")

#: "About N" holds within this fraction of N.
ABOUT_TOLERANCE = 0.10
#: A ratio holds within this fraction of the published ratio.
RATIO_TOLERANCE = 0.20
#: C17: SDPA's own choice may be this much slower than the fastest forced backend.
CHOICE_TOLERANCE = 0.10

#: The SDPA backends that a variant forces, and the variant names of the backends.
FORCED_BACKENDS: tuple[str, ...] = ("sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn")
#: The three fused backends the article compares.
FUSED_BACKENDS: tuple[str, ...] = ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn")


# --- words ----------------------------------------------------------------------------------------------------------

#: Every string this module produces, by key, in every language of :data:`LANGUAGES`; ``{fields}`` are filled with
#: :meth:`str.format`. ``C<n>.*`` keys belong to one claim; the others are shared.
TEMPLATES: dict[str, dict[str, str]] = {
    # --- shared ---
    "reason.no_cuda": {
        "en": "no CUDA device: this build ran on the CPU",
        "ja": "CUDA デバイスなし: このビルドは CPU で実行されました",
    },
    "reason.missing": {"en": "{variant}: no result in this build", "ja": "{variant}: このビルドに結果がありません"},
    "reason.not_run": {
        "en": "{variant} did not run ({status}): {reason}",
        "ja": "{variant} は実行されませんでした ({status}): {reason}",
    },
    "reason.no_kernel": {
        "en": "{variant}: the trace holds no {family} kernel",
        "ja": "{variant}: トレースに {family} カーネルがありません",
    },
    "reason.not_recorded": {
        "en": "{what} was not recorded for {variants}",
        "ja": "{variants} の{what}は記録されていません",
    },
    "what.gpu_time": {"en": "the GPU time without the profiler", "ja": "プロファイラなしの GPU 時間"},
    "what.dispatch": {"en": "the dispatch cost without the profiler", "ja": "プロファイラなしのディスパッチコスト"},
    "unknown_reason": {"en": "no reason recorded", "ja": "理由の記録なし"},
    "not_recorded": {"en": "not recorded", "ja": "記録なし"},
    "none": {"en": "none", "ja": "なし"},
    "list.sep": {"en": ", ", "ja": "、"},
    "list.semi": {"en": "; ", "ja": " / "},
    "sentence.sep": {"en": " ", "ja": ""},
    "kind.kernel": {"en": "kernels", "ja": "カーネル"},
    "kind.memcpy": {"en": "Memcpy", "ja": "Memcpy"},
    "kind.memset": {"en": "Memset", "ja": "Memset"},
    "breakdown.item": {"en": "{n} {kind}", "ja": "{kind} {n}"},
    "diff.more": {"en": "{n} {kind} more", "ja": "{kind} が {n} 多い"},
    "diff.fewer": {"en": "{n} {kind} fewer", "ja": "{kind} が {n} 少ない"},
    "kernel_at": {"en": "{kernel} [{variants}]", "ja": "{kernel} [{variants}]"},
    "kernel_api": {"en": "{kernel} [{variants}]: {api}", "ja": "{kernel} [{variants}]: {api}"},
    "kernel_occ": {
        "en": "{kernel} [{variants}]: {api}, {occupancy}%",
        "ja": "{kernel} [{variants}]: {api}、{occupancy}%",
    },
    # --- C1 ---
    "C1.published": {
        "en": "6 kernels per forward, one of them a Memcpy",
        "ja": "フォワード 1 回あたり 6 カーネル (うち 1 つが Memcpy)",
    },
    "C1.measured": {
        "en": "{n} GPU activities per step ({breakdown}) vs 6 published",
        "ja": "1 ステップあたり GPU アクティビティ {n} 個 ({breakdown})、公表値 6",
    },
    "C1.detail.diff": {
        "en": "Against the article's 5 kernels + 1 Memcpy: {diffs}.",
        "ja": "記事の 5 カーネル + 1 Memcpy と比べて: {diffs}。",
    },
    "C1.detail.no_memcpy": {
        "en": "There is no Memcpy in this build's trace.",
        "ja": "このビルドのトレースには Memcpy がありません。",
    },
    # --- C2 ---
    "C2.published": {
        "en": "5 kernels: the Memcpy is gone",
        "ja": "5 カーネル: Memcpy が消える",
    },
    "C2.measured": {
        "en": "{n} GPU activities per step ({breakdown}) vs 5 published",
        "ja": "1 ステップあたり GPU アクティビティ {n} 個 ({breakdown})、公表値 5",
    },
    "C2.detail.change": {
        "en": "From naive to in-place: {a} → {b} GPU activities, Memcpy {ma} → {mb}.",
        "ja": "naive から in-place へ: GPU アクティビティ {a} → {b}、Memcpy {ma} → {mb}。",
    },
    "C2.detail.diff": {
        "en": "Against the article's 5 kernels: {diffs}.",
        "ja": "記事の 5 カーネルと比べて: {diffs}。",
    },
    # --- C3 ---
    "C3.published": {"en": "about 20 kernels per forward", "ja": "フォワード 1 回あたり約 20 カーネル"},
    "C3.measured": {
        "en": "{n} kernels per step vs about 20 published",
        "ja": "1 ステップあたり {n} カーネル、公表値 約 20",
    },
    # --- C4 ---
    "C4.published": {
        "en": "math ~3.7× slower than naive in-place (7.239 vs 1.955 ms CUDA time per forward)",
        "ja": "math は in-place naive の約 3.7 倍遅い (フォワードあたり CUDA 時間 7.239 ms 対 1.955 ms)",
    },
    "C4.measured": {
        "en": "{ratio}× ({math} vs {inplace} µs GPU time per step, profiled) vs 3.7× published",
        "ja": "{ratio} 倍 (プロファイル下の 1 ステップあたり GPU 時間 {math} µs 対 {inplace} µs)、公表値 3.7 倍",
    },
    "C4.detail.unprofiled": {
        "en": "Without the profiler (median GPU time): {ratio}× ({math} vs {inplace} ms).",
        "ja": "プロファイラなし (GPU 時間の中央値) では {ratio} 倍 ({math} ms 対 {inplace} ms)。",
    },
    # --- C5 ---
    "C5.published": {
        "en": "math: FP32 sgemm on CUDA cores; naive: bf16 tensor-core gemm (s16816)",
        "ja": "math: CUDA コア上の FP32 sgemm、naive: bf16 Tensor Core gemm (s16816)",
    },
    "C5.measured": {
        "en": "math: {math}; naive: {naive}",
        "ja": "math: {math}、naive: {naive}",
    },
    "C5.detail.compared": {
        "en": "Compared: the precision and math unit each gemm name decodes to, not the names themselves.",
        "ja": "比較したのは各 gemm の名前から読み取れる精度と演算ユニットで、名前そのものではありません。",
    },
    "C5.detail.math_off": {
        "en": "Not an FP32 gemm off the tensor cores in math: {kernels}.",
        "ja": "math のうち、Tensor Coreを使わない FP32 gemm でないもの: {kernels}。",
    },
    "C5.detail.naive_off": {
        "en": "Not a bf16 tensor-core gemm in naive: {kernels}.",
        "ja": "naive のうち、bf16 Tensor Core gemm でないもの: {kernels}。",
    },
    # --- C6 ---
    "C6.published": {
        "en": "ones → tril, scalar_tensor → fill_, where on the CPU; triu_tril, where, add_ kernels",
        "ja": "CPU 側で ones → tril、scalar_tensor → fill_、where、GPU 側で triu_tril、where、add_ カーネル",
    },
    "C6.measured": {
        "en": "ops per step: {ops}; kernels: {kernels}",
        "ja": "1 ステップあたりの演算: {ops}、カーネル: {kernels}",
    },
    "C6.detail.missing": {
        "en": "Missing from at least one step: {missing}.",
        "ja": "少なくとも 1 ステップで見つからないもの: {missing}。",
    },
    # --- C7 ---
    "C7.published": {"en": "aten::_safe_softmax is called", "ja": "aten::_safe_softmax が呼ばれる"},
    "C7.measured": {
        "en": "aten::_safe_softmax: {n} per step ({device})",
        "ja": "aten::_safe_softmax: 1 ステップあたり {n} 回 ({device})",
    },
    "C7.detail.kernels": {
        "en": "Kernels launched inside it: {kernels}.",
        "ja": "その内部で起動されたカーネル: {kernels}。",
    },
    # --- C8, C9, C11: one fused kernel ---
    "C8.published": {
        "en": "1 kernel: fmha_cutlassF_bf16_aligned_64x64_rf_sm80",
        "ja": "1 カーネル: fmha_cutlassF_bf16_aligned_64x64_rf_sm80",
    },
    "C9.published": {
        "en": "1 kernel: pytorch_flash (FlashAttention-2)",
        "ja": "1 カーネル: pytorch_flash (FlashAttention-2)",
    },
    "C11.published": {
        "en": "1 generated kernel: cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_…",
        "ja": "生成された 1 カーネル: cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_…",
    },
    "fused.measured": {
        "en": "kernels per step: {n} ({kernels}) vs 1 published",
        "ja": "1 ステップあたりのカーネル数: {n} ({kernels})、公表値 1",
    },
    "fused.detail.same_name": {
        "en": "Its name contains the published one ({published}).",
        "ja": "名前は公表された名前 ({published}) を含みます。",
    },
    "fused.detail.other_name": {
        "en": "The kernel is of the same kind under another name: {name}.",
        "ja": "同じ種類のカーネルですが、名前が異なります: {name}。",
    },
    "fused.detail.wrong_family": {
        "en": "Expected one {family} kernel.",
        "ja": "{family} カーネル 1 つを想定していました。",
    },
    "fused.detail.others": {
        "en": "Besides it, the step holds {others}.",
        "ja": "そのほか、ステップには {others} があります。",
    },
    # --- C10 ---
    "C10.published": {
        "en": "~13% reported (2 blocks of 128 threads × 255 registers per SM, 8 of 64 warps)",
        "ja": "報告値 約 13% (SM あたり 128 スレッド × 255 レジスタのブロック 2 つ、64 ワープ中 8)",
    },
    "C10.measured": {
        "en": "{reported}% reported vs ~13%; theoretical {theoretical}% ({blocks} blocks × {warps} warps = {active} "
        "of {max} warps, limited by {limiter})",
        "ja": "報告値 {reported}%、公表値 約 13%。理論値 {theoretical}% (ブロック {blocks} × {warps} ワープ = "
        "{max} ワープ中 {active}、制約: {limiter})",
    },
    "C10.detail.regs": {
        "en": "{threads} threads × {regs} registers (allocated {alloc} per thread) = {per_block} of {per_sm} "
        "registers per block.",
        "ja": "{threads} スレッド × {regs} レジスタ (スレッドあたり {alloc} を確保) = ブロックあたり {per_block} "
        "レジスタ ({per_sm} 中)。",
    },
    "C10.detail.arith": {
        "en": "The article's arithmetic (2 blocks, 8 of 64 warps) does not match this build's configuration.",
        "ja": "記事の計算 (2 ブロック、64 ワープ中 8) はこのビルドの構成と一致しません。",
    },
    # --- C12 ---
    "C12.published": {
        "en": "aten::transpose per forward: 4 (efficient) / 4 (flash) / 0 (cuDNN)",
        "ja": "フォワードあたりの aten::transpose: 4 (efficient) / 4 (flash) / 0 (cuDNN)",
    },
    "C12.measured": {
        "en": "{efficient} / {flash} / {cudnn} vs 4 / 4 / 0 published",
        "ja": "{efficient} / {flash} / {cudnn}、公表値 4 / 4 / 0",
    },
    # --- C13 ---
    "C13.published": {
        "en": "cuDNN through cuLaunchKernelEx, every other kernel through cudaLaunchKernel",
        "ja": "cuDNN は cuLaunchKernelEx、ほかのカーネルはすべて cudaLaunchKernel",
    },
    "C13.measured": {
        "en": "cuDNN: {cudnn}; other kernels: {n_ok} of {n} through cudaLaunchKernel",
        "ja": "cuDNN: {cudnn}、ほかのカーネル: {n} 個中 {n_ok} 個が cudaLaunchKernel",
    },
    "C13.detail.exceptions": {"en": "Exceptions: {exceptions}.", "ja": "例外: {exceptions}。"},
    "C13.detail.absent": {
        "en": "Not in this build, so not checked: {variants}.",
        "ja": "このビルドにないため未確認: {variants}。",
    },
    # --- C14 ---
    "C14.published": {
        "en": "0% reported, because CUPTI cannot attribute occupancy to driver-API launches (real: 240 registers × "
        "256 threads, 1 block per SM ≈ 12.5%)",
        "ja": "報告値 0%。CUPTI がドライバ API 経由の起動に占有率を割り当てられないため (実際は 240 レジスタ × "
        "256 スレッド、SM あたり 1 ブロック ≈ 12.5%)",
    },
    "C14.measured": {
        "en": "{reported}% reported vs 0%; theoretical {theoretical}% ({regs} registers × {threads} threads, "
        "blocks per SM: {blocks}); driver-API launches reporting more than 0%: {counter}",
        "ja": "報告値 {reported}%、公表値 0%。理論値 {theoretical}% ({regs} レジスタ × {threads} スレッド、"
        "SM あたりブロック数 {blocks})。0% より大きい値を報告したドライバ API 起動: {counter}",
    },
    "C14.detail.best": {
        "en": "Of the tested explanations, {best} accounts for every 0% in this build without a counterexample "
        "(see the occupancy page).",
        "ja": "検証した説明のうち、このビルドのすべての 0% を反例なしに説明できるのは {best} です"
        " (占有率のページを参照)。",
    },
    "C14.detail.tie": {
        "en": "The data cannot tell apart the explanations that account for every 0% without a counterexample: "
        "{best} (see the occupancy page).",
        "ja": "すべての 0% を反例なしに説明できる説明が複数あり、データでは区別できません: {best}"
        " (占有率のページを参照)。",
    },
    "C14.detail.no_best": {
        "en": "None of the tested explanations accounts for every 0% in this build without a counterexample.",
        "ja": "検証した説明のいずれも、このビルドのすべての 0% を反例なしには説明できません。",
    },
    # --- C15 ---
    "C15.published": {
        "en": "efficient 277.9 µs, flash 146.8 µs, cuDNN 186.3 µs per forward: flash is fastest",
        "ja": "フォワードあたり efficient 277.9 µs、flash 146.8 µs、cuDNN 186.3 µs: flash が最速",
    },
    "C15.measured": {
        "en": "fastest: {fastest}; efficient {efficient}, flash {flash}, cuDNN {cudnn} µs ({basis})",
        "ja": "最速: {fastest}。efficient {efficient}、flash {flash}、cuDNN {cudnn} µs ({basis})",
    },
    "C15.basis.unprofiled": {
        "en": "median GPU time without the profiler",
        "ja": "プロファイラなしの GPU 時間の中央値",
    },
    "C15.basis.profiled": {
        "en": "profiled GPU time; no measurement without the profiler",
        "ja": "プロファイル下の GPU 時間。プロファイラなしの計測なし",
    },
    "C15.detail.profiled": {
        "en": "Profiled kernel time per step: efficient {efficient}, flash {flash}, cuDNN {cudnn} µs.",
        "ja": "プロファイル下のステップあたりカーネル時間: efficient {efficient}、flash {flash}、cuDNN {cudnn} µs。",
    },
    # --- C16 ---
    "C16.published": {
        "en": "CPU time per forward: efficient 117 µs, flash 138 µs, cuDNN 214 µs; SDPA self time 26% of the run",
        "ja": "フォワードあたり CPU 時間: efficient 117 µs、flash 138 µs、cuDNN 214 µs。SDPA の自己時間は全体の 26%",
    },
    "C16.measured": {
        "en": "profiled CPU time: efficient {efficient}, flash {flash}, cuDNN {cudnn} µs (largest: {largest}); "
        "cuDNN's scaled_dot_product_attention self time {share}% of it vs 26%",
        "ja": "プロファイル下の CPU 時間: efficient {efficient}、flash {flash}、cuDNN {cudnn} µs (最大: {largest})。"
        "cuDNN の scaled_dot_product_attention の自己時間はその {share}%、公表値 26%",
    },
    "C16.detail.dispatch": {
        "en": "Without the profiler (dispatch cost): efficient {efficient}, flash {flash}, cuDNN {cudnn} µs "
        "(largest: {largest}). cuDNN costs the most CPU {parts}.",
        "ja": "プロファイラなし (ディスパッチコスト): efficient {efficient}、flash {flash}、cuDNN {cudnn} µs "
        "(最大: {largest})。cuDNN の CPU コストが最大なのは{parts}。",
    },
    "C16.parts.both": {
        "en": "with and without the profiler",
        "ja": "プロファイラありでもなしでも同じです",
    },
    "C16.parts.profiled": {
        "en": "only with the profiler: the ordering does not survive without it",
        "ja": "プロファイラありの場合だけで、プロファイラなしでは順位が変わります",
    },
    "C16.parts.unprofiled": {
        "en": "only without the profiler: the profiler changes the ordering",
        "ja": "プロファイラなしの場合だけで、プロファイラが順位を変えています",
    },
    "C16.parts.neither": {
        "en": "neither with nor without the profiler",
        "ja": "プロファイラありでもなしでもありません",
    },
    "C16.detail.no_dispatch": {
        "en": "Whether the ordering survives without the profiler cannot be said: {reason}.",
        "ja": "プロファイラなしでも順位が保たれるかは判断できません: {reason}。",
    },
    # --- C17 ---
    "C17.published": {
        "en": "start with SDPA; pin a backend only after profiling; cuDNN's CPU overhead can favour flash for "
        "small, frequent calls",
        "ja": "まず SDPA を使い、バックエンドの固定はプロファイリングの後で。小さく頻繁な呼び出しでは cuDNN の CPU "
        "オーバーヘッドにより flash が有利になりうる",
    },
    "C17.measured": {
        "en": "SDPA's own choice ({picked}): {auto}, {percent}% of the fastest forced backend ({fastest}, {fast}); "
        "dispatch cost: cuDNN {cudnn}, flash {flash}",
        "ja": "SDPA 自身の選択 ({picked}): {auto}、強制した最速バックエンド ({fastest}、{fast}) の {percent}%。"
        "ディスパッチコスト: cuDNN {cudnn}、flash {flash}",
    },
    "C17.fail.choice": {
        "en": "SDPA's own choice is more than 10% slower than the fastest forced backend",
        "ja": "SDPA 自身の選択が、強制した最速バックエンドより 10% を超えて遅い",
    },
    "C17.fail.premise": {
        "en": "cuDNN's dispatch cost does not exceed flash's, so the CPU-overhead premise does not hold here",
        "ja": "cuDNN のディスパッチコストが flash を上回らないため、CPU オーバーヘッドの前提がここでは成り立たない",
    },
    "C17.detail.fail": {"en": "Differs because {parts}.", "ja": "相違の理由: {parts}。"},
    "C17.detail.and": {"en": "; and ", "ja": "。また、"},
    "C17.detail.ok": {
        "en": "Both parts hold: SDPA's choice is within 10% of the fastest forced backend, and cuDNN costs more "
        "CPU per call than flash.",
        "ja": "両方が成り立ちます: SDPA の選択は強制した最速バックエンドの 10% 以内で、cuDNN は flash より "
        "呼び出しあたりの CPU コストが大きい。",
    },
}


def _lang(language: str | None) -> str:
    lang = (language or LANGUAGES[0]).replace("-", "_").split("_")[0]
    return lang if lang in LANGUAGES else LANGUAGES[0]


def text(key: str, language: str | None = None, **fields: object) -> str:
    """The template ``key`` of :data:`TEMPLATES` (or, for words the site shares, such as the occupancy limiters,
    of :data:`attnprof.labels.LABELS`) in ``language`` (English for other languages), filled.

    Raises:
        KeyError: for an unknown key, naming it.
    """
    texts = TEMPLATES.get(key) or labels.LABELS.get(key)
    if texts is None:
        raise KeyError(f"unknown claims template {key!r}")
    return texts[_lang(language)].format(**fields)


def template_fields(key: str, language: str) -> set[str]:
    """The ``{fields}`` the template ``key`` uses in ``language`` (for checking that translations agree)."""
    return {f for _, f, _, _ in string.Formatter().parse(TEMPLATES[key][language]) if f}


# --- formatting -----------------------------------------------------------------------------------------------------


def _num(value: float, digits: int = 3) -> str:
    """Three significant digits, never scientific: ``0.162``, ``27.3``, ``303``, ``1250``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    magnitude = math.floor(math.log10(abs(value)))
    return f"{value:.{max(0, digits - 1 - magnitude)}f}"


def _count(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _within(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance * abs(target) + 1e-12


# --- what the results say -------------------------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _kind_counts(steps: Sequence[StepTrace]) -> dict[str, float]:
    """Mean GPU activities per step by kind (``kernel``, ``memcpy``, ``memset``)."""
    return {
        kind: _mean(sum(1 for a in s.activities if a.kind == kind) for s in steps)
        for kind in ("kernel", "memcpy", "memset")
    }


def _kernel_rows(result: Result) -> list[trace.KernelRow]:
    return [r for r in trace.kernel_table(result.steps, result.device_properties) if r.kind == "kernel"]


def _min_op_count(steps: Sequence[StepTrace], name: str) -> int:
    """The fewest times ``name`` occurs in a step (0 if any step lacks it)."""
    return min((s.op_counts().get(name, 0) for s in steps), default=0)


def _self_share(result: Result, op: str) -> float | None:
    """Self CPU time of ``op`` (its duration minus its children's) as a share of the annotation's CPU time, over
    all steps; ``None`` when the op never occurs."""
    own, total, seen = 0.0, 0.0, False
    for step in result.steps:
        total += step.cpu_time_us
        for i, o in enumerate(step.cpu_ops):
            if o.name == op:
                seen = True
                own += o.duration_us - sum(c.duration_us for c in step.cpu_ops if c.parent == i)
    return own / total if seen and total > 0 else None


_CHOSEN = re.compile(r"^aten::_scaled_dot_product_(?:(cudnn|flash|efficient)_attention|attention_(math))")


def chosen_backend(result: Result) -> str | None:
    """The backend variant that SDPA ran, read from the CPU ops (``"sdpa_cudnn"``), or ``None``."""
    for step in result.steps:
        for o in step.cpu_ops:
            m = _CHOSEN.match(o.name)
            if m:
                return "sdpa_" + (m[1] or m[2])
    return None


def _group(items: Iterable[tuple[str, str, str]], lang: str) -> list[tuple[str, str, str]]:
    """``(kernel, variant, extra)`` -> one ``(kernel, "variant, variant", extra)`` per kernel and extra."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for kernel, variant, extra in items:
        vs = grouped.setdefault((kernel, extra), [])
        if variant not in vs:
            vs.append(variant)
    return [(k, text("list.sep", lang).join(vs), e) for (k, e), vs in grouped.items()]


# --- verdicts -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim against this build's results.

    Attributes:
        claim: The claim id (``"C10"``).
        verdict: One of :data:`VERDICTS`.
        measured: What this build measured, with the published figure beside it where there is one.
        detail: One more sentence where it helps (which part failed, what the name decodes to), or ``""``.
        reason: Why the claim could not be checked (``unmeasurable`` only), or ``""``.
    """

    claim: str
    verdict: str
    measured: str = ""
    detail: str = ""
    reason: str = ""


class _Check:
    """What a claim's rule works with: the results, the language, and short-hands for the verdicts."""

    def __init__(
        self, claim: Claim, results: Mapping[str, Result], lang: str, measured: CpuCosts | None = None
    ) -> None:
        self.claim, self.results, self.lang, self.measured = claim, results, lang, measured

    def cpu(self, variant: str) -> CpuCost:
        """The CPU side of ``variant``: the side-by-side measurement when there is one, else its own result."""
        return cpu_costs(self.results, [variant], self.measured)[0]

    def t(self, key: str, **fields: object) -> str:
        return text(key, self.lang, **fields)

    def join(self, items: Iterable[str]) -> str:
        items = list(items)
        return self.t("list.sep").join(items) if items else self.t("none")

    def usable(self, variant: str) -> Result | None:
        """The result of ``variant`` if it ran (on CUDA, for a claim that needs CUDA)."""
        r = self.results.get(variant)
        if r is None or not r.ok or (self.claim.needs_cuda and r.device != "cuda"):
            return None
        return r

    def verdict(self, holds: bool, measured: str, detail: str | Iterable[str] = "") -> Verdict:
        if not isinstance(detail, str):
            detail = self.t("sentence.sep").join(d for d in detail if d)
        return Verdict(self.claim.id, "holds" if holds else "differs", measured, detail)

    def unmeasurable(self, reason: str, measured: str = "", detail: str = "") -> Verdict:
        return Verdict(self.claim.id, "unmeasurable", measured, detail, reason)

    def not_recorded(self, what: str, variants: Iterable[str]) -> str:
        return self.t("reason.not_recorded", what=self.t(f"what.{what}"), variants=self.join(variants))


Rule = Callable[[_Check], Verdict]


@dataclass(frozen=True)
class Claim:
    """One published claim and the rule that checks it.

    Attributes:
        id: ``"C1"`` … ``"C17"``.
        variants: Variants whose results the claim needs; without one of them it is unmeasurable.
        needs_cuda: True when the claim is about the GPU, so that a CPU result cannot check it.
        rule: Turns the results into a verdict once the needed results are there; its docstring states the rule.
        optional: Variants the rule also uses when present.
    """

    id: str
    variants: tuple[str, ...]
    needs_cuda: bool
    rule: Rule
    optional: tuple[str, ...] = ()

    def published(self, language: str | None = None) -> str:
        """The published figure, in ``language``."""
        return text(f"{self.id}.published", language)

    @property
    def rule_text(self) -> str:
        """The documented rule (the first paragraph of the rule function's docstring)."""
        return " ".join((self.rule.__doc__ or "").strip().split("\n\n")[0].split())

    def check(
        self, results: Mapping[str, Result], language: str | None = None, cpu: CpuCosts | None = None
    ) -> Verdict:
        """Check the claim against ``results`` (variant name -> result).

        ``cpu`` is the side-by-side CPU-cost measurement, used by the claims about CPU time when present.

        Returns:
            The :class:`Verdict`. Unmeasurable when a needed variant has no result, did not run, or (for a GPU
            claim) ran on the CPU; otherwise what the rule decides.
        """
        lang = _lang(language)
        ctx = _Check(self, results, lang, cpu)
        if self.needs_cuda:
            # no sign of a GPU anywhere: every result ran on the CPU or found no CUDA device
            if results and all(r.device != "cuda" or r.status == "no_cuda" for r in results.values()):
                return ctx.unmeasurable(ctx.t("reason.no_cuda"))
            for v in self.variants:
                r = results.get(v)
                if r is not None and (r.status == "no_cuda" or (r.ok and r.device != "cuda")):
                    return ctx.unmeasurable(ctx.t("reason.no_cuda"))
        for v in self.variants:
            r = results.get(v)
            if r is None:
                return ctx.unmeasurable(ctx.t("reason.missing", variant=v))
            if not r.ok:
                reason = r.reason or ctx.t("unknown_reason")
                return ctx.unmeasurable(ctx.t("reason.not_run", variant=v, status=r.status, reason=reason))
        return self.rule(ctx)


# --- the rules ------------------------------------------------------------------------------------------------------


def _breakdown(ctx: _Check, counts: Mapping[str, float]) -> str:
    return ctx.join(
        ctx.t("breakdown.item", n=_count(counts[k]), kind=ctx.t(f"kind.{k}"))
        for k in ("kernel", "memcpy", "memset")
        if counts[k] or k == "kernel"
    )


def _diffs(ctx: _Check, counts: Mapping[str, float], published: Mapping[str, int]) -> list[str]:
    out = []
    for k in ("kernel", "memcpy", "memset"):
        d = counts[k] - published[k]
        if d:
            key = "diff.more" if d > 0 else "diff.fewer"
            out.append(ctx.t(key, n=_count(abs(d)), kind=ctx.t(f"kind.{k}")))
    return out


def _c1(ctx: _Check) -> Verdict:
    """Exact count: naive has 6 GPU activities per step (kernels, Memcpy and Memset all count, as the article
    counts its Memcpy among the kernels), and one of them is a Memcpy."""
    r = ctx.results["naive"]
    counts = _kind_counts(r.steps)
    n = sum(counts.values())
    measured = ctx.t("C1.measured", n=_count(n), breakdown=_breakdown(ctx, counts))
    detail = []
    if counts["memcpy"] < 1:
        detail.append(ctx.t("C1.detail.no_memcpy"))
    diffs = _diffs(ctx, counts, {"kernel": 5, "memcpy": 1, "memset": 0})
    if diffs:
        detail.append(ctx.t("C1.detail.diff", diffs=ctx.join(diffs)))
    return ctx.verdict(n == 6 and counts["memcpy"] >= 1, measured, detail)


def _c2(ctx: _Check) -> Verdict:
    """Exact count: naive_inplace has 5 GPU activities per step (counted as for C1) and no Memcpy."""
    r = ctx.results["naive_inplace"]
    counts = _kind_counts(r.steps)
    n = sum(counts.values())
    measured = ctx.t("C2.measured", n=_count(n), breakdown=_breakdown(ctx, counts))
    detail = []
    naive = ctx.usable("naive")
    if naive is not None:
        before = _kind_counts(naive.steps)
        detail.append(
            ctx.t(
                "C2.detail.change",
                a=_count(sum(before.values())),
                b=_count(n),
                ma=_count(before["memcpy"]),
                mb=_count(counts["memcpy"]),
            )
        )
    diffs = _diffs(ctx, counts, {"kernel": 5, "memcpy": 0, "memset": 0})
    if diffs:
        detail.append(ctx.t("C2.detail.diff", diffs=ctx.join(diffs)))
    return ctx.verdict(n == 5 and counts["memcpy"] == 0, measured, detail)


def _c3(ctx: _Check) -> Verdict:
    """About 20: the math backend's kernels per step are within ±10% of 20."""
    n = _kind_counts(ctx.results["sdpa_math"].steps)["kernel"]
    return ctx.verdict(_within(n, 20, ABOUT_TOLERANCE), ctx.t("C3.measured", n=_count(n)))


def _c4(ctx: _Check) -> Verdict:
    """Ratio: math's profiled GPU time per step over naive_inplace's is within ±20% of 3.7 (7.239 / 1.955); the
    ratio without the profiler is reported beside it."""
    math_r, inplace = ctx.results["sdpa_math"], ctx.results["naive_inplace"]
    a, b = _mean(s.gpu_time_us for s in math_r.steps), _mean(s.gpu_time_us for s in inplace.steps)
    if b <= 0:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="naive_inplace", family="GPU"))
    ratio = a / b
    measured = ctx.t("C4.measured", ratio=_num(ratio), math=_num(a), inplace=_num(b))
    detail = ""
    ta, tb = math_r.timing, inplace.timing
    if ta and tb and _finite(ta.gpu_ms_median) and _finite(tb.gpu_ms_median) and tb.gpu_ms_median > 0:
        detail = ctx.t(
            "C4.detail.unprofiled",
            ratio=_num(ta.gpu_ms_median / tb.gpu_ms_median),
            math=_num(ta.gpu_ms_median),
            inplace=_num(tb.gpu_ms_median),
        )
    return ctx.verdict(_within(ratio, 7.239 / 1.955, RATIO_TOLERANCE), measured, detail)


def _c5(ctx: _Check) -> Verdict:
    """Decoded facts, not names: every gemm kernel of sdpa_math decodes to FP32 off the tensor cores, every gemm
    kernel of naive to bf16 on the tensor cores, and each has at least one gemm."""
    math_g = [r for r in _kernel_rows(ctx.results["sdpa_math"]) if r.info.family == "gemm"]
    naive_g = [r for r in _kernel_rows(ctx.results["naive"]) if r.info.family == "gemm"]
    math_off = [
        r.info.short
        for r in math_g
        if r.info.fields.get("dtype") != "fp32" or r.info.fields.get("math", "") == "tensor core"
    ]
    naive_off = [
        r.info.short
        for r in naive_g
        if r.info.fields.get("dtype") != "bf16" or r.info.fields.get("math") != "tensor core"
    ]
    measured = ctx.t(
        "C5.measured",
        math=ctx.join(r.info.short for r in math_g),
        naive=ctx.join(r.info.short for r in naive_g),
    )
    holds = bool(math_g) and bool(naive_g) and not math_off and not naive_off
    detail = [ctx.t("C5.detail.compared")]
    if math_off:
        detail.append(ctx.t("C5.detail.math_off", kernels=ctx.join(math_off)))
    if naive_off:
        detail.append(ctx.t("C5.detail.naive_off", kernels=ctx.join(naive_off)))
    return ctx.verdict(holds, measured, detail)


#: C6: the CPU ops that rebuild the mask, and the elementwise ops of the kernels that apply it.
C6_OPS: tuple[str, ...] = ("aten::ones", "aten::tril", "aten::scalar_tensor", "aten::fill_", "aten::where")
C6_KERNEL_OPS: tuple[str, ...] = ("tril", "where", "add")


def _c6(ctx: _Check) -> Verdict:
    """Presence in every step: the ops aten::ones, aten::tril, aten::scalar_tensor, aten::fill_ and aten::where,
    and kernels decoding to the elementwise ops tril, where and add."""
    r = ctx.results["sdpa_math"]
    ops = {op: _min_op_count(r.steps, op) for op in C6_OPS}
    per_step = [{a_op for a in s.kernels if (a_op := _kernel_op(a.name))} for s in r.steps]
    kernels = {k: all(k in ops_ for ops_ in per_step) and bool(per_step) for k in C6_KERNEL_OPS}
    measured = ctx.t(
        "C6.measured",
        ops=ctx.join(f"{op.removeprefix('aten::')} {n}" for op, n in ops.items()),
        kernels=ctx.join(k for k, ok in kernels.items() if ok),
    )
    missing = [op for op, n in ops.items() if n < 1] + [f"{k} (kernel)" for k, ok in kernels.items() if not ok]
    detail = ctx.t("C6.detail.missing", missing=ctx.join(missing)) if missing else ""
    return ctx.verdict(not missing, measured, detail)


def _kernel_op(name: str) -> str | None:
    return kernels.decode(name).fields.get("op")


def _c7(ctx: _Check) -> Verdict:
    """Presence in every step: aten::_safe_softmax is called by sdpa_math (on a CPU result too); on a GPU the
    kernels launched inside it are named."""
    r = ctx.results["sdpa_math"]
    n = _min_op_count(r.steps, "aten::_safe_softmax")
    measured = ctx.t("C7.measured", n=_count(_mean(s.op_counts().get("aten::_safe_softmax", 0) for s in r.steps)),
                     device=r.device)  # fmt: skip
    detail = ""
    if r.device == "cuda" and r.steps and n:
        step = r.steps[0]
        inside = []
        for o in step.cpu_ops:
            if o.name == "aten::_safe_softmax":
                lo, hi = o.start_us, o.start_us + o.duration_us
                inside += [
                    kernels.decode(a.name).short
                    for a in step.kernels
                    if a.launch_start_us is not None and lo <= a.launch_start_us <= hi
                ]
        if inside:
            detail = ctx.t("C7.detail.kernels", kernels=ctx.join(dict.fromkeys(inside)))
    return ctx.verdict(n >= 1, measured, detail)


def _fused(variant: str, family: str, published: str) -> Rule:
    def rule(ctx: _Check) -> Verdict:
        r = ctx.results[variant]
        counts = _kind_counts(r.steps)
        rows = _kernel_rows(r)
        measured = ctx.t("fused.measured", n=_count(counts["kernel"]), kernels=ctx.join(x.info.short for x in rows))
        detail = []
        ours = [x for x in rows if x.info.family == family]
        if len(rows) == 1 and ours:
            name = kernels.shorten(ours[0].name, 120)
            key = "fused.detail.same_name" if published in ours[0].name else "fused.detail.other_name"
            detail.append(ctx.t(key, published=published, name=name))
        elif rows:
            detail.append(ctx.t("fused.detail.wrong_family", family=family))
        others = {k: counts[k] for k in ("memcpy", "memset") if counts[k]}
        if others:
            detail.append(ctx.t("fused.detail.others", others=_breakdown_only(ctx, others)))
        holds = counts["kernel"] == 1 and len(rows) == 1 and bool(ours)
        return ctx.verdict(holds, measured, detail)

    return rule


def _breakdown_only(ctx: _Check, counts: Mapping[str, float]) -> str:
    return ctx.join(ctx.t("breakdown.item", n=_count(n), kind=ctx.t(f"kind.{k}")) for k, n in counts.items())


def _c8(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_efficient launches exactly 1 kernel per step and it decodes to the
    memory-efficient family; whether its name contains fmha_cutlassF_bf16_aligned_64x64_rf_sm80 is reported."""
    return _fused("sdpa_efficient", "mem_efficient", "fmha_cutlassF_bf16_aligned_64x64_rf_sm80")(ctx)


def _c9(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_flash launches exactly 1 kernel per step and it decodes to the flash family;
    whether its name contains pytorch_flash is reported."""
    return _fused("sdpa_flash", "flash", "pytorch_flash")(ctx)


def _c11(ctx: _Check) -> Verdict:
    """Exact count and kind: sdpa_cudnn launches exactly 1 kernel per step and it decodes to the cuDNN family; the
    generated name is reported next to the published sm80 one."""
    return _fused("sdpa_cudnn", "cudnn", "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6")(ctx)


def _main_row(result: Result, family: str) -> trace.KernelRow | None:
    rows = [r for r in _kernel_rows(result) if r.info.family == family]
    return max(rows, key=lambda r: r.total_us) if rows else None


def _c10(ctx: _Check) -> Verdict:
    """About 13%: the flash kernel's reported occupancy is within ±10% of 13%, and the theoretical occupancy gives
    the article's arithmetic (2 blocks per SM, 8 of 64 warps)."""
    row = _main_row(ctx.results["sdpa_flash"], "flash")
    if row is None or row.reported_occupancy is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_flash", family="flash"))
    o = row.theoretical
    if o is None:
        measured = ctx.t("C10.measured", reported=_num(row.reported_occupancy, 2), theoretical="?", blocks="?",
                         warps="?", active="?", max="?", limiter="?")  # fmt: skip
        return ctx.verdict(_within(row.reported_occupancy, 13, ABOUT_TOLERANCE), measured)
    measured = ctx.t(
        "C10.measured",
        reported=_num(row.reported_occupancy, 2),
        theoretical=_num(o.percent, 3),
        blocks=o.blocks_per_sm,
        warps=o.warps_per_block,
        active=o.active_warps,
        max=o.max_warps,
        limiter=ctx.t(f"limiter.{o.limiter}"),
    )
    arith = (o.blocks_per_sm, o.active_warps, o.max_warps) == (2, 8, 64)
    detail = [
        ctx.t(
            "C10.detail.regs",
            threads=o.warps_per_block * o.warp_size,
            regs=row.registers_per_thread,
            alloc=o.registers_per_warp // o.warp_size,
            per_block=o.registers_per_block,
            per_sm=o.registers_per_sm,
        )
    ]
    if not arith:
        detail.append(ctx.t("C10.detail.arith"))
    return ctx.verdict(_within(row.reported_occupancy, 13, ABOUT_TOLERANCE) and arith, measured, detail)


def _c12(ctx: _Check) -> Verdict:
    """Exact counts: aten::transpose per step is 4 for sdpa_efficient, 4 for sdpa_flash and 0 for sdpa_cudnn."""
    n = {v: trace.op_counts(ctx.results[v].steps).get("aten::transpose", 0.0) for v in FUSED_BACKENDS}
    measured = ctx.t(
        "C12.measured",
        efficient=_count(n["sdpa_efficient"]),
        flash=_count(n["sdpa_flash"]),
        cudnn=_count(n["sdpa_cudnn"]),
    )
    return ctx.verdict((n["sdpa_efficient"], n["sdpa_flash"], n["sdpa_cudnn"]) == (4, 4, 0), measured)


#: C13: the variants whose kernels the article says are all launched with cudaLaunchKernel.
C13_OTHERS: tuple[str, ...] = ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash")


def _c13(ctx: _Check) -> Verdict:
    """API names: the cuDNN kernel is launched through cuLaunchKernelEx, and every kernel of naive, naive_inplace,
    sdpa_math, sdpa_efficient and sdpa_flash (those in the build) through cudaLaunchKernel; exceptions are
    named."""
    cudnn = _main_row(ctx.results["sdpa_cudnn"], "cudnn")
    if cudnn is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_cudnn", family="cuDNN"))
    n, exceptions, absent = 0, [], []
    for v in C13_OTHERS:
        r = ctx.usable(v)
        if r is None:
            absent.append(v)
            continue
        for row in _kernel_rows(r):
            n += 1
            if row.launch_api != "cudaLaunchKernel":
                exceptions.append((row.info.short, v, row.launch_api or "?"))
    grouped = _group(exceptions, ctx.lang)
    measured = ctx.t("C13.measured", cudnn=cudnn.launch_api or "?", n_ok=n - len(exceptions), n=n)
    detail = []
    if grouped:
        detail.append(
            ctx.t(
                "C13.detail.exceptions",
                exceptions=ctx.t("list.semi").join(
                    ctx.t("kernel_api", kernel=k, variants=vs, api=api) for k, vs, api in grouped
                ),
            )
        )
    if absent:
        detail.append(ctx.t("C13.detail.absent", variants=ctx.join(absent)))
    return ctx.verdict(cudnn.launch_api == "cuLaunchKernelEx" and not exceptions and n > 0, measured, detail)


def _c14(ctx: _Check) -> Verdict:
    """The 0% and its explanation: the cuDNN kernel reports 0% occupancy, and the article's explanation (a launch
    through the driver API reports 0%) has no counterexample among all kernels of the build; the simplest
    explanation that the data support is named."""
    from . import occupancy

    cudnn = _main_row(ctx.results["sdpa_cudnn"], "cudnn")
    if cudnn is None or cudnn.reported_occupancy is None:
        return ctx.unmeasurable(ctx.t("reason.no_kernel", variant="sdpa_cudnn", family="cuDNN"))
    build = [r for v in VARIANTS if (r := ctx.usable(v)) is not None]
    kernels = occupancy.kernel_occupancies(build)
    tests = occupancy.check_hypotheses(kernels)
    h1 = next(t for t in tests if t.hypothesis.parts == ("H1",))
    counter = _group(((k.short, k.variant, f"{k.launch_api}|{_num(k.reported or 0, 2)}") for k in h1.counterexamples),
                     ctx.lang)  # fmt: skip
    counter_text = ctx.t("list.semi").join(
        ctx.t("kernel_occ", kernel=k, variants=vs, api=e.split("|")[0], occupancy=e.split("|")[1])
        for k, vs, e in counter
    )
    o = cudnn.theoretical
    measured = ctx.t(
        "C14.measured",
        reported=_num(cudnn.reported_occupancy, 2),
        theoretical="?" if o is None else _num(o.percent),
        regs=cudnn.registers_per_thread,
        threads=o.warps_per_block * o.warp_size if o else "?",
        blocks="?" if o is None else o.blocks_per_sm,
        counter=counter_text or ctx.t("none"),
    )
    best = occupancy.supported(tests)
    if len(best) == 1:
        detail = ctx.t("C14.detail.best", best=best[0].hypothesis.key)
    elif best:
        detail = ctx.t("C14.detail.tie", best=ctx.join(t.hypothesis.key for t in best))
    else:
        detail = ctx.t("C14.detail.no_best")
    return ctx.verdict(cudnn.reported_occupancy == 0 and not h1.counterexamples, measured, detail)


_BACKEND_NAMES = {"sdpa_math": "math", "sdpa_efficient": "efficient", "sdpa_flash": "flash", "sdpa_cudnn": "cuDNN"}


def _gpu_us(result: Result) -> float | None:
    t = result.timing
    return t.gpu_ms_median * 1e3 if t is not None and _finite(t.gpu_ms_median) else None


def _c15(ctx: _Check) -> Verdict:
    """Ordering: flash is the fastest of efficient, flash and cuDNN by median GPU time without the profiler (by
    profiled GPU time per step when that was not measured); profiled kernel times are reported beside it."""
    rs = {v: ctx.results[v] for v in FUSED_BACKENDS}
    profiled = {v: _mean(s.gpu_time_us for s in r.steps) for v, r in rs.items()}
    unprofiled = {v: _gpu_us(r) for v, r in rs.items()}
    use_timing = all(x is not None for x in unprofiled.values())
    basis = unprofiled if use_timing else profiled
    fastest = min(FUSED_BACKENDS, key=lambda v: basis[v])  # type: ignore[arg-type, return-value]
    measured = ctx.t(
        "C15.measured",
        fastest=_BACKEND_NAMES[fastest],
        efficient=_num(basis["sdpa_efficient"]),  # type: ignore[arg-type]
        flash=_num(basis["sdpa_flash"]),  # type: ignore[arg-type]
        cudnn=_num(basis["sdpa_cudnn"]),  # type: ignore[arg-type]
        basis=ctx.t("C15.basis.unprofiled" if use_timing else "C15.basis.profiled"),
    )
    detail = ""
    if use_timing:
        detail = ctx.t(
            "C15.detail.profiled",
            efficient=_num(profiled["sdpa_efficient"]),
            flash=_num(profiled["sdpa_flash"]),
            cudnn=_num(profiled["sdpa_cudnn"]),
        )
    return ctx.verdict(fastest == "sdpa_flash", measured, detail)


def _c16(ctx: _Check) -> Verdict:
    """Ordering: cuDNN has the largest profiled CPU time per call of efficient, flash and cuDNN (the side-by-side
    measurement's median when the build has one, else the mean annotation length over the active steps). Reported
    beside it: the self CPU time of aten::scaled_dot_product_attention in the cuDNN run as a share of that run's CPU
    time (published 26%), and whether cuDNN's dispatch cost without the profiler is also the largest, i.e. which
    part of the claim survives without the profiler."""
    rs = {v: ctx.results[v] for v in FUSED_BACKENDS}
    costs = {v: ctx.cpu(v) for v in FUSED_BACKENDS}
    cpu = {
        v: c.profiled_us if c.profiled_us is not None else _mean(s.cpu_time_us for s in rs[v].steps)
        for v, c in costs.items()
    }
    largest = max(FUSED_BACKENDS, key=lambda v: cpu[v])
    share = _self_share(rs["sdpa_cudnn"], "aten::scaled_dot_product_attention")
    measured = ctx.t(
        "C16.measured",
        efficient=_num(cpu["sdpa_efficient"]),
        flash=_num(cpu["sdpa_flash"]),
        cudnn=_num(cpu["sdpa_cudnn"]),
        largest=_BACKEND_NAMES[largest],
        share="?" if share is None else _num(100 * share, 2),
    )
    dispatch = {v: c.dispatch_us for v, c in costs.items()}
    missing = [v for v, d in dispatch.items() if not _finite(d)]
    if missing:
        detail = ctx.t("C16.detail.no_dispatch", reason=ctx.not_recorded("dispatch", missing))
    else:
        largest_d = max(FUSED_BACKENDS, key=lambda v: dispatch[v])  # type: ignore[arg-type, return-value]
        with_p, without_p = largest == "sdpa_cudnn", largest_d == "sdpa_cudnn"
        parts = {(True, True): "both", (True, False): "profiled", (False, True): "unprofiled"}.get(
            (with_p, without_p), "neither"
        )
        detail = ctx.t(
            "C16.detail.dispatch",
            efficient=_num(dispatch["sdpa_efficient"]),  # type: ignore[arg-type]
            flash=_num(dispatch["sdpa_flash"]),  # type: ignore[arg-type]
            cudnn=_num(dispatch["sdpa_cudnn"]),  # type: ignore[arg-type]
            largest=_BACKEND_NAMES[largest_d],
            parts=ctx.t(f"C16.parts.{parts}"),
        )
    return ctx.verdict(largest == "sdpa_cudnn", measured, detail)


def _c17(ctx: _Check) -> Verdict:
    """Two parts, both needed: SDPA's own choice (sdpa_auto) is within 10% of the fastest forced backend by median
    GPU time without the profiler, AND cuDNN's dispatch cost without the profiler exceeds flash's (the CPU-overhead
    premise of the advice; from the side-by-side measurement when the build has one). Differs naming the part that
    fails; unmeasurable when a part cannot be decided and the other does not already fail."""
    auto = ctx.results["sdpa_auto"]
    forced = {v: _gpu_us(r) for v in FORCED_BACKENDS if (r := ctx.usable(v)) is not None}
    timed = {v: t for v, t in forced.items() if t is not None}
    auto_us = _gpu_us(auto)
    d_cudnn, d_flash = (ctx.cpu(v).dispatch_us for v in ("sdpa_cudnn", "sdpa_flash"))
    picked = chosen_backend(auto)
    choice_ok = premise_ok = None
    fastest = min(timed, key=lambda v: timed[v]) if timed else None
    if auto_us is not None and fastest is not None:
        choice_ok = auto_us <= (1 + CHOICE_TOLERANCE) * timed[fastest] * (1 + 1e-9)
    if _finite(d_cudnn) and _finite(d_flash):
        premise_ok = d_cudnn > d_flash  # type: ignore[operator]
    nr = ctx.t("not_recorded")
    measured = ctx.t(
        "C17.measured",
        picked=_BACKEND_NAMES.get(picked or "", "?"),
        auto=nr if auto_us is None else f"{_num(auto_us / 1e3)} ms",
        percent="?" if choice_ok is None else _num(100 * auto_us / timed[fastest]),  # type: ignore[index, operator]
        fastest="?" if fastest is None else _BACKEND_NAMES[fastest],
        fast="?" if fastest is None else f"{_num(timed[fastest] / 1e3)} ms",
        cudnn=f"{_num(d_cudnn)} µs" if _finite(d_cudnn) else nr,  # type: ignore[arg-type]
        flash=f"{_num(d_flash)} µs" if _finite(d_flash) else nr,  # type: ignore[arg-type]
    )
    failed = [ctx.t(k) for k, ok in (("C17.fail.choice", choice_ok), ("C17.fail.premise", premise_ok)) if ok is False]
    if failed:
        return ctx.verdict(False, measured, ctx.t("C17.detail.fail", parts=ctx.t("C17.detail.and").join(failed)))
    if choice_ok is None or premise_ok is None:
        reasons = []
        if choice_ok is None:
            reasons.append(ctx.not_recorded("gpu_time", ["sdpa_auto"] if auto_us is None else list(FORCED_BACKENDS)))
        if premise_ok is None:
            missing = [v for v, d in (("sdpa_cudnn", d_cudnn), ("sdpa_flash", d_flash)) if not _finite(d)]
            reasons.append(ctx.not_recorded("dispatch", missing))
        return ctx.unmeasurable(ctx.t("list.semi").join(reasons), measured)
    return ctx.verdict(True, measured, ctx.t("C17.detail.ok"))


#: The claims, by id, C1 to C17.
CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in (
        Claim("C1", ("naive",), True, _c1),
        Claim("C2", ("naive_inplace",), True, _c2, optional=("naive",)),
        Claim("C3", ("sdpa_math",), True, _c3),
        Claim("C4", ("sdpa_math", "naive_inplace"), True, _c4),
        Claim("C5", ("sdpa_math", "naive"), True, _c5),
        Claim("C6", ("sdpa_math",), True, _c6),
        Claim("C7", ("sdpa_math",), False, _c7),
        Claim("C8", ("sdpa_efficient",), True, _c8),
        Claim("C9", ("sdpa_flash",), True, _c9),
        Claim("C10", ("sdpa_flash",), True, _c10),
        Claim("C11", ("sdpa_cudnn",), True, _c11),
        Claim("C12", FUSED_BACKENDS, True, _c12),
        Claim("C13", ("sdpa_cudnn",), True, _c13, optional=C13_OTHERS),
        Claim("C14", ("sdpa_cudnn",), True, _c14, optional=tuple(VARIANTS)),
        Claim("C15", FUSED_BACKENDS, True, _c15),
        Claim("C16", FUSED_BACKENDS, True, _c16),
        Claim("C17", ("sdpa_auto", "sdpa_flash", "sdpa_cudnn"), True, _c17, optional=FORCED_BACKENDS),
    )
}


def get(claim_id: str) -> Claim:
    """The claim ``claim_id`` (``"C7"``; case-insensitive).

    Raises:
        KeyError: for an unknown id, listing the known ones.
    """
    try:
        return CLAIMS[claim_id.strip().upper()]
    except KeyError:
        raise KeyError(f"unknown claim {claim_id!r}; choose one of: {', '.join(CLAIMS)}") from None


def check(
    claim_id: str, results: Mapping[str, Result], language: str | None = None, cpu: CpuCosts | None = None
) -> Verdict:
    """Check one claim; see :meth:`Claim.check`."""
    return get(claim_id).check(results, language, cpu)


def check_all(
    results: Mapping[str, Result], language: str | None = None, cpu: CpuCosts | None = None
) -> list[Verdict]:
    """Check every claim, C1 to C17."""
    return [c.check(results, language, cpu) for c in CLAIMS.values()]


def by_variant(results: Iterable[Result]) -> dict[str, Result]:
    """``{variant: result}``; for a variant given twice, a result that ran wins over one that did not, then the
    first."""
    out: dict[str, Result] = {}
    for r in results:
        if r.variant not in out or (r.ok and not out[r.variant].ok):
            out[r.variant] = r
    return out


# --- CPU cost with and without the profiler -------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuCost:
    """The CPU side of one call of one variant, with and without the profiler.

    Attributes:
        variant: The variant.
        status: The result's status, or ``"missing"`` when there is no result.
        reason: Why it did not run, if it did not.
        profiled_us: Mean CPU time of the annotation over the active steps (profiler overhead included).
        dispatch_us: Median CPU time to issue one call without the profiler (``Timing.dispatch_us_median``), or
            ``None`` when not recorded.
        profiler_share: The share of ``profiled_us`` that the profiler adds: ``1 - dispatch_us / profiled_us``
            (negative if the call took longer without the profiler), or ``None``.
        context_us: Median cost of entering and leaving the backend-forcing context alone
            (``Timing.context_us_median``), or ``None`` for a variant that forces nothing or when not recorded.
        interleaved: True when the figures come from the side-by-side measurement (medians of its rounds).
    """

    variant: str
    status: str
    reason: str | None
    profiled_us: float | None = None
    dispatch_us: float | None = None
    profiler_share: float | None = None
    context_us: float | None = None
    interleaved: bool = False


def cpu_costs(
    results: Mapping[str, Result], variants: Iterable[str], measured: CpuCosts | None = None
) -> list[CpuCost]:
    """One :class:`CpuCost` per variant, in the given order (a variant without a result gets ``"missing"``).

    With ``measured`` (the side-by-side measurement of :func:`attnprof.profiling.measure_cpu_costs`), its figures
    are used for the variants it covers: they were taken in the same rounds, so they compare fairly. Otherwise the
    figures come from each variant's own result (annotation length over the active steps, ``Timing``).
    """
    out = []
    for v in variants:
        row = measured.row(v) if measured is not None else None
        if row is not None:
            if row.status != "ok":
                out.append(CpuCost(v, row.status, row.reason))
                continue
            p, d = row.profiled_us, row.dispatch_us
            share = 1 - d / p if p and d is not None else None
            out.append(CpuCost(v, "ok", None, p, d, share, row.context_us, interleaved=True))
            continue
        r = results.get(v)
        if r is None:
            out.append(CpuCost(v, "missing", None))
            continue
        if not r.ok or not r.steps:
            out.append(CpuCost(v, r.status, r.reason))
            continue
        profiled = _mean(s.cpu_time_us for s in r.steps)
        t = r.timing
        dispatch = t.dispatch_us_median if t is not None and _finite(t.dispatch_us_median) else None
        context = t.context_us_median if t is not None and _finite(t.context_us_median) else None
        share = 1 - dispatch / profiled if dispatch is not None and profiled > 0 else None
        out.append(CpuCost(v, r.status, r.reason, profiled, dispatch, share, context))
    return out
