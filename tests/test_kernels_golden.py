"""attnprof.analysis.kernels as a table of data: it decodes every kernel name the tests know exactly as the decoder
did before its rules became data (the golden file, ``scripts/kernel_golden.py``), and the table is well formed."""

from __future__ import annotations

import gzip
import json

import pytest

from attnprof import words
from attnprof.analysis import kernels
from helpers import KERNEL_GOLDEN, kernel_names


def golden() -> dict[str, dict]:
    with gzip.open(KERNEL_GOLDEN, "rt", encoding="utf-8") as f:
        return {r["name"]: r for r in json.load(f)["names"]}


GOLDEN = golden()


def decoded(name: str) -> dict:
    """What :func:`decode` gives, in the golden file's terms."""
    info = kernels.decode(name)
    label = info.label
    return {
        "name": name,
        "family": info.family,
        "short": info.short,
        "fields": info.fields,
        "label": {
            "form": label.form,
            "values": label.values,
            "words": {k: list(v) for k, v in label.words.items()},
            "items": list(label.items),
        },
        "text": {language: info.text(language) for language in words.LANGUAGES},
    }


def test_the_golden_file_holds_every_name_the_tests_know():
    assert sorted(GOLDEN) == list(kernel_names())
    assert len(GOLDEN) > 150


@pytest.mark.parametrize("name", sorted(GOLDEN), ids=lambda n: kernels.shorten(n, 50))
def test_decode_gives_what_it_gave_before_the_table_became_data(name):
    assert decoded(name) == GOLDEN[name]


def test_fields_keep_their_order():
    # each field where it was first set, as before (the golden file keeps the order)
    for name, record in GOLDEN.items():
        assert list(kernels.decode(name).fields) == list(record["fields"]), name
