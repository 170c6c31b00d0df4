"""attnprof.measure.reuse: a saved measurement stands for a new one only when the same code measured the same thing on
the same machine; the measuring functions reuse it when asked (the docs build's second language)."""

from __future__ import annotations

import dataclasses
import os
import re

import pytest

from attnprof import inputs, settings, variants
from attnprof.measure import cpucosts, profiling, reuse, sweeprun
from attnprof.records import results, sweep

SMALL = inputs.make_setup((1, 2, 64, 32), "float32", "cpu")


def _profiled(tmp_path, name="naive_inplace"):
    """A result made the way the gallery scripts make it, saved in ``tmp_path / "results"``."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    attention = variants.get(name).build(SMALL.shape[2], SMALL.device)
    q, k, v = inputs.make_inputs(SMALL)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            with record_function(f"{name}_fwd"):
                attention(q, k, v)
            prof.step()
    path = tmp_path / f"{name}.json"
    prof.export_chrome_trace(str(path))
    return attention, path


def _age(path):
    """Make a file older than the measuring code (as if the code changed after it was written)."""
    os.utime(path, ns=(0, 0))


def test_the_second_run_reuses_the_timing_and_reads_its_own_trace(tmp_path):
    attention, trace = _profiled(tmp_path)
    folder = tmp_path / "results"
    first = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder, reuse=True)
    attention, trace2 = _profiled(tmp_path)
    second = profiling.from_trace("naive_inplace", SMALL, trace2, attention=attention, save_to=folder, reuse=True)
    assert second.timing == first.timing  # not measured again
    assert second.steps != first.steps  # but the new trace is the one parsed and saved
    assert results.load(folder / (second.stem + ".json")).steps == second.steps
    fresh = profiling.from_trace("naive_inplace", SMALL, trace2, attention=attention, save_to=folder, reuse=False)
    assert fresh.timing != first.timing


def test_reuse_is_off_unless_the_environment_asks(tmp_path, monkeypatch):
    attention, trace = _profiled(tmp_path)
    folder = tmp_path / "results"
    first = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder)
    monkeypatch.delenv(settings.REUSE_ENV, raising=False)
    assert not settings.reuse_measurements()
    again = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder)
    assert again.timing != first.timing
    monkeypatch.setenv(settings.REUSE_ENV, "1")
    assert settings.reuse_measurements()
    reused = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder)
    assert reused.timing == again.timing


def test_what_may_not_be_reused(tmp_path):
    attention, trace = _profiled(tmp_path)
    folder = tmp_path / "results"
    res = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder)
    path = folder / (res.stem + ".json")
    here = profiling.environment("cpu")
    assert reuse.reusable_result("naive_inplace", SMALL, folder, here) == res
    other_shape = dataclasses.replace(SMALL, shape=(1, 2, 128, 32))
    assert reuse.reusable_result("naive_inplace", other_shape, folder, here) is None
    assert reuse.reusable_result("naive", SMALL, folder, here) is None  # nothing saved for it
    assert reuse.reusable_result("naive_inplace", SMALL, folder, dataclasses.replace(here, torch_version="9")) is None
    assert reuse.reusable_result("naive_inplace", SMALL, folder, dataclasses.replace(here, device_name="GPU")) is None
    _age(path)
    assert reuse.reusable_result("naive_inplace", SMALL, folder, here) is None
    failed = profiling.from_trace("sdpa_cudnn", SMALL, None, save_to=folder)
    assert failed.status == "no_cuda" and reuse.reusable_result("sdpa_cudnn", SMALL, folder, here) is None


def test_cpu_costs_are_reused_when_the_same_comparison_was_saved(tmp_path):
    names = ["sdpa_math", "sdpa_auto"]
    kw = dict(rounds=2, calls=2, profiled_calls=1, save_to=tmp_path)
    first = cpucosts.measure_cpu_costs(names, SMALL, reuse=True, **kw)
    assert cpucosts.measure_cpu_costs(names, SMALL, reuse=True, **kw) == first
    assert cpucosts.measure_cpu_costs(["sdpa_math"], SMALL, reuse=True, **kw) != first  # another comparison
    second = cpucosts.measure_cpu_costs(names, SMALL, reuse=False, **kw)
    assert second.environment.date >= first.environment.date and second.rows != first.rows
    _age(tmp_path / "cpu_costs__cpu.json")
    assert reuse.reusable_costs(names, SMALL, 2, tmp_path, profiling.environment("cpu")) is None


def test_a_sweep_is_reused_with_the_new_ceilings_when_planned_alike(tmp_path):
    cfg = sweeprun.make_config(["naive"], [32], [16], batch=1, heads=1, dtype="float32", device="cpu", reps=2,
                               reps_slow=2, warmup=1)  # fmt: skip
    first = sweeprun.run_sweep(cfg)
    sweep.save(first, tmp_path)
    ceilings = sweep.Ceilings(matmul_tflops=1.0, matmul_n=8, bandwidth_gbs=2.0, copy_bytes=64, repetitions=1)
    again = sweeprun.run_sweep(cfg, ceilings=ceilings, reuse_from=tmp_path)
    assert again.points == first.points and again.ceilings == ceilings
    other = dataclasses.replace(cfg, seqs=(32, 64))
    assert reuse.reusable_sweep(other, tmp_path, first.environment) is None
    assert sweeprun.run_sweep(cfg).points != first.points  # without reuse_from (and no $ATTNPROF_REUSE): measured


def test_a_changed_script_measures_again(tmp_path):
    """The callable's own file counts as measuring code: editing the gallery script that defines it re-measures."""
    script = tmp_path / "05-x.py"
    script.write_text("def attention(q, k, v):\n    return q @ k.transpose(-2, -1) @ v * 0 + v\n")
    ns: dict = {}
    exec(compile(script.read_text(), str(script), "exec"), ns)
    _, trace = _profiled(tmp_path, "naive")
    folder = tmp_path / "results"
    first = profiling.from_trace("naive", SMALL, trace, save_to=folder, reuse=True)
    assert profiling.from_trace("naive", SMALL, trace, attention=ns["attention"], save_to=folder,
                                reuse=True).timing == first.timing  # fmt: skip
    os.utime(script, ns=(2**62, 2**62))  # the script changed after the result was saved
    again = profiling.from_trace("naive", SMALL, trace, attention=ns["attention"], save_to=folder, reuse=True)
    assert again.timing != first.timing


# --- replay: the docs build's other languages measure nothing -------------------------------------------------------


def _files(folder):
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_a_printed_measurement_is_taken_once(tmp_path, monkeypatch):
    monkeypatch.delenv(settings.REUSE_ENV, raising=False)
    assert reuse.once("t_table", "run by hand", tmp_path) == "run by hand"
    assert not (tmp_path / "shown").exists()  # a plain run saves nothing
    monkeypatch.setenv(settings.REUSE_ENV, "1")  # the first language
    assert reuse.once("t_ms", (1.5, 2.25), tmp_path) == [1.5, 2.25]  # what every language gets: JSON's list
    assert reuse.once("t_table", "first\ntable", tmp_path) == "first\ntable"
    saved = _files(tmp_path)
    monkeypatch.setenv(settings.REUSE_ENV, "replay")  # the others
    assert reuse.once("t_table", "second table", tmp_path) == "first\ntable"
    assert reuse.once("t_ms", [9.0], tmp_path) == [1.5, 2.25]
    assert _files(tmp_path) == saved
    with pytest.raises(reuse.NotRecorded, match=r"replaying the printed 'never'.*is missing.*first language"):
        reuse.once("never", 1, tmp_path)
    with pytest.raises(ValueError, match=re.escape("bad name '../x'")):
        reuse.once("../x", 1, tmp_path)
    monkeypatch.setenv(settings.REUSE_ENV, "1")
    with pytest.raises(ValueError, match="JSON cannot hold object"):
        reuse.once("t_obj", object(), tmp_path)


def test_a_printed_measurement_given_as_a_function_is_called_in_the_first_language_only(tmp_path, monkeypatch):
    calls = []

    def measure():
        calls.append(1)
        return 0.25

    monkeypatch.delenv(settings.REUSE_ENV, raising=False)
    assert reuse.once("t_err", measure, tmp_path) == 0.25 and len(calls) == 1  # by hand: measured, nothing saved
    monkeypatch.setenv(settings.REUSE_ENV, "1")
    assert reuse.once("t_err", measure, tmp_path) == 0.25 and len(calls) == 2
    monkeypatch.setenv(settings.REUSE_ENV, "replay")
    assert reuse.once("t_err", measure, tmp_path) == 0.25 and len(calls) == 2  # replaying: never called


def test_a_replayed_trace_result_is_the_first_one_whole(tmp_path, monkeypatch):
    attention, trace = _profiled(tmp_path)
    folder = tmp_path / "results"
    first = profiling.from_trace("naive_inplace", SMALL, trace, attention=attention, save_to=folder, reuse=True)
    exported = trace.read_bytes()
    saved = _files(folder)
    monkeypatch.setenv(settings.REUSE_ENV, "replay")
    _, trace2 = _profiled(tmp_path)  # the second language's own run, exported over the first one's file
    assert trace2 == trace and trace.read_bytes() != exported
    second = profiling.from_trace("naive_inplace", SMALL, trace2, attention=attention, save_to=folder)
    assert second == first  # its steps, timing, environment: the first language's
    assert trace.read_bytes() == exported  # the exported trace is the first one's again
    assert _files(folder) == saved  # nothing written
    with pytest.raises(reuse.NotRecorded, match=r"replaying naive \(prefill\).*is missing"):
        profiling.from_trace("naive", SMALL, trace2, save_to=folder)


def test_replayed_profiles_costs_sweeps_and_parallel_runs_measure_nothing(tmp_path, monkeypatch):
    from attnprof.measure import parallelrun
    from attnprof.records import parallel

    monkeypatch.setenv(settings.REUSE_ENV, "1")
    profiled = profiling.profile("sdpa_math", SMALL, save_to=tmp_path)
    costs = cpucosts.measure_cpu_costs(["sdpa_math"], SMALL, rounds=2, calls=2, profiled_calls=1, save_to=tmp_path)
    cfg = sweeprun.make_config(["naive"], [32], [16], batch=1, heads=1, dtype="float32", device="cpu", reps=2,
                               reps_slow=2, warmup=1)  # fmt: skip
    ceilings = sweep.Ceilings(matmul_tflops=1.0, matmul_n=8, bandwidth_gbs=2.0, copy_bytes=64, repetitions=1)
    measured = sweeprun.run_sweep(cfg, ceilings=ceilings)
    sweep.save(measured, tmp_path)
    run = parallelrun.run(parallelrun.default_config(), save_to=tmp_path)  # no GPU here: the run says why
    saved = _files(tmp_path)
    monkeypatch.setenv(settings.REUSE_ENV, "replay")
    monkeypatch.setattr(settings, "results_dir", lambda default=None: tmp_path)
    assert profiling.profile("sdpa_math", SMALL, save_to=tmp_path) == profiled
    assert cpucosts.measure_cpu_costs(["sdpa_math"], SMALL, rounds=9, save_to=tmp_path) == costs
    assert sweeprun.measure_ceilings("cpu") == ceilings  # the first language's (measured, a CPU has none)
    assert sweeprun.run_sweep(cfg, ceilings=None) == measured
    sweep.save(sweeprun.run_sweep(cfg), tmp_path)  # as 10-scaling.py saves it: the same bytes, not written again
    assert parallelrun.run(parallelrun.default_config(), save_to=tmp_path) == parallel.load(
        tmp_path / parallel.filename(run.device)
    )
    assert _files(tmp_path) == saved
    with pytest.raises(reuse.NotRecorded, match=re.escape("replaying sdpa_math (train)")):
        profiling.profile("sdpa_math", SMALL, workload="train", save_to=tmp_path)
