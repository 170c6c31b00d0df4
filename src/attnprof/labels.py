"""Words that :mod:`attnprof.sphinxext` writes into pages itself, in every language the site is built in.

Prose comes from the pages and is translated with gettext; the few words the extension generates (column headers,
the provenance banner, status words, units) come from :data:`LABELS` instead, picked by the build's ``language``.
Every key has every language of :data:`LANGUAGES` (a test checks it). ``{placeholders}`` are filled with
:meth:`str.format`.
"""

from __future__ import annotations

#: Languages the site is built in; the first is the fallback.
LANGUAGES: tuple[str, ...] = ("en", "ja")

LABELS: dict[str, dict[str, str]] = {
    # --- kernel-table columns ---
    "col.kernel": {"en": "Kernel", "ja": "カーネル"},
    "col.family": {"en": "Family", "ja": "種類"},
    "col.per_step": {"en": "Launches per step", "ja": "ステップあたり起動数"},
    "col.avg_us": {"en": "Avg. time (µs)", "ja": "平均時間 (µs)"},
    "col.launch_api": {"en": "Launch API", "ja": "起動 API"},
    "col.registers": {"en": "Registers per thread", "ja": "スレッドあたりレジスタ数"},
    "col.shared_memory": {"en": "Shared memory per block", "ja": "ブロックあたり共有メモリ"},
    "col.grid_block": {"en": "Grid × block", "ja": "グリッド × ブロック"},
    "col.reported_occupancy": {"en": "Reported occupancy", "ja": "報告された占有率"},
    "col.theoretical_occupancy": {"en": "Theoretical occupancy (limit)", "ja": "理論占有率 (制約)"},
    # --- compare-table columns ---
    "col.variant": {"en": "Variant", "ja": "バリアント"},
    "col.activities_per_step": {"en": "GPU activities per step", "ja": "ステップあたり GPU アクティビティ数"},
    "col.kernels_per_step": {"en": "Kernels per step", "ja": "ステップあたりカーネル数"},
    "col.gpu_ms": {"en": "GPU time per forward (median, ms)", "ja": "フォワード 1 回の GPU 時間 (中央値, ms)"},
    "col.cpu_us": {"en": "Profiled CPU time (µs)", "ja": "プロファイル下の CPU 時間 (µs)"},
    "col.dispatch_us": {"en": "Dispatch cost (µs)", "ja": "ディスパッチコスト (µs)"},
    "col.tflops": {"en": "TFLOP/s", "ja": "TFLOP/s"},
    "col.peak_mib": {"en": "Peak extra memory (MiB)", "ja": "追加メモリのピーク (MiB)"},
    "col.main_kernel": {"en": "Main kernel", "ja": "主カーネル"},
    "col.cpu_events": {"en": "CPU events per step", "ja": "ステップあたり CPU イベント数"},
    "col.profiler_share": {"en": "Added by the profiler", "ja": "プロファイラによる増分"},
    "col.context_us": {"en": "Context alone (µs)", "ja": "コンテキストのみ (µs)"},
    "col.reveals": {"en": "What the trace reveals", "ja": "トレースからわかること"},
    # --- claims table ---
    "col.claim": {"en": "Claim", "ja": "主張"},
    "col.published": {"en": "Published (A100)", "ja": "記事の値 (A100)"},
    "col.this_build": {"en": "This build", "ja": "このビルド"},
    "col.verdict": {"en": "Verdict", "ja": "判定"},
    "col.note": {"en": "Details", "ja": "詳細"},
    "verdict.holds": {"en": "holds", "ja": "再現"},
    "verdict.differs": {"en": "differs", "ja": "相違"},
    "verdict.unmeasurable": {"en": "not measurable here", "ja": "この環境では検証不可"},
    # --- occupancy tables ---
    "col.blocks_per_sm": {"en": "Grid blocks per SM", "ja": "SM あたりのグリッドブロック数"},
    "col.theoretical": {"en": "Theoretical occupancy", "ja": "理論占有率"},
    "col.limiter": {"en": "Limited by", "ja": "制約要因"},
    "col.hypothesis": {"en": "Explanation", "ja": "説明"},
    "col.predicted": {"en": "Kernels predicted at 0%", "ja": "0% と予測されるカーネル数"},
    "col.consistent": {"en": "Predicted and 0%", "ja": "予測どおり 0%"},
    "col.counterexamples": {"en": "Counterexamples", "ja": "反例"},
    "col.missed": {"en": "0% but not predicted", "ja": "予測外の 0%"},
    "hypothesis.explains": {"en": "explains every 0%", "ja": "すべての 0% を説明"},
    "hypothesis.incomplete": {"en": "incomplete", "ja": "不完全"},
    "hypothesis.refuted": {"en": "refuted", "ja": "反証された"},
    "hypothesis.untested": {"en": "untested", "ja": "未検証"},
    "occupancy.none": {"en": "none", "ja": "なし"},
    "occupancy.no_kernels": {
        "en": "This build recorded no GPU kernels, so there is no occupancy to compare.",
        "ja": "このビルドには GPU カーネルの記録がないため、比較できる占有率はありません。",
    },
    "occupancy.no_zero": {
        "en": "No kernel of this build reports 0%: there is nothing to explain.",
        "ja": "このビルドには 0% と報告されたカーネルがないため、説明すべきものはありません。",
    },
    "occupancy.unexplained": {
        "en": "No tested explanation accounts for all {zeros} kernels reported at 0% without a counterexample.",
        "ja": "0% と報告された {zeros} 個のカーネルすべてを反例なしに説明できる仮説はありませんでした。",
    },
    "occupancy.supported": {
        "en": "This build supports {hypothesis}: it predicts all {zeros} kernels reported at 0%, with no "
        "counterexample.",
        "ja": "このビルドのデータは {hypothesis} を支持します。0% と報告された {zeros} 個のカーネルをすべて予測し、"
        "反例はありません。",
    },
    "occupancy.tie": {
        "en": "The data cannot tell these apart: {hypotheses} each predict all {zeros} kernels reported at 0% "
        "without a counterexample.",
        "ja": "データからは次の仮説を区別できません: {hypotheses}。いずれも 0% と報告された {zeros} 個の"
        "カーネルをすべて反例なしに予測します。",
    },
    # --- status words (a result that could not run) ---
    "status.ok": {"en": "measured", "ja": "計測済み"},
    "status.unsupported": {"en": "not supported here", "ja": "この環境では非対応"},
    "status.no_cuda": {"en": "no CUDA device", "ja": "CUDA デバイスなし"},
    "status.oom": {"en": "out of memory", "ja": "メモリ不足"},
    "status.error": {"en": "failed", "ja": "失敗"},
    "status.missing": {"en": "no result", "ja": "結果なし"},
    "status.not_run": {
        "en": "{variant} did not run ({status}): {reason}",
        "ja": "{variant} は実行されませんでした ({status}): {reason}",
    },
    "status.no_gpu_activity": {
        "en": "{variant} ran on {device} ({shape}, {dtype}); the trace holds no GPU activity to tabulate.",
        "ja": "{variant} は {device} で実行されました ({shape}, {dtype})。"
        "トレースに表にできる GPU アクティビティはありません。",
    },
    "not_available": {"en": "n/a", "ja": "—"},
    # --- occupancy limiters ---
    "limiter.registers": {"en": "registers", "ja": "レジスタ"},
    "limiter.shared memory": {"en": "shared memory", "ja": "共有メモリ"},
    "limiter.threads": {"en": "threads", "ja": "スレッド数"},
    "limiter.blocks per SM": {"en": "blocks per SM", "ja": "SM あたりブロック数"},
    "limiter.grid": {"en": "the grid", "ja": "グリッド"},
    # --- timeline ---
    "timeline.download": {"en": "Download the raw trace", "ja": "元のトレースをダウンロード"},
    "timeline.open_with": {
        "en": "(open it in Perfetto UI or chrome://tracing)",
        "ja": "(Perfetto UI または chrome://tracing で開けます)",
    },
    # --- provenance banner ---
    "banner.title": {"en": "Where these numbers come from", "ja": "数値の出どころ"},
    "banner.measured_on": {"en": "Measured on {device}", "ja": "計測環境: {device}"},
    "banner.driver": {"en": "driver {value}", "ja": "ドライバー {value}"},
    "banner.cuda": {"en": "CUDA {value}", "ja": "CUDA {value}"},
    "banner.cudnn": {"en": "cuDNN {value}", "ja": "cuDNN {value}"},
    "banner.torch": {"en": "PyTorch {value}", "ja": "PyTorch {value}"},
    "banner.date": {"en": "on {value}", "ja": "計測日 {value}"},
    "banner.variants": {"en": "variants: {value}", "ja": "バリアント: {value}"},
    "banner.no_results": {
        "en": "No measured results were found for this build, so the pages show no live numbers.",
        "ja": "このビルドには計測結果がないため、ページに実測値は表示されません。",
    },
    "banner.cpu_only_title": {"en": "Built without a GPU", "ja": "GPU なしでビルドされたサイト"},
    "banner.cpu_only": {
        "en": "This build ran on a machine without a CUDA GPU, so the GPU-only results could not be measured. "
        "Tables and timelines show small-shape CPU runs where a variant can run on the CPU, and the reason "
        "recorded for the others:",
        "ja": "このビルドは CUDA GPU のないマシンで実行されたため、GPU でしか得られない結果は計測できませんでした。"
        "表とタイムラインは、CPU で実行できるバリアントについては小さな形状での CPU 実行を示し、"
        "それ以外については記録された理由を示します:",
    },
    "banner.reason_item": {"en": "{variants}: {reason}", "ja": "{variants}: {reason}"},
}


def label(key: str, language: str | None, **fields: object) -> str:
    """The text of ``key`` in ``language`` (English when the language is not one of :data:`LANGUAGES`).

    Args:
        key: A key of :data:`LABELS`.
        language: The build's language (``"ja"``, ``"en"``, ``"ja_JP"``, or ``None``).
        **fields: Values for the ``{placeholders}`` of the text.

    Raises:
        KeyError: for an unknown key, naming it.
    """
    try:
        texts = LABELS[key]
    except KeyError:
        raise KeyError(f"unknown label {key!r}") from None
    lang = (language or LANGUAGES[0]).replace("-", "_").split("_")[0]
    text = texts.get(lang, texts[LANGUAGES[0]])
    return text.format(**fields) if fields else text
