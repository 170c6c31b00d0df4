"""Ask PyTorch why each SDPA backend would or would not take given inputs on this machine, and what SDPA picks.

PyTorch decides which kernel ``F.scaled_dot_product_attention`` runs with one check per backend; each check can say
why it refuses (``debug=True``). This module asks those checks and returns their answers as data
(:class:`attnprof.records.eligibility.Answer`), one :class:`~attnprof.records.eligibility.Verdict` per backend:

* flash, memory-efficient and cuDNN on CUDA: ``torch.backends.cuda.can_use_flash_attention(params, debug=True)``
  (``can_use_efficient_attention``, ``can_use_cudnn_attention``) on ``torch.backends.cuda.SDPAParams`` built from
  the inputs. These checks write their reasons as C++ warnings to the process's standard error, not as Python
  warnings, so the answer is read from file descriptor 2 while the check runs (with Python's warnings and the log
  of ``torch.nested`` beside it). A check stops at the first condition that fails: the reason is the first one,
  not necessarily the only one.
* math, and flash on the CPU (a separate C++ kernel with its own check, not exposed as a function): SDPA's own
  selector, ``torch._fused_sdp_choice``, with only that backend enabled (``sdpa_kernel``); it explains a refusal in
  Python warnings before it raises.
* nested (jagged) inputs go through SDPA's selector for nested tensors (``torch.nested._internal.sdpa``), which adds
  checks of its own on top of the ones above and logs their reasons.
* SDPA's pick: the same selector with every backend enabled as this process has them.

With ``call=True`` each verdict is confirmed by one real call with that backend forced (``sdpa_kernel``; the
backward too when the inputs require gradients), its failure recorded in PyTorch's words
(:func:`attnprof.measure.failure.failure`), and the unforced call is watched (a ``TorchDispatchMode`` that sees the
operators it dispatches) to read which backend SDPA really ran. The answer then says both what the check says and
what a call does, and :attr:`~attnprof.records.eligibility.Answer.disagreements` names where they differ.

What cannot be asked is data too: no torch, no CUDA device for CUDA inputs, unknown shapes (``Answer.unasked``);
a CUDA-only backend asked about CPU inputs (``cuda_only``: SDPA's CPU dispatch has flash and math only); a check
this torch does not have (``no_check``).

Reading file descriptor 2 redirects the whole process's standard error for the length of one check: output that
another thread writes meanwhile lands in the answer's capture instead of the terminal.

torch is imported inside the functions only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attnprof import variants
from attnprof.measure.failure import Outcome, attempt, plain, pytorch_reason
from attnprof.measure.profiling import cuda_missing_reason
from attnprof.records.eligibility import BACKENDS, Answer, Operand, Verdict

if TYPE_CHECKING:
    import torch

#: The CUDA checks PyTorch exposes, by backend (``torch.backends.cuda.<name>``).
CUDA_CHECKS: dict[str, str] = {
    "FLASH_ATTENTION": "can_use_flash_attention",
    "EFFICIENT_ATTENTION": "can_use_efficient_attention",
    "CUDNN_ATTENTION": "can_use_cudnn_attention",
}
#: The extra checks SDPA's selector for nested (jagged) tensors makes (``torch.nested._internal.sdpa.<name>``).
NESTED_CHECKS: dict[str, str] = {
    "FLASH_ATTENTION": "_can_use_flash_sdpa_jagged",
    "EFFICIENT_ATTENTION": "_can_use_efficient_sdpa_jagged",
    "MATH": "_can_use_math_sdpa_jagged",
}
#: The backends SDPA's CPU dispatch knows.
CPU_BACKENDS: tuple[str, ...] = ("FLASH_ATTENTION", "MATH")
#: Operator names that tell which backend a call ran (checked in this order; anything else is math).
_RAN_OPS: tuple[tuple[str, str], ...] = (
    ("cudnn_attention", "CUDNN_ATTENTION"),
    ("efficient_attention", "EFFICIENT_ATTENTION"),
    ("flash_attention", "FLASH_ATTENTION"),
    ("fused_attention_overrideable", "OVERRIDEABLE"),
)
#: Lines PyTorch writes around the reasons, not reasons themselves.
_HEADERS = ("kernel not used because", "Profiler clears events", "is in prototype stage")
#: A C++ warning as c10 logs it: ``[W1202 01:24:37.57 sdp_utils.cpp:574] Warning: <text> (function <name>)``.
_CPP_WARNING = re.compile(r"^\[W[^\]]*\]\s*Warning:\s*(?P<text>.*?)(?:\s*\(function (?P<function>\w+)\))?\s*$")
_NESTED_LOGGER = "torch.nested._internal.sdpa"
#: What a check says of a backend that is switched off: the reason of a check, noise in a call that forced another.
_RUNTIME_DISABLED = "has been runtime disabled"


def _variant_of(backend: str | None) -> variants.Variant:
    """The registry's variant that forces ``backend`` (``None``: SDPA's own choice)."""
    if backend is None:
        return variants.get(variants.sdpa_chooser())
    return next(v for v in variants.VARIANTS.values() if v.backend == backend)


# --- what PyTorch said --------------------------------------------------------------------------------------------


@dataclass
class Heard:
    """What PyTorch said while a check or call ran: messages (with the name of the check that wrote each, when it
    gave one) and the Python warnings as recorded."""

    messages: list[tuple[str, str | None]] = field(default_factory=list)
    caught: list[warnings.WarningMessage] = field(default_factory=list)

    def add(self, text: str, function: str | None = None) -> None:
        text = text.split(" (Triggered internally at")[0].strip()
        if text and not any(h in text for h in _HEADERS) and all(text != t for t, _ in self.messages):
            self.messages.append((text, function))

    @property
    def reason(self) -> str | None:
        """The messages joined with `` | `` (PyTorch's reason), or ``None`` when it said nothing."""
        return " | ".join(t for t, _ in self.messages) or None

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f for _, f in self.messages if f)


class _Records(logging.Handler):
    def __init__(self, heard: Heard) -> None:
        super().__init__(logging.DEBUG)
        self.heard = heard

    def emit(self, record: logging.LogRecord) -> None:
        self.heard.add(record.getMessage(), record.funcName)


def _cpp_lines(text: str) -> Iterator[tuple[str, str | None]]:
    """The C++ warnings in captured standard error, continuation lines joined to their warning."""
    entries: list[str] = []
    for line in text.splitlines():
        if line.startswith(("[W", "Warning:")) or not entries:
            entries.append(line)
        else:
            entries[-1] += " " + line.strip()
    for entry in entries:
        m = _CPP_WARNING.match(entry)
        if m:
            yield m["text"], m["function"]
        elif entry.strip():  # a warning printed without the "[W...]" header: its text, without the "Warning:" label
            yield re.sub(r"^Warning:\s*", "", entry.strip()), None


@contextlib.contextmanager
def hearing() -> Iterator[Heard]:
    """Collect what PyTorch says inside the block: Python warnings, C++ warnings written to file descriptor 2 (read
    back from a temporary file), and the log of SDPA's nested-tensor selector."""
    heard = Heard()
    handler = _Records(heard)
    log = logging.getLogger(_NESTED_LOGGER)
    propagate = log.propagate
    log.addHandler(handler)
    log.propagate = False
    saved: int | None = None
    with tempfile.TemporaryFile() as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(tmp.fileno(), 2)
        except (OSError, ValueError):  # no file descriptor 2 to borrow: the Python-side messages still come
            saved = None
        try:
            yield heard
        finally:
            if saved is not None:
                os.dup2(saved, 2)
                os.close(saved)
            log.removeHandler(handler)
            log.propagate = propagate
            heard.caught = list(caught)
            for w in caught:
                heard.add(str(w.message))
            if saved is not None:
                tmp.seek(0)
                for text, function in _cpp_lines(tmp.read().decode(errors="replace")):
                    heard.add(text, function)


@contextlib.contextmanager
def asking(
    variant: variants.Variant | None = None, device: str | None = None, *, judge: Any = None
) -> Iterator[tuple[Heard, Outcome]]:
    """Run the block as :func:`attnprof.measure.failure.attempt` does (a failure becomes the outcome's status and
    reason; an interrupt stays one), hearing everything PyTorch says meanwhile (:func:`hearing`)."""
    with hearing() as heard:
        with attempt(variant, device, judge=judge) as outcome:
            yield heard, outcome
        heard.caught = list(outcome.caught)
        for w in outcome.caught:
            heard.add(str(w.message))


def _error(exc: BaseException, caught: Sequence[warnings.WarningMessage]) -> tuple[str, str]:
    """A check that raises answers ``error``, with the exception's first line."""
    return "error", pytorch_reason(exc, ())


# --- building the inputs --------------------------------------------------------------------------------------------


def _contiguous_stride(shape: Sequence[int]) -> tuple[int, ...]:
    stride, step = [], 1
    for size in reversed(shape):
        stride.append(step)
        step *= max(int(size), 1)
    return tuple(reversed(stride))


def make_tensor(op: Operand, device: str, requires_grad: bool = False) -> torch.Tensor:
    """A tensor of ``op``'s shape, dtype and strides on ``device``: random values for a float tensor, ``True`` for
    a boolean one (a mask that hides nothing)."""
    import torch

    dtype = getattr(torch, op.dtype)
    t = torch.empty_strided(op.shape, op.stride or _contiguous_stride(op.shape), dtype=dtype, device=device)
    with torch.no_grad():
        if dtype == torch.bool:
            t.fill_(True)
        else:
            t.normal_()
    return t.requires_grad_(requires_grad and t.is_floating_point())


def operand(t: torch.Tensor) -> Operand:
    """The :class:`Operand` of a tensor (a nested one: its ragged dimension at its longest)."""
    dtype = str(t.dtype).removeprefix("torch.")
    if t.is_nested:
        offsets = t.offsets()
        longest = int(offsets.diff().max()) if offsets is not None and offsets.numel() > 1 else 0
        return Operand(tuple(s if isinstance(s, int) else longest for s in t.shape), dtype)  # ragged: its longest
    stride = tuple(t.stride())
    return Operand(tuple(t.shape), dtype, None if stride == _contiguous_stride(t.shape) else stride)


# --- the checks -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """The arguments of one SDPA call, as tensors."""

    q: Any
    k: Any
    v: Any
    mask: Any = None
    dropout_p: float = 0.0
    is_causal: bool = False
    enable_gqa: bool = False

    @property
    def nested(self) -> bool:
        return bool(self.q.is_nested)

    @property
    def device(self) -> str:
        return self.q.device.type

    @property
    def requires_grad(self) -> bool:
        return any(t.requires_grad for t in (self.q, self.k, self.v))

    def params(self) -> Any:
        """``torch.backends.cuda.SDPAParams`` of these inputs: ``(query, key, value, attn_mask, dropout, is_causal,
        enable_gqa)`` since torch 2.5, the same without ``enable_gqa`` before.

        Raises:
            TypeError: on a torch whose ``SDPAParams`` cannot say ``enable_gqa`` when it is asked for.
        """
        from torch.backends.cuda import SDPAParams

        args = (self.q, self.k, self.v, self.mask, self.dropout_p, self.is_causal)
        try:
            return SDPAParams(*args, self.enable_gqa)
        except TypeError:
            if self.enable_gqa:
                raise
            return SDPAParams(*args)

    def choose(self) -> int:
        """``torch._fused_sdp_choice`` for these dense inputs: the backend SDPA's selector takes."""
        import torch

        args = (self.q, self.k, self.v, self.mask, self.dropout_p, self.is_causal)
        if self.enable_gqa:
            return torch._fused_sdp_choice(*args, enable_gqa=True)
        return torch._fused_sdp_choice(*args)


def _name(choice: int) -> str:
    from torch.nn.attention import SDPBackend

    return SDPBackend(int(choice)).name


def _verdict(backend: str, accepted: bool, heard: Heard, asked: str) -> Verdict:
    if accepted:
        return Verdict(backend, "accepts", asked=asked)
    return Verdict(backend, "refuses", heard.reason, heard.functions, asked=asked)


def _ask(backend: str, check: Any, inputs: Inputs, asked: str) -> Verdict:
    """One check, ``check(params, True)``, as a verdict (``error`` when the check itself raises)."""
    with asking(judge=_error) as (heard, outcome):
        ok = bool(check(inputs.params(), True))
    if not outcome.ok:
        return Verdict(backend, "error", outcome.reason, asked=asked)
    return _verdict(backend, ok, heard, asked)


def _nested_module() -> Any:
    try:
        from torch.nested._internal import sdpa
    except ImportError:
        return None
    return sdpa


def check_cuda(backend: str, inputs: Inputs) -> Verdict:
    """``torch.backends.cuda.can_use_<backend>(params, debug=True)``; for nested inputs also the nested selector's
    own check of that backend (both must accept, as in SDPA)."""
    import torch.backends.cuda as cuda_backends

    name = CUDA_CHECKS[backend]
    check = getattr(cuda_backends, name, None)
    asked = f"torch.backends.cuda.{name}"
    if check is None:
        return Verdict(backend, "no_check", f"this torch has no {asked}", asked=asked)
    nested = _nested_module() if inputs.nested else None
    extra = getattr(nested, NESTED_CHECKS.get(backend, ""), None) if nested is not None else None
    verdict = _ask(backend, check, inputs, asked)
    if verdict.accepts and extra is not None:  # SDPA's nested selector asks both
        verdict = _ask(backend, extra, inputs, f"{asked} + torch.nested._internal.sdpa.{NESTED_CHECKS[backend]}")
    return verdict


def check_selector(backend: str, inputs: Inputs) -> Verdict:
    """SDPA's selector with only ``backend`` enabled (math anywhere, flash on the CPU): it accepts when it returns
    that backend, and explains a refusal in warnings before it raises. Nested inputs: the nested selector's own
    check of that backend."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if inputs.nested:
        nested = _nested_module()
        name = NESTED_CHECKS.get(backend, "")
        extra = getattr(nested, name, None) if nested is not None and name else None
        asked = f"torch.nested._internal.sdpa.{name}"
        if extra is None:
            return Verdict(backend, "no_check", f"this torch has no {asked}", asked=asked)
        return _ask(backend, extra, inputs, asked)
    asked = f"torch._fused_sdp_choice, only {backend} enabled"
    choice = None
    with asking(judge=plain) as (heard, outcome):
        with sdpa_kernel([getattr(SDPBackend, backend)]):
            choice = _name(inputs.choose())
    if outcome.status not in ("ok", "unsupported"):  # "No available kernel" is a refusal: the warnings say why
        return Verdict(backend, "error", outcome.reason, asked=asked)
    return _verdict(backend, choice == backend, heard, asked)


def pick(inputs: Inputs) -> tuple[str | None, str | None]:
    """The backend SDPA's selector picks, with every backend enabled as this process has them: ``(name, None)``, or
    ``(None, PyTorch's reason)`` when it picks none."""
    nested = _nested_module() if inputs.nested else None
    if inputs.nested and (nested is None or not hasattr(nested, "_select_sdp_backend")):
        return None, "this torch has no torch.nested._internal.sdpa._select_sdp_backend"
    name = "ERROR"
    with asking(judge=_error) as (heard, outcome):
        if nested is not None:
            i = inputs
            name = nested._select_sdp_backend(i.q, i.k, i.v, i.mask, i.dropout_p, i.is_causal, i.enable_gqa).name
        else:
            name = _name(inputs.choose())
    if not outcome.ok or name == "ERROR":
        said = [t for t, _ in heard.messages if not outcome.reason or t not in outcome.reason]
        return None, " | ".join(filter(None, [outcome.reason, *said])) or "no backend"
    return name, None


# --- the calls ------------------------------------------------------------------------------------------------------

_WATCHER: list[type] = []


def _watcher() -> type:
    """A ``TorchDispatchMode`` that keeps the names of the operators dispatched under it (made once)."""
    if not _WATCHER:
        from torch.utils._python_dispatch import TorchDispatchMode

        class Watch(TorchDispatchMode):
            def __init__(self) -> None:
                super().__init__()
                self.ops: list[str] = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops.append(str(func))
                return func(*args, **(kwargs or {}))

        _WATCHER.append(Watch)
    return _WATCHER[0]


def ran_backend(ops: Sequence[str]) -> str:
    """Which backend a call ran, from the operators it dispatched (``aten._scaled_dot_product_flash_attention...``
    -> ``FLASH_ATTENTION``); math when no fused attention operator is among them."""
    for op in ops:
        for part, backend in _RAN_OPS:
            if part in op:
                return backend
    return "MATH"


def attention_call(inputs: Inputs, backend: str | None) -> Callable[[], Any]:
    """One SDPA call on ``inputs``, ``backend`` forced (``None``: SDPA's own choice), and the backward with a
    gradient of ones when the inputs require gradients (the inputs' gradients cleared first)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    i = inputs
    kwargs: dict[str, Any] = {"attn_mask": i.mask, "dropout_p": i.dropout_p, "is_causal": i.is_causal}
    if i.enable_gqa:
        kwargs["enable_gqa"] = True
    train = i.requires_grad
    grad: list[Any] = []

    def forward() -> Any:
        return F.scaled_dot_product_attention(i.q, i.k, i.v, **kwargs)

    def call() -> Any:
        if backend is None:
            out = forward()
        else:
            with sdpa_kernel([getattr(SDPBackend, backend)]):
                out = forward()
        if train:
            for t in (i.q, i.k, i.v):
                t.grad = None
            if not grad:
                grad.append(torch.ones_like(out))
            out.backward(grad[0])
        return out

    if train:
        return call
    return lambda: _no_grad(call)


def _no_grad(fn: Callable[[], Any]) -> Any:
    import torch

    with torch.no_grad():
        return fn()


def call_once(inputs: Inputs, backend: str | None) -> tuple[str, str | None, str | None]:
    """Run one call (:func:`attention_call`) and wait for it.

    Returns:
        ``(status, reason, ran)``: ``"ran"`` or a failure status of :func:`attnprof.measure.failure.failure`,
        PyTorch's reason when it failed, and for the unforced call (``backend=None``) the backend it ran.
    """
    import torch

    fn = attention_call(inputs, backend)
    watch = _watcher()() if backend is None else contextlib.nullcontext()
    with asking(_variant_of(backend), inputs.device) as (heard, outcome):  # failure is data
        with watch:
            fn()
        if inputs.device == "cuda":
            torch.cuda.synchronize()
    if not outcome.ok:  # what PyTorch said besides the warnings (C++ warnings, the nested selector's log)
        reason = outcome.reason or ""
        extra = [t for t, _ in heard.messages if t not in reason and _RUNTIME_DISABLED not in t]
        return outcome.status, " | ".join([reason, *extra]), None
    return "ran", None, ran_backend(watch.ops) if backend is None else None


# --- asking ---------------------------------------------------------------------------------------------------------


def _backends_of(device: str) -> tuple[str, ...]:
    return BACKENDS if device == "cuda" else CPU_BACKENDS


def ask_tensors(inputs: Inputs, *, call: bool = False) -> Answer:
    """Every backend's verdict for these tensors, and SDPA's pick (see the module docstring).

    Args:
        inputs: The tensors and arguments of the SDPA call.
        call: Also confirm each verdict with one real call per backend (and the unforced call), on these tensors.
    """
    device = inputs.device
    answer = Answer(
        device,
        operand(inputs.q),
        operand(inputs.k),
        operand(inputs.v),
        None if inputs.mask is None else operand(inputs.mask),
        float(inputs.dropout_p),
        bool(inputs.is_causal),
        bool(inputs.enable_gqa),
        inputs.requires_grad,
        inputs.nested,
    )
    here = _backends_of(device)
    for backend in BACKENDS:
        if backend not in here:
            verdict = Verdict(backend, "cuda_only", f"SDPA's CPU dispatch has only {' and '.join(CPU_BACKENDS)}")
        elif backend in CUDA_CHECKS and (device == "cuda" or inputs.nested):
            verdict = check_cuda(backend, inputs)
        else:
            verdict = check_selector(backend, inputs)
        if call and backend in here:
            verdict.call, verdict.call_reason, _ = call_once(inputs, backend)
        answer.verdicts.append(verdict)
    answer.pick, answer.pick_reason = pick(inputs)
    if call:
        status, reason, ran = call_once(inputs, None)
        answer.ran, answer.ran_reason = (ran, None) if status == "ran" else (None, reason)
    return answer


def unasked(device: str, why: str, reason: str, *ops: Operand | None, **facts: Any) -> Answer:
    """An answer that could not be asked (:data:`attnprof.records.eligibility.UNASKED`), saying why."""
    q, k, v, mask = (*ops, None, None, None, None)[:4]
    return Answer(device, q, k, v, mask, unasked=why, unasked_reason=reason, **facts)


def ask(
    query: Operand | None,
    key: Operand | None,
    value: Operand | None,
    attn_mask: Operand | None = None,
    *,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    enable_gqa: bool = False,
    requires_grad: bool = False,
    device: str = "cuda",
    call: bool = False,
) -> Answer:
    """Why each SDPA backend would or would not take inputs of these shapes, dtypes and strides on ``device``.

    The inputs are made on the device (``torch.empty_strided``, filled) and asked about as in :func:`ask_tensors`.
    For inputs described by a trace (shapes, dtypes and strides of ``aten::scaled_dot_product_attention``), this is
    the one function to call.

    Args:
        query, key, value: The inputs (``None`` when not known: nothing is asked).
        attn_mask: The mask, or ``None``.
        dropout_p: Dropout probability.
        is_causal: ``is_causal=True``.
        enable_gqa: ``enable_gqa=True``.
        requires_grad: The inputs require gradients (a training step).
        device: ``"cuda"`` or ``"cpu"``.
        call: Also confirm each verdict with one real call (the backward too when ``requires_grad``).

    Returns:
        The answer; one that says why when nothing could be asked (no torch, no CUDA, unknown shapes) or the inputs
        could not be made (an ``error``, out of memory among them).
    """
    facts = dict(dropout_p=float(dropout_p), is_causal=is_causal, enable_gqa=enable_gqa, requires_grad=requires_grad)
    ops = (query, key, value, attn_mask)
    if query is None or key is None or value is None:
        return unasked(device, "no_shapes", "the shapes of query, key and value are not known", *ops, **facts)
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        return unasked(device, "no_torch", f"torch cannot be imported: {exc}", *ops, **facts)
    if device == "cuda":
        missing = cuda_missing_reason()
        if missing is not None:
            return unasked(device, "no_cuda", missing, *ops, **facts)
    with attempt() as made:
        q, k, v = (make_tensor(op, device, requires_grad) for op in (query, key, value))
        mask = None if attn_mask is None else make_tensor(attn_mask, device)
    if not made.ok:
        return unasked(device, "error", f"the inputs could not be made: {made.reason}", *ops, **facts)
    inputs = Inputs(q, k, v, mask, float(dropout_p), is_causal, enable_gqa)
    answer = ask_tensors(inputs, call=call)
    answer.query, answer.key, answer.value, answer.mask = query, key, value, attn_mask
    return answer
