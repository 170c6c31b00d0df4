"""The mask and method registries of :mod:`attnprof.workloads`: document lengths, the kept pairs each mask counts
(against its own mask_mod evaluated pair by pair), and the one-line errors for unknown names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnprof import workloads
from attnprof.workloads import Geometry


class _Rows:
    """``doc[b, i]`` over plain lists, so that a mask_mod runs on Python integers."""

    def __init__(self, rows: list[list[int]]) -> None:
        self.rows = rows

    def __getitem__(self, at: tuple[int, int]) -> int:
        return self.rows[at[0]][at[1]]


def brute_pairs(mask: workloads.Mask, g: Geometry) -> int:
    doc = _Rows([workloads.document_ids(n) for n in g.documents()]) if mask.packed else None
    fn = mask.mod(g, doc)
    return sum(bool(fn(b, 0, q, k)) for b in range(g.batch) for q in range(g.seq) for k in range(g.seq))


def test_document_lengths_fill_the_row_and_differ_from_row_to_row():
    for seq in (16, 100, 4096):
        rows = [workloads.document_lengths(seq, r) for r in range(3)]
        assert all(sum(r) == seq and min(r) > 0 for r in rows)
        assert len(set(rows[0])) > 1  # documents of different lengths
        assert rows[0] != rows[1]
    assert workloads.document_lengths(4096) == [1792, 1024, 768, 512]
    assert workloads.document_ids([2, 1]) == [0, 0, 1]


def test_a_row_too_short_for_documents_is_named():
    with pytest.raises(ValueError, match=r"bad seq 8 .*at least 16"):
        workloads.document_lengths(8)


@given(seq=st.integers(16, 48), window=st.integers(1, 50), batch=st.integers(1, 3))
def test_every_mask_counts_the_pairs_its_mask_mod_keeps(seq, window, batch):
    for mask in workloads.MASKS.values():
        for g in (Geometry(batch, seq, window=window), Geometry(batch, seq, prefix=seq // 4)):
            assert mask.pairs(g) == brute_pairs(mask, g), (mask.name, g)


def test_densities_are_what_the_masks_mean():
    sliding = workloads.get_mask("sliding_window")
    full = Geometry(1, 64, window=64)  # a window as long as the row is the causal mask
    assert sliding.density(full) == pytest.approx(65 / 128)
    assert sliding.density(Geometry(1, 4096, window=256)) < 0.07
    prefix = workloads.get_mask("prefix_lm")
    assert prefix.density(Geometry(1, 64, prefix=16)) > sliding.density(full)
    docs = workloads.get_mask("documents")
    assert docs.density(Geometry(2, 4096)) < 0.2


def test_geometries_follow_the_mask():
    sliding, prefix = workloads.get_mask("sliding_window"), workloads.get_mask("prefix_lm")
    assert [g.window for g in sliding.geometries(2, 512, (256, 1024))] == [256]  # a window past the row is dropped
    assert [g.prefix for g in prefix.geometries(2, 512, (256,))] == [128]
    assert sliding.label(Geometry(1, 512, window=256)) == "sliding_window w256"
    assert prefix.label(Geometry(1, 512, prefix=128)) == "prefix_lm p128"


def test_nested_tensors_apply_to_packed_documents_only():
    nested = next(m for m in workloads.METHODS.values() if m.packed_only)
    assert [k for k, m in workloads.MASKS.items() if nested.applies(m)] == ["documents"]
    assert all(
        m.applies(k) for m in workloads.METHODS.values() if not m.packed_only for k in workloads.MASKS.values()
    )


def test_unknown_names_get_one_line_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown mask 'window'; choose one of: sliding_window, documents"):
        workloads.get_mask("window")
    with pytest.raises(ValueError, match=r"unknown mask method 'flx'; choose one of: flex, "):
        workloads.get_method("flx")


def test_forward_flops_count_two_products_over_the_kept_pairs():
    assert workloads.mask_flops(64, 16, 1000) == 4 * 64 * 16 * 1000
