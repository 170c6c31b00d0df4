"""``explain --measure`` in words, both languages: the warning when this machine is not the trace's, each call's
trace time and time here, the options, the verdict (saving, too close to call), a dry run's estimates, and why a
call or a whole trace was not measured. Every figure checked here is computed from the record, not typed."""

from __future__ import annotations

import re
from pathlib import Path

from attnprof import words
from attnprof.analysis import advice as judge
from attnprof.analysis import attention
from attnprof.analysis import explain as ex
from attnprof.noise import Figure
from attnprof.records import foreign
from attnprof.records.advice import Advice, Case, Measured, Option, Spec
from attnprof.records.results import Environment
from attnprof.render import advice as render
from attnprof.render import explain as report
from attnprof.render import explainhtml
from attnprof.words import fmt

DATA = Path(__file__).parent / "data" / "foreign"
SPEC = Spec((4, 8, 1024, 64), (4, 2, 1024, 64), (4, 2, 1024, 64), "fp32", "causal", gqa=True, train=True)
ENV = Environment("NVIDIA H100 80GB HBM3", "2.11.0+cu130", "3.12.3", "2026-12-03T00:00:00+00:00", "13.0")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def measured(tie: bool = False) -> Advice:
    bf16 = Spec(SPEC.query, SPEC.key, SPEC.value, "bf16", "causal", gqa=True, train=True)
    opts = [
        Measured(Option("recorded", "sdpa", "MATH", (), SPEC), "ok", None, Figure(900.0, 890.0, 910.0, 40)),
        Measured(
            Option("backend", "sdpa", "FLASH_ATTENTION", (), SPEC),
            "refuses",
            "Flash attention only supports fp16 and bf16 " + "x" * 200,
        ),
        Measured(Option("auto", "sdpa", None, (), SPEC), "ok", None, Figure(905.0, 880.0, 930.0, 40), ran="MATH"),
        Measured(
            Option("change", "sdpa", None, ("bf16",), bf16),
            "ok",
            None,
            Figure(895.0, 880.0, 910.0, 40) if tie else Figure(120.0, 118.0, 122.0, 40),
            ran="FLASH_ATTENTION",
        ),
    ]
    cases = [Case(1, [0, 1], "sdpa", "math", False, SPEC, 2.0, 850.0, opts),
             Case(2, [2], "sdpa", "flash", False, None, 2.0, 10.0, [], "no_shapes")]  # fmt: skip
    return Advice("hf.json.gz", "NVIDIA H200", "13.0", "cuda", "measured", None, 20000.0, cases, ENV,
                  ["gpu", "torch_unknown"], budget_s=120.0, estimate_s=2.0, seconds=1.5,
                  timer="cuda_event_prefilled")  # fmt: skip


def flat(sections) -> str:
    return "\n".join(report.section_text(s) for s in sections)


def test_a_saving_is_said_with_its_band_and_its_share_of_the_step():
    a = measured()
    text = flat(render.sections(a, "en"))
    v = judge.verdicts(a)[0]
    assert v.outcome == "faster"
    saves = v.saves_us
    assert f"It saves {fmt.number(saves.median)} µs per step [{fmt.number(saves.lo)}–{fmt.number(saves.hi)}]" in text
    assert fmt.percent(100 * saves.median / 20000.0) in text
    assert "Fastest here: SDPA's own choice + bf16." in text and "changes the numerics" in text
    assert "In the trace: 850 µs per call (GPU time, recorded on NVIDIA H200)." in text
    assert f"{fmt.number(900 / 850, 2)}× the trace's" in text
    assert "PyTorch refuses: Flash attention only supports fp16 and bf16" in text and "x" * 200 not in text
    assert "ran math" in text and "Changes: bf16 instead of fp32." in text
    assert "record_shapes=True" in text  # the call without shapes says how to record them


def test_another_gpu_is_a_loud_warning_first():
    head = render.sections(measured(), "en")[0]
    assert head.loud and head.loud[0].startswith("WARNING: This GPU is not the trace's")
    assert "NVIDIA H200" in head.loud[0] and "NVIDIA H100 80GB HBM3" in head.loud[0]
    assert any("does not record the PyTorch" in line for line in head.before)  # quiet: always true of a trace
    page = explainhtml.page(ex.explain(foreign.load(DATA / "h200" / "hf_sdpa_train.json.gz",
                                                    inputs_of=attention.wants_inputs)), None, "en",
                            render.sections(measured(), "en"))  # fmt: skip
    assert '<p class="loud" role="alert">WARNING: This GPU is not the trace' in page
    assert "Fastest here: SDPA&#x27;s own choice + bf16." in page


def test_overlapping_bands_are_too_close_to_call():
    a = measured(tie=True)
    text = flat(render.sections(a, "en"))
    assert "Too close to call: the call as recorded and" in text and "It saves" not in text
    assert "No option is faster than a call as recorded beyond the noise" in text
    assert "≈ " in text  # the vs column marks a difference within the noise


def test_japanese_is_japanese_and_carries_the_same_numbers():
    a = measured()
    ja = render.sections(a, "ja")
    saves = judge.verdicts(a)[0].saves_us
    text = flat(ja)
    assert "警告: この GPU はトレースの GPU ではありません" in text and "ここで最速" in text
    assert f"{fmt.number(saves.median)} µs [{fmt.number(saves.lo)}–{fmt.number(saves.hi)}]" in text
    for s in ja:  # every line of prose, and every title and header, is in Japanese
        for line in (s.title, *s.loud, *s.before, *s.after, *s.headers):
            assert JAPANESE.search(line), line


def test_a_dry_run_shows_estimates_and_no_times():
    x = ex.explain(foreign.load(DATA / "cpu-advice" / "hf_padded_infer.json.gz", inputs_of=attention.wants_inputs))
    plan = judge.plan(x, "cpu")
    plan.cases[0].options[0].seconds_estimate, plan.cases[0].options[0].bytes_estimate = 0.25, 43008
    text = flat(render.sections(plan, "en"))
    assert "Dry run: the plan only, nothing measured (distinct calls: 1, options: 7)" in text
    assert "about 0.2 s, 42 KiB" in text and "95 % band" not in text
    assert "the mask is rebuilt as the causal triangle" in text
    ja = flat(render.sections(plan, "ja"))
    assert "ドライラン" in ja and "推定" in ja


def test_no_device_says_what_is_needed():
    a = measured()
    a.status, a.reason = "no_device", "no CUDA device: torch.cuda.is_available() is False"
    (head,) = render.sections(a, "en")
    assert "this trace was recorded on NVIDIA H200, while this machine has no CUDA GPU" in head.before[0]
    assert "attnprof explain --measure where that GPU is" in head.before[0]
    assert "CUDA GPU がありません" in render.sections(a, "ja")[0].before[0]


def test_every_word_key_has_both_languages():
    keys = [k for k in words.TABLE if k.startswith("advice.")]
    assert len(keys) > 60
    for k in keys:
        assert words.placeholders(k, "en") == words.placeholders(k, "ja"), k
