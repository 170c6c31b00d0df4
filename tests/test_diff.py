"""analysis.diff: two traces of code nobody here wrote compared (the same transformers model with SDPA and eager
attention, on the H200 and on the CPU), a trace against itself, and traces changed on purpose (kernels made slower,
a step dropped, shapes not recorded, calls removed), with the noise rules' verdicts."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from attnprof import noise
from attnprof.analysis import diff
from attnprof.noise import Figure
from helpers import FOREIGN, explained

H200, CPU = FOREIGN / "h200", FOREIGN / "cpu"


def side(path: Path) -> diff.Side:
    return diff.side(explained(path))


def compared(a: Path, b: Path) -> diff.Diff:
    return diff.diff(side(a), side(b))


def changed(src: Path, out: Path, edit) -> Path:
    """A copy of the trace ``src`` with ``edit(events)`` applied (it returns the new list of events)."""
    doc = json.loads(gzip.decompress(src.read_bytes()))
    doc["traceEvents"] = edit(doc["traceEvents"])
    out.write_text(json.dumps(doc))
    return out


def test_sdpa_against_eager_on_the_h200_names_the_calls_that_changed_and_by_how_much():
    d = compared(H200 / "hf_sdpa_train.json.gz", H200 / "hf_eager_train.json.gz")
    assert d.notes == []
    matched = [(r.match, d.before.calls[r.before.calls[0]]["direction"]) for r in d.rows]
    assert matched == [("replaced", "fwd"), ("replaced", "bwd")]
    for r in d.rows:
        assert r.before.backends(d.before) == {"cudnn": 4} and r.after.backends(d.after) == {"unfused": 4}
        assert r.backend_changed(d.before, d.after)
        assert r.gpu_us.verdict == "higher" and r.step_gpu_us.verdict == "higher" and r.cpu_us.verdict == "higher"
        assert r.gpu_us.before.n == r.gpu_us.after.n == 4 and r.step_gpu_us.before.n == 2  # 2 layers, 2 steps
        # the change is the two medians' ratio, with the band the two floored bands allow
        m = noise.margin(r.gpu_us.after, r.gpu_us.before, noise.GPU_FLOOR)
        assert r.gpu_us.change.median == pytest.approx(m.median, abs=1e-4) and r.gpu_us.change.lo > 0
        gone = [k.name for k in r.kernels if k.per_call[1] is None]
        new = [k.name for k in r.kernels if k.per_call[0] is None]
        assert any("sdpa" in n and "cudnn" in n for n in gone) and not any("cudnn" in n for n in new)
        assert any(n.startswith("nvjet") for n in new) and all(k.us.verdict is None for k in r.kernels)
    fwd = d.rows[0]
    assert any("softmax_warp_forward" in k.name for k in fwd.kernels)
    # attention per step: the forward and backward calls' GPU time summed over each step
    att = d.steps.figures["attention_gpu_us"]
    assert att.verdict == "higher"
    assert att.before.median == pytest.approx(statistics_median([s["attention_gpu_us"] for s in d.before.steps]))
    # the step's wall time moved less than the CPU rule calls (25 %, bands of ±10 %)
    assert d.steps.figures["wall_us"].verdict == "tie" and d.steps.launch_bound == (2, 2)


def statistics_median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def test_a_trace_against_itself_is_the_same_calls_and_too_close_to_call_everywhere():
    path = H200 / "hf_generate.json.gz"
    d = compared(path, path)
    assert d.notes == [] and d.rows and all(r.match == "same" for r in d.rows)
    changes = [c for c in d.steps.figures.values() if c is not None]
    changes += [c for r in d.rows for c in (r.gpu_us, r.cpu_us, r.step_gpu_us) if c is not None]
    changes += [k.us for r in d.rows for k in r.kernels]
    assert changes and {c.verdict for c in changes} <= {"tie", "too_wide"}
    assert all(c.change is None or c.change.median == 0 for c in changes)
    assert not any(r.backend_changed(d.before, d.after) for r in d.rows)


def test_swapping_the_traces_swaps_every_verdict():
    a, b = side(H200 / "hf_sdpa_train.json.gz"), side(H200 / "hf_eager_train.json.gz")
    ab, ba = diff.diff(a, b), diff.diff(b, a)
    flip = {"lower": "higher", "higher": "lower", "tie": "tie", "too_wide": "too_wide", None: None}
    assert [flip[r.gpu_us.verdict] for r in ab.rows] == [r.gpu_us.verdict for r in ba.rows]
    assert {k: flip[c.verdict] for k, c in ab.steps.figures.items()} == {
        k: c.verdict for k, c in ba.steps.figures.items()
    }


def test_kernels_made_slower_are_the_same_call_and_higher_by_the_gpu_rule(tmp_path):
    src = H200 / "hf_sdpa_train.json.gz"

    def slower(events):  # every cuDNN attention kernel takes twice as long; nothing else changes
        return [dict(e, dur=e["dur"] * 2) if e.get("cat") == "kernel" and "sdpa" in e["name"] else e for e in events]

    d = compared(src, changed(src, tmp_path / "slow.json", slower))
    assert [r.match for r in d.rows] == ["same", "same"]
    assert not any(r.backend_changed(d.before, d.after) for r in d.rows)
    for r in d.rows:
        assert r.gpu_us.verdict == "higher" and r.cpu_us.verdict == "tie"
        (k,) = [k for k in r.kernels if "sdpa" in k.name]
        assert k.per_call == (1.0, 1.0) and k.us.verdict == "higher"
        assert k.us.change.median == pytest.approx(1.0, abs=0.01)  # twice as long: +100 %
        assert all(o.us.verdict == "tie" for o in r.kernels if o is not k)
    assert d.steps.figures["attention_gpu_us"].verdict == "higher"
    assert d.steps.figures["wall_us"].verdict == "tie"


def test_calls_of_other_code_vanish_and_appear():
    d = compared(H200 / "hf_sdpa_train.json.gz", H200 / "mha_train.json.gz")
    matches = [r.match for r in d.rows]
    assert "vanished" in matches and "appeared" in matches
    for r in d.rows:
        if r.match == "vanished":
            assert r.after is None and r.gpu_us.after is None and r.gpu_us.verdict is None
        if r.match == "appeared":
            assert r.before is None and r.gpu_us.before is None and r.gpu_us.change is None


def test_a_step_fewer_pairs_the_steps_in_order_and_says_so(tmp_path):
    src = H200 / "hf_sdpa_train.json.gz"
    doc = json.loads(gzip.decompress(src.read_bytes()))
    marks = [
        e for e in doc["traceEvents"] if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep")
    ]
    last = max(marks, key=lambda e: e["ts"])

    def one_step(events):  # the last step and everything that started in it gone
        return [e for e in events if not (isinstance(e.get("ts"), (int, float)) and e["ts"] >= last["ts"])]

    d = compared(src, changed(src, tmp_path / "one.json", one_step))
    assert ("steps", {"before": 2, "after": 1}) in d.notes
    assert ("one_step", {"which": "after"}) in d.notes
    assert d.steps.pairs == [(0, 0)] and d.steps.only_before == [1] and d.steps.only_after == []
    # one step: its band is the value alone, so the rule's floor decides
    wall = d.steps.figures["wall_us"]
    assert wall.after.n == 1 and wall.after.lo == wall.after.median == wall.after.hi
    assert all(r.match == "same" for r in d.rows)
    assert [r.before.per_step(d.before) for r in d.rows] == [r.after.per_step(d.after) for r in d.rows] == [2, 2]


def test_without_shapes_calls_match_by_kind_direction_and_order(tmp_path):
    src = H200 / "hf_sdpa_train.json.gz"

    def no_shapes(events):
        out = []
        for e in events:
            if isinstance(e.get("args"), dict):
                shapes = ("Input Dims", "Input type", "Concrete Inputs", "Input Strides")
                e = dict(e, args={k: v for k, v in e["args"].items() if k not in shapes})
            out.append(e)
        return out

    d = compared(src, changed(src, tmp_path / "bare.json", no_shapes))
    assert ("no_shapes", {"which": "after"}) in d.notes
    assert [r.match for r in d.rows] == ["replaced", "replaced"]  # the inputs differ: now unknown
    assert not any(r.backend_changed(d.before, d.after) for r in d.rows)
    both = compared(tmp_path / "bare.json", tmp_path / "bare.json")
    assert ("no_shapes", {"which": "before+after"}) in both.notes and [r.match for r in both.rows] == ["same"] * 2


def test_cpu_recordings_compare_cpu_times_only():
    d = compared(CPU / "hf_sdpa_train.json.gz", CPU / "hf_eager_train.json.gz")
    assert [code for code, _ in d.notes] == ["cpu_only"]
    assert [r.match for r in d.rows] == ["replaced", "replaced"]
    assert all(r.gpu_us is None and r.step_gpu_us is None and r.kernels == [] for r in d.rows)
    assert all(r.cpu_us is not None and r.cpu_us.verdict is not None for r in d.rows)
    assert d.steps.figures["wall_us"] is not None and d.steps.figures["gpu_time_us"] is None
    mixed = compared(CPU / "hf_sdpa_train.json.gz", H200 / "hf_sdpa_train.json.gz")
    assert [code for code, _ in mixed.notes] == ["devices", "one_gpu"]
    assert mixed.notes[0][1] == {"before": "-", "after": "NVIDIA H200"}
    # the CPU recording ran head_dim 16, the H200's 64: other calls, and only one side has GPU time
    assert [r.match for r in mixed.rows] == ["vanished", "vanished", "appeared", "appeared"]
    assert all(r.gpu_us is None for r in mixed.rows[:2])
    assert all(r.gpu_us.before is None and r.gpu_us.after.n == 4 and r.gpu_us.verdict is None for r in mixed.rows[2:])


def test_a_change_follows_the_noise_rule():
    same = diff.change([10.0, 10.1, 9.9], [10.2, 10.0, 10.1], "gpu")
    assert same.verdict == "tie" and same.rule == "gpu"
    faster = diff.change([10.0, 10.1, 9.9], [5.0, 5.1, 4.9], "gpu")
    assert faster.verdict == "lower" and faster.change.median == pytest.approx(-0.5)
    # 6 % apart with tight bands: the GPU rule calls it (5 %), the CPU rule does not (25 %)
    assert diff.change([100.0] * 7, [106.5] * 7, "gpu").verdict == "higher"
    assert diff.change([100.0] * 7, [106.5] * 7, "cpu").verdict == "tie"
    noisy = diff.change([10.0, 20.0, 5.0], [30.0, 31.0, 29.0], "gpu")
    assert noisy.verdict == "too_wide"
    zero = diff.change([0.0, 0.0], [1.0, 1.0], "gpu")
    assert zero.change is None and zero.verdict == "higher"
    assert diff.change([], [], "gpu") is None
    assert diff.change([], [1.0], "cpu") == diff.Change("cpu", None, Figure(1.0, 1.0, 1.0, 1), None, None)


def test_the_json_is_the_same_for_the_same_traces_and_says_its_rules():
    a, b = H200 / "hf_sdpa_train.json.gz", H200 / "hf_eager_train.json.gz"
    one, two = compared(a, b).to_dict(), compared(a, b).to_dict()
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert one["schema"] == "attnprof.diff" and one["version"] == diff.VERSION
    assert one["rules"]["gpu"] == {"floor": noise.GPU_FLOOR, "min_effect": noise.GPU_MIN_EFFECT}
    assert one["summary"]["matches"] == {"same": 0, "replaced": 2, "vanished": 0, "appeared": 0}
    assert one["summary"]["backends"] == [
        {"kind": "sdpa", "direction": "fwd", "before": ["cudnn"], "after": ["unfused"]},
        {"kind": "sdpa", "direction": "bwd", "before": ["cudnn"], "after": ["unfused"]},
    ]
    call = one["calls"][0]
    assert call["before"]["backend"] == "cudnn" and call["after"]["kind"] == "handwritten"
    assert call["before"]["inputs"]["gqa"] is True and not call["after"]["inputs"]["gqa"]
    assert [p["names"] for p in one["steps"]["pairs"]] == [["ProfilerStep#2"] * 2, ["ProfilerStep#3"] * 2]


def test_the_signature_ignores_a_decode_calls_cache_length():
    shapes = {"query": [1, 4, 1, 64], "key": [1, 2, 9, 64], "value": [1, 2, 9, 64], "dtype": "bf16"}
    c = {"kind": "sdpa", "direction": "fwd", "compiled": False, "phase": "decode", "inputs": shapes}
    longer = dict(c, inputs=dict(c["inputs"], key=[1, 2, 10, 64], value=[1, 2, 10, 64]))
    assert diff.signature(c) == diff.signature(longer)
    assert diff.signature(dict(c, phase=None)) != diff.signature(dict(longer, phase=None))
