"""site.pages: the pages of a built site that the site checks read, and their shared command line."""

from __future__ import annotations

from pathlib import Path

from attnprof.site import pages


def _site(root: Path) -> Path:
    for rel, text in {"en/index.html": "<p>home</p>", "en/guide/a.html": "<p>a</p>", "en/_static/x.html": "no",
                      "en/_sources/index.html": "no", "ja/index.html": "<p>ホーム</p>"}.items():  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_each_gives_every_page_of_every_language_and_none_of_sphinxs_folders(tmp_path):
    got = list(pages.each(_site(tmp_path), ["en", "ja"]))
    assert got == [("en", "guide/a.html", "<p>a</p>"), ("en", "index.html", "<p>home</p>"),
                   ("ja", "index.html", "<p>ホーム</p>")]  # fmt: skip
    assert [lang for lang, _, _ in pages.each(tmp_path, ["ja"])] == ["ja"]


def test_the_command_reports_to_the_right_stream_with_the_right_status(tmp_path, capsys):
    site = _site(tmp_path)
    seen = []

    def check(html, languages):
        seen.append((html, languages))
        return f"{len(languages)} language(s)", languages == ["en", "ja"]

    assert pages.command("p", "d", [str(site), "--languages", "ja"], check) == 0
    assert capsys.readouterr().out == "1 language(s)\n"
    assert pages.command("p", "d", [str(site)], check) == 1
    assert capsys.readouterr().err == "2 language(s)\n"
    assert seen == [(site, ["ja"]), (site, ["en", "ja"])]
    assert pages.command("p", "d", [str(site), "--languages", "en", "fr"], check) == 2
    assert capsys.readouterr().err == f"no fr pages in {site}: build the site first\n" and len(seen) == 2
