"""attnprof.measure.trainscale: a tiny real grid on the CPU (both passes timed, PyTorch's reasons for the backends
the CPU lacks), the rules that leave points unrun (out of memory, too slow, budget), and the one-line errors."""

from __future__ import annotations

import pytest

from attnprof import workloads
from attnprof.measure import trainscale
from attnprof.noise import Figure
from attnprof.records.trainscale import TrainPoint

# no step is too slow here: a loaded CPU can take a tenth of a second for any of them
TINY = dict(seqs=[32, 64], head_dims=[16], reps=3, budget_s=60.0, slow_ms=float("inf"))


@pytest.fixture(scope="module")
def grid():
    seen = []
    g = trainscale.measure_grid("cpu", variants_=["sdpa_math", "sdpa_flash", "sdpa_cudnn"], **TINY,
                                progress=lambda done, total, p: seen.append((done, total)))  # fmt: skip
    assert seen == [(i, 12) for i in range(1, 13)]
    return g


def test_every_point_in_order_with_both_passes_timed(grid):
    assert [(p.variant, p.causal, p.seq) for p in grid.points] == [
        (v, m, s) for m in (True, False) for v in ("sdpa_math", "sdpa_flash", "sdpa_cudnn") for s in (32, 64)
    ]
    for p in grid.points:
        if p.variant == "sdpa_cudnn":
            continue
        assert p.ok, p.reason
        assert p.repetitions >= 3 and p.fwd.lo <= p.fwd.median <= p.fwd.hi and p.bwd.lo <= p.bwd.median <= p.bwd.hi
        assert (p.batch, p.heads) == workloads.train_scale_shape(p.seq, 16, "cpu")[:2]
        rate = p.tflops("bwd")
        assert rate.lo <= rate.median <= rate.hi
        # the CPU's issue time of a step (forward's and backward's added) and SDPA's own pick, asked without a call
        assert 0 < p.issue_us.lo <= p.issue_us.median <= p.issue_us.hi and p.sdpa_pick in ("FLASH_ATTENTION", "MATH")
    assert grid.timer == "perf_counter" and grid.ceilings is None and grid.peak is None and grid.dtype == "float32"


def test_a_backend_the_cpu_lacks_says_why_in_pytorchs_words(grid):
    for p in grid.points:
        if p.variant == "sdpa_cudnn":
            assert p.status == "no_cuda" and "RuntimeError" in p.reason and "runs on: cuda" in p.reason


def _ok(variant: str, seq: int, fwd_ms: float, bwd_ms: float) -> TrainPoint:
    return TrainPoint(variant, 64, True, seq, 1, 1, fwd=Figure(fwd_ms, fwd_ms, fwd_ms, 5),
                      bwd=Figure(bwd_ms, bwd_ms, bwd_ms, 5))  # fmt: skip


def test_longer_points_are_not_run_after_an_oom_or_a_slow_step():
    fresh = TrainPoint("sdpa_math", 64, True, 4096, 1, 1)
    oom = TrainPoint("sdpa_math", 64, True, 1024, 1, 1, status="oom", reason="torch.OutOfMemoryError: ...")
    p = trainscale.not_run(TrainPoint("sdpa_math", 64, True, 4096, 1, 1), [oom])
    assert (p.status, p.reason) == ("oom", "skipped: out of memory at seq 1024")
    slow = _ok("sdpa_math", 2048, 50.0, workloads.TRAIN_SCALE_SLOW_MS)
    p = trainscale.not_run(TrainPoint("sdpa_math", 64, True, 4096, 1, 1), [slow])
    assert p.status == "skipped" and f"took {50 + workloads.TRAIN_SCALE_SLOW_MS:.0f} ms at seq 2048" in p.reason
    fast = _ok("sdpa_math", 2048, 1.0, 2.0)
    assert trainscale.not_run(fresh, [fast]).status == "ok"


def test_a_spent_budget_skips_the_rest():
    g = trainscale.measure_grid("cpu", variants_=["sdpa_math"], seqs=[16, 32], head_dims=[8], masks=[True], reps=1,
                                budget_s=1e-9)  # fmt: skip
    assert [p.status for p in g.points] == ["skipped", "skipped"]
    assert g.points[0].reason == "skipped: the time budget of 1e-09 s was spent"


def test_defaults_are_the_sdpa_backends():
    assert trainscale.default_variants() == ("sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(device="tpu"), "unknown device 'tpu'; choose one of: cuda, cpu"),
        (dict(variants_=["naive"]), "variant 'naive' has no form without a mask; choose from: sdpa_math"),
        (dict(variants_=["flsh"]), "unknown variant 'flsh'"),
        (dict(seqs=[0]), "bad sequence length 0"),
        (dict(head_dims=["x"]), "bad head_dim 'x'"),
    ],
)
def test_bad_input_gets_one_line(kwargs, words):
    with pytest.raises(ValueError) as err:
        trainscale.measure_grid(**{"device": "cpu", **kwargs})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_ceilings_on_the_cpu_are_none():
    assert trainscale.build_ceilings("cpu") == (None, None)


def test_the_ceilings_come_from_the_builds_sweep_when_it_saved_one(tmp_path):
    from attnprof.records import sweep
    from helpers import h200_sweep

    saved = h200_sweep()
    assert saved.ceilings is not None
    sweep.save(saved, tmp_path)
    assert trainscale.build_ceilings("cuda", tmp_path) == (saved.ceilings, "sweep")
