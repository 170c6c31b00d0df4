"""One call on the GPU builder for issue 14: run the two gallery scripts standalone (timed), then summarise what the
package measured for the workloads (training, decoding, CUDA graphs), the decision table and claims C18-C26.

Usage there: ``PYTHONPATH=src python3 scripts/check_workloads_gpu.py OUT_DIR`` (runs the scripts into
``OUT_DIR/results``), or ``... --summarise RESULTS_DIR`` to summarise the results a docs build wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from attnprof.analysis import claims, summary
from attnprof.analysis.workload_rows import Build
from attnprof.records import results as files
from attnprof.render import workloadreport

if sys.argv[1:2] == ["--summarise"]:
    results = Path(sys.argv[2])
else:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wl")
    results = out / "results"
    results.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "ATTNPROF_RESULTS_DIR": str(results), "MPLBACKEND": "Agg", "PYTHONPATH": str(root / "src")}
    for script in ("12-training.py", "13-decoding.py"):
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, str(root / "examples" / script)], env=env, capture_output=True,
                             text=True, cwd="/tmp", check=False)  # fmt: skip
        (out / f"{script}.log").write_text(run.stdout + run.stderr)
        lines = [ln for ln in (run.stdout + run.stderr).splitlines() if "USDT" not in ln]
        print(f"== {script}: rc={run.returncode}, {time.perf_counter() - t0:.1f} s wall")
        print("\n".join(lines[-45:]))

by = {w: [summary.analyse(files.load(p)) for p in files.find(results, "*", w)] for w in ("train", "decode")}
build = Build(by)
print("== training\n" + workloadreport.train_table(build.train_rows()))
print("== decoding\n" + workloadreport.decode_table(build.decode_rows()))
for g in build.graph_rows():
    print("graph:", g)
for r in build.decision_rows():
    print(
        "decision:",
        r.workload,
        r.length,
        "winner",
        r.winner and (r.winner.variant, round(r.winner.band.median, 4)),
        "runner-up",
        r.runner_up and r.runner_up.variant,
        "margin",
        r.margin and round(r.margin, 3),
        "tie",
        r.too_close,
        "auto",
        r.auto and r.auto.backend,
        "forcing",
        r.forcing,
        r.forcing_cpu_us,
        "flex",
        r.flex_ratio,
    )
for c in claims.WORKLOAD_CLAIMS:
    v = claims.check(c, {}, "en", None, build)
    print(f"{c}: {v.verdict} | {v.measured} | {v.detail} | {v.reason}")
