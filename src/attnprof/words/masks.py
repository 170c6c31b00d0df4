"""Words of the masks beyond causal (the masks page, its gallery script and the probe's tables).

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

MASK_WORDS: dict[str, dict[str, str]] = {
    # --- the masks and the methods ---
    "mask.name.sliding_window": {"en": "sliding window", "ja": "スライディングウィンドウ"},
    "mask.name.documents": {"en": "packed documents", "ja": "パックされた文書"},
    "mask.name.prefix_lm": {"en": "prefix-LM", "ja": "プレフィックス LM"},
    "mask.method.flex": {"en": "FlexAttention, block mask", "ja": "FlexAttention、ブロックマスク"},
    "mask.method.sdpa_auto": {"en": "SDPA, dense mask, its choice", "ja": "SDPA、密なマスク、自動選択"},
    "mask.method.sdpa_efficient": {"en": "SDPA, dense mask, efficient", "ja": "SDPA、密なマスク、efficient"},
    "mask.method.sdpa_cudnn": {"en": "SDPA, dense mask, cuDNN", "ja": "SDPA、密なマスク、cuDNN"},
    "mask.method.sdpa_flash": {"en": "SDPA, dense mask, flash", "ja": "SDPA、密なマスク、flash"},
    "mask.method.sdpa_math": {"en": "SDPA, dense mask, math", "ja": "SDPA、密なマスク、math"},
    "mask.method.nested": {"en": "SDPA, nested tensors", "ja": "SDPA、ネスト (ジャグド) テンソル"},
    "mask.method.naive": {"en": "naive, dense mask", "ja": "素朴なアテンション、密なマスク"},
    "mask.workload.prefill": {"en": "forward", "ja": "フォワード"},
    "mask.workload.train": {"en": "forward + backward", "ja": "フォワード + バックワード"},
    "mask.size.window": {"en": "window {n}", "ja": "ウィンドウ {n}"},
    "mask.size.prefix": {"en": "prefix {n}", "ja": "プレフィックス {n}"},
    "mask.size.none": {"en": "documents {lengths}", "ja": "文書 {lengths}"},
    "mask.script.documents": {
        "en": "document lengths of the first row: {lengths}; share of (query, key) pairs the mask keeps: {share}",
        "ja": "1 行目の文書の長さ: {lengths}、マスクが残す (クエリ, キー) の組の割合: {share}",
    },
    # --- columns ---
    "mask.col.mask": {"en": "Mask", "ja": "マスク"},
    "mask.col.size": {"en": "Size", "ja": "サイズ"},
    "mask.col.seq": {"en": "Seq", "ja": "系列長"},
    "mask.col.workload": {"en": "Step", "ja": "ステップ"},
    "mask.col.method": {"en": "Method", "ja": "方法"},
    "mask.col.time": {"en": "Time (ms)", "ja": "時間 (ms)"},
    "mask.col.tflops": {"en": "Useful TFLOP/s", "ja": "有効 TFLOP/s"},
    "mask.col.peak": {"en": "Peak memory", "ja": "ピークメモリ"},
    "mask.col.ran": {"en": "Backend, or why not", "ja": "バックエンド、または実行できない理由"},
    "mask.col.build": {"en": "Build (ms)", "ja": "構築 (ms)"},
    "mask.col.kept": {"en": "Blocks computed", "ja": "計算するブロック"},
    "mask.col.density": {"en": "Pairs kept", "ja": "残るペア"},
    "mask.col.launches": {"en": "Kernels launched", "ja": "起動カーネル数"},
    "mask.col.calls": {"en": "Build in kernel calls", "ja": "構築時間 (カーネル呼び出し何回分)"},
    "mask.col.flex": {"en": "FlexAttention (ms)", "ja": "FlexAttention (ms)"},
    "mask.col.dense": {"en": "Fastest dense-mask SDPA (ms)", "ja": "最速の密なマスクの SDPA (ms)"},
    "mask.col.verdict": {"en": "Faster", "ja": "速い方"},
    "mask.col.nested": {"en": "Nested tensors (ms)", "ja": "ネスト (ジャグド) テンソル (ms)"},
    "mask.col.first": {"en": "First call (ms)", "ja": "初回呼び出し (ms)"},
    "mask.col.kernel": {"en": "Longest kernel", "ja": "最も長いカーネル"},
    # --- cells ---
    "mask.cell.ran": {"en": "ran {backend}", "ja": "{backend} で実行"},
    "mask.cell.note": {"en": "{status} ({note})", "ja": "{status} ({note})"},
    "mask.cell.ratio": {"en": "{ratio}× ({method})", "ja": "{ratio} 倍 ({method})"},
    "mask.outcome.flex_faster": {"en": "FlexAttention", "ja": "FlexAttention"},
    "mask.outcome.dense_faster": {"en": "dense-mask SDPA", "ja": "密なマスクの SDPA"},
    "mask.outcome.tie": {"en": "too close to call", "ja": "僅差で判定できない"},
    "mask.outcome.flex_only": {"en": "only FlexAttention ran", "ja": "FlexAttention のみ実行"},
    "mask.outcome.dense_only": {"en": "only dense-mask SDPA ran", "ja": "密なマスクの SDPA のみ実行"},
    "mask.outcome.neither": {"en": "neither ran", "ja": "どちらも実行できず"},
    "mask.status.not_applicable": {"en": "does not apply", "ja": "適用外"},
    "mask.status.not_measured": {"en": "not measured here", "ja": "ここでは計測せず"},
    "mask.why.not_measured": {
        "en": "FlexAttention is not measured on the CPU: compiling it takes tens of seconds there.",
        "ja": "CPU では FlexAttention を計測しません。CPU ではコンパイルに数十秒かかるためです。",
    },
    "mask.why.not_applicable": {
        "en": "Nested tensors express packed documents only: one sequence per document, no mask.",
        "ja": "ネスト (ジャグド) テンソルで表せるのはパックされた文書だけです (文書ごとに 1 つの系列、マスクなし)。",
    },
    # --- the summary ---
    "mask.summary": {
        "en": "Measured on {device}: batch {batch}, {heads} heads, head_dim {head_dim}, {dtype}; sequence lengths "
        "{seqs}. Each time is the median of at least {reps} timed calls, with its 95 % band; FLOP/s count only "
        "the pairs the mask keeps.",
        "ja": "計測環境 {device}: バッチ {batch}、ヘッド {heads}、head_dim {head_dim}、{dtype}、系列長 "
        "{seqs}。各時間は {reps} 回以上の計測呼び出しの中央値と 95 % の幅です。"
        "FLOP/s はマスクが残すペアだけを数えます。",
    },
    "mask.summary.cpu": {
        "en": "This build has no GPU: the CPU runs the small sizes, without FlexAttention (compiling it takes tens "
        "of seconds on a CPU) and without the CUDA-only backends; each case that did not run says why.",
        "ja": "このビルドには GPU がありません。CPU では小さなサイズだけを、FlexAttention (CPU ではコンパイルに"
        "数十秒かかる) と CUDA 専用バックエンドを除いて実行します。実行されなかった各ケースにはその理由を示します。",
    },
    "mask.notes": {"en": "Why a case did not run:", "ja": "ケースが実行されなかった理由:"},
    "mask.report.mask": {"en": "Mask: {mask}", "ja": "マスク: {mask}"},
    "mask.report.builds": {
        "en": "Block masks, built apart from the kernel (create_block_mask)",
        "ja": "カーネルとは別に構築したブロックマスク (create_block_mask)",
    },
    "mask.report.verdicts": {
        "en": "FlexAttention against the fastest dense-mask SDPA",
        "ja": "FlexAttention と最速の密なマスクの SDPA の比較",
    },
    # --- the claims, C50–C53 ---
    "C50.statement": {
        "en": "Under a short sliding window in a long row, FlexAttention's forward is faster than the fastest "
        "dense-mask SDPA.",
        "ja": "長い行で短いスライディングウィンドウなら、FlexAttention のフォワードは最速の密なマスクの SDPA "
        "より速い。",
    },
    "C51.statement": {
        "en": "SDPA's flash backend takes no dense mask: forced, it runs under none of the masks.",
        "ja": "SDPA の flash バックエンドは密なマスクを受け付けない。強制すると、どのマスクでも実行されない。",
    },
    "C52.statement": {
        "en": "For packed documents, nested tensors run the forward faster than FlexAttention.",
        "ja": "パックされた文書では、ネスト (ジャグド) テンソルのフォワードは FlexAttention より速い。",
    },
    "C53.statement": {
        "en": "Building a block mask takes longer than one forward call of the FlexAttention kernel it serves.",
        "ja": "ブロックマスクの構築には、それを使う FlexAttention カーネルのフォワード 1 回より長い時間がかかる。",
    },
    "mask.claim.where": {"en": "{mask} {size}, seq {seq}", "ja": "{mask} {size}、系列長 {seq}"},
    "mask.claim.pair": {
        "en": "{where}: FlexAttention {flex}; {method} {dense}",
        "ja": "{where}: FlexAttention {flex}、{method} {dense}",
    },
    "mask.claim.nested": {
        "en": "{where}: FlexAttention {flex}; nested tensors {nested}",
        "ja": "{where}: FlexAttention {flex}、ネスト (ジャグド) テンソル {nested}",
    },
    "mask.claim.build": {
        "en": "{where}: block mask built in {build}; one FlexAttention forward {flex}",
        "ja": "{where}: ブロックマスクの構築 {build}、FlexAttention のフォワード 1 回 {flex}",
    },
    "mask.claim.refused": {
        "en": "flash forced with a dense mask: {refused} of {total} cases did not run",
        "ja": "密なマスクで flash を強制: {total} ケース中 {refused} ケースが実行されなかった",
    },
    "mask.reason.no_run": {
        "en": "no mask run (examples/16-masks.py writes it)",
        "ja": "マスクの計測結果がない (examples/16-masks.py が書き出す)",
    },
    "mask.reason.no_case": {"en": "no case of {what} was measured", "ja": "{what} のケースが計測されていない"},
    "mask.reason.one_side": {"en": "{where}: {outcome}", "ja": "{where}: {outcome}"},
    "mask.nested.prebuilt": {
        "en": "Nested tensors at seq {seq}, forward: {built} ms with the nested tensors built from the packed rows "
        "in "
        "every step, as a loop over new batches builds them; {once} ms on nested tensors built once, before the "
        "calls. A training step builds them inside its own autograd graph, so its time includes them.",
        "ja": "系列長 {seq} のネスト (ジャグド) テンソル、フォワード: 新しいバッチを回すループと同じく各ステップでパ"
        "ック"
        "された行からネストテンソルを作ると {built} ms、呼び出しの前に 1 回だけ作ったネストテンソルでは {once} ms。"
        "学習ステップは自身の自動微分グラフの中でそれを作るため、その時間に含まれます。",
    },
    "mask.builds.every_batch": {
        "en": "{mask} at seq {seq}: the documents and their boundaries change with every batch, so a training loop "
        "builds this mask in every step: the block mask in {block} ms for FlexAttention, the dense mask in {dense} "
        "ms for SDPA and the naive code. The decision page adds each to its method's step.",
        "ja": "系列長 {seq} の{mask}: 文書とその境界はバッチごとに変わるため、学習ループはこのマスクを各ステップで"
        "作ります。FlexAttention のブロックマスクは {block} ms、SDPA と素朴な実装の密なマスクは {dense} ms "
        "です。判定のページはそれぞれを各方法のステップに加えています。",
    },
    "mask.builds.once": {
        "en": "The sliding window and the prefix-LM are the same for every batch of a given length: their masks are "
        "built once, before the loop, and their cost is not paid per step.",
        "ja": "スライディングウィンドウとプレフィックス LM は、同じ長さならどのバッチでも同じです。マスクはループの"
        "前に 1 回だけ作り、そのコストはステップごとにはかかりません。",
    },
    "mask.summary.lengths": {
        "en": "This build measures the masks at seq {seqs} only: FlexAttention compiles once per mask, window, "
        "length "
        "and step ({compiles} compiles here, the first call of each taking {low} to {high} s), and the build keeps "
        "to "
        "its time budget. The probe scripts/probe_masks.py measures seq {others} as well.",
        "ja": "このビルドはマスクを系列長 {seqs} でのみ計測します。FlexAttention はマスク、ウィンドウ、長さ、"
        "ステップごとにコンパイルし (ここでは {compiles} 回、初回呼び出しはそれぞれ {low}〜{high} s)、ビルドは"
        "時間予算内に収めるためです。scripts/probe_masks.py は系列長 {others} も計測します。",
    },
}
