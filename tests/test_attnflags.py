"""analysis.attnflags: what a call was given, and what the site's method teaches to look for around it, on code
nobody here wrote and on the site's own traces."""

from __future__ import annotations

import pytest

from attnprof.analysis import attnflags
from helpers import FOREIGN_FOLDERS, TRACES, explained

FOLDERS = FOREIGN_FOLDERS
read = explained


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_eager_attention_in_transformers_is_flagged_for_its_fp32_softmax_and_its_expanded_kv(folder):
    x = read(folder / "hf_eager_train.json.gz")
    fwd = [c for c in x.calls if c.call.direction == "fwd"]
    for c in fwd:  # repeat_kv: expand then reshape; softmax(..., dtype=torch.float32) on bf16 scores
        codes = {fl.code for fl in c.flags}
        assert {"fp32_softmax", "kv_expand"} <= codes, codes
        assert c.inputs.query[1] == 4 and c.inputs.value[1] == 4 and c.inputs.dtype == "bf16"
    assert all(fl.code != "fp32_softmax" for c in x.calls if c.call.direction == "bwd" for fl in c.flags)


def codes(variant: str) -> set[str]:
    found = {f.code for c in explained(TRACES / f"{variant}.json.gz").calls for f in c.flags}
    assert found <= set(attnflags.FLAGS)  # only the flags the module declares
    return found


def test_dtype_spellings_are_the_short_names_and_scalars_have_none():
    assert [attnflags.dtype_name(s) for s in ("c10::BFloat16", "c10::Half", "float", "double")] == [
        "bf16", "fp16", "fp32", "fp64"]  # fmt: skip
    assert attnflags.dtype_name("Scalar") is None and attnflags.dtype_name("") is None
    assert attnflags.dtype_name(None) is None and attnflags.dtype_name("c10::Float8") == "c10::Float8"


def test_an_out_of_place_op_copies_what_the_in_place_one_does_not():
    x = explained(TRACES / "naive.json.gz")
    for c in x.calls:  # s.masked_fill(mask, -inf) allocates and copies the scores; masked_fill_ does not
        (flag,) = c.flags
        assert flag.code == "hidden_copy" and flag.ops == ["aten::masked_fill > aten::clone"] and flag.gpu_us > 0
    assert codes("naive_inplace") == set()


def test_the_math_backend_is_flagged_with_the_copies_and_the_fp32_softmax_it_runs():
    assert codes("sdpa_math") == {"hidden_copy", "fp32_softmax", "math_backend"}
    for variant in ("sdpa_flash", "sdpa_efficient", "sdpa_cudnn", "sdpa_auto", "flex", "compiled_naive"):
        assert codes(variant) == set(), variant


def test_the_inputs_of_a_call_are_read_from_its_op():
    (i,) = {c.inputs for c in explained(TRACES / "sdpa_flash.json.gz").calls}
    assert (i.query, i.key, i.value, i.dtype) == ((8, 16, 1024, 64),) * 3 + ("bf16",)
    assert (i.causal, i.mask, i.dropout, i.gqa, i.op) == (
        True,
        False,
        0.0,
        False,
        "aten::scaled_dot_product_attention",
    )
    assert i.strides == ((1048576, 65536, 64, 1),) * 3
    (n,) = {c.inputs for c in explained(TRACES / "naive.json.gz").calls}  # the operands of the two products
    assert (n.query, n.key, n.value, n.causal) == ((8, 16, 1024, 64), (8, 16, 64, 1024), (8, 16, 1024, 64), None)
