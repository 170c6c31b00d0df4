"""attnprof.analysis.summary: the kernel table, op counts, the main kernel, SDPA's backend and the at-a-glance
figures, on the H200 fixture traces (cross-checked with the raw events) and on small made-up steps; and each result
analysed once."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

from attnprof.analysis import summary
from attnprof.records import trace
from attnprof.records.results import CpuOp, GpuActivity, StepTrace
from helpers import TRACE_VARIANTS, analysed, fixture_steps, trace_result
from helpers import annotation_marks as _marks
from helpers import fixture_steps as _steps
from helpers import raw_events as _x
from helpers import raw_trace as _raw

VARIANTS = list(TRACE_VARIANTS)


# --- the kernel table and op counts ---------------------------------------------------------------------------------


def _config(a) -> tuple:
    return summary.launch_config(a)


@pytest.mark.parametrize("variant", VARIANTS)
def test_kernel_table_accounts_for_every_activity(variant):
    steps = list(_steps(variant))
    rows = summary.kernel_rows(steps, trace.device_properties(_raw(variant)))
    by_key = Counter((a.name, _config(a)) for s in steps for a in s.activities)
    assert {(r.name, _config(r)): r.count for r in rows} == dict(by_key)
    assert len(rows) == len(by_key)  # one row per name and launch configuration, no two rows for one
    step0 = list(dict.fromkeys(a.name for a in steps[0].activities))
    assert list(dict.fromkeys(r.name for r in rows))[: len(step0)] == step0
    # the rows of one name sit together
    names = [r.name for r in rows]
    for n in set(names):
        at = [i for i, m in enumerate(names) if m == n]
        assert at == list(range(at[0], at[0] + len(at))), n
    for r in rows:
        acts = [a for s in steps for a in s.activities if a.name == r.name and _config(a) == _config(r)]
        assert r.configs == len({_config(a) for s in steps for a in s.activities if a.name == r.name})
        assert r.per_step == pytest.approx(len(acts) / len(steps))
        assert r.total_us == pytest.approx(sum(a.duration_us for a in acts), abs=1e-3)
        assert r.avg_us == pytest.approx(r.total_us / r.count, abs=1e-3)
        assert r.info.name == r.name
        if r.kind == "kernel":
            assert r.reported_occupancy == statistics.median(a.reported_occupancy for a in acts)
            assert r.theoretical is not None
            assert r.theoretical.blocks_per_sm >= 1  # it ran, so at least one block fitted
        else:
            assert r.theoretical is None and r.reported_occupancy is None and r.grid is None


def test_no_row_averages_launches_of_different_grids():
    # The recorded H200 math trace launches `where` with grid 4096 (about 4 µs) and with grid 524288 (about 410 µs),
    # three times each; the bf16 copy likewise with two grids. Each configuration is a row of its own.
    steps = list(_steps("sdpa_math"))
    rows = summary.kernel_rows(steps, trace.device_properties(_raw("sdpa_math")))
    for r in rows:
        launches = [a for s in steps for a in s.activities if a.name == r.name and _config(a) == _config(r)]
        assert {tuple(a.grid or ()) for a in launches} == {tuple(r.grid or ())}, r.name
    where = [r for r in rows if r.info.fields.get("op") == "where"]
    raw_grids = Counter(
        tuple(e["args"]["grid"]) for e in _x("sdpa_math") if e["cat"] == "kernel" and e["name"] == where[0].name
    )
    assert sorted(raw_grids.values()) == [3, 3]
    assert sorted(tuple(r.grid) for r in where) == sorted(raw_grids)  # type: ignore[arg-type]
    assert [r.count for r in where] == [3, 3] and all(r.configs == 2 and r.per_step == 1.0 for r in where)
    # the first row is the configuration seen first, and the two rows are next to each other
    first = next(a.grid for a in steps[0].activities if a.name == where[0].name)
    assert where[0].grid == first
    i = rows.index(where[0])
    assert rows[i + 1] is where[1]
    short, long = sorted(where, key=lambda r: r.avg_us)
    assert short.grid == [4096, 1, 1] and long.grid == [524288, 1, 1]
    assert short.avg_us < 10 < 300 < long.avg_us  # an average over both would be neither
    # per-configuration occupancy: the small grid fills fewer blocks per SM than the large one
    assert short.blocks_per_sm < long.blocks_per_sm
    flash = summary.kernel_rows(list(_steps("sdpa_flash")), trace.device_properties(_raw("sdpa_flash")))
    (row,) = flash
    assert (row.configs, row.grid, row.block, row.launch_api) == (1, [8, 8, 16], [128, 1, 1], "cudaLaunchKernel")
    assert row.per_step == 1.0 and row.count == 3
    assert all(r.theoretical is None for r in summary.kernel_rows(steps, {}))  # no device properties, no theory


def test_kernel_table_mixed_launch_api_and_empty_input():
    steps = [
        StepTrace(0, 1.0, 0.0, 0.0, activities=[_act("k", "cuLaunchKernel"), _act("k", "cudaLaunchKernel")]),
        StepTrace(1, 1.0, 0.0, 0.0, activities=[_act("k", "cudaLaunchKernel"), _act("late", "cudaLaunchKernel")]),
    ]
    rows = summary.kernel_rows(steps, {})
    assert [r.name for r in rows] == ["k", "late"]
    assert rows[0].launch_api == "mixed: cudaLaunchKernel, cuLaunchKernel"
    assert rows[0].per_step == 1.5 and rows[1].per_step == 0.5
    assert summary.kernel_rows([], {}) == []


def _act(name, api, occ=None):
    return GpuActivity(
        kind="kernel", name=name, start_us=0.0, duration_us=1.0, launch_api=api, reported_occupancy=occ
    )


def test_kernel_table_reports_the_median_occupancy():
    acts = [_act("k", "cudaLaunchKernel", occ) for occ in (90.0, 10.0, 20.0, None)]
    (row,) = summary.kernel_rows([StepTrace(0, 1.0, 0.0, 0.0, activities=acts)], {})
    assert row.reported_occupancy == 20.0 and row.count == 4


def test_op_counts_means_over_steps():
    def step(i, names):
        return StepTrace(i, 1.0, 0.0, 0.0, cpu_ops=[CpuOp(n, "cpu_op", 0.0, 1.0) for n in names])

    counts = summary.op_counts([step(0, ["a", "b", "a"]), step(1, ["a", "c"])])
    assert counts == {"a": 1.5, "b": 0.5, "c": 0.5}
    assert list(counts) == ["a", "b", "c"]
    assert summary.op_counts([]) == {}


@pytest.mark.parametrize("variant", VARIANTS)
def test_op_counts_match_raw_cpu_ops(variant):
    counts = summary.op_counts(list(_steps(variant)))
    events = _x(variant)
    marks = _marks(variant)
    for name in ("aten::empty", "cudaLaunchKernel", "aten::transpose", "cuLaunchKernelEx"):
        raw = sum(
            1
            for m in marks
            for e in events
            if e["name"] == name and m["ts"] <= e["ts"] and e["ts"] + e["dur"] <= m["ts"] + m["dur"]
        )
        assert counts.get(name, 0) == pytest.approx(raw / len(marks))


@pytest.mark.parametrize(
    ("variant", "family"),
    [
        ("sdpa_auto", "cudnn"),
        ("sdpa_flash", "flash"),
        ("sdpa_efficient", "mem_efficient"),
        ("sdpa_math", "math"),
        ("sdpa_cudnn", "cudnn"),
    ],
)
def test_sdpa_backend_from_the_h200_traces(variant, family):
    choice, evidence = summary.sdpa_backend(fixture_steps(variant))
    assert choice == family
    assert evidence  # a kernel name, or for math the ATen op
    if family != "math":
        assert not evidence.startswith("aten::")


def test_sdpa_backend_without_kernels_or_ops_is_unknown():
    assert summary.sdpa_backend([]) == ("unknown", "")
    assert summary.sdpa_backend([StepTrace(0, 1.0, 0.0, 0.0)]) == ("unknown", "")


# --- the main kernel, the summary -----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_main_kernel_is_the_kernel_with_the_largest_total_time(variant):
    a = analysed(variant)
    kernels = [r for r in a.rows if r.kind == "kernel"]
    assert a.kernels == kernels
    assert a.main_kernel() is max(kernels, key=lambda r: r.total_us)
    assert a.summary.main_kernel == a.main_kernel().info.short
    for family in {r.info.family for r in kernels}:
        of_family = [r for r in kernels if r.info.family == family]
        assert a.main_kernel(family) is max(of_family, key=lambda r: r.total_us)
    assert a.main_kernel("no such family") is None


def test_summary_of_the_naive_fixture():
    a = analysed("naive")
    steps = a.result.steps
    assert a.summary.activities_per_step == 7 and a.summary.kernels_per_step == 5
    # CPU time per profiled step: the median of the active steps (the first is often much longer), with their range
    cpu = sorted(s.cpu_time_us for s in steps)
    assert a.summary.cpu_us == cpu[1] and (a.summary.cpu_step.lo, a.summary.cpu_step.hi) == (cpu[0], cpu[-1])
    assert a.summary.cpu_us < statistics.mean(cpu)  # the first step is the long one here
    assert a.summary.gpu_ms == a.result.timing.gpu_ms_median
    assert a.kinds == {"kernel": 5.0, "memcpy": 1.0, "memset": 1.0}


def test_a_result_that_did_not_run_analyses_to_nothing():
    r, _ = trace_result("sdpa_flash")
    r.status, r.reason = "oom", "CUDA out of memory"
    a = summary.analyse(r)
    assert a.rows == () and a.main_kernel() is None and a.ops == {}
    assert a.summary.status == "oom" and a.summary.gpu_ms is None and a.sdpa == ("unknown", "")


def test_self_share_and_min_op_count():
    steps = list(fixture_steps("sdpa_cudnn"))
    share = summary.self_share(steps, "aten::scaled_dot_product_attention")
    assert 0 < share < 1
    assert summary.self_share(steps, "aten::nope") is None
    assert summary.min_op_count(steps, "aten::transpose") == 0
    assert summary.min_op_count(list(fixture_steps("sdpa_flash")), "aten::transpose") == 4
