"""``attnprof explain --measure`` in words: what each attention call of a trace costs here, its options, and what the
fastest would save (:class:`~attnprof.records.advice.Advice`, judged by :mod:`attnprof.analysis.advice`), as the
sections the text (:func:`attnprof.render.explain.text`) and the page (:func:`attnprof.render.explainhtml.page`)
lay out after the reading, in English or Japanese.

Rendering only: every figure comes from the record and its verdicts; every word from :mod:`attnprof.words` (keys
``advice.*``); PyTorch's own messages, backends, op names and code stay as they are.
"""

from __future__ import annotations

from attnprof import noise, words
from attnprof.analysis import advice as judge
from attnprof.analysis.advice import Verdict
from attnprof.records.advice import Advice, Case, Measured, Option, Spec
from attnprof.render.explain import Section, kind_text
from attnprof.words import fmt
from attnprof.words.fmt import human_bytes, human_seconds

#: PyTorch's reasons are cut to this many characters in the tables (the JSON has them whole).
REASON_WIDTH = 90
#: The backends as SDPA names them -> as the reading names them.
BACKEND_NAMES = {v: k for k, v in judge.SDPA_BACKENDS.items()}


def _backend(name: str | None) -> str:
    return BACKEND_NAMES.get(name or "", name or "?")


def fill_text(fill: str, lang: str | None = None) -> str:
    """``sliding=256`` -> ``a causal window of 256 positions``."""
    kind, _, n = fill.partition("=")
    if kind == "sliding":
        return words.text("advice.fill.sliding", lang, w=n)
    if kind == "documents":
        return words.text("advice.fill.documents", lang, n=n)
    return words.text("advice.fill.causal", lang)


def spec_text(s: Spec, lang: str | None = None) -> str:
    """``q 4×8×1024×64, k 4×2×1024×64, v 4×2×1024×64 bf16, causal, GQA, training``."""
    parts = [f"q {fmt.dims(s.query)}, k {fmt.dims(s.key)}, v {fmt.dims(s.value)} {s.dtype}"]
    if s.mask == "causal":
        parts.append(words.text("explain.inputs.causal", lang))
    elif s.mask in ("bool", "float"):
        parts.append(words.text(f"advice.spec.{s.mask}", lang, shape=fmt.dims(s.mask_shape)))
    if s.gqa:
        parts.append(words.text("explain.inputs.gqa", lang))
    if s.expanded_from:
        parts.append(words.text("advice.spec.expanded", lang, heads=s.expanded_from))
    if s.dropout:
        parts.append(words.text("explain.inputs.dropout", lang, p=f"{s.dropout:g}"))
    if s.fp32_softmax:
        parts.append(words.text("advice.spec.fp32_softmax", lang))
    if s.strides:
        parts.append(words.text("advice.spec.strided", lang))
    if s.train:
        parts.append(words.text("advice.spec.train", lang))
    return ", ".join(parts)


def option_text(o: Option, lang: str | None = None) -> str:
    """``as recorded (cudnn forced)``, ``SDPA, flash forced``, ``SDPA's own choice, bf16 instead of fp32``..."""
    if o.code == "recorded":
        how = (words.text("advice.how.handwritten", lang) if o.method == "handwritten"
               else words.text("advice.how.backend", lang, backend=_backend(o.backend)) if o.backend
               else words.text("advice.how.auto", lang))  # fmt: skip
        return words.text("advice.option.recorded", lang, how=how)
    changes = [words.text(f"advice.change.{c}", lang) for c in o.named_changes]
    if o.flex:
        return words.text("advice.option.flex", lang, changes="".join(" + " + c for c in changes))
    if o.code == "backend":
        return words.text("advice.option.backend", lang, backend=_backend(o.backend))
    if not changes:
        return words.text("advice.option.auto", lang)
    return words.text("advice.option.change", lang, changes=" + ".join(changes))


def _caveats(o: Option, lang: str | None) -> list[str]:
    return [words.text(f"advice.caveat.{c}", lang) for c in o.changes if words.has(f"advice.caveat.{c}")]


def _band(f: noise.Figure) -> str:
    return f"{fmt.number(f.lo)}–{fmt.number(f.hi)}"


def _note(m: Measured, lang: str | None) -> str:
    parts = []
    if m.status not in ("ok", "planned"):
        reason = fmt.shorten(m.reason or m.status, REASON_WIDTH)
        parts.append(words.text(f"advice.status.{m.status}", lang, reason=reason))
    if m.ran:
        parts.append(words.text("advice.ran", lang, backend=_backend(m.ran)))
    if m.unstable:
        parts.append(words.text("advice.unstable", lang))
    if m.time_us is not None and noise.too_wide(m.time_us):
        parts.append(words.text("advice.wide", lang))
    return words.text("advice.sep", lang).join([*parts, *_caveats(m.option, lang)]) or "-"


def _vs(m: Measured, here: Measured | None, device: str) -> str:
    if m.time_us is None or here is None or here.time_us is None or m is here:
        return "-"
    floor, effect = judge.floors(device)
    rel = noise.margin(m.time_us, here.time_us, floor)
    same = noise.compare(m.time_us, here.time_us, floor, min_effect=effect) == "tie"
    return ("≈ " if same else "") + fmt.signed_percent(rel.median)


def options_rows(
    case: Case, device: str, lang: str | None = None, *, planned: bool = False
) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The headers and rows of a case's table of options: measured, or (``planned``) their estimates."""
    here = case.option("recorded")
    if planned:
        headers = tuple(words.text(f"advice.col.{k}", lang) for k in ("option", "estimate", "note"))
        rows = [(option_text(m.option, lang),
                 words.text("advice.estimate", lang, seconds=human_seconds(m.seconds_estimate),
                            bytes=human_bytes(m.bytes_estimate)) if m.status == "planned" else "-", _note(m, lang))
                for m in case.options]  # fmt: skip
        return headers, rows
    headers = tuple(words.text(f"advice.col.{k}", lang) for k in ("option", "time_us", "band", "vs", "note"))
    rows = []
    for m in case.options:
        t = m.time_us
        rows.append((option_text(m.option, lang), "-" if t is None else fmt.number(t.median),
                     "-" if t is None else _band(t), _vs(m, here, device), _note(m, lang)))  # fmt: skip
    return headers, rows


def verdict_lines(v: Verdict, lang: str | None = None) -> list[str]:
    """What a case's measurements say, in a line or two."""
    names = [option_text(m.option, lang) for m in v.fastest]
    if v.outcome == "faster":
        s = v.saves_us
        share = "" if v.share is None else words.text("advice.verdict.share", lang, share=_share(v.share.median))
        out = [words.text("advice.verdict.faster", lang, option=names[0], us=fmt.number(s.median),
                          lo=fmt.number(s.lo), hi=fmt.number(s.hi), share=share)]  # fmt: skip
        if len(names) > 1:
            out.append(words.text("advice.verdict.tied", lang, options=" ≈ ".join(names)))
        return out
    if v.outcome == "tie":
        others = [n for m, n in zip(v.fastest, names, strict=True) if m.option.code != "recorded"]
        return [words.text("advice.verdict.tie", lang, options=" ≈ ".join(others))]
    return [words.text(f"advice.verdict.{v.outcome}", lang)]


def _share(x: float) -> str:
    return fmt.percent(100 * x)


def _device(a: Advice, lang: str | None) -> str:
    return words.device(a.environment.device_name, lang) if a.environment else "?"


def case_section(case: Case, a: Advice, v: Verdict | None, lang: str | None = None) -> Section:
    """One distinct call: what it is, its time in the trace and here, its options, the verdict."""
    direction = words.text("advice.dir.train" if case.spec and case.spec.train else "advice.dir.fwd", lang)
    title = words.text("advice.case", lang, n=case.index, what=kind_text(case.kind, case.compiled, lang),
                       backend=words.text_or(f"explain.backend.{case.backend}", case.backend, lang),
                       direction=direction, per_step=fmt.count(case.calls_per_step))  # fmt: skip
    before = []
    if case.spec is not None:
        before.append(words.text("advice.rebuilt", lang, spec=spec_text(case.spec, lang)))
    clock = words.text("advice.clock.gpu" if a.device == "cuda" else "advice.clock.cpu", lang)
    recorded_on = a.trace_device or words.text("advice.unknown", lang) if a.device == "cuda" else "CPU"
    if case.trace_us:
        before.append(words.text("advice.trace_time", lang, us=fmt.number(case.trace_us), clock=clock,
                                 device=recorded_on))  # fmt: skip
    else:
        before.append(words.text("advice.trace_time.none", lang))
    here = case.option("recorded")
    if here is not None and here.time_us is not None:
        t = here.time_us
        if case.trace_us:
            before.append(words.text("advice.here_time", lang, us=fmt.number(t.median), lo=fmt.number(t.lo),
                                     hi=fmt.number(t.hi), ratio=fmt.number(t.median / case.trace_us, 2)))  # fmt: skip
        else:
            before.append(words.text("advice.here_time.no_trace", lang, us=fmt.number(t.median), lo=fmt.number(t.lo),
                                     hi=fmt.number(t.hi)))  # fmt: skip
    fill = fill_text(case.spec.mask_fill if case.spec else a.mask_fill, lang)
    lo, hi, at = case.kv or (0, 0, 0)
    before += [words.text(f"advice.case_note.{n}", lang, fill=fill, lo=lo, hi=hi, at=at) for n in case.notes]
    if case.unmeasured is not None:
        before.append(words.text(f"advice.unmeasured.{case.unmeasured}", lang, max=judge.MAX_CALLS))
        return Section(title, tuple(before))
    headers, rows = options_rows(case, a.device, lang, planned=a.status == "dry_run")
    after = tuple(verdict_lines(v, lang)) if v is not None and a.status == "measured" else ()
    used = {c for m in case.options for c in m.option.changes}
    meant = [words.text(f"advice.changes.{c}", lang) for c in ("gqa", "causal", "bf16") if c in used]
    if meant:
        after = (
            *after,
            words.text("advice.changes", lang, changes=words.text("advice.sep", lang).join(meant)),
        )
    return Section(title, tuple(before), headers, tuple(rows), after)


def head_lines(a: Advice, found: list[Verdict], lang: str | None = None) -> tuple[list[str], list[str]]:
    """The lines before the calls: ``(loud, plain)``: the warnings that this machine is not the trace's, then where
    and how it was measured, the notes, and what every change together would save."""
    loud: list[str] = []
    plain: list[str] = []
    options = sum(len(c.options) for c in a.cases)
    measured = [c for c in a.cases if c.unmeasured is None]
    if a.status == "no_device":
        plain.append(words.text("advice.no_device", lang, gpu=a.trace_device or words.text("advice.a_gpu", lang),
                                reason=a.reason or ""))  # fmt: skip
        return loud, plain
    if a.status == "dry_run":
        plain.append(words.text("advice.dry_run", lang, cases=len(measured), options=options,
                                seconds=human_seconds(a.estimate_s), budget=human_seconds(a.budget_s)))  # fmt: skip
    else:
        env = a.environment
        timer = words.text_or(f"advice.timer.{a.timer}", a.timer, lang)
        torch = env.torch_version if env else "?"
        plain.append(words.text("advice.where", lang, device=_device(a, lang), torch=torch, cases=len(measured),
                                options=options, seconds=human_seconds(a.seconds), timer=timer))  # fmt: skip
        here = env.device_name if env else "?"
        cuda = env.cuda_version if env else None
        for code in a.mismatch:
            fields = {"gpu": {"trace": a.trace_device, "here": here},
                      "cuda": {"trace": a.trace_cuda, "here": cuda},
                      "gpu_unknown": {"here": here},
                      "torch_unknown": {"trace": a.trace_cuda or words.text("advice.unknown", lang),
                                        "here": env.torch_version if env else "?"},
                      "cpu_unknown": {"here": words.device(here, lang),
                                      "torch": env.torch_version if env else "?"}}[code]  # fmt: skip
            line = words.text(f"advice.mismatch.{code}", lang, **fields)
            if code in ("gpu", "cuda", "gpu_unknown"):
                loud.append(f"{words.text('advice.loud', lang)}: {line}")
            else:
                plain.append(line)
    if not a.cases:
        plain.append(words.text("advice.no_cases", lang))
    if a.status == "measured" and a.cases:
        saves, share = judge.total(found, a.step_us)
        if saves is None:
            plain.append(words.text("advice.total.none", lang))
        elif share is None:
            plain.append(words.text("advice.total.no_step", lang, us=fmt.number(saves.median),
                                    lo=fmt.number(saves.lo), hi=fmt.number(saves.hi)))  # fmt: skip
        else:
            plain.append(words.text("advice.total", lang, us=fmt.number(saves.median), lo=fmt.number(saves.lo),
                                    hi=fmt.number(saves.hi), share=_share(share.median),
                                    step=fmt.number(a.step_us or 0)))  # fmt: skip
    return loud, plain


def sections(a: Advice, lang: str | None = None) -> list[Section]:
    """The measurement, part by part: the head (warnings first), then one section per distinct call."""
    found = judge.verdicts(a) if a.status == "measured" else []
    by_case = {v.case.index: v for v in found}
    loud, plain = head_lines(a, found, lang)
    out = [Section(words.text("advice.title", lang), tuple(plain), loud=tuple(loud))]
    if a.status != "no_device":
        out += [case_section(c, a, by_case.get(c.index), lang) for c in a.cases]
    return out
