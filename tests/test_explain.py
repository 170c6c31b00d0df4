"""analysis.explain: the reading of a whole trace: its notes (what limits it), several GPUs and ranks, the kernel
table with occupancy, and the same reading from an older layout."""

from __future__ import annotations

import gzip
import json

import pytest

from attnprof.analysis import attention, explain, kernels
from attnprof.records import foreign
from helpers import FOREIGN, TRACES, explained, older_layout

read = explained


def test_a_cpu_recording_says_so_and_has_no_gpu_figures():
    x = read(FOREIGN / "cpu" / "mha_train.json.gz")
    assert [code for code, _ in x.notes] == ["cpu_only"]
    d = x.to_dict()
    assert d["trace"]["device"] is None and d["summary"]["attention_share"] is None
    assert all(s["gpu_busy_share"] is None and s["launch_bound"] is None for s in d["steps"])


def test_several_gpus_are_read_one_at_a_time(tmp_path):
    doc = json.loads(gzip.decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
    extra = [dict(e, args=dict(e["args"], device=1), pid=1) for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    doc["traceEvents"] += extra
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc))
    t = foreign.load(path, inputs_of=attention.wants_inputs)
    with pytest.raises(ValueError, match=r"kernels of 2 GPUs \(0, 1\).*--gpu 0"):
        explain.explain(t)
    assert [s.calls for s in explain.explain(t, 0).steps] == [{"fwd": 1, "bwd": 0}] * 3
    with pytest.raises(ValueError, match="GPU 5 ran no kernel"):
        explain.explain(t, 5)


def test_several_ranks_in_one_file_are_refused(tmp_path):
    doc = json.loads(gzip.decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
    doc["traceEvents"] += [dict(e, pid=999) for e in doc["traceEvents"] if e.get("ph") == "X"]
    path = tmp_path / "ranks.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="profiler steps of 2 processes"):
        explain.explain(foreign.load(path))


def test_the_kernels_of_a_call_are_decoded_with_their_occupancy():
    x = read(TRACES / "sdpa_flash.json.gz")
    (k,) = {k for c in x.calls for k, _ in c.kernels}
    row = x.rows[k]
    assert row.info == kernels.decode(row.name) and row.info.family == "flash"
    assert row.theoretical is not None and row.theoretical.percent == pytest.approx(12.5)
    assert x.to_dict()["kernels"][k]["attention"] is True


def test_a_trace_without_gpu_activity_says_how_to_record_it(tmp_path):
    doc = json.loads(gzip.decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "kernel"]
    path = tmp_path / "nogpu.json"
    path.write_text(json.dumps(doc))
    x = read(path)
    assert x.notes[0] == ("no_gpu_events", {"launches": 3}) and len(x.calls) == 3
    d = x.to_dict()
    assert d["notes"][0] == {"code": "no_gpu_events", "launches": 3} and d["summary"]["attention_share"] is None


def test_an_older_layout_reads_the_same(tmp_path):
    doc = json.loads(gzip.decompress((TRACES / "sdpa_math.json.gz").read_bytes()))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(older_layout(doc)))
    old, new = read(path).to_dict(), read(TRACES / "sdpa_math.json.gz").to_dict()
    for d in (old, new):
        d["trace"].pop("name")
    assert old == new


# --- the H200 recordings of code nobody here wrote, read as what ran --------------------------------------------

H200 = FOREIGN / "h200"


def _kernels(x, g) -> dict[str, float]:
    return {x.rows[k].name: n for k, n, _ in g.kernels}


def test_a_generate_loop_is_one_prefill_and_three_decode_steps_against_a_growing_cache():
    x = read(H200 / "hf_generate.json.gz")
    for s in x.steps:  # 4 new tokens from an 8-token prompt, 2 layers: the prompt, then 3 tokens
        assert s.generation.to_dict() == {"prefill": 1, "decode": 3, "kv": [9, 11], "layers": 2}
    assert [c.phase for c in x.calls if c.step == 0] == ["prefill"] * 2 + ["decode"] * 6
    prefill, decode = x.groups  # two rows, however long the loop (the cache's length is not part of the row)
    assert (x.calls[prefill.calls[0]].phase, prefill.kv, len(prefill.calls)) == ("prefill", None, 4)
    assert (x.calls[decode.calls[0]].phase, decode.kv, len(decode.calls)) == ("decode", (9, 11), 12)
    d = x.to_dict()
    assert d["steps"][0]["generation"] == {"prefill": 1, "decode": 3, "kv": [9, 11], "layers": 2}
    assert [g["phase"] for g in d["groups"]] == ["prefill", "decode"] and d["groups"][1]["kv"] == [9, 11]


def test_training_has_no_generation():
    for name in ("hf_sdpa_train", "mha_train", "flex"):
        x = read(H200 / f"{name}.json.gz")
        assert all(s.generation is None for s in x.steps) and {c.phase for c in x.calls} == {None}


def test_flex_attention_shows_its_shapes_and_its_backward_pre_kernel_counts_as_attention():
    x = read(H200 / "flex.json.gz")
    fwd, bwd = x.groups
    for g in (fwd, bwd):  # the compiled template's own inputs: [batch, heads, seq, head_dim], recorded as fp32
        i = x.calls[g.calls[0]].inputs
        assert (i.query, i.key, i.value, i.dtype) == ((2, 4, 128, 16),) * 3 + ("fp32",)
    assert set(_kernels(x, bwd)) == {"triton_per_fused_flex_attention_backward_0",
                                     "triton_tem_fused_flex_attention_backward_1"}  # fmt: skip
    for c in (x.calls[k] for k in bwd.calls):  # the call's GPU time is both kernels'
        times = [x.trace.gpu[j].dur for j in x.tree.launched(x.tree.under(c.call.roots))]
        assert len(times) == 2 and c.gpu_us == pytest.approx(sum(times), abs=1e-3)
    assert {k for k, _, _ in bwd.kernels} <= x.attention_rows  # both kernels are attention's in the kernel table


def test_the_encoder_fast_path_is_named_and_counts_attention_alone():
    x = read(H200 / "encoder_infer.json.gz")
    (g,) = x.groups
    c = x.calls[g.calls[0]]
    assert (c.call.kind, c.call.module) == ("mha", "TransformerEncoderLayer")
    assert set(_kernels(x, g)) == {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel"
                                   "<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)"}  # fmt: skip
    everything = x.tree.launched(x.tree.under(c.call.roots))
    projections = x.tree.launched(x.tree.under(c.call.projections))
    assert len(c.call.projections) == 2 and len(projections) == 8  # in and out: memset, scale, gemm, epilogue each
    assert c.gpu_us + c.projection_us == pytest.approx(sum(x.trace.gpu[j].dur for j in everything), abs=2e-3)
    assert c.projection_us > c.gpu_us  # the projections were most of what the fast path's op ran


def test_multihead_attention_in_training_is_named_with_its_projections_apart():
    x = read(H200 / "mha_train.json.gz")
    fwd, bwd = (x.calls[g.calls[0]] for g in x.groups)
    assert (fwd.call.module, bwd.call.module) == ("MultiheadAttention", "MultiheadAttention")
    assert fwd.call.kind == "handwritten"
    assert [x.trace.cpu[i].name for i in fwd.call.projections] == ["aten::linear"] * 2  # the in- and out-projection
    assert fwd.projection_us > 0 and bwd.projection_us > 0
    for name in ("hf_eager_train", "hf_sdpa_train", "compiled_train", "hf_generate"):  # no nn.MultiheadAttention
        assert {c.call.module for c in read(H200 / f"{name}.json.gz").calls} == {None}, name


def test_a_flag_that_causes_no_gpu_work_of_its_own_has_no_gpu_time():
    d = read(H200 / "hf_eager_train.json.gz").to_dict()
    assert d["flags"]["fp32_softmax"]["gpu_us"] is None and d["flags"]["hidden_copy"]["gpu_us"] > 0
    assert all(f["gpu_us"] is None for c in d["calls"] for f in c["flags"] if f["code"] == "fp32_softmax")
    cpu = read(FOREIGN / "cpu" / "hf_eager_train.json.gz").to_dict()
    assert cpu["flags"]["hidden_copy"]["gpu_us"] is None  # a CPU recording has no GPU time to give


def test_the_json_array_form_reads_as_the_object_and_says_so(tmp_path):
    doc = json.loads(gzip.decompress((H200 / "hf_sdpa_train.json.gz").read_bytes()))
    path = tmp_path / "array.json"
    path.write_text(json.dumps(doc["traceEvents"]))
    array, whole = read(path).to_dict(), read(H200 / "hf_sdpa_train.json.gz").to_dict()
    assert array["trace"]["layout"] == "array" and whole["trace"]["layout"] == "object"
    assert array["trace"]["gpus"] == whole["trace"]["gpus"] == [0] and array["trace"]["device"] is None
    assert [c["backend"] for c in array["calls"]] == [c["backend"] for c in whole["calls"]]
