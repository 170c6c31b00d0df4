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
