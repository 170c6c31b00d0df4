"""Words of the interactive trace viewer (:mod:`attnprof.render.viewer`): its toolbar, tooltip, links and the Perfetto
button. Words the site already has (column headers, lane names, limiters, the download link) are not repeated here:
the viewer takes them from the other tables (:data:`attnprof.render.viewer.SITE_KEYS`).

Data only: :mod:`attnprof.words` merges this table with the others and looks words up. ``{placeholders}`` are
filled by the page's script.
"""

from __future__ import annotations

VIEWER: dict[str, dict[str, str]] = {
    # --- the viewer as a whole, and its toolbar ---
    "viewer.region": {
        "en": "Interactive timeline of {title}: every profiled step",
        "ja": "{title} の操作できるタイムライン (プロファイルした全ステップ)",
    },
    "viewer.step": {"en": "Profiler step", "ja": "プロファイラのステップ"},
    "viewer.zoom_in": {"en": "Zoom in", "ja": "拡大"},
    "viewer.zoom_out": {"en": "Zoom out", "ja": "縮小"},
    "viewer.reset": {"en": "Show all", "ja": "全体を表示"},
    "viewer.visible": {"en": "Visible: {start} to {end} µs", "ja": "表示範囲: {start}〜{end} µs"},
    "viewer.hint": {
        "en": "Drag or press ← → to pan; Ctrl + wheel, pinch, + or − to zoom (the wheel alone zooms once the "
        "timeline has focus); 0 shows all. Tab reaches the slices: arrow keys move between them, Enter links a "
        "launch call to its kernel.",
        "ja": "ドラッグまたは ← → で左右に移動、Ctrl + ホイール・ピンチ・+ / − で拡大縮小 "
        "(タイムラインにフォーカスがあるときはホイールだけで拡大縮小)、0 で全体を表示します。"
        "Tab でスライスに移動し、矢印キーでスライス間を移動、Enter で起動呼び出しとそのカーネルを対応づけます。",
    },
    "viewer.timeline": {
        "en": "Timeline, {start} to {end} µs: arrow keys pan, + and − zoom, Enter goes to the slices",
        "ja": "タイムライン ({start}〜{end} µs): 矢印キーで移動、+ / − で拡大縮小、Enter でスライスへ",
    },
    "viewer.legend": {"en": "Colours", "ja": "色の凡例"},
    "viewer.no_gpu": {
        "en": "No GPU activity: {variant} ran on {device}, so this trace has CPU lanes only.",
        "ja": "GPU アクティビティはありません。{variant} は {device} で実行されたため、"
        "このトレースには CPU レーンしかありません。",
    },
    "viewer.no_script": {
        "en": "The interactive timeline needs the attnprof site's script, which is not loaded here; the picture "
        "of the same step shows what it would.",
        "ja": "操作できるタイムラインには attnprof サイトのスクリプトが必要ですが、ここでは読み込まれていません。"
        "同じステップの図で内容を確認できます。",
    },
    # --- what clicking a slice says ---
    "viewer.linked": {
        "en": "{launch} launched {kernel} (correlation id {id})",
        "ja": "{launch} が {kernel} を起動しました (correlation id {id})",
    },
    "viewer.unlinked": {
        "en": "{name}: no GPU work or launch call is linked to it",
        "ja": "{name}: 対応づく GPU の処理や起動呼び出しはありません",
    },
    # --- the tooltip ---
    "tip.full_name": {"en": "Full name", "ja": "完全な名前"},
    "tip.category": {"en": "Category", "ja": "カテゴリ"},
    "tip.start": {"en": "Start", "ja": "開始"},
    "tip.duration": {"en": "Duration", "ja": "所要時間"},
    "tip.correlation": {"en": "Correlation id", "ja": "correlation id (相関 ID)"},
    "tip.bytes": {"en": "Bytes", "ja": "バイト数"},
    "tip.launches": {"en": "Launches", "ja": "起動する処理"},
    "tip.launched_by": {"en": "Launched by", "ja": "起動元"},
    # --- Open in Perfetto ---
    "perfetto.open": {"en": "Open in Perfetto", "ja": "Perfetto で開く"},
    "perfetto.opening": {
        "en": "Opening Perfetto UI in a new tab…",
        "ja": "新しいタブで Perfetto UI を開いています…",
    },
    "perfetto.sent": {
        "en": "The trace is open in Perfetto UI, in the new tab.",
        "ja": "新しいタブの Perfetto UI でトレースを開きました。",
    },
    "perfetto.file": {
        "en": "Perfetto can be handed the trace only when this page is served over http(s). Download the trace "
        "with the link beside the button and open it at ui.perfetto.dev.",
        "ja": "トレースを Perfetto に渡せるのは、このページを http(s) で配信しているときだけです。"
        "ボタンの横のリンクからトレースをダウンロードし、ui.perfetto.dev で開いてください。",
    },
    "perfetto.failed": {
        "en": "Could not hand the trace to Perfetto ({error}); download it with the link beside the button.",
        "ja": "トレースを Perfetto に渡せませんでした ({error})。ボタンの横のリンクからダウンロードしてください。",
    },
    "perfetto.blocked": {
        "en": "The browser blocked the new tab: allow pop-ups for this site, or download the trace.",
        "ja": "ブラウザが新しいタブをブロックしました。このサイトのポップアップを許可するか、"
        "トレースをダウンロードしてください。",
    },
}
