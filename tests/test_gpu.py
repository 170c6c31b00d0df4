"""GPU behaviour, run on the GPU builder: ``nox -s tests_gpu`` (pytest -m gpu). Deselected on CPU machines.

These do not skip when CUDA is missing: selected on a machine without a GPU they fail, because a GPU run that
silently tests nothing would look green.
"""

import time

import pytest
import torch

from attnprof import inputs, noise, variants
from attnprof.analysis import claims, summary
from attnprof.measure import cpucosts, fixedcosts, profiling, sweeprun
from attnprof.records import results
from attnprof.render import report

pytestmark = pytest.mark.gpu

REF = inputs.make_setup(inputs.REFERENCE_SHAPE, "bf16", "cuda")


@pytest.fixture(scope="module")
def ref_results(tmp_path_factory):
    assert torch.cuda.is_available(), "the gpu selection needs a CUDA device"
    out = tmp_path_factory.mktemp("gpu")
    walls = {}
    res = {}
    for name in variants.VARIANTS:
        t0 = time.perf_counter()
        res[name] = profiling.profile(name, REF, save_to=out)
        walls[name] = time.perf_counter() - t0
    print("\nprofile wall time per variant (s):", {k: round(v, 2) for k, v in walls.items()})
    return res, out


def kernels(res):
    return summary.kernel_rows(res.steps, res.device_properties)


def test_every_variant_runs_and_is_accurate(ref_results):
    res, _ = ref_results
    for name, r in res.items():
        assert r.status == "ok", f"{name}: {r.reason}"
        assert len(r.steps) == 3
        assert r.timing.rel_error < 2e-2, name
        assert r.timing.peak_extra_bytes > 0
        assert r.environment.cuda_version == torch.version.cuda
        assert r.environment.device_name == torch.cuda.get_device_name()


def test_inplace_removes_exactly_the_memcpy(ref_results):
    res, _ = ref_results
    naive = {k.name: k.per_step for k in kernels(res["naive"])}
    inplace = {k.name: k.per_step for k in kernels(res["naive_inplace"])}
    memcpys = {n for n in naive if n.startswith("Memcpy")}
    assert memcpys and not any(n.startswith("Memcpy") for n in inplace)
    assert set(naive) - memcpys == set(inplace)


def test_fused_backends_run_one_kernel(ref_results):
    res, _ = ref_results
    fams = {"sdpa_flash": "flash", "sdpa_efficient": "mem_efficient", "sdpa_cudnn": "cudnn", "flex": "triton"}
    for name, family in fams.items():
        ks = [k for k in kernels(res[name]) if k.kind == "kernel"]
        assert len(ks) == 1 and ks[0].per_step == 1, (name, [k.name for k in ks])
        assert ks[0].info.family == family


def test_launch_apis(ref_results):
    res, _ = ref_results
    flash = next(k for k in kernels(res["sdpa_flash"]) if k.kind == "kernel")
    cudnn = next(k for k in kernels(res["sdpa_cudnn"]) if k.kind == "kernel")
    assert flash.launch_api == "cudaLaunchKernel"
    assert cudnn.launch_api.startswith("cuLaunchKernel")


def test_flash_occupancy_matches_the_register_arithmetic(ref_results):
    res, _ = ref_results
    flash = next(k for k in kernels(res["sdpa_flash"]) if k.kind == "kernel")
    theo = flash.theoretical
    assert theo is not None and theo.limiter == "registers"
    assert abs(flash.reported_occupancy - theo.percent) <= 1.0


def test_math_backend_transposes_and_many_kernels(ref_results):
    res, _ = ref_results
    math_kernels = sum(k.per_step for k in kernels(res["sdpa_math"]))
    assert math_kernels > 10
    assert summary.op_counts(res["sdpa_flash"].steps).get("aten::transpose", 0) > 0


def test_unsupported_inputs_give_pytorchs_reason(tmp_path):
    r = profiling.profile("sdpa_flash", inputs.make_setup((1, 2, 128, 64), "fp32", "cuda"), save_to=tmp_path)
    assert r.status == "unsupported"
    assert "Half, BFloat16" in r.reason
    r = profiling.profile("sdpa_cudnn", inputs.make_setup((1, 2, 128, 512), "bf16", "cuda"))
    assert r.status == "unsupported"
    assert "256" in r.reason


def test_out_of_memory_is_a_status():
    # scores alone would need 64*64*16384*16384*2 bytes = 2 TiB
    r = profiling.profile("naive", inputs.make_setup((64, 64, 16384, 64), "bf16", "cuda"), measure=False)
    assert r.status == "oom", r.reason
    assert torch.cuda.memory_allocated() < 2**30


def test_result_files_load_back(ref_results):
    res, out = ref_results
    for _name, r in res.items():
        assert results.load(out / (r.stem + ".json")) == r


def test_gpu_time_is_the_kernels_not_the_cpu_issue_time(ref_results):
    # SDPA's own choice runs the same kernel as one forced backend; forcing adds CPU work (the sdpa_kernel
    # context), which must not show up in the GPU time now that the call is queued behind a GPU busy-wait.
    res, _ = ref_results

    def main(r):
        return max((k for k in kernels(r) if k.kind == "kernel"), key=lambda k: k.total_us).name

    auto = res["sdpa_auto"]
    assert auto.timing.timer == "cuda_event_prefilled"
    twin = next(n for n in ("sdpa_cudnn", "sdpa_flash", "sdpa_efficient") if main(res[n]) == main(auto))
    ratio = res[twin].timing.gpu_ms_median / auto.timing.gpu_ms_median
    assert 0.9 < ratio < 1.1, (twin, ratio)


def test_side_by_side_cpu_costs_on_the_gpu(tmp_path):
    costs = cpucosts.measure_cpu_costs(variants.names(cpu_cost=True), REF, rounds=4, calls=5, save_to=tmp_path)
    print("\n" + report.cpu_cost_table(costs))
    for r in costs.rows:
        assert r.status == "ok", (r.variant, r.reason)
        # the profiler records every op: the profiled call takes longer than the same call without it
        assert r.profiled_us > r.dispatch_us > 0, r
        assert r.context is None  # the forcing context is measured once, by fixedcosts
    assert results.load_cpu_costs(tmp_path / "cpu_costs__cuda.json") == costs


def test_the_fixed_costs_on_the_gpu(tmp_path):
    """The forcing context and the profiler's cost per op, measured once, directly: tight bands on an idle host."""
    fixed = fixedcosts.measure_fixed_costs("cuda", save_to=tmp_path, reuse=False)
    print("\n" + report.fixed_costs_lines(fixed))
    assert fixed.reason is None and fixed.forcing_calls == fixed.rounds * fixed.calls
    assert 0 < fixed.forcing.lo <= fixed.forcing.median <= fixed.forcing.hi
    assert noise.half_width(fixed.forcing) < noise.CPU_FLOOR  # tighter than the floor every page widens it to
    assert fixed.events_per_call >= 2  # aten::add and its launch call
    assert fixed.profiled_op_us.median > fixed.op_us.median > 0


# --- repeatability: the gate of issue 10 ----------------------------------------------------------------------------

#: The variants the claims that compare measured figures need (C4, C15, C16, C17 and their optional ones).
CLAIM_VARIANTS = ("naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto")


def _band(f) -> str:
    return "-" if f is None else f"{f.median:.4g} [{f.lo:.4g}, {f.hi:.4g}]"


def _verdicts(analyses, costs):
    return {v.claim: v for v in claims.check_all(analyses, "en", costs)}


def test_claim_verdicts_repeat_within_one_process(ref_results, tmp_path):
    """Two independent measurements of the claim-relevant results (each variant profiled and timed, and the CPU
    costs measured side by side), one after the other in one process: every verdict must be the same. A verdict
    that flips between two runs of one build is a bug in its rule (its tolerance is narrower than the noise)."""
    res, _ = ref_results
    first = {v: summary.analyse(res[v]) for v in CLAIM_VARIANTS}
    second = {v: summary.analyse(profiling.profile(v, REF, save_to=tmp_path)) for v in CLAIM_VARIANTS}
    costs = [cpucosts.measure_cpu_costs(setup=REF) for _ in range(2)]
    va, vb = _verdicts(first, costs[0]), _verdicts(second, costs[1])
    for claim_id in claims.CLAIMS:
        a, b = va[claim_id], vb[claim_id]
        print(f"\n{claim_id}: {a.verdict} / {b.verdict}")
        fa, fb = dict(a.figures), dict(b.figures)
        for label in dict.fromkeys([*fa, *fb]):
            print(f"  {label}: {_band(fa.get(label))} / {_band(fb.get(label))}")
    flipped = {c: (va[c].verdict, vb[c].verdict) for c in claims.CLAIMS if va[c].verdict != vb[c].verdict}
    assert flipped == {}, {c: (va[c].measured, vb[c].measured) for c in flipped}


def test_the_sweep_and_the_pages_agree_at_the_reference_shape(ref_results):
    """At 8x16x1024x64 every variant of the sweep is timed by the same function with the same plan as its page
    (measure.time_shape, measure.DEFAULT_PLAN): the two medians agree within 3%."""
    res, _ = ref_results
    b, h, s, d = inputs.REFERENCE_SHAPE
    cfg = sweeprun.make_config(sweeprun.GPU_VARIANTS, [s], [d], batch=b, heads=h, dtype="bf16", device="cuda")
    # as in the docs build: the pages' times are the sweep's references, and a point slower than its page is measured
    # again (the H200's naive_inplace came out 6% slow in the sweep of every build before this)
    refs = {(v, d, s): r.timing.gpu for v, r in res.items() if r.ok and r.timing is not None}
    sw = sweeprun.run_sweep(cfg, references=refs)
    off = {}
    for p in sw.points:
        assert p.status == "ok", f"{p.variant}: {p.reason}"
        page = res[p.variant].timing
        ratio = p.gpu_ms / page.gpu_ms_median
        print(
            f"\n{p.variant}: page {page.gpu_ms_median:.4f} ms [{page.gpu_ms_lo:.4f}, {page.gpu_ms_hi:.4f}] "
            f"({page.repetitions} calls, {page.attempts} attempts), sweep {p.gpu_ms:.4f} ms "
            f"[{p.gpu_ms_lo:.4f}, {p.gpu_ms_hi:.4f}] ({p.repetitions} calls, {p.attempts} attempts): {ratio - 1:+.1%}"
            + (f" re-measured ({p.remeasured}; first {p.first_gpu_ms:.4f} ms)" if p.remeasured else "")
        )
        if abs(ratio - 1) > 0.03:
            off[p.variant] = f"{ratio - 1:+.1%}"
    assert off == {}
