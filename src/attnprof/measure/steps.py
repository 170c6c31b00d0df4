"""One step of a workload, built for a variant and a setup: what is timed, profiled and checked, and the figures
only one workload measures (the forward alone of a training step, a decoding step replayed from a CUDA graph).

The registry of workloads and its facts are :mod:`attnprof.workloads`; this is its measuring side, importing torch
inside its functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnprof import inputs, variants
from attnprof.inputs import Setup
from attnprof.measure.timing import capture_trace, gpu_sleeper, percentile, sync, time_dispatch_us, timed_calls
from attnprof.records import trace
from attnprof.records.results import GraphFigures, TrainFigures
from attnprof.settings import measuring
from attnprof.workloads import GRAD_SEED, Workload

if TYPE_CHECKING:
    import torch


@dataclass
class Step:
    """One step of a workload, prepared for one variant and setup: what is timed, profiled and checked.

    Attributes:
        call: One step, as timed (train: grads cleared, forward, backward).
        body: One step as profiled: the same, with the phases inside their own annotations (train).
        error: Relative errors against the reference: the output's, and the gradients' largest (``None`` when
            there are none).
        forward: The forward alone with autograd recording (train), else ``None``.
        tensors: The inputs, kept alive for the step's lifetime (and for a CUDA graph's capture).
    """

    call: Callable[[], Any]
    body: Callable[[], Any]
    error: Callable[[], tuple[float, float | None]]
    forward: Callable[[], Any] | None = None
    tensors: tuple[Any, ...] = ()


def _prefill(v: variants.Variant, setup: Setup) -> Step:
    q, k, v_ = inputs.make_inputs(setup)
    fn = v.build(setup.shape[2], setup.device)

    def call() -> torch.Tensor:
        return fn(q, k, v_)

    def error() -> tuple[float, float | None]:
        return inputs.relative_error(call(), inputs.reference_attention(q, k, v_)), None

    return Step(call, call, error, tensors=(q, k, v_))


def _train(v: variants.Variant, setup: Setup) -> Step:
    from torch.profiler import record_function

    q, k, v_ = (t.requires_grad_() for t in inputs.make_inputs(setup))
    grad = inputs.random_tensor(setup.shape, setup.device, setup.dtype, GRAD_SEED)
    fn = v.build(setup.shape[2], setup.device)

    def call() -> None:
        q.grad = k.grad = v_.grad = None
        fn(q, k, v_).backward(grad)

    def body() -> None:
        q.grad = k.grad = v_.grad = None
        with record_function(f"{v.name}_fwd"):
            out = fn(q, k, v_)
        with record_function(f"{v.name}_bwd"):
            out.backward(grad)

    def error() -> tuple[float, float | None]:
        q.grad = k.grad = v_.grad = None
        out = fn(q, k, v_)
        out.backward(grad)
        ref_in = [t.detach().double().requires_grad_() for t in (q, k, v_)]
        ref = inputs.reference_attention(*ref_in)
        ref.backward(grad.double())
        grads = [inputs.relative_error(t.grad, r.grad) for t, r in zip((q, k, v_), ref_in, strict=True)]
        q.grad = k.grad = v_.grad = None
        return inputs.relative_error(out.detach(), ref.detach()), max(grads)

    return Step(call, body, error, forward=lambda: fn(q, k, v_), tensors=(q, k, v_, grad))


def decode_inputs(setup: Setup, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal ``q`` and cache ``k``, ``v``, made on the device (a long cache is gigabytes: making it on
    the CPU would take longer than everything else)."""
    import torch

    gen = torch.Generator(device=setup.device).manual_seed(seed)
    dtype = getattr(torch, setup.dtype)
    shapes = (setup.shape, setup.kv_shape, setup.kv_shape)
    return tuple(torch.randn(s, generator=gen, device=setup.device, dtype=dtype) for s in shapes)  # type: ignore[return-value]


@measuring
def decode_reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Decoding attention in float32, written out: each KV head serves its group of query heads by broadcasting
    (no copy of the cache); no mask. Float32, not float64: at the longest caches float64 copies would take 8 GB."""
    import torch

    b, h, s, d = q.shape
    hk = k.size(1)
    qg = q.float().reshape(b, hk, h // hk * s, d)  # the query heads of one group side by side
    scores = qg @ k.float().transpose(-2, -1) / math.sqrt(d)
    out = torch.softmax(scores, dim=-1) @ v.float()
    return out.reshape(b, h, s, d)


def _decode(v: variants.Variant, setup: Setup) -> Step:
    q, k, v_ = decode_inputs(setup)
    fn = v.build_decode(setup.kv_shape[2], setup.device)

    def call() -> torch.Tensor:
        return fn(q, k, v_)

    def error() -> tuple[float, float | None]:
        return inputs.relative_error(call(), decode_reference(q, k, v_)), None

    return Step(call, call, error, tensors=(q, k, v_))


#: How each workload builds its step: one entry per workload of :data:`attnprof.workloads.WORKLOADS`.
BUILDERS: dict[str, Callable[[variants.Variant, Setup], Step]] = {
    "prefill": _prefill,
    "train": _train,
    "decode": _decode,
}


def prepare(workload: Workload, variant: variants.Variant, setup: Setup) -> Step:
    """The :class:`Step` of ``variant`` on ``setup`` for ``workload`` (torch imported inside)."""
    return BUILDERS[workload.name](variant, setup)


# --- measuring what only one workload measures ----------------------------------------------------------------------


def train_figures(step: Step, setup: Setup, grad_error: float | None) -> TrainFigures:
    """The forward alone (with autograd recording, as in training) and the memory it leaves for the backward."""
    import torch

    assert step.forward is not None
    sleep = gpu_sleeper(setup.device)
    fwd = timed_calls(step.forward, setup.device, min_reps=15, budget_ms=50.0, max_reps=100, sleep=sleep).gpu_ms
    saved = None
    if setup.device == "cuda":
        sync("cuda")
        base = torch.cuda.memory_allocated()
        out = step.forward()
        sync("cuda")
        saved = int(torch.cuda.memory_allocated() - base)
        del out
    return TrainFigures(
        fwd_ms_median=percentile(fwd, 50),
        fwd_ms_p10=percentile(fwd, 10),
        fwd_ms_p90=percentile(fwd, 90),
        fwd_repetitions=len(fwd),
        saved_bytes=saved,
        grad_rel_error=float("nan") if grad_error is None else grad_error,
    )


def graph_figures(step: Step, annotation: str, device: str, reps: int = 30) -> GraphFigures:
    """Capture one decoding step in a CUDA graph and measure its replay beside the eager step (see
    :class:`attnprof.records.results.GraphFigures`); the replays are profiled under ``annotation``.

    Raises:
        RuntimeError: without CUDA, or whatever capturing raised (the caller records it as data).
    """
    import torch

    if device != "cuda":
        raise RuntimeError("CUDA graphs need a CUDA device")
    eager_out = step.call()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up on a side stream, as torch.cuda.graphs documents
        for _ in range(3):
            step.call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = step.call()
    graph.replay()
    sync(device)
    matches = bool(torch.allclose(static_out.float(), eager_out.float(), atol=1e-2, rtol=1e-2))
    sleep = gpu_sleeper(device)
    figures: dict[str, float] = {}
    for label, fn in (("eager", step.call), ("graph", graph.replay)):
        for _ in range(3):
            fn()
        figures[f"{label}_cpu_us"] = percentile(time_dispatch_us(fn, device, reps=reps), 50)
        figures[f"{label}_wall_us"] = 1e3 * percentile(timed_calls(fn, device, min_reps=reps).gpu_ms, 50)
        figures[f"{label}_gpu_us"] = 1e3 * percentile(timed_calls(fn, device, min_reps=reps, sleep=sleep).gpu_ms, 50)
    _, parsed = capture_trace(graph.replay, annotation, device, record_shapes=False)
    steps = trace.parse_trace(parsed, annotation)
    del graph, static_out
    return GraphFigures("ok", None, repetitions=reps, replay_matches=matches, steps=steps, **figures)
