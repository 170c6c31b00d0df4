"""Compare the claims' verdicts of two builds: the repeatability gate.

Usage::

    python scripts/compare_verdicts.py RESULTS_A RESULTS_B [--language en]

``RESULTS_A`` and ``RESULTS_B`` are the result folders of two builds (``_build/results`` of each; a built site's
folder ``<site>/results`` works too when it holds the result files). For every claim this prints the verdict of
both builds and the figures the claim's rule compared, each with its interval, so that a reader sees how close a
verdict came to flipping; then every row of the decision table (the best per step with its band and regime, the
next with the margin's band, the advice about forcing a backend) and every "Same?" of the sweep's SDPA comparison, in
both builds; the empty forcing context of each build with its band; and, for the shape the variant pages and the
sweep share, each variant's GPU time on its page against its sweep point, in both builds, with the points the sweep
measured again.

Exit status: 0 when every verdict (claims, decision rows, the sweep's SDPA comparisons) is the same in both builds,
1 when one differs (a verdict that flips between two builds of one machine is a bug in its rule), 2 for bad
arguments. Imports no torch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from attnprof import variants
from attnprof.analysis import claims, summary
from attnprof.analysis.summary import Analysis
from attnprof.analysis.workload_rows import DECISION_WORKLOADS, DecisionRow
from attnprof.analysis.workload_rows import Build as WorkloadBuild
from attnprof.noise import Figure
from attnprof.records import eligibility, fixedcosts, forcing, results, sweep
from attnprof.records.eligibility import Grid
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.results import CpuCosts
from attnprof.records.sweep import Sweep


@dataclass
class Build:
    """What one build's result folder holds."""

    folder: Path
    analyses: dict[str, Analysis]
    cpu: CpuCosts | None
    sweep: Sweep | None
    workloads: WorkloadBuild | None = None
    grid: Grid | None = None
    fixed: FixedCosts | None = None


def load_build(folder: Path) -> Build:
    """The analysed results (one per variant: the first that ran, CUDA first), the CPU costs and the sweep.

    Raises:
        SystemExit: (status 2) when the folder does not exist or holds no result.
    """
    if not folder.is_dir():
        raise SystemExit(f"compare_verdicts: no such folder {str(folder)!r}; give the result folders of two builds")
    picked: dict[str, Analysis] = {}
    for variant in variants.VARIANTS:
        for path in results.find(folder, variant):
            try:
                a = summary.analyse(results.load(path))
            except results.StaleResultError as exc:
                raise SystemExit(f"compare_verdicts: {path}: {exc}") from None
            if variant not in picked or (a.result.ok and not picked[variant].result.ok):
                picked[variant] = a
    if not picked:
        raise SystemExit(f"compare_verdicts: no result files in {str(folder)!r}")
    cost_path = results.find_cpu_costs(folder)
    cpu = results.load_cpu_costs(cost_path) if cost_path is not None else None
    sweep_path = next((folder / sweep.filename(d) for d in ("cuda", "cpu") if (folder / sweep.filename(d)).exists()),
                      None)  # fmt: skip
    found_sweep = sweep.load(sweep_path) if sweep_path is not None else None
    by_workload = {
        w: [summary.analyse(results.load(p)) for p in results.find(folder, "*", w)] for w in DECISION_WORKLOADS
    }  # every workload's results, as the site's claims read them (attnprof.sphinxext.lookup.find_build)
    fixed_path = fixedcosts.find(folder)
    fixed = fixedcosts.load(fixed_path) if fixed_path is not None else None
    forcing_path = forcing.find(folder)
    side = forcing.load(forcing_path) if forcing_path is not None else None
    workloads = WorkloadBuild({w: found for w, found in by_workload.items() if found}, found_sweep, side)
    grid_path = eligibility.find(folder)
    grid = eligibility.load(grid_path) if grid_path is not None else None
    return Build(folder, picked, cpu, found_sweep, workloads, grid=grid, fixed=fixed)


def _figure(f: Figure | None) -> str:
    if f is None:
        return "-"
    return f"{f.median:.4g} [{f.lo:.4g}, {f.hi:.4g}]" + (f" n={f.n}" if f.n else "")


def compare_claims(a: Build, b: Build, language: str) -> tuple[list[str], list[str]]:
    """The report lines, and the ids of the claims whose verdicts differ."""
    va = {v.claim: v for v in claims.check_all(a.analyses, language, a.cpu, a.workloads)}
    vb = {v.claim: v for v in claims.check_all(b.analyses, language, b.cpu, b.workloads)}
    va |= {v.claim: v for v in claims.check_eligibility(a.grid, language)}
    vb |= {v.claim: v for v in claims.check_eligibility(b.grid, language)}
    lines, flipped = [], []
    for claim_id in va:
        x, y = va[claim_id], vb[claim_id]
        same = x.verdict == y.verdict
        if not same:
            flipped.append(claim_id)
        lines.append(f"{claim_id:<4} A: {x.verdict:<13} B: {y.verdict:<13} {'same' if same else 'DIFFERS'}")
        fa, fb = dict(x.figures), dict(y.figures)
        for label in dict.fromkeys([*fa, *fb]):
            lines.append(f"       {label:<32} A {_figure(fa.get(label)):<36} B {_figure(fb.get(label))}")
        if not same:
            lines.append(f"       A: {x.measured} {x.detail} {x.reason}".rstrip())
            lines.append(f"       B: {y.measured} {y.detail} {y.reason}".rstrip())
    return lines, flipped


def _pct(f: Figure | None) -> str:
    if f is None:
        return "-"
    return f"{100 * f.median:+.2f}% [{100 * f.lo:+.2f}%, {100 * f.hi:+.2f}%]"


def decision_verdict(r: DecisionRow) -> str:
    """What a decision row says, in a form two builds can be compared by: the best per step (or the pair too close
    to call, in either order), its regime, and the advice about forcing a backend (what the page shows)."""
    v, a = r.verdict, r.advice
    if v.winner is None:
        ranking = "none"
    elif v.too_close and v.runner_up is not None:
        ranking = "tie " + "/".join(sorted((v.winner.variant, v.runner_up.variant)))
    else:
        ranking = "win " + v.winner.variant
    advice = a.advice + (f" {a.best.variant}" if a.best is not None else "")
    return f"{ranking} ({v.regime}); forcing: {advice}"


def _row_figures(r: DecisionRow) -> str:
    v, a = r.verdict, r.advice
    parts = []
    if v.winner is not None:
        c = v.winner.cost
        parts.append(f"{v.winner.variant} step {_figure(c.step)} us (GPU {_figure(c.gpu)}, issue {_figure(c.issue)}"
                     f"{'' if c.side_by_side else ', own run'})")  # fmt: skip
    if v.runner_up is not None:
        parts.append(f"{v.runner_up.variant} margin {_pct(v.margin)}")
    if a.forcing_cpu is not None:
        parts.append(f"forcing {a.picked} adds {_figure(a.forcing_cpu)} us")
    if a.saving is not None:
        parts.append(f"forcing {a.best.variant if a.best else '?'} saves {_pct(a.saving)}")
    if v.unreliable:
        parts.append("unreliable: " + ", ".join(o.variant for o in v.unreliable))
    return "; ".join(parts)


def compare_decisions(a: Build, b: Build) -> tuple[list[str], list[str], int]:
    """The report lines of the decision rows and of the sweep's SDPA comparisons, the rows whose verdicts differ,
    and how many verdicts were compared."""
    rows_a = {(r.workload, r.length): r for r in (a.workloads.decision_rows() if a.workloads else [])}
    rows_b = {(r.workload, r.length): r for r in (b.workloads.decision_rows() if b.workloads else [])}
    lines, flipped = [], []
    for key in dict.fromkeys([*rows_a, *rows_b]):
        ra, rb = rows_a.get(key), rows_b.get(key)
        va = decision_verdict(ra) if ra else "missing"
        vb = decision_verdict(rb) if rb else "missing"
        same = va == vb
        name = f"{key[0]} {key[1]}"
        if not same:
            flipped.append(name)
        lines.append(f"{name:<16} A: {va:<44} B: {vb:<44} {'same' if same else 'DIFFERS'}")
        lines.append(f"       A {_row_figures(ra) if ra else '-'}")
        lines.append(f"       B {_row_figures(rb) if rb else '-'}")
    count = len(dict.fromkeys([*rows_a, *rows_b]))
    cmp_a = {(c.head_dim, c.seq): c for c in (a.sweep.sdpa_comparisons() if a.sweep else [])}
    cmp_b = {(c.head_dim, c.seq): c for c in (b.sweep.sdpa_comparisons() if b.sweep else [])}
    for key in dict.fromkeys([*cmp_a, *cmp_b]):
        ca, cb = cmp_a.get(key), cmp_b.get(key)
        oa = ca.outcome if ca else "missing"
        ob = cb.outcome if cb else "missing"
        name = f"sdpa hd{key[0]} s{key[1]}"
        if oa != ob:
            flipped.append(name)
        lines.append(f"{name:<16} A: {oa!s:<12} {_pct(ca.margin if ca else None):<30} B: {ob!s:<12} "
                     f"{_pct(cb.margin if cb else None):<30} {'same' if oa == ob else 'DIFFERS'}")  # fmt: skip
    return lines, flipped, count + len(dict.fromkeys([*cmp_a, *cmp_b]))


def forcing_line(build: Build) -> str:
    """The build's figure for the empty forcing context with its band (and the profiler's cost per op)."""
    f = build.fixed
    if f is None or f.forcing is None:
        return "  no fixed-cost file: forcing not measured once" + (f" ({f.reason})" if f and f.reason else "")
    line = f"  the empty sdpa_kernel context: {_figure(f.forcing)} us per call ({f.forcing_calls} calls)"
    if f.profiler_per_op is not None:
        line += f"; profiler per op: {_figure(f.profiler_per_op)} us"
    return line


def sweep_against_pages(build: Build) -> list[str]:
    """Each variant's GPU time on its page against its sweep point at the same shape (the same timer and plan, so
    they should agree within the noise: the target is 3% on the H200)."""
    sw = build.sweep
    if sw is None:
        return ["  no sweep in this build"]
    lines = []
    for name, a in build.analyses.items():
        r = a.result
        t = r.timing
        if not r.ok or t is None or r.shape[:2] != [sw.batch, sw.heads] or r.dtype != sw.dtype:
            continue
        p = sw.point(name, r.shape[3], r.shape[2])
        if p is None or not p.ok or p.gpu_ms is None:
            continue
        diff = p.gpu_ms / t.gpu_ms_median - 1
        flags = " unstable" if p.unstable or t.unstable else ""
        if p.remeasured:
            flags += f" re-measured ({p.remeasured}; first {p.first_gpu_ms:.4f} ms)"
        lines.append(
            f"  {name:<15} page {t.gpu_ms_median:.4f} ms [{t.gpu.lo:.4f}, {t.gpu.hi:.4f}]  sweep {p.gpu_ms:.4f} ms "
            f"[{p.gpu.lo:.4f}, {p.gpu.hi:.4f}]  {100 * diff:+.1f}%{flags}"  # type: ignore[union-attr]
        )
    return lines or ["  no variant page shares a shape with the sweep"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_a", type=Path, help="result folder of the first build")
    parser.add_argument("results_b", type=Path, help="result folder of the second build")
    parser.add_argument("--language", default="en", choices=["en", "ja"], help="language of the verdict texts")
    args = parser.parse_args(argv)
    try:
        a, b = load_build(args.results_a), load_build(args.results_b)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"A: {a.folder} ({a.analyses[next(iter(a.analyses))].result.environment.device_name})")
    print(f"B: {b.folder} ({b.analyses[next(iter(b.analyses))].result.environment.device_name})")
    print(f"CPU costs side by side: A {'yes' if a.cpu else 'no'}, B {'yes' if b.cpu else 'no'}\n")
    lines, flipped = compare_claims(a, b, args.language)
    print("\n".join(lines))
    print("\nDecision rows and the sweep's SDPA comparisons:")
    row_lines, rows_flipped, rows_compared = compare_decisions(a, b)
    print("\n".join(row_lines))
    for name, build in (("A", a), ("B", b)):
        print(f"\nThe empty forcing context, build {name}:\n{forcing_line(build)}")
        print(f"GPU time per forward, page against sweep, build {name}:")
        print("\n".join(sweep_against_pages(build)))
    n_claims = len(claims.CLAIMS) + len(claims.ELIGIBILITY_CLAIMS)
    total = n_claims + rows_compared
    differ = flipped + rows_flipped
    if differ:
        print(f"\n{len(differ)} of {total} verdicts differ between the builds: {', '.join(differ)}")
        return 1
    print(f"\nall {total} verdicts agree ({n_claims} claims, {rows_compared} decision rows and sweep comparisons)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
