"""``attnprof explain TRACE``: read any PyTorch profiler trace (:mod:`attnprof.analysis.explain`), print the reading
(:mod:`attnprof.render.explain`), and optionally write it as JSON and as one self-contained HTML page.

Checks first, each refusal one line with exit status 2: the trace (missing, unreadable, not a PyTorch trace, over the
size bound), the options, the output paths. Progress goes to standard error. Where the trace recorded the inputs of
SDPA calls, PyTorch on this machine is asked why each backend would or would not take them
(:func:`attnprof.measure.backends.ask`, the one place this command asks; ``--no-why`` skips it and the torch import
it needs). ``--measure`` then times every distinct call here (:mod:`attnprof.cli.advice`); its report follows the
reading, and the JSON holds it as ``measure`` (schema ``attnprof.advice``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import IO, Any

from attnprof import inputs
from attnprof.analysis import attention
from attnprof.analysis import explain as ex
from attnprof.analysis.explain import Asked, Explanation
from attnprof.cli import advice, checks
from attnprof.cli.checks import BadInput
from attnprof.cli.commands import write
from attnprof.records import files, foreign
from attnprof.render import explain as report
from attnprof.render import explainhtml
from attnprof.words.fmt import quoted

#: ``--lang`` values.
LANGUAGES = ("en", "ja")
#: Site dtype names -> torch's, for PyTorch's checks.
TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}
#: ``SDPBackend`` names -> the backends as explain names them.
BACKEND_NAMES = {"FLASH_ATTENTION": "flash", "EFFICIENT_ATTENTION": "mem_efficient", "CUDNN_ATTENTION": "cudnn",
                 "MATH": "math"}  # fmt: skip


def _mb(value: str | None) -> int:
    if value is None:
        try:
            return files.max_read_bytes()
        except files.UnreadableFile as exc:  # a bad ATTNPROF_MAX_READ_MB
            raise BadInput(str(exc)) from None
    mb = inputs.plain_number(value)
    if mb is None or not (0 < mb < 1 << 20):
        raise BadInput(f"bad --max-mb {quoted(value)}; expected a positive number of megabytes such as 1024")
    return int(mb * (1 << 20))


def _out(value: str | None, what: str, force: bool) -> Path | str | None:
    """An output: ``None``, ``"-"`` (standard output) or a checked path."""
    if value is None or value == files.STDOUT:
        return value
    return checks.output(value, what, force)


def _options(args: argparse.Namespace) -> tuple[str, Any, int]:
    lang = (args.lang or "en").lower()
    if lang not in LANGUAGES:
        raise BadInput(f"unknown --lang {quoted(args.lang)}; choose one of: {', '.join(LANGUAGES)}")
    gpu: Any = None
    if args.gpu is not None:
        gpu = inputs.plain_int(args.gpu)
        if gpu is None:
            raise BadInput(f"bad --gpu {quoted(args.gpu)}; expected a GPU id such as 0")
    if args.json == "-" and args.html == "-":
        raise BadInput("--json - and --html - both ask for standard output; give one of them a file name")
    return lang, gpu, _mb(args.max_mb)


def load(path: str, max_bytes: int) -> foreign.ForeignTrace:
    """The trace, or one line of bad input."""
    try:
        return foreign.load(path, max_bytes=max_bytes, max_events=max(max_bytes // 128, 1000),
                            inputs_of=attention.wants_inputs)  # fmt: skip
    except FileNotFoundError:
        raise BadInput(
            f"no trace file {path!r}; expected a .json or .json.gz file from export_chrome_trace"
        ) from None
    except files.UnreadableFile as exc:
        raise BadInput(str(exc)) from None


def _operand(shape: Any, dtype: str | None, stride: Any = None) -> Any:
    from attnprof.records.eligibility import Operand

    return Operand(tuple(shape), TORCH_DTYPES.get(dtype or "", dtype or "float32"), tuple(stride) if stride else None)


def ask(x: Explanation) -> Asked:
    """What PyTorch on this machine says of each group of SDPA calls whose inputs the trace recorded."""
    questions = ex.questions(x)
    if not questions:
        sdpa = any(c.call.kind == "sdpa" for c in x.calls)
        return Asked(note=("no_shapes" if sdpa else "no_sdpa", {}))
    from attnprof.measure import backends

    device = "cuda" if x.trace.gpu else "cpu"
    answers: dict[int, list[tuple[str, str, str]]] = {}
    picks: dict[int, str] = {}
    for q in questions:
        i = q.inputs
        strides = i.strides or (None, None, None)
        mask = _operand(i.mask_shape, i.mask_dtype) if i.mask_shape else None
        answer = backends.ask(_operand(i.query, i.dtype, strides[0]), _operand(i.key, i.dtype, strides[1]),
                              _operand(i.value, i.dtype, strides[2]), mask, dropout_p=i.dropout or 0.0,
                              is_causal=bool(i.causal), enable_gqa=bool(i.gqa), requires_grad=q.training,
                              device=device)  # fmt: skip
        if answer.unasked is not None:
            code = {"no_torch": "no_torch", "no_cuda": "no_gpu"}.get(answer.unasked, "unavailable")
            field = "error" if code == "no_torch" else "reason"
            return Asked(answers, picks, (code, {field: answer.unasked_reason or answer.unasked}))
        answers[q.group] = [
            (BACKEND_NAMES.get(v.backend, v.backend), v.check if v.asked_ok else "not_asked", v.reason or "")
            for v in answer.verdicts
        ]
        if answer.pick is not None:
            picks[q.group] = BACKEND_NAMES.get(answer.pick, answer.pick)
    return Asked(answers, picks)


def dumps(data: dict[str, Any]) -> str:
    """The JSON text of a reading: keys sorted, two-space indent, UTF-8 (orjson when installed: a large trace's
    reading is megabytes of JSON)."""
    try:
        import orjson
    except ImportError:
        return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n"
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode() + "\n"


def cmd_explain(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof explain``: the reading of any PyTorch profiler trace (and, with ``--measure``, what each call
    costs here: :mod:`attnprof.cli.advice`)."""
    lang, gpu, max_bytes = _options(args)
    measure = advice.options(args)
    json_to, html_to = _out(args.json, "JSON file", args.force), _out(args.html, "HTML file", args.force)
    started = time.perf_counter()
    err.write(f"reading {args.trace}\n")
    err.flush()
    trace = load(args.trace, max_bytes)
    err.write(f"read {trace.events} events ({len(trace.cpu)} on the CPU, {len(trace.gpu)} on the GPU) in "
              f"{time.perf_counter() - started:.1f} s\n")  # fmt: skip
    try:
        x = ex.explain(trace, gpu)
    except ValueError as exc:
        raise BadInput(f"{Path(args.trace).name}: {exc}") from None
    err.write(f"found {len(x.calls)} attention calls in {len(x.steps)} steps\n")
    asked = None
    if not args.no_why:
        if ex.questions(x):
            err.write("asking PyTorch on this machine about each kind of SDPA call (imports torch)\n")
            err.flush()
        asked = ask(x)
    measured = advice.run(x, measure, args, out, err, lang) if measure.measure else None
    if measured is not None and measured.printed:
        return 0
    extra = advice.sections(measured, lang)
    if json_to is not None:
        data = x.to_dict()
        if measured is not None and measured.advice is not None:
            data["measure"] = measured.advice.to_dict()
        if asked is not None:
            data["why"] = {
                "note": None if asked.note is None else {"code": asked.note[0], **asked.note[1]},
                "answers": {str(k): [list(v) for v in vs] for k, vs in sorted(asked.answers.items())},
                "picks": {str(k): v for k, v in sorted(asked.picks.items())},
            }
        text = dumps(data)
        if json_to == "-":
            out.write(text)
        else:
            write(args.json, text, args.force, out)
            err.write(f"JSON written to {args.json}\n")
    if html_to is not None:
        page = explainhtml.page(x, asked, lang, extra)
        if html_to == "-":
            out.write(page)
        else:
            write(args.html, page, args.force, out)
            err.write(f"HTML page written to {args.html}\n")
    if json_to != "-" and html_to != "-":
        out.write(report.text(x, asked, lang, extra))
    return 0
