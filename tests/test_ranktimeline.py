"""attnprof.render.ranktimeline: one step of a context-parallel case, one lane group per rank, on one time axis."""

from __future__ import annotations

from pathlib import Path

from attnprof import words
from attnprof.records.parallel import ParallelCase, RankRun
from attnprof.render import pictures, ranktimeline, timeline
from helpers import h200x2_run


def _case() -> ParallelCase:
    return h200x2_run().case("allgather", 32768)


def test_one_group_of_rows_per_rank_in_rank_order():
    layout = ranktimeline._layout(_case(), None, "en")
    assert [r.name for r in layout.rows] == ["rank 0 · CPU", "rank 0 · stream 7", "rank 0 · stream 17",
                                             "rank 1 · CPU", "rank 1 · stream 7", "rank 1 · stream 17"]  # fmt: skip
    assert layout.families == ["flash", "elementwise", "copy", "nccl"]
    assert [b[2] for b in layout.rows[2].bars] == ["NCCL AllGather (ring, LL)"]
    assert all(b[3] == timeline.FAMILY_COLORS["nccl"] for b in layout.rows[5].bars)


def test_the_ranks_share_one_time_axis_starting_at_the_first_annotation():
    case = _case()
    layout = ranktimeline._layout(case, None, "en")
    calls = [layout.rows[0].bars[0], layout.rows[3].bars[0]]
    assert min(c[0] for c in calls) == 0.0
    steps = [t.middle() for t in case.traces()]
    assert abs(calls[1][0] - calls[0][0]) == abs(steps[1].start_us - steps[0].start_us)
    # a kernel sits at its rank's offset plus its time within the step
    k = steps[0].of("comm")[0]
    assert layout.rows[2].bars[0][0] == calls[0][0] + k.start_us
    assert layout.span == max(b[0] + b[1] for r in layout.rows for b in r.bars)


def test_the_summary_names_every_rank_in_both_languages():
    en = ranktimeline.summary(_case(), None, "en")
    assert en.startswith("Profiler step 1 of the all-gather rotation at S = 32768 on 2 ranks, on one time axis.")
    assert "Rank 0: 2 attention kernels, NCCL kernels for 564 µs, 72.3% of it overlapped." in en
    assert "Rank 1:" in en
    assert ranktimeline.summary(_case(), 0, "ja").startswith(
        "all-gather 方式、S = 32768、2 ランクのプロファイラのステップ 0"
    )


def test_the_png_is_deterministic_and_speaks_the_language(tmp_path: Path):
    case = _case()
    first = ranktimeline.render(case, tmp_path / "a.png", lang="en")
    mtime = (tmp_path / "a.png").stat().st_mtime_ns
    assert ranktimeline.render(case, tmp_path / "a.png", lang="en") == first
    assert (tmp_path / "a.png").stat().st_mtime_ns == mtime  # same bytes: not rewritten
    ranktimeline.render(case, tmp_path / "b.png", lang="ja")
    same = (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert same == (pictures.cjk_font() is None)
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_case_without_traces_says_so():
    case = ParallelCase("flash", "alltoall", 65536, "unsupported", ranks=[RankRun(0), RankRun(1)])
    layout = ranktimeline._layout(case, None, "en")
    assert layout.message == words.text("par.timeline.no_step", "en", method="all-to-all", seq=65536)
    assert ranktimeline._figsize(layout) == (timeline.WIDTH_IN, 1.0)
    fig = ranktimeline.figure(case)
    assert fig.get_size_inches()[1] == 1.0
