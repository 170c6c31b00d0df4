"""Words of the text tables of the other workloads and of context parallelism (:mod:`attnprof.render.workloadreport`),
as the gallery scripts 12 to 14 and the command line print them.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up. Keys ``wreport.*``. Column
headers are short (a terminal is narrow); the Japanese follows the glossary (docs/guide/glossary.md). Kernel names,
variant names, rotation methods, PyTorch's own messages and units stay as they are.
"""

from __future__ import annotations

WORKLOAD_REPORT: dict[str, dict[str, str]] = {
    # --- what a script runs on, and its checks ---
    "wreport.setup": {"en": "running: {setup}", "ja": "実行: {setup}"},
    "wreport.kv_cache_shape": {"en": ", KV cache {shape}", "ja": "、KV キャッシュ {shape}"},
    "wreport.cpu.train": {
        "en": "no GPU here: the times describe this CPU, there are no kernels, and the backward runs on the main "
        "thread",
        "ja": "GPU がないため、時間はこの CPU のものです。カーネルはなく、バックワードはメインスレッドで実行されます",
    },
    "wreport.cpu.decode": {
        "en": "no GPU here: the times describe this CPU; there are no kernels and no CUDA graph",
        "ja": "GPU がないため、時間はこの CPU のものです。カーネルも CUDA グラフもありません",
    },
    "wreport.grad_error": {
        "en": "relative error of d{name} against float64: {error}",
        "ja": "d{name} の float64 との相対誤差: {error}",
    },
    "wreport.rel_error_fp32": {
        "en": "relative error against float32: {error}",
        "ja": "float32 との相対誤差: {error}",
    },
    "wreport.causal_wrong": {
        "en": "is_causal=True differs from the right answer by {error} (relative)",
        "ja": "is_causal=True の結果は正しい答えと {error} (相対誤差) 食い違います",
    },
    "wreport.causal_refused": {
        "en": "is_causal=True refused: {reason}",
        "ja": "is_causal=True は拒否されました: {reason}",
    },
    "wreport.replay_error": {
        "en": "replay against the eager step: {error} (relative)",
        "ja": "リプレイと eager ステップの差: {error} (相対誤差)",
    },
    "wreport.auto_not_run": {
        "en": "SDPA's own choice did not run here: {reason}",
        "ja": "SDPA 自身の選択はこの環境では実行されませんでした: {reason}",
    },
    "wreport.elapsed": {"en": "this script took {seconds} s", "ja": "このスクリプトの実行時間: {seconds} 秒"},
    # --- a training or decoding result's own figures ---
    "wreport.per_forward": {"en": " ms per forward (", "ja": "フォワード 1 回 "},
    "wreport.per_step": {"en": " ms per {workload} step (", "ja": "{workload}ステップ 1 回 "},
    "wreport.workload.train": {"en": "train", "ja": "学習"},
    "wreport.workload.decode": {"en": "decode", "ja": "デコード"},
    "wreport.kv_cache": {
        "en": ", KV cache {kv_heads} heads x {kv_len}",
        "ja": "、KV キャッシュ: ヘッド {kv_heads} x 長さ {kv_len}",
    },
    "wreport.train_step": {
        "en": "  training step: forward {fwd_ms} ms + backward {bwd_ms} ms (backward/forward {ratio}); kept for the "
        "backward {saved} MiB; gradient error {error}",
        "ja": "  学習ステップ: フォワード {fwd_ms} ms + バックワード {bwd_ms} ms (バックワード/フォワード {ratio})、"
        "バックワード用に保持 {saved} MiB、勾配の誤差 {error}",
    },
    "wreport.decode_step": {
        "en": "  decoding step: {mib} MiB moved at {gbs} GB/s{ceiling}",
        "ja": "  デコードステップ: {mib} MiB を {gbs} GB/s で転送{ceiling}",
    },
    "wreport.read_ceiling": {"en": ", {pct}% of {gbs} GB/s", "ja": " ({gbs} GB/s の {pct}%)"},
    "wreport.graph": {
        "en": "  CUDA graph: CPU {eager_cpu} -> {graph_cpu} us, wall {eager_wall} -> {graph_wall} us, GPU "
        "{eager_gpu} -> {graph_gpu} us",
        "ja": "  CUDA グラフ: CPU {eager_cpu} -> {graph_cpu} us、経過時間 {eager_wall} -> {graph_wall} us、GPU "
        "{eager_gpu} -> {graph_gpu} us",
    },
    "wreport.graph_not_captured": {
        "en": "  CUDA graph: not captured ({status}): {reason}",
        "ja": "  CUDA グラフ: キャプチャされませんでした ({status}): {reason}",
    },
    # --- the CUDA-graph lines of the decoding script ---
    "wreport.graph_row": {
        "en": "{variant} at KV cache {kv_len}: CPU {eager_cpu} -> {graph_cpu} us, wall {eager_wall} -> {graph_wall} "
        "us, GPU {eager_gpu} -> {graph_gpu} us",
        "ja": "{variant} (KV キャッシュ {kv_len}): CPU {eager_cpu} -> {graph_cpu} us、経過時間 {eager_wall} -> "
        "{graph_wall} us、GPU {eager_gpu} -> {graph_gpu} us",
    },
    "wreport.graph_row_missing": {
        "en": "{variant}: no CUDA graph ({status}): {reason}",
        "ja": "{variant}: CUDA グラフなし ({status}): {reason}",
    },
    # --- the training table ---
    "wreport.col.variant": {"en": "variant", "ja": "バリアント"},
    "wreport.col.seq": {"en": "seq", "ja": "シーケンス長"},
    "wreport.col.step_ms": {"en": "step ms", "ja": "ステップ ms"},
    "wreport.col.fwd_ms": {"en": "fwd ms", "ja": "フォワード ms"},
    "wreport.col.bwd_ms": {"en": "bwd ms", "ja": "バックワード ms"},
    "wreport.col.bwd_over_fwd": {"en": "bwd/fwd", "ja": "バックワード/フォワード"},
    "wreport.col.tflops": {"en": "TFLOP/s", "ja": "TFLOP/s"},
    "wreport.col.peak_mib": {"en": "peak MiB", "ja": "ピーク MiB"},
    "wreport.col.bwd_main": {"en": "main bwd kernel", "ja": "バックワードの主カーネル"},
    # --- the decoding table ---
    "wreport.col.kv_len": {"en": "KV len", "ja": "KV キャッシュ長"},
    "wreport.col.gbs": {"en": "GB/s", "ja": "GB/s"},
    "wreport.col.read_share": {"en": "of read", "ja": "読み出し帯域比"},
    "wreport.col.issue_us": {"en": "issue us", "ja": "発行 us"},
    "wreport.col.kernels": {"en": "kernels", "ja": "カーネル数"},
    "wreport.col.decoded": {"en": "decoded", "ja": "カーネル (デコード済み)"},
    "wreport.cpu_bound": {"en": " (CPU-bound)", "ja": " (CPU 律速)"},
    # --- context parallelism ---
    "wreport.par.plan": {
        "en": "sequence lengths {seqs}, rotation methods {methods}, backend {backend}",
        "ja": "シーケンス長 {seqs}、回転方式 {methods}、バックエンド {backend}",
    },
    "wreport.par.plan_shape": {
        "en": "[batch, heads, S, head_dim] = [{batch}, {heads}, S, {head_dim}], {dtype}",
        "ja": "[バッチ, ヘッド, S, head_dim] = [{batch}, {heads}, S, {head_dim}]、{dtype}",
    },
    "wreport.par.ran": {
        "en": "{world} ranks ran in {seconds} s",
        "ja": "ランク {world} 個が {seconds} 秒で実行されました",
    },
    "wreport.par.needs_gpus": {
        "en": "context parallelism needs 2 or more CUDA GPUs, so nothing ran here ({status}): {reason}",
        "ja": "コンテキスト並列には CUDA GPU が 2 基以上必要なため、この環境では何も実行しませんでした ({status}): "
        "{reason}",
    },
    "wreport.par.nothing_ran": {
        "en": "nothing ran ({status}): {reason}",
        "ja": "何も実行されませんでした ({status}): {reason}",
    },
    "wreport.par.not_measured": {
        "en": "context parallelism not measured ({status}): {reason}",
        "ja": "コンテキスト並列は計測されていません ({status}): {reason}",
    },
    "wreport.par.how_to_run": {
        "en": "on a machine with 2 or more GPUs: {torchrun}\n  or: {plain}",
        "ja": "GPU が 2 基以上あるマシンで実行します: {torchrun}\n  または: {plain}",
    },
    "wreport.par.head": {
        "en": "{world} x {gpus}, NCCL {nccl}, {launcher}; run took {seconds} s",
        "ja": "{world} x {gpus}、NCCL {nccl}、{launcher}、実行時間 {seconds} 秒",
    },
    "wreport.col.method": {"en": "method", "ja": "回転方式"},
    "wreport.col.status": {"en": "status", "ja": "状態"},
    "wreport.col.single_ms": {"en": "1 GPU ms", "ja": "GPU 1 基 ms"},
    "wreport.col.world_ms": {"en": "{world} GPUs ms", "ja": "GPU {world} 基 ms"},
    "wreport.col.speedup": {"en": "speed-up", "ja": "高速化率"},
    "wreport.col.comm_share": {"en": "NCCL share", "ja": "NCCL の割合"},
    "wreport.col.overlap": {"en": "overlapped", "ja": "計算との重なり"},
    "wreport.col.balance": {"en": "balance", "ja": "負荷の均衡"},
    "wreport.col.error": {"en": "error vs 1 GPU", "ja": "GPU 1 基との誤差"},
    "wreport.rank.title": {"en": "{method}, seq {seq}", "ja": "{method}、シーケンス長 {seq}"},
    "wreport.col.rank": {"en": "rank", "ja": "ランク"},
    "wreport.col.attention_us": {"en": "attention us", "ja": "アテンション us"},
    "wreport.col.comm_us": {"en": "NCCL us", "ja": "NCCL us"},
    "wreport.col.other_us": {"en": "other us", "ja": "その他 us"},
    "wreport.col.idle_us": {"en": "idle us", "ja": "GPU の空き us"},
    "wreport.col.span_us": {"en": "GPU span us", "ja": "GPU 区間 us"},
    "wreport.chunk": {
        "en": "rank {rank}, chunk {position}: {kernel}, grid {grid}, {us} us",
        "ja": "ランク {rank}、チャンク {position}: {kernel}、グリッド {grid}、{us} us",
    },
}
