"""Words of the verdicts (:mod:`attnprof.analysis.verdicts`): what a step costs, its regime, the margin, and the
one-line reason beside every verdict of the decision page and the landing page.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

VERDICTS: dict[str, dict[str, str]] = {
    # --- an option and what its step costs ---
    "verdict.auto": {"en": "SDPA's choice ({backend})", "ja": "SDPA の選択 ({backend})"},
    "verdict.step": {"en": "{option}: {median} µs ({lo}–{hi})", "ja": "{option}: {median} µs ({lo}–{hi})"},
    "verdict.regime.gpu": {
        "en": "GPU-bound: GPU {gpu} µs, issue {issue} µs",
        "ja": "GPU 律速: GPU {gpu} µs、発行 {issue} µs",
    },
    "verdict.regime.cpu": {
        "en": "CPU-bound: issue {issue} µs, GPU {gpu} µs",
        "ja": "CPU 律速: 発行 {issue} µs、GPU {gpu} µs",
    },
    "verdict.regime.balanced": {
        "en": "balanced: issue {issue} µs, GPU {gpu} µs",
        "ja": "均衡: 発行 {issue} µs、GPU {gpu} µs",
    },
    "verdict.regime.cpu_device": {
        "en": "measured on the CPU: one time, the whole call",
        "ja": "CPU で計測: 呼び出し全体の時間 1 つ",
    },
    "verdict.regime.unknown": {
        "en": "GPU {gpu} µs; issue time not measured",
        "ja": "GPU {gpu} µs。発行時間は計測なし",
    },
    "verdict.own_run": {"en": "{text} †", "ja": "{text} †"},
    "verdict.own_run_note": {
        "en": "† Issue time from the variant's own run, not measured side by side with the others of its row: "
        "compare it with care.",
        "ja": "† 発行時間はそのバリアント単独の実行から取った値で、同じ行の他の呼び出しと並べて計測したものでは"
        "ありません。比較には注意してください。",
    },
    "verdict.regime_word.gpu": {"en": "GPU-bound", "ja": "GPU 律速"},
    "verdict.regime_word.cpu": {"en": "CPU-bound", "ja": "CPU 律速"},
    "verdict.regime_word.balanced": {"en": "balanced", "ja": "均衡"},
    "verdict.regime_word.none": {"en": "no regime (CPU)", "ja": "律速なし (CPU)"},
    "verdict.regime_word.unknown": {"en": "regime not measured", "ja": "律速は計測なし"},
    # --- the columns of the decision table ---
    "col.best_step": {"en": "Best per step (µs)", "ja": "ステップあたり最良 (µs)"},
    "col.next_step": {"en": "Next (costs more by)", "ja": "次点 (多くかかる分)"},
    "col.what_to_do": {"en": "Force a backend?", "ja": "バックエンドを強制すべきか"},
    "col.flex_step": {"en": "FlexAttention vs best", "ja": "FlexAttention と最良の比"},
    # --- the reason beside a verdict: forcing a backend ---
    "forcing_advice.keep.cpu": {
        "en": "SDPA already picks {picked} here; forcing it adds {median} µs of CPU per call ({lo}–{hi}), "
        "{share} of a step, which is CPU-bound: do not force.",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制すると呼び出しごとに CPU 時間が {median} µs "
        "({lo}–{hi}) 増え、CPU 律速のステップの {share} にあたります。強制しないでください。",
    },
    "forcing_advice.keep.gpu": {
        "en": "SDPA already picks {picked} here; forcing it adds {median} µs of CPU per call ({lo}–{hi}), hidden "
        "behind the GPU's {gpu} µs: nothing to gain by forcing.",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制すると呼び出しごとに CPU 時間が {median} µs "
        "({lo}–{hi}) 増えますが、GPU の {gpu} µs の陰に隠れます。強制しても得るものはありません。",
    },
    "forcing_advice.keep.balanced": {
        "en": "SDPA already picks {picked} here; forcing it adds {median} µs of CPU per call ({lo}–{hi}), with the "
        "issue about as long as the GPU's {gpu} µs: do not force.",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制すると呼び出しごとに CPU 時間が {median} µs "
        "({lo}–{hi}) 増え、発行時間は GPU の {gpu} µs とほぼ同じです。強制しないでください。",
    },
    "forcing_advice.keep.none": {
        "en": "SDPA already picks {picked} here; forcing it adds {median} µs per call ({lo}–{hi}), {share} of the "
        "call "
        "on this CPU, which does all the work: do not force.",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制すると呼び出しごとに {median} µs ({lo}–{hi}) 増え、"
        "すべての処理をこの CPU が行う呼び出しの {share} にあたります。強制しないでください。",
    },
    "forcing_advice.keep.zero": {
        "en": "SDPA already picks {picked} here; forcing it adds no CPU time this build can tell apart from zero "
        "({lo} to {hi} µs per call): nothing to gain by forcing.",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制しても、このビルドでゼロと区別できる CPU 時間の増加は"
        "ありません (呼び出しごとに {lo}〜{hi} µs)。強制しても得るものはありません。",
    },
    "forcing_advice.keep.unmeasured": {
        "en": "SDPA already picks {picked} here: forcing it runs the same kernel and only adds CPU time (not "
        "measured side by side at this shape).",
        "ja": "SDPA はここで既に {picked} を選んでいます。強制しても同じカーネルが動き、CPU 時間が増えるだけです "
        "(この形状では並べて計測していません)。",
    },
    "forcing_advice.force": {
        "en": "SDPA picks {picked} here, but forcing {best} saves {median} of a step ({lo} to {hi}), its extra CPU "
        "time included: force it, for these shapes.",
        "ja": "SDPA はここで {picked} を選びますが、{best} を強制するとステップが {median} ({lo}〜{hi}) 短くなります "
        "(増える CPU 時間を含む)。この形状では強制してください。",
    },
    "forcing_advice.no_gain": {
        "en": "SDPA picks {picked} here; forcing {best} would save {median} of a step ({lo} to {hi}), its extra CPU "
        "time included: nothing beyond the noise, so do not force.",
        "ja": "SDPA はここで {picked} を選びます。{best} を強制した場合の短縮はステップの {median} ({lo}〜{hi}、"
        "増える CPU 時間を含む) で、ノイズを超えません。強制しないでください。",
    },
    "forcing_advice.costs": {
        "en": "SDPA picks {picked} here; forcing {best}, whose kernel is faster, makes a step longer by {neg} ({nlo} "
        "to {nhi}), its extra CPU time included: do not force.",
        "ja": "SDPA はここで {picked} を選びます。カーネルの速い {best} を強制すると、増える CPU "
        "時間を含めてステップが "
        "{neg} ({nlo}〜{nhi}) 長くなります。強制しないでください。",
    },
    "forcing_advice.unknown": {
        "en": "not decided: SDPA's own choice or the backends it can be forced to were not measured here",
        "ja": "判定しない: SDPA 自身の選択か、強制できるバックエンドがここでは計測されていない",
    },
    "forcing_advice.unknown_pick": {"en": "an unnamed backend", "ja": "名前の分からないバックエンド"},
    # --- the landing page's answer, one line per workload ---
    "answer.segment": {
        "en": "{lengths}: {winner}; next {next}, {margin} per step; {regime}.",
        "ja": "{lengths}: {winner}。次点 {next} はステップあたり {margin}。{regime}。",
    },
    "answer.segment_tie": {
        "en": "{lengths}: {winner} or {next}, too close to call ({margin}); {regime}.",
        "ja": "{lengths}: {winner} か {next} (僅差で判定できない、{margin})。{regime}。",
    },
    "answer.segment_alone": {
        "en": "{lengths}: {winner}, the only option that ran, {regime}.",
        "ja": "{lengths}: {winner} (実行できた唯一の方法)。{regime}。",
    },
    "answer.one": {"en": "{median} ({lo} to {hi})", "ja": "{median} ({lo}〜{hi})"},
    "answer.range": {
        "en": "{low} to {high} (bands {lo} to {hi})",
        "ja": "{low}〜{high} (ノイズ幅 {lo}〜{hi})",
    },
    "answer.line": {"en": "{workload} ({conditions}):", "ja": "{workload} ({conditions}):"},
    "answer.keep": {
        "en": "SDPA already picks its best backend here ({picked}): do not force (forcing it adds {median} µs of CPU "
        "per call, {lo}–{hi}).",
        "ja": "SDPA はここで既に最良のバックエンド ({picked}) を選んでいます。強制しないでください "
        "(強制すると呼び出しごとに "
        "CPU 時間が {median} µs、{lo}–{hi} 増える)。",
    },
    "answer.keep_unmeasured": {
        "en": "SDPA already picks its best backend here ({picked}): do not force.",
        "ja": "SDPA はここで既に最良のバックエンド ({picked}) を選んでいます。強制しないでください。",
    },
    "answer.force": {
        "en": "SDPA picks {picked}: forcing {best} saves {median} of a step ({lo} to {hi}).",
        "ja": "SDPA は {picked} を選びます。{best} を強制するとステップが {median} ({lo}〜{hi}) 短くなります。",
    },
    "answer.no_gain": {
        "en": "SDPA picks {picked}; forcing {best} gains nothing beyond the noise ({median}, {lo} to {hi}).",
        "ja": "SDPA は {picked} を選びます。{best} を強制してもノイズを超える短縮はありません "
        "({median}、{lo}〜{hi})。",
    },
    "answer.costs": {
        "en": "SDPA picks {picked}; forcing {best} makes a step longer by {neg} ({nlo} to {nhi}): do not force.",
        "ja": "SDPA は {picked} を選びます。{best} を強制するとステップが {neg} ({nlo}〜{nhi}) 長くなります。"
        "強制しないでください。",
    },
    "answer.unknown": {
        "en": "Whether to force a backend: not decided, SDPA's own choice or its pick not recorded here.",
        "ja": "バックエンドを強制すべきか: 判定しない (SDPA 自身の選択かその選んだバックエンドがここでは記録されてい"
        "ない)。",
    },
    "answer.join": {"en": "{text} {advice}", "ja": "{text}{advice}"},
    "answer.lengths": {"en": "{first}–{last}", "ja": "{first}〜{last}"},
    "answer.undecided": {
        "en": "{lengths}: not decided, every option measured with a band too wide to decide anything.",
        "ja": "{lengths}: 判定しない。どの方法もノイズ幅が広すぎて判定に使えない。",
    },
    # --- the printed table of examples/11-cpu-overhead.py ---
    "report.forcing.head": {
        "en": "Issue time of each call at every shape of the decision table, side by side ({device}, {seconds} s in "
        "all); 'over SDPA's choice' is the whole difference forcing makes, round by round",
        "ja": "判定の表の各形状での呼び出しごとの発行時間を並べて計測 ({device}、合計 {seconds} s)。"
        "「SDPA の選択との差」は強制によって生じる差の全体 (ラウンドごと)",
    },
    "report.forcing.case": {
        "en": "{workload}, {length}: {rounds} rounds of {calls} calls",
        "ja": "{workload}、{length}: {calls} 回の呼び出しを {rounds} ラウンド",
    },
    "status.slow": {
        "en": "not timed: one call is so long that its issue time cannot matter",
        "ja": "計時せず: 1 回の呼び出しが長く、発行時間が影響しえない",
    },
    "report.col.issue_us": {"en": "issue us", "ja": "発行 us"},
    "report.col.over_auto_us": {"en": "over SDPA's choice us", "ja": "SDPA の選択との差 us"},
    # --- the at-a-glance table's CPU columns ---
    "compare.cpu_side": {
        "en": "The two CPU columns, per call at {shape}, {dtype}, every variant measured in the same {rounds} "
        "rounds, in turn (the median of the rounds' medians, its 95% interval over the rounds in brackets): the "
        "profiled CPU time is the length of the call's record_function range with the profiler recording, what a "
        "trace shows; the dispatch cost is the CPU time until the call returns without the profiler, the GPU idle "
        "before it, what a CPU-bound step costs.",
        "ja": "2 つの CPU 列は {shape}、{dtype} での呼び出しあたりの値で、すべてのバリアントを同じ {rounds} "
        "ラウンドで順に計測したものです (各ラウンドの中央値の中央値、括弧内はラウンド間の 95% 区間)。"
        "プロファイル下の CPU 時間は、プロファイラが記録している状態での呼び出しの record_function 範囲の長さで、"
        "トレースに表示される値です。ディスパッチコストは、GPU をアイドルにしてからプロファイラなしで呼び出しが"
        "戻るまでの CPU 時間で、CPU 律速のステップが払う値です。",
    },
    "compare.cpu_own": {
        "en": "The two CPU columns come from each variant's own run, measured minutes apart: the profiled CPU time "
        "is the length of the call's record_function range in its trace, the dispatch cost the CPU time until the "
        "call returns without the profiler, the GPU idle before it. Differences between rows may be drift of the "
        "machine rather than of the variants.",
        "ja": "2 つの CPU 列は、各バリアント自身の実行 (数分の間隔をおいた計測) から取った値です。プロファイル下の "
        "CPU 時間はトレース中の呼び出しの record_function 範囲の長さ、ディスパッチコストは GPU をアイドルにしてから"
        "プロファイラなしで呼び出しが戻るまでの CPU 時間です。行の間の差は、バリアントの差ではなくマシンの状態の"
        "揺れかもしれません。",
    },
    # --- the answer beyond the decision table: training across lengths, masks, grouped heads ---
    "verdict.extra": {
        "en": "includes building the mask, {median} µs ({lo}–{hi}): it changes with every batch",
        "ja": "マスクの構築 {median} µs ({lo}–{hi}) を含む (バッチごとに変わるため)",
    },
    "answer.scale": {
        "en": "Training across lengths, head_dim {head_dim} (forward and backward of each forced backend; causal "
        "mask, {dtype}, the tokens per batch fixed):",
        "ja": "長さを変えた学習、head_dim {head_dim} (強制した各バックエンドのフォワードとバックワード。因果マスク、"
        "{dtype}、バッチあたりのトークン数は一定):",
    },
    "answer.mask": {
        "en": "{mask}, seq {seqs} (batch {batch}, {heads} heads, head_dim {head_dim}, {dtype}):",
        "ja": "{mask}、系列長 {seqs} (バッチ {batch}、ヘッド {heads}、head_dim {head_dim}、{dtype}):",
    },
    "answer.rebuilt": {
        "en": "{text}; the mask changes with every batch, so each step includes building it:",
        "ja": "{text}。マスクはバッチごとに変わるため、各ステップにその構築を含めています:",
    },
    "answer.mask_part": {"en": "{kinds}, window {windows}", "ja": "{kinds}、ウィンドウ {windows}"},
    "list.and": {"en": " and ", "ja": "と"},
    "answer.gqa": {
        "en": "Grouped heads (batch {batch}, {heads} query heads, seq {seq}, head_dim {head_dim}, {dtype}, causal "
        "mask; refused by {refused}):",
        "ja": "グループ化ヘッド (バッチ {batch}、クエリヘッド {heads}、系列長 {seq}、head_dim {head_dim}、{dtype}、"
        "因果マスク。拒否したバックエンド: {refused}):",
    },
    "answer.kv_heads": {"en": "KV heads {n}", "ja": "KV ヘッド {n}"},
    "answer.times": {"en": "{value}×", "ja": "{value} 倍"},
    "col.size": {"en": "Where", "ja": "条件"},
    "verdict.size.scale": {"en": "head_dim {head_dim}, seq {seq}", "ja": "head_dim {head_dim}、系列長 {seq}"},
    "verdict.size.window": {
        "en": "{mask}, window {window}, seq {seq}: {workload}",
        "ja": "{mask}、ウィンドウ {window}、系列長 {seq}: {workload}",
    },
    "verdict.size.mask": {"en": "{mask}, seq {seq}: {workload}", "ja": "{mask}、系列長 {seq}: {workload}"},
    "verdict.size.gqa": {"en": "{kv_heads} KV heads", "ja": "KV ヘッド {kv_heads}"},
}
