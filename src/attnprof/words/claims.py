"""The sentences of the claim checks (:mod:`attnprof.analysis.claims`): ``C<n>.*`` keys belong to one claim, the
others are shared by several.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

CLAIMS: dict[str, dict[str, str]] = {
    # --- where in the article a claim comes from (attnprof.analysis.claims.SECTIONS); Japanese: the adaptation's
    # headings ---
    "article.section.naive": {"en": "§ Naive attention", "ja": "§ 1. 素朴なアテンション実装とプロファイリング"},
    "article.section.memcpy": {"en": "§ The hidden Memcpy", "ja": "§ 隠れたMemcpyの正体"},
    "article.section.backends": {
        "en": "§ SDPA backends compared",
        "ja": "§ 2. SDPAバックエンド別プロファイラトレース比較",
    },
    "article.section.math": {"en": "§ SDPA math backend", "ja": "§ mathバックエンド：リファレンス実装の罠"},
    "article.section.flash": {"en": "§ SDPA flash backend", "ja": "§ flashバックエンド：低占有率が罠でない理由"},
    "article.section.cudnn": {"en": "§ SDPA cuDNN backend", "ja": "§ cuDNNバックエンド：生成カーネルの光と影"},
    "article.section.advice": {"en": "§ SDPA cuDNN backend: practical tip", "ja": "§ 実務のヒント"},
    "article.section.site": {"en": "This site's own guess", "ja": "このサイト独自の予想"},
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
    "what.profiled_cpu": {"en": "the profiled CPU time", "ja": "プロファイル下の CPU 時間"},
    "tie.between": {"en": "too close to call between {names}", "ja": "{names} は僅差で判定できない"},
    "tie.band": {"en": "{name} {lo}–{hi} {unit}", "ja": "{name} {lo}–{hi} {unit}"},
    "tie.detail": {
        "en": "The noise bands overlap: {bands} (each band is the 95% confidence interval of the median, widened to "
        "at least ±{floor}% of it).",
        "ja": "ノイズ幅が重なっています: {bands} (各ノイズ幅は中央値の 95% 信頼区間で、少なくとも中央値の ±{floor}% "
        "まで広げています)。",
    },
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
        "ja": "公表値 (5 カーネル + Memcpy 1) と比べて: {diffs}。",
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
        "ja": "naive からインプレース版へ: GPU アクティビティ {a} → {b}、Memcpy {ma} → {mb}。",
    },
    "C2.detail.diff": {
        "en": "Against the article's 5 kernels: {diffs}.",
        "ja": "公表値 (5 カーネル) と比べて: {diffs}。",
    },
    # --- C3 ---
    "C3.published": {"en": "about 20 kernels per forward", "ja": "フォワード 1 回あたり約 20 カーネル"},
    "C3.measured": {
        "en": "{n} kernels per step vs about 20 published",
        "ja": "1 ステップあたり {n} カーネル、公表値 約 20",
    },
    # --- C4 ---
    "C4.published": {
        "en": "math several times slower than naive in-place (3.7× on the A100: 7.239 vs 1.955 ms CUDA time per "
        "forward)",
        "ja": "math はインプレース版 naive の数倍遅い (A100 では 3.7 倍: フォワードあたり CUDA 時間 7.239 ms 対 "
        "1.955 ms)",
    },
    "C4.measured": {
        "en": "{ratio} ({math} vs {inplace} µs GPU time per step, profiled) vs 3.7× slower on the A100",
        "ja": "{ratio} (プロファイル下の 1 ステップあたり GPU 時間 {math} µs 対 {inplace} µs)、A100 では 3.7 倍遅い",
    },
    "C4.detail.rule": {
        "en": "Holds when math takes at least twice as long, beyond the noise. How many times slower depends on the "
        "GPU: math multiplies in fp32 off the tensor cores, the naive code in bf16 on them (C5).",
        "ja": "math がノイズを超えて 2 倍以上の時間をかければ成り立つ。何倍遅いかは GPU によって変わる。math は "
        "Tensor コアを使わずに fp32 で、素朴なコードは Tensor コアで bf16 の行列積を計算するからである (C5)。",
    },
    "C4.limit": {"en": "2 × naive_inplace", "ja": "naive_inplace の 2 倍"},
    "C4.detail.unprofiled": {
        "en": "Without the profiler (median GPU time): {ratio} ({math} vs {inplace} ms).",
        "ja": "プロファイラなし (GPU 時間の中央値) では {ratio} ({math} ms 対 {inplace} ms)。",
    },
    # --- C5 ---
    "C5.published": {
        "en": "math: FP32 sgemm on CUDA cores; naive: bf16 tensor-core gemm (s16816)",
        "ja": "math: CUDA コア上の FP32 sgemm、naive: Tensor コア上の bf16 gemm (s16816)",
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
        "ja": "math のうち、Tensor コアを使わない FP32 gemm ではないもの: {kernels}。",
    },
    "C5.detail.naive_off": {
        "en": "Not a bf16 tensor-core gemm in naive: {kernels}.",
        "ja": "naive のうち、Tensor コア上の bf16 gemm ではないもの: {kernels}。",
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
        "ja": "報告された占有率 約 13% (SM あたり 128 スレッド × 255 レジスタのブロック 2 つ、64 ワープ中 8)",
    },
    "C10.measured": {
        "en": "{reported}% reported vs ~13%; theoretical {theoretical}% ({blocks} blocks × {warps} warps = {active} "
        "of {max} warps, limited by {limiter})",
        "ja": "報告された占有率 {reported}% (公表値 約 13%)。理論占有率 {theoretical}% (ブロック {blocks} × "
        "{warps} ワープ = {max} ワープ中 {active}、制約要因: {limiter})",
    },
    "C10.detail.regs": {
        "en": "{threads} threads × {regs} registers (allocated {alloc} per thread) = {per_block} of {per_sm} "
        "registers per block.",
        "ja": "{threads} スレッド × {regs} レジスタ (スレッドあたり {alloc} を確保) = ブロックあたり {per_block} "
        "レジスタ ({per_sm} 中)。",
    },
    "C10.detail.arith": {
        "en": "The article's arithmetic (2 blocks, 8 of 64 warps) does not match this build's configuration.",
        "ja": "記事の計算 (2 ブロック、64 ワープ中 8) はこのビルドの構成と合いません。",
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
        "ja": "報告された占有率 0%。CUPTI がドライバ API による起動に占有率を帰属させられないため (実際は 240 "
        "レジスタ × 256 スレッド、SM あたり 1 ブロック ≈ 12.5%)",
    },
    "C14.measured": {
        "en": "{reported}% reported vs 0%; theoretical {theoretical}% ({regs} registers × {threads} threads, blocks "
        "per SM: {blocks})",
        "ja": "報告された占有率 {reported}% (公表値 0%)。理論占有率 {theoretical}% ({regs} レジスタ × {threads} "
        "スレッド、SM あたりブロック数 {blocks})",
    },
    "C14.part.explanation_fails": {
        "en": "The 0% is reproduced, but not the article's explanation of it: launches through the driver API that "
        "report more than 0%: {counter}.",
        "ja": "0% は再現したが、記事によるその説明は成り立たない。ドライバ API で起動され 0% より大きい値を報告した"
        "カーネル: {counter}。",
    },
    "C14.part.both_hold": {
        "en": "The 0% is reproduced, and no launch through the driver API in this build reports more than 0%.",
        "ja": "0% は再現し、このビルドでドライバ API で起動されたカーネルはどれも 0% より大きい値を報告していない。",
    },
    "C14.part.reported_fails": {
        "en": "cuDNN's kernel reports {reported}%, not 0%; launches through the driver API that report more than "
        "0%: {counter}.",
        "ja": "cuDNN のカーネルが報告する占有率は 0% ではなく {reported}%。ドライバ API で起動され 0% より大きい値を"
        "報告したカーネル: {counter}。",
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
        "en": "{what}: efficient {efficient}, flash {flash}, cuDNN {cudnn} µs (largest: {largest}); in cuDNN's "
        "profiled steps, scaled_dot_product_attention's self time is {share}% of the CPU time vs 26%",
        "ja": "{what}: efficient {efficient}、flash {flash}、cuDNN {cudnn} µs (最大: {largest})。cuDNN の"
        "プロファイル下のステップでは、scaled_dot_product_attention の自己時間が CPU 時間の {share}%、公表値 26%",
    },
    "C16.basis.side_by_side": {
        "en": "profiled CPU time per call, side by side",
        "ja": "横並び計測のプロファイル下の呼び出しあたり CPU 時間",
    },
    "C16.basis.steps": {
        "en": "CPU time per profiled step",
        "ja": "プロファイル下のステップあたり CPU 時間",
    },
    "C16.detail.dispatch": {
        "en": "Without the profiler ({what}): efficient {efficient}, flash {flash}, cuDNN {cudnn} µs "
        "(largest: {largest}).",
        "ja": "プロファイラなし ({what}): efficient {efficient}、flash {flash}、cuDNN {cudnn} µs (最大: {largest})。",
    },
    "C16.dispatch.side_by_side": {"en": "dispatch cost, side by side", "ja": "横並び計測のディスパッチコスト"},
    "C16.dispatch.own": {"en": "dispatch cost", "ja": "ディスパッチコスト"},
    "C16.detail.conclusion": {
        "en": "cuDNN costs the most CPU {parts}.",
        "ja": "cuDNN の CPU コストが最大なのは{parts}。",
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
    "C16.detail.undecided": {
        "en": "Whether the profiler changes the ordering cannot be said on this build: the figures {where} are too "
        "close to call.",
        "ja": "プロファイラが順位を変えるかどうかは、このビルドでは判断できません。{where}の数値が僅差で判定できない"
        "ためです。",
    },
    "C16.where.with": {"en": "with the profiler", "ja": "プロファイラあり"},
    "C16.where.without": {"en": "without the profiler", "ja": "プロファイラなし"},
    "C16.where.both": {"en": "with and without the profiler", "ja": "プロファイラありとなしの両方"},
    "C16.detail.no_dispatch": {
        "en": "Whether the ordering survives without the profiler cannot be said: {reason}.",
        "ja": "プロファイラなしでも順位が保たれるかは判断できません: {reason}。",
    },
    # --- C17 ---
    "C17.published": {
        "en": "start with SDPA; pin a backend only after profiling; cuDNN's CPU overhead can favour flash for "
        "small, frequent calls",
        "ja": "まず SDPA を使い、バックエンドの強制はプロファイリングの後で。小さく頻繁な呼び出しでは cuDNN の CPU "
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
    "C17.tie.choice": {
        "en": "SDPA's own choice is too close to the limit of 10% slower than the fastest forced backend to say on "
        "which side of it it lies.",
        "ja": "SDPA 自身の選択は、強制した最速バックエンドより 10% 遅いという境界に近すぎて、"
        "どちら側か判定できません。",
    },
    "C17.tie.premise": {
        "en": "cuDNN's and flash's dispatch costs are too close to call.",
        "ja": "cuDNN と flash のディスパッチコストは僅差で判定できません。",
    },
    "C17.limit": {"en": "1.1 × {fastest}", "ja": "{fastest} の 1.1 倍"},
    "C17.detail.and": {"en": "; and ", "ja": "。また、"},
    "C17.detail.ok": {
        "en": "Both parts hold: SDPA's choice is within 10% of the fastest forced backend, and cuDNN costs more "
        "CPU per call than flash.",
        "ja": "両方が成り立ちます: SDPA の選択は強制した最速バックエンドの 10% 以内で、cuDNN は flash より "
        "呼び出しあたりの CPU コストが大きい。",
    },
}
