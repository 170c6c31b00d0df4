"""Words of the context-parallelism page: its tables, its notes, the model on paper, the timeline of the ranks, and
the claims C30–C34 (:mod:`attnprof.records.parallel`, :mod:`attnprof.analysis.parallelmodel`,
:mod:`attnprof.render.ranktimeline`, :mod:`attnprof.sphinxext.parallel`, the parallel block of
:mod:`attnprof.analysis.claims`).

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

PARALLEL: dict[str, dict[str, str]] = {
    # --- statuses and small words ---
    "status.too_few_gpus": {"en": "fewer than two GPUs", "ja": "GPU が 2 基未満"},
    "status.skipped": {"en": "skipped", "ja": "省略"},
    "par.method.allgather": {"en": "all-gather", "ja": "all-gather"},
    "par.method.alltoall": {"en": "all-to-all", "ja": "all-to-all"},
    "par.on": {"en": "on", "ja": "有効"},
    "par.off": {"en": "off", "ja": "無効"},
    "par.causal": {"en": "causal", "ja": "因果"},
    "par.not_causal": {"en": "not causal", "ja": "非因果"},
    "par.mask.yes": {"en": "yes", "ja": "あり"},
    "par.mask.no": {"en": "no", "ja": "なし"},
    "par.comm_what": {"en": "{collective}, {size}", "ja": "{collective}、{size}"},
    "par.times": {"en": "{value}×", "ja": "{value} 倍"},
    # --- table columns ---
    "par.col.method": {"en": "Rotation", "ja": "回転方式"},
    "par.col.seq": {"en": "Sequence length", "ja": "シーケンス長"},
    "par.col.single_ms": {"en": "One GPU (ms)", "ja": "GPU 1 基 (ms)"},
    "par.col.step_ms": {"en": "{world} GPUs (ms)", "ja": "GPU {world} 基 (ms)"},
    "par.col.speedup": {"en": "Speed-up", "ja": "高速化率"},
    "par.col.efficiency": {"en": "Scaling efficiency", "ja": "スケーリング効率"},
    "par.col.comm_share": {"en": "NCCL share of a step", "ja": "1 ステップに占める NCCL"},
    "par.col.overlap": {"en": "NCCL overlapped by compute", "ja": "計算と重なった NCCL"},
    "par.col.balance": {"en": "Load balance", "ja": "負荷の均衡"},
    "par.col.error": {"en": "Error vs one GPU", "ja": "GPU 1 基との誤差"},
    "par.col.rank": {"en": "Rank", "ja": "ランク"},
    "par.col.rank_step_ms": {"en": "Step (ms)", "ja": "ステップ (ms)"},
    "par.col.attention_us": {"en": "Attention kernels (µs)", "ja": "アテンションカーネル (µs)"},
    "par.col.comm_us": {"en": "NCCL kernels (µs)", "ja": "NCCL カーネル (µs)"},
    "par.col.other_us": {"en": "Other kernels (µs)", "ja": "その他のカーネル (µs)"},
    "par.col.idle_us": {"en": "GPU idle (µs)", "ja": "GPU の空き (µs)"},
    "par.col.span_us": {"en": "GPU span (µs)", "ja": "GPU 区間 (µs)"},
    "par.col.dispatch_ms": {"en": "CPU to issue (ms)", "ja": "発行の CPU 時間 (ms)"},
    "par.col.position": {"en": "Order", "ja": "順番"},
    "par.col.stream": {"en": "Stream", "ja": "ストリーム"},
    "par.col.mask": {"en": "Causal mask", "ja": "因果マスク"},
    "par.col.what": {"en": "Grid, or what NCCL moved", "ja": "グリッド、または NCCL の転送内容"},
    "par.col.us": {"en": "Time (µs)", "ja": "時間 (µs)"},
    "par.col.single_total": {"en": "One GPU: inputs + peak extra (MiB)", "ja": "GPU 1 基: 入力 + 追加のピーク (MiB)"},
    "par.col.rank_total": {
        "en": "Per GPU: shard + peak extra (MiB)",
        "ja": "GPU ごと: 分割後の入力 + 追加のピーク (MiB)",
    },
    "par.col.memory_ratio": {"en": "Per GPU / one GPU", "ja": "GPU ごと / GPU 1 基"},
    "par.col.gpus": {"en": "GPUs", "ja": "GPU 数"},
    "par.col.nodes": {"en": "Nodes", "ja": "ノード数"},
    "par.col.bandwidth": {"en": "Bandwidth (GB/s)", "ja": "帯域幅 (GB/s)"},
    "par.col.compute_ms": {"en": "Compute per GPU (ms)", "ja": "GPU ごとの計算 (ms)"},
    "par.col.model_comm_ms": {"en": "All-gather (ms)", "ja": "all-gather (ms)"},
    "par.col.exposed_ms": {"en": "Not hidden (ms)", "ja": "隠れない通信 (ms)"},
    "par.col.model_step_ms": {"en": "Step (ms)", "ja": "ステップ (ms)"},
    "par.sum": {"en": "{inputs} + {extra} = {total}", "ja": "{inputs} + {extra} = {total}"},
    # --- the status note ---
    "par.status.ok": {
        "en": "Measured live by this build on {world} × {gpu} (ranks started by {launcher}; NCCL {nccl}, PyTorch "
        "{torch}): batch {batch}, {heads} heads, head_dim {head_dim}, {dtype}, {causal}, backend {backend}, load "
        "balancing {balance}; sequence lengths {seqs}; rotation methods {methods}.",
        "ja": "このビルドが {world} 基の {gpu} でその場で計測しました (ランクの起動: {launcher}、NCCL {nccl}、"
        "PyTorch {torch})。バッチ {batch}、ヘッド {heads}、head_dim {head_dim}、{dtype}、{causal}、バックエンド "
        "{backend}、負荷分散 {balance}、シーケンス長 {seqs}、回転方式 {methods}。",
    },
    "par.status.time": {
        "en": "The whole run took {elapsed}, of which the ranks needed {init} to join the process group.",
        "ja": "計測全体にかかった時間は {elapsed} で、そのうちランクがプロセスグループに参加するまでが {init} "
        "でした。",
    },
    "par.status.not_run_title": {"en": "Not measured in this build", "ja": "このビルドでは計測していません"},
    "par.status.not_run": {
        "en": "This build did not run context parallelism ({status}): {reason}.",
        "ja": "このビルドではコンテキスト並列を実行しませんでした ({status}): {reason}。",
    },
    "par.status.why": {
        "en": "Context parallelism splits one sequence across GPUs and passes keys and values between them over "
        "NCCL, so it needs at least two CUDA GPUs in one machine. Without them this page shows no measurement, and "
        "nothing stands in for one.",
        "ja": "コンテキスト並列は 1 つのシーケンスを複数の GPU に分け、キーとバリューを NCCL で GPU "
        "間に受け渡すため、1 台のマシンに CUDA GPU が 2 基以上必要です。それがない環境では、"
        "このページは計測値を示さず、代わりの数値も置きません。",
    },
    "par.status.how": {
        "en": "To measure it, run the gallery script from a clone of this repository on a machine with two or more "
        "GPUs, with torchrun (one process per GPU) or plainly (the script starts its ranks itself):",
        "ja": "計測するには、GPU を 2 基以上備えたマシンで、このリポジトリのクローンからギャラリーのスクリプトを実行"
        "してください。torchrun で GPU ごとに 1 プロセスを起動しても、そのまま実行して "
        "(スクリプトが自分でランクを起動します) もかまいません:",
    },
    "par.status.then": {
        "en": "Building the site there (nox -s docs) runs it too, and this page then shows what it measured.",
        "ja": "そのマシンでサイトをビルドする (nox -s docs) と同じ計測が走り、このページに結果が表示されます。",
    },
    "par.status.cases_failed": {"en": "Cases that did not run:", "ja": "実行できなかったケース:"},
    "par.status.case_item": {
        "en": "{backend}, {method}, S = {seq}: {status}: {reason}",
        "ja": "{backend}、{method}、S = {seq}: {status}: {reason}",
    },
    "par.status.restored": {
        "en": "context_parallel left its ring attention in place of scaled_dot_product_attention after this case "
        "raised; the runner put the original back",
        "ja": "このケースで例外が起きたあと、context_parallel はリングアテンションを scaled_dot_product_attention "
        "の代わりに残したままでした。計測側で元の関数に戻しています",
    },
    "par.not_measured": {
        "en": "Not measured in this build (see the note at the top of the page).",
        "ja": "このビルドでは計測していません (ページ冒頭の注記を参照)。",
    },
    "par.no_case": {
        "en": "This build has no case that ran for {method} at S = {seq}; cases that ran: {cases}.",
        "ja": "このビルドには {method}、S = {seq} の実行済みケースがありません。実行済み: {cases}。",
    },
    # --- the model on paper ---
    "par.model.basis": {
        "en": "Measured by this build: one GPU computes causal attention over S = {seq} ({backend}) in {single} ("
        "{tflops}); NCCL's all-gather reaches a bus bandwidth of {busbw} between the GPUs of this host; in the "
        "measured {world}-GPU run with the {method} rotation, {overlap} of the communication overlapped computation "
        "on the rank where it overlapped least.",
        "ja": "このビルドの計測値: GPU 1 基は S = {seq} の因果アテンション ({backend}) を {single} で計算します ("
        "{tflops})。このホストの GPU 間で NCCL の all-gather はバス帯域幅 {busbw} に達します。{method} "
        "方式で計測した GPU {world} 基の実行では、重なりが最も小さいランクで通信の {overlap} が計算と重なりました。",
    },
    "par.model.basis.recorded": {
        "en": "Recorded in that run, not measured by this machine: one GPU computes causal attention over S = {seq} "
        "({backend}) in {single} ({tflops}); NCCL's all-gather reaches a bus bandwidth of {busbw} between its GPUs; "
        "in its {world}-GPU run with the {method} rotation, {overlap} of the communication overlapped computation "
        "on the rank where it overlapped least.",
        "ja": "その実行で記録した値で、このマシンの計測ではありません: GPU 1 基は S = {seq} の因果アテンション "
        "({backend}) を {single} で計算します ({tflops})。その GPU 間で NCCL の all-gather はバス帯域幅 {busbw} "
        "に達します。{method} 方式の GPU {world} 基の実行では、重なりが最も小さいランクで通信の {overlap} "
        "が計算と重なりました。",
    },
    "par.model.check.recorded": {
        "en": "Where the model can be checked, at {world} GPUs, it gives {model}; the recorded run took {measured}.",
        "ja": "モデルを検証できる GPU {world} 基では、モデルの値は {model}、記録された実行の値は {measured} です。",
    },
    "par.no_case.recorded": {
        "en": "The recorded run has no case that ran for {method} at S = {seq}; cases that ran: {cases}.",
        "ja": "記録された実行には {method}、S = {seq} の実行済みケースがありません。実行済み: {cases}。",
    },
    "par.model.assumed": {
        "en": "Assumed, not measured: {per_node} GPUs per node, joined by NVLink at the bus bandwidth measured "
        "here; between nodes, {inter} per GPU (one 400 Gb/s InfiniBand NDR link per GPU); compute divides evenly "
        "over the GPUs at the measured rate; communication overlaps computation as much as measured here, and never "
        "longer than the computation lasts; the merging of partial results is left out.",
        "ja": "仮定 (計測ではありません): 1 ノードに GPU {per_node} 基、ノード内は NVLink "
        "でここで計測したバス帯域幅のまま。ノード間は GPU あたり {inter} (GPU ごとに 400 Gb/s の InfiniBand NDR を "
        "1 本)。計算は計測した速度のままGPU 間で均等に分かれる。通信と計算の重なりはここで計測した割合のままで、"
        "計算時間を超えて重なることはない。部分結果の統合にかかる時間は含めない。",
    },
    "par.model.assumed.recorded": {
        "en": "Assumed, not measured: {per_node} GPUs per node, joined by NVLink at the bus bandwidth recorded in "
        "that run; between nodes, {inter} per GPU (one 400 Gb/s InfiniBand NDR link per GPU); compute divides "
        "evenly over the GPUs at the recorded rate; communication overlaps computation as much as recorded, and "
        "never longer than the computation lasts; the merging of partial results is left out.",
        "ja": "仮定 (計測ではありません): 1 ノードに GPU {per_node} 基、ノード内は NVLink "
        "でその実行で記録したバス帯域幅のまま。ノード間は GPU あたり {inter} (GPU ごとに 400 Gb/s の InfiniBand "
        "NDR を 1 本)。計算は記録した速度のまま GPU 間で均等に分かれる。通信と計算の重なりは記録した割合のままで、"
        "計算時間を超えて重なることはない。部分結果の統合にかかる時間は含めない。",
    },
    "par.model.check": {
        "en": "Where the model can be checked, at {world} GPUs, it gives {model}; this build measured {measured}.",
        "ja": "モデルを検証できる GPU {world} 基では、モデルの値は {model}、このビルドの計測値は {measured} です。",
    },
    "par.model.crossover": {
        "en": "From {n} GPUs on, the all-gather takes longer than the attention it feeds: each GPU still receives "
        "nearly all of the keys and values ({kv}) however many GPUs share the work, while its computation shrinks "
        "as 1/N.",
        "ja": "GPU {n} 基以上では、all-gather が、それを待つアテンションの計算より長くかかります。GPU "
        "の数が増えても各 GPU はキーとバリューのほぼすべて ({kv}) を受け取る一方、計算は 1/N に縮むからです。",
    },
    "par.model.no_crossover": {
        "en": "Up to 4096 GPUs, computation stays longer than communication in this model.",
        "ja": "このモデルでは、GPU 4096 基まで計算が通信より長いままです。",
    },
    "par.model.no_basis": {
        "en": "The model needs a case that ran, with its traces, and the measured all-gather bandwidth; this build "
        "has not got them.",
        "ja": "モデルには、トレース付きで実行できたケースと、計測した all-gather の帯域幅が必要ですが、"
        "このビルドにはありません。",
    },
    "par.model.no_basis.recorded": {
        "en": "The model needs a case that ran, with its traces, and the measured all-gather bandwidth; the "
        "recorded run has not got them.",
        "ja": "モデルには、トレース付きで実行できたケースと、計測した all-gather の帯域幅が必要ですが、"
        "記録された実行にはありません。",
    },
    # --- the closing note ---
    "par.closing.item": {
        "en": "{method}, S = {seq}: {speedup} as fast as one GPU (scaling efficiency {efficiency}); NCCL kernels "
        "took {share} of a step on the rank where they took most, and {overlap} of them overlapped computation on "
        "the rank where they overlapped least.",
        "ja": "{method}、S = {seq}: GPU 1 基の {speedup} の速さ (スケーリング効率 {efficiency})。NCCL カーネルは、"
        "割合が最も大きいランクで 1 ステップの {share} を占め、重なりが最も小さいランクでその {overlap} "
        "が計算と重なりました。",
    },
    "par.closing.not_run": {
        "en": "{method}, S = {seq}: not measured ({status}: {reason}).",
        "ja": "{method}、S = {seq}: 計測できませんでした ({status}: {reason})。",
    },
    "par.closing.time": {
        "en": "Measuring all of this took {elapsed} of the build: starting the ranks, timing NCCL, and every case "
        "with its one-GPU yardstick and its traces.",
        "ja": "ここまでの計測にかかったビルド時間は {elapsed} です (ランクの起動、NCCL の計測、各ケースとその GPU 1 "
        "基の基準、トレースを含みます)。",
    },
    # --- the timeline of the ranks ---
    "par.timeline.title": {
        "en": "Context parallelism, {method}, S = {seq}, {world} GPUs, profiler step {step}",
        "ja": "コンテキスト並列、{method}、S = {seq}、GPU {world} 基、プロファイラのステップ {step}",
    },
    "par.timeline.row.cpu": {"en": "rank {rank} · CPU", "ja": "ランク {rank} · CPU"},
    "par.timeline.row.stream": {"en": "rank {rank} · stream {stream}", "ja": "ランク {rank} · ストリーム {stream}"},
    "par.timeline.xlabel": {
        "en": "time since the first rank's annotated call began (µs)",
        "ja": "最初のランクのアノテーション開始からの時間 (µs)",
    },
    "par.timeline.legend.call": {"en": "annotated call (CPU)", "ja": "アノテーション付きの呼び出し (CPU)"},
    "par.timeline.summary": {
        "en": "Profiler step {step} of the {method} rotation at S = {seq} on {world} ranks, on one time axis. "
        "{ranks}",
        "ja": "{method} 方式、S = {seq}、{world} ランクのプロファイラのステップ {step} を 1 本の時間軸に並べた図。"
        "{ranks}",
    },
    "par.timeline.rank": {
        "en": "Rank {rank}: {n} attention kernels, NCCL kernels for {comm} µs, {overlap} of it overlapped.",
        "ja": "ランク {rank}: アテンションカーネル {n} 個、NCCL カーネル {comm} µs (うち {overlap} が計算と重なる)。",
    },
    "par.timeline.no_step": {
        "en": "{method} at S = {seq}: no profiled step to draw",
        "ja": "{method}、S = {seq}: 描けるプロファイラのステップがありません",
    },
    # --- claims C30-C34 ---
    "par.reason.not_run": {
        "en": "context parallelism did not run in this build ({status}): {reason}",
        "ja": "このビルドではコンテキスト並列を実行していません ({status}): {reason}",
    },
    "par.reason.no_case": {"en": "no case ran with its traces", "ja": "トレース付きで実行できたケースがありません"},
    "par.reason.no_memory": {
        "en": "peak memory was not recorded (it is recorded on CUDA only)",
        "ja": "メモリのピークが記録されていません (CUDA でのみ記録されます)",
    },
    "C30.statement": {
        "en": "At the longest sequence measured, the GPUs of this host run causal attention at least 75% as well as "
        "perfect scaling would (on two GPUs: at least 1.5 times as fast as one), for every rotation method.",
        "ja": "計測した最長のシーケンス長で、どの回転方式でも、このホストの GPU による因果アテンションは理想的なスケ"
        "ーリングの75% 以上の性能を出す (GPU 2 基なら GPU 1 基の 1.5 倍以上の速さ)。",
    },
    "C30.measured": {"en": "S = {seq}: {items}", "ja": "S = {seq}: {items}"},
    "C30.item": {
        "en": "{method} {speedup} (efficiency {efficiency})",
        "ja": "{method} {speedup} (効率 {efficiency})",
    },
    "C31.statement": {
        "en": "At the longest sequence measured, NCCL kernels take less than 10% of a step on every rank, for every "
        "rotation method.",
        "ja": "計測した最長のシーケンス長で、どの回転方式でも、すべてのランクで NCCL カーネルが 1 "
        "ステップに占める割合は 10% 未満。",
    },
    "C31.measured": {"en": "S = {seq}, worst rank: {items}", "ja": "S = {seq}、最大のランク: {items}"},
    "C31.item": {"en": "{method} {share}", "ja": "{method} {share}"},
    "C31.detail.trend": {
        "en": "From the shortest to the longest sequence the share went from {first} to {last} ({method}).",
        "ja": "最短から最長のシーケンス長で、割合は {first} から {last} に変わりました ({method})。",
    },
    "C32.statement": {
        "en": "At the longest sequence measured, most of the communication runs while the GPU computes: on every "
        "rank, for every rotation method, more than half of the NCCL kernel time overlaps computation.",
        "ja": "計測した最長のシーケンス長では、通信の大半は GPU の計算中に進む: どの回転方式でも、すべてのランクで "
        "NCCL カーネルの時間の半分より多くが計算と重なる。",
    },
    "C32.measured": {
        "en": "S = {seq}, least overlapped rank: {items}",
        "ja": "S = {seq}、重なりが最小のランク: {items}",
    },
    "C32.detail.least": {
        "en": "Least overlap of all cases: {overlap} ({method}, S = {seq}).",
        "ja": "全ケースでの重なりの最小値: {overlap} ({method}、S = {seq})。",
    },
    "C33.statement": {
        "en": "With PyTorch's load balancer the causal mask leaves the ranks even: in every case their attention "
        "kernel times are within 5% of each other.",
        "ja": "PyTorch の負荷分散を使えば、因果マスクがあってもランク間の負荷は均等: すべてのケースで、各ランクのア"
        "テンションカーネルの時間の差は 5% 以内。",
    },
    "C33.measured": {
        "en": "least even {balance} ({method}, S = {seq}; 1 = perfectly even)",
        "ja": "最も不均等なケースで {balance} ({method}、S = {seq}。1 が完全に均等)",
    },
    "C34.statement": {
        "en": "Splitting the sequence lowers what each GPU needs for the forward pass: per GPU, its shard of q, k "
        "and v plus the peak extra memory of the ring call is less than one GPU needs for the whole sequence.",
        "ja": "シーケンスを分割すると、フォワードに各 GPU が必要とするメモリは減る: GPU ごとの q、k、v の担当分とリ"
        "ング呼び出しの追加メモリのピークの合計が、GPU 1 基でシーケンス全体を扱う場合より小さい。",
    },
    "C34.measured": {
        "en": "largest ratio {ratio} ({method}, S = {seq}: {rank} MiB per GPU against {single} MiB on one GPU)",
        "ja": "比の最大値 {ratio} ({method}、S = {seq}: GPU ごと {rank} MiB、GPU 1 基 {single} MiB)",
    },
    "C34.detail": {
        "en": "The shard of the inputs shrinks as 1/N, but the ring call keeps the gathered keys and values and "
        "merges partial results in float32.",
        "ja": "入力の担当分は 1/N に縮みますが、リング呼び出しは集めたキーとバリューを保持し、部分結果を float32 "
        "で統合します。",
    },
}
