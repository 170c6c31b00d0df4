"""Record on a GPU what the verdicts weigh besides the GPU time, for fixtures: the side-by-side issue times at every
shape of the decision table (:mod:`attnprof.measure.forcing`) and the side-by-side CPU costs of every variant
(:mod:`attnprof.measure.cpucosts`), measured anew (nothing reused), gzipped into ``--out`` with a one-page summary.

Usage (the H200 builder: ``$OUT`` is the folder the device tool brings back)::

    python scripts/record_verdicts.py --out $OUT

On one H200 it takes under a minute, most of it compiling FlexAttention and the compiled naive code once for the
CPU costs. Without a GPU it measures the CPU's small shapes (what the tests run).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from pathlib import Path

from attnprof.measure import cpucosts
from attnprof.measure import forcing as forcing_costs
from attnprof.records import forcing
from attnprof.render import report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to write the gzipped files into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = forcing_costs.measure_forcing(save_to=tmp, reuse=False)
        costs = cpucosts.measure_cpu_costs(save_to=tmp, reuse=False)
        for path in (Path(tmp) / forcing.filename(run.device), Path(tmp) / costs.filename):
            (args.out / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    summary = "\n".join([report.forcing_table(run), "", report.cpu_cost_table(costs),
                         f"\nrecorded in {time.perf_counter() - t0:.1f} s"])  # fmt: skip
    (args.out / "verdicts-summary.txt").write_text(summary + "\n", encoding="utf-8")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
