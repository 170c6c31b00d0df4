"""attnprof.analysis.kernels.engine and .labels: the engine that reads the rule table, and the table's own
consistency (every label it can show has its words, every rule is reached by a name the tests know)."""

from __future__ import annotations

import doctest
import gzip
import json
import re
import string

import pytest

from attnprof import words
from attnprof.analysis import kernels
from attnprof.analysis.kernels import engine, labels
from attnprof.analysis.kernels.engine import Decoder, Find, Rule, Search, Show, Template, When
from helpers import KERNEL_GOLDEN


def _decoder(*steps, pattern=r"^(?P<a>\w*) ?(?P<b>\S*)", tables=None) -> Decoder:
    return Decoder((Rule("gemm", pattern, steps),), tables or {"dtypes": kernels.TABLES["dtypes"], "t": {"x": "y"}})


# --- templates and pipes ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{a|nope}", "unknown pipe 'nope'"),
        ("{a|map}", "takes 1 to 1 arguments"),
        ("{a|lower:x}", "takes 0 to 0 arguments"),
        ("{a b}", "is no variable name"),
        ("{}", "is no variable name"),
        ("a}b", "a brace outside a hole"),
    ],
)
def test_bad_templates_are_refused_with_what_is_wrong(template, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Template.parse(template)


def test_a_table_a_pipe_names_must_exist():
    with pytest.raises(ValueError, match="no table 'missing'"):
        _decoder(("f", "{a|map:missing}"), engine.RAW)


def test_templates_without_a_value_set_nothing_and_alternatives_take_the_first_with_one():
    info = _decoder(
        ("one", "x{nothing}y"),
        ("two", ("{nothing}", "{b|nonempty}", "last")),
        ("three", "{a|map:t|default:none}"),
        ("four", "{a|lookup:t}"),
        engine.RAW,
    ).decode("x ")
    assert info.fields == {"two": "last", "three": "y", "four": "y"}


def test_lists_stay_out_of_fields_and_text():
    with pytest.raises(TypeError, match="would be a list"):
        _decoder(("f", "{a|split:_}"), engine.RAW).decode("a_b")
    with pytest.raises(TypeError, match="list inside text"):
        _decoder(("_l", "{a|split:_}"), ("f", "x{_l}"), engine.RAW).decode("a_b")
    with pytest.raises(TypeError, match="takes a list"):
        _decoder(("f", "{a|join:,}"), engine.RAW).decode("a_b")
    with pytest.raises(TypeError, match="takes one text"):
        _decoder(("_l", "{a|split:_}"), ("_m", "{_l|split:x}"), engine.RAW).decode("a_b")


def test_a_rule_must_show_a_label():
    with pytest.raises(ValueError, match="showed no label"):
        _decoder(("f", "{a}")).decode("x")


def test_steps_refuse_what_the_browser_could_not_repeat():
    with pytest.raises(ValueError, match="at most one group"):
        Find("_x", "{a}", r"(a)(b)")
    with pytest.raises(ValueError, match="must not match nothing"):
        Find("_x", "{a}", r"a*")
    with pytest.raises(ValueError, match="are values and words"):
        Show("memset", values={"target": "x"}, words={"target": "y"})
    with pytest.raises(TypeError, match="not a step"):
        engine.steps([("only one",)])


def test_split_names_takes_the_longest_known_names_and_keeps_a_leading_underscore():
    multi = ("a_b_c", "a_b")
    assert engine.split_names("a_b_c_a_b_x", multi) == ["a_b_c", "a_b", "x"]
    assert engine.split_names("_softmax_exp", multi) == ["_softmax", "exp"]
    assert engine.split_names("x__a_b", multi) == ["x", "_a_b"]
    assert engine.split_names("_", multi) == [] and engine.split_names("", multi) == []


def test_pow2_and_dtype():
    assert engine.pow2("10") == "1024" and engine.pow2("0") == "1"
    assert engine.pow2(str(engine.POW2_MAX + 1)) is None and engine.pow2("1a") is None and engine.pow2("٣") is None
    dtypes = kernels.TABLES["dtypes"]
    assert engine.dtype("c10::BFloat16 const", dtypes) == "bf16"
    assert engine.dtype("at::Foo", dtypes) == "Foo" and engine.dtype("", dtypes) == "?"


def test_pick_is_nested_whens():
    step = engine.pick("m", [({"a": "x"}, "first"), ({"b": True}, "second")], "neither")
    assert isinstance(step, When) and isinstance(step.otherwise[0], When)
    d = _decoder(step, engine.RAW)
    assert [d.decode(n).fields["m"] for n in ("x y", "z y", "z")] == ["first", "second", "neither"]


def test_a_search_without_a_text_finds_nothing():
    info = _decoder(Search(r"(?P<_x>.)", "{nothing}"), ("f", "{_x|default:none}"), engine.RAW).decode("a")
    assert info.fields == {"f": "none"}


# --- what changed on purpose ----------------------------------------------------------------------------------------


def test_a_softmax_without_the_masked_flag_has_no_masked_field():
    # older PyTorch: softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax>. The decoder
    # before the table set "masked" to None here; fields are strings, so it is left out now.
    info = kernels.decode("void softmax_warp_forward<float, float, float, 10, false>(float*, float const*, int)")
    assert "masked" not in info.fields and info.fields["elements"] == "1024"


# --- the table ------------------------------------------------------------------------------------------------------


def _shows(steps) -> list[Show]:
    out = []
    for s in steps:
        if isinstance(s, Show):
            out.append(s)
        elif isinstance(s, When):
            out += _shows(s.then + s.otherwise)
    return out


def test_every_label_the_table_can_show_has_its_words_in_every_language():
    for rule in kernels.RULES:
        for show in _shows(rule.steps):
            given = set(show.values) | set(show.words)
            if show.form == "raw":
                assert given == {"name"}
                continue
            for language in words.LANGUAGES:
                needed = {
                    f for _, f, _, _ in string.Formatter().parse(words.TABLE[f"kernel.{show.form}"][language]) if f
                }
                assert needed == given, (rule.pattern.pattern, show.form, language)


def test_every_rule_decodes_a_name_the_tests_know_and_labels_use_kernel_words():
    with gzip.open(KERNEL_GOLDEN, "rt", encoding="utf-8") as f:
        names = [r["name"] for r in json.load(f)["names"]]
    reached = {next((i for i, r in enumerate(kernels.RULES) if r.pattern.search(n)), None) for n in names}
    assert reached == {*range(len(kernels.RULES)), None}
    for n in names:
        for key, _ in kernels.decode(n).label.words.values():
            assert key == "" or key.startswith("kernel."), (n, key)


def test_the_rules_name_known_families_and_tables_and_rules_are_data():
    assert {r.family for r in kernels.RULES} <= set(kernels.FAMILIES)
    assert all(isinstance(r.pattern, re.Pattern) and r.pattern.flags & re.ASCII for r in kernels.RULES)
    used = {args[0] for r in kernels.RULES for t in engine.templates(r.steps) for h in t.holes()
            for name, args in h.pipes if name in ("map", "lookup", "names")}  # fmt: skip
    assert used | {"dtypes"} == set(kernels.TABLES)  # no table is left unused


def test_whitespace_is_what_python_strips():
    assert set(labels.WHITESPACE) == {chr(c) for c in range(0x110000) if chr(c).isspace()}


def test_doctests():
    assert doctest.testmod(labels).failed == 0
    assert doctest.testmod(engine).failed == 0
