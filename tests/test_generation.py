"""analysis.generation: the prefill and decode calls of a generate loop, and its passes per step, from recorded
shapes (the recorded transformers generate traces are read in test_attention.py and test_cli_explain_foreign.py)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from attnprof.analysis import generation
from attnprof.analysis.attnflags import Inputs


def call(q: int, kv: int, direction: str = "fwd", kind: str = "sdpa", layers: int = 1) -> list[NS]:
    shape = (1, 4, q, 64)
    key = (1, 2, kv, 64) if kind != "handwritten" else (1, 4, 64, kv)
    return [NS(call=NS(kind=kind, direction=direction), inputs=Inputs(shape, key, (1, 2, kv, 64), "bf16"))
            for _ in range(layers)]  # fmt: skip


def test_a_generate_loop_is_one_prefill_then_decodes_against_a_growing_cache():
    calls = [*call(8, 8, layers=2), *(c for n in (9, 10, 11) for c in call(1, n, layers=2))]
    phase = generation.phases(calls)
    assert phase == ["prefill"] * 2 + ["decode"] * 6
    g = generation.passes(calls, phase)
    assert g == generation.Generation(prefill=1, decode=3, kv=(9, 11), layers=2)
    assert g.to_dict() == {"prefill": 1, "decode": 3, "kv": [9, 11], "layers": 2}


def test_a_static_cache_still_counts_its_passes():
    calls = [*call(16, 4096, layers=3), *(c for _ in range(5) for c in call(1, 4096, layers=3))]
    assert generation.passes(calls, generation.phases(calls)) == generation.Generation(1, 5, (4096, 4096), 3)


def test_training_and_a_forward_without_one_query_have_no_phases():
    train = [*call(32, 32), *call(32, 32, direction="bwd")]
    assert generation.phases(train) == [None, None]
    prefill_only = call(32, 32, layers=4)
    assert generation.phases(prefill_only) == [None] * 4
    assert generation.passes(prefill_only, [None] * 4) is None


def test_a_hand_written_call_reads_its_keys_length_from_the_transposed_key():
    assert generation.lengths("handwritten", call(1, 9, kind="handwritten")[0].inputs) == (1, 9)
    assert generation.lengths("sdpa", Inputs()) is None
