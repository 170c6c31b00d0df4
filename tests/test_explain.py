"""analysis.explain on traces of code nobody here wrote (tests/data/foreign, recorded by scripts/probe_foreign.py) and
on the site's own H200 traces: every attention call found, with what the model must have done, and nothing else.

The expectations come from the models, not from a run of the reader: each model has ``layers`` attention layers and
runs one training step (forward and backward), one inference forward, or one ``generate`` of four forward passes per
profiler step. Folders of GPU recordings (``tests/data/foreign/h200``) are read by the same tests when present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnprof.analysis import attention, explain, kernels, summary
from attnprof.records import foreign, trace
from helpers import TRACE_VARIANTS, TRACES, older_layout

FOREIGN = Path(__file__).parent / "data" / "foreign"
FOLDERS = sorted(p for p in FOREIGN.iterdir() if (p / "facts.json").is_file())
#: Fused SDPA backends, as the trace shows them.
FUSED = ("flash", "mem_efficient", "cudnn")
#: What each model must do per profiler step, in layers: forward calls, backward calls (on the GPU; the CPU cannot
#: run FlexAttention's backward), the kind of call, and its backend where the model decides it.
MODELS = {
    "hf_sdpa_train": dict(kind="sdpa", fwd=1, bwd=1),
    "hf_eager_train": dict(kind="handwritten", backend="unfused", fwd=1, bwd=1),
    "hf_generate": dict(kind="sdpa", fwd=4, bwd=0),
    "encoder_infer": dict(kind="mha", fwd=1, bwd=0),
    "mha_train": dict(kind="handwritten", backend="unfused", fwd=1, bwd=1),
    "flex": dict(kind="flex", backend="flex", fwd=1, bwd="gpu"),
    # Inductor may rewrite matmul -> softmax -> matmul into SDPA (its attention patterns): either is attention
    "compiled_train": dict(kind=("handwritten", "sdpa"), fwd=1, bwd=1, compiled=True),
}
CASES = [(folder, name) for folder in FOLDERS for name in MODELS if (folder / f"{name}.json.gz").is_file()]


def facts(folder: Path) -> dict:
    return json.loads((folder / "facts.json").read_text())


def read(path: Path) -> explain.Explanation:
    return explain.explain(foreign.load(path, inputs_of=attention.wants_inputs))


def test_the_cpu_recordings_are_all_here_and_every_recording_is_small():
    assert {name for folder, name in CASES if folder.name == "cpu"} == set(MODELS)
    for folder, name in CASES:
        assert (folder / f"{name}.json.gz").stat().st_size < 300_000, (folder.name, name)
        assert "error" not in facts(folder)["cases"][name], (folder.name, name)


@pytest.mark.parametrize(("folder", "name"), CASES, ids=[f"{f.name}-{n}" for f, n in CASES])
def test_every_attention_layer_is_found_once_per_pass_and_nothing_else(folder, name):
    f, want = facts(folder), MODELS[name]
    x = read(folder / f"{name}.json.gz")
    layers, gpu = f["layers"], f["device"] == "cuda"
    bwd = (layers if gpu else 0) if want["bwd"] == "gpu" else want["bwd"] * layers
    assert len(x.steps) == f["active_steps"] and all(s.step.name.startswith("ProfilerStep#") for s in x.steps)
    for s in x.steps:
        assert s.calls == {"fwd": want["fwd"] * layers, "bwd": bwd}, (name, s.step.name)
    assert all(c.step is not None for c in x.calls)
    kinds = want["kind"] if isinstance(want["kind"], tuple) else (want["kind"],)
    assert len({c.call.kind for c in x.calls}) == 1 and {c.call.kind for c in x.calls} <= set(kinds)
    if "backend" in want:
        assert {c.call.backend for c in x.calls} == {want["backend"]}
    assert {c.call.compiled for c in x.calls if c.call.kind != "flex"} <= {want.get("compiled", False)}
    # a cross-entropy's log_softmax, the sampler's softmax, a router's: none of them is attention
    assert not any("log_softmax" in c.call.op for c in x.calls)


@pytest.mark.parametrize(("folder", "name"), CASES, ids=[f"{f.name}-{n}" for f, n in CASES])
def test_every_backward_call_knows_its_forward(folder, name):
    x = read(folder / f"{name}.json.gz")
    for c in x.calls:
        if c.call.direction == "bwd":
            fwd = x.calls[c.call.forward]
            assert fwd.call.direction == "fwd" and fwd.call.kind == c.call.kind and fwd.step == c.step
            assert x.trace.cpu[fwd.call.roots[0]].ts < x.trace.cpu[c.call.roots[0]].ts


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_sdpa_in_transformers_runs_a_fused_backend_on_its_gqa_inputs(folder):
    f = facts(folder)
    x = read(folder / "hf_sdpa_train.json.gz")
    backends = {c.call.backend for c in x.calls}
    assert len(backends) == 1 and backends <= set(FUSED)
    fwd = [c for c in x.calls if c.call.direction == "fwd"]
    for c in fwd:  # 4 query heads, 2 KV heads, passed as they are (enable_gqa), causal, bf16
        i = c.inputs
        assert i.query[1] == 4 and i.key[1] == i.value[1] == 2 and i.gqa and i.causal and i.dtype == "bf16"
        assert not i.mask and i.dropout == 0.0
    assert not any(fl.code in ("kv_expand", "math_backend") for c in x.calls for fl in c.flags)
    if f["device"] == "cuda":  # the kernels the calls launched are the backend's own
        for c in x.calls:
            families = {x.rows[k].info.family for k, _ in c.kernels}
            assert c.call.backend in families, (c.call.backend, families)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_eager_attention_in_transformers_is_flagged_for_its_fp32_softmax_and_its_expanded_kv(folder):
    x = read(folder / "hf_eager_train.json.gz")
    fwd = [c for c in x.calls if c.call.direction == "fwd"]
    for c in fwd:  # repeat_kv: expand then reshape; softmax(..., dtype=torch.float32) on bf16 scores
        codes = {fl.code for fl in c.flags}
        assert {"fp32_softmax", "kv_expand"} <= codes, codes
        assert c.inputs.query[1] == 4 and c.inputs.value[1] == 4 and c.inputs.dtype == "bf16"
    assert all(fl.code != "fp32_softmax" for c in x.calls if c.call.direction == "bwd" for fl in c.flags)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_generate_prefills_then_decodes_one_token_against_a_growing_cache(folder):
    x = read(folder / "hf_generate.json.gz")
    for s in x.steps:
        calls = [c for c in x.calls if c.step == s.step.index]
        prompt = calls[0].inputs.query[2]
        lengths = [c.inputs.key[2] for c in calls]
        layers = facts(folder)["layers"]
        assert [c.inputs.query[2] for c in calls] == [prompt] * layers + [1] * (len(calls) - layers)
        assert lengths == [n for n in range(prompt, prompt + 4) for _ in range(layers)]


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_the_encoder_fast_path_is_multi_head_attention_without_a_backward(folder):
    x = read(folder / "encoder_infer.json.gz")
    assert {c.call.op for c in x.calls} <= {"aten::_native_multi_head_attention", *attention.BACKEND_OPS}
    assert all(c.inputs.query == (2, 32, 64) for c in x.calls)  # batch_first: [batch, seq, embedding]


def test_a_cpu_recording_says_so_and_has_no_gpu_figures():
    x = read(FOREIGN / "cpu" / "mha_train.json.gz")
    assert [code for code, _ in x.notes] == ["cpu_only"]
    d = x.to_dict()
    assert d["trace"]["device"] is None and d["summary"]["attention_share"] is None
    assert all(s["gpu_busy_share"] is None and s["launch_bound"] is None for s in d["steps"])


# --- the site's own H200 traces: the same reading as the site's ---


@pytest.mark.parametrize("variant", TRACE_VARIANTS)
def test_the_site_traces_read_as_the_site_reads_them(variant):
    x = read(TRACES / f"{variant}.json.gz")
    raw = trace.read_trace(TRACES / f"{variant}.json.gz")
    steps = trace.parse_trace(raw, f"{variant}_fwd")
    assert len(x.steps) == len(steps) == 3 and [len(s.calls) for s in x.steps] == [2] * 3
    assert all(s.calls == {"fwd": 1, "bwd": 0} for s in x.steps)
    (call,) = {(c.call.kind, c.call.backend) for c in x.calls}
    family, _ = summary.sdpa_backend(steps)
    if call[0] == "sdpa":
        assert call[1] == family
    else:
        assert call == {"flex": ("flex", "flex")}.get(variant, ("handwritten", "unfused"))
    # every kernel the site counts in the annotated call belongs to the one attention call of its step
    site = sorted(a.name for s in steps for a in s.activities)
    ours = sorted(x.rows[k].name for c in x.calls for k, n in c.kernels for _ in range(n))
    assert ours == site


def test_gpu_time_busy_share_and_gaps_add_up():
    x = read(TRACES / "sdpa_math.json.gz")
    for s in x.steps:
        st = s.step
        acts = [x.trace.gpu[j] for j in st.gpu]
        assert st.gpu_us == pytest.approx(sum(a.dur for a in acts), abs=1e-3)
        first, last = min(a.ts for a in acts), max(a.ts + a.dur for a in acts)
        assert st.busy_us + st.idle_us == pytest.approx(last - first, abs=2e-3)
        assert 0 < st.busy_share <= 1 and s.attention_share == pytest.approx(1.0)
        assert all(length > 0 for _, length, _ in st.gaps)


def test_a_step_is_cpu_bound_when_the_gpu_waits_for_launches(tmp_path):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000}]
    for k in range(10):  # each launch begins after the previous kernel ended: the GPU waits on the CPU
        t = 100 * k
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 50,
                   "dur": 5, "args": {"correlation": k}})  # fmt: skip
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 60, "dur": 10,
                   "args": {"correlation": k, "device": 0, "stream": 7}})  # fmt: skip
    path = tmp_path / "bound.json"
    path.write_text(json.dumps({"traceEvents": ev}))
    (s,) = read(path).steps
    assert s.step.busy_share == pytest.approx(100 / 1000) and s.step.launch_bound
    assert s.step.waiting_us == pytest.approx(s.step.idle_us) == pytest.approx(90 * 9)


def test_several_gpus_are_read_one_at_a_time(tmp_path):
    doc = json.loads(__import__("gzip").decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
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
    doc = json.loads(__import__("gzip").decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
    doc["traceEvents"] += [dict(e, pid=999) for e in doc["traceEvents"] if e.get("ph") == "X"]
    path = tmp_path / "ranks.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="profiler steps of 2 processes"):
        explain.explain(foreign.load(path))


def test_the_json_is_deterministic_complete_and_versioned():
    path = FOREIGN / "cpu" / "hf_eager_train.json.gz"
    a, b = read(path).to_dict(), read(path).to_dict()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["schema"] == explain.SCHEMA and a["version"] == explain.VERSION
    top = {"schema", "version", "trace", "notes", "summary", "steps", "calls", "groups", "kernels", "flags"}
    assert set(a) == top
    call = a["calls"][0]
    assert set(call) >= {"step", "kind", "backend", "direction", "inputs", "flags", "kernels", "forward"}
    assert a["flags"]["kv_expand"]["calls"] == 4 and a["flags"]["kv_expand"]["steps"] == [0, 1]
    json.dumps(read(TRACES / "sdpa_math.json.gz").to_dict(), allow_nan=False)


def test_the_kernels_of_a_call_are_decoded_with_their_occupancy():
    x = read(TRACES / "sdpa_flash.json.gz")
    (k,) = {k for c in x.calls for k, _ in c.kernels}
    row = x.rows[k]
    assert row.info == kernels.decode(row.name) and row.info.family == "flash"
    assert row.theoretical is not None and row.theoretical.percent == pytest.approx(12.5)
    assert x.to_dict()["kernels"][k]["attention"] is True


def test_a_trace_without_gpu_activity_says_how_to_record_it(tmp_path):
    doc = json.loads(__import__("gzip").decompress((TRACES / "sdpa_flash.json.gz").read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "kernel"]
    path = tmp_path / "nogpu.json"
    path.write_text(json.dumps(doc))
    x = read(path)
    assert x.notes[0] == ("no_gpu_events", {"launches": 3}) and len(x.calls) == 3
    d = x.to_dict()
    assert d["notes"][0] == {"code": "no_gpu_events", "launches": 3} and d["summary"]["attention_share"] is None


def test_an_older_layout_reads_the_same(tmp_path):
    doc = json.loads(__import__("gzip").decompress((TRACES / "sdpa_math.json.gz").read_bytes()))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(older_layout(doc)))
    old, new = read(path).to_dict(), read(TRACES / "sdpa_math.json.gz").to_dict()
    for d in (old, new):
        d["trace"].pop("name")
    assert old == new
