"""attnprof.records.rank_trace: what one rank's trace shows as the run file stores it (a round trip through JSON,
the shares of a step) and the interval arithmetic that measures overlap."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from attnprof.records import rank_trace
from helpers import cp_rank_trace


def test_round_trip_through_json():
    t = cp_rank_trace("flash", "alltoall", 65536, 1)
    assert rank_trace.RankTrace.from_dict(t.to_dict()) == t


def test_a_step_without_kernels_has_no_shares():
    step = rank_trace.RankStep(index=0, start_us=0.0, cpu_us=10.0)
    assert (step.span_us, step.comm_share, step.overlap_fraction, step.idle_us) == (0.0, None, None, 0.0)


def test_interval_arithmetic_by_hand():
    assert rank_trace.merged([(5, 6), (0, 2), (1, 3)]) == [(0, 3), (5, 6)]
    assert rank_trace.union_length([(0, 2), (1, 3), (5, 6)]) == 4
    assert rank_trace.intersection_length([(0, 10)], [(2, 3), (9, 12)]) == 2
    assert rank_trace.intersection_length([(0, 1)], [(1, 2)]) == 0


_intervals = st.lists(st.tuples(st.integers(0, 100), st.integers(0, 20)).map(lambda t: (t[0], t[0] + t[1])),
                      max_size=8)  # fmt: skip


@given(_intervals, _intervals)
def test_inclusion_exclusion(a, b):
    both = rank_trace.intersection_length(a, b)
    assert 0 <= both <= min(rank_trace.union_length(a), rank_trace.union_length(b))
    assert rank_trace.union_length(a + b) == rank_trace.union_length(a) + rank_trace.union_length(b) - both


def test_a_step_splits_its_kernels_into_attention_communication_and_the_rest():
    def kernel(kind, start, dur):
        return rank_trace.RankKernel(kind=kind, name=kind, short=kind, family=kind, stream=7, start_us=start,
                                     duration_us=dur)  # fmt: skip

    step = rank_trace.RankStep(index=0, start_us=100.0, cpu_us=50.0, kernels=[
        kernel("attention", 0, 10), kernel("comm", 5, 10), kernel("other", 20, 5)])  # fmt: skip
    assert (step.attention_us, step.comm_us, step.other_us) == (10, 10, 5)
    assert step.span_us == 25 and step.busy_us() == 20 and step.idle_us == 5
    assert step.overlap_us == 5 and step.overlap_fraction == 0.5  # half of the communication hid under attention
    assert step.comm_share == 10 / 25
