"""The result file format: lossless round trip, versioning, writing only on change."""

import gzip
import json
import os

import pytest

from attnprof.noise import Figure
from attnprof.records import files, results
from attnprof.records.results import (
    CpuOp,
    DecodeFigures,
    Environment,
    GpuActivity,
    GraphFigures,
    Result,
    StepTrace,
    Timing,
    TrainFigures,
)


def make_result(**over):
    env = Environment("NVIDIA H200", "2.11.0+cu130", "3.12.3", "2026-11-30T00:00:00+00:00", cuda_version="13.0")
    act = GpuActivity("kernel", "k<1>", 1.5, 2.25, correlation=7, grid=[1, 2, 3], block=[128, 1, 1],
                      registers_per_thread=255, shared_memory=49152, reported_occupancy=13.0,
                      launch_api="cudaLaunchKernel")  # fmt: skip
    step = StepTrace(0, 10.0, 2.25, 2.25, [act], [CpuOp("aten::mm", "cpu_op", 0.5, 3.0)])
    timing = Timing(0.1, 0.09, 0.12, 50, 12.0, None, 1024, 1e9, 10.0, 1e-3, gpu_ms_lo=0.098, gpu_ms_hi=0.103,
                    dispatch_us_lo=11.5, dispatch_us_hi=12.5, attempts=2, unstable=True)  # fmt: skip
    base = dict(variant="sdpa_flash", shape=[8, 16, 1024, 64], dtype="bfloat16", device="cuda", status="ok",
                environment=env, device_properties={"numSms": 132}, steps=[step], timing=timing)  # fmt: skip
    base.update(over)
    return Result(**base)


def test_round_trip_is_lossless(tmp_path):
    r = make_result()
    path = results.save(r, tmp_path, trace=b'{"traceEvents": []}')
    assert path.name == "sdpa_flash__prefill__8x16x1024x64__bfloat16__cuda.json"
    back = results.load(path)
    assert back == r
    assert back.steps[0].activities[0].threads_per_block == 128
    # the noise bands come back as figures
    assert back.timing.gpu == Figure(0.1, 0.098, 0.103, 50)
    assert back.timing.dispatch == Figure(12.0, 11.5, 12.5, 0)
    assert (back.timing.attempts, back.timing.unstable) == (2, True)
    assert results.load_trace(path, back) == {"traceEvents": []}


def test_files_are_rewritten_only_when_content_changes(tmp_path):
    r = make_result()
    path = results.save(r, tmp_path, trace=b"{}")
    trace_path = tmp_path / r.trace_file
    os.utime(path, (1, 1))
    os.utime(trace_path, (1, 1))
    results.save(make_result(), tmp_path, trace=b"{}")
    assert path.stat().st_mtime == 1 and trace_path.stat().st_mtime == 1
    results.save(make_result(status="oom", reason="CUDA out of memory", steps=[], timing=None), tmp_path)
    assert path.stat().st_mtime != 1
    assert results.load(path).status == "oom"


def test_trace_gzip_is_deterministic(tmp_path):
    r = make_result()
    results.save(r, tmp_path / "a", trace=b"{}")
    results.save(r, tmp_path / "b", trace=b"{}")
    a = (tmp_path / "a" / r.trace_file).read_bytes()
    assert a == (tmp_path / "b" / r.trace_file).read_bytes()
    assert gzip.decompress(a) == b"{}"


def test_other_schema_version_is_refused(tmp_path):
    data = make_result().to_dict()
    p = tmp_path / "old.json"
    for old in (0, 1):  # version 1: timings without their noise bands
        data["schema_version"] = old
        p.write_text(json.dumps(data))
        with pytest.raises(results.StaleResultError, match=f"schema version {old} is not the supported version 2"):
            results.load(p)
    p.write_text("{not json")
    with pytest.raises(files.UnreadableFile, match="not valid JSON"):
        results.load(p)


def test_find_prefers_cuda(tmp_path):
    results.save(make_result(device="cpu", shape=[1, 4, 256, 64]), tmp_path)
    results.save(make_result(), tmp_path)
    results.save(make_result(variant="sdpa_flash_other"), tmp_path)
    found = results.find(tmp_path, "sdpa_flash")
    assert [p.name for p in found] == [
        "sdpa_flash__prefill__8x16x1024x64__bfloat16__cuda.json",
        "sdpa_flash__prefill__1x4x256x64__bfloat16__cpu.json",
    ]


def test_workload_results_round_trip_with_their_own_figures(tmp_path):
    step = make_result().steps[0]
    train = make_result(workload="train", train_figures=TrainFigures(0.1, 0.09, 0.11, 20, 17 * 2**20, 3e-3))
    graph = GraphFigures("ok", None, 60.0, 9.0, 90.0, 50.0, 42.0, 41.0, 30, True, [step])
    decode = make_result(workload="decode", shape=[8, 32, 1, 128], kv_heads=8, kv_len=4096,
                         decode_figures=DecodeFigures(134_250_496, 3190.0, 4300.0, 2**31, graph))  # fmt: skip
    for r in (train, decode):
        back = results.load(results.save(r, tmp_path))
        assert back == r
    assert train.stem == "sdpa_flash__train__8x16x1024x64__bfloat16__cuda"
    assert decode.stem == "sdpa_flash__decode__8x32x1x128_kv8x4096__bfloat16__cuda"
    assert results.load(tmp_path / f"{decode.stem}.json").decode_figures.graph.steps[0].cpu_ops[0].thread == ""
    assert decode.decode_figures.read_fraction == pytest.approx(3190 / 4300)


def test_find_keeps_workloads_apart(tmp_path):
    results.save(make_result(), tmp_path)
    results.save(make_result(workload="train"), tmp_path)
    results.save(make_result(workload="decode", shape=[8, 32, 1, 128], kv_heads=8, kv_len=1024), tmp_path)
    assert [p.name for p in results.find(tmp_path, "sdpa_flash")] == [
        "sdpa_flash__prefill__8x16x1024x64__bfloat16__cuda.json"
    ]
    assert [p.name for p in results.find(tmp_path, "sdpa_flash", "decode")] == [
        "sdpa_flash__decode__8x32x1x128_kv8x1024__bfloat16__cuda.json"
    ]


def test_a_cpus_name_is_shown_in_the_pages_language_and_a_gpus_as_recorded():
    from attnprof.words import CPU_NAME
    from attnprof.words import device as device_words

    cpu = CPU_NAME.format(arch="x86_64", cores=2)
    assert device_words(cpu, "en") == cpu == "CPU (x86_64, 2 cores)"
    assert device_words(cpu, "ja") == "CPU (x86_64、2 コア)"
    assert device_words("NVIDIA H200", "ja") == "NVIDIA H200"
