"""attnprof.measure.timing: the one timer of a shape (warm-up, samples, retry of unstable samples), used by the
variant pages and the sweep alike; real calls on the CPU, scripted samples where the outcome must not depend on the
machine; an interrupt inside the profiler leaves it as an interrupt."""

from __future__ import annotations

import dataclasses
import time

import pytest
import torch

from attnprof import inputs
from attnprof.measure import profiling, sweeprun, timing
from attnprof.measure.timing import DEFAULT_PLAN, Plan, Samples


def test_time_shape_times_real_calls_on_the_cpu():
    a = torch.randn(64, 64)
    plan = Plan(warmup=2, warmup_ms=0.0, reps=5, budget_ms=2.0, max_reps=40, retries=0)
    timed = timing.time_shape(lambda: a @ a, "cpu", plan)
    n = len(timed.samples.gpu_ms)
    assert 5 <= n <= 40 and len(timed.samples.issue_us) == n
    assert timed.attempts == 1
    gpu = timed.gpu
    assert gpu.n == n and gpu.lo <= gpu.median <= gpu.hi and timed.p10 <= gpu.median <= timed.p90


def test_warm_up_runs_at_least_its_calls_and_its_time():
    spans: list[float] = []

    def slow():
        t0 = time.perf_counter()
        time.sleep(0.002)
        spans.append((time.perf_counter() - t0) * 1e3)

    t0 = time.perf_counter()
    timing.warm_up(slow, "cpu", 2, min_ms=10.0)
    # at least 2 calls, and more until they have taken 10 ms, but not one more than that (robust to a loaded machine:
    # each call's own span is at most what warm_up counted for it)
    assert len(spans) >= 2 and (time.perf_counter() - t0) * 1e3 >= 10.0
    assert len(spans) == 2 or sum(spans[:-1]) < 10.0
    spans.clear()
    issue_us, wall_ms = timing.warm_up(slow, "cpu", 3)
    assert len(spans) == 3 and wall_ms >= 2.0 and issue_us >= 2000


def _scripted(monkeypatch, attempts: list[list[float]]) -> list[dict]:
    """Make timed_calls return the given samples, attempt after attempt; returns the arguments it was called with."""
    seen: list[dict] = []

    def fake(fn, device, **kwargs):
        seen.append(kwargs)
        ms = attempts[len(seen) - 1]
        return Samples(gpu_ms=list(ms), issue_us=[10.0] * len(ms))

    monkeypatch.setattr(timing, "timed_calls", fake)
    return seen


STEADY = [15.5, 15.6, 15.6, 15.7, 15.5, 15.6, 15.8]
BIMODAL = [13.2, 13.3, 15.6, 15.7, 15.6, 13.2, 15.5]
WORSE = [10.0, 16.0, 10.0, 16.0, 10.0, 16.0, 10.0]


def test_unstable_samples_are_measured_again(monkeypatch):
    seen = _scripted(monkeypatch, [BIMODAL, STEADY])
    timed = timing.time_shape(lambda: None, "cpu", dataclasses.replace(DEFAULT_PLAN, warmup_ms=0.0))
    assert len(seen) == 2 and timed.attempts == 2 and not timed.unstable
    assert timed.samples.gpu_ms == STEADY


def test_samples_unstable_after_the_retry_are_flagged_and_the_steadier_kept(monkeypatch):
    _scripted(monkeypatch, [BIMODAL, WORSE])
    timed = timing.time_shape(lambda: None, "cpu", dataclasses.replace(DEFAULT_PLAN, warmup_ms=0.0))
    assert timed.attempts == 2 and timed.unstable
    assert timed.samples.gpu_ms == BIMODAL  # 15.6 / 13.2 spreads less than 16 / 10


def test_steady_samples_are_measured_once_and_slow_calls_take_fewer_samples(monkeypatch):
    seen = _scripted(monkeypatch, [STEADY])
    plan = dataclasses.replace(DEFAULT_PLAN, warmup=1, warmup_ms=0.0, slow_ms=0.0)  # every call counts as slow
    timed = timing.time_shape(lambda: None, "cpu", plan)
    assert timed.attempts == 1 and not timed.unstable
    assert seen == [
        {
            "min_reps": plan.reps_slow,
            "budget_ms": 0.0,
            "max_reps": plan.max_reps,
            "sleep": None,
            "issue_hint_us": pytest.approx(0.0, abs=1e3),
        }
    ]
    seen = _scripted(monkeypatch, [STEADY])
    timing.time_shape(lambda: None, "cpu", dataclasses.replace(DEFAULT_PLAN, warmup_ms=0.0))
    assert (seen[0]["min_reps"], seen[0]["budget_ms"]) == (DEFAULT_PLAN.reps, DEFAULT_PLAN.budget_ms)


def test_the_pages_and_the_sweep_use_one_timer_with_one_plan(monkeypatch):
    # Both measuring paths call timing.time_shape, and with the same plan: a shape present on a variant's page and
    # in the sweep is measured the same way.
    assert profiling.time_shape is timing.time_shape is sweeprun.time_shape
    assert sweeprun.default_config("cpu").plan is DEFAULT_PLAN is sweeprun.default_config("cuda").plan
    plans = []

    def spy(fn, device, plan=DEFAULT_PLAN, sleep=None):
        plans.append(plan)
        return timing.time_shape(fn, device, dataclasses.replace(plan, warmup_ms=0.0, budget_ms=0.0), sleep)

    monkeypatch.setattr(profiling, "time_shape", spy)
    monkeypatch.setattr(sweeprun, "time_shape", spy)
    res = profiling.profile("naive", inputs.make_setup((1, 2, 64, 32), "float32", "cpu"))
    assert res.ok and res.timing.attempts >= 1
    sw = sweeprun.run_sweep(sweeprun.make_config(["naive"], [64], [32], batch=1, heads=2, dtype="float32",
                                                 device="cpu"))  # fmt: skip
    assert sw.points[0].ok and sw.plan == DEFAULT_PLAN.to_dict()
    # the page, the sweep's point, and (on a busy machine) the sweep's second measurement of it: one plan
    assert len(plans) >= 2 and set(plans) == {DEFAULT_PLAN}


def test_an_interrupt_inside_the_profiler_leaves_it_as_an_interrupt():
    calls = [0]

    def fn():
        calls[0] += 1
        if calls[0] == 3:  # during the profiler's schedule
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        timing.capture_trace(fn, "x_fwd", "cpu")
    # and the profiler is usable again afterwards
    raw, parsed = timing.capture_trace(lambda: None, "x_fwd", "cpu", schedule=None)
    assert raw and "traceEvents" in parsed
