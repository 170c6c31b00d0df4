"""attnprof.records.kinds: the register of record kinds. Every kind a build writes is declared once, by its record's
module; names, finding (CUDA before the CPU), bundle membership and the version gate derive from the declaration."""

from __future__ import annotations

import json

import pytest

from attnprof.records import buildtimes, bundle, files, kinds, masks, results, sweep, trainscale

EVERY = kinds.every()


def test_the_register_holds_every_kind_a_build_writes_each_declared_once_by_its_records_module():
    whats, stems = [k.what for k in EVERY], [k.stem for k in EVERY]
    assert len(set(whats)) == len(whats) and len(set(stems)) == len(stems)
    assert set(stems) == {"result", "cpu_costs", "fixed_costs", "sweep", "parallel", "eligibility", "trainscale",
                          "masks", "forcing", "attnprof-times", "advice"}  # fmt: skip
    for kind in EVERY:  # the module of the record declares it (results also declares the CPU costs)
        module = __import__(kind.record.__module__, fromlist=["_"])
        assert kind in (getattr(module, "KIND", None), getattr(module, "CPU_COSTS", None)), kind.what
        assert kinds.named(kind.what) is kind
    with pytest.raises(KeyError, match="no kind of file called 'sweeps'; the register has: "):
        kinds.named("sweeps")


def test_names_derive_from_the_stem_and_the_devices():
    assert sweep.KIND.filenames() == ["sweep__cuda.json", "sweep__cpu.json"]
    assert sweep.filename("cpu") == "sweep__cpu.json" and trainscale.filename("cuda") == "trainscale__cuda.json"
    assert buildtimes.FILENAME == "attnprof-times.json" and buildtimes.KIND.filenames() == [buildtimes.FILENAME]
    assert results.KIND.holds("naive__prefill__1x4x256x64__bfloat16__cpu.json")
    assert not results.KIND.holds("naive__prefill__1x4x256x64__bfloat16__cpu.trace.json.gz")
    assert kinds.kind_of("masks__cuda.json") is masks.KIND and kinds.kind_of("naive_trace.json") is None
    assert kinds.kind_of("sweep__cuda.json") is sweep.KIND and kinds.kind_of("sweep.json") is None


def test_find_prefers_the_first_device_and_order_puts_cuda_first(tmp_path):
    assert masks.KIND.find(tmp_path) is None
    (tmp_path / "masks__cpu.json").write_text("{}")
    assert masks.KIND.find(tmp_path) == tmp_path / "masks__cpu.json"
    (tmp_path / "masks__cuda.json").write_text("{}")
    (tmp_path / "masks__cuda.json.bak").write_text("{}")
    assert masks.KIND.find(tmp_path) == tmp_path / "masks__cuda.json"
    names = ["b__prefill__1__x__cpu.json", "a__prefill__1__x__cpu.json", "z__prefill__1__x__cuda.json"]
    for n in names:
        (tmp_path / n).write_text("{}")
    assert [p.name for p in results.KIND.paths(tmp_path)] == [names[2], names[1], names[0]]


def test_bundle_membership_comes_from_the_declarations():
    assert kinds.bundle_kind("naive__prefill__1x4x256x64__bfloat16__cpu.json") == "result"
    assert kinds.bundle_kind("sweep__cuda.json") == "sweep" and kinds.bundle_kind("parallel__cpu.json") == "parallel"
    for other in ("cpu_costs__cuda.json", "fixed_costs__cpu.json", "eligibility__cuda.json", "masks__cpu.json",
                  "trainscale__cuda.json", "forcing__cuda.json"):  # fmt: skip
        assert kinds.bundle_kind(other) == "other", other
    assert kinds.bundle_kind("x.trace.json.gz") == "trace"
    assert kinds.bundle_kind(buildtimes.FILENAME) is None and kinds.bundle_kind("naive_trace.json") is None
    assert bundle.kind_of(bundle.MANIFEST) is None
    assert {k.bundle for k in EVERY} - {None} <= set(bundle.KINDS)


def test_an_unknown_bundle_kind_is_refused_at_declaration():
    with pytest.raises(ValueError, match="unknown bundle kind 'others'; choose one of: result, trace"):
        kinds.Kind("x", "x file", dict, bundle="others")


def test_the_version_gate_comes_before_the_field_check(tmp_path):
    path = tmp_path / "masks__cpu.json"
    path.write_text(json.dumps({"version": 0, "device": 7}))  # another version: said as such, not as a bad field
    with pytest.raises(files.StaleResultError, match=r"^masks__cpu\.json: mask run schema version 0 is not the"):
        masks.load(path)
    path.write_text(json.dumps({"kind": "sweeps", "schema_version": sweep.SCHEMA_VERSION}))
    with pytest.raises(files.StaleResultError, match=r"is not the supported version 2 \(or not a sweep file\)$"):
        sweep.load(path)
    path.write_text("[1, 2]")
    with pytest.raises(files.UnreadableFile, match=r"^masks__cpu\.json: mask run schema version None"):
        masks.load(path)
