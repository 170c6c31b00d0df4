"""analysis.tracetree: nesting, launches, steps, and each step's GPU time, idle gaps and whether it waited for the
CPU."""

from __future__ import annotations

import json

import pytest

from attnprof.analysis import tracetree
from helpers import TRACES, explained

read = explained


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
    assert s.step.busy_share < tracetree.LAUNCH_BOUND_BUSY  # the line it is drawn at
    assert s.step.waiting_us == pytest.approx(s.step.idle_us) == pytest.approx(90 * 9)


def test_the_backward_on_another_thread_belongs_to_its_step_and_nests_apart():
    x = read(TRACES.parent / "foreign" / "cpu" / "hf_sdpa_train.json.gz")
    tree = x.tree
    for i, e in enumerate(x.trace.cpu):
        p = tree.parent[i]
        if p >= 0:  # a parent holds its child, on the same thread
            q = x.trace.cpu[p]
            assert (q.pid, q.tid) == (e.pid, e.tid) and q.ts <= e.ts + 1e-3 and e.ts + e.dur <= q.ts + q.dur + 1e-3
    for c in x.calls:
        assert tree.steps[c.step].start <= x.trace.cpu[c.call.roots[0]].ts <= tree.steps[c.step].end
