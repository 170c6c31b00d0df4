"""attnprof.site.provenance: no words of this build's own measurement inside a box of another machine's figures, on
pages built from the guide's parallel page with the recorded 2xH200 run, in both languages, and on a planted
violation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from attnprof import words
from attnprof.records import parallel
from attnprof.site import provenance
from helpers import DATA, PARALLEL_STUBS, h200_sweep, no_gpu_run

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
COMMITTED = DOCS / "bundles" / "h200x2-cp.tar.gz"


@pytest.fixture
def site(project, tmp_path):
    """``site(language) -> html root``: the guide's parallel page on a one-GPU build that has a sweep, with the
    recorded 2xH200 run as its bundle; the built language folder copied under ``tmp_path / "site"``."""

    def build(language: str) -> Path:
        parallel.save(no_gpu_run("too_few_gpus", "context parallelism needs at least 2 GPUs"), tmp_path / "results")
        bundles = tmp_path / "cp-bundles"
        bundles.mkdir(exist_ok=True)
        shutil.copy(COMMITTED, bundles)
        pages = {**PARALLEL_STUBS, "guide/parallel.md": (DOCS / "guide" / "parallel.md").read_text()}
        app = project(pages, (), sweep_data=h200_sweep(), language=language, attnprof_bundles_dir=str(bundles))
        assert app.warning.getvalue() == ""
        out = tmp_path / "site" / language
        shutil.copytree(app.outdir, out, dirs_exist_ok=True)
        return out.parent

    return build


def test_the_recorded_run_is_never_called_this_builds_on_the_built_site(site):
    for language in words.LANGUAGES:
        root = site(language)
    found, boxes = provenance.check_site(root)
    assert found == [] and boxes >= 6  # the recorded run's boxes were read, in both languages
    page = (root / "en" / "guide" / "parallel.html").read_text(encoding="utf-8")
    # which backend the recorded run forced, against the one SDPA picks on this build's GPU (its sweep)
    assert "The recorded run forced flash" in page and "SDPA's choice run cuDNN in" in page
    assert "Recorded in that run, not measured by this machine" in page


def test_a_recorded_figure_called_this_builds_fails_the_check(site, capsys):
    root = site("en")
    path = root / "en" / "guide" / "parallel.html"
    html = path.read_text(encoding="utf-8")
    planted = html.replace("Recorded in that run, not measured by this machine", "Measured by this build", 1)
    assert planted != html
    path.write_text(planted, encoding="utf-8")
    found, _ = provenance.check_site(root, ["en"])
    assert [(f.page, f.phrase) for f in found] == [("guide/parallel.html", "Measured by this build")]
    assert provenance.main([str(root), "--languages", "en"]) == 1
    assert "recorded figures called this build's: 1 in" in capsys.readouterr().err


def test_outside_the_boxes_this_builds_words_are_fine_and_the_patterns_take_any_figures():
    own = words.text("par.model.check", "en", world=2, model="5 ms", measured="6 ms")
    assert provenance.mislabels_in(f"<p>{own}</p>", "en") == []
    boxed = f'<div class="attnprof-elsewhere"><p>x</p><div><p>{own}</p></div></div>'
    assert provenance.mislabels_in(boxed, "en") == ["par.model.check"]
    ja = words.text("par.model.basis", "ja", seq=32768, backend="flash", single="14 ms", tflops="1", busbw="2",
                    world=2, method="m", overlap="50 %")  # fmt: skip
    assert provenance.mislabels_in(f'<section class="attnprof-elsewhere">{ja}</section>', "ja") == [
        "par.model.basis", "このビルドの計測値"]  # fmt: skip


def test_a_site_not_built_is_status_2(tmp_path, capsys):
    assert provenance.main([str(tmp_path)]) == 2
    assert "build the site first" in capsys.readouterr().err
    assert DATA.is_dir()
