"""Measure the training-scale grid on this machine and print it: ``python scripts/probe_trainscale.py [--out DIR]``.

Runs :func:`attnprof.measure.trainscale.measure_grid` (CUDA when there is one): forward and backward of each SDPA
backend over sequence lengths, head dims 64 and 128, causal and without a mask. Prints the ceilings and the
published peak, every point (TFLOP/s of each pass, shares of the ceiling and of the peak, or why it did not run),
the table at the longest length, and what the grid cost. Writes ``trainscale__<device>.json`` (the record the page
reads) and a gzipped copy for ``tests/data``, and the plot when matplotlib is there.
"""

from __future__ import annotations

import argparse
import gzip
import os
from pathlib import Path

import torch

from attnprof.measure import trainscale
from attnprof.records import trainscale as records


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder to write into (default: $OUT or .)")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def progress(done: int, total: int, p: records.TrainPoint) -> None:
        print(f"  [{done}/{total}] {p.variant} hd{p.head_dim} {'causal' if p.causal else 'full'} seq{p.seq}: "
              f"{p.status} in {p.wall_s:.2f} s", flush=True)  # fmt: skip

    grid = trainscale.measure_grid(device, ceilings=trainscale.build_ceilings(device, out), progress=progress)
    path = records.save(grid, out)
    (out / f"{path.name}.gz").write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    env = grid.environment
    print(f"\n# {env.device_name}, torch {env.torch_version}, CUDA {env.cuda_version}, cuDNN {env.cudnn_version}")
    print(f"# {grid.dtype}, {grid.reps} timed calls per pass, timer {grid.timer}; grid took {grid.elapsed_s:.1f} s")
    c = grid.ceilings
    print(f"# matmul ceiling: {c.matmul_tflops:.0f} TFLOP/s ({grid.ceilings_from})" if c else "# no ceilings")
    peak = grid.peak
    print(f"# published peak: {peak.tflops:g} TFLOP/s ({peak.gpu}, {peak.source})" if peak else "# no published peak")
    print("\n## every point: TFLOP/s fwd [band] | bwd [band] | fwd/bwd share of ceiling | of peak | wall s")
    for p in grid.points:
        mask = "causal" if p.causal else "full  "
        head = f"{p.variant:15s} hd{p.head_dim:<4d} {mask} seq{p.seq:<6d} b{p.batch}h{p.heads}"
        if not p.ok:
            print(
                f"{head}  {p.status}: {p.reason}"
                if not (p.reason or "").startswith(p.status)
                else f"{head}  {p.reason}"
            )
            continue
        f, b = p.tflops("fwd"), p.tflops("bwd")
        print(
            f"{head}  fwd {f.median:7.1f} [{f.lo:6.1f},{f.hi:6.1f}]  bwd {b.median:7.1f} [{b.lo:6.1f},{b.hi:6.1f}]  "
            f"ceil {_pct(grid.share_of_ceiling(p, 'fwd'))}/{_pct(grid.share_of_ceiling(p, 'bwd'))}  "
            f"peak {_pct(grid.share_of_peak(p, 'fwd'))}/{_pct(grid.share_of_peak(p, 'bwd'))}  "
            f"ms {p.fwd.median:.3f}/{p.bwd.median:.3f}  {p.wall_s:.2f} s"
        )
    longest = max(grid.seqs)
    print(f"\n## at seq {longest}: TFLOP/s forward / backward")
    for d in grid.head_dims:
        for m in grid.causal:
            cells = []
            for v in grid.variants:
                p = grid.point(v, d, m, longest)
                ok = p is not None and p.ok
                cells.append(f"{v}={p.tflops('fwd').median:.0f}/{p.tflops('bwd').median:.0f}" if ok else f"{v}=-")
            print(f"hd{d} {'causal' if m else 'full'}: " + "  ".join(cells))
    slowest = sorted(grid.points, key=lambda p: -p.wall_s)[:5]
    print(
        "\n## slowest points: "
        + ", ".join(f"{p.variant} hd{p.head_dim} seq{p.seq} {p.wall_s:.2f} s" for p in slowest)
    )
    try:
        from attnprof.render import trainplot
    except ImportError:
        trainplot = None
    if trainplot is not None:
        for phase in records.PASSES:
            print(f"plot: {trainplot.save(grid, phase, out / f'trainscale-{phase}.png')}")
    print(f"\nwritten: {path} and {path.name}.gz")


if __name__ == "__main__":
    main()
