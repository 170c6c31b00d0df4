"""attnprof.site.numbers: the English and Japanese pages of one build must show the same numbers.

Recorded data: the main content of four pages of two real CPU builds, both languages, in tests/data/site:
``replayed`` (the Japanese build replayed the English measurements: no difference) and ``remeasured`` (a build of
before, whose Japanese gallery measured again: the landing's CPU figures, the decision table and the training
script's output differ). Differences are planted into the replayed pages; formatting and prose are not differences.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from attnprof.site import numbers

SITE = Path(__file__).parent / "data" / "site"
PAGES = ("index.html", "guide/claims.html", "guide/decision.html", "auto_examples/12-training.html")


def _page(build: str, lang: str, page: str) -> str:
    return gzip.decompress((SITE / build / lang / (page.replace("/", "--") + ".gz")).read_bytes()).decode()


@pytest.mark.parametrize("page", PAGES)
def test_a_replayed_build_shows_the_same_numbers_in_both_languages(page):
    en, ja = _page("replayed", "en", page), _page("replayed", "ja", page)
    assert len(numbers.numbers(en)) >= 25  # pages full of figures, not an empty comparison
    assert numbers.compare_pages(en, ja) == ([], [])


def test_a_build_that_measured_twice_is_caught():
    en, ja = _page("remeasured", "en", "index.html"), _page("remeasured", "ja", "index.html")
    missing, _ = numbers.compare_pages(en, ja)
    # the landing's CPU time per profiled step, one per variant: the figures the issue found differing
    assert {"95841", "31702", "11803"} <= {n.value for n in missing}
    missing, extra = numbers.compare_pages(
        _page("remeasured", "en", "guide/decision.html"), _page("remeasured", "ja", "guide/decision.html")
    )
    assert ("3.17", "ms") in {n.key for n in missing} and extra
    assert all(numbers.compare_pages(_page("remeasured", "en", p), _page("remeasured", "ja", p)) == ([], [])
               for p in ("guide/claims.html",))  # fmt: skip  # no verdict on a CPU build: nothing to differ


def test_one_planted_number_is_the_one_difference():
    page = "auto_examples/12-training.html"
    en, ja = _page("replayed", "en", page), _page("replayed", "ja", page)
    assert ja.count("566.320ms") == 1
    missing, extra = numbers.compare_pages(en, ja.replace("566.320ms", "566.321ms"))
    assert [n.key for n in missing] == [("566.320", "ms")] and [n.key for n in extra] == [("566.321", "ms")]
    assert "86.20%" in missing[0].context and "ProfilerStep" not in missing[0].context  # the words around it
    missing, extra = numbers.compare_pages(en, ja.replace("566.320ms", "566.320ms 566.320ms", 1))
    assert (missing, extra) == ([], [])  # shown once more is no other measurement (a sentence may repeat "0%")
    missing, extra = numbers.compare_pages(en.replace("566.320ms", "566.320ms 566.320ms", 1), ja)
    assert [n.key for n in missing] == [("566.320", "ms")]  # but each figure the first language shows must be there


def test_formatting_is_not_a_difference():
    page = '<article role="main"><div class="attnprof-x"><p>{}</p></div></article>'
    en = page.format("1234.5 ms; −3.2 %; 2.5× as fast; 8 s; took 1.5 times as long; 12 steps; +16 %; 2 blocks")
    ja = page.format("1,234.5\u00a0ms、-3.2%、2.5 倍速い、8 秒、1.5 倍かかった、ステップ 12、1 回、16%、2 × 4 ワープ")
    assert numbers.compare_pages(en, ja) == ([], [])  # the bare "1" (一回, one call) only in ja is no difference
    # a kernel's label cut at another item in each language (as labels were cut before they kept the same items)
    en = page.format("triton persistent reduce: softmax, exp, masked_fill, +4 more")
    ja = page.format("triton 永続リダクション: softmax, exp, masked_fill, mul、ほか 3 件")
    assert numbers.compare_pages(en, ja) == ([], [])
    assert numbers.compare_pages(en, ja.replace("ほか 3 件", "ほか 3 件、2.5 ms")) == ([], numbers.numbers(
        page.format("2.5 ms")))  # fmt: skip  # but a figure after it still counts


def test_prose_and_names_are_not_compared():
    page = '<article role="main"><p>{}</p><div class="attnprof-metric">sm90 bf16 128x64 ran 5 ms</div></article>'
    en, ja = page.format("Three steps, about 11 s."), page.format("3 ステップ、約 11 秒。")
    assert numbers.compare_pages(en, ja) == ([], [])
    assert [n.key for n in numbers.numbers(en)] == [("5", "ms")]  # kernel and dtype names hold no number


def test_a_picture_or_a_stray_end_tag_ends_nothing():
    """Sphinx writes ``<img ... />``; an end tag that closes nothing open is no end of the main content either."""
    page = (
        '<div role="main"><figure class="attnprof-timeline"><img alt="took 843 µs" src="t.png" />'
        "</figure></p><div class='attnprof-metric'>5 ms<br/>6 ms</div></div><div class='attnprof-x'>7 ms</div>"
    )
    assert [n.key for n in numbers.numbers(page)] == [("843", "µs"), ("5", "ms"), ("6", "ms")]


def _site(tmp_path: Path, build: str = "replayed") -> Path:
    for lang in ("en", "ja"):
        for page in PAGES:
            path = tmp_path / lang / page
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"<html><body>{_page(build, lang, page)}</body></html>", encoding="utf-8")
        trace = tmp_path / lang / "_downloads" / "0a1b" / "naive__prefill.trace.json.gz"
        trace.parent.mkdir(parents=True)
        trace.write_bytes(gzip.compress(b'{"traceEvents": []}', mtime=0))
    return tmp_path


def test_a_whole_site_and_the_command_line(tmp_path, capsys):
    root = _site(tmp_path)
    assert numbers.compare_site(root, ("en", "ja")) == ([], len(PAGES))
    assert numbers.main([str(root)]) == 0
    assert "numbers of en and ja: 0 difference(s) over 4 pages" in capsys.readouterr().out
    (root / "ja" / "_downloads" / "0a1b" / "naive__prefill.trace.json.gz").write_bytes(gzip.compress(b"{}"))
    (root / "ja" / "index.html").unlink()
    differences, _ = numbers.compare_site(root, ("en", "ja"))
    assert sorted(d.page for d in differences) == ["_downloads/0a1b/naive__prefill.trace.json.gz", "index.html"]
    assert numbers.main([str(root)]) == 1
    out = capsys.readouterr().out
    assert "index.html (ja): no such page" in out and "the trace differs" in out
    assert numbers.main([str(tmp_path / "nowhere")]) == 2


def test_the_remeasured_site_fails_and_names_the_figures(tmp_path, capsys):
    assert numbers.main([str(_site(tmp_path, "remeasured"))]) == 1
    out = capsys.readouterr().out
    assert "index.html: 7 number(s) differ" in out and "only in the first language: 95841" in out


@pytest.mark.slow
def test_the_guide_built_from_h200_results_shows_one_set_of_numbers(tmp_path):
    """The guide's pages (not the gallery) built in both languages from the recorded H200 results, the way the site
    builds them (:mod:`h200_guide`): the Japanese words around the figures (labels cut to other lengths, units
    written as words, "0%" said twice) hold no other number."""
    import h200_guide

    h200_guide.build(tmp_path)
    differences, compared = numbers.compare_site(tmp_path / "html", ("en", "ja"))
    assert compared >= 15 and differences == [], numbers.report(differences, compared)
    en = (tmp_path / "html" / "en" / "guide" / "decision.html").read_text(encoding="utf-8")
    assert len(numbers.numbers(en)) >= 40  # GPU figures on the page, compared
