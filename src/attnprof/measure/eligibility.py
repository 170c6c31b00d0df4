"""The eligibility map: every SDPA backend's verdict under a grid of conditions, confirmed by one real call each and
timed where it runs.

The grid varies one thing at a time from a base case (causal, bfloat16, head_dim 64, contiguous inputs, no dropout,
no gradients): the dtype, the head dimension, the mask, grouped-query attention, dropout, training (gradients
required, the backward run), the memory layout of the inputs (a transposed view, head_dim not contiguous, nested
jagged tensors) and the batch. For each case, :func:`attnprof.measure.backends.ask_tensors` asks PyTorch's checks,
confirms each verdict with one call with that backend forced, reads what the unforced call ran, and each backend
that ran gets one short timing (:data:`GRID_PLAN`: a few calls, their median and range, CUDA events on a GPU). A
case shared by several families (the base belongs to most) is measured once.

The whole grid is one file (:func:`attnprof.records.eligibility.save`); with reuse on (the docs build's second
language), a grid saved by the same code on the same machine, for the same cases and plan, is returned instead of
measuring again.

torch is imported inside the functions only.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from attnprof.measure import backends
from attnprof.measure.failure import attempt
from attnprof.measure.profiling import cuda_missing_reason, environment
from attnprof.measure.reuse import measured_by_this_code, same_machine
from attnprof.measure.timing import Plan, gpu_sleeper, time_shape, timer_name
from attnprof.noise import Figure, median_interval
from attnprof.records import eligibility
from attnprof.records.eligibility import Answer, Case, Grid, Row
from attnprof.records.files import UnreadableFile
from attnprof.settings import reuse_measurements

#: The base case on a GPU: big enough that a kernel's time is its work, not its launch.
CUDA_BASE = Case((4, 16, 1024, 64), "bfloat16")
#: The base case on the CPU: small, so that the grid takes a second or two.
CPU_BASE = Case((2, 4, 32, 64), "bfloat16")
#: How each backend that ran is timed: one warm-up call, five timed calls, their median and range.
GRID_PLAN = Plan(warmup=1, warmup_ms=0.0, reps=5, budget_ms=0.0, max_reps=5, reps_slow=3, slow_ms=50.0, retries=0)
#: The head dimensions of the grid: the common ones, and one above what the fused kernels take.
HEAD_DIMS: tuple[int, ...] = (64, 128, 256, 512)
#: Dropout probability of the cases with dropout.
DROPOUT = 0.1


def base_case(device: str) -> Case:
    """The base case of ``device``."""
    return CUDA_BASE if device == "cuda" else CPU_BASE


def families(base: Case) -> dict[str, list[Case]]:
    """The grid: family name -> its cases, each varying one thing of ``base`` (training varies its head_dim, mask
    and dropout too, since the backward has limits of its own)."""
    b, h, s, d = base.shape
    r = dataclasses.replace
    gqa = [base, *(r(base, kv_heads=n) for n in dict.fromkeys((max(h // 4, 1), 1)) if n < h)]
    train = r(base, requires_grad=True)
    return {
        "dtype": [r(base, dtype=x) for x in ("float32", "float16", "bfloat16")],
        "head_dim": [r(base, shape=(b, h, s, x)) for x in HEAD_DIMS],
        "mask": [r(base, mask=m) for m in eligibility.MASKS],
        "gqa": gqa,
        "dropout": [base, r(base, dropout=DROPOUT)],
        "training": [
            *(r(train, shape=(b, h, s, x)) for x in HEAD_DIMS),
            r(train, mask="bool"),
            r(train, dropout=DROPOUT),
            r(train, dtype="float32"),
        ],
        "layout": [*(r(base, layout=x) for x in eligibility.LAYOUTS), r(base, layout="nested", mask="none")],
        "batch": [base, r(base, shape=(1, h, s, d))] if b > 1 else [base],
    }


def nested_lengths(batch: int, seq: int) -> list[int]:
    """Row lengths of the nested case: from ``seq`` down, evenly (``4, 1024`` -> ``[1024, 768, 512, 256]``)."""
    return [max(1, seq * (batch - i) // batch) for i in range(batch)]


def case_inputs(case: Case, device: str, seed: int = 0) -> backends.Inputs:
    """The tensors of ``case`` on ``device`` (random normal values; a causal mask where it asks for one)."""
    import torch

    b, h, s, d = case.shape
    dtype = getattr(torch, case.dtype)
    gen = torch.Generator().manual_seed(seed)

    def made(heads: int) -> Any:
        if case.layout == "nested":
            lengths = nested_lengths(b, s)
            values = torch.randn(sum(lengths), heads, d, generator=gen).to(device=device, dtype=dtype)
            offsets = torch.tensor([0, *lengths], device=device).cumsum(0)
            with backends.hearing():  # building one may log a one-time notice of torch's
                t = torch.nested.nested_tensor_from_jagged(values, offsets=offsets).transpose(1, 2)
        elif case.layout == "transposed":
            t = torch.randn(b, s, heads, d, generator=gen).to(device=device, dtype=dtype).transpose(1, 2)
        elif case.layout == "strided":
            t = torch.randn(b, heads, d, s, generator=gen).to(device=device, dtype=dtype).transpose(-1, -2)
        else:
            t = torch.randn(b, heads, s, d, generator=gen).to(device=device, dtype=dtype)
        if case.requires_grad:
            t = t.detach().requires_grad_()
        return t

    q = made(h)
    k, v = made(case.kv_heads or h), made(case.kv_heads or h)
    mask = None
    if case.mask in ("bool", "float"):
        allowed = torch.ones(s, s, dtype=torch.bool, device=device).tril().expand(b, 1, s, s).contiguous()
        mask = allowed
        if case.mask == "float":
            mask = torch.zeros(b, 1, s, s, dtype=dtype, device=device).masked_fill(~allowed, float("-inf"))
    return backends.Inputs(q, k, v, mask, case.dropout, case.mask == "causal", case.kv_heads is not None)


def time_backend(inputs: backends.Inputs, backend: str, device: str) -> tuple[Figure | None, Figure | None]:
    """One short timing (:data:`GRID_PLAN`) of ``backend`` forced on ``inputs`` (forward and backward when they
    require gradients): the median and range of the GPU time, ms, and of the CPU's issue time of the same calls, µs;
    ``(None, None)`` if a call fails."""
    with attempt() as outcome:  # it ran once already; a failure now leaves the cell without a time
        timed = time_shape(backends.attention_call(inputs, backend), device, GRID_PLAN, gpu_sleeper(device))
    if not outcome.ok:
        return None, None
    return timed.gpu, median_interval(timed.samples.issue_us)


def measure_case(case: Case, device: str, *, call: bool = True, timed: bool = True) -> Answer:
    """Every backend's verdict for ``case``, confirmed by a call (``call``); the backends that ran timed
    (``timed``)."""
    with attempt() as made:  # inputs that cannot be made (out of memory) are the case's answer
        inputs = case_inputs(case, device)
    if not made.ok:
        return backends.unasked(device, "error", f"the inputs could not be made: {made.reason}")
    answer = backends.ask_tensors(inputs, call=call)
    if timed:
        for verdict in answer.verdicts:
            if verdict.ran:
                verdict.time_ms, verdict.issue_us = time_backend(inputs, verdict.backend, device)
    return answer


def _cases(base: Case) -> list[tuple[str, Case]]:
    return [(name, case) for name, cases in families(base).items() for case in cases]


def _reusable(path: Path, grid_cases: list[tuple[str, Case]], base: Case, device: str) -> Grid | None:
    """The grid saved at ``path`` when it measured the same cases with the same plan, on this machine, after the last
    change to the measuring code."""
    try:
        saved = eligibility.load(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    same = (saved.base, [(r.family, r.case) for r in saved.rows], saved.plan) == (
        base, grid_cases, GRID_PLAN.to_dict())  # fmt: skip
    if not same or saved.unasked or not measured_by_this_code(path, Path(__file__), Path(backends.__file__)):
        return None
    return saved if same_machine(saved.environment, environment(device)) else None


def measure_grid(
    device: str | None = None,
    *,
    base: Case | None = None,
    save_to: str | Path | None = None,
    reuse: bool | None = None,
    timed: bool = True,
) -> Grid:
    """The eligibility map of ``device`` (CUDA when there is one, else the CPU).

    Args:
        device: ``"cuda"`` or ``"cpu"``; ``None``: CUDA when available.
        base: The case the families vary (:func:`base_case` of the device by default).
        save_to: A folder to save the grid in (``eligibility__<device>.json``).
        reuse: Return a grid saved in ``save_to`` by the same code on the same machine for the same cases and plan
            (default: when ``$ATTNPROF_REUSE`` asks for it, as the docs build does).
        timed: Time each backend that ran.

    Returns:
        The grid; on CUDA without a CUDA device, a grid with no rows that says why.
    """
    import torch

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    base = base or base_case(device)
    grid_cases = _cases(base)
    if save_to is not None and (reuse_measurements() if reuse is None else reuse):
        saved = _reusable(Path(save_to) / eligibility.filename(device), grid_cases, base, device)
        if saved is not None:
            return saved
    missing = cuda_missing_reason() if device == "cuda" else None
    env = environment(device)
    started = time.perf_counter()
    if missing is not None:
        grid = Grid(device, base, [], env, unasked="no_cuda", unasked_reason=missing)
    else:
        answers: dict[Case, Answer] = {}
        rows = []
        for family, case in grid_cases:
            seconds = 0.0
            if case not in answers:
                t0 = time.perf_counter()
                answers[case] = measure_case(case, device, timed=timed)
                seconds = time.perf_counter() - t0
            rows.append(Row(family, case, answers[case], seconds))
        sleep = gpu_sleeper(device) if timed else None
        grid = Grid(device, base, rows, env, timer=timer_name(device, sleep), plan=GRID_PLAN.to_dict())
    grid.seconds = time.perf_counter() - started
    if save_to is not None:
        eligibility.save(grid, save_to)
    return grid
