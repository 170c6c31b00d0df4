"""Record the runs behind the tests' GPU fixtures with attnprof's own measuring code, on the machine it runs on.

The fixtures in ``tests/data`` are real H200 recordings: every variant's forward (``traces/``), and the training,
decoding, CUDA-graph and context-parallel runs of ``workloads/``. This probe makes the same runs through the
package (:func:`attnprof.measure.profiling.profile`, :func:`attnprof.measure.parallelrun.run`), so what it writes is
in the package's own formats: result files with their traces (:mod:`attnprof.records.results`) and a
context-parallel run file with one trace per rank and case (:mod:`attnprof.records.parallel`). A run that cannot
happen here is a result that says why; the probe goes on.

Usage (the repository as working directory)::

    PYTHONPATH=src python scripts/probe_h200.py OUT [--parts prefill,train,decode,cp] [--device cpu]

It writes ``OUT/<part>/`` for each part and prints one line per run. On the CPU it makes the same runs at the
package's small CPU shapes (no variant that compiles; context parallelism over two gloo processes), which checks the
probe itself in a minute or two.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from attnprof import inputs, variants, workloads
from attnprof.measure import parallelrun, profiling

PARTS = ("prefill", "train", "decode", "cp")
#: Decoding: the cache lengths of the fixtures (traced and timed), the CUDA-graph comparison's, and the only ones a
#: compiled variant runs at (one compile per length).
DECODE_LENS = (1024, 4096, 8192, 16384, 131072)
GRAPH_LEN = 4096
COMPILED_LENS = (8192, 131072)
#: Context parallelism: the fixtures' sequence lengths and SDPA backends (flash forced, and SDPA's own choice).
CP_SEQS = (32768, 65536, 131072)
CP_BACKENDS = ("flash", "auto")


def _profile(variant: str, setup: inputs.Setup, workload: str, out: Path, graph: bool = False) -> None:
    t0 = time.perf_counter()
    r = profiling.profile(variant, setup, workload=workload, save_to=out, graph=graph)
    took = time.perf_counter() - t0
    print(f"{workload:8} {variant:15} {setup.describe():60} {r.status:12} {took:6.1f} s  {r.reason or ''}"[:200])


def _runs(part: str, device: str) -> list[tuple[str, inputs.Setup, bool]]:
    """``(variant, setup, graph)`` of every run of ``part``."""
    cpu = device == "cpu"
    chosen = [v for v in variants.for_workload(part) if not (cpu and variants.get(v).compiled)]
    if part != "decode":
        return [(v, workloads.default_setup(part, device), False) for v in chosen]
    base = workloads.default_setup("decode", device)
    lens, graph_len = (workloads.CPU_DECODE_LENS, workloads.CPU_DECODE_LENS[0]) if cpu else (DECODE_LENS, GRAPH_LEN)
    return [
        (v, inputs.make_setup(base.shape, base.dtype, device, kv_heads=base.kv_heads, kv_len=n),
         variants.get(v).graph and n == graph_len)
        for v in chosen for n in lens if cpu or not variants.get(v).compiled or n in COMPILED_LENS
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write into")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, any of: {', '.join(PARTS)}")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if not set(parts) <= set(PARTS):
        parser.error(f"unknown part in {args.parts!r}; choose from: {', '.join(PARTS)}")
    device = args.device or profiling.default_device()
    for part in parts:
        out = args.out / part
        out.mkdir(parents=True, exist_ok=True)
        if part == "cp":
            small = dict(batch=1, heads=2, head_dim=16, world=2) if device == "cpu" else {}
            seqs = (64, 128) if device == "cpu" else CP_SEQS
            cfg = parallelrun.make_config(seqs, backends=CP_BACKENDS, device=device, **small)
            run = parallelrun.run(cfg, save_to=out)
            cases = ", ".join(f"{c.backend} {c.method} S{c.seq} {c.status}" for c in run.cases)
            print(f"cp       {run.status} ({run.reason or run.launcher}) in {run.elapsed_s:.1f} s: {cases}")
            continue
        for variant, setup, graph in _runs(part, device):
            _profile(variant, setup, part, out, graph)


if __name__ == "__main__":
    main()
