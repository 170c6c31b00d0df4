"""Why one sweep point came out slower than its page: time one shape the page's way and the sweep's way, before
and after the heavy points that precede it in the sweep, and after an idle pause.

On the H200 the sweep measured naive_inplace at 8x16x1024x64 at 0.989 ms in every build, the variant page 0.931 ms,
with the same timer and plan (:func:`attnprof.measure.timing.time_shape`). What differs between the two: the page
makes its inputs on the CPU and moves them (:func:`attnprof.inputs.make_inputs`), the sweep on the device; the page
times the shape right after its own profiler run, the sweep after every point before it (the naive code at head_dim
128 up to seq 16384, gigabytes of score matrices, the GPU hot and its allocator fragmented). This probe times the
shape both ways, three times: on a fresh process, right after the sweep's heavy naive points, and after a pause.
The sweep now re-measures a point slower than its page (:meth:`attnprof.records.sweep.Sweep.suspects`); this says
why it was slow.

Usage (the repository as working directory)::

    PYTHONPATH=src python scripts/probe_sweep_point.py OUT [--device cpu]

It prints one line per measurement and writes ``OUT/sweep_point.json``. On the CPU it runs at a small shape, which
checks the probe itself in a few seconds. On an H200 it takes about half a minute.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from attnprof import inputs, variants
from attnprof.measure import sweeprun
from attnprof.measure.timing import DEFAULT_PLAN, gpu_sleeper, sync, time_shape

GPU = {"variant": "naive_inplace", "shape": (8, 16, 1024, 64), "dtype": "bfloat16", "heavy": ("naive", 128,
       (4096, 8192, 16384))}  # fmt: skip
CPU = {"variant": "naive_inplace", "shape": (1, 2, 128, 64), "dtype": "float32", "heavy": ("naive", 64, (256, 512))}


def page_way(variant: str, setup: inputs.Setup) -> float:
    """The page's timing: inputs made on the CPU and moved, the shape timed by ``time_shape`` (median, ms)."""
    import torch

    q, k, v = inputs.make_inputs(setup)
    fn = variants.get(variant).build(setup.shape[2], setup.device)
    with torch.no_grad():
        timed = time_shape(lambda: fn(q, k, v), setup.device, DEFAULT_PLAN, gpu_sleeper(setup.device))
    return timed.gpu.median


def sweep_way(variant: str, setup: inputs.Setup) -> float:
    """The sweep's timing of the same point (inputs made on the device), nothing re-measured (median, ms)."""
    b, h, s, d = setup.shape
    cfg = sweeprun.make_config([variant], [s], [d], batch=b, heads=h, dtype=setup.dtype, device=setup.device,
                               recheck=0, budget_s=600)  # fmt: skip
    point = sweeprun.run_sweep(cfg).points[0]
    return point.gpu_ms if point.gpu_ms is not None else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for sweep_point.json")
    parser.add_argument("--device", default="cuda", choices=inputs.DEVICES)
    args = parser.parse_args()
    plan = GPU if args.device == "cuda" else CPU
    setup = inputs.make_setup(plan["shape"], plan["dtype"], args.device)
    variant = plan["variant"]
    rows = []

    def both(when: str) -> None:
        for name, way in (("page", page_way), ("sweep", sweep_way)):
            ms = way(variant, setup)
            rows.append({"when": when, "way": name, "ms": ms})
            print(f"{when:28} {name:6} {variant} {setup.describe()}: {ms:.4f} ms")

    t0 = time.perf_counter()
    both("fresh process")
    heavy, head_dim, seqs = plan["heavy"]
    b, h, _, _ = setup.shape
    cfg = sweeprun.make_config([heavy], list(seqs), [head_dim], batch=b, heads=h, dtype=setup.dtype,
                               device=setup.device, recheck=0, budget_s=600)  # fmt: skip
    heavy_sweep = sweeprun.run_sweep(cfg)
    print(f"heavy points: {[(p.seq, p.status, p.gpu_ms) for p in heavy_sweep.points]}")
    both(f"after {heavy} hd{head_dim}")
    sync(setup.device)
    time.sleep(5.0)
    both("after a 5 s pause")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sweep_point.json").write_text(json.dumps({"setup": setup.describe(), "rows": rows}, indent=1))
    print(f"took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
