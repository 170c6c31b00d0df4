"""C50–C53, the claims about masks beyond causal, on runs made by hand: each rule holds, differs, ties or cannot be
measured for the reason the run gives."""

from __future__ import annotations

from pathlib import Path

from attnprof.analysis import claims
from attnprof.noise import Figure
from attnprof.records import masks as records
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun
from attnprof.records.results import Environment

CPU_RUN = Path(__file__).parent / "data" / "masks" / "cpu" / records.filename("cpu")


FLASH_NO = "RuntimeError: No available kernel. | Flash does not support attn_mask"


def _case(mask, method, ms, workload="prefill", window=0, seq=8192, reason=None):
    time = None if ms is None else Figure(ms, ms * 0.99, ms * 1.01, 10)
    return MaskCase(mask, method, workload, [2, 16, seq, 64], "bfloat16", window=window, time_ms=time,
                    status="ok" if ms is not None else "unsupported", reason=reason)  # fmt: skip


def _sw(method, ms, window=256):
    return _case("sliding_window", method, ms, window=window)


def _run(cases, builds=()):
    return MaskRun("cuda", Environment("NVIDIA H200", "2.11", "3.12", "2026-12-03"), list(cases), list(builds))


def _verdicts(run):
    return {v.claim: v for v in claims.check_masks(run, "en")}


def test_flex_under_a_short_window_holds_differs_or_ties_by_the_noise_rule():
    fast = _run([_sw("flex", 0.2, 256), _sw("sdpa_efficient", 1.0, 256),
                 _sw("flex", 2.0, 1024), _sw("sdpa_efficient", 1.0, 1024)])  # fmt: skip
    v = _verdicts(fast)["C50"]
    assert v.verdict == "holds" and "w256" in v.measured  # the shortest window is the one judged
    slow = _run([_sw("flex", 2.0, 256), _sw("sdpa_cudnn", 1.0, 256)])
    assert _verdicts(slow)["C50"].verdict == "differs"
    close = _run([_sw("flex", 1.0, 256), _sw("sdpa_cudnn", 1.01, 256)])
    assert _verdicts(close)["C50"].verdict == "tie"


def test_flash_refuses_every_dense_mask():
    refused = _run([_case(m, "sdpa_flash", None, reason=FLASH_NO)
                    for m in ("sliding_window", "documents")])  # fmt: skip
    v = _verdicts(refused)["C51"]
    assert v.verdict == "holds" and "2 of 2" in v.measured and "Flash does not support" in v.detail
    ran = _run([_case("documents", "sdpa_flash", 1.0), _case("prefix_lm", "sdpa_flash", None, reason="x")])
    assert _verdicts(ran)["C51"].verdict == "differs"


def test_nested_tensors_against_flex_for_packed_documents():
    run = _run(
        [
            _case("documents", "flex", 1.0),
            _case("documents", "sdpa_efficient", 2.0),
            _case("documents", "nested", 0.5),
        ]
    )
    assert _verdicts(run)["C52"].verdict == "holds"
    run = _run([_case("documents", "flex", 0.5), _case("documents", "nested", 1.0)])
    assert _verdicts(run)["C52"].verdict == "differs"


def test_the_block_mask_build_against_one_kernel_call():
    cases = [
        _sw("flex", 0.5, 256),
        _sw("sdpa_efficient", 1.0, 256),
    ]
    slow_build = BlockMaskBuild("sliding_window", 8192, window=256, time_ms=Figure(3.0, 2.9, 3.1, 5))
    assert _verdicts(_run(cases, [slow_build]))["C53"].verdict == "holds"
    fast_build = BlockMaskBuild("sliding_window", 8192, window=256, time_ms=Figure(0.1, 0.09, 0.11, 5))
    assert _verdicts(_run(cases, [fast_build]))["C53"].verdict == "differs"


def test_without_a_gpu_run_every_claim_is_unmeasurable_and_says_why():
    assert {v.verdict for v in claims.check_masks(None, "en")} == {"unmeasurable"}
    assert "examples/16-masks.py" in claims.check_masks(None, "en")[0].reason
    cpu = claims.check_masks(records.load(CPU_RUN), "ja")
    assert {v.verdict for v in cpu} == {"unmeasurable"} and all(v.reason for v in cpu)
    empty = _verdicts(_run([]))
    assert all(v.verdict == "unmeasurable" and "no case" in v.reason for v in empty.values())
