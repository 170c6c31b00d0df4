"""Run what :func:`attnprof.analysis.advice.plan` planned: every option of every distinct attention call of a
trace, rebuilt on the trace's device and timed (:func:`run`); before that, what the run will cost
(:func:`estimate`).

Each option's inputs are made fresh (random normal values, seeded; the recorded strides; a dense mask filled as the
spec's ``mask_fill`` says), then:

* an SDPA option with a backend forced is first put to PyTorch's own check of that backend on those inputs
  (:func:`attnprof.measure.backends.check_cuda`, :func:`~attnprof.measure.backends.check_selector`): a refusal is
  the option's answer, in PyTorch's words, and it is not timed. An option that leaves the choice to SDPA makes one
  call first, watched, to read which backend ran (:func:`~attnprof.measure.backends.call_once`);
* the call (forward, and backward with a fixed upstream gradient for a training call; keys and values expanded
  inside it where the code expanded them) is timed by :func:`attnprof.measure.timing.time_shape` with
  :data:`ADVICE_PLAN`: CUDA events around single calls with the GPU pre-filled on a GPU, ``perf_counter`` on the
  CPU; the median and its confidence interval (:mod:`attnprof.noise`);
* FlexAttention runs compiled (``torch.compile(flex_attention)``, :func:`attnprof.measure.maskrun.compiled_flex`)
  with the block mask of the spec's ``mask_fill``, on CUDA only.

An option whose estimated memory (:func:`option_bytes`) is more than the device has is not run (``too_big``, with the
estimate), unless forced; once the run has spent its time budget, the options left are ``over_budget``. A failing
call is the option's answer (``failed``, PyTorch's reason), never the run's end.

torch is imported inside the functions only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from attnprof.inputs import element_bytes
from attnprof.measure import backends, cost, maskrun
from attnprof.measure.failure import attempt
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.timing import Plan, gpu_sleeper, sync, time_shape, timer_name
from attnprof.records.advice import Advice, Measured, Option, Spec

#: How each option is timed: enough samples for a band of the median, few enough for a trace's dozens of options.
ADVICE_PLAN = Plan(warmup=2, warmup_ms=10.0, reps=15, budget_ms=40.0, max_reps=60, reps_slow=7, slow_ms=20.0,
                   retries=1)  # fmt: skip
#: The default time budget of one run, seconds (``--budget-s``).
BUDGET_S = 120.0
#: Per timed call, what the timing loop adds besides the call: the GPU pre-fill and the wait (CUDA), the loop (CPU).
LOOP_S = {"cuda": 3e-4, "cpu": 5e-5}
#: Asking PyTorch's check and making the inputs, per option.
ASK_S = 0.02
#: ``torch.compile(flex_attention)``'s first call at a new shape: forward, and forward and backward.
FLEX_COMPILE_S = {False: 5.0, True: 10.0}
#: Why FlexAttention is not run on the CPU.
NOT_HERE = "FlexAttention is measured on CUDA only: it compiles its kernel"
_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}


# --- what it will cost ----------------------------------------------------------------------------------------------


def _numel(shape: Any) -> int:
    return math.prod(int(x) for x in shape)


def materialises(option: Option) -> bool:
    """Whether the option writes the score matrix: hand-written code and SDPA's math backend."""
    return option.method == "handwritten" or option.backend == "MATH"


def option_bytes(option: Option) -> int:
    """Estimated peak memory of one call of ``option``, bytes: the inputs and the output (twice over, and the upstream
    gradient, for a training call), the sources of expanded keys and values, a dense mask, and for code that writes
    the scores two ``[B, H, S_q, S_k]`` matrices (three with dropout; twice as many for a training call) in at least
    fp32 where the softmax runs in it."""
    s = option.spec
    size = element_bytes(s.dtype)
    out = _numel(s.query[:-1]) * s.value[-1]
    total = (_numel(s.query) + _numel(s.key) + _numel(s.value) + out) * size
    if s.expanded_from:
        total += (_numel(s.key) + _numel(s.value)) * size * s.expanded_from // s.key[1]
    if s.train:
        total = 2 * total + out * size
    if s.mask_shape and not option.flex:
        total += _numel(s.mask_shape) * (1 if s.mask == "bool" else size)
    if materialises(option):
        scores = s.query[0] * s.query[1] * s.query[2] * s.key[2]
        copies = (3 if s.dropout else 2) * (2 if s.train else 1)
        total += scores * copies * max(size, 4 if s.fp32_softmax else size)
    return int(total)


def option_seconds(option: Option, device: str, plan: Plan = ADVICE_PLAN) -> float:
    """Estimated time to measure ``option`` on ``device``, seconds: its calls as :func:`time_shape` makes them with
    ``plan`` (every attempt), each call estimated by :func:`attnprof.measure.cost.attention_seconds`, and
    FlexAttention's compilation."""
    s = option.spec
    call = cost.attention_seconds(s.query, s.key[2], s.dtype, device, materialises=materialises(option),
                                  train=s.train) + LOOP_S.get(device, 0.0)  # fmt: skip
    warm = max(plan.warmup * call, plan.warmup_ms / 1e3 + call)
    reps = plan.reps_slow if call * 1e3 >= plan.slow_ms else plan.reps
    timed = min(max(reps * call, plan.budget_ms / 1e3), max(plan.max_reps, reps) * call)
    total = (warm + timed) * (1 + plan.retries) + ASK_S + 2 * call
    if option.flex:
        total += FLEX_COMPILE_S[s.train]
    return total


def estimate(advice: Advice, plan: Plan = ADVICE_PLAN) -> float:
    """Fill each planned option's estimates (memory, time) in; returns the run's estimated seconds."""
    seconds = 0.0
    for case in advice.cases:
        for m in case.options:
            m.bytes_estimate = option_bytes(m.option)
            if runs_on(m.option, advice.device):
                m.seconds_estimate = option_seconds(m.option, advice.device, plan)
            else:
                m.status, m.reason, m.seconds_estimate = "not_here", NOT_HERE, 0.0
            seconds += m.seconds_estimate
    advice.estimate_s = seconds
    return seconds


def runs_on(option: Option, device: str) -> bool:
    """Whether ``option`` can run on ``device`` at all: FlexAttention is measured on CUDA only (it compiles)."""
    return not option.flex or device == "cuda"


# --- where it runs --------------------------------------------------------------------------------------------------


def missing_device(advice: Advice) -> str | None:
    """Why the trace's device is not here (a GPU trace on a machine without CUDA), or ``None``."""
    return cuda_missing_reason() if advice.device == "cuda" else None


def mismatch(advice: Advice) -> list[str]:
    """How this machine differs from the one that recorded the trace (codes of ``advice.mismatch.<code>``): another
    GPU, another CUDA runtime, a trace that does not name its GPU, or (always) a trace that does not record its
    PyTorch (``torch_unknown``) or, for a CPU trace, its CPU (``cpu_unknown``)."""
    if advice.device != "cuda":
        return ["cpu_unknown"]
    import torch

    out = []
    here = torch.cuda.get_device_name()
    if advice.trace_device is None:
        out.append("gpu_unknown")
    elif advice.trace_device != here:
        out.append("gpu")
    cuda = torch.version.cuda
    if advice.trace_cuda is not None and cuda is not None and ".".join(cuda.split(".")[:2]) != advice.trace_cuda:
        out.append("cuda")
    out.append("torch_unknown")
    return out


# --- the inputs and the calls ---------------------------------------------------------------------------------------


def _mod(fill: str, sq: int, sk: int, device: str) -> Callable[..., Any]:
    """The mask as FlexAttention's ``mask_mod``: causal aligned to the last key (query ``i`` is position ``i + sk -
    sq``), within a window, or within equal packed documents."""
    import torch

    off = sk - sq
    if fill.startswith("sliding="):
        window = int(fill.split("=")[1])

        def sliding(b, h, q, kv):
            return (q + off >= kv) & (q + off - kv < window)

        return sliding
    if fill.startswith("documents="):
        n = int(fill.split("=")[1])
        doc = torch.arange(sk, device=device) * n // max(sk, 1)

        def documents(b, h, q, kv):
            return (doc[q + off] == doc[kv]) & (q + off >= kv)

        return documents

    def causal(b, h, q, kv):
        return q + off >= kv

    return causal


def dense_mask(spec: Spec, device: str) -> Any:
    """The dense mask of ``spec``: boolean (``True`` where a query may look) or additive (0 or ``-inf``) of its
    dtype, of its ``mask_shape``, filled as its ``mask_fill`` says."""
    import torch

    sq, sk = spec.query[2], spec.key[2]
    idx_q = torch.arange(sq, device=device).view(-1, 1)
    idx_k = torch.arange(sk, device=device).view(1, -1)
    allowed = _mod(spec.mask_fill, sq, sk, device)(None, None, idx_q, idx_k)
    allowed = allowed.expand(*spec.mask_shape).contiguous() if spec.mask_shape else allowed
    if spec.mask == "bool":
        return allowed
    dtype = getattr(torch, _DTYPES[spec.dtype])
    return torch.zeros(allowed.shape, dtype=dtype, device=device).masked_fill(~allowed, float("-inf"))


def expand_heads(t: Any, heads: int) -> Any:
    """``repeat_kv``: ``[B, h, S, D]`` to ``heads`` heads, each repeated in place (a copy, as the code made it)."""
    b, h, s, d = t.shape
    return t[:, :, None].expand(b, h, heads // h, s, d).reshape(b, heads, s, d)


def handwritten(q: Any, k: Any, v: Any, mask: Any, dropout: float, fp32_softmax: bool, train: bool) -> Any:
    """Attention as code writes it: matmul, scale, the mask (added, or filled where it is ``False``), softmax (in
    fp32 when asked, back to the inputs' dtype), dropout, matmul."""
    import torch
    import torch.nn.functional as F

    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    weights = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype) if fp32_softmax else F.softmax(scores, -1)
    if dropout:
        weights = F.dropout(weights, p=dropout, training=train)
    return torch.matmul(weights, v)


def _tensors(spec: Spec, device: str, seed: int = 0) -> tuple[Any, Any, Any]:
    """The leaves: query, and keys and values as the code had them (before any expansion), with the recorded
    strides."""
    import torch

    from attnprof.records.eligibility import Operand

    torch.manual_seed(seed)
    dtype = _DTYPES[spec.dtype]
    kv = spec.key[1] if spec.expanded_from is None else spec.expanded_from
    shapes = (spec.query, (*spec.key[:1], kv, *spec.key[2:]), (*spec.value[:1], kv, *spec.value[2:]))
    strides = spec.strides if spec.strides and spec.expanded_from is None else (None, None, None)
    return tuple(backends.make_tensor(Operand(tuple(s), dtype, st), device, spec.train)
                 for s, st in zip(shapes, strides, strict=True))  # fmt: skip


def prepare(option: Option, device: str) -> tuple[maskrun.Prepared, backends.Inputs | None]:
    """The option's call, ready to time (:func:`attnprof.measure.maskrun.step`), and for SDPA the inputs its check
    is asked about (the keys and values as SDPA gets them, detached)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    s = option.spec
    q, k0, v0 = _tensors(s, device)
    heads = s.key[1]
    expand = s.expanded_from is not None
    mask = dense_mask(s, device) if s.mask in ("bool", "float") and not option.flex else None
    out_shape = (*s.query[:-1], s.value[-1])
    grad = torch.randn(out_shape, generator=torch.Generator().manual_seed(1)).to(device=device, dtype=q.dtype)
    p = s.dropout
    causal = s.mask == "causal"

    def kv() -> tuple[Any, Any]:
        return (expand_heads(k0, heads), expand_heads(v0, heads)) if expand else (k0, v0)

    if option.method == "handwritten":

        def forward() -> Any:
            k, v = kv()
            return handwritten(q, k, v, mask, p, s.fp32_softmax, s.train)

        return maskrun.Prepared(forward, (q, k0, v0), grad), None
    if option.flex:
        from torch.nn.attention.flex_attention import create_block_mask

        bm = create_block_mask(_mod(s.mask_fill, s.query[2], s.key[2], device), None, None, s.query[2], s.key[2],
                               device=device)  # fmt: skip
        flex = maskrun.compiled_flex()

        def forward() -> Any:
            k, v = kv()
            return flex(q, k, v, block_mask=bm, enable_gqa=s.gqa)

        return maskrun.Prepared(forward, (q, k0, v0), grad), None
    kwargs: dict[str, Any] = {"attn_mask": mask, "dropout_p": p, "is_causal": causal}
    if s.gqa:
        kwargs["enable_gqa"] = True
    forced = [getattr(SDPBackend, option.backend)] if option.backend else None

    def forward() -> Any:
        k, v = kv()
        if forced is None:
            return F.scaled_dot_product_attention(q, k, v, **kwargs)
        with sdpa_kernel(forced):
            return F.scaled_dot_product_attention(q, k, v, **kwargs)

    with torch.no_grad():
        k, v = kv()
    asked = backends.Inputs(q.detach().requires_grad_(s.train), k.detach().requires_grad_(s.train),
                            v.detach().requires_grad_(s.train), mask, p, causal, s.gqa)  # fmt: skip
    return maskrun.Prepared(forward, (q, k0, v0), grad), asked


def _check(option: Option, asked: backends.Inputs, device: str) -> tuple[str | None, str | None]:
    """PyTorch's answer for the forced backend: ``(None, None)`` when it accepts, else ``("refuses", its reason)``;
    for SDPA's own choice, one watched call: ``(None, the backend it ran)`` or ``("failed", the reason)``."""
    if option.backend is None:
        status, reason, ran = backends.call_once(asked, None)
        return (None, ran) if status == "ran" else ("failed", reason)
    if device == "cuda" and option.backend in backends.CUDA_CHECKS:
        verdict = backends.check_cuda(option.backend, asked)
    else:
        verdict = backends.check_selector(option.backend, asked)
    if verdict.accepts:
        return None, None
    return "refuses", verdict.reason or verdict.check


def measure_option(m: Measured, device: str, plan: Plan = ADVICE_PLAN) -> Measured:
    """Run and time one option (see the module docstring); its answer, whatever happened."""
    if not runs_on(m.option, device):
        return replace(m, status="not_here", reason=NOT_HERE)
    with attempt() as made:
        prepared, asked = prepare(m.option, device)
    if not made.ok:
        return replace(m, status="failed", reason=f"the inputs could not be made: {made.reason}")
    ran = None
    if asked is not None:
        status, said = _check(m.option, asked, device)
        if status is not None:
            return replace(m, status=status, reason=said)
        ran = said
        del asked
    step = maskrun.step(prepared, m.option.spec.train)
    with attempt() as outcome, _compile_room():
        timed = time_shape(step, device, plan, gpu_sleeper(device))
        sync(device)
    if not outcome.ok:
        return replace(m, status="failed", reason=outcome.reason)
    return replace(m, status="ok", reason=None, time_us=timed.gpu.scaled(1000.0), unstable=timed.unstable, ran=ran)


def _compile_room() -> Any:
    """Room for a compiled entry per shape (:func:`attnprof.measure.sweeprun.dynamo_limits`)."""
    from attnprof.measure.sweeprun import dynamo_limits

    return dynamo_limits()


def run(
    advice: Advice,
    *,
    budget_s: float = BUDGET_S,
    force: bool = False,
    say: Callable[[int, str, str], None] | None = None,
    plan: Plan = ADVICE_PLAN,
) -> Advice:
    """Measure every planned option of ``advice`` on its device (see the module docstring).

    Args:
        advice: The plan (:func:`attnprof.analysis.advice.plan`), its estimates filled by :func:`estimate` or not.
        budget_s: Once this many seconds are spent, the options left are not run (``over_budget``).
        force: Run options whose estimated memory is more than the device has, and past the budget.
        say: Called after each option with the case's number, the option's key and its time or status.
        plan: How each option is timed (:data:`ADVICE_PLAN`; a test may take fewer samples).

    Returns:
        The same record, measured (status ``measured``), with where it ran and how this machine differs from the
        trace's.
    """
    import torch

    device = advice.device
    if not advice.estimate_s:
        estimate(advice, plan)
    limit = cost.available(device)
    started = time.perf_counter()
    sleep = gpu_sleeper(device)
    torch.manual_seed(0)
    for case in advice.cases:
        for n, m in enumerate(case.options):
            spent = time.perf_counter() - started
            if spent > budget_s and not force:
                done = replace(m, status="over_budget", reason=f"the budget of {budget_s:g} s was spent")
            elif limit is not None and m.bytes_estimate > limit.bytes and not force and runs_on(m.option, device):
                done = replace(m, status="too_big",
                               reason=f"needs about {cost.human_bytes(m.bytes_estimate)} (estimated), more than the "
                                      f"{cost.human_bytes(limit.bytes)} of {limit.source}")  # fmt: skip
            else:
                done = measure_option(m, device, plan)
            case.options[n] = done
            if say is not None:
                said = f"{done.time_us.median:.4g} µs" if done.time_us is not None else done.status
                say(case.index, m.option.key, said)
        if device == "cuda":
            torch.cuda.empty_cache()
    advice.status, advice.reason = "measured", None
    advice.environment = environment(device)
    advice.mismatch = mismatch(advice)
    advice.budget_s = budget_s
    advice.seconds = time.perf_counter() - started
    advice.timer = timer_name(device, sleep)
    advice.plan = plan.to_dict()
    return advice
