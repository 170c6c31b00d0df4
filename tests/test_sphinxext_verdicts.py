"""attnprof.sphinxext.verdicts: the decision table and the landing page's answer, built in tiny Sphinx projects
against the 2xH200 recordings, the results of a real H200 build, and side-by-side issue times made up for a test."""

from __future__ import annotations

import gzip
import shutil

import pytest
from docutils import nodes

from attnprof import words
from attnprof.noise import Figure
from helpers import DATA, doctree, fixed_costs, h200_build_results, h200_sweep, html, rows, tables

PAGE = """\
# Workloads

```{decision}
```

```{decision-summary}
:link: other
```

```{toctree}
other
```
"""
OTHER = "# Other\n\nThe decision.\n"


@pytest.fixture
def built(project):
    pages = {"index.md": PAGE, "other.md": OTHER}
    fixed = fixed_costs(Figure(8.01, 7.93, 8.12, 20))
    return lambda language="en", **kw: project(pages, workloads=True, sweep_data=h200_sweep(), fixed=fixed,
                                               language=language, **kw)  # fmt: skip


def text_of(app) -> str:
    return doctree(app).astext().replace("\u00a0", " ")


def test_every_row_gives_the_best_per_step_its_regime_the_margin_and_the_reason(built):
    app = built()
    assert app.warning.getvalue() == ""
    (table,) = tables(app, "attnprof-decision-table")
    body = [[c.replace("\u00a0", " ") for c in r] for r in rows(table)]
    assert [r[0] for r in body] == ["Training"] + ["Prefill"] * 6 + ["Decoding"] * 5
    train = body[0]
    assert train[1] == "seq 1024"
    # the best way per step with its band, and its regime from the GPU's and the CPU's times (own runs: marked)
    assert train[2].split("\n\n") == [
        "SDPA's choice (cuDNN): 258 µs (250–271)",
        "balanced: issue 247 µs, GPU 258 µs †",
    ]
    assert train[3].split("\n\n")[0] == "sdpa_flash: +58 % (+46 % to +68 %)"
    assert train[4].startswith("SDPA already picks cuDNN here")
    decode = {r[1]: r for r in body if r[0] == "Decoding"}
    # KV 1024: CPU-bound; forcing the faster cuDNN kernel costs more per step than leaving SDPA alone
    short = decode["KV cache 1024"]
    assert short[2].split("\n\n")[1] == "CPU-bound: issue 24.9 µs, GPU 15.6 µs †"
    assert "forcing sdpa_cudnn, whose kernel is faster, makes a step longer by +134 % (+91 % to +186 %)" in short[4]
    assert decode["KV cache 131072"][3].split("\n\n")[-1] == "too close to call"
    assert "† Issue time from the variant's own run" in text_of(app)


def test_the_answer_of_the_landing_page_groups_lengths_with_one_verdict(built):
    app = built()
    text = text_of(app)
    assert "Measured on NVIDIA H200:" in text
    assert "Prefill (batch 8, 16 heads, head_dim 64, bfloat16, causal mask):" in text
    # six lengths, one verdict: one line, the margins as a range with the range of their bands
    assert ("seq 512–16384: SDPA's choice (cuDNN); next sdpa_flash, +18 % to +27 % (bands +11 % to +35 %) per step; "
            "GPU-bound. SDPA already picks its best backend here (cuDNN): do not force.") in text  # fmt: skip
    assert (
        "KV cache 1024: SDPA's choice (an unnamed backend); next sdpa_cudnn, +134 % (+91 % to +186 %) per step; "
        "CPU-bound." in text
    )
    assert 'href="other.html"' in html(app)


def test_side_by_side_issue_times_price_forcing_on_the_page(built, tmp_path):
    from attnprof.records import forcing
    from attnprof.records.forcing import Forcing, ForcingCase, IssueRow
    from helpers import h200_environment

    def row(v: str, issue: float, over: float | None) -> IssueRow:
        return IssueRow(v, issue=Figure(issue, 0.97 * issue, 1.03 * issue, 12),
                        over_auto=None if over is None else Figure(over, over - 3, over + 3, 12))  # fmt: skip

    case = ForcingCase(
        "decode",
        [8, 32, 1, 128],
        "bfloat16",
        8,
        8192,
        12,
        3,
        [row("sdpa_auto", 33.0, None), row("sdpa_cudnn", 85.0, 52.0), row("sdpa_flash", 95.0, 62.0)],
    )
    folder = tmp_path / "results"
    folder.mkdir(parents=True, exist_ok=True)
    forcing.save(Forcing("cuda", h200_environment(), [case]), folder)  # made up for the test
    app = built()
    (table,) = tables(app, "attnprof-decision-table")
    r = next(r for r in rows(table) if r[1] == "KV cache 8192")
    advice = r[4].replace("\u00a0", " ")
    # 71.5 µs on the GPU hides the 33 µs issue time of SDPA's own choice, and the 52 µs forcing cuDNN adds
    assert advice == ("SDPA already picks cuDNN here; forcing it adds 52.0 µs of CPU per call (49.0–55.0), hidden "
                      "behind the GPU's 71.5 µs: nothing to gain by forcing.")  # fmt: skip
    assert "GPU-bound: GPU 71.5 µs, issue 33.0 µs" in r[2] and "†" not in r[2]


def test_japanese_words(built):
    app = built("ja")
    assert app.warning.getvalue() == ""
    page = html(app)
    for key in ("col.best_step", "col.next_step", "col.what_to_do", "verdict.regime_word.gpu"):
        assert words.text(key, "ja") in page, key
    text = text_of(app)
    assert "SDPA はここで既に cuDNN を選んでいます" in text and "CPU 律速: 発行 24.9 µs、GPU 15.6 µs †" in text


@pytest.fixture
def h200_site(project, tmp_path):
    """The answer and the decision page's tables of a real H200 build (tests/data/h200-build.tar.gz), with the H200
    mask run and training-scale grid of tests/data (recorded before the issue times: their regimes not measured)."""
    folder = h200_build_results(tmp_path / "results")
    shutil.copy(DATA / "masks" / "h200" / "masks__cuda.json", folder)
    (folder / "trainscale__cuda.json").write_bytes(gzip.decompress((DATA / "trainscale__cuda.json.gz").read_bytes()))
    page = "# Site\n\n```{decision-summary}\n```\n\n" + "".join(
        f"```{{verdict-table}}\n:family: {f}\n```\n\n" for f in ("train_scale", "gqa", "masks")
    )
    return lambda language="en": project({"index.md": page}, (), language=language)


def test_the_answer_of_a_real_h200_build_on_one_screen(h200_site):
    app = h200_site()
    assert app.warning.getvalue() == ""
    (answer,) = [n for n in doctree(app).findall(nodes.bullet_list) if "attnprof-decision-summary" in n["classes"]]
    heads = [item[0].astext() for item in answer.children]
    assert [h.split(" (")[0] for h in heads] == [
        "Training", "Training across lengths, head_dim 64", "Training across lengths, head_dim 128", "Prefill",
        "Decoding", "Sliding window, seq 8192", "Packed documents, seq 8192", "Prefix-LM, seq 8192", "Grouped heads",
    ]  # fmt: skip
    parts = [p.astext().replace("\u00a0", " ") for item in answer.children for p in item[1].children]
    assert len(parts) <= 12  # one screen: a line per group of lengths that share a verdict
    # every part: the best, the margin over the next with its band, the regime, and the reason (its own sentence)
    assert all(("per step" in p or "too close to call" in p) and "(" in p and p.count(". ") >= 1
               for p in parts)  # fmt: skip
    text = text_of(app)
    assert ("seq 1024: SDPA's choice (cuDNN); next sdpa_flash, +73 % (+34 % to +112 %) per step; CPU-bound. SDPA "
            "already picks its best backend here (cuDNN): do not force.") in text  # fmt: skip
    assert "seq 1024–16384: sdpa_cudnn; next sdpa_flash, +59 % to +63 % (bands +50 % to +74 %)" in text
    assert (
        "Grouped heads (batch 4, 16 query heads, seq 1024, head_dim 64, bfloat16, causal mask; refused by "
        "sdpa_efficient):" in text
    )
    assert "Prefill and Training, window 256, 1024: flex; next SDPA's choice (cuDNN), 7.45× to 18.6×" in text


def test_the_decision_pages_other_tables_by_the_same_rule(h200_site):
    app = h200_site("ja")
    assert app.warning.getvalue() == ""
    scale, gqa, mask = (tables(app, f"attnprof-verdicts-{f}") for f in ("train_scale", "gqa", "masks"))
    assert [r[0] for r in rows(scale[0])][:2] == ["head_dim 64、系列長 1024", "head_dim 64、系列長 2048"]
    assert len(rows(scale[0])) == 10 and len(rows(gqa[0])) == 2 and len(rows(mask[0])) == 8
    first = rows(mask[0])[0]
    assert first[0] == "スライディングウィンドウ、ウィンドウ 256、系列長 8192: プリフィル"
    assert first[1].startswith("flex: 122 µs") and "発行時間は計測なし" in first[1]


def test_a_saving_the_advice_takes_is_an_amount_and_one_within_the_noise_keeps_its_sign():
    from attnprof.analysis.verdicts import Cost, Option, sdpa_advice
    from attnprof.sphinxext.verdicts import VerdictWords

    def f(median, lo=None, hi=None):
        return Figure(median, median if lo is None else lo, median if hi is None else hi, 12)

    auto, flash = (
        Option("sdpa_auto", Cost(f(1000.0), f(60.0)), "flash"),
        Option("sdpa_flash", Cost(f(1000.0), f(70.0))),
    )
    force = sdpa_advice([auto, Option("sdpa_cudnn", Cost(f(800.0), f(90.0))), flash])
    cpu = Option("sdpa_auto", Cost(f(20.0), f(60.0)), "flash")
    no_gain = sdpa_advice(
        [cpu, Option("sdpa_cudnn", Cost(f(16.0), f(55.0))), Option("sdpa_flash", Cost(f(20.0), f(70.0)))]
    )
    assert (force.advice, no_gain.advice) == ("force", "no_gain")
    fields = VerdictWords.saving_fields(VerdictWords.__new__(VerdictWords), force)  # no page: the words alone
    assert fields["median"][0].isdigit() and not fields["lo"].startswith(("+", "\u2212"))  # "saves 20 % of a step"
    kept = VerdictWords.saving_fields(VerdictWords.__new__(VerdictWords), no_gain)
    assert kept["median"].startswith("+") and kept["lo"].startswith("\u2212")  # within the noise: either way
