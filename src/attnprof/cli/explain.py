"""``attnprof explain TRACE``: read any PyTorch profiler trace (:mod:`attnprof.analysis.explain`), print the reading
(:mod:`attnprof.render.explain`), and optionally write it as JSON and as one self-contained HTML page.

Checks first, each refusal one line with exit status 2: the options, the output paths (an output that is the trace
itself, or the same file as the other output, is refused before anything is read: :func:`.checks.distinct`), then the
trace (missing, unreadable, not a PyTorch trace, over the size bound, an event whose time is no time). Progress goes
to standard error, in the language of ``--lang``. Where the trace recorded the inputs of SDPA calls, PyTorch on this
machine is asked why each backend would or would not take them (:func:`attnprof.measure.backends.ask`, the one place
this command asks; ``--no-why`` skips it and the torch import it needs); where the trace's device cannot be here (no
torch, a CPU-only torch, no GPU driver: :func:`absent_device`) it is skipped without importing torch, and a line
says so. ``--measure`` then times every distinct call here (:mod:`attnprof.cli.advice`); its report follows the
reading, and the JSON holds it as ``measure`` (schema ``attnprof.advice``). The output files are written together at
the end (each staged, then all renamed): a run stopped on the way leaves none of them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import time
from pathlib import Path
from typing import IO, Any

from attnprof import inputs, words
from attnprof.analysis import attention
from attnprof.analysis import explain as ex
from attnprof.analysis.explain import Asked, Explanation
from attnprof.cli import advice, checks, commands, streams
from attnprof.cli.checks import BadInput
from attnprof.records import files, foreign
from attnprof.render import explain as report
from attnprof.render import explainhtml
from attnprof.words import fmt
from attnprof.words.fmt import quoted

#: ``--lang`` values.
LANGUAGES = ("en", "ja")
#: Site dtype names -> torch's, for PyTorch's checks.
TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}
#: ``SDPBackend`` names -> the backends as explain names them.
BACKEND_NAMES = {"FLASH_ATTENTION": "flash", "EFFICIENT_ATTENTION": "mem_efficient", "CUDNN_ATTENTION": "cudnn",
                 "MATH": "math"}  # fmt: skip


def max_mb(value: str | None) -> int:
    if value is None:
        try:
            return files.max_read_bytes()
        except files.UnreadableFile as exc:  # a bad ATTNPROF_MAX_READ_MB
            raise BadInput(str(exc)) from None
    mb = inputs.plain_number(value)
    if mb is None or not (0 < mb < 1 << 20):
        raise BadInput(f"bad --max-mb {quoted(value)}; expected a positive number of megabytes such as 1024")
    return int(mb * (1 << 20))


def output(value: str | None, what: str, force: bool) -> Path | str | None:
    """``--json`` or ``--html`` checked: an output: ``None``, ``"-"`` (standard output) or a checked path."""
    if value is None or value == files.STDOUT:
        return value
    return checks.output(value, what, force)


def options(args: argparse.Namespace) -> tuple[str, Any, int]:
    """``--lang``, ``--gpu``, ``--json``/``--html`` (not both standard output) and ``--max-mb``, checked."""
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
    return lang, gpu, max_mb(args.max_mb)


def load(path: str, max_bytes: int) -> foreign.ForeignTrace:
    """The trace, or one line of bad input."""
    try:
        return foreign.load(path, max_bytes=max_bytes, max_events=foreign.events_bound(max_bytes),
                            inputs_of=attention.wants_inputs)  # fmt: skip
    except FileNotFoundError:
        raise BadInput(f"no trace file {fmt.quoted_path(path)}; {foreign.ACCEPTED}") from None
    except files.UnreadableFile as exc:
        raise BadInput(str(exc)) from None


def _operand(shape: Any, dtype: str | None, stride: Any = None) -> Any:
    from attnprof.records.eligibility import Operand

    return Operand(tuple(shape), TORCH_DTYPES.get(dtype or "", dtype or "float32"), tuple(stride) if stride else None)


#: Where a driver of each kind of GPU shows itself, without any library loaded.
DRIVER_FILES = {"cuda": ("/proc/driver/nvidia/version", "/dev/nvidiactl"), "hip": ("/dev/kfd",)}
_BUILT = re.compile(r"^(__version__|cuda|hip)\b[^=\n]*=\s*['\"]([^'\"]+)['\"]", re.M)


def absent_device(x: Explanation) -> str | None:
    """Why PyTorch here cannot have the trace's device, found without importing torch (which takes seconds), or
    ``None`` when it may: no torch at all, a build of torch without the trace's kind of GPU (its ``version.py`` says
    ``cuda = None``), or no driver of that kind on this machine (:data:`DRIVER_FILES`)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return "torch is not installed here"
    if not x.trace.gpu:
        return None  # a CPU trace: the CPU is here
    try:
        folder = next(iter(spec.submodule_search_locations))
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
            built = dict(_BUILT.findall(f.read(1 << 16)))
    except (OSError, StopIteration, UnicodeDecodeError):
        return None  # cannot tell: ask torch
    where = f"the trace ran on {x.device or 'a GPU'}"
    kinds = [k for k in ("cuda", "hip") if k in built]
    if not kinds:
        return f"{where}, and PyTorch {built.get('__version__', '')} here is a CPU-only build".replace("  ", " ")
    if not any(os.path.exists(f) for k in kinds for f in DRIVER_FILES[k]):
        return f"{where}, and this machine has no GPU driver ({' '.join(DRIVER_FILES[kinds[0]])}: absent)"
    return None


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


def _found(calls: int, steps: int, lang: str) -> str:
    return words.text("explain.progress.found", lang, calls=words.counted("explain.progress.calls", calls, lang),
                      steps=words.counted("explain.progress.steps", steps, lang))  # fmt: skip


def why(x: Explanation, err: IO[str], lang: str) -> Asked:
    """PyTorch's answers (:func:`ask`), or, without importing torch, why it cannot be asked here, said on ``err``
    too."""
    absent = absent_device(x) if ex.questions(x) else None
    if absent is not None:
        err.write(words.text("explain.progress.not_asking", lang, reason=absent) + "\n")
        return Asked(
            note=("no_torch", {"error": absent}) if "not installed" in absent else ("no_gpu", {"reason": absent})
        )
    if ex.questions(x):
        err.write(words.text("explain.progress.asking", lang) + "\n")
        err.flush()
    return ask(x)


def cmd_explain(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnprof explain``: the reading of any PyTorch profiler trace (and, with ``--measure``, what each call
    costs here: :mod:`attnprof.cli.advice`)."""
    lang, gpu, max_bytes = options(args)
    measure = advice.options(args)
    checks.distinct({"--json": args.json, "--html": args.html}, {"TRACE": args.trace})  # before any other check
    json_to, html_to = output(args.json, "JSON file", args.force), output(args.html, "HTML file", args.force)
    if not os.path.exists(args.trace):  # one line, before the progress line of a read that cannot start
        raise BadInput(f"no trace file {fmt.quoted_path(args.trace)}; {foreign.ACCEPTED}")
    started = time.perf_counter()
    err.write(words.text("explain.progress.reading", lang, name=fmt.shown(args.trace)) + "\n")
    err.flush()
    trace = load(args.trace, max_bytes)
    err.write(words.text("explain.progress.read", lang, events=trace.events, cpu=len(trace.cpu), gpu=len(trace.gpu),
                         seconds=f"{time.perf_counter() - started:.1f}") + "\n")  # fmt: skip
    try:
        x = ex.explain(trace, gpu)
    except ValueError as exc:
        raise BadInput(f"{fmt.shown(Path(args.trace).name)}: {exc}") from None
    err.write(_found(len(x.calls), len(x.steps), lang) + "\n")
    asked = None if args.no_why else why(x, err, lang)
    measured = advice.run(x, measure, args, out, err, lang, absent_device(x)) if measure.measure else None
    if measured is not None and measured.printed:
        return 0
    extra = advice.sections(measured, lang)
    written: list[tuple[str, str, str]] = []  # (the option's value, the content, its progress line's key)
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
        written.append((args.json, dumps(data), "explain.progress.json"))
    if html_to is not None:
        written.append((args.html, explainhtml.page(x, asked, lang, extra), "explain.progress.html"))
    to_files = [(name, text) for name, text, _ in written if name != files.STDOUT]
    commands.write_all(to_files, args.force, args.interrupts_seen)  # all or none
    for name, text, key in written:
        if name == files.STDOUT:
            streams.write_data(out, text) if key == "explain.progress.json" else out.write(text)
    for name, _, key in written:
        if name != files.STDOUT:
            err.write(words.text(key, lang, name=fmt.shown(name)) + "\n")
    if json_to != "-" and html_to != "-":
        out.write(report.text(x, asked, lang, extra))
    return 0
