"""Words of ``attnprof diff`` (:mod:`attnprof.render.diff`, the drop-in page's comparison): two traces compared.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

TRACEDIFF: dict[str, dict[str, str]] = {
    # --- the head and the notes ---
    "tracediff.title": {"en": "From {before} to {after}: what changed", "ja": "{before} から {after} への変化"},
    "tracediff.before": {"en": "BEFORE", "ja": "変更前"},
    "tracediff.after": {"en": "AFTER", "ja": "変更後"},
    "tracediff.both": {"en": "both traces", "ja": "両方のトレース"},
    "tracediff.head": {"en": "{which}: {head}", "ja": "{which}: {head}"},
    "tracediff.notes": {"en": "What limits this comparison:", "ja": "この比較の制約:"},
    "tracediff.note.devices": {
        "en": "The traces ran on different GPUs ({before}; {after}): a change of time may be the GPU's, not the "
        "code's.",
        "ja": "2 つのトレースは別の GPU で記録されています ({before}、{after})。時間の変化はコードではなく GPU の"
        "違いによるものかもしれません。",
    },
    "tracediff.note.steps": {
        "en": "BEFORE has {before} steps and AFTER {after}: steps are paired in order up to the shorter, and every "
        "step counts in the medians.",
        "ja": "ステップ数が異なります (変更前 {before}、変更後 {after})。ステップは短い方の数まで順に対にし、"
        "中央値にはすべてのステップを数えます。",
    },
    "tracediff.note.no_shapes": {
        "en": "Input shapes were not recorded in {which}: calls are matched by kind, direction and order alone. "
        "Record with record_shapes=True.",
        "ja": "{which}で入力の形状が記録されていないため、呼び出しは種類、方向、順序だけで対応付けます。"
        "record_shapes=True で記録してください。",
    },
    "tracediff.note.cpu_only": {
        "en": "Both traces were recorded on the CPU alone: only CPU times are compared.",
        "ja": "どちらのトレースも CPU だけで記録されているため、比較するのは CPU 時間だけです。",
    },
    "tracediff.note.one_gpu": {
        "en": "Only {which} has GPU work: GPU times cannot be compared.",
        "ja": "GPU の処理があるのは{which}だけのため、GPU 時間は比較できません。",
    },
    "tracediff.note.one_step": {
        "en": "{which} holds one step: its noise band is the rule's floor alone.",
        "ja": "{which}のステップは 1 つだけのため、そのノイズ幅は規則の下限だけです。",
    },
    "tracediff.rules": {
        "en": "Verdicts compare AFTER with BEFORE: GPU times with noise bands of at least ±{gpu_floor} and a least "
        "difference of {gpu_effect}, CPU times with ±{cpu_floor} and {cpu_effect}; bands that overlap are too close "
        "to call, and a band wider than ±{wide} is too noisy to call.",
        "ja": "判定は変更後を変更前と比べたものです。GPU 時間はノイズ幅を少なくとも ±{gpu_floor}、最小の差を "
        "{gpu_effect}、CPU 時間は ±{cpu_floor} と {cpu_effect} とします。幅が重なれば僅差で判定できず、"
        "±{wide} より広い幅はばらつきが大きく判定できません。",
    },
    # --- in short ---
    "tracediff.short": {"en": "In short", "ja": "要点"},
    "tracediff.short.attention": {
        "en": "Attention's GPU time per step: {before} → {after} µs, {verdict} ({change}).",
        "ja": "1 ステップあたりのアテンションの GPU 時間: {before} → {after} µs、{verdict} ({change})。",
    },
    "tracediff.short.wall": {
        "en": "Step wall time: {before} → {after} ms, {verdict} ({change}).",
        "ja": "ステップの経過時間: {before} → {after} ms、{verdict} ({change})。",
    },
    "tracediff.short.matches": {
        "en": "Kinds of attention call: {same} the same, {replaced} replaced, {vanished} only before, "
        "{appeared} only after.",
        "ja": "アテンションの呼び出しの種類: 同じもの {same}、置き換え {replaced}、変更前のみ {vanished}、"
        "変更後のみ {appeared}。",
    },
    "tracediff.short.backend": {
        "en": "Backend of {what} ({direction}): {before} → {after}.",
        "ja": "{what} ({direction}) のバックエンド: {before} → {after}。",
    },
    "tracediff.short.cpu_bound": {
        "en": "CPU-bound steps: {before} of {nb} before, {after} of {na} after.",
        "ja": "CPU 律速のステップ: 変更前 {nb} 個中 {before} 個、変更後 {na} 個中 {after} 個。",
    },
    "tracediff.change": {"en": "{median}, band {lo} to {hi}", "ja": "{median}、ノイズ幅 {lo} 〜 {hi}"},
    "tracediff.no_change": {"en": "no ratio", "ja": "比は取れない"},
    "tracediff.verdict.lower": {"en": "lower", "ja": "低い"},
    "tracediff.verdict.higher": {"en": "higher", "ja": "高い"},
    "tracediff.verdict.tie": {"en": "too close to call", "ja": "僅差で判定できない"},
    "tracediff.verdict.too_wide": {"en": "too noisy to call", "ja": "ばらつきが大きく判定できない"},
    "tracediff.verdict.none": {"en": "-", "ja": "-"},
    # --- steps ---
    "tracediff.steps": {
        "en": "Profiler steps (median over each trace's steps, with its noise band)",
        "ja": "プロファイラのステップ (各トレースのステップの中央値とノイズ幅)",
    },
    "tracediff.col.figure": {"en": "figure", "ja": "指標"},
    "tracediff.col.before": {"en": "before", "ja": "変更前"},
    "tracediff.col.after": {"en": "after", "ja": "変更後"},
    "tracediff.col.change": {"en": "change", "ja": "変化"},
    "tracediff.col.verdict": {"en": "verdict", "ja": "判定"},
    "tracediff.fig.wall_us": {"en": "wall µs", "ja": "経過 µs"},
    "tracediff.fig.gpu_time_us": {"en": "GPU time µs", "ja": "GPU 時間 µs"},
    "tracediff.fig.gpu_busy_us": {"en": "GPU busy µs", "ja": "GPU 稼働 µs"},
    "tracediff.fig.gpu_busy_share": {"en": "GPU busy share", "ja": "GPU 稼働の割合"},
    "tracediff.fig.idle_us": {"en": "GPU idle µs", "ja": "GPU アイドル µs"},
    "tracediff.fig.waiting_us": {"en": "waiting for launches µs", "ja": "起動待ち µs"},
    "tracediff.fig.attention_gpu_us": {"en": "attention GPU µs", "ja": "アテンションの GPU µs"},
    "tracediff.fig.launch_bound": {"en": "CPU-bound steps", "ja": "CPU 律速のステップ"},
    "tracediff.of": {"en": "{n} of {of}", "ja": "{of} 個中 {n} 個"},
    "tracediff.pairs": {"en": "Steps side by side", "ja": "ステップの対"},
    "tracediff.col.step_before": {"en": "step before", "ja": "変更前のステップ"},
    "tracediff.col.step_after": {"en": "step after", "ja": "変更後のステップ"},
    "tracediff.col.wall_us": {"en": "wall µs", "ja": "経過 µs"},
    "tracediff.col.gpu_busy": {"en": "GPU busy", "ja": "GPU 稼働"},
    "tracediff.col.attention_us": {"en": "attention GPU µs", "ja": "アテンションの GPU µs"},
    "tracediff.col.cpu_bound": {"en": "CPU-bound", "ja": "CPU 律速"},
    "tracediff.unpaired": {
        "en": "Unpaired steps: {before} only before, {after} only after.",
        "ja": "対のないステップ: 変更前のみ {before} 個、変更後のみ {after} 個。",
    },
    # --- calls ---
    "tracediff.calls": {"en": "Attention calls, matched", "ja": "アテンションの呼び出しの対応"},
    "tracediff.col.call": {"en": "call", "ja": "呼び出し"},
    "tracediff.col.match": {"en": "match", "ja": "対応"},
    "tracediff.col.per_step": {"en": "per step", "ja": "ステップあたり"},
    "tracediff.match.same": {"en": "same call", "ja": "同じ呼び出し"},
    "tracediff.match.replaced": {"en": "replaced", "ja": "置き換え"},
    "tracediff.match.vanished": {"en": "only before", "ja": "変更前のみ"},
    "tracediff.match.appeared": {"en": "only after", "ja": "変更後のみ"},
    "tracediff.inputs": {
        "en": "call {n}, inputs: before {before}; after {after}",
        "ja": "呼び出し {n} の入力: 変更前 {before}、変更後 {after}",
    },
    "tracediff.no_calls": {
        "en": "Neither trace has an attention call.",
        "ja": "どちらのトレースにもアテンションの呼び出しがありません。",
    },
    "tracediff.times": {
        "en": "Their time (median per call or per step, with its noise band)",
        "ja": "その時間 (呼び出しあたり・ステップあたりの中央値とノイズ幅)",
    },
    "tracediff.col.gpu_call": {"en": "GPU µs per call", "ja": "呼び出しあたり GPU µs"},
    "tracediff.col.cpu_call": {"en": "CPU µs per call", "ja": "呼び出しあたり CPU µs"},
    "tracediff.col.gpu_step": {"en": "GPU µs per step", "ja": "ステップあたり GPU µs"},
    # --- kernels ---
    "tracediff.kernels": {
        "en": "Kernels of each call, before and after (time per call)",
        "ja": "各呼び出しのカーネル (変更前と変更後、呼び出しあたりの時間)",
    },
    "tracediff.col.launches": {"en": "launches per call", "ja": "呼び出しあたりの起動数"},
    "tracediff.col.kernel_us": {"en": "µs per call", "ja": "呼び出しあたり µs"},
    "tracediff.kernel.more": {"en": "(+{n} kernels)", "ja": "(ほかにカーネル {n} 個)"},
    "tracediff.no_kernels": {
        "en": "The matched calls launched no GPU work in either trace.",
        "ja": "対応した呼び出しは、どちらのトレースでも GPU の処理を起動していません。",
    },
    # --- the page, the command line ---
    "tracediff.html.made_by": {
        "en": "Made by attnprof diff from {before} and {after}, offline; the figures come from the two traces alone.",
        "ja": "attnprof diff が {before} と {after} からオフラインで作成しました。数値は 2 つのトレースだけから"
        "得たものです。",
    },
    "tracediff.progress.read": {
        "en": "{which} {name}: {events} events, {calls} attention calls in {steps} steps, read in {seconds} s",
        "ja": "{which} {name}: イベント {events} 個、{steps} ステップにアテンションの呼び出し {calls} 回、"
        "{seconds} 秒で読み取り",
    },
    "tracediff.progress.json": {"en": "JSON written to {name}", "ja": "JSON を {name} に書き出しました"},
    "tracediff.progress.html": {"en": "HTML page written to {name}", "ja": "HTML ページを {name} に書き出しました"},
    # --- the drop-in page ---
    "tracediff.dropin.prompt": {
        "en": "Or compare two traces: drop BEFORE and AFTER together here, or choose them one after the other:",
        "ja": "2 つのトレースを比べることもできます。変更前と変更後をまとめてここにドロップするか、"
        "順に選んでください:",
    },
    "tracediff.dropin.no_script": {
        "en": "The comparison of two traces needs JavaScript. Without it, run attnprof diff BEFORE AFTER for the "
        "same comparison.",
        "ja": "2 つのトレースの比較には JavaScript が必要です。JavaScript なしでは、attnprof diff BEFORE AFTER で同じ"
        "比較が得られます。",
    },
    "tracediff.dropin.choose_before": {"en": "BEFORE:", "ja": "変更前:"},
    "tracediff.dropin.choose_after": {"en": "AFTER:", "ja": "変更後:"},
    "tracediff.dropin.waiting": {
        "en": "{name} read as BEFORE; now AFTER.",
        "ja": "{name} を変更前として読み取りました。次は変更後です。",
    },
    "tracediff.dropin.two": {
        "en": "Drop two files to compare them (first BEFORE, then AFTER, by name order); {n} were dropped.",
        "ja": "比べるにはファイルを 2 つドロップしてください (名前順で先が変更前、後が変更後)。ドロップされたのは "
        "{n} 個です。",
    },
    "tracediff.dropin.read_in": {
        "en": "Compared in {seconds} s by this page; nothing left your browser.",
        "ja": "このページが {seconds} 秒で比較しました。ブラウザの外には何も送っていません。",
    },
}
