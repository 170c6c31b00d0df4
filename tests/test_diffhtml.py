"""render.diffhtml: the comparison as one self-contained page, in both languages."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from attnprof.analysis import diff
from attnprof.render import diff as report
from attnprof.render import diffhtml
from helpers import FOREIGN, explained

H200 = FOREIGN / "h200"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_the_page_holds_every_section_as_a_table_and_fetches_nothing():
    d = diff.diff(diff.side(explained(H200 / "hf_sdpa_train.json.gz")),
                  diff.side(explained(H200 / "hf_eager_train.json.gz")))  # fmt: skip
    for lang in ("en", "ja"):
        page = diffhtml.page(d, lang)
        assert page.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in page
        assert not re.search(r"""(src|href)=["']?https?:|<link|@import|<script""", page)
        tags = Tags()
        tags.feed(page)
        sections = report.sections(d, lang)
        assert tags.tags.count("table") == sum(1 for s in sections if s.headers)
        assert tags.tags.count("h2") == len(sections)
        text = "".join(tags.text)
        assert all(s.title in text for s in sections)
        assert "cuDNN sdpa flash fprop" in text
