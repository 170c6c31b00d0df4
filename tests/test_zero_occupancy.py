"""attnprof.analysis.zero_occupancy: every kernel of the H200 fixture build reported against theoretical occupancy,
and the explanations of a reported 0% tested against all of them (and against made-up kernels)."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from attnprof.analysis import summary, zero_occupancy
from helpers import TRACE_VARIANTS, analysed, trace_result


@functools.cache
def _build() -> tuple[zero_occupancy.KernelOccupancy, ...]:

    return tuple(zero_occupancy.kernel_occupancies(analysed(v) for v in TRACE_VARIANTS))


def _find(variant: str, family: str, short: str = "") -> zero_occupancy.KernelOccupancy:
    (k,) = [k for k in _build() if k.variant == variant and k.family == family and short in k.short]
    return k


def _names(kernels) -> set[tuple[str, str]]:
    return {(k.variant, k.short) for k in kernels}


def test_every_kernel_of_the_build_is_listed_with_both_figures():
    ks = _build()
    # distinct kernels and launch configurations per variant: 3 compiled_naive, 1 flex, 5 naive, 5 naive_inplace,
    # 1 sdpa_auto, 1 sdpa_cudnn, 1 sdpa_efficient, 1 sdpa_flash, 15 sdpa_math (memcpy and memset left out): 13
    # kernel names, two of them (`where`, the bf16 copy) each launched with two grids, one row per grid
    assert len(ks) == 33
    math = [k for k in ks if k.variant == "sdpa_math"]
    assert len({k.name for k in math}) == 13 and len(math) == 15
    assert all(k.reported is not None and k.theoretical is not None for k in ks)
    assert all(k.shared_memory_default == 49152 for k in ks)  # the H200's sharedMemPerBlock


def test_the_zeros_of_the_h200_build_and_what_they_have_in_common():
    zeros = {(k.variant, k.family, k.launch_api, k.shared_memory, k.grid) for k in _build() if k.zero}
    nvjet = {("cuLaunchKernelEx", 213188, (2, 66, 1)), ("cuLaunchKernelEx", 163972, (2, 66, 1))}
    assert zeros == {
        *((v, "gemm", *n) for v in ("naive", "naive_inplace", "compiled_naive") for n in nvjet),
        ("sdpa_cudnn", "cudnn", "cuLaunchKernelEx", 134144, (132, 1, 1)),
        ("sdpa_auto", "cudnn", "cuLaunchKernelEx", 134144, (132, 1, 1)),
        ("flex", "triton", "cuLaunchKernel", 114688, (8, 8, 16)),
        ("sdpa_math", "fill", "cudaLaunchKernel", 0, (1, 1, 1)),
    }


def test_h1_driver_api_is_refuted_by_the_compiled_softmax():
    h1 = next(t for t in zero_occupancy.check_hypotheses(_build()) if t.hypothesis.key == "H1")
    assert h1.verdict == "refuted"
    (counter,) = h1.counterexamples
    assert (counter.variant, counter.family, counter.launch_api, counter.reported) == (
        "compiled_naive",
        "triton",
        "cuLaunchKernel",
        50.0,
    )
    assert counter.name.startswith("triton_per_fused")
    assert _names(h1.missed) == {("sdpa_math", "fill (fp32)")}
    assert len(h1.consistent) == 9


def test_h2_shared_memory_above_48_kib_has_no_counterexample_but_misses_the_tiny_grid():
    h2 = next(t for t in zero_occupancy.check_hypotheses(_build()) if t.hypothesis.key == "H2")
    assert (h2.verdict, len(h2.predicted), h2.counterexamples) == ("incomplete", 9, ())
    assert _names(h2.missed) == {("sdpa_math", "fill (fp32)")}
    # the boundary is "more than": flash uses exactly 48 KiB and reports 13%, the math gemm 33 KiB and 13%
    flash = _find("sdpa_flash", "flash")
    assert (flash.shared_memory, flash.above_default_shared_memory, flash.reported) == (49152, False, 13.0)
    xmma = _find("sdpa_math", "gemm", "128x128")
    assert (xmma.launch_api, xmma.shared_memory, xmma.reported) == ("cudaLaunchKernelExC", 33792, 13.0)


def test_h3_small_grid_explains_only_the_single_block_fill():
    h3 = next(t for t in zero_occupancy.check_hypotheses(_build()) if t.hypothesis.key == "H3")
    assert _names(h3.predicted) == {("sdpa_math", "fill (fp32)")}
    assert h3.counterexamples == ()
    assert len(h3.missed) == 9  # every large-shared-memory kernel
    fill = _find("sdpa_math", "fill", "fp32")
    assert fill.grid == (1, 1, 1) and fill.blocks_per_sm == pytest.approx(1 / 132, abs=1e-6)
    # the cuDNN kernel and the nvjet gemms have exactly one block per SM: not a small grid
    assert _find("sdpa_cudnn", "cudnn").blocks_per_sm == 1.0


def test_only_h2_plus_h3_explains_every_zero():
    tests = zero_occupancy.check_hypotheses(_build())
    assert [t.hypothesis.key for t in tests] == ["H1", "H2", "H3", "H1 + H2", "H1 + H3", "H2 + H3", "H1 + H2 + H3"]
    verdicts = {t.hypothesis.key: t.verdict for t in tests}
    assert verdicts == {
        "H1": "refuted",
        "H2": "incomplete",
        "H3": "incomplete",
        "H1 + H2": "refuted",
        "H1 + H3": "refuted",
        "H2 + H3": "explains",
        "H1 + H2 + H3": "refuted",
    }
    (best,) = zero_occupancy.supported(tests)
    assert best.hypothesis.parts == ("H2", "H3")
    assert (len(best.consistent), best.tested) == (10, 33)


def test_without_the_compiled_kernel_the_data_cannot_decide():
    # compiled_naive's triton_per_fused kernel is the only counterexample to H1: without it, H1 + H3 explains the
    # zeros as well as H2 + H3 does, and both are named
    ks = [k for k in _build() if k.variant != "compiled_naive"]
    tests = zero_occupancy.check_hypotheses(ks)
    assert [t.hypothesis.key for t in zero_occupancy.supported(tests)] == ["H1 + H3", "H2 + H3"]


def test_the_grid_caps_what_the_resources_allow():
    # 512 blocks of 4 warps over 132 SMs: 3.9 blocks, 15.5 of 64 warps per SM -> 24% reported, 100% theoretical
    fill = _find("sdpa_math", "fill", "bool")
    assert (fill.reported, fill.theoretical.percent, fill.limiter) == (24.0, 100.0, "grid")
    assert fill.grid_percent == pytest.approx(24.2, abs=0.05)
    assert _find("sdpa_math", "elementwise", "tril").limiter == "grid"
    assert _find("sdpa_math", "elementwise", "tril").limiters == ("grid",)
    assert _find("sdpa_flash", "flash").limiters == ("registers",)
    # a tie between resources names every one of them
    assert _find("sdpa_cudnn", "cudnn").limiters == ("registers", "shared memory")


def _k(**over) -> zero_occupancy.KernelOccupancy:
    base = dict(variant="v", name="k", short="k", family="other", launches=1, launch_api="cudaLaunchKernel",
                grid=(264, 1, 1), block=(128, 1, 1), registers_per_thread=32, shared_memory=0,
                shared_memory_default=49152, blocks_per_sm=2.0, reported=25.0, theoretical=None)  # fmt: skip
    base.update(over)
    return zero_occupancy.KernelOccupancy(**base)


def test_driver_api_and_mixed_launches():
    assert _k(launch_api="cuLaunchKernel").driver_api and _k(launch_api="cuLaunchKernelEx").driver_api
    assert not _k(launch_api="cudaLaunchKernelExC").driver_api
    assert not _k(launch_api="mixed: cuLaunchKernel, cudaLaunchKernel").driver_api
    assert _k(launch_api="mixed: cuLaunchKernelEx, cuLaunchKernel").driver_api
    assert not _k(launch_api=None).driver_api
    assert _k(theoretical=None).limiter is None and _k().grid_percent is None and _k().limiters == ()


def test_hypotheses_on_synthetic_kernels():
    zero_smem = _k(name="a", reported=0.0, shared_memory=65536)
    nonzero = _k(name="b")
    unreported = _k(name="c", reported=None, launch_api="cuLaunchKernel")  # not tested at all
    tests = {t.hypothesis.key: t for t in zero_occupancy.check_hypotheses([zero_smem, nonzero, unreported])}
    assert tests["H2"].verdict == "explains" and tests["H2"].tested == 2
    assert tests["H1"].verdict == "incomplete" and tests["H1"].predicted == ()
    assert [t.hypothesis.key for t in zero_occupancy.supported(tests.values())] == ["H2"]
    # no zero at all: nothing to explain
    quiet = zero_occupancy.check_hypotheses([nonzero])
    assert {t.verdict for t in quiet} == {"untested"}
    assert zero_occupancy.supported(quiet) == []
    # a zero that nothing predicts
    odd = zero_occupancy.check_hypotheses([_k(reported=0.0)])
    assert {t.verdict for t in odd} == {"incomplete"} and zero_occupancy.supported(odd) == []


def test_results_that_did_not_run_contribute_nothing():
    flash, _ = trace_result("sdpa_flash")
    failed = summary.analyse(dataclasses.replace(flash, status="unsupported", reason="no", steps=[]))
    assert zero_occupancy.kernel_occupancies([failed]) == []
    assert len(zero_occupancy.kernel_occupancies([summary.analyse(flash), failed])) == 1


def test_without_device_properties_the_default_per_block_limit_is_assumed():
    flash, _ = trace_result("sdpa_flash")
    bare = summary.analyse(dataclasses.replace(flash, device_properties=None))
    ks = zero_occupancy.kernel_occupancies([bare])
    assert ks and {k.shared_memory_default for k in ks} == {zero_occupancy.DEFAULT_SHARED_MEMORY_PER_BLOCK}
