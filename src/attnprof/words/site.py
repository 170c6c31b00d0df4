"""Words the site's pages get from the extension: column headers, statuses, the banner, timelines, scaling.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

SITE: dict[str, dict[str, str]] = {
    # --- kernel-table columns ---
    "col.kernel": {"en": "Kernel", "ja": "カーネル"},
    "col.family": {"en": "Family", "ja": "種類"},
    "col.per_step": {"en": "Launches per step", "ja": "ステップあたり起動数"},
    "col.avg_us": {"en": "Avg. time (µs)", "ja": "平均時間 (µs)"},
    "col.launch_api": {"en": "Launch API", "ja": "起動 API"},
    "col.registers": {"en": "Registers per thread", "ja": "スレッドあたりレジスタ数"},
    "col.shared_memory": {"en": "Shared memory per block", "ja": "ブロックあたり共有メモリ"},
    "col.grid_block": {"en": "Grid × block", "ja": "グリッド × ブロック"},
    "col.reported_occupancy": {"en": "Reported occupancy", "ja": "報告された占有率"},
    "col.theoretical_occupancy": {"en": "Theoretical occupancy (limit)", "ja": "理論占有率 (制約)"},
    # --- why a point of a sweep or a grid was not run: recorded in English by the measuring code, shown in the
    # page's language (attnprof.words.reason) ---
    "reason.oom_at": {"en": "skipped: out of memory at seq {seq}", "ja": "省略: 系列長 {seq} でメモリ不足"},
    "reason.budget_spent": {
        "en": "skipped: the time budget of {budget} s was spent",
        "ja": "省略: 時間予算 {budget} 秒を使い切りました",
    },
    "reason.budget_ran_out": {
        "en": "skipped: the time budget of {budget} s ran out during this point ({calls} calls made)",
        "ja": "省略: この点の計測中に時間予算 {budget} 秒が尽きました (呼び出し {calls} 回)",
    },
    "reason.time_budget": {"en": "skipped: time budget spent", "ja": "省略: 時間予算を使い切りました"},
    # --- a time against another (attnprof.words.times) ---
    "ratio.slower": {"en": "{ratio}× slower", "ja": "{ratio} 倍遅い"},
    "ratio.faster": {"en": "{ratio}× faster", "ja": "{ratio} 倍速い"},
    "ratio.same": {"en": "as fast", "ja": "同じ速さ"},
    # --- every table wider than its box: the line above it (_static/attnprof-tables.js) ---
    "table.scrolls": {"en": "Scroll sideways for more columns →", "ja": "残りの列は横にスクロールすると見えます →"},
    # --- compare-table columns ---
    "col.variant": {"en": "Variant", "ja": "バリアント"},
    "col.activities_per_step": {"en": "GPU activities per step", "ja": "ステップあたり GPU アクティビティ数"},
    "col.kernels_per_step": {"en": "Kernels per step", "ja": "ステップあたりカーネル数"},
    "col.gpu_ms": {"en": "GPU time per forward (median, ms)", "ja": "フォワード 1 回の GPU 時間 (中央値, ms)"},
    # One label, one definition (defined on the methodology page): a figure of the variant's own run, and the same
    # kind of figure from the side-by-side measurement, carry different labels.
    "col.cpu_step_us": {
        "en": "CPU time per profiled step (median, µs)",
        "ja": "プロファイル下のステップあたり CPU 時間 (中央値, µs)",
    },
    "col.dispatch_us": {"en": "Dispatch cost (median, µs)", "ja": "ディスパッチコスト (中央値, µs)"},
    "col.context_own_us": {"en": "Context alone (median, µs)", "ja": "強制コンテキストのみ (中央値, µs)"},
    "col.profiled_side_us": {
        "en": "Profiled CPU time per call, side by side (µs)",
        "ja": "横並び計測: プロファイル下の呼び出しあたり CPU 時間 (µs)",
    },
    "col.dispatch_side_us": {"en": "Dispatch cost, side by side (µs)", "ja": "横並び計測: ディスパッチコスト (µs)"},
    "col.cpu_ms": {"en": "CPU time per forward (median, ms)", "ja": "フォワード 1 回の CPU 時間 (中央値, ms)"},
    "col.tflops": {"en": "TFLOP/s", "ja": "TFLOP/s"},
    "col.peak_mib": {"en": "Peak extra memory (MiB)", "ja": "追加メモリのピーク (MiB)"},
    "col.main_kernel": {"en": "Main kernel", "ja": "主カーネル"},
    "col.cpu_events": {"en": "CPU events per step", "ja": "ステップあたり CPU イベント数"},
    "col.profiler_share": {"en": "Added by the profiler", "ja": "プロファイラによる増分"},
    "col.context_side_us": {
        "en": "Context alone, side by side (µs)",
        "ja": "横並び計測: 強制コンテキストのみ (µs)",
    },
    "col.reveals": {"en": "What the trace reveals", "ja": "トレースからわかること"},
    "reveals.no_gpu": {
        "en": "This build has no GPU trace of this variant to read.",
        "ja": "このビルドには、読み解けるこのバリアントの GPU トレースがありません。",
    },
    # --- claims table ---
    "col.claim": {"en": "Claim", "ja": "主張"},
    "col.published": {"en": "Published (A100)", "ja": "公表値 (A100)"},
    "col.statement": {"en": "The claim in brief", "ja": "主張の要旨"},
    "col.measured": {"en": "This build", "ja": "このビルド"},
    "col.verdict": {"en": "Verdict", "ja": "判定"},
    "verdict.holds": {"en": "holds", "ja": "成立"},
    "verdict.differs": {"en": "differs", "ja": "相違"},
    "verdict.tie": {"en": "too close to call on this build", "ja": "僅差で判定できない"},
    "verdict.unmeasurable": {"en": "not measurable here", "ja": "この環境では測定不可"},
    # --- occupancy tables ---
    "col.blocks_per_sm": {"en": "Grid blocks per SM", "ja": "SM あたりのグリッドブロック数"},
    "col.theoretical": {"en": "Theoretical occupancy", "ja": "理論占有率"},
    "col.limiter": {"en": "Limited by", "ja": "制約要因"},
    "col.hypothesis": {"en": "Explanation", "ja": "説明"},
    "col.predicted": {"en": "Predicted at 0%", "ja": "0% と予測"},
    "col.consistent": {"en": "Predicted and 0%", "ja": "予測どおり 0%"},
    "col.counterexamples": {"en": "Counterexamples", "ja": "反例"},
    "col.missed": {"en": "0% but not predicted", "ja": "予測されなかった 0%"},
    "hyp.H1": {
        "en": "launched through the driver API (cuLaunchKernel*)",
        "ja": "ドライバ API (cuLaunchKernel*) 経由で起動された",
    },
    "hyp.H2": {
        "en": "more shared memory per block than the default per-block limit (sharedMemPerBlock, 48 KiB)",
        "ja": "ブロックあたりの共有メモリが既定の上限 (sharedMemPerBlock、48 KiB) を超える",
    },
    "hyp.H3": {
        "en": "fewer blocks in the grid than SMs (blocks per SM below 1)",
        "ja": "グリッドのブロック数が SM 数より少ない (SM あたりブロック数が 1 未満)",
    },
    "hyp.or": {"en": ", or ", "ja": "、または"},
    "hyp.and": {"en": " and ", "ja": " と "},
    "hyp.list_sep": {"en": ", ", "ja": "、"},
    "hyp.sentence_sep": {"en": " ", "ja": ""},
    "hyp.verdict.explains": {"en": "explains every 0%", "ja": "すべての 0% を説明"},
    "hyp.verdict.incomplete": {"en": "incomplete", "ja": "不完全"},
    "hyp.verdict.refuted": {"en": "refuted", "ja": "反証"},
    "hyp.verdict.untested": {"en": "untested", "ja": "未検証"},
    "hyp.against": {"en": "{kernel} against {hypothesis}", "ja": "{kernel} ({hypothesis} への反例)"},
    "hyp.line.supported": {
        "en": "The data support {hypothesis}: of {n} kernels, it predicts all {zeros} that report 0%, and every "
        "kernel it predicts does.",
        "ja": "データは {hypothesis} を支持します: {n} 個のカーネルのうち 0% と報告された {zeros} 個をすべて予測し、"
        "予測したカーネルはすべて 0% です。",
    },
    "hyp.line.tie": {
        "en": "The data cannot decide between {hypotheses}: of {n} kernels, each predicts all {zeros} that report "
        "0%, and every kernel it predicts does.",
        "ja": "データからは {hypotheses} のどれかを決められません: いずれも {n} 個のカーネルのうち 0% と報告された "
        "{zeros} 個をすべて予測し、予測したカーネルはすべて 0% です。",
    },
    "hyp.line.none": {
        "en": "No tested explanation predicts all {zeros} of the {n} kernels that report 0% without a "
        "counterexample.",
        "ja": "{n} 個のカーネルのうち 0% と報告された {zeros} 個を、反例なしにすべて予測する説明はありません。",
    },
    "hyp.line.no_zero": {
        "en": "None of the {n} kernels of this build reports 0%: there is nothing to explain.",
        "ja": "このビルドの {n} 個のカーネルに 0% と報告されたものはなく、説明すべきことはありません。",
    },
    "hyp.line.counterexamples": {"en": "Counterexamples: {items}.", "ja": "反例: {items}。"},
    "occupancy.none": {"en": "none", "ja": "なし"},
    "occupancy.no_kernels": {
        "en": "This build recorded no GPU kernels, so there is no occupancy to compare.",
        "ja": "このビルドには GPU カーネルの記録がないため、比較できる占有率はありません。",
    },
    # --- status words (a result that could not run) ---
    "status.ok": {"en": "measured", "ja": "計測済み"},
    "status.unsupported": {"en": "not supported here", "ja": "この環境では非対応"},
    "status.no_cuda": {"en": "no CUDA device", "ja": "CUDA デバイスなし"},
    "status.oom": {"en": "out of memory", "ja": "メモリ不足"},
    "status.error": {"en": "failed", "ja": "失敗"},
    "status.missing": {"en": "no result", "ja": "結果なし"},
    "status.not_run": {
        "en": "{variant} did not run ({status}): {reason}",
        "ja": "{variant} は実行されませんでした ({status}): {reason}",
    },
    "status.runs_on": {"en": " ({variant} runs on: {devices})", "ja": " ({variant} の実行環境: {devices})"},
    "status.no_gpu_activity": {
        "en": "{variant} ran on {device} ({shape}, {dtype}); the trace holds no GPU activity to tabulate.",
        "ja": "{variant} は {device} で実行されました ({shape}, {dtype})。"
        "トレースに表にできる GPU アクティビティはありません。",
    },
    "not_available": {"en": "n/a", "ja": "—"},
    "metric.time.cuda": {"en": "{value} on the GPU", "ja": "GPU で {value}"},
    "rank.fastest": {"en": "{a} ({a_ms})", "ja": "{a} ({a_ms})"},
    "rank.tie": {
        "en": "{a} ({a_ms}) or {b} ({b_ms}), too close to call",
        "ja": "{a} ({a_ms}) か {b} ({b_ms}) (僅差で判定できない)",
    },
    "rank.unmeasurable": {"en": "not measurable in this build", "ja": "このビルドでは測定不可"},
    "metric.time.cpu": {"en": "{value} on the CPU", "ja": "CPU で {value}"},
    # --- occupancy limiters ---
    "limiter.registers": {"en": "registers", "ja": "レジスタ"},
    "limiter.shared memory": {"en": "shared memory", "ja": "共有メモリ"},
    "limiter.threads": {"en": "threads", "ja": "スレッド数"},
    "limiter.blocks per SM": {"en": "blocks per SM", "ja": "SM あたりブロック数"},
    "limiter.grid": {"en": "the grid", "ja": "グリッド"},
    "limiter.and": {"en": " and ", "ja": "と"},
    "limiter.sep": {"en": ", ", "ja": "、"},
    # --- timeline ---
    "timeline.download": {"en": "Download the raw trace", "ja": "元のトレースをダウンロード"},
    "cpu_costs.interleaved": {
        "en": "CPU figures at shape {shape}, {dtype} (they depend on it): medians of {rounds} rounds in which every "
        "backend above was measured in turn, so that they share the machine's conditions, each with the 95% "
        "confidence interval of that median over the rounds in brackets; CPU events per step come from each "
        "backend's own profiled run.",
        "ja": "CPU の数値 (形状 {shape}、{dtype} での値で、形状によって変わります): 上のバックエンドを順番に計測する"
        "周回を {rounds} 回繰り返した中央値です (全バックエンドが同じマシン状態で計測されます)。括弧内は周回に"
        "わたる中央値の 95% 信頼区間です。ステップあたりの CPU イベント数は各バックエンド自身のプロファイル実行から"
        "取っています。",
    },
    "cpu_costs.own_runs": {
        "en": "This build has no side-by-side measurement: CPU figures come from each backend's own run, measured "
        "minutes apart, so differences between the rows may be drift of the machine rather than of the backends.",
        "ja": "このビルドには横並び計測がないため、CPU の数値は各バックエンド自身の実行 (数分の間隔をおいた計測) "
        "から取っています。行の間の差は、バックエンドの差ではなくマシンの状態の揺れかもしれません。",
    },
    "figure.band": {"en": "{median} ({lo}–{hi})", "ja": "{median} ({lo}–{hi})"},
    # --- kernel rows of one name with several launch configurations ---
    "kernel.configs": {
        "en": "launched with {n} configurations: one row each",
        "ja": "{n} 通りの起動構成で起動 (構成ごとに 1 行)",
    },
    "timeline.row.cpu": {"en": "CPU, depth {depth}", "ja": "CPU (深さ {depth})"},
    "timeline.row.runtime": {"en": "CUDA runtime / driver", "ja": "CUDA ランタイム / ドライバ"},
    "timeline.row.stream": {"en": "GPU stream {stream}", "ja": "GPU ストリーム {stream}"},
    "timeline.step": {"en": "step {step}", "ja": "ステップ {step}"},
    "timeline.xlabel": {
        "en": "µs since the annotated call started on the CPU",
        "ja": "アノテーション付きの呼び出しが CPU で始まってからの時間 (µs)",
    },
    "timeline.legend.cpu": {"en": "CPU op", "ja": "CPU 演算"},
    "timeline.no_steps": {"en": "no steps recorded", "ja": "ステップの記録なし"},
    "timeline.summary": {
        "en": "Timeline of {variant}, profiler step {step}: {activities} GPU activities ({kernels} kernels) on "
        "{streams} stream(s) and {events} CPU events; the annotated call took {cpu} µs on the CPU and its GPU work "
        "{gpu} µs.",
        "ja": "{variant} のタイムライン (プロファイラのステップ {step}): {streams} 本のストリーム上の "
        "GPU アクティビティ {activities} 個 (うちカーネル {kernels} 個) と CPU イベント {events} 個。"
        "アノテーション付きの呼び出しは CPU で {cpu} µs、その GPU の作業は {gpu} µs でした。",
    },
    "timeline.summary_cpu": {
        "en": "Timeline of {variant}, profiler step {step}: {events} CPU events and no GPU activity (run on "
        "{device}); the annotated call took {cpu} µs.",
        "ja": "{variant} のタイムライン (プロファイラのステップ {step}): CPU イベント {events} 個、GPU アクティビティ"
        "なし ({device} で実行)。アノテーション付きの呼び出しは {cpu} µs でした。",
    },
    "timeline.legend.runtime": {"en": "runtime / driver call", "ja": "ランタイム / ドライバ呼び出し"},
    "timeline.open_with": {
        "en": "(open it in Perfetto UI or chrome://tracing)",
        "ja": "(Perfetto UI または chrome://tracing で開けます)",
    },
    # --- provenance banner ---
    "banner.title": {"en": "Where these numbers come from", "ja": "数値の出どころ"},
    "banner.measured_on": {"en": "Measured on {device}", "ja": "計測環境: {device}"},
    "banner.driver": {"en": "driver {value}", "ja": "ドライバ {value}"},
    "banner.cuda": {"en": "CUDA {value}", "ja": "CUDA {value}"},
    "banner.cudnn": {"en": "cuDNN {value}", "ja": "cuDNN {value}"},
    "banner.torch": {"en": "PyTorch {value}", "ja": "PyTorch {value}"},
    "banner.date": {"en": "on {value}", "ja": "計測日 {value}"},
    "banner.variants": {"en": "variants: {value}", "ja": "バリアント: {value}"},
    "banner.no_results": {
        "en": "No measured results were found for this build, so the pages show no live numbers.",
        "ja": "このビルドには計測結果がないため、ページに実測値は表示されません。",
    },
    "banner.cpu_only_title": {"en": "Built without a GPU", "ja": "GPU なしでビルドされたサイト"},
    "banner.cpu_only": {
        "en": "This build ran on a machine without a CUDA GPU, so the GPU-only results could not be measured. "
        "Tables and timelines show small-shape CPU runs where a variant can run on the CPU, and the reason "
        "recorded for the others:",
        "ja": "このビルドは CUDA GPU のないマシンで実行されたため、GPU でしか得られない結果は計測できませんでした。"
        "表とタイムラインは、CPU で実行できるバリアントについては小さな形状での CPU 実行を示し、"
        "それ以外については記録された理由を示します:",
    },
    "banner.reason_item": {"en": "{variants}: {reason}", "ja": "{variants}: {reason}"},
    "device.cpu": {"en": "CPU ({arch}, {cores} cores)", "ja": "CPU ({arch}、{cores} コア)"},
    "banner.get_gpu": {
        "en": "To get the GPU guide, build the site on a machine with a CUDA GPU: run {command} there (see {link}).",
        "ja": "GPU で計測したガイドを得るには、CUDA GPU のあるマシンでサイトをビルドしてください。そのマシンで "
        "{command} を実行します ({link} を参照)。",
    },
    # --- scaling: plots, tables, SDPA's pick, roofline ---
    "scaling.axis.seq": {"en": "Sequence length (tokens)", "ja": "シーケンス長 (トークン数)"},
    "scaling.metric.gpu_ms": {
        "en": "GPU time per forward (median, ms)",
        "ja": "フォワード 1 回の GPU 時間 (中央値, ms)",
    },
    "scaling.metric.cpu_ms": {
        "en": "CPU time per forward (median, ms)",
        "ja": "フォワード 1 回の CPU 時間 (中央値, ms)",
    },
    "scaling.metric.tflops": {"en": "Achieved TFLOP/s", "ja": "実効 TFLOP/s"},
    "scaling.metric.peak_mib": {"en": "Peak extra memory (MiB)", "ja": "追加メモリのピーク (MiB)"},
    "scaling.metric.dispatch_us": {
        "en": "CPU time to issue one call (µs)",
        "ja": "1 回の呼び出しを発行する CPU 時間 (µs)",
    },
    "scaling.title": {
        "en": "head_dim {head_dim} · batch {batch} · {heads} heads · {dtype} · {device}",
        "ja": "head_dim {head_dim} · バッチ {batch} · ヘッド {heads} · {dtype} · {device}",
    },
    "scaling.legend.oom": {"en": "out of memory", "ja": "メモリ不足"},
    "scaling.legend.not_run": {"en": "did not run (see the table)", "ja": "実行されず (表を参照)"},
    "scaling.legend.quadratic": {"en": "∝ seq² (reference slope)", "ja": "∝ seq² (傾きの目安)"},
    "scaling.legend.linear": {"en": "∝ seq (reference slope)", "ja": "∝ seq (傾きの目安)"},
    "scaling.no_data": {
        "en": "No measurement of this quantity in this build (the CPU has no device-memory counter).",
        "ja": "このビルドではこの量は計測されていません (CPU にはデバイスメモリのカウンターがありません)。",
    },
    "scaling.summary": {
        "en": "{metric} against sequence length at head_dim {head_dim} for {variants} (points that did not run: "
        "{failed}).",
        "ja": "head_dim {head_dim} における {variants} の {metric} とシーケンス長の関係。{failed} 点は実行されません"
        "でした。",
    },
    "scaling.not_measured": {
        "en": "head_dim {head_dim} is not part of this build’s sweep (measured: {measured}).",
        "ja": "head_dim {head_dim} はこのビルドのスイープに含まれていません (計測済み: {measured})。",
    },
    "scaling.table_title": {"en": "{metric}, head_dim {head_dim}", "ja": "{metric}、head_dim {head_dim}"},
    "scaling.col.seq": {"en": "seq {seq}", "ja": "seq {seq}"},
    "scaling.col.head_dim": {"en": "head_dim", "ja": "head_dim"},
    "scaling.col.seq_plain": {"en": "Sequence length", "ja": "シーケンス長"},
    "scaling.cell.not_planned": {"en": "–", "ja": "–"},
    "scaling.cell.oom_skipped": {"en": "out of memory (not run)", "ja": "メモリ不足 (未実行)"},
    "scaling.cell.skipped": {"en": "skipped (time budget)", "ja": "省略 (時間予算)"},
    "scaling.reasons": {"en": "Why some points have no number:", "ja": "数値のない点の理由:"},
    "scaling.reason_item": {"en": "{variant} at {where}: {reason}", "ja": "{variant} ({where}): {reason}"},
    "scaling.where": {"en": "seq {seqs}", "ja": "seq {seqs}"},
    "scaling.compiled_note": {
        "en": "Compiled variants ({variants}) build a new kernel for every new shape, so the sweep measures them at "
        "seq {seqs} only (– elsewhere).",
        "ja": "{variants} は新しい形状ごとにカーネルをコンパイルするため、seq {seqs} でのみ計測しています (それ以外"
        "は –)。",
    },
    "scaling.ceilings": {
        "en": "Ceilings measured in this build: bf16 matrix multiply ({n}×{n}×{n}) {matmul}; device-memory "
        "bandwidth (copy of {size}, bytes read plus bytes written) {bandwidth}. They meet at {ridge}: below that "
        "many FLOPs per byte, memory bounds the speed; above it, arithmetic does.",
        "ja": "このビルドで計測した上限: bf16 行列積 ({n}×{n}×{n}) {matmul}、デバイスメモリ帯域 ({size} のコピー、読"
        "み出しと書き込みの合計) {bandwidth}。両者は {ridge} で交わります。1 バイトあたりの FLOP 数がこれより少なけ"
        "ればメモリが、多ければ演算が速度を決めます。",
    },
    "scaling.no_ceilings": {
        "en": "No ceilings: this sweep ran on the CPU, where the guide measures no matrix-multiply or memory "
        "ceiling.",
        "ja": "上限なし: このスイープは CPU で実行されており、本ガイドは CPU の行列積やメモリの上限を計測しません。",
    },
    "scaling.col.largest_seq": {"en": "Longest sequence it ran", "ja": "実行できた最長シーケンス"},
    "scaling.col.matmul_fraction": {"en": "Share of the matmul ceiling", "ja": "行列積の上限に対する割合"},
    "scaling.col.intensity": {
        "en": "Arithmetic intensity (FLOP/byte, minimum traffic)",
        "ja": "演算強度 (FLOP/バイト、最小トラフィック)",
    },
    "scaling.col.bandwidth_fraction": {
        "en": "Share of the bandwidth ceiling (minimum traffic)",
        "ja": "帯域の上限に対する割合 (最小トラフィック)",
    },
    "scaling.col.side": {"en": "Side of the ridge", "ja": "交点のどちら側か"},
    "scaling.side.compute": {"en": "compute", "ja": "演算"},
    "scaling.side.memory": {"en": "memory", "ja": "メモリ"},
    "scaling.col.pick": {"en": "SDPA's pick (time, nothing forced)", "ja": "SDPA の選択 (強制なしの時間)"},
    "scaling.col.fastest_backend": {"en": "Fastest SDPA backend", "ja": "最速の SDPA バックエンド"},
    "scaling.col.agrees": {"en": "Same?", "ja": "一致?"},
    "scaling.col.fastest_variant": {"en": "Fastest variant", "ja": "最速のバリアント"},
    "scaling.yes": {"en": "yes", "ja": "はい"},
    "scaling.no_slower": {"en": "no: the pick is {percent} slower", "ja": "いいえ: 選択は {percent} 遅い"},
    "scaling.tie": {
        "en": "too close to call: the pick is {percent} slower, within the noise",
        "ja": "僅差で判定できない: 選択は {percent} 遅いが、ノイズの範囲内",
    },
    "scaling.unstable_mark": {"en": "†", "ja": "†"},
    "scaling.unstable_note": {
        "en": "† Unstable: the timed calls spread by more than 10% (10th to 90th percentile) even when measured a "
        "second time, so the median stands for no single time; read these points with care: {items}.",
        "ja": "† 不安定: 2 回目の計測でも、計時した呼び出しのばらつき (10 パーセンタイルから 90 パーセンタイル) が "
        "10% を超えたため、中央値は 1 つの時間を表していません。これらの点は注意して読んでください: {items}。",
    },
    "scaling.unstable_item": {
        "en": "{variant} at head_dim {head_dim}, seq {seq} ({p10}–{p90})",
        "ja": "{variant} (head_dim {head_dim}、seq {seq}: {p10}–{p90})",
    },
    "scaling.auto_not_run": {"en": "sdpa_auto did not run ({status})", "ja": "sdpa_auto は実行されず ({status})"},
    "scaling.cpu_bound_intro": {
        "en": "CPU-bound points, where issuing the call takes the CPU longer than the GPU needs to run it:",
        "ja": "CPU 律速の点 (呼び出しの発行に CPU がかかる時間が、GPU の実行時間より長い点):",
    },
    "scaling.cpu_bound_item": {
        "en": "{variant}, head_dim {head_dim}, seq {seq}: {dispatch} to issue, {gpu} on the GPU",
        "ja": "{variant}、head_dim {head_dim}、seq {seq}: 発行 {dispatch}、GPU 実行 {gpu}",
    },
    "scaling.cpu_bound_none": {
        "en": "No point was CPU-bound: everywhere the GPU took longer to run the call than the CPU took to issue "
        "it. The closest was {variant} at head_dim {head_dim}, seq {seq}: {dispatch} to issue, {gpu} on the GPU.",
        "ja": "CPU 律速の点はありませんでした。どの点でも GPU の実行時間が CPU の発行時間より長くなっています。最も"
        "近かったのは {variant} (head_dim {head_dim}、seq {seq}) で、発行 {dispatch}、GPU 実行 {gpu} でした。",
    },
    "scaling.cpu_bound_cpu": {
        "en": "This sweep ran on the CPU, which does the work itself: there is no CPU-bound region to find.",
        "ja": "このスイープは CPU で実行されており、CPU 自身が計算するため、CPU 律速の領域は存在しません。",
    },
}
