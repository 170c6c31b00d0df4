"""scripts/compare_verdicts.py, the repeatability gate: two result folders made from the H200 fixtures, the same or
with one verdict flipped."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import sys
from pathlib import Path

import pytest

from attnprof.analysis import claims
from attnprof.noise import Figure
from attnprof.records import fixedcosts, results, sweep
from helpers import fixed_costs, h200_sweep, trace_result

SCRIPT = Path(__file__).parent.parent / "scripts" / "compare_verdicts.py"


@functools.cache
def _script():
    spec = importlib.util.spec_from_file_location("compare_verdicts", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]  # dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _build(folder: Path, flash_ms: float | None = None, flash_4096: float = 1.0, forcing: float = 8.01) -> Path:
    for v in ("sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto", "sdpa_math", "naive"):
        r, raw = trace_result(v)
        if v == "sdpa_flash" and flash_ms is not None:
            r.timing = dataclasses.replace(r.timing, gpu_ms_median=flash_ms)
        results.save(r, folder, raw)
    sw = h200_sweep()
    p = sw.point("sdpa_flash", 64, 1024)
    p.gpu_ms = trace_result("sdpa_flash")[0].timing.gpu_ms_median * 1.02
    sw.point("sdpa_flash", 64, 4096).gpu_ms *= flash_4096
    sweep.save(sw, folder)
    fixedcosts.save(fixed_costs(Figure(forcing, forcing * 0.99, forcing * 1.01, 20)), folder)
    return folder


def test_the_same_results_give_the_same_verdicts(tmp_path, capsys):
    a, b = _build(tmp_path / "a"), _build(tmp_path / "b")
    assert _script().main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    claims_n = len(claims.CLAIMS) + len(claims.ELIGIBILITY_CLAIMS)
    # the workloads' and the map's claims unmeasurable in both; 6 prefill rows of the decision table and 12 SDPA
    # comparisons
    assert f"all {claims_n + 18} verdicts agree ({claims_n} claims, 18 decision rows" in out
    assert "C40  A: unmeasurable  B: unmeasurable  same" in out  # no eligibility map in these builds
    assert "C15  A: differs       B: differs       same" in out
    # the figures the rule compared, with their intervals, for both builds
    assert "gpu_us sdpa_flash" in out and "A 162.1 [162.1, 162.1] n=30" in out
    # the page against the sweep at the shared shape
    assert "sdpa_flash      page 0.1621 ms" in out and "+2.0%" in out
    # each decision row with its figures and bands (what a step costs, GPU and CPU, and its regime), and the empty
    # forcing context of each build with its band
    assert "prefill 4096     A: win sdpa_auto (gpu); forcing: keep" in out and "sdpa_flash margin +" in out
    assert "sdpa_auto step 746.3 [723.9, 768.7] us (GPU 746.3 [746.3, 746.3], issue 25 [25, 25] n=1, own run)" in out
    assert "the empty sdpa_kernel context: 8.01 [7.93, 8.09] n=20 us per call (4000 calls)" in out


def test_a_flipped_verdict_fails_the_gate(tmp_path, capsys):
    a, b = _build(tmp_path / "a"), _build(tmp_path / "b", flash_ms=0.1)
    assert _script().main([str(a), str(b), "--language", "ja"]) == 1
    out = capsys.readouterr().out
    assert "C15  A: differs       B: holds         DIFFERS" in out
    every = len(claims.CLAIMS) + len(claims.ELIGIBILITY_CLAIMS) + 18
    assert f"1 of {every} verdicts differ between the builds: C15" in out
    assert "最速: flash" in out  # the verdict texts of both builds, in the language asked for


def test_a_decision_row_that_flips_fails_the_gate(tmp_path, capsys):
    # flash 40% faster at seq 4096 in the second build: the winner of that row changes, and so does SDPA's "Same?"
    a, b = _build(tmp_path / "a"), _build(tmp_path / "b", flash_4096=0.6)
    assert _script().main([str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "prefill 4096     A: win sdpa_auto (gpu); forcing: keep" in out
    assert "B: win sdpa_flash (gpu); forcing: force sdpa_flash DIFFERS" in out
    assert "verdicts differ between the builds: prefill 4096, sdpa hd64 s4096" in out


def test_bad_folders_are_one_line_and_status_2(tmp_path, capsys):
    assert _script().main([str(tmp_path / "nope"), str(tmp_path)]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert _script().main([str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    assert "no result files" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["only-one"]])
def test_usage(argv):
    with pytest.raises(SystemExit) as info:
        _script().main(argv)
    assert info.value.code == 2
