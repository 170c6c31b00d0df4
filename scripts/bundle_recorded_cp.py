"""Make the recorded 2×H200 context-parallel run (tests/data/workloads/cp/runner-h200x2.json.gz, see the README
beside it) into the bundle the site shows on a builder with fewer than two GPUs: docs/bundles/h200x2-cp.tar.gz.

    python scripts/bundle_recorded_cp.py [--out docs/bundles/h200x2-cp.tar.gz]

The run file was kept gzipped under another name, so it is unzipped into the member name a results folder gives it
(``parallel__cuda.json``); its traces were not kept,
and the commit that measured was not recorded (the manifest says so).
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

from attnprof.records import bundle, files, parallel

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "data" / "workloads" / "cp" / "runner-h200x2.json.gz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "bundles" / "h200x2-cp.tar.gz"))
    args = ap.parse_args()
    data = gzip.decompress(files.read_bytes(RECORDED))
    run = parallel.ParallelRun.from_dict(files.read_json(RECORDED))
    env = run.environment
    prov = bundle.Provenance(
        gpu_model=env.device_name,
        gpu_count=run.world or len(run.gpus),
        torch=env.torch_version,
        measured=env.date,
        created=env.date,  # bundled from the file as recorded: the same day, so the bundle's bytes stay stable
        driver=env.driver_version,
        cuda=env.cuda_version,
        cudnn=env.cudnn_version,
        attnprof_version=env.attnprof_version,
        attnprof_commit=None,
    )
    blob, manifest = bundle.pack({parallel.filename("cuda"): data}, prov)
    files.atomic_write(args.out, blob)
    print(f"wrote {args.out}: {len(blob)} bytes, {manifest.provenance.machine}, measured {prov.day}")


if __name__ == "__main__":
    main()
