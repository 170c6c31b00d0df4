"""attnprof.analysis.verdicts: what a step costs (GPU and CPU), its regime, the ranking by that cost, and the advice
about forcing a backend, on figures shaped like the H200's (the decoding step at KV 1024: 14 µs on the GPU, 33 µs to
issue SDPA's own choice, 85 µs to issue the forced cuDNN call)."""

from __future__ import annotations

import pytest

from attnprof.analysis.verdicts import Cost, Option, compare, margin, rank, sdpa_advice
from attnprof.noise import Figure


def f(median: float, lo: float | None = None, hi: float | None = None, n: int = 12) -> Figure:
    return Figure(median, median if lo is None else lo, median if hi is None else hi, n)


def test_a_step_costs_the_longer_of_the_gpu_and_the_issue_time_band_by_band():
    c = Cost(f(14.0, 13.9, 14.1), f(85.0, 80.0, 90.0))
    step = c.step
    # the GPU's band at least ±3 %, the CPU's at least ±10 %: the issue time decides, with its widened band
    assert (step.median, step.lo, step.hi) == pytest.approx((85.0, 76.5, 93.5))
    assert c.regime == "cpu"
    long = Cost(f(950.0, 949.0, 951.0), f(130.0, 120.0, 135.0))
    assert long.step.median == 950.0 and long.regime == "gpu"
    near = Cost(f(60.0, 59.0, 61.0), f(55.0, 50.0, 60.0))  # 55 µs ±10 % reaches the GPU's band
    assert near.regime == "balanced" and near.step.median == 60.0 and near.step.hi == pytest.approx(61.8)


def test_without_a_gpu_or_an_issue_time_there_is_no_regime():
    assert Cost(f(300.0), f(300.0), on_gpu=False).regime is None
    assert Cost(f(300.0), None).regime is None and Cost(f(300.0), None).step.median == 300.0


def test_ranking_by_step_puts_sdpas_own_choice_first_where_forcing_only_adds_cpu_time():
    auto = Option("sdpa_auto", Cost(f(14.0), f(32.9, 31.0, 35.0)), "cudnn")
    cudnn = Option("sdpa_cudnn", Cost(f(14.0), f(85.0, 82.0, 88.0)))
    flash = Option("sdpa_flash", Cost(f(18.4), f(95.0, 90.0, 99.0)))
    v = rank([cudnn, flash, auto])
    assert [o.variant for o in v.ranked] == ["sdpa_auto", "sdpa_cudnn", "sdpa_flash"]
    assert v.regime == "cpu" and not v.too_close
    assert v.margin.median == pytest.approx(85.0 / 32.9 - 1) and v.margin.lo > 0


def test_cpu_bound_steps_are_called_by_the_cpu_rule():
    a = Cost(f(10.0), f(100.0, 95.0, 105.0))
    b = Cost(f(10.0), f(120.0, 115.0, 125.0))
    # 20 % apart: beyond the GPU's minimum effect (5 %), under the CPU's (25 %)
    assert compare(a, b) == "tie"
    assert compare(Cost(f(100.0), f(10.0)), Cost(f(120.0), f(10.0))) == "lower"  # GPU-bound: the GPU rule
    assert margin(b, a).median == pytest.approx(0.2)


def test_an_issue_band_too_wide_decides_nothing_only_where_it_reaches_the_gpu_time():
    hidden = Option("sdpa_flash", Cost(f(136.0, 135.9, 136.3), f(75.7, 70.0, 94.7)))
    assert not hidden.too_wide  # wide, but wholly below the GPU's 136 µs: it cannot decide the step
    exposed = Option("sdpa_flash", Cost(f(20.0), f(75.7, 40.0, 120.0)))
    assert exposed.too_wide
    assert [o.variant for o in rank([hidden, exposed]).unreliable] == ["sdpa_flash"]


def test_the_advice_keeps_sdpas_choice_and_gives_the_whole_cost_of_forcing_it():
    auto = Option("sdpa_auto", Cost(f(14.0), f(32.9, 31.0, 35.0)), "cudnn")
    cudnn = Option("sdpa_cudnn", Cost(f(14.0), f(85.0, 82.0, 88.0)))
    flash = Option("sdpa_flash", Cost(f(18.4), f(95.0, 90.0, 99.0)))
    a = sdpa_advice([auto, cudnn, flash], {"sdpa_cudnn": f(52.1, 48.0, 55.0), "sdpa_flash": f(62.0)})
    assert a.advice == "keep" and a.picked == "sdpa_cudnn" and a.regime == "cpu"
    assert a.forcing_cpu.median == 52.1
    # CPU-bound: forcing the same backend costs its whole CPU difference, as a share of the step
    assert a.forcing_share.median == pytest.approx(52.1 / 32.9)
    gpu_bound = sdpa_advice(
        [Option("sdpa_auto", Cost(f(950.0), f(130.0)), "cudnn"), Option("sdpa_cudnn", Cost(f(947.0), f(195.0)))],
        {"sdpa_cudnn": f(60.0, 50.0, 70.0)},
    )
    assert gpu_bound.advice == "keep" and gpu_bound.forcing_share is None  # hidden behind the GPU's time


def test_forcing_another_backend_pays_only_where_its_whole_step_is_lower():
    # SDPA picks flash; cuDNN's kernel is 20 % faster on the GPU
    auto = Option("sdpa_auto", Cost(f(1000.0), f(60.0)), "flash")
    cudnn = Option("sdpa_cudnn", Cost(f(800.0), f(90.0)))
    flash = Option("sdpa_flash", Cost(f(1000.0), f(70.0)))
    a = sdpa_advice([auto, cudnn, flash])
    assert a.advice == "force" and a.best is cudnn and a.saving.median == pytest.approx(0.2) and a.saving.lo > 0
    # the same kernels where the step is CPU-bound: the GPU's saving is hidden, the extra issue time is not, and the
    # forced backend that costs least per step is the one SDPA picks
    auto = Option("sdpa_auto", Cost(f(20.0), f(60.0)), "flash")
    cudnn = Option("sdpa_cudnn", Cost(f(16.0), f(90.0)))
    flash = Option("sdpa_flash", Cost(f(20.0), f(70.0)))
    a = sdpa_advice([auto, cudnn, flash])
    assert a.advice == "keep" and a.best is None
    # cuDNN issuing a little faster than SDPA's own choice: 8 % less per step, under the CPU's minimum effect
    cudnn = Option("sdpa_cudnn", Cost(f(16.0), f(55.0)))
    a = sdpa_advice([auto, cudnn, flash])
    assert a.advice == "no_gain" and a.best is cudnn
    assert a.saving.median == pytest.approx(1 - 55 / 60) and a.saving.lo < 0 < a.saving.hi


def test_no_advice_without_sdpas_own_choice_or_with_its_band_too_wide():
    cudnn = Option("sdpa_cudnn", Cost(f(14.0), f(85.0)))
    assert sdpa_advice([cudnn]).advice == "unknown"
    wide = Option("sdpa_auto", Cost(f(40.0, 0.4, 52.0), f(30.0)), "flash")
    assert sdpa_advice([wide, cudnn]).advice == "unknown"
