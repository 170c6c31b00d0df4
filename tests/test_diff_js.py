"""The drop-in page's comparison (``_assets/attnprof-diff.js``) run by Node.js over the page's own readings of the
fixtures of code nobody here wrote: it gives the JSON ``attnprof diff --json`` gives (:mod:`attnprof.analysis.diff`),
field for field, for pairs of H200 and CPU recordings; and its noise rule is Python's."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from attnprof import noise
from attnprof.analysis import diff
from attnprof.render import dropin
from helpers import FOREIGN, explained

H200, CPU = FOREIGN / "h200", FOREIGN / "cpu"
#: Pairs that cover every match and note: the sdpa/eager pair both ways, other code, a trace against itself, the CPU
#: recordings, a CPU recording against an H200 one, compiled against Flex.
PAIRS = [
    (H200 / "hf_sdpa_train.json.gz", H200 / "hf_eager_train.json.gz"),
    (H200 / "hf_eager_train.json.gz", H200 / "hf_sdpa_train.json.gz"),
    (H200 / "hf_sdpa_train.json.gz", H200 / "mha_train.json.gz"),
    (H200 / "hf_generate.json.gz", H200 / "hf_generate.json.gz"),
    (H200 / "encoder_infer.json.gz", H200 / "mha_train.json.gz"),
    (H200 / "compiled_train.json.gz", H200 / "flex.json.gz"),
    (CPU / "hf_sdpa_train.json.gz", CPU / "hf_eager_train.json.gz"),
    (CPU / "hf_generate.json.gz", H200 / "hf_generate.json.gz"),
]

#: Loads the rule table, the decoder, the reader and the comparison as a page does; reads each pair of traces of
#: argv (gunzipped when gzip) and prints the list of their comparisons.
DRIVER = r"""
const fs = require("fs"), vm = require("vm"), zlib = require("zlib"), path = require("path");
const page = { window: {} };
vm.runInNewContext(fs.readFileSync(process.env.RULES, "utf8"), page);
vm.runInNewContext(fs.readFileSync(process.env.ENGINE, "utf8"), page);
const reader = require(process.env.READER);
const differ = require(process.env.DIFF);
const readOne = (file) => {
  let bytes = fs.readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  return reader.explain(JSON.parse(bytes.toString("utf8")), path.basename(file), page.window.attnprofKernels.decode);
};
const out = [];
for (let k = 1; k < process.argv.length; k += 2) {
  out.push(differ.diff(readOne(process.argv[k]), readOne(process.argv[k + 1])));
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "these tests run the drop-in page's comparison with Node.js (18 or later): apt-get install nodejs"
        )
    return path


@pytest.fixture(scope="module")
def static(tmp_path_factory) -> dict[str, Path]:
    paths = dropin.write_static(tmp_path_factory.mktemp("static"))
    return {p.name: p for p in paths}


def node_run(node: str, static: dict[str, Path], code: str, *argv: str) -> object:
    env = {"PATH": "/usr/bin:/bin", "RULES": str(static["attnprof-kernel-rules.js"]),
           "ENGINE": str(static["attnprof-kernels.js"]), "READER": str(static[dropin.READER]),
           "DIFF": str(static[dropin.DIFF])}  # fmt: skip
    run = subprocess.run([node, "-e", code, *argv], capture_output=True, text=True, timeout=300, check=False, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def page_diffs(node, static) -> list[dict]:
    return node_run(node, static, DRIVER, *(str(p) for pair in PAIRS for p in pair))


@pytest.mark.parametrize("k", range(len(PAIRS)), ids=[f"{a.parent.name}/{a.name}-{b.parent.name}/{b.name}"
                                                    for a, b in PAIRS])  # fmt: skip
def test_the_page_compares_two_traces_as_attnprof_diff_does(page_diffs, k):
    a, b = PAIRS[k]
    py = json.loads(json.dumps(diff.diff(diff.side(explained(a)), diff.side(explained(b))).to_dict()))
    js = page_diffs[k]
    assert js["calls"], "each pair has attention calls to compare"
    for key in py:
        assert js[key] == py[key], key
    assert set(js) == set(py)


def test_the_pairs_cover_every_match_and_note(page_diffs):
    matches = {r["match"] for d in page_diffs for r in d["calls"]}
    notes = {n["code"] for d in page_diffs for n in d["notes"]}
    assert matches == {"same", "replaced", "vanished", "appeared"}
    assert {"devices", "cpu_only", "one_gpu"} <= notes
    verdicts = {c["verdict"] for d in page_diffs for r in d["calls"] for c in (r["gpu_us"], r["cpu_us"]) if c}
    assert {"higher", "lower", "tie"} <= verdicts


NOISE = r"""
const differ = require(process.env.DIFF);
const cases = JSON.parse(process.argv[1]);
process.stdout.write(JSON.stringify({
  j: cases.n.map((n) => differ.orderStatistic(n)),
  intervals: cases.samples.map((xs) => differ.medianInterval(xs)),
}));
"""


def test_the_pages_noise_rule_is_pythons(node, static):
    rng = random.Random(3)
    ns = [*range(1, 80), 100, 333, 1000, 1024, 1025, 1100, 2047, 5000, 12345]
    samples = [[rng.lognormvariate(0, 0.4) for _ in range(n)] for n in (1, 2, 5, 6, 17, 101, 1500)]
    got = node_run(node, static, NOISE, json.dumps({"n": ns, "samples": samples}))
    assert got["j"] == [noise.order_statistic(n) for n in ns]
    assert got["intervals"] == [noise.median_interval(xs).to_dict() for xs in samples]
