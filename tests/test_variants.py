"""Every CPU-capable variant computes causal attention (checked against float64), and the registry is sound."""

import pytest
import torch

from attnprof import inputs, variants

CPU_EAGER = ["naive", "naive_inplace", "sdpa_math", "sdpa_flash", "sdpa_auto"]


@pytest.mark.parametrize("name", CPU_EAGER)
def test_cpu_variant_matches_float64_reference(name):
    setup = inputs.make_setup((2, 3, 64, 32), "float32", "cpu")
    q, k, v = inputs.make_inputs(setup, seed=1)
    with torch.no_grad():
        out = variants.get(name).build(64, "cpu")(q, k, v)
    assert out.shape == (2, 3, 64, 32)
    assert inputs.relative_error(out, inputs.reference_attention(q, k, v)) < 1e-5


def test_naive_is_causal():
    # Changing a future key must not change an earlier query's output.
    setup = inputs.make_setup((1, 1, 16, 8), "float32", "cpu")
    q, k, v = inputs.make_inputs(setup, seed=2)
    fn = variants.get("naive").build(16, "cpu")
    before = fn(q, k, v)
    k2, v2 = k.clone(), v.clone()
    k2[..., 10:, :] += 5.0
    v2[..., 10:, :] -= 3.0
    after = fn(q, k2, v2)
    torch.testing.assert_close(before[..., :10, :], after[..., :10, :])
    assert not torch.allclose(before[..., 10:, :], after[..., 10:, :])


def test_inplace_variant_differs_from_naive_only_in_the_fill():
    import ast
    import inspect
    import textwrap

    def statements(fn):
        body = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body[1:]  # drop the docstring
        return [ast.unparse(node) for node in body]

    a, b = statements(variants.naive_attention), statements(variants.naive_inplace_attention)
    assert len(a) == len(b)
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    assert diff == [("scores = scores.masked_fill(mask, float('-inf'))", "scores.masked_fill_(mask, float('-inf'))")]


def test_registry_is_complete_and_described():
    expected = {"naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn", "sdpa_auto",
                "flex", "compiled_naive"}  # fmt: skip
    assert set(variants.VARIANTS) == expected
    for v in variants.VARIANTS.values():
        assert v.annotation == f"{v.name}_fwd"
        assert v.description and v.devices and v.dtypes and v.requirements
        assert set(v.devices) <= {"cuda", "cpu"}
        assert all(d in inputs.DTYPE_ALIASES.values() for d in v.dtypes)


def test_unknown_variant_names_the_choices():
    with pytest.raises(ValueError, match=r"unknown variant 'flsh'; choose one of: naive, .*sdpa_flash"):
        variants.get("flsh")


def test_causal_mask_hides_the_future():
    m = variants.causal_mask(4, "cpu")
    assert m.dtype == torch.bool
    assert m.tolist() == [[False, True, True, True], [False, False, True, True],
                          [False, False, False, True], [False, False, False, False]]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", ["compiled_naive", "flex"])
def test_compiled_variants_on_cpu(name):
    # torch.compile through inductor's C++ backend: a few seconds for compiled_naive, about half a minute for flex.
    setup = inputs.make_setup((1, 2, 128, 64), "float32", "cpu")
    q, k, v = inputs.make_inputs(setup, seed=3)
    with torch.no_grad():
        out = variants.get(name).build(128, "cpu")(q, k, v)
    assert inputs.relative_error(out, inputs.reference_attention(q, k, v)) < 1e-4
