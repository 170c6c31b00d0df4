"""The mask run's file: it reads back what was written, refuses another version, and derives rates and stems."""

from __future__ import annotations

import json

import pytest

from attnprof.noise import Figure
from attnprof.records import masks as records
from attnprof.records.files import UnreadableFile
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun
from attnprof.records.results import Environment, StaleResultError


def _run() -> MaskRun:
    env = Environment("NVIDIA H200", "2.11.0", "3.12.3", "2026-12-03T01:00:00+00:00")
    case = MaskCase("sliding_window", "flex", "prefill", [2, 16, 4096, 64], "bfloat16", window=256,
                    time_ms=Figure(0.5, 0.49, 0.52, 10), peak_bytes=123, flops=1e12, rel_error=2e-3,
                    kernels=[("triton_tem_fused_0", 480.5)], trace_file="x.trace.json.gz")  # fmt: skip
    refused = MaskCase("documents", "sdpa_flash", "train", [2, 16, 4096, 64], "bfloat16", status="unsupported",
                       reason="RuntimeError: No available kernel. | Flash does not support attn_mask")  # fmt: skip
    build = BlockMaskBuild("sliding_window", 4096, window=256, time_ms=Figure(0.3, 0.29, 0.35, 5), kept_blocks=0.1,
                           density=0.06, kernels=[("vectorized_elementwise_kernel", 3.0)], launches=40)  # fmt: skip
    return MaskRun("cuda", env, [case, refused], [build], seconds=12.5)


def test_a_run_reads_back_as_written(tmp_path):
    run = _run()
    path = records.save(run, tmp_path)
    assert path.name == "masks__cuda.json"
    back = records.load(path)
    assert back.to_dict() == run.to_dict()
    assert back.cases[0].time_ms == Figure(0.5, 0.49, 0.52, 10)
    assert back.cases[0].kernels == [("triton_tem_fused_0", 480.5)]
    assert back.cases[1].time_ms is None and "attn_mask" in (back.cases[1].reason or "")


def test_another_version_is_stale_and_garbage_is_unreadable(tmp_path):
    data = _run().to_dict()
    data["version"] = 0
    (tmp_path / "old.json").write_text(json.dumps(data))
    with pytest.raises(StaleResultError, match="version 0"):
        records.load(tmp_path / "old.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(UnreadableFile, match=r"bad\.json"):
        records.load(tmp_path / "bad.json")


def test_rates_stems_and_keys():
    case, refused = _run().cases
    assert case.tflops == pytest.approx(1e12 / 0.5e-3 / 1e12)
    assert refused.tflops is None
    assert case.stem() == "sliding_window__flex__prefill__S4096__w256"
    assert refused.stem() == "documents__sdpa_flash__train__S4096"
    assert case.key == ("sliding_window", "flex", "prefill", 4096, 256, 0)
    assert _run().builds[0].stem() == "sliding_window__block_mask__S4096__w256"
