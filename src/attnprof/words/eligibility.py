"""Words of the eligibility map (which SDPA backend takes which inputs, and why) and of ``attnprof why``.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

ELIGIBILITY: dict[str, dict[str, str]] = {
    # --- families of conditions ---
    "elig.family.dtype": {"en": "Dtype", "ja": "データ型"},
    "elig.family.head_dim": {"en": "Head dimension", "ja": "ヘッド次元"},
    "elig.family.mask": {"en": "Mask", "ja": "マスク"},
    "elig.family.gqa": {"en": "Grouped-query attention", "ja": "グループ化クエリアテンション"},
    "elig.family.dropout": {"en": "Dropout", "ja": "ドロップアウト"},
    "elig.family.training": {"en": "Training: forward and backward", "ja": "学習: フォワードとバックワード"},
    "elig.family.layout": {"en": "Memory layout of the inputs", "ja": "入力のメモリレイアウト"},
    "elig.family.batch": {"en": "Batch", "ja": "バッチ"},
    # --- one condition, in words ---
    "elig.field.dtype": {"en": "{value}", "ja": "{value}"},
    "elig.field.head_dim": {"en": "head_dim {value}", "ja": "head_dim {value}"},
    "elig.field.heads": {"en": "{value} heads", "ja": "ヘッド {value}"},
    "elig.field.seq": {"en": "seq {value}", "ja": "系列長 {value}"},
    "elig.field.batch": {"en": "batch {value}", "ja": "バッチ {value}"},
    "elig.field.mask.none": {"en": "no mask", "ja": "マスクなし"},
    "elig.field.mask.causal": {"en": "is_causal=True", "ja": "is_causal=True"},
    "elig.field.mask.bool": {"en": "boolean mask", "ja": "ブールマスク"},
    "elig.field.mask.float": {"en": "additive float mask", "ja": "加算型の浮動小数点マスク"},
    "elig.field.kv_heads": {"en": "kv_heads={value}, enable_gqa=True", "ja": "kv_heads={value}、enable_gqa=True"},
    "elig.field.kv_heads.none": {"en": "no GQA, kv_heads={heads}", "ja": "GQA なし、kv_heads={heads}"},
    "elig.field.dropout": {"en": "dropout {value}", "ja": "ドロップアウト {value}"},
    "elig.field.dropout.none": {"en": "no dropout", "ja": "ドロップアウトなし"},
    "elig.field.requires_grad": {"en": "training", "ja": "学習"},
    "elig.field.requires_grad.none": {"en": "inference", "ja": "推論"},
    "elig.field.layout.contiguous": {"en": "contiguous", "ja": "連続"},
    "elig.field.layout.transposed": {"en": "transposed view of [B, S, H, D]", "ja": "[B, S, H, D] の転置ビュー"},
    "elig.field.layout.strided": {"en": "head_dim not contiguous", "ja": "head_dim が非連続"},
    "elig.field.layout.nested": {"en": "nested (jagged) tensor", "ja": "ネスト (ジャグド) テンソル"},
    "elig.base": {"en": "{label} (base)", "ja": "{label} (基準)"},
    "elig.sep": {"en": ", ", "ja": "、"},
    "elig.case": {
        "en": "{shape} {dtype}, {mask}, {rest}",
        "ja": "{shape} {dtype}、{mask}、{rest}",
    },
    # --- table columns ---
    "elig.col.condition": {"en": "Condition", "ja": "条件"},
    "elig.col.pick": {"en": "SDPA picks", "ja": "SDPA の選択"},
    "elig.col.fastest": {"en": "Fastest", "ja": "最速"},
    "elig.col.backend": {"en": "Backend", "ja": "バックエンド"},
    "elig.col.check": {"en": "Check", "ja": "チェック"},
    "elig.col.call": {"en": "Call", "ja": "呼び出し"},
    "elig.col.time": {"en": "Time", "ja": "時間"},
    "elig.col.reason": {"en": "PyTorch's reason", "ja": "PyTorch が示した理由"},
    # --- table cells ---
    "elig.cell.ran": {"en": "✓ {time}", "ja": "✓ {time}"},
    "elig.cell.ran_untimed": {"en": "✓", "ja": "✓"},
    "elig.cell.refuses": {"en": "✗ refuses ({note})", "ja": "✗ 拒否 ({note})"},
    "elig.cell.check_yes_call_no": {"en": "check ✓, call ✗ ({note})", "ja": "チェック ✓、呼び出し ✗ ({note})"},
    "elig.cell.check_no_call_yes": {"en": "check ✗ ({note}), call ✓", "ja": "チェック ✗ ({note})、呼び出し ✓"},
    "elig.cell.cuda_only": {"en": "CUDA only", "ja": "CUDA のみ"},
    "elig.cell.no_check": {"en": "no check ({note})", "ja": "チェックなし ({note})"},
    "elig.cell.error": {"en": "check failed ({note})", "ja": "チェック自体が失敗 ({note})"},
    "elig.cell.unasked": {"en": "not asked ({note})", "ja": "未確認 ({note})"},
    "elig.pick.none": {"en": "none ({note})", "ja": "なし ({note})"},
    "elig.pick.ran_other": {"en": "{pick}, but the call ran {ran}", "ja": "{pick} (ただし呼び出しは {ran} を実行)"},
    "elig.fastest.tie": {"en": " ≈ ", "ja": " ≈ "},
    # --- what a check or call answered, in words ---
    "elig.check.accepts": {"en": "accepts", "ja": "受け付ける"},
    "elig.check.refuses": {"en": "refuses", "ja": "拒否"},
    "elig.check.cuda_only": {"en": "CUDA only", "ja": "CUDA のみ"},
    "elig.check.no_cuda": {"en": "no CUDA device", "ja": "CUDA デバイスなし"},
    "elig.check.no_check": {"en": "no such check", "ja": "該当するチェックなし"},
    "elig.check.error": {"en": "the check failed", "ja": "チェック自体が失敗"},
    "elig.call.ran": {"en": "ran", "ja": "実行"},
    "elig.call.none": {"en": "not called", "ja": "呼び出しなし"},
    "elig.reason.cuda_only": {
        "en": "SDPA's CPU dispatch has only flash and math",
        "ja": "SDPA の CPU ディスパッチには flash と math しかありません",
    },
    "elig.reason.no_check": {"en": "this torch has no {asked}", "ja": "この torch には {asked} がありません"},
    # --- notes under a table ---
    "elig.note.check": {"en": "{backend}: {reason}", "ja": "{backend}: {reason}"},
    "elig.note.checks": {"en": " (PyTorch's check: {checks})", "ja": " (PyTorch のチェック: {checks})"},
    "elig.note.call": {"en": "{backend}, the call: {reason}", "ja": "{backend}、呼び出し: {reason}"},
    "elig.note.pick": {"en": "SDPA's selector: {reason}", "ja": "SDPA のセレクタ: {reason}"},
    "elig.note.silent": {"en": "PyTorch gave no reason", "ja": "PyTorch は理由を示していません"},
    "elig.note.cuda_only": {
        "en": "SDPA's CPU dispatch has two backends, flash (a C++ kernel of its own) and math; memory-efficient and "
        "cuDNN are CUDA's, and their checks are not asked for CPU inputs.",
        "ja": "SDPA の CPU ディスパッチにあるバックエンドは flash (CPU 専用の C++ カーネル) と math の 2 つです。"
        "memory-efficient と cuDNN は CUDA のバックエンドで、CPU の入力に対してはチェックを呼びません。",
    },
    # --- the map as a whole ---
    "elig.base_line": {
        "en": "Every row varies one thing of the base case: {case}.",
        "ja": "各行は基準ケースの 1 点だけを変えています。基準ケース: {case}。",
    },
    "elig.timing_line": {
        "en": "Times: the median of {reps} calls of each backend that ran ({timer}), forced with sdpa_kernel; "
        "the fastest is named only where its range does not overlap the others' (ties are joined by ≈).",
        "ja": "時間: 実行できた各バックエンドを sdpa_kernel で強制し、{reps} 回呼び出した中央値 ({timer})。"
        "最速は、その範囲が他と重ならない場合にだけ示します (重なるものは ≈ でつなぎます)。",
    },
    "elig.timer.cuda_event_prefilled": {"en": "CUDA events", "ja": "CUDA イベント"},
    "elig.timer.cuda_event": {"en": "CUDA events", "ja": "CUDA イベント"},
    "elig.timer.perf_counter": {"en": "wall time on the CPU", "ja": "CPU の経過時間"},
    "elig.unasked.no_cuda": {
        "en": "This build has no CUDA device, so the CUDA backends could not be asked: {reason}.",
        "ja": "このビルドには CUDA デバイスがないため、CUDA のバックエンドには問い合わせられませんでした: {reason}。",
    },
    "elig.disagree": {
        "en": "Where the check and a real call disagree: {cases}.",
        "ja": "チェックと実際の呼び出しが食い違った箇所: {cases}。",
    },
    "elig.agree": {
        "en": "Every check agreed with the real call that confirmed it.",
        "ja": "どのチェックも、それを確かめた実際の呼び出しと一致しました。",
    },
    # --- the gallery script ---
    "elig.script.check": {
        "en": "can_use_flash_attention(params) answers {answer}",
        "ja": "can_use_flash_attention(params) の答え: {answer}",
    },
    "elig.script.reason": {
        "en": "the reason, read from stderr: {reason}",
        "ja": "標準エラーから読んだ理由: {reason}",
    },
    "elig.script.ran": {"en": "the forced call ran", "ja": "強制した呼び出しは実行されました"},
    "elig.script.raised": {"en": "the forced call raised: {error}", "ja": "強制した呼び出しが送出した例外: {error}"},
    "elig.script.warning": {"en": "PyTorch's warning: {text}", "ja": "PyTorch の警告: {text}"},
    "elig.script.case": {"en": "the inputs above", "ja": "上の入力"},
    # --- claims C40-C49 (analysis.claims.eligibility) ---
    "C40.statement": {
        "en": "A boolean mask rules out flash.",
        "ja": "ブールマスクを渡すと flash は使えない。",
    },
    "C41.statement": {
        "en": "An additive float mask rules out flash as well, but the memory-efficient backend takes it.",
        "ja": "加算型の浮動小数点マスクでも flash は使えないが、memory-efficient バックエンドは受け付ける。",
    },
    "C42.statement": {
        "en": "With float32 inputs, only math and the memory-efficient backend are left.",
        "ja": "float32 の入力では、残るのは math と memory-efficient バックエンドだけ。",
    },
    "C43.statement": {
        "en": "A head dimension of 512 leaves only the math backend.",
        "ja": "ヘッド次元が 512 だと、残るのは math バックエンドだけ。",
    },
    "C44.statement": {
        "en": "Training at head_dim 256 rules out flash: its backward cannot take it.",
        "ja": "head_dim 256 の学習では flash は使えない (バックワードが対応していない)。",
    },
    "C45.statement": {
        "en": "The memory-efficient backend refuses grouped-query attention.",
        "ja": "memory-efficient バックエンドはグループ化クエリアテンションを拒否する。",
    },
    "C46.statement": {
        "en": "Dropout does not send SDPA back to math: it still picks a fused backend.",
        "ja": "ドロップアウトがあっても SDPA は math に戻らず、融合バックエンドを選ぶ。",
    },
    "C47.statement": {
        "en": "Whenever flash accepts the inputs, SDPA picks flash.",
        "ja": "flash が入力を受け付けるときは、SDPA は必ず flash を選ぶ。",
    },
    "C48.statement": {
        "en": "Nested (jagged) tensors keep a fused backend.",
        "ja": "ネスト (ジャグド) テンソルでも融合バックエンドが使える。",
    },
    "C49.statement": {
        "en": "The checks tell the truth: a backend whose check accepts runs when forced, one whose check refuses "
        "fails, and SDPA runs the backend its selector picks.",
        "ja": "チェックは正しい: チェックが受け付けたバックエンドは強制すれば実行でき、拒否したバックエンドは失敗し、"
        "SDPA はセレクタが選んだバックエンドを実行する。",
    },
    "elig.claim.accepting": {
        "en": "{condition}: accepted by {accepting}; refused by {refused}",
        "ja": "{condition}: 受け付け {accepting} / 拒否 {refused}",
    },
    "elig.claim.reason": {"en": "{backend}: “{reason}”", "ja": "{backend}: “{reason}”"},
    "elig.claim.pick": {"en": "{condition}: SDPA picks {pick}", "ja": "{condition}: SDPA の選択は {pick}"},
    "elig.claim.flash_picks": {
        "en": "flash accepted {n} conditions; SDPA picked it in {k} of them",
        "ja": "flash が受け付けた条件は {n} 個で、そのうち SDPA が flash を選んだのは {k} 個",
    },
    "elig.claim.exceptions": {"en": "Not picked: {items}.", "ja": "選ばれなかった条件: {items}。"},
    "elig.claim.agree": {
        "en": "{n} conditions, every answer confirmed by a real call; {d} disagreements",
        "ja": "{n} 個の条件で、どの答えも実際の呼び出しで確認。食い違い {d} 件",
    },
    "elig.reason.no_map": {
        "en": "this build has no eligibility map (examples/15-eligibility.py writes it)",
        "ja": "このビルドには適格性マップがありません (examples/15-eligibility.py が書き出します)",
    },
    "elig.reason.no_row": {
        "en": "the map has no row for {condition}",
        "ja": "マップに「{condition}」の行がありません",
    },
    # --- attnprof why ---
    "why.inputs": {"en": "inputs: {case} on {device}", "ja": "入力: {case} ({device})"},
    "why.pick": {"en": "SDPA picks: {pick}", "ja": "SDPA の選択: {pick}"},
    "why.ran": {"en": "the unforced call ran: {ran}", "ja": "強制しない呼び出しが実行したもの: {ran}"},
    "why.ran_failed": {"en": "the unforced call failed: {reason}", "ja": "強制しない呼び出しは失敗: {reason}"},
    "why.first_only": {
        "en": "A check stops at the first condition that fails: the reason is the first one, not necessarily the "
        "only one.",
        "ja": "チェックは最初に満たされなかった条件で止まります。示される理由は最初の 1 つで、唯一とは限りません。",
    },
    "why.unasked": {"en": "nothing could be asked: {reason}", "ja": "何も問い合わせられませんでした: {reason}"},
}
