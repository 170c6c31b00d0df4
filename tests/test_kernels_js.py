"""The browser's kernel-name decoder (``_assets/attnprof-kernels.js``) run by Node.js on the exported rule table
(:func:`attnprof.analysis.kernels.export_rules`, written by :mod:`attnprof.render.decoder`): it decodes every name
the tests know exactly as Python does, every exported pattern compiles and means the same in JavaScript, and each
step and pipe of the engine gives the same in both languages."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attnprof.analysis import kernels
from attnprof.analysis.kernels import engine, export
from attnprof.analysis.kernels.engine import Classify, Find, Rule, Search, Show, Spread, When
from attnprof.render import decoder, viewer
from helpers import KERNEL_GOLDEN

ENGINE_SOURCE = viewer.ASSETS_DIR / "attnprof-kernels.js"

#: Loads the data file and an engine the way a page does (plain scripts sharing ``window``), or, with ``DATA`` set,
#: the engine as a node module given that data; decodes the JSON list of names on stdin.
DRIVER = r"""
const fs = require("fs"), vm = require("vm");
const names = JSON.parse(fs.readFileSync(0, "utf8"));
let decode;
if (process.env.DATA) {
  const data = JSON.parse(fs.readFileSync(process.env.DATA, "utf8"));
  decode = require(process.env.ENGINE).makeDecoder(data).decode;
} else {
  const page = { window: {} };
  vm.runInNewContext(fs.readFileSync(process.env.RULES, "utf8"), page);
  vm.runInNewContext(fs.readFileSync(process.env.ENGINE, "utf8"), page);
  decode = page.window.attnprofKernels.decode;
}
const out = names.map((n) => { try { return decode(n); } catch (e) { return { error: String(e) }; } });
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail("these tests run the browser's decoder with Node.js (18 or later): apt-get install nodejs")
    return path


def run_js(node: str, script: str, stdin: object, **env: str) -> object:
    run = subprocess.run(
        [node, "-e", script], input=json.dumps(stdin), capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def golden_names() -> list[str]:
    with gzip.open(KERNEL_GOLDEN, "rt", encoding="utf-8") as f:
        return [r["name"] for r in json.load(f)["names"]]


def python_decoded(name: str, decode=kernels.decode) -> dict:
    info = decode(name)
    label = info.label
    return {
        "name": name,
        "family": info.family,
        "short": info.short,
        "fields": info.fields,
        "label": {"form": label.form, "values": label.values, "words": {k: list(v) for k, v in label.words.items()},
                  "items": list(label.items)},
        "text": {"en": info.text("en"), "ja": info.text("ja")},
    }  # fmt: skip


@pytest.fixture(scope="module")
def static(tmp_path_factory) -> list[Path]:
    return decoder.write_static(tmp_path_factory.mktemp("static"))


# --- the page's decoder on every name ---------------------------------------------------------------------------


def test_the_served_decoder_in_a_page_gives_what_python_gives(node, static):
    names = golden_names()
    rules, engine_file = static
    got = run_js(node, DRIVER, names, RULES=str(rules), ENGINE=str(engine_file))
    assert len(got) == len(names) > 150
    wrong = [(n, g, python_decoded(n)) for n, g in zip(names, got, strict=True) if g != python_decoded(n)]
    assert wrong == []


def test_the_engine_as_a_node_module_gives_what_python_gives(node, tmp_path):
    names = golden_names()
    data = tmp_path / "rules.json"
    data.write_text(json.dumps(kernels.export_rules()))
    got = run_js(node, DRIVER, names, DATA=str(data), ENGINE=str(ENGINE_SOURCE))
    assert got == [python_decoded(n) for n in names]


def test_the_data_file_sets_the_exported_table(static):
    text = static[0].read_text(encoding="ascii")
    prefix = f"window.{decoder.DATA_GLOBAL} = "
    assert text.startswith(prefix) and text.endswith(";\n") and text.count("\n") == 1
    assert json.loads(text[len(prefix) : -2]) == json.loads(json.dumps(kernels.export_rules()))
    assert static[1].read_text(encoding="utf-8") == viewer.served("attnprof-kernels.js")


def test_write_static_writes_only_what_changed(tmp_path):
    paths = decoder.write_static(tmp_path / "_static")
    assert [p.name for p in paths] == list(decoder.STATIC_FILES)
    stamps = [p.stat().st_mtime_ns for p in paths]
    paths[0].write_text("stale")
    decoder.write_static(tmp_path / "_static")
    assert paths[0].read_text() != "stale" and paths[1].stat().st_mtime_ns == stamps[1]


def test_the_assets_stay_small(static):
    sizes = {p.name: len(gzip.compress(p.read_bytes(), 9)) for p in static}
    print(sizes)  # reported: bytes gzipped
    assert sizes["attnprof-kernel-rules.js"] < 12_000 and sizes["attnprof-kernels.js"] < 6_000


def test_the_engine_is_plain_es2019():
    source = ENGINE_SOURCE.read_text(encoding="utf-8")
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    for later in (
        r"\?\.",
        r"\?\?",
        r"\bmatchAll\b",
        r"\breplaceAll\b",
        r"\bglobalThis\b",
        r"\b\d+n\b",
        r"\bimport\b",
    ):
        assert not re.search(later, code), later
    assert "module.exports" in code and "window" in code


# --- patterns: JavaScript reads them as Python does -------------------------------------------------------------


def _all_patterns(steps) -> list[re.Pattern[str]]:
    out = []
    for s in steps:
        if isinstance(s, Search):
            out += s.patterns
        elif isinstance(s, Find):
            out.append(s.pattern)
        elif isinstance(s, Classify):
            out += [p for _, p in s.tokens]
        elif isinstance(s, When):
            out += [c for _, c in s.conditions if not isinstance(c, bool)] + _all_patterns(s.then + s.otherwise)
    return out


TABLE_PATTERNS = sorted({p.pattern for r in kernels.RULES for p in [r.pattern, *_all_patterns(r.steps)]})

GROUPS = r"""
const sources = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(sources.map((s) => {
  try { const m = new RegExp(s + "|", "u").exec(""); return Object.keys(m.groups || {}).sort(); }
  catch (e) { return String(e); }
})));
"""


def test_every_exported_pattern_compiles_in_javascript_with_the_same_groups(node):
    got = run_js(node, GROUPS, [export.js_pattern(p) for p in TABLE_PATTERNS])
    want = [sorted(re.compile(p).groupindex) for p in TABLE_PATTERNS]
    assert dict(zip(TABLE_PATTERNS, got, strict=True)) == dict(zip(TABLE_PATTERNS, want, strict=True))
    assert len(TABLE_PATTERNS) > 60


MATCH = r"""
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([source, text]) => {
  const m = new RegExp(source, "u").exec(text);
  if (!m) return null;
  const groups = {};
  for (const [k, v] of Object.entries(m.groups || {})) if (v !== undefined) groups[k] = v;
  return [m[0], groups];
})));
"""

# Where Python's re and JavaScript's RegExp differ: Unicode classes, ".", "$", "\Z", code points.
DIALECT = [
    (r"a\s+b", ["a \t\nb", "a\u00a0b", "a\x1cb", "a\u3000b"]),
    (r"[\s:]+", [" :\u00a0", "\u2028:"]),
    (r"a\S+", ["a\u00a0b", "abc d"]),
    (r"x.y", ["x\ny", "x\ry", "x\u2028y", "x😀y"]),
    (r"end$", ["end\n", "end", "end\n\n", "end\r\n"]),
    (r"^\w+\Z", ["abc\n", "abc", "ab c"]),
    (r"\w+", ["héllo", "日本", "a_1"]),
    (r"\d+", ["١٢3", "３4"]),
    (r"\bfoo\b", ["éfoo", "a foo", "_foo"]),
    (r"(?P<x>ab|a)(?P<y>b?)c?", ["abc", "ac"]),
    (r"(?P<e>[^<>]{2})", ["😀😀", "a😀"]),
    (r"(?:^|_)(?:ffma|hmma)(?:_|$)", ["ffma", "x_hmma_y", "affma"]),
    (r"\{lambda\((?P<a>[^()]+)\)#\d+\}", ["{lambda(float, int)#1}"]),
    (r"[\w:]+(?: const)?-[a\-z]", ["c10::Half const--", "x-z"]),
]


def test_patterns_mean_the_same_in_javascript(node):
    cases = [(p, t) for p, texts in DIALECT for t in texts] + [(p, n) for p in TABLE_PATTERNS for n in golden_names()]
    got = run_js(node, MATCH, [[export.js_pattern(p), t] for p, t in cases])

    def python(p: str, t: str):
        m = re.compile(p, engine.FLAGS).search(t)
        return None if m is None else [m.group(), {k: v for k, v in m.groupdict().items() if v is not None}]

    wrong = [(p, t, g) for (p, t), g in zip(cases, got, strict=True) if g != python(p, t)]
    assert wrong == []


@pytest.mark.parametrize(
    "pattern",
    ["(?i)abc", "(?x) a b", r"(?P<x>a)(?P=x)", r"(a)\1", "a{,3}", "[]a]", r"[\S]", "a*+", "(?>a)", r"\p{L}", "a{b",
     "[a", r"\u00e9", "(?#note)"],
)  # fmt: skip
def test_syntax_that_would_change_meaning_is_refused(pattern):
    with pytest.raises(ValueError, match="pattern"):
        export.js_pattern(pattern)


# --- each step and pipe, in both engines -------------------------------------------------------------------------

#: A table that uses every step and pipe, with their edge cases, read by both engines.
CONFORMANCE = (
    Rule(
        "gemm",
        r"^pipes (?P<a>\S*) (?P<b>\S*) (?P<n>\d*)(?P<opt>!)?",
        (
            ("dtype", "{a|dtype}"),
            ("dtype_empty", "{opt|default:|dtype}"),
            ("mapped", "{a|map:t}"),
            ("looked", "{a|lookup:t}"),
            ("defaulted", "{opt|default:none}"),
            ("missing", "x{opt}y"),
            ("alternatives", ("{opt}", "{nothing}", "third {a}")),
            ("nonempty", "{b|nonempty|default:was empty}"),
            ("lower", "{a|lower}"),
            ("prefix", "{a|removeprefix:c10|removesuffix:t}"),
            ("strip", "{b|strip}|{b|strip:_x}"),
            ("replace", "{b|replace:_: }"),
            ("before", "{b|before:(}"),
            ("chars", "{a|char:0}{a|char:-1}{a|char:99|default:-}"),
            ("pow2", "{n|pow2|default:none}"),
            ("short", "{@after|shorten}"),
            ("split", "{b|split:_|nonempty|join:+}"),
            ("items", "{b|split:_|item:1|default:-}{b|split:_|item:-1|default:-}{b|split:_|item:7|default:-}"),
            ("names", "{b|names:multi|join:/}"),
            ("lifted", "{b|split:_|lookup:t|removeprefix:x|join:,}"),
            Show("raw", values={"name": "{a}"}),
        ),
    ),
    Rule(
        "flash",
        r"^steps (?P<a>\w+) (?P<list>[\w,]*)",
        (
            Search((r"(?P<_never>zzz)", r"(?P<_x>[aeiou])(?P<_y>q)?"), "{a}"),
            ("searched", "{_x}{_y|default:-}"),
            Find("_all", "{@after}", r"\d+"),
            Find("_words", "{@after}", r"<(\w*)>"),
            ("found", "{_all|join:+}/{_words|join:+}"),
            ("_items", "{list|split:,}"),
            Spread("_items", ("one", None, "three")),
            Spread("_items", (), rest="others"),
            Classify("{list|split:,|nonempty}", (("digits", r"\d+"), ("short", r"[a-z]{1,2}")), rest="rest", sep="-"),
            When({"a": r"x\w*", "_x": True}, (("when", "x and vowel"),), (When({"_y": False}, (("when", "no q"),)),)),
            When({"list": False}, (("family", "other"),)),
            Show("memcpy", values={"direction": ("{nothing}", "{a}")},
                 words={"src": "kernel.place.{a}", "dst": ("kernel.place.nowhere", "{_x}")}),
        ),
    ),
    Rule(
        "triton",
        r"^items (?P<ops>\S*)",
        (
            ("_ops", "{ops|names:multi}"),
            Show("triton_ops", words={"kind": ("kernel.triton.{ops}", "k")}, items="{_ops}"),
        ),
    ),
)  # fmt: skip
CONFORMANCE_TABLES = {"dtypes": kernels.TABLES["dtypes"], "t": {"float": "F", "x_y": "XY", "xa": "xb"},
                      "multi": ("a_b_c", "a_b", "b_c")}  # fmt: skip
CONFORMANCE_NAMES = [
    "pipes c10::BFloat16 a_b_c_(x) 10 tail(int) of the name",
    "pipes float __x_y__ 1024! rest",
    "pipes unknown::Type  1025",
    "pipes  _ 007",
    "pipes c10::Half a__b___c x",
    "pipes x xa_x_y_float_ 3" + "::ns" * 30 + "<" + "T" * 80 + ">(int)",
    "steps xenon 1,ab,3",
    "steps xenon 1,ab",
    "steps quaq a,,bcd <w> 12 <> 7",
    "steps bcd ",
    "steps axq z,1,yy,abc,",
    "items a_b_c_b_c_x__y_" + "_long" * 20,
    "items _",
    "nothing matches",
]


def test_each_step_and_pipe_gives_the_same_in_both_engines(node, tmp_path):
    table = engine.Decoder(CONFORMANCE, CONFORMANCE_TABLES)
    want = [python_decoded(n, table.decode) for n in CONFORMANCE_NAMES]
    data = tmp_path / "rules.json"
    data.write_text(json.dumps(export.export(CONFORMANCE, CONFORMANCE_TABLES)))
    got = run_js(node, DRIVER, CONFORMANCE_NAMES, DATA=str(data), ENGINE=str(ENGINE_SOURCE))
    assert got == want
    # the cases reach what they are for
    fields = {n: w["fields"] for n, w in zip(CONFORMANCE_NAMES, want, strict=True)}
    assert fields[CONFORMANCE_NAMES[0]]["pow2"] == "1024" and fields[CONFORMANCE_NAMES[1]]["pow2"] == str(2**1024)
    assert fields[CONFORMANCE_NAMES[2]]["pow2"] == "none" and fields[CONFORMANCE_NAMES[3]]["dtype"] == "?"
    assert fields[CONFORMANCE_NAMES[6]]["one"] == "1" and "others" in fields[CONFORMANCE_NAMES[7]]
    assert want[9]["family"] == "other" and want[-1]["family"] == "other"
    assert want[11]["text"]["en"].endswith("more") and "ほか" in want[11]["text"]["ja"]
