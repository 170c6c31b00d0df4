"""Words of ``attnprof explain --measure`` (:mod:`attnprof.render.advice`): what each attention call of a trace would
cost here, rebuilt and measured, and what changing it would save.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

ADVICE: dict[str, dict[str, str]] = {
    # --- progress, refusals ---
    "advice.progress.start": {
        "en": "measuring {options} options of {cases} distinct calls on {device}, about {seconds} (estimated)",
        "ja": "{device} で {cases} 個の異なる呼び出しの選択肢 {options} 個を計測します (推定 {seconds})",
    },
    "advice.progress.option": {"en": "call {n}, {option}: {result}", "ja": "呼び出し {n}、{option}: {result}"},
    "advice.progress.done": {"en": "measured in {seconds}", "ja": "計測は {seconds} で終わりました"},
    "advice.refuse.budget": {
        "en": "measuring {options} options would take about {seconds} (estimated), more than the budget of {budget} "
        "(--budget-s); raise --budget-s, measure fewer calls (--max-calls), or add --force",
        "ja": "選択肢 {options} 個の計測にはおよそ {seconds} (推定) かかり、予算 {budget} (--budget-s) を超えます。"
        "--budget-s を増やすか、計測する呼び出しを減らす (--max-calls) か、--force を付けてください",
    },
    "advice.refuse.device": {
        "en": "--measure rebuilds each call of {name} on the trace's device, which cannot be here: {reason}; run it "
        "on a machine with {gpu}",
        "ja": "--measure は {name} の各呼び出しをトレースのデバイスで組み直しますが、ここではできません: "
        "{reason}。{gpu} のあるマシンで実行してください",
    },
    "advice.refuse.no_torch": {
        "en": "--measure runs each call with PyTorch, and {reason}; install torch, then run it again",
        "ja": "--measure は各呼び出しを PyTorch で実行しますが、{reason}。torch をインストールしてから実行し直して"
        "ください",
    },
    "advice.would_refuse": {"en": "would be refused: {why}", "ja": "実行すると拒否されます: {why}"},
    # --- the head ---
    "advice.title": {
        "en": "What each call costs here, and what a change would save",
        "ja": "各呼び出しのここでのコストと、変更で節約できる時間",
    },
    "advice.where": {
        "en": "Measured by this run on {device} with PyTorch {torch} (distinct calls: {cases}, options: {options}) "
        "in {seconds}. Each time is {timer}: the median and its 95 % band.",
        "ja": "この実行が {device} と PyTorch {torch} で計測しました (異なる呼び出し {cases} 個、選択肢 {options} "
        "個、所要 {seconds})。時間はいずれも{timer} の中央値と 95 % の幅です。",
    },
    "advice.timer.cuda_event_prefilled": {
        "en": "the GPU time of single calls (CUDA events, the GPU pre-filled)",
        "ja": "単独の呼び出しの GPU 時間 (CUDA イベント、GPU を事前に埋めて計測)",
    },
    "advice.timer.cuda_event": {
        "en": "the GPU time of single calls (CUDA events)",
        "ja": "単独の呼び出しの GPU 時間 (CUDA イベント)",
    },
    "advice.timer.perf_counter": {
        "en": "the CPU time of single calls (perf_counter)",
        "ja": "単独の呼び出しの CPU 時間 (perf_counter)",
    },
    "advice.loud": {"en": "WARNING", "ja": "警告"},
    "advice.mismatch.gpu": {
        "en": "This GPU is not the trace's: the trace was recorded on {trace}, these calls ran on {here}. Every time "
        "measured here is this GPU's; what a change saves on the trace's GPU may differ.",
        "ja": "この GPU はトレースの GPU ではありません。トレースは {trace} で記録され、ここでの呼び出しは {here} "
        "で実行しました。ここで計測した時間はすべてこの GPU のもので、トレースの GPU で変更が節約する時間は"
        "異なる場合があります。",
    },
    "advice.mismatch.cuda": {
        "en": "The trace's CUDA runtime is {trace}, this PyTorch's is {here}: another PyTorch build recorded it, and "
        "its backends may choose and run differently from this one's.",
        "ja": "トレースの CUDA ランタイムは {trace}、この PyTorch は {here} です。別のビルドの PyTorch で記録された"
        "ため、バックエンドの選択と実行がここと異なる可能性があります。",
    },
    "advice.mismatch.gpu_unknown": {
        "en": "The trace names no GPU (no deviceProperties): whether {here} is the trace's GPU cannot be told.",
        "ja": "トレースに GPU の名前がありません (deviceProperties なし)。{here} がトレースの GPU かどうかは"
        "分かりません。",
    },
    "advice.mismatch.torch_unknown": {
        "en": "A trace does not record the PyTorch that wrote it (this one's CUDA runtime: {trace}); these calls ran "
        "with PyTorch {here}.",
        "ja": "トレースには記録した PyTorch のバージョンが残りません (CUDA ランタイムは {trace})。ここでの呼び出しは "
        "PyTorch {here} で実行しました。",
    },
    "advice.mismatch.cpu_unknown": {
        "en": "A CPU trace records neither its CPU nor its PyTorch: these calls ran on the CPU, as the trace did: "
        "{here}, PyTorch {torch}.",
        "ja": "CPU のトレースには CPU も PyTorch も記録されません。ここでの呼び出しはトレースと同じく CPU で実行"
        "しました: {here}、PyTorch {torch}。",
    },
    "advice.unknown": {"en": "not recorded", "ja": "記録なし"},
    "advice.no_device": {
        "en": "Not measured: measuring rebuilds each call on the trace's device, and this trace was recorded on "
        "{gpu}, while this machine has no CUDA GPU ({reason}). Run attnprof explain --measure where that GPU is.",
        "ja": "計測していません。計測は各呼び出しをトレースのデバイスで組み直して行いますが、このトレースは {gpu} "
        "で記録され、このマシンには CUDA GPU がありません ({reason})。その GPU のあるマシンで attnprof explain "
        "--measure を実行してください。",
    },
    "advice.a_gpu": {"en": "a GPU", "ja": "GPU"},
    "advice.dry_run": {
        "en": "Dry run: the plan only, nothing measured (distinct calls: {cases}, options: {options}); about "
        "{seconds} of measuring (estimated; the budget is {budget}).",
        "ja": "ドライラン: 計画のみで、何も計測していません。異なる呼び出し {cases} 個、選択肢 {options} 個、"
        "計測の所要はおよそ {seconds} (推定、予算は {budget})。",
    },
    "advice.no_cases": {
        "en": "No attention call to measure.",
        "ja": "計測するアテンションの呼び出しはありません。",
    },
    "advice.total": {
        "en": "Taking the fastest option of every call saves about {us} µs per step [{lo}–{hi}], {share} of the "
        "trace's step ({step} µs).",
        "ja": "すべての呼び出しで最速の選択肢を取ると、1 ステップあたり約 {us} µs [{lo}–{hi}] 節約でき、"
        "トレースのステップ ({step} µs) の {share} にあたります。",
    },
    "advice.total.no_step": {
        "en": "Taking the fastest option of every call saves about {us} µs per step [{lo}–{hi}].",
        "ja": "すべての呼び出しで最速の選択肢を取ると、1 ステップあたり約 {us} µs [{lo}–{hi}] 節約できます。",
    },
    "advice.total.none": {
        "en": "No option is faster than a call as recorded beyond the noise: nothing this run measured saves time.",
        "ja": "ノイズを超えて記録どおりの呼び出しより速い選択肢はありません。この計測では節約できる時間は"
        "見つかりませんでした。",
    },
    # --- one call ---
    "advice.case": {
        "en": "Call {n}: {what} ({backend}), {direction}, {per_step} per step",
        "ja": "呼び出し {n}: {what} ({backend})、{direction}、ステップあたり {per_step} 回",
    },
    "advice.dir.train": {"en": "forward and backward", "ja": "フォワードとバックワード"},
    "advice.dir.fwd": {"en": "forward", "ja": "フォワード"},
    "advice.rebuilt": {"en": "Rebuilt as: {spec}", "ja": "組み直した入力: {spec}"},
    "advice.trace_time": {
        "en": "In the trace: {us} µs per call ({clock}, recorded on {device}).",
        "ja": "トレースでは: 1 回あたり {us} µs ({clock}、{device} で記録)。",
    },
    "advice.trace_time.none": {
        "en": "The trace has no time for this call.",
        "ja": "トレースにはこの呼び出しの時間がありません。",
    },
    "advice.here_time": {
        "en": "The same call measured here: {us} µs per call [{lo}–{hi}], {ratio}× the trace's.",
        "ja": "同じ呼び出しをここで計測: 1 回あたり {us} µs [{lo}–{hi}]、トレースの {ratio} 倍。",
    },
    "advice.here_time.no_trace": {
        "en": "The same call measured here: {us} µs per call [{lo}–{hi}].",
        "ja": "同じ呼び出しをここで計測: 1 回あたり {us} µs [{lo}–{hi}]。",
    },
    "advice.clock.gpu": {"en": "GPU time", "ja": "GPU 時間"},
    "advice.clock.cpu": {"en": "CPU time", "ja": "CPU 時間"},
    "advice.spec.train": {"en": "training", "ja": "学習"},
    "advice.spec.expanded": {"en": "K/V expanded from {heads} heads", "ja": "K/V を {heads} ヘッドから展開"},
    "advice.spec.fp32_softmax": {"en": "softmax in fp32", "ja": "ソフトマックスは fp32"},
    "advice.spec.strided": {"en": "recorded strides", "ja": "記録どおりのストライド"},
    "advice.spec.bool": {"en": "boolean mask {shape}", "ja": "ブールマスク {shape}"},
    "advice.spec.float": {"en": "additive float mask {shape}", "ja": "加算型の浮動小数点マスク {shape}"},
    "advice.unmeasured.no_shapes": {
        "en": "Not measured: the trace did not record this call's shapes. Record with "
        "torch.profiler.profile(record_shapes=True, ...) to measure it.",
        "ja": "計測していません。トレースにこの呼び出しの形状が記録されていません。計測するには "
        "torch.profiler.profile(record_shapes=True, ...) で記録してください。",
    },
    "advice.unmeasured.flex_shapes": {
        "en": "Not measured: the trace holds no input shapes of this FlexAttention call, so it cannot be rebuilt "
        "(record with record_shapes=True; a compiled call's kernel records them only where its op does).",
        "ja": "計測していません。トレースにこの FlexAttention 呼び出しの入力形状がないため、組み直せません "
        "(record_shapes=True で記録してください。コンパイル済みの呼び出しでは、演算が記録する場合に限り"
        "カーネルにも残ります)。",
    },
    "advice.unmeasured.not_rebuildable": {
        "en": "Not measured: the recorded operands do not make one attention call that can be rebuilt.",
        "ja": "計測していません。記録されたオペランドからは、組み直せる 1 つのアテンション呼び出しになりません。",
    },
    "advice.unmeasured.no_forward": {
        "en": "Not measured: a backward whose forward is not in the trace.",
        "ja": "計測していません。対応するフォワードがトレースにないバックワードです。",
    },
    "advice.unmeasured.max_calls": {
        "en": "Not measured: only the {max} costliest distinct calls are measured (--max-calls raises it).",
        "ja": "計測していません。計測するのはコストの大きい順に異なる呼び出し {max} 個までです "
        "(--max-calls で増やせます)。",
    },
    "advice.case_note.mask_fill": {
        "en": "A trace records a mask's shape, not its values: the mask is rebuilt as {fill} (--mask says "
        "otherwise).",
        "ja": "トレースに残るのはマスクの形状だけで、値は残りません。マスクは{fill}として組み直しました "
        "(別の内容なら --mask で指定できます)。",
    },
    "advice.case_note.mask_assumed": {
        "en": "The code applies a mask between the two matrix products; it is rebuilt as one mask per batch row, "
        "broadcast over the heads, holding {fill}.",
        "ja": "コードは 2 つの行列積の間でマスクを適用しています。バッチの行ごとに 1 つ、ヘッド方向にブロードキャスト"
        "されるマスク ({fill}) として組み直しました。",
    },
    "advice.case_note.block_mask": {
        "en": "A trace does not record FlexAttention's block mask: the call is rebuilt with the block mask of {fill} "
        "(--mask says otherwise), and SDPA with the same mask as a dense boolean one.",
        "ja": "トレースには FlexAttention のブロックマスクが記録されません。呼び出しは{fill}のブロックマスクで"
        "組み直し (別の内容なら --mask で指定できます)、SDPA には同じマスクを密なブールマスクとして渡しました。",
    },
    "advice.case_note.decode": {
        "en": "Decoding against a growing KV cache of {lo} to {hi} positions: measured at the median, {at}; the "
        "trace's time is the mean of all of them.",
        "ja": "伸びていく KV キャッシュ ({lo}〜{hi} 位置) に対するデコードです。中央の {at} で計測しました。"
        "トレースの時間はそのすべての平均です。",
    },
    "advice.case_note.dropout_unknown": {
        "en": "The dropout probability was not recorded: measured without dropout.",
        "ja": "ドロップアウト率が記録されていないため、ドロップアウトなしで計測しました。",
    },
    "advice.case_note.compiled": {
        "en": "The trace's call was compiled (torch.compile); it is rebuilt and measured as eager code.",
        "ja": "トレースの呼び出しはコンパイル済み (torch.compile) でした。ここでは eager のコードとして組み直して"
        "計測しました。",
    },
    "advice.fill.causal": {"en": "the causal triangle", "ja": "因果の三角形"},
    "advice.fill.sliding": {
        "en": "a causal window of {w} positions",
        "ja": "{w} 位置の因果的なスライディングウィンドウ",
    },
    "advice.fill.documents": {
        "en": "{n} packed documents per row, causal within each",
        "ja": "行ごとに {n} 個の詰め込まれた文書 (文書内で因果的)",
    },
    # --- the options ---
    "advice.col.option": {"en": "option", "ja": "選択肢"},
    "advice.col.time_us": {"en": "µs per call", "ja": "1 回あたり µs"},
    "advice.col.band": {"en": "95 % band", "ja": "95 % の幅"},
    "advice.col.vs": {"en": "vs as recorded", "ja": "記録どおりとの差"},
    "advice.col.note": {"en": "note", "ja": "備考"},
    "advice.col.estimate": {"en": "estimate", "ja": "推定"},
    "advice.option.recorded": {"en": "as recorded ({how})", "ja": "記録どおり ({how})"},
    "advice.option.backend": {"en": "SDPA, {backend} forced", "ja": "SDPA、{backend} を強制"},
    "advice.option.auto": {"en": "SDPA's own choice", "ja": "SDPA 自身の選択"},
    "advice.option.change": {"en": "SDPA's own choice + {changes}", "ja": "SDPA 自身の選択 + {changes}"},
    "advice.option.flex": {
        "en": "FlexAttention, block mask{changes}",
        "ja": "FlexAttention、ブロックマスク{changes}",
    },
    "advice.how.handwritten": {"en": "hand-written code", "ja": "手書きのコード"},
    "advice.how.backend": {"en": "{backend} forced", "ja": "{backend} を強制"},
    "advice.how.auto": {"en": "SDPA's own choice", "ja": "SDPA 自身の選択"},
    "advice.change.gqa": {"en": "enable_gqa=True", "ja": "enable_gqa=True"},
    "advice.change.causal": {"en": "is_causal=True", "ja": "is_causal=True"},
    "advice.change.bf16": {"en": "bf16", "ja": "bf16"},
    "advice.changes": {"en": "Changes: {changes}.", "ja": "変更の意味: {changes}。"},
    "advice.changes.gqa": {
        "en": "enable_gqa=True instead of keys and values expanded to every query head",
        "ja": "enable_gqa=True はキーとバリューを全クエリヘッドへ展開する代わり",
    },
    "advice.changes.causal": {
        "en": "is_causal=True instead of the dense mask",
        "ja": "is_causal=True は密なマスクの代わり",
    },
    "advice.changes.bf16": {"en": "bf16 instead of fp32", "ja": "bf16 は fp32 の代わり"},
    "advice.sep": {"en": "; ", "ja": "、"},
    "advice.caveat.bf16": {"en": "changes the numerics", "ja": "数値精度が変わる"},
    "advice.caveat.causal": {
        "en": "the same result only if the mask is the causal triangle",
        "ja": "マスクが因果の三角形のときだけ同じ結果",
    },
    "advice.caveat.flex": {
        "en": "the block mask must hold the same mask",
        "ja": "ブロックマスクが同じマスクを表す必要がある",
    },
    "advice.ran": {"en": "ran {backend}", "ja": "実行は {backend}"},
    "advice.unstable": {"en": "samples unsteady", "ja": "サンプルが不安定"},
    "advice.wide": {"en": "band too wide to compare", "ja": "幅が広すぎて比較できない"},
    "advice.status.refuses": {"en": "PyTorch refuses: {reason}", "ja": "PyTorch が拒否: {reason}"},
    "advice.status.failed": {"en": "failed: {reason}", "ja": "失敗: {reason}"},
    "advice.status.too_big": {"en": "not run: {reason}", "ja": "未実行: {reason}"},
    "advice.status.not_here": {"en": "not run: {reason}", "ja": "未実行: {reason}"},
    "advice.status.over_budget": {"en": "not run: {reason}", "ja": "未実行: {reason}"},
    "advice.status.planned": {"en": "planned", "ja": "計画のみ"},
    "advice.estimate": {"en": "about {seconds}, {bytes}", "ja": "約 {seconds}、{bytes}"},
    # --- the verdict ---
    "advice.verdict.faster": {
        "en": "Fastest here: {option}. It saves {us} µs per step [{lo}–{hi}]{share}.",
        "ja": "ここで最速: {option}。1 ステップあたり {us} µs [{lo}–{hi}] 節約できます{share}。",
    },
    "advice.verdict.share": {"en": ", {share} of the trace's step", "ja": " (トレースのステップの {share})"},
    "advice.verdict.tied": {
        "en": "Too close to call between the fastest options: {options}.",
        "ja": "最速の選択肢どうしは僅差で判定できません: {options}。",
    },
    "advice.verdict.recorded": {
        "en": "The call as recorded is the fastest option here: nothing to change.",
        "ja": "記録どおりの呼び出しがここでの最速です。変える必要はありません。",
    },
    "advice.verdict.tie": {
        "en": "Too close to call: the call as recorded and {options} overlap, so no saving can be called on this "
        "run.",
        "ja": "僅差で判定できません。記録どおりの呼び出しと {options} の幅が重なるため、この計測では節約を"
        "言えません。",
    },
    "advice.verdict.unreliable": {
        "en": "The call as recorded ran, but its band is too wide to compare with anything (something else ran "
        "meanwhile?): measure again.",
        "ja": "記録どおりの呼び出しは実行できましたが、幅が広すぎて比較できません (計測中に別の処理が動いていた"
        "可能性があります)。計測し直してください。",
    },
    "advice.verdict.unmeasured": {
        "en": "No comparison: the call as recorded did not run here.",
        "ja": "比較できません。記録どおりの呼び出しがここでは実行できませんでした。",
    },
}
