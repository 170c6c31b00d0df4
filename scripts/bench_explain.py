"""Benchmark ``attnprof explain`` against Holistic Trace Analysis on one large trace (a benchmark, not a test).

Makes a trace of about ``--mb`` megabytes from a real one by repeating its profiler steps with shifted timestamps
(and shifted correlation, External and flow ids, so that every launch still links to its own kernel), then times,
each in a fresh process, with its peak resident memory (``VmHWM``):

* ``attnprof explain TRACE --json FILE --no-why``: reading, analysis and the JSON written;
* ``hta.trace_analysis.TraceAnalysis(trace_dir=...)``: HTA's own parse of the same file (its load alone).

    python scripts/bench_explain.py [--seed TRACE] [--mb 100] [--runs 3] [--out /tmp/bench]

HTA is not a dependency of attnprof: install it to run this (``pip install HolisticTraceAnalysis``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = (ROOT / "tests/data/foreign/h200/hf_sdpa_train.json.gz", ROOT / "tests/data/traces/sdpa_math.json.gz")
_IDS = ("correlation", "External id", "external id", "Record function id", "Ev Idx")


def synthesize(seed: Path, target: int, out: Path) -> dict:
    """Write a trace of at least ``target`` bytes made of the seed's steps repeated; returns what was made."""
    doc = json.loads(gzip.decompress(seed.read_bytes()) if seed.suffix == ".gz" else seed.read_bytes())
    events = doc.pop("traceEvents")
    steps = sorted((e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])
    start, end = steps[0]["ts"], max(e["ts"] + e.get("dur", 0) for e in events if e.get("ph") == "X")
    body = [e for e in events if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float)) and e["ts"] >= start]
    head = [e for e in events if e not in body]
    span, idmax = end - start + 100.0, 1 + max(
        (int(e.get("args", {}).get(k, 0)) for e in events for k in _IDS if isinstance(e.get("args"), dict)
         and isinstance(e["args"].get(k), (int, float))), default=0)  # fmt: skip
    idmax = max(idmax, 1 + max((int(e["id"]) for e in events if isinstance(e.get("id"), int)), default=0))
    unit = len(json.dumps(body)) + 2
    copies = max(1, -(-target // unit))
    with open(out, "w", encoding="utf-8") as f:
        f.write("{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items()) + ', "traceEvents": [')
        f.write(",\n".join(json.dumps(e) for e in head))
        for k in range(copies):
            shift, more = k * span, k * idmax
            for e in body:
                e2 = dict(e, ts=e["ts"] + shift)
                if "id" in e2 and isinstance(e2["id"], int):
                    e2["id"] += more
                if isinstance(e.get("args"), dict):
                    args = e["args"].items()
                    e2["args"] = {a: (v + more if a in _IDS and isinstance(v, int) else v) for a, v in args}
                if str(e.get("name", "")).startswith("ProfilerStep#"):
                    e2["name"] = f"ProfilerStep#{int(e['name'].split('#')[1]) + k * len(steps)}"
                f.write(",\n" + json.dumps(e2))
        f.write("]}\n")
    return {"seed": str(seed.relative_to(ROOT)), "steps": copies * len(steps), "bytes": out.stat().st_size,
            "events": len(head) + copies * len(body)}  # fmt: skip


# the process's own peak (VmHWM; ru_maxrss can carry the parent's over exec)
_PEAK = (
    "import re\nwith open('/proc/self/status') as f:\n"
    "    print('PEAK_KB', re.search(r'VmHWM:\\s+(\\d+)', f.read())[1])\n"
)
EXPLAIN = (
    "import os, sys\nfrom attnprof import cli\n"
    "rc = cli.main(['explain', sys.argv[1], '--json', sys.argv[2], '--no-why'], out=open(os.devnull, 'w'), "
    "err=open(os.devnull, 'w'))\nassert rc == 0, rc\n" + _PEAK
)
HTA = (
    "import logging, sys\nlogging.disable(logging.WARNING)\nfrom hta.trace_analysis import TraceAnalysis\n"
    "TraceAnalysis(trace_dir=sys.argv[1])\n" + _PEAK
)


def timed(code: str, *argv: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak MiB of ``python -c code argv`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))  # fmt: skip
    wall = time.perf_counter() - t0
    if run.returncode != 0:
        raise SystemExit(f"failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peak = int(next(line.split()[1] for line in run.stdout.splitlines() if line.startswith("PEAK_KB")))
    return wall, cpu, peak / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=Path, default=next((p for p in SEEDS if p.exists()), SEEDS[-1]))
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("/tmp/attnprof-bench"))
    args = ap.parse_args()
    (args.out / "hta").mkdir(parents=True, exist_ok=True)
    trace = args.out / "hta" / "rank-0.trace.json"
    made = synthesize(args.seed.resolve(), int(args.mb * 1e6), trace)
    print(f"trace: {made['bytes'] / 1e6:.1f} MB, {made['events']} events, {made['steps']} steps, from {made['seed']}")
    rows = {"attnprof explain": [], "HTA TraceAnalysis load": []}
    for _ in range(args.runs):
        rows["attnprof explain"].append(timed(EXPLAIN, str(trace), str(args.out / "explain.json")))
        rows["HTA TraceAnalysis load"].append(timed(HTA, str(args.out / "hta")))
    print(f"{'':24}  {'wall s':>8}  {'CPU s':>8}  {'peak MiB':>9}   (medians of {args.runs}; peak: the largest)")
    med = {}
    for name, got in rows.items():
        med[name] = [statistics.median(x[i] for x in got) for i in (0, 1)]
        print(f"{name:24}  {med[name][0]:8.2f}  {med[name][1]:8.2f}  {max(x[2] for x in got):9.0f}")
    hta, ours = med["HTA TraceAnalysis load"], med["attnprof explain"]
    print(f"HTA's load takes {hta[0] / ours[0]:.1f}x the wall time and {hta[1] / ours[1]:.1f}x the CPU time of "
          f"attnprof explain; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
