"""attnprof.analysis.parallelmodel: the model of more GPUs and nodes, from the figures the 2 x H200 run measured."""

from __future__ import annotations

import dataclasses

import pytest

from attnprof.analysis import parallelmodel as pm
from helpers import h200x2_run, no_gpu_run


@pytest.fixture(scope="module")
def basis() -> pm.Basis:
    b = pm.basis(h200x2_run())
    assert b is not None
    return b


def test_the_basis_is_the_longest_all_gather_case_and_the_measured_bandwidth(basis):
    assert (basis.seq, basis.method, basis.backend, basis.world) == (131072, "allgather", "flash", 2)
    assert basis.single_ms == 226.0688 and basis.measured_step_ms == 117.7167
    assert basis.kv_bytes == 2 * 2 * 16 * 131072 * 64 * 2  # k and v, bf16
    assert basis.busbw_gbs == 231.8
    assert basis.tflops == pytest.approx(2 * 2 * 16 * 131072**2 * 64 / 0.2260688 / 1e12)
    assert basis.overlap == h200x2_run().case("allgather", 131072).overlap
    assert (basis.gpus_per_node, basis.inter_node_gbs) == (pm.GPUS_PER_NODE, pm.INTER_NODE_GBS)


def test_one_row_worked_out_by_hand(basis):
    row = pm.predict(basis, 4)
    assert (row.gpus, row.nodes, row.bandwidth_gbs) == (4, 1, 231.8)
    assert row.compute_ms == pytest.approx(226.0688 / 4)
    assert row.comm_ms == pytest.approx(3 / 4 * basis.kv_bytes / 231.8e9 * 1e3)
    assert row.exposed_ms == pytest.approx((1 - basis.overlap) * row.comm_ms)
    assert row.step_ms == pytest.approx(row.compute_ms + row.exposed_ms)
    assert row.speedup == pytest.approx(226.0688 / row.step_ms) and row.efficiency == pytest.approx(row.speedup / 4)


def test_across_nodes_the_network_sets_the_pace(basis):
    inside, across = pm.predict(basis, 8), pm.predict(basis, 16)
    assert (inside.nodes, across.nodes) == (1, 2)
    assert across.bandwidth_gbs == pm.INTER_NODE_GBS < inside.bandwidth_gbs
    assert across.comm_bound and not inside.comm_bound
    # once communication outlasts compute, only compute can hide under it
    assert across.exposed_ms == pytest.approx(across.comm_ms - across.compute_ms)
    assert across.step_ms == pytest.approx(across.comm_ms)


def test_where_it_can_be_checked_the_model_is_close_to_the_measurement(basis):
    """At two GPUs the model leaves out the merge kernels, so it must come out faster, but not by much."""
    model = pm.predict(basis, 2).step_ms
    assert model < basis.measured_step_ms < 1.1 * model


def test_the_crossover_is_the_first_communication_bound_count(basis):
    n = pm.crossover(basis)
    assert n is not None and pm.predict(basis, n).comm_bound and not pm.predict(basis, n - 1).comm_bound
    one_node = dataclasses.replace(basis, gpus_per_node=4096)
    assert pm.crossover(one_node) > n  # NVLink everywhere: communication catches up later
    assert pm.crossover(dataclasses.replace(basis, kv_bytes=1)) is None


def test_rows_and_bad_counts(basis):
    assert [r.gpus for r in pm.rows(basis)] == list(pm.GPU_COUNTS)
    with pytest.raises(ValueError, match="bad number of GPUs 1; the model starts at 2"):
        pm.predict(basis, 1)


def test_no_basis_without_a_case_or_a_bandwidth():
    assert pm.basis(no_gpu_run()) is None
    run = h200x2_run()
    run.collectives = []
    assert pm.basis(run) is None
