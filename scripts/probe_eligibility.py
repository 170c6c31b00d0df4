"""Print this machine's eligibility map and keep it as a fixture: ``python scripts/probe_eligibility.py [--out DIR]``.

Measures the grid with the package's own code (:func:`attnprof.measure.eligibility.measure_grid`, CUDA when there is
one), then prints: per condition, the backends that refused and PyTorch's reason; where a check and its real call
disagreed; the map's tables; and what measuring it cost (the whole grid, and the slowest cases). Writes
``eligibility__<device>.json`` (the record the page reads) and a gzipped copy for ``tests/data``.
"""

from __future__ import annotations

import argparse
import gzip
import os
from pathlib import Path

import torch

from attnprof.analysis import eligibility as view
from attnprof.measure import eligibility
from attnprof.records import eligibility as records
from attnprof.render import eligibility as mapreport


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder to write into (default: $OUT or .)")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    grid = eligibility.measure_grid(device, save_to=out, reuse=False)
    path = out / records.filename(device)
    (out / f"{path.name}.gz").write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    env = grid.environment
    print(f"# {env.device_name}, torch {env.torch_version}, CUDA {env.cuda_version}, cuDNN {env.cudnn_version}")
    print(f"# base case: {view.describe(grid.base)}")
    print(f"# the grid took {grid.seconds:.1f} s; slowest cases:")
    for row in sorted(grid.rows, key=lambda r: -r.seconds)[:5]:
        print(f"#   {row.seconds:6.2f} s  {row.family}: {view.label(row.case, grid.base, row.family)}")
    print("\n## refusals, per condition (PyTorch's words)")
    for family, condition, refused in view.refusals(grid):
        print(f"- {family}: {condition}")
        for backend, reason in refused:
            print(f"    {backend}: {reason}")
    print("\n## checks and calls that disagree")
    print("\n".join(f"- {d}" for d in view.disagreements(grid)) or "- none")
    print("\n## the map\n")
    print(mapreport.grid_report(grid))
    print(f"\nwritten: {path} and {path.name}.gz")


if __name__ == "__main__":
    main()
