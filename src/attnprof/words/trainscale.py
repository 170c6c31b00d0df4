"""Words of training across lengths and head dims: the plots, the table and the printed report.

Data only: :mod:`attnprof.words` merges this table with the others and looks words up.
"""

from __future__ import annotations

TRAINSCALE: dict[str, dict[str, str]] = {
    # --- why a point was not run: recorded in English (attnprof.measure.trainscale), shown in the page's language ---
    "reason.trainscale.slow": {
        "en": "skipped: a step took {ms} ms at seq {seq}, more than the {limit} ms this grid spends on one step; it "
        "grows with the length",
        "ja": "省略: 系列長 {seq} で 1 ステップに {ms} ms かかり、このグリッドが 1 ステップにかける {limit} ms を"
        "超えました (長さとともに増えます)",
    },
    "ts.by_hand": {
        "en": "By hand, {shape}: forward {fwd_ms} ms ({fwd} TFLOP/s), backward {bwd_ms} ms ({bwd} TFLOP/s)",
        "ja": "手で計測 ({shape}): フォワード {fwd_ms} ms ({fwd} TFLOP/s)、バックワード {bwd_ms} ms ({bwd} TFLOP/s)",
    },
    "ts.pass.fwd": {"en": "Forward", "ja": "フォワード"},
    "ts.pass.bwd": {"en": "Backward", "ja": "バックワード"},
    "ts.mask.causal": {"en": "causal", "ja": "因果マスク"},
    "ts.mask.full": {"en": "no mask", "ja": "マスクなし"},
    "ts.axis.seq": {"en": "Sequence length (tokens)", "ja": "系列長 (トークン)"},
    "ts.axis.tflops": {"en": "TFLOP/s", "ja": "TFLOP/s"},
    "ts.axis.tflops_cpu": {"en": "TFLOP/s (CPU)", "ja": "TFLOP/s (CPU)"},
    "ts.panel": {"en": "head_dim {head_dim}, {mask}", "ja": "head_dim {head_dim}、{mask}"},
    "ts.title": {
        "en": "{phase}: TFLOP/s against length, {dtype}, {tokens} tokens per batch, on {device}",
        "ja": "{phase}: 系列長ごとの TFLOP/s ({dtype}、バッチあたり {tokens} トークン、{device})",
    },
    "ts.legend.ceiling": {"en": "matmul ceiling, measured ({tflops})", "ja": "行列積の上限、実測 ({tflops})"},
    "ts.legend.peak": {"en": "published peak ({tflops})", "ja": "公表ピーク ({tflops})"},
    "ts.legend.not_run": {"en": "did not run", "ja": "実行されず"},
    "ts.cpu_note": {
        "en": "Measured on the CPU at tiny lengths: these rates describe the CPU, not a GPU.",
        "ja": "CPU で小さな系列長を測定: この値は CPU のもので、GPU のものではありません。",
    },
    "ts.summary": {
        "en": "{phase} TFLOP/s against sequence length, one line per backend ({variants}), at head_dim {head_dims}, "
        "causal and without a mask; {failed} points did not run.",
        "ja": "{phase}の TFLOP/s を系列長に対して描いた図。バックエンドごとに 1 本 ({variants})、head_dim "
        "{head_dims}、因果マスクありとなし。実行されなかった点は {failed} 個。",
    },
    "ts.col.variant": {"en": "Backend", "ja": "バックエンド"},
    "ts.col.head_dim": {"en": "head_dim", "ja": "head_dim"},
    "ts.col.mask": {"en": "Mask", "ja": "マスク"},
    "ts.col.seq": {"en": "Length", "ja": "系列長"},
    "ts.col.fwd": {"en": "Forward TFLOP/s", "ja": "フォワード TFLOP/s"},
    "ts.col.bwd": {"en": "Backward TFLOP/s", "ja": "バックワード TFLOP/s"},
    "ts.col.ceiling": {
        "en": "Share of matmul ceiling (fwd / bwd)",
        "ja": "行列積の上限に対する割合 (フォワード / バックワード)",
    },
    "ts.col.peak": {
        "en": "Share of published peak (fwd / bwd)",
        "ja": "公表ピークに対する割合 (フォワード / バックワード)",
    },
    "ts.col.gpu": {"en": "GPU", "ja": "GPU"},
    "ts.col.published": {"en": "Dense bf16 TFLOP/s, as published", "ja": "密な bf16 の TFLOP/s (公表値)"},
    "ts.col.source": {"en": "Source", "ja": "出典"},
    "ts.ceilings": {
        "en": "Matmul ceiling measured in this build: {tflops} TFLOP/s ({source}).",
        "ja": "このビルドで測定した行列積の上限: {tflops} TFLOP/s ({source})。",
    },
    "ts.ceilings.sweep": {"en": "from the sequence-length sweep", "ja": "系列長スイープより"},
    "ts.ceilings.measured": {"en": "measured with this grid", "ja": "このグリッドで測定"},
    "ts.no_ceilings": {
        "en": "No matmul ceiling: measured on the CPU.",
        "ja": "行列積の上限なし: CPU で測定しました。",
    },
    "ts.peak": {
        "en": "Published peak of the {gpu}: {tflops} TFLOP/s dense bf16, as published by NVIDIA ({source}).",
        "ja": "{gpu} の公表ピーク: 密な bf16 で {tflops} TFLOP/s (NVIDIA の公表値、{source})。",
    },
    "ts.no_peak": {
        "en": "No published peak for {device} in attnprof's table.",
        "ja": "attnprof の表に {device} の公表ピークはありません。",
    },
}
