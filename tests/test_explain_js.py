"""The drop-in page's reader (``_assets/attnprof-explain.js``) run by Node.js on the fixtures of code nobody here
wrote (H200 and CPU recordings): it gives the reading ``attnprof explain --json`` gives
(:mod:`attnprof.analysis.explainjson`), field by field, for everything the page shows; kernels decoded through the
exported rule table, as the page does. Bad files are refused with the code of one line each."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from attnprof.analysis import attention, explain
from attnprof.records import files, foreign
from attnprof.render import dropin
from helpers import DATA

H200 = DATA / "foreign" / "h200"
#: The H200 recordings of code nobody here wrote, and the same code recorded on the CPU (no GPU work: the notes).
FIXTURES = sorted(
    f"{p.parent.name}/{p.name.removesuffix('.json.gz')}"
    for p in (DATA / "foreign").glob("*/*.json.gz")
    if not p.name.startswith("advice__")  # what explain --measure measured of a trace there: a record, no trace
)

#: Loads the rule table and the decoder as a page does, then the reader as a node module; reads the trace at
#: argv[1] (gunzipped when it is gzip) and prints the reading, or {"error": code, "fields": ...}.
DRIVER = r"""
const fs = require("fs"), vm = require("vm"), zlib = require("zlib");
const page = { window: {} };
vm.runInNewContext(fs.readFileSync(process.env.RULES, "utf8"), page);
vm.runInNewContext(fs.readFileSync(process.env.ENGINE, "utf8"), page);
const reader = require(process.env.READER);
let bytes = fs.readFileSync(process.argv[1]);
if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
let out;
try {
  let doc;
  try { doc = JSON.parse(bytes.toString("utf8")); } catch (e) { throw new reader.Unreadable("not_json", {}); }
  out = reader.explain(doc, require("path").basename(process.argv[1]), page.window.attnprofKernels.decode);
} catch (e) {
  if (!(e instanceof reader.Unreadable)) throw e;
  out = { error: e.code, fields: e.fields };
}
process.stdout.write(JSON.stringify(out));
"""
STEP_FIELDS = ("index", "name", "wall_us", "span_us", "gpu_busy_us", "gpu_time_us", "gpu_busy_share", "idle_us",
               "gaps", "largest_gap_us", "waiting_us", "launch_bound", "attention_gpu_us", "attention_share",
               "calls", "activities", "generation")  # fmt: skip
CALL_FIELDS = ("index", "step", "kind", "backend", "direction", "compiled", "op", "evidence", "thread", "start_us",
               "cpu_us", "gpu_us", "inputs", "flags", "forward", "module", "phase", "projection_us")  # fmt: skip
GROUP_FIELDS = ("kind", "backend", "direction", "compiled", "op", "inputs", "calls", "per_step", "cpu_us", "gpu_us",
                "flags", "first", "module", "phase", "projection_us", "kv")  # fmt: skip


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail("these tests run the drop-in page's reader with Node.js (18 or later): apt-get install nodejs")
    return path


@pytest.fixture(scope="module")
def static(tmp_path_factory) -> list[Path]:
    """The rule table, the decoder and the reader, as the site serves them (:func:`.dropin.write_static`)."""
    return dropin.write_static(tmp_path_factory.mktemp("static"))


def run_reader(node: str, static: list[Path], path: Path) -> dict:
    run = subprocess.run(
        [node, "-e", DRIVER, str(path)], capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": "/usr/bin:/bin", "RULES": str(static[0]), "ENGINE": str(static[1]), "READER": str(static[2])},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def python_reading(path: Path) -> dict:
    return explain.explain(foreign.load(path, inputs_of=attention.wants_inputs)).to_dict()


def kernel_names(py: dict, pairs: list) -> dict[str, float]:
    """``[[kernel id, n], ...]`` of the Python reading as ``{name: n}`` (the page names kernels, it has no ids)."""
    out: dict[str, float] = {}
    for kid, n in pairs:
        name = py["kernels"][kid]["name"]
        out[name] = out.get(name, 0) + n
    return out


@pytest.mark.parametrize("fixture", FIXTURES)
def test_the_page_reads_each_h200_fixture_as_explain_does(node, static, fixture):
    path = DATA / "foreign" / f"{fixture}.json.gz"
    py, js = python_reading(path), run_reader(node, static, path)
    assert "error" not in js, js
    assert js["trace"] == py["trace"]
    assert js["notes"] == py["notes"]
    assert js["summary"] == py["summary"]
    assert js["flags"] == py["flags"]
    assert [{f: s[f] for f in STEP_FIELDS} for s in js["steps"]] == [{f: s[f] for f in STEP_FIELDS}
                                                                    for s in py["steps"]]  # fmt: skip
    assert len(js["calls"]) == len(py["calls"]) > 0
    for j, p in zip(js["calls"], py["calls"], strict=True):
        assert {f: j[f] for f in CALL_FIELDS} == {f: p[f] for f in CALL_FIELDS}, p["index"]
        assert dict(j["kernels"]) == kernel_names(py, p["kernels"]), p["index"]
    assert len(js["groups"]) == len(py["groups"])
    for j, p in zip(js["groups"], py["groups"], strict=True):
        assert {f: j[f] for f in GROUP_FIELDS} == {f: p[f] for f in GROUP_FIELDS}
        per_call = {py["kernels"][k["id"]]["name"]: 0.0 for k in p["kernels"]}
        for k in p["kernels"]:
            per_call[py["kernels"][k["id"]]["name"]] += k["per_call"]
        assert {n: round(v, 4) for n, v in j["kernels"]} == {n: round(v, 4) for n, v in per_call.items()}


def test_the_transformers_training_trace_reads_as_the_model_ran(node, static):
    """What the fixture is known to hold (2 layers, 2 steps, cuDNN forward and backward), read by the page alone."""
    js = run_reader(node, static, H200 / "hf_sdpa_train.json.gz")
    assert js["summary"]["steps"] == 2 and js["summary"]["calls"] == {"fwd": 2, "bwd": 2}
    assert {(c["backend"], c["direction"]) for c in js["calls"]} == {("cudnn", "fwd"), ("cudnn", "bwd")}
    assert all(c["inputs"]["dtype"] == "bf16" for c in js["calls"])
    assert any("sdpa" in k.lower() and "flash" in k.lower() for c in js["calls"] for k, _ in c["kernels"])


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"this is not json", "not_json"),
        (b'{"traceEvents": [{"ph": "X", "cat": "v8", "name": "Parse", "ts": 1, "dur": 2}]}', "not_pytorch"),
        (b'{"displayTimeUnit": "ms"}', "no_events_list"),
        (b"[1, 2]", "not_object"),
        (b"42", "not_trace"),
        (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": "soon"}]}', "not_number"),
        (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1e400}]}', "bad_time"),
        (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 5, "dur": -5}]}', "bad_time"),
        (b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e300}]}', "bad_time"),
        (
            b'{"traceEvents": ['
            + b'{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 5e12},' * 3
            + b'{"ph": "X", "cat": "cpu_op", "name": "b", "ts": 9e16}]}',
            "far_time",
        ),
        (
            b'{"traceEvents": ['
            + b'{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 5, "args": {"External id": 7}},' * 2
            + b'{"ph": "M"}]}',
            "twice",
        ),
    ],
)
def test_a_bad_file_is_one_code(node, static, tmp_path, content, code):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert run_reader(node, static, path)["error"] == code
    if code in ("bad_time", "far_time", "twice"):  # attnprof explain refuses the same file, naming the same event
        with pytest.raises(files.UnreadableFile, match=r"event \d+ \("):
            foreign.load(path)


def test_a_trace_of_two_gpus_is_refused(node, static, tmp_path):
    kernel = {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0, "correlation": 1}}
    doc = {"traceEvents": [kernel, {**kernel, "args": {"device": 1, "correlation": 2}}]}
    path = tmp_path / "two.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert run_reader(node, static, path) == {"error": "gpus", "fields": {"n": 2}}


#: Reads the file at argv[1] as the page does (a Blob through explainFile: gzip through DecompressionStream), with at
#: most MAX bytes of JSON; prints the number of calls, or the error's code.
FILE_DRIVER = r"""
const fs = require("fs"), vm = require("vm");
const page = { window: {} };
vm.runInNewContext(fs.readFileSync(process.env.RULES, "utf8"), page);
vm.runInNewContext(fs.readFileSync(process.env.ENGINE, "utf8"), page);
const reader = require(process.env.READER);
const file = new File([fs.readFileSync(process.argv[1])], require("path").basename(process.argv[1]));
reader.explainFile(file, page.window.attnprofKernels.decode, Number(process.env.MAX)).then(
  (x) => process.stdout.write(JSON.stringify({ calls: x.calls.length })),
  (e) => process.stdout.write(JSON.stringify({ error: e.code || String(e) })),
);
"""


def read_file(node: str, static: list[Path], path: Path, max_bytes: int) -> dict:
    env = {"PATH": "/usr/bin:/bin", "RULES": str(static[0]), "ENGINE": str(static[1]), "READER": str(static[2]),
           "MAX": str(max_bytes)}  # fmt: skip
    run = subprocess.run([node, "-e", FILE_DRIVER, str(path)], capture_output=True, text=True, timeout=300,
                         check=False, env=env)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_the_page_reads_gzip_and_refuses_what_is_too_large_or_cut(node, static, tmp_path):
    trace = DATA / "foreign" / "h200" / "hf_sdpa_train.json.gz"
    size = len(gzip.decompress(trace.read_bytes()))
    assert read_file(node, static, trace, size) == {"calls": 8}  # exactly the limit: read
    assert read_file(node, static, trace, size - 1) == {"error": "too_large"}  # stopped while inflating
    bomb = tmp_path / "bomb.json.gz"  # 64 MB of zeros in 64 kB: refused after the first megabytes
    bomb.write_bytes(gzip.compress(b"0" * (64 << 20)))
    assert read_file(node, static, bomb, 4 << 20) == {"error": "too_large"}
    plain = tmp_path / "plain.json"
    plain.write_bytes(gzip.decompress(trace.read_bytes()))
    assert read_file(node, static, plain, size) == {"calls": 8}
    assert read_file(node, static, plain, size - 1) == {"error": "too_large"}
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(trace.read_bytes()[:20000])
    assert read_file(node, static, cut, size) == {"error": "bad_gzip"}
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"traceEvents": [{"name": "\xe9"}]}')
    assert read_file(node, static, latin, size) == {"error": "not_text"}
