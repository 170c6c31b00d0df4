"""Words of the drop-in trace reader (:mod:`attnprof.render.dropin`, ``_assets/attnprof-explain.js``): the drop zone,
and one line for each kind of file it cannot read. The report itself uses the words of :mod:`.explain`.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

DROPIN: dict[str, dict[str, str]] = {
    "dropin.prompt": {
        "en": "Drop a trace here (.json or .json.gz from torch.profiler), or choose one:",
        "ja": "ここにトレースをドロップするか (torch.profiler の .json または .json.gz)、ファイルを選んでください:",
    },
    "dropin.privacy": {
        "en": "The file is read by this page in your browser, offline: nothing is uploaded.",
        "ja": "ファイルはこのページがブラウザの中で読みます。オフラインで動き、何もアップロードしません。",
    },
    "dropin.no_script": {
        "en": "The drop-in reader needs JavaScript. Without it, run attnprof explain TRACE for the same reading.",
        "ja": "ドロップ式の読み取りには JavaScript が必要です。JavaScript なしでは、attnprof explain TRACE で同じ"
        "読み取りが得られます。",
    },
    "dropin.reading": {"en": "Reading {name} ...", "ja": "{name} を読み取っています..."},
    "dropin.read_in": {
        "en": "Read in {seconds} s by this page; nothing left your browser.",
        "ja": "このページが {seconds} 秒で読み取りました。ブラウザの外には何も送っていません。",
    },
    "dropin.kernel": {"en": "kernel", "ja": "カーネル"},
    "dropin.family": {"en": "family", "ja": "系統"},
    "dropin.error": {"en": "{name}: {what}", "ja": "{name}: {what}"},
    "dropin.error.not_json": {
        "en": "not JSON ({error}): another kind of file, or a trace cut short. Choose the .json or .json.gz that "
        "export_chrome_trace wrote.",
        "ja": "JSON ではありません ({error})。別の種類のファイルか、途中で切れたトレースです。export_chrome_trace が"
        "書き出した .json か .json.gz を選んでください。",
    },
    "dropin.error.not_text": {
        "en": "not UTF-8 text: not a trace. Choose the .json or .json.gz that export_chrome_trace wrote.",
        "ja": "UTF-8 のテキストではないため、トレースではありません。export_chrome_trace が書き出した .json か "
        ".json.gz を選んでください。",
    },
    "dropin.error.not_trace": {
        "en": "JSON, but a {what}, not a Chrome trace (an object with traceEvents, or a list of events).",
        "ja": "JSON ですが {what} で、Chrome トレース (traceEvents を持つオブジェクト、またはイベントのリスト) "
        "ではありません。",
    },
    "dropin.error.no_events_list": {
        "en": "a JSON object without a traceEvents list: not a Chrome trace.",
        "ja": "traceEvents のリストがない JSON オブジェクトで、Chrome トレースではありません。",
    },
    "dropin.error.not_object": {
        "en": "event {n} is not an object: not a Chrome trace.",
        "ja": "イベント {n} がオブジェクトではないため、Chrome トレースではありません。",
    },
    "dropin.error.not_number": {
        "en": "event {n}: its {field} is not a number.",
        "ja": "イベント {n} の {field} が数値ではありません。",
    },
    "dropin.error.bad_time": {
        "en": "event {n}: its {field} is no time (infinite, negative, more than a day long or past any clock).",
        "ja": "イベント {n} の {field} は時刻として成り立ちません (無限大、負、1 日より長い、またはどの時計の範囲も"
        "超えています)。",
    },
    "dropin.error.far_time": {
        "en": "event {n} lies more than a day from the rest of the trace; a profiler records seconds to minutes, so "
        "one of them is not a time of this trace.",
        "ja": "イベント {n} がトレースのほかの部分から 1 日以上離れています。プロファイラが記録するのは数秒から数分"
        "なので、どちらかはこのトレースの時刻ではありません。",
    },
    "dropin.error.twice": {
        "en": "event {n} repeats event {first} (the same id): the events of two exports in one file? Drop one "
        "export at a time.",
        "ja": "イベント {n} はイベント {first} の繰り返しです (同じ ID)。2 回分の書き出しが 1 つのファイルに"
        "入っていませんか。書き出しを 1 回分ずつドロップしてください。",
    },
    "dropin.error.not_pytorch": {
        "en": "a Chrome trace without PyTorch profiler events (categories seen: {seen}); record it with "
        "torch.profiler and export_chrome_trace.",
        "ja": "PyTorch プロファイラのイベントがない Chrome トレースです (あったカテゴリ: {seen})。torch.profiler と "
        "export_chrome_trace で記録してください。",
    },
    "dropin.error.too_many": {
        "en": "more than {max} events, the most this page reads; run attnprof explain TRACE --max-mb N instead.",
        "ja": "イベントが {max} 個を超えており、このページが読める上限を超えています。代わりに attnprof explain "
        "TRACE --max-mb N を実行してください。",
    },
    "dropin.error.too_large": {
        "en": "more than {mb} MB of JSON, the most this page reads; run attnprof explain TRACE --max-mb N instead.",
        "ja": "JSON が {mb} MB を超えており、このページが読める上限を超えています。代わりに attnprof explain TRACE "
        "--max-mb N を実行してください。",
    },
    "dropin.error.bad_gzip": {
        "en": "a gzip file that does not decompress (cut short or corrupt).",
        "ja": "展開できない gzip ファイルです (途中で切れているか、壊れています)。",
    },
    "dropin.error.no_gzip": {
        "en": "gzip, which this browser cannot decompress (no DecompressionStream); gunzip it and drop the .json.",
        "ja": "gzip ですが、このブラウザは展開できません (DecompressionStream がありません)。gunzip してから "
        ".json をドロップしてください。",
    },
    "dropin.error.ranks": {
        "en": "the profiler steps of {n} processes, several ranks merged into one file; drop the file each rank "
        "exported.",
        "ja": "{n} 個のプロセスのプロファイラのステップがあり、複数のランクが 1 つのファイルにまとめられています。"
        "各ランクが書き出したファイルをドロップしてください。",
    },
    "dropin.error.gpus": {
        "en": "kernels of {n} GPUs; this page reads one GPU's trace: run attnprof explain TRACE --gpu N instead.",
        "ja": "{n} 個の GPU のカーネルがあります。このページは 1 つの GPU のトレースを読みます。代わりに "
        "attnprof explain TRACE --gpu N を実行してください。",
    },
    "dropin.error.no_decoder": {
        "en": "the page's kernel decoder did not load; reload the page.",
        "ja": "ページのカーネルデコーダが読み込まれませんでした。ページを再読み込みしてください。",
    },
    "dropin.error.failed": {
        "en": "could not be read ({error}).",
        "ja": "読み取れませんでした ({error})。",
    },
}
