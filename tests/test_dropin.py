"""The drop-in reader's markup and scripts (:mod:`attnprof.render.dropin`): the words it carries, in the page's
language, and the scripts a page loads, in order, as the site serves them."""

from __future__ import annotations

import html
import json
import re

from attnprof import words
from attnprof.render import decoder, dropin, viewer


def carried_words(fragment: str) -> dict[str, str]:
    found = re.search(r'data-words="([^"]*)"', fragment)
    assert found is not None
    return json.loads(html.unescape(found.group(1)))


def test_the_widget_carries_the_report_words_in_its_language():
    for lang in words.LANGUAGES:
        got = carried_words(dropin.fragment(lang))
        assert got["explain.steps"] == words.TABLE["explain.steps"][lang]
        assert got["dropin.error.not_json"] == words.TABLE["dropin.error.not_json"][lang]
        assert "report.na" in got and "kernel.dir.bwd" in got
        assert not any(k.startswith(("claim", "elig.", "site.")) for k in got)
    assert carried_words(dropin.fragment("ja_JP"))["dropin.kernel"] == "カーネル"


def test_every_error_the_reader_can_raise_has_words():
    source = (viewer.ASSETS_DIR / dropin.READER).read_text(encoding="utf-8")
    codes = set(re.findall(r'new Unreadable\("(\w+)"', source)) | {"failed"}
    assert {"not_json", "not_pytorch", "too_large", "gpus", "ranks", "bad_gzip"} <= codes
    missing = [c for c in codes if f"dropin.error.{c}" not in words.TABLE]
    assert missing == []


def test_the_widget_stays_hidden_without_its_script_and_says_what_to_run():
    fragment = dropin.fragment("en")
    assert f'<div class="{dropin.WIDGET_CLASS}" data-lang="en"' in fragment and " hidden>" in fragment
    assert 'class="attnprof-dropin-fallback">' in fragment and "attnprof explain TRACE" in fragment
    assert '<input type="file"' in fragment and "nothing is uploaded" in fragment


def test_the_comparison_widget_has_two_zones_and_the_comparisons_words():
    for lang in words.LANGUAGES:
        fragment = dropin.diff_fragment(lang)
        got = carried_words(fragment)
        assert got["tracediff.steps"] == words.TABLE["tracediff.steps"][lang]
        assert got["explain.kind.sdpa"] == words.TABLE["explain.kind.sdpa"][lang] and "dropin.error.not_json" in got
        assert fragment.count('<input type="file"') == 2 and " hidden>" in fragment
        assert "attnprof-dropdiff-before" in fragment and "attnprof-dropdiff-after" in fragment
        assert words.text("tracediff.dropin.no_script", lang) in fragment
    assert "tracediff.steps" not in carried_words(dropin.fragment("en"))  # the single reader carries its own only


def test_write_static_writes_the_decoder_then_the_reader(tmp_path):
    paths = dropin.write_static(tmp_path)
    assert [p.name for p in paths] == list(dropin.SCRIPTS) == [*decoder.STATIC_FILES, dropin.READER, dropin.DIFF]
    assert paths[-2].read_text(encoding="utf-8") == viewer.served(dropin.READER)
    assert paths[-1].read_text(encoding="utf-8") == viewer.served(dropin.DIFF)
    stamp = paths[-1].stat().st_mtime_ns
    dropin.write_static(tmp_path)
    assert paths[-1].stat().st_mtime_ns == stamp
