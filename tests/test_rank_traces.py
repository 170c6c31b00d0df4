"""attnprof.analysis.rank_traces on the traces recorded on 2 x H200 (one per rank): who each rank is, which kernel is
attention, communication or the rest, and how much communication overlapped computation."""

from __future__ import annotations

import pytest

from attnprof.analysis import rank_traces
from attnprof.records import trace
from helpers import CP_SEQS, cp_facts, cp_fixture, cp_rank_trace

B, H, D = 2, 16, 64
CASES = [(m, s) for m in ("allgather", "alltoall") for s in CP_SEQS]


def _probe_config(method: str, seq: int, rank: int, backend: str = "FLASH_ATTENTION") -> dict:
    rk = next(r for r in cp_facts()["cp"]["ranks"] if r["rank"] == rank)
    key = ("main", backend, method, seq)
    return next(c for c in rk["configs"] if (c["case"], c["backend"], c["method"], c["S"]) == key)


@pytest.mark.parametrize(("method", "seq"), CASES)
@pytest.mark.parametrize("rank", [0, 1])
def test_who_the_rank_is_and_its_three_steps(method, seq, rank):
    t = cp_rank_trace("flash", method, seq, rank)
    assert (t.rank, t.world_size, t.nccl_version) == (rank, 2, "2.28.9")
    assert t.device_name == "NVIDIA H200"
    assert t.annotation == f"cp_{method}" and [s.index for s in t.steps] == [0, 1, 2]
    assert all(s.cpu_us > 0 for s in t.steps)


@pytest.mark.parametrize(("method", "seq"), CASES)
@pytest.mark.parametrize("rank", [0, 1])
def test_kernels_are_split_into_attention_nccl_and_the_rest(method, seq, rank):
    for step in cp_rank_trace("flash", method, seq, rank).steps:
        attention, comm = step.of("attention"), step.of("comm")
        assert [k.family for k in attention] == ["flash", "flash"]
        assert len(comm) == 1 and comm[0].family == "nccl"
        assert {k.stream for k in attention} == {7} and comm[0].stream == 17  # NCCL on its own stream
        assert step.of("other") and all(k.family in ("copy", "elementwise", "fill") for k in step.of("other"))
        assert len(step.kernels) == len(attention) + len(comm) + len(step.of("other"))


@pytest.mark.parametrize(("method", "seq"), CASES)
def test_what_nccl_moved_is_read_from_the_kernel_arguments(method, seq):
    comm = cp_rank_trace("flash", method, seq, 0).steps[0].of("comm")[0]
    elements = B * H * seq * D
    if method == "allgather":
        # one all-gather of k and v together: every rank ends with both, whole sequence, bf16
        assert (comm.short, comm.collective, comm.bytes) == (
            "NCCL AllGather (ring, LL)",
            "allgather_into_tensor_coalesced",
            2 * elements * 2,
        )
    else:
        # all-to-all: the other rank's halves of k and v
        assert (comm.short, comm.collective, comm.bytes) == ("NCCL SendRecv", "all_to_allv", elements * 2)


@pytest.mark.parametrize(("method", "seq"), CASES)
@pytest.mark.parametrize("rank", [0, 1])
def test_shares_agree_with_what_the_probe_computed_on_its_own(method, seq, rank):
    """The first probe (plain torch: scripts/probe_workloads.py up to commit 5132495) measured the same traces with
    its own code (kernels of any thread of the process); both readings must agree."""
    probe = _probe_config(method, seq, rank)["trace"]
    t = cp_rank_trace("flash", method, seq, rank)
    assert t.median("comm_share") == pytest.approx(probe["comm_share_of_span"], abs=1e-4)
    assert t.median("overlap_fraction") == pytest.approx(probe["comm_overlapped_fraction"], abs=1e-4)
    assert t.median("span_us") == pytest.approx(probe["span_us"], abs=0.01)
    assert t.median("comm_us") == pytest.approx(probe["comm_us"], abs=0.01)
    last = t.steps[-1]
    assert last.attention_us == pytest.approx(probe["last_step"]["attention_us"], abs=0.01)
    assert last.overlap_us == pytest.approx(probe["last_step"]["overlap_us"], abs=0.01)
    assert last.other_us == pytest.approx(probe["last_step"]["compute_us"] - probe["last_step"]["attention_us"],
                                          abs=0.01)  # fmt: skip


def test_each_rank_runs_a_causal_pass_then_a_pass_against_the_other_ranks_keys():
    """Head-tail load balancing on two ranks: rank 0 holds chunks 0 and 3, rank 1 chunks 1 and 2. Each first attends
    its own queries to its own keys under the causal mask; then rank 0 only needs its second chunk's queries (half
    the grid) against rank 1's keys, while all of rank 1's queries see rank 0's first chunk (the whole grid)."""
    for seq in CP_SEQS:
        rows = rank_traces.chunk_rows([cp_rank_trace("flash", "allgather", seq, r) for r in (0, 1)])
        assert [(r, p, k.causal) for r, p, k in rows] == [(0, 1, True), (0, 2, False), (1, 1, True), (1, 2, False)]
        grids = {(r, p): k.grid for r, p, k in rows}
        blocks = seq // 2 // 128  # the local queries over flash's 128-row blocks
        assert grids[(0, 1)] == grids[(1, 1)] == grids[(1, 2)] == [blocks, B, H]
        assert grids[(0, 2)] == [blocks // 2, B, H]


def test_cudnn_chunks_have_no_causal_flag_in_their_name():
    t = cp_rank_trace("auto", "allgather", 32768, 0)
    attention = t.middle().of("attention")
    assert [k.family for k in attention] == ["cudnn", "cudnn"] and {k.causal for k in attention} == {None}


def test_invalid_runtime_events_are_tolerated():
    raw = trace.read_trace(cp_fixture("flash", "allgather", 32768, 0))
    assert any(e.get("name") == "INVALID" and e.get("cat") == "cuda_runtime" for e in raw["traceEvents"])
    assert len(rank_traces.read_rank(raw, "cp_allgather").steps) == 3


def test_steps_keep_their_absolute_start_so_ranks_share_one_time_axis():
    r0, r1 = (cp_rank_trace("flash", "allgather", 32768, r) for r in (0, 1))
    for a, b in zip(r0.steps, r1.steps, strict=True):
        assert abs(a.start_us - b.start_us) < 2000  # released together by a barrier, one host clock
    assert r0.steps[1].start_us - r0.steps[0].start_us > 5000  # a step apart


def test_a_missing_annotation_names_those_present():
    raw = trace.read_trace(cp_fixture("flash", "alltoall", 32768, 1))
    with pytest.raises(ValueError, match=r"no user_annotation named 'cp_allgather'.*cp_alltoall"):
        rank_traces.read_rank(raw, "cp_allgather")


def test_rank_info_without_distributed_info():
    assert rank_traces.rank_info({"traceEvents": []}) == (None, None, None)


def test_kinds_of_families():
    assert [rank_traces.kind_of(f) for f in ("flash", "mem_efficient", "cudnn", "nccl", "copy", "gemm")] == [
        "attention", "attention", "attention", "comm", "other", "other"]  # fmt: skip
