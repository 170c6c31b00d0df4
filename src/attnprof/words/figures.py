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
}
