"""``attnprof explain`` in words: the reading of a trace (:class:`~attnprof.analysis.explain.Explanation`) as text
for the terminal (:func:`text`), in English or Japanese; :mod:`.explainhtml` lays out the same sections as a page.

Rendering only: every figure comes from the explanation; every word from :mod:`attnprof.words` (keys
``explain.*``); kernel names, op names, shapes and PyTorch's own messages stay as they are.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from attnprof import words
from attnprof.analysis import attnflags
from attnprof.analysis.attnflags import Inputs
from attnprof.analysis.explain import Asked, CallReading, Explanation, Group
from attnprof.render.report import table
from attnprof.words import fmt

#: At most this many steps, groups of calls and kernels per group in the text (the JSON has them all).
MAX_STEPS, MAX_GROUPS, MAX_KERNELS = 12, 12, 6
WIDTH = 118


@dataclass(frozen=True)
class Section:
    """One part of the reading: a title, lines of text before a table, the table, lines after it."""

    title: str
    before: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    after: tuple[str, ...] = ()


def _na(lang: str | None) -> str:
    return words.text("report.na", lang)


def _pct(share: float | None, lang: str | None) -> str:
    return _na(lang) if share is None else fmt.percent(100 * share)


def head(x: Explanation, lang: str | None = None) -> str:
    """One line: the file, its steps and events, the GPU (by its id where the trace does not name it: the JSON
    array form has no ``deviceProperties``)."""
    props = x.device_properties
    if props:
        device = words.text("explain.device", lang, name=props.get("name", "GPU"),
                            cc=f"{props.get('computeMajor', '?')}.{props.get('computeMinor', '?')}")  # fmt: skip
    elif x.trace.gpu:
        found = {g.device for g in x.trace.gpu if g.kind == "kernel"} or {g.device for g in x.trace.gpu}
        ids = sorted(found, key=str)
        device = words.text("explain.unnamed_device", lang, ids=", ".join(map(str, ids)))
    else:
        device = words.text("explain.no_device", lang)
    return words.text("explain.head", lang, name=fmt.printable(x.trace.name), device=device, events=x.trace.events,
                      steps=words.counted("explain.n_steps", len(x.steps), lang))  # fmt: skip


def notes(x: Explanation, lang: str | None = None) -> list[str]:
    """What limits the reading, one line each."""
    return [words.text(f"explain.note.{code}", lang, **fields) for code, fields in x.notes]


def kind_text(kind: str, compiled: bool, lang: str | None = None, module: str | None = None,
              phase: str | None = None) -> str:  # fmt: skip
    """``scaled_dot_product_attention``, ``hand-written (matmul, softmax, matmul), compiled``,
    ``nn.MultiheadAttention: hand-written (matmul, softmax, matmul)``, ``scaled_dot_product_attention, decode``..."""
    text = words.text(f"explain.kind.{kind}", lang)
    text = words.text("explain.compiled", lang, kind=text) if compiled else text
    if module is not None:
        text = words.text("explain.module", lang, module=words.text(f"explain.module.{module}", lang), kind=text)
    if phase is not None:
        text = words.text("explain.with_phase", lang, kind=text, phase=words.text(f"explain.phase.{phase}", lang))
    return text


def call_text(c: CallReading, lang: str | None = None) -> str:
    """What made a call, in words (:func:`kind_text` of its kind, module and phase)."""
    return kind_text(c.call.kind, c.call.compiled, lang, c.call.module, c.phase)


def inputs_text(i: Inputs, lang: str | None = None, kv: tuple[int, int] | None = None) -> str:
    """``q 2×4×32×64, k 2×2×32×64, v 2×2×32×64 bf16, causal, GQA`` (``not recorded`` without shapes); with ``kv``
    (the decode calls of a generate loop), the cache's length as its range: ``k 1×2×9…11×64``."""
    if not i.known:
        return words.text("explain.inputs.none", lang)

    def cache(shape: tuple | None) -> tuple | None:
        if kv is None or kv[0] == kv[1] or not shape or len(shape) < 2:
            return shape
        return (*shape[:-2], f"{kv[0]}{fmt.ELLIPSIS}{kv[1]}", shape[-1])

    shapes = ", ".join(f"{n} {fmt.dims(s)}" for n, s in (("q", i.query), ("k", cache(i.key)), ("v", cache(i.value)))
                       if s)  # fmt: skip
    extra = [words.text("explain.inputs.causal", lang)] if i.causal else []
    extra += [words.text("explain.inputs.mask", lang)] if i.mask else []
    extra += [words.text("explain.inputs.gqa", lang)] if i.gqa else []
    extra += [words.text("explain.inputs.dropout", lang, p=f"{i.dropout:g}")] if i.dropout else []
    return ", ".join([f"{shapes} {i.dtype or '?'}".strip(), *extra])


def flag_names(codes: dict[str, int], lang: str | None = None) -> str:
    return ", ".join(words.text(f"explain.flag.{c}", lang) for c in attnflags.FLAGS if codes.get(c)) or "-"


def _group_first(x: Explanation, g: Group):
    return x.calls[g.calls[0]]


def steps_section(x: Explanation, lang: str | None = None) -> Section:
    rows = []
    for s in x.steps[:MAX_STEPS]:
        st = s.step
        gpu = bool(st.gpu)
        waited = st.waiting_us / st.idle_us if gpu and st.idle_us > 0 else None
        bound = st.launch_bound
        rows.append((
            st.name or "-",
            fmt.number(st.wall_us / 1e3),
            _pct(st.busy_share, lang),
            str(len(st.gaps)) if gpu else _na(lang),
            fmt.number(max((g[1] for g in st.gaps), default=0.0)) if gpu else _na(lang),
            _pct(waited, lang) if gpu else _na(lang),
            _na(lang) if bound is None else words.text("explain.yes" if bound else "explain.no", lang),
            _pct(s.attention_share, lang),
            f"{s.calls['fwd']}/{s.calls['bwd']}",
        ))  # fmt: skip
    keys = ("step", "wall_ms", "gpu_busy", "gaps", "largest_gap", "waited", "cpu_bound", "attention", "calls")
    after = []
    if len(x.steps) > MAX_STEPS:
        after.append(f"(+{len(x.steps) - MAX_STEPS})")
    d = x.to_summary()
    share = _pct(d["attention_share"], lang)
    after.append(words.text("explain.per_step", lang, fwd=fmt.count(d["calls"]["fwd"]),
                            bwd=fmt.count(d["calls"]["bwd"]), share=share))  # fmt: skip
    after += generation_lines(x, lang)
    if d["outside_steps"]:
        after.append(words.text("explain.outside", lang, n=d["outside_steps"]))
    bound = [x.steps[k].step.name or str(k) for k in d["launch_bound_steps"]]
    if bound:
        after.append(words.text("explain.cpu_bound", lang, steps=", ".join(bound)))
    headers = tuple(words.text(f"explain.col.{k}", lang) for k in keys)
    return Section(words.text("explain.steps", lang), (), headers, tuple(rows), tuple(after))


def _passes(g: Any, lang: str | None) -> str:
    kv = words.text("explain.gen.kv", lang, lo=g.kv[0], hi=g.kv[1]) if g.kv else ""
    return words.text("explain.gen.passes", lang, prefill=words.counted("explain.gen.prefill", g.prefill, lang),
                      decode=words.counted("explain.gen.decode", g.decode, lang), kv=kv)  # fmt: skip


def generation_lines(x: Explanation, lang: str | None = None) -> list[str]:
    """The passes of a generate loop (:mod:`attnprof.analysis.generation`): one line when every step ran the same,
    else one a step (at most :data:`MAX_STEPS`)."""
    found = [(s.step.name or str(k), s.generation) for k, s in enumerate(x.steps) if s.generation is not None]
    if not found:
        return []
    if len({g for _, g in found}) == 1 and len(found) == len(x.steps):
        g = found[0][1]
        return [words.text("explain.generation", lang, passes=_passes(g, lang), layers=g.layers)]
    return [words.text("explain.generation.step", lang, step=name, passes=_passes(g, lang))
            for name, g in found[:MAX_STEPS]]  # fmt: skip


def calls_section(x: Explanation, lang: str | None = None) -> Section:
    projected = any(g.projection_us is not None for g in x.groups)
    rows = []
    for n, g in enumerate(x.groups[:MAX_GROUPS], start=1):
        first = _group_first(x, g)
        c = first.call
        rows.append((
            str(n),
            call_text(first, lang),
            words.text(f"explain.backend.{c.backend}", lang),
            words.text(f"kernel.dir.{c.direction}", lang),
            fmt.count(g.per_step),
            inputs_text(first.inputs, lang, g.kv),
            fmt.number(g.cpu_us),
            fmt.number(g.gpu_us) if x.trace.gpu else _na(lang),
            *((_na(lang) if g.projection_us is None else fmt.number(g.projection_us),) if projected else ()),
            flag_names(g.flags, lang),
        ))  # fmt: skip
    keys = ("group", "what", "backend", "direction", "per_step", "inputs", "cpu_us", "gpu_us",
            *(("projection_us",) if projected else ()), "flags")  # fmt: skip
    after = [f"(+{len(x.groups) - MAX_GROUPS})"] if len(x.groups) > MAX_GROUPS else []
    if projected:
        after.append(words.text("explain.projections", lang))
    headers = tuple(words.text(f"explain.col.{k}", lang) for k in keys)
    return Section(words.text("explain.calls", lang), (), headers, tuple(rows), tuple(after))


def kernels_section(x: Explanation, lang: str | None = None) -> Section:
    rows = []
    for n, g in enumerate(x.groups[:MAX_GROUPS], start=1):
        for kid, per_call, avg in g.kernels[:MAX_KERNELS]:
            r = x.rows[kid]
            theo = r.theoretical
            limiter = (
                f" ({words.limiters(theo.limiters or [theo.limiter], lang)})" if theo and theo.percent < 100 else ""
            )
            rows.append((
                str(n),
                r.info.text(lang),
                r.info.family_text(lang),
                fmt.count(per_call),
                fmt.number(avg),
                "-" if r.registers_per_thread is None else str(r.registers_per_thread),
                "-" if r.shared_memory is None else fmt.size(r.shared_memory),
                f"{fmt.dims(r.grid)} × {fmt.dims(r.block)}" if r.grid and r.block else "-",
                "-" if r.reported_occupancy is None else fmt.percent(r.reported_occupancy),
                "-" if theo is None else fmt.percent(theo.percent) + limiter,
            ))  # fmt: skip
        if len(g.kernels) > MAX_KERNELS:  # the table is cut: say how much is left out
            rows.append((str(n), words.counted("explain.more_kernels", len(g.kernels) - MAX_KERNELS, lang),
                         *("",) * 8))  # fmt: skip
    headers = (
        words.text("explain.col.group", lang),
        *(words.text(f"report.col.{k}", lang) for k in ("kernel", "family")),
        *(words.text(f"explain.col.{k}", lang) for k in ("per_call", "avg_us")),
        words.text("report.col.regs", lang),
        *(words.text(f"explain.col.{k}", lang) for k in ("smem", "grid_block")),
        *(words.text(f"report.col.{k}", lang) for k in ("reported_occ", "theoretical_occ")),
    )
    before = () if rows else (words.text("explain.no_kernels", lang),)
    return Section(words.text("explain.kernels", lang), before, headers if rows else (), tuple(rows))


def flags_section(x: Explanation, lang: str | None = None) -> Section:
    d = x.to_flags()
    if not d:
        return Section(words.text("explain.flags", lang), (words.text("explain.no_flags", lang),))
    lines = []
    for code, f in d.items():
        ops = list(dict.fromkeys(o for c in x.calls for fl in c.flags if fl.code == code for o in fl.ops))
        gpu = words.text("explain.flag.gpu", lang, us=fmt.number(f["gpu_us"])) if f["gpu_us"] else ""
        name = words.text(f"explain.flag.{code}", lang)
        lines.append(words.text("explain.flag.line", lang, flag=name, calls=f["calls"], steps=len(f["steps"]),
                                gpu=gpu, ops="; ".join(ops[:3])))  # fmt: skip
        lines.append("  " + words.text(f"explain.flag.why.{code}", lang))
    return Section(words.text("explain.flags", lang), tuple(lines))


def why_section(x: Explanation, asked: Asked | None, lang: str | None = None) -> Section | None:
    if asked is None:
        return None
    lines = []
    if asked.note is not None:
        code, fields = asked.note
        lines.append(words.text(f"explain.why.{code}", lang, **fields))
    for k, verdicts in sorted(asked.answers.items()):
        g = x.groups[k]
        first = _group_first(x, g)
        lines.append(words.text("explain.why.call", lang, kind=call_text(first, lang),
                                inputs=inputs_text(first.inputs, lang, g.kv),
                                backend=words.text(f"explain.backend.{first.call.backend}", lang)))  # fmt: skip
        for backend, check, reason in verdicts:
            key = {"accepts": "explain.why.accepts", "refuses": "explain.why.refuses"}.get(
                check, "explain.why.not_asked"
            )
            lines.append("  " + words.text(key, lang, backend=backend, reason=reason))
        if k in asked.picks:
            lines.append("  " + words.text("explain.why.pick", lang, backend=asked.picks[k]))
    return Section(words.text("explain.why", lang), tuple(lines))


def sections(x: Explanation, asked: Asked | None = None, lang: str | None = None) -> list[Section]:
    """The reading, part by part: steps, calls, their kernels, the flags, PyTorch's answers (when asked)."""
    out = [steps_section(x, lang), calls_section(x, lang), kernels_section(x, lang), flags_section(x, lang)]
    why = why_section(x, asked, lang)
    return out + ([why] if why is not None else [])


def wrap(line: str, lang: str | None) -> str:
    """``line`` wrapped at :data:`WIDTH` columns between words; Japanese, which has no spaces between words to
    wrap at, as it is (the terminal wraps it)."""
    if not line or words.language(lang) == "ja":
        return line
    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.fill(line, WIDTH, subsequent_indent=indent + "  ", break_on_hyphens=False)


def text(x: Explanation, asked: Asked | None = None, lang: str | None = None) -> str:
    """The whole reading as text for a terminal (:data:`WIDTH` columns for prose; tables as wide as they are)."""
    parts = [head(x, lang)]
    found = notes(x, lang)
    if found:
        parts.append("\n".join([words.text("explain.notes", lang), *(wrap(f"  - {n}", lang) for n in found)]))
    for s in sections(x, asked, lang):
        block = [s.title, "-" * len(s.title) if lang != "ja" else "=" * 20]
        block += [wrap(line, lang) for line in s.before]
        if s.headers:
            block.append(table(s.headers, s.rows))
        block += [wrap(line, lang) for line in s.after]
        parts.append("\n".join(block))
    return "\n\n".join(parts) + "\n"
