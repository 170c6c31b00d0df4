"""analysis.attention on traces of code nobody here wrote (tests/data/foreign, recorded by scripts/probe_foreign.py)
and on the site's own H200 traces: every attention call found, with what the model must have done, and nothing else.

The expectations come from the models, not from a run of the reader: each model has ``layers`` attention layers and
runs one training step (forward and backward), one inference forward, or one ``generate`` of four forward passes per
profiler step. Folders of GPU recordings (``tests/data/foreign/h200``) are read by the same tests when present.
"""

from __future__ import annotations

import pytest

from attnprof.analysis import attention, summary
from attnprof.records import trace
from helpers import FOREIGN_FOLDERS, TRACE_VARIANTS, TRACES, explained, foreign_facts

FOLDERS = FOREIGN_FOLDERS
read = explained
facts = foreign_facts
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
