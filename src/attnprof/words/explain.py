"""Words of ``attnprof explain`` (:mod:`attnprof.render.explain`): the reading of a trace nobody here recorded.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

EXPLAIN: dict[str, dict[str, str]] = {
    # --- the head and the notes ---
    "explain.title": {"en": "What the trace {name} says", "ja": "トレース {name} の読み取り"},
    "explain.head": {
        "en": "{name}: {steps}, {events} events, {device}",
        "ja": "{name}: {steps}、イベント {events} 個、{device}",
    },
    "explain.n_steps": {"en": "{n} profiler steps", "ja": "プロファイラのステップ {n} 個"},
    "explain.n_steps.1": {"en": "1 profiler step", "ja": "プロファイラのステップ 1 個"},
    "explain.device": {"en": "{name} (compute capability {cc})", "ja": "{name} (compute capability {cc})"},
    "explain.no_device": {"en": "no GPU in the trace", "ja": "トレースに GPU なし"},
    "explain.unnamed_device": {
        "en": "GPU {ids} (its name is not in this form of trace: the JSON array form has no deviceProperties)",
        "ja": "GPU {ids} (この形式のトレースには名前がありません。JSON 配列形式には deviceProperties がありません)",
    },
    # --- progress on standard error ---
    "explain.progress.reading": {"en": "reading {name}", "ja": "{name} を読み込み中"},
    "explain.progress.read": {
        "en": "read {events} events ({cpu} on the CPU, {gpu} on the GPU) in {seconds} s",
        "ja": "イベント {events} 個 (CPU {cpu} 個、GPU {gpu} 個) を {seconds} 秒で読み込みました",
    },
    "explain.progress.found": {"en": "found {calls} in {steps}", "ja": "{steps}に{calls}が見つかりました"},
    "explain.progress.calls": {"en": "{n} attention calls", "ja": "アテンションの呼び出し {n} 回"},
    "explain.progress.calls.1": {"en": "1 attention call", "ja": "アテンションの呼び出し 1 回"},
    "explain.progress.steps": {"en": "{n} steps", "ja": "ステップ {n} 個"},
    "explain.progress.steps.1": {"en": "1 step", "ja": "ステップ 1 個"},
    "explain.progress.asking": {
        "en": "asking PyTorch on this machine about each kind of SDPA call (imports torch)",
        "ja": "このマシンの PyTorch に、SDPA の呼び出しの種類ごとに問い合わせています (torch を読み込みます)",
    },
    "explain.progress.not_asking": {
        "en": "not asking PyTorch why: {reason} (torch not imported)",
        "ja": "PyTorch には問い合わせません: {reason} (torch は読み込んでいません)",
    },
    "explain.progress.json": {"en": "JSON written to {name}", "ja": "JSON を {name} に書き出しました"},
    "explain.progress.html": {"en": "HTML page written to {name}", "ja": "HTML ページを {name} に書き出しました"},
    "explain.notes": {"en": "What limits this reading:", "ja": "この読み取りの制約:"},
    "explain.note.cpu_only": {
        "en": "Recorded on the CPU alone: no GPU time, idle gaps, kernels or occupancy to read.",
        "ja": "CPU だけで記録されています。GPU 時間、アイドル区間、カーネル、占有率は読み取れません。",
    },
    "explain.note.no_gpu_events": {
        "en": "{launches} CUDA launch calls but no GPU activity: record with activities=[ProfilerActivity.CPU, "
        "ProfilerActivity.CUDA].",
        "ja": "CUDA の起動呼び出しが {launches} 個ありますが、GPU アクティビティがありません。"
        "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] で記録してください。",
    },
    "explain.note.no_steps": {
        "en": "No ProfilerStep#N: the whole trace is read as one step. Record with a schedule and call prof.step() "
        "after each step.",
        "ja": "ProfilerStep#N がないため、トレース全体を 1 ステップとして読みます。schedule を指定し、"
        "各ステップの後で prof.step() を呼んで記録してください。",
    },
    "explain.note.no_shapes": {
        "en": "Input shapes were not recorded: record with record_shapes=True to see each call's shapes and dtype "
        "and to ask PyTorch why a backend was chosen.",
        "ja": "入力の形状が記録されていません。各呼び出しの形状と dtype を見て、バックエンドが選ばれた理由を "
        "PyTorch に問い合わせるには、record_shapes=True で記録してください。",
    },
    "explain.note.no_device_properties": {
        "en": "The trace has no deviceProperties: occupancy cannot be computed.",
        "ja": "トレースに deviceProperties がないため、占有率を計算できません。",
    },
    "explain.note.no_calls": {
        "en": "No attention call found: no scaled_dot_product_attention, FlexAttention, multi-head attention or "
        "matrix product, softmax and matrix product in a row.",
        "ja": "アテンションの呼び出しは見つかりませんでした。scaled_dot_product_attention、FlexAttention、"
        "マルチヘッドアテンション、行列積・ソフトマックス・行列積の並びのいずれもありません。",
    },
    "explain.note.unlinked": {
        "en": "{activities} GPU activities have no launch call in the trace: they count by their start time, and "
        "no attention call can claim them.",
        "ja": "GPU アクティビティ {activities} 個には、トレース内に起動呼び出しがありません。開始時刻でステップに"
        "数えますが、どのアテンション呼び出しにも帰属できません。",
    },
    "explain.note.rank": {
        "en": "One rank's trace: rank {rank} of {world_size}.",
        "ja": "1 つのランクのトレースです (ランク {rank}、全 {world_size})。",
    },
    # --- steps ---
    "explain.steps": {"en": "Profiler steps", "ja": "プロファイラのステップ"},
    "explain.col.step": {"en": "step", "ja": "ステップ"},
    "explain.col.wall_ms": {"en": "wall ms", "ja": "経過 ms"},
    "explain.col.gpu_busy": {"en": "GPU busy", "ja": "GPU 稼働"},
    "explain.col.gaps": {"en": "idle gaps", "ja": "アイドル区間"},
    "explain.col.largest_gap": {"en": "largest gap µs", "ja": "最大区間 µs"},
    "explain.col.waited": {"en": "waiting for launches", "ja": "起動待ち"},
    "explain.col.cpu_bound": {"en": "CPU-bound", "ja": "CPU 律速"},
    "explain.col.attention": {"en": "attention share", "ja": "アテンションの割合"},
    "explain.col.calls": {"en": "calls fwd/bwd", "ja": "呼び出し fwd/bwd"},
    "explain.yes": {"en": "yes", "ja": "はい"},
    "explain.no": {"en": "no", "ja": "いいえ"},
    "explain.cpu_bound": {
        "en": "CPU-bound steps: {steps}. The GPU was busy less than half of the step and most of its idle time came "
        "before kernels whose launch call had not begun when it went idle: it waited for the CPU.",
        "ja": "CPU 律速のステップ: {steps}。GPU の稼働はステップの半分未満で、アイドル時間の大半は、GPU が空いた"
        "時点でまだ起動呼び出しが始まっていなかったカーネルの前にありました。GPU は CPU を待っていました。",
    },
    "explain.per_step": {
        "en": "Per step: {fwd} forward and {bwd} backward attention calls; attention takes {share} of the GPU time.",
        "ja": "1 ステップあたり: アテンションの呼び出しはフォワード {fwd} 回、バックワード {bwd} 回。"
        "GPU 時間のうちアテンションの割合は {share}。",
    },
    "explain.outside": {
        "en": "{n} attention calls lie outside every profiler step (not counted above).",
        "ja": "アテンションの呼び出し {n} 回はどのプロファイラのステップにも含まれません (上の数には入りません)。",
    },
    # --- calls ---
    "explain.calls": {"en": "Attention calls", "ja": "アテンションの呼び出し"},
    "explain.col.what": {"en": "what", "ja": "種類"},
    "explain.col.backend": {"en": "backend", "ja": "バックエンド"},
    "explain.col.direction": {"en": "direction", "ja": "方向"},
    "explain.col.per_step": {"en": "per step", "ja": "ステップあたり"},
    "explain.col.inputs": {"en": "inputs", "ja": "入力"},
    "explain.col.cpu_us": {"en": "CPU µs", "ja": "CPU µs"},
    "explain.col.gpu_us": {"en": "GPU µs", "ja": "GPU µs"},
    "explain.col.flags": {"en": "flags", "ja": "注意点"},
    "explain.kind.sdpa": {"en": "scaled_dot_product_attention", "ja": "scaled_dot_product_attention"},
    "explain.kind.mha": {"en": "multi-head attention fast path", "ja": "マルチヘッドアテンションの高速パス"},
    "explain.kind.flex": {"en": "FlexAttention", "ja": "FlexAttention"},
    "explain.kind.handwritten": {
        "en": "hand-written (matmul, softmax, matmul)",
        "ja": "手書き (行列積、ソフトマックス、行列積)",
    },
    "explain.compiled": {"en": "{kind}, compiled", "ja": "{kind}、コンパイル済み"},
    "explain.module": {"en": "{module}: {kind}", "ja": "{module}: {kind}"},
    "explain.module.MultiheadAttention": {"en": "nn.MultiheadAttention", "ja": "nn.MultiheadAttention"},
    "explain.module.TransformerEncoderLayer": {
        "en": "nn.TransformerEncoderLayer",
        "ja": "nn.TransformerEncoderLayer",
    },
    "explain.with_phase": {"en": "{kind}, {phase}", "ja": "{kind}、{phase}"},
    "explain.phase.prefill": {"en": "prefill", "ja": "プリフィル"},
    "explain.phase.decode": {"en": "decode", "ja": "デコード"},
    "explain.col.projection_us": {"en": "projections µs", "ja": "射影 µs"},
    "explain.projections": {
        "en": "GPU µs is attention alone on every path (the products, the softmax, masking, scaling and their "
        "copies); the module's in- and out-projections are counted apart (projections µs).",
        "ja": "GPU µs はどの経路でもアテンションだけの時間です (行列積、ソフトマックス、マスク、スケーリングとその"
        "コピー)。モジュールの入力と出力の射影は別に数えます (射影 µs)。",
    },
    "explain.more_kernels": {"en": "(+{n} kernels)", "ja": "(ほかにカーネル {n} 個)"},
    "explain.more_kernels.1": {"en": "(+1 kernel)", "ja": "(ほかにカーネル 1 個)"},
    "explain.generation": {
        "en": "Generate loop per step: {passes}, {layers} attention calls a pass.",
        "ja": "ステップあたりの生成ループ: {passes}。1 回のパスでアテンションの呼び出し {layers} 回。",
    },
    "explain.generation.step": {"en": "Generate loop in {step}: {passes}.", "ja": "{step} の生成ループ: {passes}。"},
    "explain.gen.passes": {"en": "{prefill} + {decode}{kv}", "ja": "{prefill}、{decode}{kv}"},
    "explain.gen.prefill": {"en": "{n} prefills", "ja": "プリフィル {n} 回"},
    "explain.gen.prefill.1": {"en": "1 prefill", "ja": "プリフィル 1 回"},
    "explain.gen.decode": {"en": "{n} decode steps", "ja": "デコードステップ {n} 回"},
    "explain.gen.decode.1": {"en": "1 decode step", "ja": "デコードステップ 1 回"},
    "explain.gen.kv": {"en": ", KV {lo} → {hi}", "ja": "、KV {lo} → {hi}"},
    "explain.backend.flash": {"en": "flash", "ja": "flash"},
    "explain.backend.mem_efficient": {"en": "mem_efficient", "ja": "mem_efficient"},
    "explain.backend.cudnn": {"en": "cudnn", "ja": "cudnn"},
    "explain.backend.math": {"en": "math", "ja": "math"},
    "explain.backend.overrideable": {"en": "overrideable", "ja": "overrideable"},
    "explain.backend.flex": {"en": "flex", "ja": "flex"},
    "explain.backend.unfused": {"en": "unfused", "ja": "非融合"},
    "explain.backend.unknown": {"en": "unknown", "ja": "不明"},
    "explain.inputs.none": {"en": "not recorded", "ja": "記録なし"},
    "explain.inputs.causal": {"en": "causal", "ja": "因果"},
    "explain.inputs.mask": {"en": "mask", "ja": "マスク"},
    "explain.inputs.gqa": {"en": "GQA", "ja": "GQA"},
    "explain.inputs.dropout": {"en": "dropout {p}", "ja": "ドロップアウト {p}"},
    "explain.kernels": {
        "en": "Kernels of the attention calls (all steps)",
        "ja": "アテンションの呼び出しのカーネル (全ステップ)",
    },
    "explain.col.per_call": {"en": "per call", "ja": "呼び出しあたり"},
    "explain.col.avg_us": {"en": "avg µs", "ja": "平均 µs"},
    "explain.col.smem": {"en": "shared memory", "ja": "共有メモリ"},
    "explain.col.grid_block": {"en": "grid × block", "ja": "グリッド × ブロック"},
    "explain.col.group": {"en": "call", "ja": "呼び出し"},
    "explain.no_kernels": {
        "en": "The attention calls launched no GPU work in this trace.",
        "ja": "このトレースでは、アテンションの呼び出しは GPU の処理を起動していません。",
    },
    # --- flags ---
    "explain.flags": {"en": "What to look at", "ja": "注意点"},
    "explain.no_flags": {
        "en": "Nothing flagged: no copy nobody wrote, no fp32 softmax in a 16-bit model, no math backend, no "
        "expanded KV cache.",
        "ja": "注意点はありません。書かれていないコピー、16 ビットのモデルでの fp32 ソフトマックス、math "
        "バックエンド、展開された KV キャッシュのいずれもありません。",
    },
    "explain.flag.hidden_copy": {"en": "copy nobody wrote", "ja": "書かれていないコピー"},
    "explain.flag.fp32_softmax": {"en": "fp32 softmax", "ja": "fp32 ソフトマックス"},
    "explain.flag.math_backend": {"en": "math backend", "ja": "math バックエンド"},
    "explain.flag.kv_expand": {"en": "KV expanded", "ja": "KV の展開"},
    "explain.flag.line": {
        "en": "{flag}: {calls} calls in {steps} steps{gpu}; seen as {ops}",
        "ja": "{flag}: {steps} ステップで {calls} 回{gpu}。該当する演算: {ops}",
    },
    "explain.flag.gpu": {"en": ", {us} µs of GPU time", "ja": "、GPU 時間 {us} µs"},
    "explain.flag.why.hidden_copy": {
        "en": "An op inside the call copied a tensor the code never asked to copy (inputs made contiguous, a "
        "transposed or expanded operand copied by matmul's reshape, an out-of-place op): time and memory that pass "
        "contiguous inputs or in-place ops would save.",
        "ja": "呼び出しの中の演算が、コードが頼んでいないコピーをしています (入力を連続化する、転置や展開された"
        "オペランドを matmul の reshape がコピーする、out-of-place の演算など)。連続な入力や in-place の演算で"
        "省ける時間とメモリです。",
    },
    "explain.flag.why.fp32_softmax": {
        "en": "The softmax runs in fp32 on a 16-bit model: the scores are converted and written out at twice the "
        "size. A fused backend keeps them on chip instead.",
        "ja": "16 ビットのモデルでソフトマックスを fp32 で計算しています。スコアが変換され、2 倍の大きさで"
        "書き出されます。融合バックエンドならスコアはチップ上にとどまります。",
    },
    "explain.flag.why.math_backend": {
        "en": "SDPA ran its math backend: separate kernels and the full score matrix in memory. Below, PyTorch says "
        "why each fused backend would or would not take these inputs.",
        "ja": "SDPA が math バックエンドで実行されました。カーネルが分かれ、スコア行列全体がメモリに置かれます。"
        "各融合バックエンドがこの入力を受け付けるかどうかとその理由を、下で PyTorch が答えます。",
    },
    "explain.flag.why.kv_expand": {
        "en": "Keys and values were expanded to every query head before the call (repeat_interleave, or expand then "
        "a reshape that copies): the KV cache copied at full multi-head size. SDPA's enable_gqa=True (or "
        "FlexAttention's) reads the shared heads without the copy.",
        "ja": "呼び出しの前に、キーとバリューがすべてのクエリヘッドへ展開されています (repeat_interleave、または "
        "expand のあとのコピーする reshape)。KV キャッシュがマルチヘッドの大きさでコピーされます。SDPA の "
        "enable_gqa=True (または FlexAttention) なら、共有ヘッドをコピーなしで読めます。",
    },
    # --- why this backend ---
    "explain.why": {
        "en": "Why this backend? PyTorch on this machine",
        "ja": "なぜこのバックエンドか: このマシンの PyTorch の答え",
    },
    "explain.why.call": {"en": "{kind} with {inputs}: ran {backend}", "ja": "{kind} ({inputs}): 実行は {backend}"},
    "explain.why.accepts": {"en": "{backend}: accepts these inputs", "ja": "{backend}: この入力を受け付けます"},
    "explain.why.refuses": {"en": "{backend}: refuses: {reason}", "ja": "{backend}: 受け付けません: {reason}"},
    "explain.why.not_asked": {
        "en": "{backend}: not asked here: {reason}",
        "ja": "{backend}: ここでは問い合わせていません: {reason}",
    },
    "explain.why.pick": {
        "en": "SDPA's own choice for these inputs here: {backend}",
        "ja": "この入力に対する、ここでの SDPA 自身の選択: {backend}",
    },
    "explain.why.no_torch": {
        "en": "PyTorch cannot be asked: torch is not installed here ({error}).",
        "ja": "PyTorch に問い合わせられません。ここには torch がインストールされていません ({error})。",
    },
    "explain.why.no_gpu": {
        "en": "PyTorch cannot be asked here: {reason}. Run attnprof explain on a machine with the trace's GPU.",
        "ja": "ここでは PyTorch に問い合わせられません: {reason}。トレースの GPU があるマシンで attnprof explain "
        "を実行してください。",
    },
    "explain.why.no_shapes": {
        "en": "PyTorch cannot be asked: the trace did not record the calls' shapes and dtypes. Record with "
        "torch.profiler.profile(record_shapes=True, ...).",
        "ja": "PyTorch に問い合わせられません。トレースに呼び出しの形状と dtype が記録されていません。"
        "torch.profiler.profile(record_shapes=True, ...) で記録してください。",
    },
    "explain.why.no_sdpa": {
        "en": "No scaled_dot_product_attention call to ask about.",
        "ja": "問い合わせる scaled_dot_product_attention の呼び出しがありません。",
    },
    "explain.why.unavailable": {
        "en": "PyTorch cannot be asked from this build: {reason}.",
        "ja": "このビルドからは PyTorch に問い合わせられません: {reason}。",
    },
    # --- the HTML report ---
    "explain.html.timeline": {
        "en": "Timeline of {shown} of {steps} steps",
        "ja": "{steps} ステップのうち {shown} ステップのタイムライン",
    },
    "explain.html.no_script": {
        "en": "The interactive timeline needs JavaScript, which is off here; the tables above hold the reading.",
        "ja": "操作できるタイムラインには JavaScript が必要ですが、ここでは無効です。"
        "読み取り結果は上の表にあります。",
    },
    "explain.html.made_by": {
        "en": "Made by attnprof explain from {name}; nothing here was uploaded or fetched.",
        "ja": "attnprof explain が {name} から作成しました。アップロードも取得もしていません。",
    },
}
