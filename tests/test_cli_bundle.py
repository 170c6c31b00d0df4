"""``attnprof bundle create|show``: a results folder packed with its provenance and read back; bad input, one line
and exit status 2."""

from __future__ import annotations

import io
from pathlib import Path

from attnprof.cli import main
from attnprof.records import bundle, results
from helpers import trace_result


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_create_then_show(tmp_path: Path):
    folder = tmp_path / "results"
    result, raw = trace_result("sdpa_flash")
    results.save(result, folder, raw)
    target = tmp_path / "h200.tar.gz"
    code, out, err = _run("bundle", "create", "--from", str(folder), "--out", str(target), "--commit", "c0ffee",
                          "--label", "lab H200")  # fmt: skip
    assert (code, err) == (0, "") and "2 files" in out and "lab H200 (2026-11-30)" in out
    b = bundle.read(target)
    assert (b.provenance.attnprof_commit, b.provenance.machine, b.provenance.gpu_count) == ("c0ffee", "lab H200", 1)
    code, out, err = _run("bundle", "show", str(target))
    assert code == 0 and "NVIDIA H200" in out and "c0ffee" in out and "result    1:" in out and "trace     1:" in out
    code, out, _ = _run("bundle", "create", "--from", str(folder), "--out", str(tmp_path / "n.tar.gz"), "--no-traces",
                        "--gpus", "8")  # fmt: skip
    assert (
        code == 0 and "1 files" in out and bundle.read(tmp_path / "n.tar.gz").provenance.machine == "8× NVIDIA H200"
    )


def test_bad_input_is_one_line_and_status_2(tmp_path: Path):
    (tmp_path / "junk.tar.gz").write_bytes(b"junk")
    for argv, expected in [
        (("bundle", "pack"), "unknown bundle action 'pack'; choose one of: create, show"),
        (("bundle", "create", "--out", str(tmp_path / "x.tar.gz")), "needs --from"),
        (("bundle", "create", "--from", str(tmp_path), "--out", str(tmp_path / "x.zip")), "ending in .tar.gz"),
        (("bundle", "create", "--from", str(tmp_path / "none"), "--out", str(tmp_path / "x.tar.gz")), "is not there"),
        (("bundle", "create", "--from", str(tmp_path), "--out", str(tmp_path / "x.tar.gz")), "no result or"),
        (("bundle", "create", "--from", str(tmp_path), "--out", "/proc/x.tar.gz"), "cannot create bundle"),
        (("bundle", "show"), "bundle show needs the bundle"),
        (("bundle", "show", str(tmp_path / "junk.tar.gz")), "not a valid gzip file"),
    ]:
        code, out, err = _run(*argv)
        assert code == 2 and out == "" and expected in err and err.count("\n") == 1, (argv, err)


def test_show_reads_every_member_by_its_kind(tmp_path: Path):
    from attnprof.records import bundle as records_bundle

    prov = records_bundle.Provenance(gpu_model="GPU X", gpu_count=1, torch="2.11", measured="2026-12-01",
                                     created="2026-12-02")  # fmt: skip
    data, _ = records_bundle.pack(
        {"naive__prefill__8x16x1024x64__bfloat16__cuda.json": b'{"schema_version": 1}'}, prov
    )
    (tmp_path / "old.tar.gz").write_bytes(data)
    code, out, err = _run("bundle", "show", str(tmp_path / "old.tar.gz"))
    assert code == 2 and out == "" and "result schema version 1 is not the supported version" in err
