"""Benchmark ``attnprof explain`` against Holistic Trace Analysis on one large trace (a benchmark, not a test).

Makes a trace of about ``--mb`` megabytes from a real one by repeating its profiler steps with shifted timestamps
(and shifted correlation, External and flow ids, so that every launch still links to its own kernel), then times,
each in a fresh process, with its peak resident memory (``VmHWM``):

* the floor: the fastest parse of the same file into Python objects, ``orjson.loads`` and (when installed)
  ``msgspec.json.decode``, the garbage collector off, the file already in memory;
* ``attnprof explain TRACE --json FILE --no-why``: reading, analysis and the JSON written;
* ``attnprof diff TRACE TRACE2 --json FILE``: two such traces (the second made from ``--seed2``) read, explained and
  compared;
* ``hta.trace_analysis.TraceAnalysis(trace_dir=...)``: HTA's own parse of the same file (its load alone).

    python scripts/bench_explain.py [--seed TRACE] [--seed2 TRACE] [--mb 150] [--runs 3] [--out /tmp/bench]
                                    [--hta-python PYTHON]

HTA is not a dependency of attnprof, and it brings Jupyter with it: install it into a virtual environment of its own
(``python -m venv /tmp/hta && /tmp/hta/bin/pip install HolisticTraceAnalysis``) and pass ``--hta-python
/tmp/hta/bin/python``. The machine is shared: every row says the load average (1 minute) at its runs' start.
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
SEEDS2 = (ROOT / "tests/data/foreign/h200/hf_eager_train.json.gz", *SEEDS)
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
DIFF = (
    "import os, sys\nfrom attnprof import cli\n"
    "rc = cli.main(['diff', sys.argv[1], sys.argv[2], '--json', sys.argv[3]], out=open(os.devnull, 'w'), "
    "err=open(os.devnull, 'w'))\nassert rc == 0, rc\n" + _PEAK
)
FLOOR = (
    "import gc, sys, time\ndata = open(sys.argv[1], 'rb').read()\ngc.disable()\nimport orjson\n"
    "t = time.perf_counter(); orjson.loads(data); print('ORJSON', time.perf_counter() - t)\n"
    "try:\n    import msgspec\nexcept ImportError:\n    pass\nelse:\n"
    "    t = time.perf_counter(); msgspec.json.decode(data); print('MSGSPEC', time.perf_counter() - t)\n" + _PEAK
)
HTA = (
    "import logging, sys\nlogging.disable(logging.WARNING)\nfrom hta.trace_analysis import TraceAnalysis\n"
    "TraceAnalysis(trace_dir=sys.argv[1])\n" + _PEAK
)


def timed(code: str, *argv: str, python: str = sys.executable, floor: dict | None = None) -> tuple[float, ...]:
    """Wall seconds, CPU seconds (user + system), peak MiB of ``python -c code argv`` in a fresh process, and the
    load average when it started; the floor's parse times land in ``floor``."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run = subprocess.run([python, "-c", code, *argv], capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))  # fmt: skip
    wall = time.perf_counter() - t0
    if run.returncode != 0:
        raise SystemExit(f"failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peak = int(next(line.split()[1] for line in run.stdout.splitlines() if line.startswith("PEAK_KB")))
    for line in run.stdout.splitlines():
        if floor is not None and line.split()[0] in ("ORJSON", "MSGSPEC"):
            floor.setdefault(line.split()[0].lower(), []).append(float(line.split()[1]))
    return wall, cpu, peak / 1024, load


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=Path, default=next((p for p in SEEDS if p.exists()), SEEDS[-1]))
    ap.add_argument("--seed2", type=Path, default=next((p for p in SEEDS2 if p.exists()), SEEDS2[-1]))
    ap.add_argument("--mb", type=float, default=150)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("/tmp/attnprof-bench"))
    ap.add_argument("--hta-python", default=None, help="a Python with HolisticTraceAnalysis (default: this one)")
    args = ap.parse_args()
    (args.out / "hta").mkdir(parents=True, exist_ok=True)
    trace, trace2 = args.out / "hta" / "rank-0.trace.json", args.out / "after.json"
    made = synthesize(args.seed.resolve(), int(args.mb * 1e6), trace)
    made2 = synthesize(args.seed2.resolve(), int(args.mb * 1e6), trace2)
    for m in (made, made2):
        print(f"trace: {m['bytes'] / 1e6:.1f} MB, {m['events']} events, {m['steps']} steps, from {m['seed']}")
    names = ("floor: parse alone", "attnprof explain", "attnprof diff (two)", "HTA TraceAnalysis load")
    rows: dict[str, list] = {n: [] for n in names}
    floor: dict[str, list[float]] = {}
    for _ in range(args.runs):
        rows[names[0]].append(timed(FLOOR, str(trace), floor=floor))
        rows[names[1]].append(timed(EXPLAIN, str(trace), str(args.out / "explain.json")))
        rows[names[2]].append(timed(DIFF, str(trace), str(trace2), str(args.out / "diff.json")))
        rows[names[3]].append(timed(HTA, str(args.out / "hta"), python=args.hta_python or sys.executable))
    print(f"{'':24}  {'wall s':>8}  {'CPU s':>8}  {'peak MiB':>9}  {'load':>5}   (medians of {args.runs}; peak: the "
          f"largest; load: 1-minute average at the start, on {os.cpu_count()} cores)")  # fmt: skip
    med = {}
    for name, got in rows.items():
        med[name] = [statistics.median(x[i] for x in got) for i in (0, 1)]
        loads = "/".join(f"{x[3]:.1f}" for x in got)
        print(f"{name:24}  {med[name][0]:8.2f}  {med[name][1]:8.2f}  {max(x[2] for x in got):9.0f}  {loads}")
    for parser, got in floor.items():
        print(
            f"  floor, {parser} parse of the bytes in memory: {statistics.median(got):.2f} s (median of {len(got)})"
        )
    fastest = min(statistics.median(v) for v in floor.values())
    ours, two, hta = med["attnprof explain"], med["attnprof diff (two)"], med["HTA TraceAnalysis load"]
    print(f"attnprof explain takes {ours[0] / fastest:.1f}x the fastest parse's time; HTA's load takes "
          f"{hta[0] / ours[0]:.1f}x the wall time and {hta[1] / ours[1]:.1f}x the CPU time of attnprof explain; "
          f"the diff of two takes {two[0]:.1f} s")  # fmt: skip
    met = ours[0] <= 5 and two[0] <= 10 and max(x[2] for x in rows["attnprof explain"]) <= 1024
    print(f"targets: explain <= 5 s and <= 1024 MiB, diff <= 10 s: {'met' if met else 'NOT met'} at these loads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
