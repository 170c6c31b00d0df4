"""Results bundles (attnprof.records.bundle): written deterministically with their provenance, read back with every
check, and each way a bundle can be bad refused in one line naming the bundle."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from attnprof.records import bundle, files, parallel, results
from attnprof.records.files import UnreadableFile
from helpers import TRACE_VARIANTS, h200_bundle, trace_result

ROOT = Path(__file__).parent.parent
COMMITTED = ROOT / "docs" / "bundles" / "h200x2-cp.tar.gz"


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return gzip.compress(raw.getvalue(), mtime=0)


def _manifest(contents: dict[str, bytes], version: int = bundle.BUNDLE_VERSION) -> bytes:
    prov = bundle.Provenance(gpu_model="NVIDIA H200", gpu_count=1, torch="2.11", measured="2026-12-01",
                             created="2026-12-02")  # fmt: skip
    members = [
        bundle.Member(n, bundle.kind_of(n), len(d), hashlib.sha256(d).hexdigest()) for n, d in contents.items()
    ]
    m = bundle.Manifest(prov, members)
    m.bundle_version = version
    return json.dumps(m.to_dict()).encode()


def _bundle(tmp_path: Path, members: list[tuple[str, bytes]], manifest: bytes | None = None) -> Path:
    contents = dict(members)
    entries = [(tarfile.TarInfo(bundle.MANIFEST), manifest if manifest is not None else _manifest(contents))]
    entries += [(tarfile.TarInfo(n), d) for n, d in members]
    path = tmp_path / "b.tar.gz"
    path.write_bytes(_tar(entries))
    return path


def test_a_bundle_of_a_results_folder_reads_back_with_its_provenance_and_every_file(tmp_path):
    folder = tmp_path / "results"
    for v in TRACE_VARIANTS[:3]:
        result, raw = trace_result(v)
        results.save(result, folder, raw)
    (folder / "notes.txt").write_text("not bundled")
    (folder / "naive_trace.json").write_text("{}")  # a script's scratch export: not bundled either
    paths = bundle.collect([folder])
    assert {bundle.kind_of(p.name) for p in paths} == {"result", "trace"} and len(paths) == 6
    assert [bundle.kind_of(n) for n in ("cpu_costs__cuda.json", "eligibility__cpu.json", "sweep__cuda.json")] == [
        "other", "other", "sweep"]  # fmt: skip
    prov = bundle.provenance_of(paths, "2026-12-02T00:00:00+00:00", attnprof_commit="abc", label=None)
    assert (prov.gpu_model, prov.gpu_count, prov.cudnn, prov.attnprof_commit) == ("NVIDIA H200", 1, "91900", "abc")
    out = tmp_path / "h200.tar.gz"
    manifest = bundle.create(paths, out, prov)
    first = out.read_bytes()
    bundle.create(paths, out, prov)
    assert out.read_bytes() == first  # deterministic
    b = bundle.read(out)
    assert b.provenance == prov and b.manifest.members == manifest.members
    assert sorted(r.variant for r in b.results()) == sorted(TRACE_VARIANTS[:3])
    assert bundle.collect([folder], traces=False) == [p for p in paths if p.suffix == ".json"]


def test_the_committed_recorded_run_is_a_bundle_of_the_2xh200_run():
    b = bundle.read(COMMITTED)
    run = b.parallel_run()
    recorded = parallel.ParallelRun.from_dict(files.read_json(ROOT / "tests/data/workloads/cp/runner-h200x2.json.gz"))
    assert run == recorded and run.ok
    assert (b.provenance.machine, b.provenance.day, b.provenance.driver) == ("2× NVIDIA H200", "2026-12-01",
                                                                              "580.159.04")  # fmt: skip
    assert COMMITTED.stat().st_size < 64 * 1024


def test_the_h200_test_bundle_carries_every_workload(tmp_path):
    b = bundle.read(h200_bundle(tmp_path / "h200.tar.gz"))
    assert {r.workload for r in b.results()} == {"prefill", "train", "decode"}
    assert b.sweep() is not None and b.parallel_run() is None


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.write_bytes(b"not gzip at all"), "not a valid gzip file"),
        (lambda p: p.write_bytes(gzip.compress(b"x" * 100)[:20]), "truncated gzip"),
        (lambda p: p.write_bytes(gzip.compress(b"plain text, not a tar archive " * 40)), "not a tar archive"),
        (lambda p: p.write_bytes(_tar([(tarfile.TarInfo("x.json"), b"{}")])), "has no manifest.json"),
    ],
)
def test_a_damaged_bundle_is_one_line(tmp_path, make, expected):
    path = tmp_path / "bad.tar.gz"
    make(path)
    with pytest.raises(UnreadableFile) as info:
        bundle.read(path)
    assert expected in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_member_names_that_are_paths_links_or_duplicates_are_refused(tmp_path):
    for name in ("../evil.json", "/etc/passwd.json", "sub/dir.json", ".hidden.json"):
        path = _bundle(tmp_path, [(name, b"{}")])
        with pytest.raises(UnreadableFile, match="is refused; expected a flat file name"):
            bundle.read(path)
    link = tarfile.TarInfo("link.json")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    path = tmp_path / "link.tar.gz"
    path.write_bytes(_tar([(tarfile.TarInfo(bundle.MANIFEST), _manifest({})), (link, b"")]))
    with pytest.raises(UnreadableFile, match="not a plain file"):
        bundle.read(path)
    twice = [(tarfile.TarInfo(bundle.MANIFEST), _manifest({"a.json": b"{}"}))] + [
        (tarfile.TarInfo("a.json"), b"{}")
    ] * 2
    path.write_bytes(_tar(twice))
    with pytest.raises(UnreadableFile, match="appears twice"):
        bundle.read(path)


def test_limits_on_members_and_sizes(tmp_path, monkeypatch):
    path = _bundle(tmp_path, [("a.json", b"{}"), ("b.json", b"[]")])
    monkeypatch.setattr(bundle, "MAX_MEMBERS", 2)
    with pytest.raises(UnreadableFile, match="more than 2 members"):
        bundle.read(path)
    monkeypatch.setattr(bundle, "MAX_MEMBERS", 100)
    monkeypatch.setattr(bundle, "MAX_MEMBER_BYTES", 1)
    with pytest.raises(UnreadableFile, match="more than 1"):
        bundle.read(path)
    monkeypatch.setattr(bundle, "MAX_BUNDLE_BYTES", 10)
    with pytest.raises(UnreadableFile, match="more than the 10 bytes"):
        bundle.read(path)


def test_the_manifest_is_checked_against_the_members(tmp_path):
    good = {"a.json": b"{}"}
    cases = {
        "newer than the version 1 this attnprof reads": _manifest(good, version=bundle.BUNDLE_VERSION + 1),
        "is not an attnprof-bundle manifest": b'{"format": "zip"}',
        "manifest.json is not valid JSON": b"{",
        "is listed in manifest.json but missing": _manifest({**good, "b.json": b"{}"}),
        "does not match its size or SHA-256": _manifest({"a.json": b"[]"}),
    }
    for expected, manifest in cases.items():
        with pytest.raises(UnreadableFile, match=re.escape(expected)):
            bundle.read(_bundle(tmp_path, list(good.items()), manifest))
    with pytest.raises(UnreadableFile, match=re.escape("is not listed in manifest.json")):
        bundle.read(_bundle(tmp_path, [*good.items(), ("c.json", b"{}")], _manifest(good)))


def test_a_member_of_the_wrong_schema_is_named(tmp_path):
    name = "naive__prefill__8x16x1024x64__bfloat16__cuda.json"
    b = bundle.read(_bundle(tmp_path, [(name, b'{"schema_version": 99}')]))
    with pytest.raises(UnreadableFile, match=f"member {name}: result schema version 99"):
        b.results()


def test_collect_refuses_what_a_bundle_does_not_take(tmp_path):
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(UnreadableFile, match="not a file a bundle takes"):
        bundle.collect([tmp_path / "x.txt"])
    with pytest.raises(FileNotFoundError, match="is not there"):
        bundle.collect([tmp_path / "nothing"])
    with pytest.raises(UnreadableFile, match="no result or context-parallel run file"):
        bundle.provenance_of([], "2026-12-02")
