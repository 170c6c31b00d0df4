"""Figures from other machines in the site (attnprof.sphinxext.bundles): the cross-GPU page and the "measured
elsewhere" sections from an H200 bundle (made from the recorded H200 results), the committed 2xH200 bundle and the
article's A100 figures, labelled, in both languages; bad bundles left out with one line; the context-parallel page
showing the recorded run on a build without two GPUs; and this build's own pages and verdicts the same with and
without bundles."""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

import pytest
from docutils import nodes

from attnprof import words
from attnprof.analysis import summary
from attnprof.records import files, parallel
from attnprof.words import fmt
from helpers import (
    H200_CEILINGS,
    TRACE_VARIANTS,
    analysed,
    doctree,
    h200_bundle,
    html,
    no_gpu_run,
    rows,
    tables,
    trace_result,
)

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
COMMITTED = DOCS / "bundles" / "h200x2-cp.tar.gz"
CROSS = "# Other GPUs\n\n```{cross-gpu}\n```\n"
ELSEWHERE = "# Decoding\n\n```{measured-elsewhere}\n:workload: decode\n```\n"


@pytest.fixture
def bundles(tmp_path: Path) -> Path:
    """A bundles folder: the H200 bundle, the committed 2xH200 one, and two bad ones."""
    folder = tmp_path / "bundles"
    folder.mkdir()
    h200_bundle(folder / "h200.tar.gz")
    shutil.copy(COMMITTED, folder)
    (folder / "broken.tar.gz").write_bytes(b"not a bundle")
    (folder / "later.tar.gz").write_bytes(COMMITTED.read_bytes()[:4000])
    return folder


@pytest.fixture(autouse=True)
def _no_folder_from_the_environment(monkeypatch):
    monkeypatch.delenv("ATTNPROF_BUNDLES_DIR", raising=False)


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_cross_gpu_page_labels_every_figure_and_leaves_bad_bundles_out(project, bundles, language, capsys):
    app = project({"index.md": CROSS}, (), language=language, attnprof_bundles_dir=str(bundles))
    assert app.warning.getvalue() == ""  # bad bundles are not warnings: the build goes on without them
    log = app.status.getvalue()
    assert log.count("attnprof: bundle left out:") == 2 and "broken.tar.gz is not a valid gzip file" in log
    text = html(app)
    say = lambda key, **f: words.text(key, language, **f)  # noqa: E731
    assert say("xgpu.skipped", n=2) in text and "later.tar.gz is a truncated gzip file" in text
    # sources: the H200 bundle and the article (the 2xH200 bundle holds no per-variant results)
    assert "NVIDIA H200, 2026-11-30" in text or "NVIDIA H200、2026-11-30" in text
    assert "https://huggingface.co/blog/torch-attention-profile" in text
    groups = tables(app, "attnprof-xgpu")
    assert len(groups) >= 4  # prefill, train, decode at two cache lengths
    prefill = rows(groups[0])
    machines = {r[1] for r in prefill}
    assert machines == {"NVIDIA H200", "NVIDIA A100-SXM4-80GB"}
    a100 = [r for r in prefill if r[1] == "NVIDIA A100-SXM4-80GB"]
    assert {r[0] for r in a100} == {"naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn"}
    assert all(r[2] == "2026-07-10" and r[3] == say("xgpu.source.published") for r in a100)
    assert [r[0] for r in a100 if r[7]] == ["sdpa_flash"]
    h200 = [r for r in prefill if r[1] == "NVIDIA H200"]
    assert all(r[3] == say("xgpu.source.bundle", origin="h200") for r in h200)
    flash = next(r for r in h200 if r[0] == "sdpa_flash")
    result, _ = trace_result("sdpa_flash")
    assert flash[6] == fmt.percent(100 * result.timing.tflops / H200_CEILINGS.matmul_tflops)
    assert len([r for r in h200 if r[7] == say("xgpu.fastest")]) == 1


@pytest.mark.parametrize("language", ["en", "ja"])
def test_on_a_build_of_the_same_gpu_its_bundle_is_not_another_gpu_and_the_methods_gap_is_measured(
    project, bundles, language
):
    # this build ran on an H200 (the variant pages' results made from the H200 traces)
    app = project({"index.md": CROSS}, TRACE_VARIANTS, language=language, attnprof_bundles_dir=str(bundles))
    assert app.warning.getvalue() == ""
    say = lambda key, **f: words.text(key, language, **f)  # noqa: E731
    text = doctree(app).astext()
    assert say("xgpu.same_gpu", gpu="NVIDIA H200", bundles="h200") in text
    groups = tables(app, "attnprof-xgpu")
    assert {r[1] for g in groups for r in rows(g)} == {"NVIDIA A100-SXM4-80GB"}  # the article's, and no H200
    # how far the profiler's GPU time of a call is from the CUDA-event time, over this build's variants
    ratios = sorted(x for v in TRACE_VARIANTS if (x := summary.profiled_over_timed(analysed(v))) is not None)
    assert len(ratios) >= 8 and min(ratios) > 0
    expected = say("xgpu.methods", device="NVIDIA H200", shape="8×16×1024×64", dtype="bfloat16", n=len(ratios),
                   low=fmt.percent(100 * ratios[0]), high=fmt.percent(100 * ratios[-1]),
                   mid=fmt.percent(100 * statistics.median(ratios)))  # fmt: skip
    assert expected in text
    # that figure is this build's: outside the box of other machines' figures
    (box,) = [n for n in doctree(app).findall(nodes.container) if "attnprof-elsewhere" in n["classes"]]
    assert expected not in box.astext()


def test_measured_elsewhere_shows_one_workload_or_says_there_is_none(project, bundles, tmp_path):
    app = project({"index.md": ELSEWHERE}, (), attnprof_bundles_dir=str(bundles))
    assert app.warning.getvalue() == ""
    groups = tables(app, "attnprof-xgpu")
    assert groups and all("KV cache" in g.children[0].astext() for g in groups)
    assert all(r[5].endswith("GB/s") for g in groups for r in rows(g))
    assert words.text("xgpu.elsewhere", "en") in html(app)
    empty = tmp_path / "empty"
    empty.mkdir()
    app = project({"index.md": ELSEWHERE}, (), attnprof_bundles_dir=str(empty))
    assert app.warning.getvalue() == "" and tables(app, "attnprof-xgpu") == []
    assert f"No figures from other machines for this workload: no bundle in {empty} measured it." in html(app)
    inside = tmp_path / "src" / "docs" / "bundles"
    inside.mkdir(parents=True)
    app = project({"index.md": ELSEWHERE}, (), attnprof_bundles_dir="docs/bundles", language="ja")
    assert "docs/bundles のどのバンドルも測っていません" in html(app)


def test_the_environment_variable_names_the_folder(project, bundles, monkeypatch):
    monkeypatch.setenv("ATTNPROF_BUNDLES_DIR", str(bundles))
    app = project({"index.md": ELSEWHERE}, (), attnprof_bundles_dir="nowhere")
    assert tables(app, "attnprof-xgpu")


ANCHORS = ("glossary-context-parallelism", "glossary-ring-attention", "glossary-rank", "glossary-nccl",
           "glossary-collectives", "glossary-speed-up")  # fmt: skip
PARALLEL_STUBS = {
    "index.md": "# Site\n\n```{toctree}\nguide/parallel\nguide/glossary\nguide/methodology\n"
    "auto_examples/14-context-parallel\n```\n",
    "guide/methodology.md": "# Methodology\n\nStub.\n",
    "auto_examples/14-context-parallel.md": "# The script\n\nStub.\n",
    "guide/glossary.md": "# Glossary\n\n" + "".join(f"({a})=\n**{a}**\n: stub.\n\n" for a in ANCHORS),
}


def _parallel_page(project, tmp_path: Path, bundles_dir: Path, language: str):
    parallel.save(no_gpu_run("too_few_gpus", "context parallelism needs at least 2 GPUs"), tmp_path / "results")
    pages = {**PARALLEL_STUBS, "guide/parallel.md": (DOCS / "guide" / "parallel.md").read_text()}
    return project(pages, (), language=language, attnprof_bundles_dir=str(bundles_dir))


@pytest.mark.parametrize("language", ["en", "ja"])
def test_without_two_gpus_the_cp_page_shows_the_recorded_run_labelled(project, tmp_path, language):
    folder = tmp_path / "cp-bundles"
    folder.mkdir()
    shutil.copy(COMMITTED, folder)
    app = _parallel_page(project, tmp_path, folder, language)
    assert app.warning.getvalue() == ""
    say = lambda key, **f: words.text(key, language, **f)  # noqa: E731
    text = html(app, "guide/parallel")
    label = say("par.recorded.label", machine="2× NVIDIA H200", date="2026-12-01", bundle="h200x2-cp")
    assert say("par.recorded.title") in text and text.count(label) >= 6
    assert say("par.status.not_run_title") in text  # this build's own status stays first
    live = say("par.status.ok", world=2, gpu="X", launcher="", nccl="", torch="", batch=2, heads=16, head_dim=64,
               dtype="", causal="", backend="", balance="", seqs="", methods="")  # fmt: skip
    assert live.split("2 × X")[0] not in text  # nothing says the recorded run was measured here
    recorded_words = say(
        "par.recorded.ok", world=2, gpu="NVIDIA H200", date="2026-12-01", launcher="torch.multiprocessing (spawn)",
        nccl="2.28.9", torch="2.11.0+cu130", batch=2, heads=16, head_dim=64, dtype="bfloat16",
        causal=say("par.causal"), backend="flash", balance=say("par.on"), seqs="32768, 65536",
        methods=", ".join(say(f"par.method.{m}") for m in parallel.METHODS))  # fmt: skip
    assert recorded_words in text
    table = rows(tables(app, "attnprof-parallel-table", "guide/parallel")[0])
    recorded = parallel.ParallelRun.from_dict(files.read_json(ROOT / "tests/data/workloads/cp/runner-h200x2.json.gz"))
    assert [int(r[1]) for r in table] == sorted(c.seq for c in recorded.cases)
    claims = rows(tables(app, "attnprof-parallel-claims", "guide/parallel")[0])
    assert all(r[1] == say("verdict.unmeasurable") for r in claims)  # no verdict from the recorded run
    assert say("par.recorded.no_verdict") in text


def test_the_builds_own_pages_and_verdicts_are_the_same_with_and_without_bundles(project, bundles, tmp_path):
    own = "# Own\n\n```{claims} C1 C2 C3 C15\n```\n\n```{kernel-table} sdpa_flash\n```\n"
    empty = tmp_path / "none"
    empty.mkdir()
    variants = ("naive", "naive_inplace", "sdpa_math", "sdpa_efficient", "sdpa_flash", "sdpa_cudnn")
    without = html(project({"index.md": own}, variants, attnprof_bundles_dir=str(empty)))
    with_ = html(project({"index.md": own}, variants, attnprof_bundles_dir=str(bundles)))
    assert without == with_
    claims_without = rows(tables(_parallel_page(project, tmp_path, empty, "en"), "attnprof-parallel-claims",
                                 "guide/parallel")[0])  # fmt: skip
    shutil.copy(COMMITTED, empty)
    claims_with = rows(tables(_parallel_page(project, tmp_path, empty, "en"), "attnprof-parallel-claims",
                              "guide/parallel")[0])  # fmt: skip
    assert claims_with == claims_without


def test_a_rebuild_with_the_same_bundles_reads_no_page_and_a_new_bundle_reads_it_again(make_app, tmp_path):
    """A page that shows other machines depends on the list of bundles and on each bundle, not on their folder (a
    dependency that is not a file re-reads the page on every build: five pages of every H200 rebuild did)."""
    from attnprof.records import buildtimes
    from conftest import CONF

    folder, src = tmp_path / "bundles", tmp_path / "src"
    folder.mkdir()
    src.mkdir()
    shutil.copy(COMMITTED, folder)
    extra = f"attnprof_bundles_dir = {str(folder)!r}"
    (src / "conf.py").write_text(CONF.format(results=str(tmp_path / "results"), extra=extra))
    (src / "index.md").write_text(ELSEWHERE)
    apps: list = []

    def pages_read() -> list[str]:
        if apps:
            apps[-1].cleanup()
        apps.append(make_app("html", srcdir=src, builddir=src / "_build"))
        apps[-1].build()
        assert apps[-1].warning.getvalue() == ""
        return buildtimes.load(apps[-1].doctreedir).read_docs

    assert pages_read() == ["index"]
    assert pages_read() == []
    h200_bundle(folder / "h200.tar.gz")
    assert pages_read() == ["index"]
    assert pages_read() == []
