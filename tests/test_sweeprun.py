"""attnprof.measure.sweeprun: a tiny real sweep on the CPU (every point in table order, SDPA's pick, PyTorch's
reasons), the out-of-memory, budget and interrupt logic, and the configuration with its one-line errors."""

from __future__ import annotations

import json
import time

import pytest
import torch

from attnprof import inputs, variants
from attnprof.measure import cost, sweeprun
from attnprof.noise import Figure
from attnprof.records import results, sweep
from attnprof.records.sweep import Sweep
from helpers import trace_result

# recheck=0: these sweeps test other things than the second measurement, whose count of calls they would change
TINY = dict(batch=1, heads=1, dtype="float32", device="cpu", reps=3, reps_slow=3, warmup=1, warmup_ms=0, budget_ms=0,
            recheck=0)  # fmt: skip


# --- a real sweep on the CPU ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cpu_sweep() -> Sweep:
    cfg = sweeprun.make_config(["naive", "sdpa_flash", "sdpa_auto", "sdpa_efficient"], [32, 64], [16], **TINY)
    seen = []
    result = sweeprun.run_sweep(cfg, progress=lambda done, total, p: seen.append((done, total, p.variant)))
    assert [d for d, _, _ in seen] == list(range(1, 9)) and {t for _, t, _ in seen} == {8}
    return result


def test_cpu_sweep_measures_every_point_in_table_order(cpu_sweep):
    s = cpu_sweep
    assert [(p.variant, p.seq) for p in s.points] == [
        (v, n) for v in ("naive", "sdpa_flash", "sdpa_auto", "sdpa_efficient") for n in (32, 64)
    ]
    for p in s.points[:6]:
        assert p.status == "ok", p.reason
        assert p.repetitions == 3 and 0 < p.gpu_ms_min <= p.gpu_ms <= p.gpu_ms_max
        # three samples: the interval of the median is their whole range
        assert (p.gpu_ms_lo, p.gpu_ms_hi) == (p.gpu_ms_min, p.gpu_ms_max) and p.attempts in (1, 2)
        assert p.tflops == pytest.approx(inputs.causal_flops((1, 1, p.seq, 16)) / (p.gpu_ms * 1e-3) / 1e12)
        assert p.dispatch_us > 0 and p.peak_extra_bytes is None and p.wall_s > 0
    assert s.timer == "perf_counter" and s.complete and s.elapsed_s > 0
    assert s.ceilings is None and "A sweep on the CPU (batch 1, 1 heads, float32, seq 32, 64" in s.note


def test_a_point_the_sweep_contradicts_is_measured_again_and_says_so():
    cfg = sweeprun.make_config(["naive", "sdpa_flash"], [32, 64], [16], **{**TINY, "recheck": 1})
    # a reference far faster than anything the CPU can do: the point is slower than its reference, so measured again
    refs = {("naive", 16, 64): Figure(1e-6, 1e-6, 1e-6, 9)}
    s = sweeprun.run_sweep(cfg, references=refs)
    again = s.point("naive", 16, 64)
    assert again.remeasured == "reference" and again.first_gpu_ms is not None
    assert again.gpu_ms <= again.first_gpu_ms  # the faster of the two measurements is kept
    assert s.recheck == 1 and s.remeasured() == [again]  # one point at most: recheck=1
    # recheck=0 measures nothing again, whatever the sweep contradicts
    s = sweeprun.run_sweep(sweeprun.make_config(["naive"], [32], [16], **TINY),
                           references={("naive", 16, 32): Figure(1e-6, 1e-6, 1e-6, 9)})  # fmt: skip
    assert s.remeasured() == [] and s.recheck == 0


def test_page_references_are_the_pages_times_at_the_sweeps_shapes(tmp_path):
    for v in ("naive_inplace", "sdpa_flash"):
        results.save(trace_result(v)[0], tmp_path)
    refs = sweeprun.page_references(tmp_path, sweeprun.default_config("cuda"))
    assert set(refs) == {("naive_inplace", 64, 1024), ("sdpa_flash", 64, 1024)}
    assert refs[("naive_inplace", 64, 1024)].median == trace_result("naive_inplace")[0].timing.gpu_ms_median
    assert sweeprun.page_references(tmp_path, sweeprun.default_config("cpu")) == {}  # another shape and dtype


def test_cpu_sweep_reads_sdpas_pick_from_the_aten_op(cpu_sweep):
    auto = [p for p in cpu_sweep.points if p.variant == "sdpa_auto"]
    assert {p.sdpa_choice for p in auto} == {"flash"}
    assert {p.sdpa_evidence for p in auto} == {"aten::_scaled_dot_product_flash_attention_for_cpu"}
    assert all(p.sdpa_choice is None for p in cpu_sweep.points if p.variant != "sdpa_auto")


def test_cuda_only_variant_on_the_cpu_keeps_pytorchs_reason(cpu_sweep):
    eff = [p for p in cpu_sweep.points if p.variant == "sdpa_efficient"]
    assert {p.status for p in eff} == {"no_cuda"}
    assert all("No viable backend" in p.reason and "runs on: cuda" in p.reason for p in eff)


def test_no_cpu_bound_region_on_the_cpu(cpu_sweep):
    assert cpu_sweep.cpu_bound() == []


def _fake_variant(monkeypatch, name: str, fails_from: int, exc: Exception) -> None:
    def prepare(seq: int, device: str):
        def fn(q, k, v):
            if seq >= fails_from:
                raise exc
            return q + k + v

        return fn

    fake = variants.Variant(name, name, "a test double", ("cpu",), ("float32",), "none", prepare)
    monkeypatch.setitem(variants.VARIANTS, name, fake)


def test_larger_sequences_are_marked_oom_without_running(monkeypatch):
    _fake_variant(monkeypatch, "hungry", 64, torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 9 GiB"))
    ran = []
    real = sweeprun._run_point
    monkeypatch.setattr(
        sweeprun, "_run_point", lambda cfg, v, s, d, sl, **kw: ran.append(s) or real(cfg, v, s, d, sl, **kw)
    )
    s = sweeprun.run_sweep(sweeprun.make_config(["hungry"], [32, 64, 128, 256], [16], **TINY))
    assert [(p.seq, p.status) for p in s.points] == [(32, "ok"), (64, "oom"), (128, "oom"), (256, "oom")]
    assert "Tried to allocate 9 GiB" in s.points[1].reason
    assert [p.reason for p in s.points[2:]] == ["skipped: out of memory at seq 64"] * 2
    assert ran == [32, 64]


def test_an_unsupported_point_does_not_skip_the_next(monkeypatch):
    _fake_variant(monkeypatch, "picky", 32, RuntimeError("No available kernel. Aborting execution."))
    s = sweeprun.run_sweep(sweeprun.make_config(["picky"], [32, 64], [16], **TINY))
    assert [p.status for p in s.points] == ["unsupported", "unsupported"]
    assert s.points[1].reason.startswith("RuntimeError: No available kernel")


def test_time_budget_skips_what_is_left():
    cfg = sweeprun.make_config(["naive"], [32, 64], [16], budget_s=1e-9, **TINY)
    s = sweeprun.run_sweep(cfg)
    assert [p.status for p in s.points] == ["skipped", "skipped"]
    assert s.points[0].reason == "skipped: the time budget of 1e-09 s was spent"
    assert not s.complete


@pytest.mark.skipif(torch.cuda.is_available(), reason="describes a machine without CUDA")
def test_cuda_sweep_without_cuda_is_all_no_cuda():
    s = sweeprun.run_sweep(sweeprun.make_config(["naive"], [32], [16], device="cuda", batch=1, heads=1))
    assert [p.status for p in s.points] == ["no_cuda"]
    assert "torch.cuda.is_available() is False" in s.points[0].reason
    assert sweeprun.measure_ceilings("cuda") is None


def test_no_ceilings_on_the_cpu():
    assert sweeprun.measure_ceilings("cpu") is None


# --- configuration --------------------------------------------------------------------------------------------------


def test_default_configs():
    gpu = sweeprun.default_config("cuda")
    assert (gpu.batch, gpu.heads, gpu.dtype) == (8, 16, "bfloat16")
    assert gpu.seqs == (512, 1024, 2048, 4096, 8192, 16384) and gpu.head_dims == (64, 128)
    assert gpu.variants == (
        "sdpa_math",
        "sdpa_efficient",
        "sdpa_flash",
        "sdpa_cudnn",
        "sdpa_auto",
        "flex",
        "naive",
        "naive_inplace",
    )
    assert gpu.seqs_for("flex") == (1024, 4096, 16384) and gpu.seqs_for("naive") == gpu.seqs
    cpu = sweeprun.default_config("cpu")
    assert (cpu.batch, cpu.heads, cpu.dtype, cpu.seqs, cpu.head_dims) == (1, 2, "float32", (128, 256, 512), (64,))
    assert not any(variants.get(v).compiled or "cpu" not in variants.get(v).devices for v in cpu.variants)


def test_make_config_keeps_the_compiled_seqs_only_with_the_default_seqs():
    assert sweeprun.make_config(device="cuda").compiled_seqs == (1024, 4096, 16384)
    assert sweeprun.make_config(seqs=["2048", 512], device="cuda").seqs_for("flex") == (512, 2048)
    assert sweeprun.make_config(seqs=[512, 1024], device="cuda", compiled_seqs=[1024]).seqs_for("flex") == (1024,)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variants_": ["flsh"]}, "unknown variant 'flsh'; choose one of: naive"),
        ({"seqs": ["abc"]}, "bad sequence length 'abc'; expected a positive integer such as 1024"),
        ({"seqs": [0]}, "bad sequence length 0"),
        ({"head_dims": [-64]}, "bad head_dim -64"),
        ({"dtype": "bf8"}, "unknown dtype 'bf8'; choose one of: bf16"),
        ({"device": "tpu"}, "unknown device 'tpu'; choose one of: cuda, cpu"),
        ({"batch": "x"}, "bad batch size 'x'"),
        ({"budget_s": 0}, "bad time budget 0"),
        ({"repz": 3}, "unknown option 'repz'; choose from: warmup, warmup_ms, reps, budget_ms"),
    ],
)
def test_make_config_rejects_bad_values_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as info:
        sweeprun.make_config(**{"device": "cpu", **kwargs})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_variants_that_compile_run_last_and_the_points_come_back_in_table_order(monkeypatch):
    def prepare(seq, device):
        return lambda q, k, v: q + k + v

    monkeypatch.setitem(variants.VARIANTS, "compiling", variants.Variant(
        "compiling", "c", "a test double", ("cpu",), ("float32",), "none", prepare, compiled=True))  # fmt: skip
    order = []
    cfg = sweeprun.make_config(["compiling", "naive"], [32, 64], [16], compiled_seqs=[64], **TINY)
    s = sweeprun.run_sweep(cfg, progress=lambda done, total, p: order.append((p.variant, p.seq)))
    assert order == [("naive", 32), ("naive", 64), ("compiling", 64)]  # no point at all at 32 for it
    assert [(p.variant, p.seq) for p in s.points] == [("compiling", 64), ("naive", 32), ("naive", 64)]
    assert s.compiled_seqs == [64]


def test_the_budget_stops_a_point_between_its_calls_and_the_sweep_says_what_was_skipped(monkeypatch):
    def prepare(seq, device):
        def fn(q, k, v):
            time.sleep(0.05)
            return q + k + v

        return fn

    monkeypatch.setitem(
        variants.VARIANTS,
        "slow",
        variants.Variant("slow", "slow", "a test double", ("cpu",), ("float32",), "none", prepare),
    )
    cfg = sweeprun.make_config(["slow"], [32, 64], [16], budget_s=0.12, **{**TINY, "reps": 10, "warmup": 1})
    assert [p.status for p in sweeprun.run_sweep(cfg).points] == ["ok", "skipped"]  # the point under way finishes
    s = sweeprun.run_sweep(cfg, strict_budget=True)
    first, second = s.points
    assert first.status == "skipped" and first.reason.startswith("skipped: the time budget of 0.12 s ran out during")
    assert first.wall_s < 0.5  # stopped between calls, not after all ten
    assert second.status == "skipped" and not s.complete
    assert s.stopped == (
        "the time budget of 0.12 s ran out at slow hd16 seq32; 2 points skipped: slow hd16 seq32, slow hd16 seq64"
    )
    assert sweep.Sweep.from_dict(json.loads(sweep.dumps(s))).stopped == s.stopped


def test_points_estimated_over_the_memory_limit_are_oom_without_running(monkeypatch):
    ran = []
    real = sweeprun._run_point
    monkeypatch.setattr(
        sweeprun, "_run_point", lambda cfg, v, s, d, sl, **kw: ran.append(s) or real(cfg, v, s, d, sl, **kw)
    )
    cfg = sweeprun.make_config(["naive", "sdpa_flash"], [32, 256], [16], **TINY)
    need = cost.variant_bytes("naive", (1, 1, 256, 16), "float32")
    s = sweeprun.run_sweep(cfg, memory_limit=cost.Limit(need // 2, "available RAM (test)"))
    assert [(p.variant, p.seq, p.status) for p in s.points] == [
        ("naive", 32, "ok"), ("naive", 256, "oom"), ("sdpa_flash", 32, "ok"), ("sdpa_flash", 256, "ok"),
    ]  # fmt: skip
    assert (
        s.points[1].reason
        == "not run: needs about 640 KiB (estimated), more than the 320 KiB of available RAM (test)"
    )
    assert ran == [32, 32, 256] and s.complete and s.stopped is None


def test_an_interrupt_stops_the_sweep(monkeypatch):
    _fake_variant(monkeypatch, "interrupted", 64, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        sweeprun.run_sweep(sweeprun.make_config(["interrupted"], [32, 64, 128], [16], **TINY))
