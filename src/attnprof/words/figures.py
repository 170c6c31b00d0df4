"""Words of figures shown with their bands where a verdict is made (the decision, training, decoding and sweep
tables), of the shape-independent CPU costs (forcing a backend, the profiler's own cost per op), of re-measured and
unreliable points, and of the conditions a verdict was measured under.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

FIGURES: dict[str, dict[str, str]] = {
    # --- a figure and its band ---
    "figure.margin": {"en": "{median} ({lo} to {hi})", "ja": "{median} ({lo}〜{hi})"},
    # --- the decision table ---
    "decision.time": {"en": "{variant}: {median} ms ({lo}–{hi})", "ja": "{variant}: {median} ms ({lo}–{hi})"},
    "decision.margin": {"en": "{variant}: {median} ({lo} to {hi})", "ja": "{variant}: {median} ({lo}〜{hi})"},
    "decision.unreliable": {
        "en": "not ranked, measured with a band too wide to decide anything: {items}",
        "ja": "順位から除外 (ノイズ幅が広すぎて判定に使えない計測): {items}",
    },
    "decision.unreliable_item": {
        "en": "{variant} {median} ms ({lo}–{hi})",
        "ja": "{variant} {median} ms ({lo}–{hi})",
    },
    "decision.memory": {"en": "{peak} (inputs: {inputs})", "ja": "{peak} (入力: {inputs})"},
    "decision.forcing.picked": {
        "en": "SDPA ran {picked}: {median} ms ({lo}–{hi})",
        "ja": "SDPA は {picked} を実行: {median} ms ({lo}–{hi})",
    },
    "decision.forcing.helps": {
        "en": "forcing {best} would save {saving}: worth it",
        "ja": "{best} を強制すると {saving} 短くなる: 強制する価値がある",
    },
    "decision.forcing.no_gain": {
        "en": "forcing {best} would save {saving}: nothing beyond the noise",
        "ja": "{best} を強制した場合の短縮は {saving}: ノイズを超える差はない",
    },
    "decision.forcing.unreliable": {
        "en": "not decided: a time measured with a band too wide to decide anything",
        "ja": "判定しない: ノイズ幅が広すぎて判定に使えない計測がある",
    },
    "decision.forcing.cpu": {
        "en": "forcing costs {median} µs CPU per call ({lo}–{hi}), the same at every shape",
        "ja": "強制すると呼び出しごとに CPU 時間が {median} µs ({lo}–{hi}) 増える (形状によらず同じ)",
    },
    # --- the shape-independent CPU costs (examples/11-cpu-overhead.py, the cpu-cost table) ---
    "report.fixed.forcing": {
        "en": "forcing a backend (sdpa_kernel entered and left with nothing inside): {median} us per call "
        "({lo}-{hi}), {calls} calls in {rounds} rounds; the same for every backend and shape",
        "ja": "バックエンドの強制 (中身のない sdpa_kernel の出入り): 呼び出しごとに {median} us ({lo}-{hi})、"
        "{rounds} ラウンドで {calls} 回。どのバックエンド・形状でも同じ",
    },
    "report.fixed.profiler": {
        "en": "the profiler's own cost: one {op} takes {plain} us to issue without it and {profiled} us with it "
        "recording, {median} us ({lo}-{hi}) more per op ({events} CPU events recorded per call)",
        "ja": "プロファイラ自身のコスト: {op} 1 回の発行はプロファイラなしで {plain} us、記録中は {profiled} us。"
        "op ごとに {median} us ({lo}-{hi}) 増える (呼び出しごとに記録される CPU イベント {events} 個)",
    },
    "report.fixed.missing": {"en": "not measured: {reason}", "ja": "計測なし: {reason}"},
    "cpu_costs.forcing": {
        "en": "Forcing a backend costs {median} µs CPU per call ({lo}–{hi}), whatever the backend and the shape: "
        "the sdpa_kernel context entered and left alone {calls} times by this build, one figure for every page.",
        "ja": "バックエンドの強制には、バックエンドや形状によらず呼び出しごとに CPU 時間 {median} µs ({lo}–{hi}) "
        "かかります。このビルドが sdpa_kernel コンテキストだけを {calls} 回出入りして計測した値で、どのページもこの"
        "値を使います。",
    },
    "cpu_costs.profiler": {
        "en": "The profiler itself adds {median} µs ({lo}–{hi}) to every op it records (one {op} on this device, "
        "{events} CPU events per call), whatever the shape.",
        "ja": "プロファイラ自身は、記録する op ごとに形状によらず {median} µs ({lo}–{hi}) を加えます (このデバイス"
        "での {op} 1 回、呼び出しごとの CPU イベント {events} 個)。",
    },
    # --- the sweep: SDPA's pick, re-measured and unreliable points ---
    "report.sweep.margin": {"en": "{median} [{lo}, {hi}]", "ja": "{median} [{lo}, {hi}]"},
    "report.sweep.pick_unreliable": {
        "en": "not decided: a time measured with a band too wide to decide anything",
        "ja": "判定しない: ノイズ幅が広すぎて判定に使えない計測がある",
    },
    "report.sweep.remeasured": {
        "en": "re-measured: {point} ({why}): first {first} ms, {kept} ms kept (the faster of two measurements)",
        "ja": "再計測: {point} ({why}): 1 回目 {first} ms、採用 {kept} ms (2 回の計測の速いほう)",
    },
    "report.sweep.unreliable": {
        "en": "unreliable: {point}: {median} ms ({lo}-{hi}), a band too wide to decide anything; used for no verdict",
        "ja": "信頼できない: {point}: {median} ms ({lo}-{hi})。ノイズ幅が広すぎて判定に使えず、どの判定にも使わない",
    },
    "sweep.why.reference": {
        "en": "slower than the variant page's measurement of the same shape",
        "ja": "同じ形状のバリアントのページの計測より遅かった",
    },
    "sweep.why.twin": {
        "en": "SDPA's own call and the forced backend it runs disagreed",
        "ja": "SDPA 自身の呼び出しと、それが実行する強制バックエンドの時間が食い違った",
    },
    "sweep.why.neighbours": {
        "en": "out of line with the same variant at the neighbouring lengths",
        "ja": "同じバリアントの隣の長さの点と整合しなかった",
    },
    "sweep.why.wide": {
        "en": "its samples spread too widely",
        "ja": "計測値のばらつきが大きすぎた",
    },
    "scaling.same.yes": {"en": "yes: {margin}", "ja": "はい: {margin}"},
    "scaling.same.tie": {"en": "too close to call: {margin}", "ja": "僅差で判定できない: {margin}"},
    "scaling.same.no": {
        "en": "no: SDPA's call is slower by {margin}",
        "ja": "いいえ: SDPA の呼び出しは {margin} 遅い",
    },
    "scaling.same.no_same_backend": {
        "en": "no: SDPA ran this backend, yet its call measured slower by {margin}",
        "ja": "いいえ: SDPA はこのバックエンドを実行したが、その呼び出しは {margin} 遅く計測された",
    },
    "scaling.same.unreliable": {
        "en": "not decided: a time measured with a band too wide to decide anything",
        "ja": "判定しない: ノイズ幅が広すぎて判定に使えない計測がある",
    },
    "scaling.time_band": {"en": "{name} ({median} ms, {lo}–{hi})", "ja": "{name} ({median} ms、{lo}–{hi})"},
    "scaling.remeasured_mark": {"en": "‡", "ja": "‡"},
    "scaling.remeasured_note": {
        "en": "‡ Re-measured: the sweep measured these points a second time, after every other point, and kept the "
        "faster of the two measurements: {items}.",
        "ja": "‡ 再計測: スイープはこれらの点を、他のすべての点の後にもう一度計測し、2 回の計測の速いほうを採用"
        "しました: {items}。",
    },
    "scaling.remeasured_item": {
        "en": "{variant} at head_dim {head_dim}, seq {seq} ({why}; first {first}, kept {kept})",
        "ja": "{variant} (head_dim {head_dim}、seq {seq}: {why}。1 回目 {first}、採用 {kept})",
    },
    "scaling.unreliable_mark": {"en": "§", "ja": "§"},
    "scaling.unreliable_note": {
        "en": "§ Unreliable: the band of these points is too wide to decide anything, even after a second "
        "measurement; no verdict on this site uses them: {items}.",
        "ja": "§ 信頼できない: これらの点は、再計測してもノイズ幅が広すぎて判定に使えません。このサイトのどの判定にも"
        "使っていません: {items}。",
    },
    "scaling.unreliable_item": {
        "en": "{variant} at head_dim {head_dim}, seq {seq} ({median}, {lo}–{hi})",
        "ja": "{variant} (head_dim {head_dim}、seq {seq}: {median}、{lo}–{hi})",
    },
    # --- the conditions of a verdict ---
    "conditions.shape": {
        "en": "batch {batch}, {heads} heads, head_dim {head_dim}, {dtype}, {mask}",
        "ja": "バッチ {batch}、ヘッド {heads}、head_dim {head_dim}、{dtype}、{mask}",
    },
    "conditions.shape_gqa": {
        "en": "batch {batch}, {heads} query heads sharing {kv_heads} KV heads, head_dim {head_dim}, {dtype}, {mask}",
        "ja": "バッチ {batch}、クエリヘッド {heads} (KV ヘッド {kv_heads} を共有)、head_dim {head_dim}、{dtype}、"
        "{mask}",
    },
    "conditions.mask.causal": {"en": "causal mask", "ja": "因果マスク"},
    "conditions.mask.none": {"en": "no mask", "ja": "マスクなし"},
    "conditions.head.gpu": {"en": "Measured on {device}:", "ja": "{device} で計測:"},
    "conditions.head.cpu": {
        "en": "Measured on a machine without a GPU, on its {device}: the times describe this CPU, not any GPU.",
        "ja": "GPU のないマシンの {device} で計測: 時間はこの CPU のもので、どの GPU のものでもありません。",
    },
    "decision.summary.undecided": {
        "en": "{workload} at {length} ({conditions}): not decided, every time measured with a band too wide to "
        "decide anything",
        "ja": "{workload}、{length} ({conditions}): 判定しない。どの時間もノイズ幅が広すぎて判定に使えない",
    },
    "conditions.item": {"en": "{workload}: {conditions}; {lengths}", "ja": "{workload}: {conditions}。{lengths}"},
    "conditions.longest": {
        "en": "the longest of the {n} lengths measured, {length}",
        "ja": "計測した {n} 通りの長さのうち最長の {length}",
    },
    # --- the decoding page: the profiled kernels against the timed step ---
    "decode.profiled_note": {
        "en": "Two measurements of one step: the kernel tables come from the three profiled steps, each run from an "
        "idle GPU with the profiler recording every launch; the step times above are the median of many calls "
        "timed without the profiler, queued back to back. Here the profiled kernels took longer than the median "
        "without the profiler: {items}. The comparisons on this site use the median without the profiler.",
        "ja": "1 つのステップの 2 通りの計測です。カーネルの表は、プロファイラがすべての起動を記録する中で、アイドル"
        "状態の GPU から実行した 3 つのプロファイル対象ステップから、上のステップ時間はプロファイラなしで連続して計時"
        "した多数の呼び出しの中央値から得ています。ここでは、プロファイルしたカーネルがプロファイラなしの中央値より"
        "長くかかりました: {items}。このサイトの比較はプロファイラなしの中央値を使います。",
    },
    "decode.profiled_item": {
        "en": "{variant} at KV cache {length}, {profiled} µs per profiled step against {timed} µs",
        "ja": "{variant} (KV キャッシュ {length}): プロファイル対象ステップあたり {profiled} µs、プロファイラなし "
        "{timed} µs",
    },
    # --- the at-a-glance table ---
    "compare.conditions": {
        "en": "Every row at {where}, causal mask: each figure depends on the shape, the CPU times as well.",
        "ja": "どの行も {where}、因果マスクでの値です。どの数値も形状によって変わり、CPU 時間も同様です。",
    },
    "compare.where": {"en": "shape {shape}, {dtype}, on {device}", "ja": "形状 {shape}、{dtype}、{device}"},
}
