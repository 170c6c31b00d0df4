"""The context-parallelism directives of attnprof.sphinxext, and the guide's page that uses them
(docs/guide/parallel.md), built in tiny Sphinx projects against the run recorded on 2 x H200 and against the file a
build without two GPUs writes, in English and Japanese."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from docutils import nodes

from attnprof import words
from attnprof.analysis import claims, parallelmodel
from attnprof.records import parallel
from helpers import PARALLEL_STUBS, h200x2_run, html, no_gpu_run, rows, tables

DOCS = Path(__file__).parent.parent / "docs"


@pytest.fixture
def page(project, tmp_path: Path) -> Callable:
    """``page(run, language) -> app``: the guide's page, built against ``run`` saved in the results folder."""

    def build(run: parallel.ParallelRun | None, language: str = "en", text: str | None = None):
        folder = tmp_path / "results"
        if run is not None and run.ok:
            h200x2_run(folder=folder)  # the ranks' traces
        if run is not None:
            parallel.save(run, folder)
        pages = {**PARALLEL_STUBS, "guide/parallel.md": text or (DOCS / "guide" / "parallel.md").read_text()}
        return project(pages, (), language=language)

    return build


def _table(app, cls: str) -> list[list[str]]:
    (table,) = tables(app, cls, "guide/parallel")
    return rows(table)


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_page_renders_every_measurement_of_the_recorded_run(page, language):
    app = page(h200x2_run(), language)
    assert app.warning.getvalue() == ""
    run = h200x2_run()
    say = lambda key, **f: words.text(key, language, **f)  # noqa: E731
    text = html(app, "guide/parallel")
    assert say("par.status.ok", world=2, gpu="NVIDIA H200", launcher=run.launcher, nccl="2.28.9",
               torch="2.11.0+cu130", batch=2, heads=16, head_dim=64, dtype="bfloat16", causal=say("par.causal"),
               backend="flash", balance=say("par.on"), seqs="32768, 65536, 131072",
               methods=", ".join(say(f"par.method.{m}") for m in parallel.METHODS)) in text  # fmt: skip
    table = _table(app, "attnprof-parallel-table")
    assert [r[:2] for r in table] == [[say(f"par.method.{m}"), str(s)] for s in (32768, 65536, 131072)
                                      for m in parallel.METHODS]  # fmt: skip
    assert table[4][2:6] == ["226", "118", say("ratio.faster", ratio="1.92"), "96.0\xa0%"]  # the speed-up, in words
    assert table[4][8:] == ["0.994", "1.1e-03"]
    ranks = _table(app, "attnprof-parallel-ranks")
    assert [r[:3] for r in ranks] == [[say(f"par.method.{m}"), "131072", str(k)] for m in parallel.METHODS
                                      for k in (0, 1)]  # fmt: skip
    kernels = _table(app, "attnprof-parallel-kernels")
    # the first method only, per rank: the NCCL kernel and two attention chunks, in the order they ran
    assert [(r[0], r[1], r[2]) for r in kernels] == [(say("par.method.allgather"), str(k), p) for k in (0, 1)
                                                     for p in ("", "1", "2")]  # fmt: skip
    flash = [r for r in kernels if r[2]]
    assert [r[5] for r in flash] == [say("par.mask.yes"), say("par.mask.no")] * 2
    label = {"en": "flash_fwd hd64 128x128 (bf16 causal)", "ja": "flash_fwd hd64 128x128 (bf16、因果マスク)"}
    assert flash[0][3] == label[words.language(language)] and flash[0][6] == "512×2×16"
    assert flash[1][6] == "256×2×16" and flash[3][6] == "512×2×16"  # rank 0's second pass: half the queries
    assert kernels[0][3] == "NCCL AllGather (ring, LL)" and "allgather_into_tensor_coalesced" in kernels[0][6]
    assert "1024" in kernels[0][6]  # MiB: k and v of the whole sequence, bf16
    assert len(_table(app, "attnprof-parallel-memory")) == 6
    model = _table(app, "attnprof-parallel-model")
    assert [r[0] for r in model] == [str(n) for n in parallelmodel.GPU_COUNTS]
    verdicts = _table(app, "attnprof-parallel-claims")
    expected = claims.check_parallel(run, language)
    assert [r[0] for r in verdicts] == [v.claim for v in expected]
    assert [r[1] for r in verdicts] == [say(f"verdict.{v.verdict}") for v in expected]
    assert all(v.measured in r[3] for r, v in zip(verdicts, expected, strict=True))
    closing = [li.astext() for li in _doctree_lists(app, "attnprof-parallel-closing")]
    assert len(closing) == 6 and say("par.times", value="1.92") in closing[2]
    assert 'class="attnprof-timeline' in text
    for rank in (0, 1):  # each rank's raw trace of the drawn case, published with the page: the link and its text
        assert text.count(f"parallel__cuda__flash__allgather__S32768__rank{rank}.trace.json.gz") == 2


def _doctree_lists(app, cls: str) -> list[nodes.list_item]:
    tree = app.env.get_doctree("guide/parallel")
    (items,) = [b for b in tree.findall(nodes.bullet_list) if cls in b["classes"]]
    return list(items.findall(nodes.list_item))


def test_the_timeline_is_drawn_once_per_language_with_its_caption_as_alt_text(page, tmp_path: Path):
    app = page(h200x2_run(), "en")
    pngs = sorted((tmp_path / "results" / "timelines").glob("*.png"))
    assert [p.name for p in pngs] == ["parallel__cuda__flash__allgather__S32768.en.png"]
    assert 'alt="One profiled step at the shortest sequence' in html(app, "guide/parallel")


def test_without_two_gpus_the_page_says_why_and_how_and_shows_no_number(page):
    app = page(no_gpu_run(), "en")
    assert app.warning.getvalue() == ""
    text = html(app, "guide/parallel")
    assert "Not measured in this build" in text and "at least 2 CUDA GPUs" in text
    blocks = [b.astext() for b in app.env.get_doctree("guide/parallel").findall(nodes.literal_block)]
    assert blocks == [parallel.TORCHRUN_COMMAND, parallel.PLAIN_COMMAND]
    assert text.count(words.text("par.not_measured", "en")) == 7  # every directive but the status and the claims
    assert tables(app, "attnprof-parallel-table", "guide/parallel") == []
    assert all(r[1] == "not measurable here" for r in _table(app, "attnprof-parallel-claims"))
    assert "timelines" not in text


def test_fewer_than_two_gpus_in_japanese(page):
    run = no_gpu_run("too_few_gpus", "context parallelism needs at least 2 GPUs; torch.cuda.device_count() = 1")
    app = page(run, "ja")
    assert app.warning.getvalue() == ""
    text = html(app, "guide/parallel")
    assert (
        "このビルドでは計測していません" in text
        and "GPU が 2 基未満" in text
        and "torch.cuda.device_count() = 1" in text
    )


def _warned(app, *parts: str) -> None:
    for part in parts:
        assert part in app.warning.getvalue()
    assert "attnprof-problem" in html(app, "guide/parallel")


def test_a_missing_or_stale_file_is_a_warning(page, tmp_path: Path):
    app = page(None, "en", "# CP\n\n```{parallel-table}\n```\n\n```{parallel-claims}\n```\n")
    _warned(app, "no context-parallel run file (parallel__cuda.json or parallel__cpu.json)")
    assert all(r[1] == "not measurable here" for r in _table(app, "attnprof-parallel-claims"))
    (tmp_path / "results" / "parallel__cuda.json").write_text('{"schema_version": 7}')
    app = page(None, "en", "# CP\n\n```{parallel-status}\n```\n")
    _warned(app, "stale or unreadable context-parallel run file", "schema version 7")


def test_a_case_that_did_not_run_is_a_warning_where_the_page_names_it(page):
    app = page(h200x2_run(), "en", "# CP\n\n```{parallel-ranks}\n:seq: 4096\n```\n")
    _warned(app, "This build has no case that ran for allgather, alltoall at S = 4096")


def test_options_pick_one_case(page):
    app = page(h200x2_run(), "en", "# CP\n\n```{parallel-ranks}\n:method: alltoall\n:seq: 32768\n```\n")
    assert app.warning.getvalue() == ""
    assert [r[:3] for r in _table(app, "attnprof-parallel-ranks")] == [["all-to-all", "32768", "0"],
                                                                       ["all-to-all", "32768", "1"]]  # fmt: skip


def test_cases_that_failed_are_listed_under_the_status(page):
    run = h200x2_run()
    failed = parallel.ParallelCase("math", "allgather", 32768, "unsupported",
                                   reason="RuntimeError: aten.add.Tensor got mixed torch.Tensor and DTensor",
                                   ranks=[parallel.RankRun(0, sdpa_restored=True), parallel.RankRun(1)])  # fmt: skip
    run.cases.append(failed)
    app = page(run, "en", "# CP\n\n```{parallel-status}\n```\n\n```{parallel-table}\n```\n")
    text = html(app, "guide/parallel")
    assert "Cases that did not run:" in text and "got mixed torch.Tensor and DTensor" in text
    assert "the runner put the original back" in text and "not supported here: RuntimeError" in text
