"""Shared fixtures: results built from the real H200 traces in ``tests/data/traces`` (no torch needed)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from attnprof import results, trace
from attnprof.results import Environment, Result, Timing

DATA = Path(__file__).parent / "data"
TRACES = DATA / "traces"
#: Variants with a fixture trace (all of the registry).
TRACE_VARIANTS = tuple(sorted(p.name.removesuffix(".json.gz") for p in TRACES.glob("*.json.gz")))
SHAPE = [8, 16, 1024, 64]


def h200_environment() -> Environment:
    """The environment the fixture traces were recorded in (``tests/data/h200-probe-facts.json``)."""
    facts = json.loads((DATA / "h200-probe-facts.json").read_text())
    return Environment(
        device_name=facts["gpu"],
        torch_version=facts["torch"],
        python_version="3.12.3",
        date="2026-11-30T01:40:00+00:00",
        cuda_version=facts["cuda"],
        cudnn_version=str(facts["cudnn"]),
        driver_version="580.95.05",
        attnprof_version="0.1.0",
    )


def trace_result(variant: str) -> tuple[Result, bytes]:
    """A CUDA result of ``variant`` parsed from its fixture trace, and the raw trace bytes."""
    raw = gzip.decompress((TRACES / f"{variant}.json.gz").read_bytes())
    parsed = json.loads(raw)
    facts = json.loads((DATA / "h200-probe-facts.json").read_text())["timings"][variant]
    flops = 2.0 * SHAPE[0] * SHAPE[1] * SHAPE[2] * SHAPE[2] * SHAPE[3]
    ms = facts["median_ms"]
    result = Result(
        variant=variant,
        shape=list(SHAPE),
        dtype="bfloat16",
        device="cuda",
        status="ok",
        environment=h200_environment(),
        device_properties=trace.device_properties(parsed),
        steps=trace.parse_trace(parsed, f"{variant}_fwd"),
        # The median GPU time and the error were recorded with the traces (h200-probe-facts.json); the
        # percentiles, dispatch, context and peak-memory figures were not, and are synthetic test inputs.
        timing=Timing(
            gpu_ms_median=ms,
            gpu_ms_p10=ms * 0.98,
            gpu_ms_p90=ms * 1.03,
            repetitions=30,
            dispatch_us_median=25.0,
            context_us_median=4.0 if variant.startswith("sdpa_") and variant != "sdpa_auto" else None,
            peak_extra_bytes=3 * 2**20,
            flops=flops,
            tflops=flops / (ms * 1e-3) / 1e12,
            rel_error=facts["err"],
        ),
    )
    return result, raw


@pytest.fixture
def make_results(tmp_path: Path) -> Callable[..., Path]:
    """Write fixture results into a folder; returns a function ``(variants, folder=None) -> folder``."""

    def make(variants: tuple[str, ...] = TRACE_VARIANTS, folder: Path | None = None) -> Path:
        folder = folder or tmp_path / "results"
        for v in variants:
            result, raw = trace_result(v)
            results.save(result, folder, raw)
        return folder

    return make
