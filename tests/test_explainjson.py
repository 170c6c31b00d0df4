"""analysis.explainjson: the reading's JSON (deterministic, complete, versioned) and a foreign trace's step as the
site's StepTrace."""

from __future__ import annotations

import json

from attnprof.analysis import explain, explainjson
from helpers import FOREIGN, TRACES, explained

read = explained


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


def test_a_step_as_the_site_sees_it_holds_the_steps_events_nested_and_its_gpu_work():
    x = read(TRACES / "sdpa_math.json.gz")
    st = explainjson.step_trace(x, 1)
    step = x.tree.steps[1]
    assert st.index == 1 and st.cpu_time_us == step.wall_us and len(st.activities) == len(step.gpu)
    assert [a.name for a in st.activities] == [x.trace.gpu[j].name for j in step.gpu]
    assert all(0 <= a.launch_start_us <= st.cpu_time_us for a in st.activities)
    for k, op in enumerate(st.cpu_ops):
        assert op.start_us >= -1e-3 and op.start_us + op.duration_us <= st.cpu_time_us + 1e-3
        if op.parent is not None:
            parent = st.cpu_ops[op.parent]
            assert op.parent < k and op.depth == parent.depth + 1 and parent.start_us <= op.start_us
    assert {op.category for op in st.cpu_ops} <= set(explainjson.CATEGORY.values())
    assert not any(op.name.startswith("ProfilerStep#") for op in st.cpu_ops)
