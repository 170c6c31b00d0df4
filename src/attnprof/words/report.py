"""Words of the plain-text reports (the CLI, the printed output of the gallery scripts) and of the gallery pages.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up. Keys ``report.*`` are the
terminal tables and lines of :mod:`attnprof.render.report`; ``gallery.*`` the lines the extension adds to the gallery
pages. Column headers are short (a terminal is narrow); the Japanese follows the glossary (docs/guide/glossary.md).
"""

from __future__ import annotations

REPORT: dict[str, dict[str, str]] = {
    # --- what a script runs on, and its check ---
    "report.setup": {"en": "running: {setup}", "ja": "実行: {setup}"},
    "report.setup_desc": {"en": "{shape} {dtype} on {device}", "ja": "{shape} {dtype}、{device} 上"},
    "report.cpu_fallback": {
        "en": "no CUDA device: CPU run with a small shape; there are no GPU kernels to see and the times describe "
        "the CPU",
        "ja": "CUDA デバイスがないため、小さな形状で CPU 上で実行します。GPU カーネルはなく、時間は CPU のものです",
    },
    "report.rel_error": {"en": "relative error against float64: {error}", "ja": "float64 との相対誤差: {error}"},
    "report.refused": {"en": "cannot run here: {reason}", "ja": "この環境では実行できません: {reason}"},
    "report.trace_saved": {
        "en": "trace: {path} (open it in https://ui.perfetto.dev or chrome://tracing)",
        "ja": "トレース: {path} (https://ui.perfetto.dev や chrome://tracing で開けます)",
    },
    "report.no_trace": {
        "en": "no trace: the call could not run here",
        "ja": "トレースなし: この環境では呼び出しを実行できませんでした",
    },
    "report.first_look": {
        "en": "the profiler's own summary of the active steps, sorted by {column}:",
        "ja": "アクティブステップについてのプロファイラ自身の集計 ({column} の順):",
    },
    # --- the kernel table ---
    "report.col.kernel": {"en": "kernel", "ja": "カーネル"},
    "report.col.family": {"en": "family", "ja": "種類"},
    "report.col.per_step": {"en": "per step", "ja": "ステップあたり"},
    "report.col.avg_us": {"en": "avg us", "ja": "平均 us"},
    "report.col.launch_api": {"en": "launch API", "ja": "起動 API"},
    "report.col.regs": {"en": "regs", "ja": "レジスタ"},
    "report.col.smem": {"en": "smem B", "ja": "共有メモリ B"},
    "report.col.grid_block": {"en": "grid / block", "ja": "グリッド / ブロック"},
    "report.col.reported_occ": {"en": "reported occ", "ja": "報告された占有率"},
    "report.col.theoretical_occ": {"en": "theoretical occ", "ja": "理論占有率"},
    "report.not_run": {"en": "{variant}: {status} - {reason}", "ja": "{variant}: {status} - {reason}"},
    "report.no_gpu_activity": {
        "en": "{variant}: no GPU activity recorded (device: {device})",
        "ja": "{variant}: GPU アクティビティは記録されていません (デバイス: {device})",
    },
    # --- the summary ---
    "report.could_not_run": {
        "en": "  could not run ({status}): {reason}",
        "ja": "  実行できません ({status}): {reason}",
    },
    "report.per_step": {
        "en": "  per step: {activities} GPU activities ({kernels} kernels), CPU time per profiled step {cpu_us} us "
        "(median of {steps})",
        "ja": "  ステップあたり: GPU アクティビティ {activities} 個 (カーネル {kernels} 個)、"
        "プロファイル下のステップあたり CPU 時間 {cpu_us} us ({steps} ステップの中央値)",
    },
    "report.without_profiler": {
        "en": "  without profiler: {ms} ms per forward (median of {reps}, 95% CI {lo}-{hi}, {timer}{flag}), "
        "dispatch cost {dispatch_us} us (median), {tflops} TFLOP/s, peak extra {peak}, rel. error {error}",
        "ja": "  プロファイラなし: フォワード 1 回 {ms} ms (中央値、{reps} 回、95% 信頼区間 {lo}-{hi}、"
        "{timer}{flag})、ディスパッチコスト {dispatch_us} us (中央値)、{tflops} TFLOP/s、"
        "追加メモリのピーク {peak}、相対誤差 {error}",
    },
    "report.unstable_flag": {
        "en": ", UNSTABLE: samples spread more than 10% after a retry",
        "ja": "、不安定: 再計測後もサンプルのばらつきが 10% を超える",
    },
    "report.reference_check": {
        "en": "  reference check {check}: {reason}",
        "ja": "  float64 参照との照合 ({check}): {reason}",
    },
    "report.timer.cuda": {"en": "CUDA events", "ja": "CUDA イベント"},
    "report.timer.cpu": {"en": "perf_counter", "ja": "perf_counter"},
    "report.na": {"en": "n/a", "ja": "なし"},
    # --- the comparison table ---
    "report.col.variant": {"en": "variant", "ja": "バリアント"},
    "report.col.status": {"en": "status", "ja": "状態"},
    "report.col.acts_per_step": {"en": "GPU acts/step", "ja": "GPU アクティビティ/ステップ"},
    "report.col.kernels_per_step": {"en": "kernels/step", "ja": "カーネル/ステップ"},
    "report.col.device_time": {"en": "{device} {unit}", "ja": "{device} {unit}"},
    "report.col.cpu_us_prof": {"en": "CPU us/prof. step", "ja": "CPU us/プロファイル下ステップ"},
    "report.col.dispatch_us": {"en": "dispatch us", "ja": "ディスパッチ us"},
    "report.col.tflops": {"en": "TFLOP/s", "ja": "TFLOP/s"},
    "report.col.peak_mib": {"en": "peak MiB", "ja": "ピーク MiB"},
    "report.col.main_kernel": {"en": "main kernel", "ja": "主カーネル"},
    # --- sweeps ---
    "report.sweep.gpu_ms": {"en": "time per forward, median (ms)", "ja": "フォワード 1 回の時間、中央値 (ms)"},
    "report.sweep.tflops": {"en": "achieved TFLOP/s (causal FLOPs)", "ja": "達成 TFLOP/s (因果 FLOPs)"},
    "report.sweep.peak_mib": {"en": "peak extra device memory (MiB)", "ja": "追加デバイスメモリのピーク (MiB)"},
    "report.sweep.dispatch_us": {
        "en": "CPU time to issue one call, median (us)",
        "ja": "呼び出し 1 回の発行にかかる CPU 時間、中央値 (us)",
    },
    "report.short.oom": {"en": "OOM", "ja": "メモリ不足"},
    "report.short.unsupported": {"en": "unsupported", "ja": "非対応"},
    "report.short.no_cuda": {"en": "no CUDA", "ja": "CUDA なし"},
    "report.short.error": {"en": "error", "ja": "エラー"},
    "report.short.skipped": {"en": "skipped", "ja": "省略"},
    "report.sweep.title": {
        "en": "head_dim {head_dim}: {metric}, batch {batch}, {heads} heads, {dtype} on {device}",
        "ja": "head_dim {head_dim}: {metric}、バッチ {batch}、ヘッド {heads}、{dtype}、{device} 上",
    },
    "report.sweep.why": {"en": "why some points have no number:", "ja": "数値のない点の理由:"},
    "report.sweep.more": {"en": " and {n} more", "ja": " ほか {n} 点"},
    "report.sweep.head": {
        "en": "sweep on {device}: {points} points in {seconds} s (timer: {timer}; {completion})",
        "ja": "{device} でのスイープ: {points} 点、{seconds} 秒 (タイマー: {timer}、{completion})",
    },
    "report.sweep.complete": {"en": "complete", "ja": "全点完了"},
    "report.sweep.incomplete": {"en": "time budget ran out", "ja": "時間予算切れ"},
    "report.sweep.ceilings": {
        "en": "ceilings: bf16 matmul {tflops} TFLOP/s ({n}^3), copy bandwidth {gbs} GB/s (read + write), ridge "
        "point {ridge} FLOP/byte",
        "ja": "上限: bf16 行列積 {tflops} TFLOP/s ({n}^3)、コピー帯域 {gbs} GB/s (読み出し + 書き込み)、リッジ"
        "ポイント {ridge} FLOP/byte",
    },
    "report.sweep.pick_missing": {
        "en": "SDPA's pick at {where}: sdpa_auto did not run",
        "ja": "{where} での SDPA の選択: sdpa_auto は実行されませんでした",
    },
    "report.sweep.pick": {
        "en": "SDPA's pick at {where}: {pick} ({verdict}); fastest variant: {fastest}",
        "ja": "{where} での SDPA の選択: {pick} ({verdict})、最速のバリアント: {fastest}",
    },
    "report.sweep.pick_fastest": {"en": "the fastest backend", "ja": "最速のバックエンド"},
    "report.sweep.pick_slower": {"en": "fastest backend is {backend}", "ja": "最速のバックエンドは {backend}"},
    "report.sweep.pick_slowdown": {"en": " (SDPA's call {margin})", "ja": " (SDPA の呼び出しは {margin})"},
    "report.sweep.pick_tie": {
        "en": "too close to call with {backend}",
        "ja": "{backend} と僅差で判定できない",
    },
    "report.sweep.pick_tie_slowdown": {
        "en": " (SDPA's call {margin}, within the noise)",
        "ja": " (SDPA の呼び出しは {margin}、ノイズの範囲内)",
    },
    "report.sweep.unstable": {
        "en": "unstable: {point}: timed calls spread {p10}-{p90} ms (10th-90th percentile) after {attempts} "
        "measurements",
        "ja": "不安定: {point}: {attempts} 回計測しても、計測した呼び出しが {p10}-{p90} ms (10〜90 パーセンタイル) "
        "にばらつく",
    },
    "report.sweep.cpu_bound": {
        "en": "CPU-bound points (issuing the call takes longer than the GPU runs it):",
        "ja": "CPU 律速の点 (呼び出しの発行に、GPU での実行より長くかかる):",
    },
    "report.sweep.cpu_bound_point": {
        "en": "  {point}: dispatch {dispatch_us} us > GPU {gpu_us} us",
        "ja": "  {point}: ディスパッチコスト {dispatch_us} us > GPU {gpu_us} us",
    },
    "report.sweep.no_cpu_bound": {
        "en": "no CPU-bound point: every call ran longer on the GPU than it took to issue",
        "ja": "CPU 律速の点はありません: どの呼び出しも、発行にかかった時間より GPU での実行のほうが長くかかりました",
    },
    "report.sweep.cpu_note": {
        "en": "A sweep on the CPU (batch {batch}, {heads} heads, {dtype}, seq {seqs}, head_dim {head_dims}). Times "
        "are the CPU's wall-clock times and say nothing about a GPU; there is no memory counter, no ceiling to "
        "compare with, and no CPU-bound region (the CPU does all the work).",
        "ja": "CPU 上のスイープです (バッチ {batch}、ヘッド {heads}、{dtype}、seq {seqs}、head_dim {head_dims})。"
        "時間は CPU の経過時間で、GPU については何も語りません。メモリのカウンタも、比べる上限もなく、"
        "CPU 律速の領域もありません (すべての仕事を CPU がします)。",
    },
    "report.sweep.plan": {
        "en": "device: {device}; variants: {variants}",
        "ja": "デバイス: {device}、バリアント: {variants}",
    },
    "report.sweep.plan_shapes": {
        "en": "seq: {seqs}; head_dim: {head_dims}; batch {batch}, {heads} heads, {dtype}",
        "ja": "seq: {seqs}、head_dim: {head_dims}、バッチ {batch}、ヘッド {heads}、{dtype}",
    },
    "report.sweep.plan_compiled": {
        "en": "compiled variants at seq {seqs} only",
        "ja": "コンパイルするバリアントは seq {seqs} のみ",
    },
    "report.ceilings": {
        "en": "matmul: {tflops} TFLOP/s; copy: {gbs} GB/s; they meet at {ridge} FLOP/byte",
        "ja": "行列積: {tflops} TFLOP/s、コピー: {gbs} GB/s、両者は {ridge} FLOP/byte で交わります",
    },
    "report.no_ceilings": {"en": "no ceilings on the CPU", "ja": "CPU には上限の計測はありません"},
    "report.sweep.saved": {
        "en": "{points} points in {seconds} s, saved to {name}",
        "ja": "{points} 点を {seconds} 秒で計測し、{name} に保存しました",
    },
    "report.one_point": {
        "en": "one call at seq {seq}, timed by hand: {ms} ms ({timer}, median of {reps})",
        "ja": "seq {seq} での呼び出し 1 回を手で計測: {ms} ms ({timer}、{reps} 回の中央値)",
    },
    # --- CPU cost per call ---
    "report.cpu.rounds": {
        "en": "{rounds} interleaved rounds on {device} (medians of the rounds' medians, 95% CI over the rounds in "
        "brackets)",
        "ja": "{device} で {rounds} ラウンドを交互に計測 (各ラウンドの中央値の中央値。括弧内はラウンド間の "
        "95% 信頼区間)",
    },
    "report.col.profiled_us": {"en": "profiled CPU us", "ja": "プロファイル下の CPU us"},
    "report.col.profiler_share": {"en": "profiler share", "ja": "プロファイラの割合"},
    "report.col.samples": {"en": "samples", "ja": "サンプル"},
    "report.calls": {"en": "{profiled} / {unprofiled} calls", "ja": "{profiled} / {unprofiled} 回"},
    "report.cpu.by_hand": {
        "en": "{variant}, one call: {without_us} us without the profiler, {with_us} us inside its annotation with "
        "the profiler recording",
        "ja": "{variant} の呼び出し 1 回: プロファイラなしで {without_us} us、"
        "プロファイラの記録中はアノテーション内で {with_us} us",
    },
    # --- the gallery pages ---
    "gallery.install": {
        "en": "Run it yourself: download {wheel} (this site's build of attnprof), install it with {command}, "
        "then run {run} (the downloads are at the end of the page).",
        "ja": "自分で実行するには: {wheel} (このサイトがビルドした attnprof) をダウンロードして {command} "
        "でインストールし、{run} を実行します (ダウンロードはページ末尾にあります)。",
    },
    "gallery.install_index": {
        "en": "Run them yourself: download {wheel} (this site's build of attnprof), install it with {command}, "
        "then download a script (or its notebook) from its page and run it with {run}.",
        "ja": "自分で実行するには: {wheel} (このサイトがビルドした attnprof) をダウンロードして {command} "
        "でインストールし、各ページからスクリプト (またはノートブック) をダウンロードして {run} で実行します。",
    },
}
