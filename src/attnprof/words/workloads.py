"""Words of the workload pages (training, decoding, CUDA graphs, the decision page) and of claims C18–C26.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

WORKLOADS: dict[str, dict[str, str]] = {
    # --- workload names ---
    "workload.train": {"en": "Training", "ja": "学習"},
    "workload.prefill": {"en": "Prefill", "ja": "プリフィル"},
    "workload.decode": {"en": "Decoding", "ja": "デコード"},
    "workload.length.train": {"en": "seq {n}", "ja": "系列長 {n}"},
    "workload.length.prefill": {"en": "seq {n}", "ja": "系列長 {n}"},
    "workload.length.decode": {"en": "KV cache {n}", "ja": "KV キャッシュ {n}"},
    # --- timelines ---
    "timeline.row.thread": {"en": "{thread}, depth {depth}", "ja": "{thread} (深さ {depth})"},
    # --- train-table ---
    "col.step_ms": {"en": "Training step (median and band, ms)", "ja": "学習ステップ (中央値とノイズ幅, ms)"},
    "col.fwd_ms": {"en": "Forward (ms)", "ja": "フォワード (ms)"},
    "col.bwd_ms": {"en": "Backward (ms)", "ja": "バックワード (ms)"},
    "col.bwd_over_fwd": {"en": "Backward / forward", "ja": "バックワード / フォワード"},
    "col.train_tflops": {"en": "TFLOP/s (3.5× forward)", "ja": "TFLOP/s (フォワードの 3.5 倍)"},
    "col.step_peak_mib": {"en": "Peak extra memory of a step (MiB)", "ja": "ステップの追加メモリのピーク (MiB)"},
    "col.saved_mib": {"en": "Kept for the backward (MiB)", "ja": "バックワード用に保持 (MiB)"},
    "col.kernels_fwd_bwd": {
        "en": "Kernels per step (fwd + bwd)",
        "ja": "ステップあたりカーネル数 (フォワード + バックワード)",
    },
    "timeline.kv_cache": {"en": ", KV cache {heads}×{length}", "ja": "、KV キャッシュ {heads}×{length}"},
    "col.bwd_main": {"en": "Main backward kernel", "ja": "バックワードの主カーネル"},
    "train.backend": {"en": "{kernel} (SDPA ran {backend})", "ja": "{kernel} (SDPA は {backend} を実行)"},
    # --- decode-table ---
    "col.kv_len": {"en": "KV cache length", "ja": "KV キャッシュ長"},
    "decode.metric.gpu_us": {
        "en": "GPU time per step (median and band, µs)",
        "ja": "ステップあたり GPU 時間 (中央値とノイズ幅, µs)",
    },
    "decode.metric.gbs": {"en": "Achieved bandwidth (GB/s)", "ja": "実効帯域幅 (GB/s)"},
    "decode.metric.read_pct": {"en": "Share of the read bandwidth (%)", "ja": "読み出し帯域幅に対する割合 (%)"},
    "decode.metric.dispatch_us": {
        "en": "CPU time to issue a step (µs)",
        "ja": "ステップの発行にかかる CPU 時間 (µs)",
    },
    "decode.ceiling": {
        "en": "Read bandwidth of this GPU, measured by the build: {gbs} GB/s (a sum over {size} of device memory).",
        "ja": "このビルドが計測した GPU の読み出し帯域幅: {gbs} GB/s (デバイスメモリ {size} の総和で計測)。",
    },
    "decode.launch_bound": {"en": "{value} (CPU-bound)", "ja": "{value} (CPU 律速)"},
    "decode.refused": {
        "en": "{variant} did not run at any cache length ({status}): {reason}",
        "ja": "{variant} はどの KV キャッシュ長でも実行されませんでした ({status}): {reason}",
    },
    "col.kernels": {"en": "Kernels (decoded)", "ja": "カーネル (デコード済み)"},
    "col.issue_vs_gpu": {"en": "Issue vs GPU time (µs)", "ja": "発行時間と GPU 時間 (µs)"},
    # --- graph-table ---
    "col.cpu_eager_graph": {"en": "CPU time, eager → graph (µs)", "ja": "CPU 時間 eager → グラフ (µs)"},
    "col.wall_eager_graph": {
        "en": "Wall time from an idle GPU, eager → graph (µs)",
        "ja": "アイドル状態の GPU からの経過時間 eager → グラフ (µs)",
    },
    "col.gpu_eager_graph": {"en": "GPU time, eager → graph (µs)", "ja": "GPU 時間 eager → グラフ (µs)"},
    "col.launches_eager_graph": {
        "en": "Launch calls per step, eager → graph",
        "ja": "ステップあたり起動呼び出し数 eager → グラフ",
    },
    "col.kernels_eager_graph": {
        "en": "Kernels per step, eager → graph",
        "ja": "ステップあたりカーネル数 eager → グラフ",
    },
    "graph.arrow": {"en": "{a} → {b}", "ja": "{a} → {b}"},
    "graph.launch_api": {"en": "{n} ({api})", "ja": "{n} ({api})"},
    "graph.mismatch": {
        "en": "{variant}: the replay's output differs from the eager output",
        "ja": "{variant}: リプレイの出力が eager の出力と一致しません",
    },
    # --- decision ---
    "col.workload": {"en": "Workload", "ja": "ワークロード"},
    "col.length": {"en": "Length", "ja": "長さ"},
    "col.winner": {"en": "Fastest", "ja": "最速"},
    "col.runner_up": {"en": "Runner-up (slower by)", "ja": "次点 (遅い分)"},
    "col.winner_memory": {
        "en": "Best's peak memory above its inputs (MiB)",
        "ja": "最良のピークメモリ (入力を除く, MiB)",
    },
    "col.sdpa_forcing": {"en": "SDPA's choice; force a backend?", "ja": "SDPA の選択、バックエンドを強制すべきか"},
    "col.flex": {"en": "FlexAttention vs fastest", "ja": "FlexAttention と最速の比"},
    "decision.tie": {"en": "too close to call", "ja": "僅差で判定できない"},
    "decision.forcing.unknown": {"en": "not measured", "ja": "計測なし"},
    "decision.none": {
        "en": "no results of the workloads in this build",
        "ja": "このビルドにはワークロードの結果がありません",
    },
    "decision.summary.line": {
        "en": "{workload} at {length} ({conditions}): {winner}",
        "ja": "{workload}、{length} ({conditions}): {winner}",
    },
    "decision.summary.tie": {
        "en": "{workload} at {length} ({conditions}): {winner} or {runner}, too close to call",
        "ja": "{workload}、{length} ({conditions}): {winner} か {runner} (僅差で判定できない)",
    },
    # --- claims C18-C26: shared ---
    "col.guess": {"en": "Our guess", "ja": "予想"},
    "reason.missing_workload": {
        "en": "{variant}: no result of the {workload} workload in this build",
        "ja": "{variant}: このビルドに {workload} ワークロードの結果がありません",
    },
    "what.memory": {"en": "the peak memory", "ja": "ピークメモリ"},
    "what.read_ceiling": {"en": "the read bandwidth", "ja": "読み出し帯域幅"},
    "what.graph": {"en": "the CUDA-graph comparison", "ja": "CUDA グラフとの比較"},
    # --- C18 ---
    "C18.published": {
        "en": "SDPA's own choice trains within 10% of the fastest forced backend",
        "ja": "SDPA 自身の選択は、強制した最速バックエンドの 10% 以内の時間で学習する",
    },
    "C18.measured": {
        "en": "SDPA ran {picked}: {auto} ms per step, {percent}% of the fastest forced backend ({fastest}, "
        "{fast} ms)",
        "ja": "SDPA は {picked} を実行: ステップあたり {auto} ms、強制した最速バックエンド ({fastest}、{fast} ms) の "
        "{percent}%",
    },
    # --- C19 ---
    "C19.published": {
        "en": "backward = 2.5 × forward (the FLOP count), ±20%",
        "ja": "バックワード = フォワードの 2.5 倍 (FLOP 数のとおり)、±20%",
    },
    "C19.measured": {"en": "backward / forward: {ratios}", "ja": "バックワード / フォワード: {ratios}"},
    "C19.detail.math": {
        "en": "The math backend: {ratio} (its fp32 products run off the tensor cores both ways).",
        "ja": "math バックエンド: {ratio} (fp32 の行列積は往復とも Tensor コアを使いません)。",
    },
    "C19.detail.off": {
        "en": "Outside ±20% of 2.5: {variants}; their backward does work the FLOP count does not see (it recomputes "
        "the scores tile by tile, and reduces dQ across key blocks).",
        "ja": "2.5 の ±20% を外れたもの: {variants}。これらのバックワードは FLOP 数に表れない仕事をします (スコアを"
        "タイルごとに再計算し、dQ をキーのブロックをまたいで足し合わせます)。",
    },
    # --- C20 ---
    "C20.published": {
        "en": "math needs at least 4 × the memory of the fused backends to train",
        "ja": "math の学習には融合バックエンドの 4 倍以上のメモリが要る",
    },
    "C20.measured": {
        "en": "peak extra memory of a step: math {math} MiB, largest fused ({variant}) {fused} MiB: {factor}×",
        "ja": "ステップの追加メモリのピーク: math {math} MiB、融合バックエンドの最大 ({variant}) {fused} MiB: "
        "{factor} 倍",
    },
    "C20.detail.saved": {
        "en": "Kept after the forward for the backward: math {math} MiB, that fused backend {fused} MiB.",
        "ja": "フォワード後にバックワード用に保持: math {math} MiB、その融合バックエンド {fused} MiB。",
    },
    # --- C21 ---
    "C21.published": {
        "en": "SDPA's own choice decodes within 10% of the fastest forced backend at every cache length",
        "ja": "どの KV キャッシュ長でも、SDPA 自身の選択は強制した最速バックエンドの 10% 以内でデコードする",
    },
    "C21.measured": {
        "en": "SDPA ran {picked}; worst at KV cache {length}: {percent}% of the fastest forced backend ({fastest})",
        "ja": "SDPA は {picked} を実行。最も差が大きいのは KV キャッシュ {length}: 強制した最速バックエンド "
        "({fastest}) の {percent}%",
    },
    # --- C22 ---
    "C22.published": {
        "en": "every fused backend accepts grouped KV heads (enable_gqa=True)",
        "ja": "どの融合バックエンドもグループ化された KV ヘッド (enable_gqa=True) を受け付ける",
    },
    "C22.measured": {"en": "ran: {accepted}; refused: {refused}", "ja": "実行: {accepted}。拒否: {refused}"},
    "C22.detail.reason": {"en": "{variant}: “{reason}”", "ja": "{variant}: “{reason}”"},
    # --- C23 ---
    "C23.published": {
        "en": "at the longest cache, decoding reaches ≥ 80% of the read bandwidth",
        "ja": "最長の KV キャッシュでは、デコードが読み出し帯域幅の 80% 以上に達する",
    },
    "C23.measured": {
        "en": "{variant} at KV cache {length}: {gbs} GB/s, {percent}% of the read bandwidth ({ceiling} GB/s)",
        "ja": "{variant} (KV キャッシュ {length}): {gbs} GB/s、読み出し帯域幅 ({ceiling} GB/s) の {percent}%",
    },
    "C23.detail.above": {
        "en": "Above 100%: the kernel reads faster than the sum reduction the ceiling is measured with.",
        "ja": "100% 超: カーネルの読み出しが、上限の計測に使った総和リダクションより速いということです。",
    },
    # --- C24 ---
    "C24.published": {
        "en": "at the shortest cache, issuing a decoding step takes longer than running it",
        "ja": "最短の KV キャッシュでは、デコードステップの発行が実行より長くかかる",
    },
    "C24.measured": {
        "en": "KV cache {length}: issue {dispatch} µs, GPU {gpu} µs",
        "ja": "KV キャッシュ {length}: 発行 {dispatch} µs、GPU {gpu} µs",
    },
    # --- C25 ---
    "C25.published": {
        "en": "a CUDA graph cuts the CPU time ≥ 3× and leaves the GPU time within ±10%",
        "ja": "CUDA グラフで CPU 時間が 3 分の 1 以下になり、GPU 時間は ±10% 以内のまま",
    },
    "C25.item": {
        "en": "{variant}: CPU {eager} → {graph} µs, GPU {gpu_eager} → {gpu_graph} µs",
        "ja": "{variant}: CPU {eager} → {graph} µs、GPU {gpu_eager} → {gpu_graph} µs",
    },
    "C25.detail.wall": {
        "en": "Wall time of one step from an idle GPU ({variant}, KV cache {length}): {eager} → {graph} µs.",
        "ja": "アイドル状態の GPU から 1 ステップの経過時間 ({variant}、KV キャッシュ {length}): "
        "{eager} → {graph} µs。",
    },
    # --- C26 ---
    "C26.published": {
        "en": "forcing the backend SDPA picks anyway costs CPU time on every step",
        "ja": "SDPA がどのみち選ぶバックエンドを強制すると、ステップごとに CPU 時間がかかる",
    },
    "C26.measured": {
        "en": "forcing {picked}, the backend SDPA picks, adds {cost} µs of CPU per call ({lo}–{hi}) at KV cache "
        "{length}, issued side by side: {share}% of the {issue} µs SDPA's own choice takes to issue the step",
        "ja": "SDPA が選ぶバックエンド {picked} を強制すると、KV キャッシュ {length} で呼び出しごとに CPU 時間が "
        "{cost} µs ({lo}–{hi}) 増える (並べて発行して計測): SDPA 自身の選択がステップの発行にかける {issue} µs の "
        "{share}%",
    },
    "C26.detail": {
        "en": "Holds when that difference is, beyond the noise, at least 5% of the issue time ({limit} µs): the "
        "whole difference between the forced call and SDPA's own choice, round by round over {rounds} rounds in "
        "which both were issued, not the empty sdpa_kernel context alone.",
        "ja": "その差がノイズを超えて発行時間の 5% ({limit} µs) 以上なら成り立つ。強制した呼び出しと SDPA 自身の"
        "選択を同じ {rounds} ラウンドで発行し、ラウンドごとに取った差の全体で、中身のない sdpa_kernel "
        "コンテキストだけの値ではない。",
    },
    "C26.cost": {"en": "forcing", "ja": "強制の代償"},
    "C26.limit": {"en": "5% of the issue time", "ja": "発行時間の 5%"},
    "C26.reason.no_side": {
        "en": "this build did not issue the forced call and SDPA's own choice side by side at a decoding shape "
        "(examples/11-cpu-overhead.py does)",
        "ja": "このビルドは、デコードの形状で強制した呼び出しと SDPA 自身の選択を並べて発行していません "
        "(examples/11-cpu-overhead.py が行います)",
    },
}
