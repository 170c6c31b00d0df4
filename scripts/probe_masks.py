"""Measure attention under masks beyond causal on this machine and keep small traces as fixtures:
``python scripts/probe_masks.py --out DIR``.

Runs :func:`attnprof.measure.maskrun.run` (the package's own measuring code; CUDA when there is one): sliding window,
packed documents and prefix-LM, each through FlexAttention (its block mask built and timed apart), SDPA with the
dense mask (every backend forced, and SDPA's choice), nested tensors (packed documents) and the naive code, forward
and training. Prints one line per case and per block-mask build, then writes ``DIR/masks__<device>.json`` with the
traces of the cases at ``--trace-seqs`` beside it (gzipped; the fixtures of ``tests/data/masks/<gpu>``).

Options narrow the run: ``--seqs 4096,8192 --windows 256,1024 --masks documents --methods flex,sdpa_efficient``.
On the CPU it runs the small CPU sizes (no FlexAttention: the cases say why) in a few seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch

from attnprof import workloads
from attnprof.analysis import masks as view
from attnprof.measure import maskrun
from attnprof.records import masks as records
from attnprof.render import masks as report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder to write into (default: $OUT or .)")
    parser.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    parser.add_argument("--seqs", default=None, help="sequence lengths (default: the build's)")
    parser.add_argument("--windows", default=None, help="sliding windows (default: the build's)")
    parser.add_argument("--trace-seqs", default=None, help="lengths whose cases are traced (default: the shortest)")
    parser.add_argument("--masks", default=",".join(workloads.MASKS), help=f"any of: {', '.join(workloads.MASKS)}")
    parser.add_argument(
        "--methods", default=",".join(workloads.METHODS), help=f"any of: {', '.join(workloads.METHODS)}"
    )
    parser.add_argument("--workloads", default=",".join(maskrun.WORKLOADS), help="prefill and/or train")
    args = parser.parse_args()
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    base = maskrun.default_plan(device)
    try:
        seqs = maskrun.seqs_arg(args.seqs, "--seqs") if args.seqs else base.seqs
        plan = maskrun.MaskPlan(
            device,
            base.bhd,
            seqs,
            maskrun.seqs_arg(args.windows, "--windows") if args.windows else base.windows,
            maskrun.names_arg(args.masks, tuple(workloads.MASKS), "mask"),
            maskrun.names_arg(args.methods, tuple(workloads.METHODS), "method"),
            maskrun.names_arg(args.workloads, maskrun.WORKLOADS, "workload"),
            trace_seqs=maskrun.seqs_arg(args.trace_seqs, "--trace-seqs") if args.trace_seqs else seqs[:1],
            check_seqs=seqs[:1],
        )
    except ValueError as exc:
        parser.error(str(exc))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def say(done: object) -> None:
        line = report.case_line(done) if isinstance(done, records.MaskCase) else report.build_line(done)
        print(line, flush=True)

    run = maskrun.run(plan, save_to=out, say=say)
    path = records.save(run, out)
    env = run.environment
    print(f"# {env.device_name}, torch {env.torch_version}, CUDA {env.cuda_version}, cuDNN {env.cudnn_version}")
    print(f"# shape [B, H, S, D] = {list(plan.bhd[:2])} + S + [{plan.bhd[2]}], {plan.dtype}; {run.seconds:.1f} s")
    print("\n## block masks (create_block_mask, timed apart from the kernel)")
    for build in run.builds:
        print(report.build_line(build))
        for name, us in build.kernels[:4]:
            print(f"      {us:10.1f} us  {name[:110]}")
    print("\n## FlexAttention against the fastest dense-mask SDPA (ms; bands overlapping = tie)")
    print("\n".join(view.summary_lines(run)))
    print("\n## cases that did not run, in PyTorch's words")
    for case in run.cases:
        if case.status not in ("ok", "not_applicable"):
            print(report.case_line(case))
    sizes = sorted(p.stat().st_size for p in out.glob("*.trace.json.gz"))
    kib = max(sizes, default=0) / 1024, sum(sizes) / 1024
    print(f"\n# traces: {len(sizes)}, largest {kib[0]:.0f} KiB, all {kib[1]:.0f} KiB")
    print(f"# written: {path}; took {time.perf_counter() - t0:.1f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
