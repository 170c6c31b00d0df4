"""Words of the cross-GPU view, the "measured elsewhere" sections and the recorded context-parallel run.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

CROSSGPU: dict[str, dict[str, str]] = {
    "xgpu.col.variant": {"en": "Variant", "ja": "バリアント"},
    "xgpu.col.machine": {"en": "Machine", "ja": "マシン"},
    "xgpu.col.date": {"en": "Date", "ja": "日付"},
    "xgpu.col.source": {"en": "Source", "ja": "出典"},
    "xgpu.col.ms": {"en": "Time per call (ms)", "ja": "1 回あたりの時間 (ms)"},
    "xgpu.col.rate": {"en": "TFLOP/s or GB/s", "ja": "TFLOP/s または GB/s"},
    "xgpu.col.share": {"en": "Share of its own ceiling", "ja": "自機の上限に対する割合"},
    "xgpu.col.fastest": {"en": "Fastest there", "ja": "そのマシンで最速"},
    "xgpu.source.bundle": {"en": "measured (bundle {origin})", "ja": "実測 (バンドル {origin})"},
    "xgpu.source.published": {"en": "published (profiler CUDA time)", "ja": "公表値 (プロファイラの CUDA 時間)"},
    "xgpu.fastest": {"en": "fastest", "ja": "最速"},
    "xgpu.tied": {"en": "tied fastest", "ja": "最速 (差は誤差内)"},
    "xgpu.group": {
        "en": "{workload}: shape {shape}, {dtype}{kv}",
        "ja": "{workload}: 形状 {shape}、{dtype}{kv}",
    },
    "xgpu.kv": {"en": ", KV cache {n}", "ja": "、KV キャッシュ {n}"},
    "xgpu.machines": {
        "en": "Sources in this view ({n}); none of them is this build's machine, and none feeds a verdict of "
        "this site:",
        "ja": "この表の出典 ({n} 件)。どれもこのビルドのマシンではなく、このサイトの判定には使われません:",
    },
    "xgpu.machine_item": {
        "en": "{machine}, {date}: {source}{software}",
        "ja": "{machine}、{date}: {source}{software}",
    },
    "xgpu.none": {
        "en": "No figures from other machines for this workload: no bundle in {folder} measured it.",
        "ja": "このワークロードの他マシンの数値はありません: {folder} のどのバンドルも測っていません。",
    },
    "xgpu.skipped": {
        "en": "Bundles left out because they could not be read ({n}):",
        "ja": "読めなかったため除外したバンドル ({n} 件):",
    },
    "xgpu.same_gpu": {
        "en": "Left out: {bundles}, recorded on the GPU model this build ran on ({gpu}). This page compares other "
        "GPUs; this build's own pages show this one.",
        "ja": "除外: {bundles} はこのビルドと同じ GPU モデル ({gpu}) で記録されたものです。このページは他の GPU "
        "を比べるもので、この GPU はこのビルド自身のページが示しています。",
    },
    "xgpu.methods": {
        "en": "Two ways of timing one call, and how far apart they are here: the article read its figures off the "
        "profiler (the GPU time of the kernels under a call's range, the profiler recording), while this site times "
        "calls with CUDA events and no profiler. On this build's {device}, at {shape} {dtype}, the profiler's GPU "
        "time of a call came out at {low} to {high} of the CUDA-event time (median {mid}, over {n} variants). "
        "Differences between the published figures and the measured ones smaller than that gap say nothing.",
        "ja": "1 回の呼び出しを計る 2 つの方法と、その差: 記事の数値はプロファイラから読んだもの (プロファイラが記録"
        "している状態で、呼び出しの範囲にあるカーネルの GPU 時間) で、このサイトはプロファイラなしで CUDA イベントに"
        "より計時します。このビルドの {device} では、{shape} {dtype} でのプロファイラの GPU 時間は CUDA イベントの"
        "時間の {low}〜{high} でした (中央値 {mid}、{n} バリアント)。公表値と実測値の差がこの開きより小さければ、"
        "何も言えません。",
    },
    "xgpu.methods_unknown": {
        "en": "Two ways of timing one call: the article read its figures off the profiler, while this site times "
        "calls with CUDA events and no profiler. How far apart the two are needs a GPU, and this build ran without "
        "one.",
        "ja": "1 回の呼び出しを計る 2 つの方法: 記事の数値はプロファイラから読んだもので、このサイトはプロファイラ"
        "なしで CUDA イベントにより計時します。2 つの差を知るには GPU が必要ですが、このビルドは GPU なしで実行"
        "されました。",
    },
    "xgpu.elsewhere": {
        "en": "Measured elsewhere, not on this build's machine: each figure with its machine and date.",
        "ja": "このビルドのマシンではなく他所で測った数値です。各数値にマシンと日付を添えています。",
    },
    "par.recorded.title": {"en": "Recorded run, not this machine", "ja": "記録された実行 (このマシンではありません)"},
    "par.recorded.text": {
        "en": "The figures below were recorded on {machine} on {date} (bundle {bundle}; PyTorch {torch}, "
        "CUDA {cuda}, NCCL {nccl}), not measured by this build. They show what that machine did; no claim on this "
        "site is checked against them.",
        "ja": "以下の数値は {date} に {machine} で記録されたもので (バンドル {bundle}、PyTorch {torch}、CUDA {cuda}、"
        "NCCL {nccl})、このビルドが測ったものではありません。そのマシンでの結果を示すもので、このサイトの主張の"
        "判定には使っていません。",
    },
    "par.recorded.ok": {
        "en": "Recorded on {world} × {gpu} on {date}, not by this build (ranks started by {launcher}; NCCL {nccl}, "
        "PyTorch {torch}): batch {batch}, {heads} heads, head_dim {head_dim}, {dtype}, {causal}, backend {backend}, "
        "load balancing {balance}; sequence lengths {seqs}; rotation methods {methods}.",
        "ja": "{date} に {world} 基の {gpu} で記録したもので、このビルドの計測ではありません (ランクの起動: "
        "{launcher}、NCCL {nccl}、PyTorch {torch})。バッチ {batch}、ヘッド {heads}、head_dim {head_dim}、{dtype}、"
        "{causal}、バックエンド {backend}、負荷分散 {balance}、シーケンス長 {seqs}、回転方式 {methods}。",
    },
    "par.recorded.label": {
        "en": "Recorded on {machine}, {date} (bundle {bundle})",
        "ja": "{date} に {machine} で記録 (バンドル {bundle})",
    },
    "par.recorded.backend": {
        "en": "The recorded run forced {backend}: its one-GPU times and speed-ups are {backend}'s. Left to choose, "
        "SDPA does not pick {backend} on one GPU: on {device}, this build's sweep at seq {seq}, head_dim {head_dim} "
        "(batch {batch}, {heads} heads; the longest length it measured) has SDPA's choice run {picked} in {auto} ms "
        "against {forced} ms for {backend} forced, {ratio}× as long.",
        "ja": "記録された実行は {backend} を強制しています。GPU 1 基の時間と高速化率は {backend} のものです。SDPA "
        "に選ばせると、GPU 1 基では {backend} を選びません: {device} でこのビルドのスイープが計測した系列長 {seq}、"
        "head_dim {head_dim} (バッチ {batch}、ヘッド {heads}。計測した最長の長さ) では、SDPA の選択は {picked} を "
        "{auto} ms で実行し、{backend} を強制すると {forced} ms ({ratio} 倍) かかります。",
    },
    "par.recorded.backend_unknown": {
        "en": "The recorded run forced {backend}: its one-GPU times and speed-ups are {backend}'s, which need not "
        "be the backend SDPA picks when left to choose; this build measured no one-GPU figure to compare them with.",
        "ja": "記録された実行は {backend} を強制しています。GPU 1 基の時間と高速化率は {backend} のもので、SDPA "
        "に選ばせたときのバックエンドとは限りません。このビルドには比べられる GPU 1 基の計測値がありません。",
    },
    "par.recorded.no_verdict": {
        "en": "This build could not run the measurement, so these claims are not checked here; the recorded run "
        "above is shown for reading, not for verdicts.",
        "ja": "このビルドでは測定を実行できなかったため、これらの主張はここでは判定していません。上の記録された"
        "実行は読むためのもので、判定には使いません。",
    },
}
