"""``attnprof diff`` in words: two traces compared (:class:`~attnprof.analysis.diff.Diff`) as text for the terminal
(:func:`text`), in English or Japanese; :mod:`.diffhtml` lays out the same sections as a page.

Rendering only: every figure comes from the comparison, every word from :mod:`attnprof.words` (keys
``tracediff.*``, and ``explain.*`` for what a reading already names); kernel names, op names and shapes stay as
they are.
"""

from __future__ import annotations

from attnprof import noise, words
from attnprof.analysis import kernels
from attnprof.analysis.diff import Change, Diff, Kind, Row, Side
from attnprof.noise import Figure
from attnprof.render.explain import Section, kind_text, wrap
from attnprof.render.report import table
from attnprof.words import fmt

#: At most this many pairs of steps, kinds of call and kernels per kind in the text (the JSON has them all).
MAX_PAIRS, MAX_ROWS, MAX_KERNELS = 12, 12, 8


def _na(lang: str | None) -> str:
    return words.text("report.na", lang)


def which(code: str, lang: str | None) -> str:
    """``before`` / ``after`` / ``before+after`` in words."""
    if code == "before+after":
        return words.text("tracediff.both", lang)
    return words.text(f"tracediff.{code}", lang)


def value(x: float | None, share: bool = False) -> str:
    if x is None:
        return "-"
    return fmt.percent(100 * x) if share else fmt.number(x)


def fig_text(f: Figure | None, share: bool = False) -> str:
    """``16.6 (16.4–16.8)``: the median and its band."""
    if f is None:
        return "-"
    if f.lo == f.hi == f.median:
        return value(f.median, share)
    return f"{value(f.median, share)} ({value(f.lo, share)}–{value(f.hi, share)})"


def change_text(c: Change | None, lang: str | None) -> str:
    """``+84 %, band +73 % to +95 %``."""
    if c is None or c.change is None:
        return words.text("tracediff.no_change", lang) if c is not None and c.before and c.after else "-"
    m = c.change
    return words.text("tracediff.change", lang, median=fmt.signed_percent(m.median),
                      lo=fmt.signed_percent(m.lo), hi=fmt.signed_percent(m.hi))  # fmt: skip


def verdict_text(c: Change | None, lang: str | None) -> str:
    return words.text(f"tracediff.verdict.{c.verdict if c is not None and c.verdict else 'none'}", lang)


def side_head(s: Side, lang: str | None) -> str:
    t = s.trace
    device = (words.text("explain.device", lang, name=t["device"], cc=t["compute_capability"] or "?.?")
              if t["device"] else words.text("explain.no_device", lang))  # fmt: skip
    return words.text("explain.head", lang, name=t["name"], steps=len(s.steps), events=t["events"], device=device)


def head(d: Diff, lang: str | None = None) -> list[str]:
    """The title line and one line per trace."""
    return [
        words.text("tracediff.title", lang, before=d.before.trace["name"], after=d.after.trace["name"]),
        words.text("tracediff.head", lang, which=which("before", lang), head=side_head(d.before, lang)),
        words.text("tracediff.head", lang, which=which("after", lang), head=side_head(d.after, lang)),
    ]


def notes(d: Diff, lang: str | None = None) -> list[str]:
    out = []
    for code, fields in d.notes:
        shown = {k: which(v, lang) if k == "which" else v for k, v in fields.items()}
        out.append(words.text(f"tracediff.note.{code}", lang, **shown))
    return out


def rules(lang: str | None = None) -> str:
    (gf, ge), (cf, ce) = (noise.GPU_FLOOR, noise.GPU_MIN_EFFECT), (noise.CPU_FLOOR, noise.CPU_MIN_EFFECT)
    p = fmt.percent
    return words.text("tracediff.rules", lang, gpu_floor=p(100 * gf), gpu_effect=p(100 * ge), cpu_floor=p(100 * cf),
                      cpu_effect=p(100 * ce), wide=p(100 * noise.WIDE_BAND))  # fmt: skip


def what(k: Kind | None, s: Side, lang: str | None) -> str:
    """``scaled_dot_product_attention, cudnn``."""
    if k is None:
        return "-"
    first = s.calls[k.calls[0]]
    backends = k.backends(s)
    names = [words.text(f"explain.backend.{b}", lang) for b in sorted(backends, key=lambda b: -backends[b])]
    return f"{kind_text(first['kind'], first['compiled'], lang)}, {' + '.join(names)}"


def inputs_text(k: Kind | None, s: Side, lang: str | None) -> str:
    if k is None:
        return "-"
    return _inputs_text(s.calls[k.calls[0]]["inputs"], lang)


def _inputs_text(i: dict | None, lang: str | None) -> str:
    if not i:
        return words.text("explain.inputs.none", lang)
    shapes = ", ".join(f"{n} {fmt.dims(i[key])}" for n, key in (("q", "query"), ("k", "key"), ("v", "value"))
                       if i.get(key))  # fmt: skip
    extra = [words.text(f"explain.inputs.{f}", lang) for f in ("causal", "mask", "gqa") if i.get(f)]
    if i.get("dropout"):
        extra.append(words.text("explain.inputs.dropout", lang, p=f"{i['dropout']:g}"))
    return ", ".join([f"{shapes} {i.get('dtype') or '?'}".strip(), *extra])


def short_section(d: Diff, lang: str | None = None) -> Section:
    lines = []
    att = d.steps.figures["attention_gpu_us"]
    if att is not None and att.before is not None and att.after is not None:
        lines.append(words.text("tracediff.short.attention", lang, before=fmt.number(att.before.median),
                                after=fmt.number(att.after.median), verdict=verdict_text(att, lang),
                                change=change_text(att, lang)))  # fmt: skip
    wall = d.steps.figures["wall_us"]
    if wall is not None and wall.before is not None and wall.after is not None:
        lines.append(words.text("tracediff.short.wall", lang, before=fmt.number(wall.before.median / 1e3),
                                after=fmt.number(wall.after.median / 1e3), verdict=verdict_text(wall, lang),
                                change=change_text(wall, lang)))  # fmt: skip
    counts = {m: sum(1 for r in d.rows if r.match == m) for m in ("same", "replaced", "vanished", "appeared")}
    lines.append(words.text("tracediff.short.matches", lang, **counts))
    for r in d.rows:
        if r.backend_changed(d.before, d.after):
            first = d.before.calls[r.before.calls[0]]  # type: ignore[union-attr]
            lines.append(words.text(
                "tracediff.short.backend", lang, what=kind_text(first["kind"], first["compiled"], lang),
                direction=words.text(f"kernel.dir.{first['direction']}", lang),
                before=" + ".join(words.text(f"explain.backend.{b}", lang) for b in r.before.backends(d.before)),  # type: ignore[union-attr]
                after=" + ".join(words.text(f"explain.backend.{b}", lang) for b in r.after.backends(d.after)),  # type: ignore[union-attr]
            ))  # fmt: skip
    nb, na = d.steps.launch_bound
    if nb or na:
        lines.append(words.text("tracediff.short.cpu_bound", lang, before=nb, after=na, nb=len(d.before.steps),
                                na=len(d.after.steps)))  # fmt: skip
    return Section(words.text("tracediff.short", lang), tuple(f"- {line}" for line in lines))


def steps_section(d: Diff, lang: str | None = None) -> Section:
    rows = []
    for name, c in d.steps.figures.items():
        if c is None:
            continue
        share = name == "gpu_busy_share"
        rows.append((words.text(f"tracediff.fig.{name}", lang), fig_text(c.before, share), fig_text(c.after, share),
                     change_text(c, lang), verdict_text(c, lang)))  # fmt: skip
    nb, na = d.steps.launch_bound
    rows.append((words.text("tracediff.fig.launch_bound", lang),
                 words.text("tracediff.of", lang, n=nb, of=len(d.before.steps)),
                 words.text("tracediff.of", lang, n=na, of=len(d.after.steps)), "", ""))  # fmt: skip
    keys = ("figure", "before", "after", "change", "verdict")
    headers = tuple(words.text(f"tracediff.col.{k}", lang) for k in keys)
    return Section(words.text("tracediff.steps", lang), (), headers, tuple(rows), (rules(lang),))


def pairs_section(d: Diff, lang: str | None = None) -> Section:
    rows = []
    for i, j in d.steps.pairs[:MAX_PAIRS]:
        a, b = d.before.steps[i], d.after.steps[j]

        def both(f: str, share: bool = False, a: dict = a, b: dict = b) -> str:
            return f"{value(a[f], share)} → {value(b[f], share)}"

        yes_no = [_na(lang) if s["launch_bound"] is None else
                  words.text("explain.yes" if s["launch_bound"] else "explain.no", lang) for s in (a, b)]  # fmt: skip
        bound = " → ".join(yes_no)
        rows.append((a["name"] or "-", b["name"] or "-", both("wall_us"), both("gpu_busy_share", True),
                     both("attention_gpu_us"), bound))  # fmt: skip
    keys = ("step_before", "step_after", "wall_us", "gpu_busy", "attention_us", "cpu_bound")
    after = []
    if len(d.steps.pairs) > MAX_PAIRS:
        after.append(f"(+{len(d.steps.pairs) - MAX_PAIRS})")
    if d.steps.only_before or d.steps.only_after:
        after.append(words.text("tracediff.unpaired", lang, before=len(d.steps.only_before),
                                after=len(d.steps.only_after)))  # fmt: skip
    headers = tuple(words.text(f"tracediff.col.{k}", lang) for k in keys)
    return Section(words.text("tracediff.pairs", lang), (), headers, tuple(rows), tuple(after))


def _per_step(r: Row, d: Diff) -> str:
    a = "-" if r.before is None else fmt.count(r.before.per_step(d.before))
    b = "-" if r.after is None else fmt.count(r.after.per_step(d.after))
    return f"{a} → {b}"


def _direction(r: Row, d: Diff, lang: str | None) -> str:
    k, s = (r.before, d.before) if r.before is not None else (r.after, d.after)
    return words.text(f"kernel.dir.{s.calls[k.calls[0]]['direction']}", lang)  # type: ignore[union-attr]


def calls_section(d: Diff, lang: str | None = None) -> Section:
    if not d.rows:
        return Section(words.text("tracediff.calls", lang), (words.text("tracediff.no_calls", lang),))
    rows, after = [], []
    for n, r in enumerate(d.rows[:MAX_ROWS], start=1):
        rows.append((str(n), words.text(f"tracediff.match.{r.match}", lang), _direction(r, d, lang),
                     what(r.before, d.before, lang), what(r.after, d.after, lang), _per_step(r, d)))  # fmt: skip
        after.append(words.text("tracediff.inputs", lang, n=n, before=inputs_text(r.before, d.before, lang),
                                after=inputs_text(r.after, d.after, lang)))  # fmt: skip
    if len(d.rows) > MAX_ROWS:
        after.append(f"(+{len(d.rows) - MAX_ROWS})")
    headers = (
        words.text("tracediff.col.call", lang), words.text("tracediff.col.match", lang),
        words.text("explain.col.direction", lang), words.text("tracediff.col.before", lang),
        words.text("tracediff.col.after", lang), words.text("tracediff.col.per_step", lang),
    )  # fmt: skip
    return Section(words.text("tracediff.calls", lang), (), headers, tuple(rows), tuple(after))


def _arrow(c: Change | None) -> str:
    if c is None:
        return "-"
    a = "-" if c.before is None else fmt.number(c.before.median)
    b = "-" if c.after is None else fmt.number(c.after.median)
    return f"{a} → {b}"


def times_section(d: Diff, lang: str | None = None) -> Section | None:
    if not d.rows:
        return None
    rows = []
    for n, r in enumerate(d.rows[:MAX_ROWS], start=1):
        cells = [str(n)]
        for c in (r.gpu_us, r.cpu_us, r.step_gpu_us):
            cells += [_arrow(c), change_text(c, lang) if c else "-", verdict_text(c, lang)]
        rows.append(tuple(cells))
    headers = [words.text("tracediff.col.call", lang)]
    for k in ("gpu_call", "cpu_call", "gpu_step"):
        headers += [words.text(f"tracediff.col.{k}", lang), words.text("tracediff.col.change", lang),
                    words.text("tracediff.col.verdict", lang)]  # fmt: skip
    return Section(words.text("tracediff.times", lang), (), tuple(headers), tuple(rows))


def label(name: str, lang: str | None) -> str:
    """A kernel's decoded label in ``lang`` (:mod:`attnprof.analysis.kernels`)."""
    return kernels.decode(name).text(lang)


def kernel_verdict(per_call: tuple, c: Change, lang: str | None) -> str:
    if per_call[0] is None:
        return words.text("tracediff.match.appeared", lang)
    if per_call[1] is None:
        return words.text("tracediff.match.vanished", lang)
    return verdict_text(c, lang)


def kernels_section(d: Diff, lang: str | None = None) -> Section | None:
    if not d.rows:
        return None
    rows, after = [], []
    for n, r in enumerate(d.rows[:MAX_ROWS], start=1):
        for k in r.kernels[:MAX_KERNELS]:
            a, b = (fmt.count(x) if x is not None else "-" for x in k.per_call)
            both = k.per_call[0] is not None and k.per_call[1] is not None
            rows.append((str(n), label(k.name, lang), kernels.decode(k.name).family_text(lang), f"{a} → {b}",
                         _arrow(k.us), change_text(k.us, lang) if both else "",
                         kernel_verdict(k.per_call, k.us, lang)))  # fmt: skip
        if len(r.kernels) > MAX_KERNELS:
            after.append(f"{n}: " + words.text("tracediff.kernel.more", lang, n=len(r.kernels) - MAX_KERNELS))
    if not rows:
        return Section(words.text("tracediff.kernels", lang), (words.text("tracediff.no_kernels", lang),))
    headers = (
        words.text("tracediff.col.call", lang), words.text("report.col.kernel", lang),
        words.text("report.col.family", lang), words.text("tracediff.col.launches", lang),
        words.text("tracediff.col.kernel_us", lang), words.text("tracediff.col.change", lang),
        words.text("tracediff.col.verdict", lang),
    )  # fmt: skip
    return Section(words.text("tracediff.kernels", lang), (), headers, tuple(rows), tuple(after))


def sections(d: Diff, lang: str | None = None) -> list[Section]:
    """The comparison, part by part: in short, the steps, the pairs of steps, the calls, their time, their kernels."""
    out = [short_section(d, lang), steps_section(d, lang), pairs_section(d, lang), calls_section(d, lang)]
    return out + [s for s in (times_section(d, lang), kernels_section(d, lang)) if s is not None]


def text(d: Diff, lang: str | None = None) -> str:
    """The whole comparison as text for a terminal."""
    parts = ["\n".join(head(d, lang))]
    found = notes(d, lang)
    if found:
        parts.append("\n".join([words.text("tracediff.notes", lang), *(wrap(f"  - {n}", lang) for n in found)]))
    for s in sections(d, lang):
        block = [s.title, "-" * len(s.title) if words.language(lang) != "ja" else "=" * 20]
        block += [wrap(line, lang) for line in s.before]
        if s.headers:
            block.append(table(s.headers, s.rows))
        block += [wrap(line, lang) for line in s.after]
        parts.append("\n".join(block))
    return "\n\n".join(parts) + "\n"
