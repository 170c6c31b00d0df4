"""The mask run recorded on the H200 (tests/data/masks/h200, by scripts/probe_masks.py): what the GPU said and did,
read back through the package's own readers and analysis."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from attnprof import workloads
from attnprof.analysis import claims
from attnprof.analysis import masks as view
from attnprof.records import masks as records
from attnprof.records import trace
from attnprof.render import masks as report

H200 = Path(__file__).parent / "data" / "masks" / "h200"


@pytest.fixture(scope="module")
def run():
    return records.load(H200 / records.filename("cuda"))


def test_it_is_a_cuda_run_of_every_mask_and_method(run):
    assert run.device == "cuda" and "H200" in run.environment.device_name
    assert {c.mask for c in run.cases} == set(workloads.MASKS)
    assert {c.method for c in run.cases} == set(workloads.METHODS)
    for case in run.cases:
        assert (case.time_ms is not None) == (case.status == "ok"), case.stem()
        assert case.status == "ok" or case.reason, case.stem()


def test_every_forward_that_ran_computes_the_masked_attention(run):
    checked = [c for c in run.cases if c.rel_error is not None]
    assert checked and all(c.rel_error < 2e-2 for c in checked), [(c.stem(), c.rel_error) for c in checked]


def test_flex_ran_and_its_traces_show_a_generated_kernel(run):
    flex = [c for c in run.cases if workloads.get_method(c.method).compiled]
    assert flex and all(c.status == "ok" for c in flex)
    traced = [c for c in flex if c.trace_file]
    assert traced
    for case in traced:
        data = json.loads(gzip.decompress((H200 / case.trace_file).read_bytes()))
        steps = trace.parse_trace(data, f"{case.mask}_{case.method}_{case.workload}")
        assert steps and any("triton" in k.name or "flex" in k.name.lower() for k in steps[-1].kernels), case.stem()


def test_the_block_masks_were_built_apart_and_skip_tiles(run):
    assert run.builds and all(b.status == "ok" and b.time_ms is not None for b in run.builds)
    short = min((b for b in run.builds if b.window), key=lambda b: (b.window, -b.seq))
    assert short.kept_blocks is not None and short.kept_blocks < 0.5
    assert all(b.launches > 0 for b in run.builds if b.trace_file)


def test_fixtures_stay_small():
    sizes = {p.name: p.stat().st_size for p in H200.glob("*.trace.json.gz")}
    assert sizes and max(sizes.values()) <= 300 * 1024, max(sizes.items(), key=lambda kv: kv[1])


def test_the_page_and_the_claims_read_it(run):
    assert len(view.verdicts(run)) >= len(workloads.MASKS) * 2
    text = report.report(run, "ja")
    assert "スライディングウィンドウ" in text
    assert all(v.verdict != "unmeasurable" for v in claims.check_masks(run, "en"))
