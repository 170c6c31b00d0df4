"""Measure attention under the masks of :mod:`attnprof.workloads`, every way of :data:`attnprof.workloads.METHODS`.

For each mask, size and workload (``prefill``: one forward, gradients off; ``train``: forward and backward), each
method runs on the same inputs:

* ``flex``: ``torch.compile(flex_attention)`` with the block mask made by ``create_block_mask`` from the mask's
  ``mask_mod``. The block mask is built once, before the timed calls, and its construction is timed and traced
  apart (:class:`attnprof.records.masks.BlockMaskBuild`): it is the price of a new mask, paid once per mask and
  shape, not per call.
* ``sdpa_*``: ``F.scaled_dot_product_attention`` with the dense boolean mask (``True`` where a query may look),
  one backend forced, or SDPA's own choice. Whether a backend takes a dense mask is first asked with one real
  call (:func:`attnprof.measure.backends.call_once`): a refusal is recorded in PyTorch's words, not timed.
* ``nested``: packed documents only. The packed row becomes a jagged nested tensor with one sequence per document
  (the same memory: ``nested_tensor_from_jagged`` over the packed values and the documents' offsets), and SDPA runs
  it with ``is_causal=True`` and no mask at all.
* ``naive``: matmul, scale, ``masked_fill`` with the dense mask, softmax, matmul.

Each case is timed (:func:`attnprof.measure.timing.time_shape`, a short plan), its peak memory read, its output
checked against a float64 reference (forward), and one step traced when asked. torch is imported inside the
functions only.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnprof import inputs, noise, settings, workloads
from attnprof.measure import backends, reuse
from attnprof.measure.failure import attempt, plain
from attnprof.measure.profiling import environment
from attnprof.measure.sweeprun import dynamo_limits
from attnprof.measure.timing import PeakMemory, Plan, capture_trace, gpu_sleeper, sync, time_shape
from attnprof.noise import Figure
from attnprof.records import masks as records
from attnprof.records import trace
from attnprof.records.files import UnreadableFile
from attnprof.records.masks import BlockMaskBuild, MaskCase, MaskRun
from attnprof.workloads import MASKS, METHODS, Geometry, Mask, Method

if TYPE_CHECKING:
    import torch

#: The timing plan of a mask case: fewer samples than a variant's page, enough for a band.
MASK_PLAN = Plan(warmup=1, warmup_ms=10.0, reps=10, budget_ms=30.0, max_reps=40, reps_slow=5, slow_ms=20.0, retries=0)
#: The workloads of a mask case (:data:`attnprof.workloads.WORKLOADS` without a KV cache): one forward, or forward
#: and backward.
WORKLOADS: tuple[str, ...] = tuple(w.name for w in workloads.WORKLOADS.values() if not w.kv_cache)
#: The trace of one case records this schedule (wait, warm-up, active): one active step keeps fixtures small, and
#: the case is warm when it is traced (no step to wait for).
TRACE_SCHEDULE: tuple[int, int, int] = (0, 1, 1)
#: Kernels kept per case in the file (the longest first).
TOP_KERNELS = 8


@dataclass(frozen=True)
class MaskPlan:
    """What one run measures.

    Attributes:
        device: ``"cuda"`` or ``"cpu"``.
        bhd: Batch, heads and head dim.
        seqs: Sequence lengths.
        windows: Sliding windows.
        masks: Mask names.
        methods: Method names.
        workloads: Names of :data:`WORKLOADS`.
        dtype: Input dtype.
        trace_seqs: Sequence lengths at which each case is traced (empty: none).
        check_seqs: Sequence lengths at which each forward is checked against the float64 reference.
    """

    device: str
    bhd: tuple[int, int, int]
    seqs: tuple[int, ...]
    windows: tuple[int, ...]
    masks: tuple[str, ...] = tuple(MASKS)
    methods: tuple[str, ...] = tuple(METHODS)
    workloads: tuple[str, ...] = WORKLOADS
    dtype: str = "bfloat16"
    trace_seqs: tuple[int, ...] = ()
    check_seqs: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form a run file keeps (tuples as lists)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))


def default_plan(device: str) -> MaskPlan:
    """The probe's run on ``device``: every length of :data:`attnprof.workloads.MASK_CUDA_SEQS` on CUDA, the small
    CPU sizes otherwise."""
    if device == "cuda":
        return MaskPlan(
            device,
            workloads.MASK_CUDA_BHD,
            workloads.MASK_CUDA_SEQS,
            workloads.MASK_WINDOWS,
            check_seqs=workloads.MASK_CUDA_SEQS[:1],
        )
    return MaskPlan(
        device,
        workloads.MASK_CPU_BHD,
        workloads.MASK_CPU_SEQS,
        workloads.MASK_CPU_WINDOWS,
        trace_seqs=workloads.MASK_CPU_SEQS,
        check_seqs=workloads.MASK_CPU_SEQS,
    )


def build_plan(device: str) -> MaskPlan:
    """The docs build's run on ``device``: on CUDA the length of :data:`attnprof.workloads.MASK_BUILD_SEQS` only (the
    build's time budget), each case traced once (its kernels for the page); on the CPU the probe's small sizes."""
    if device == "cuda":
        return MaskPlan(
            device,
            workloads.MASK_CUDA_BHD,
            workloads.MASK_BUILD_SEQS,
            workloads.MASK_WINDOWS,
            trace_seqs=workloads.MASK_BUILD_SEQS,
            check_seqs=workloads.MASK_BUILD_SEQS,
        )
    return default_plan(device)


# --- the masks as tensors -------------------------------------------------------------------------------------------


def document_tensor(g: Geometry, device: str) -> torch.Tensor:
    """``[batch, seq]`` document ids of the packed rows (:func:`attnprof.workloads.document_ids`)."""
    import torch

    rows = [workloads.document_ids(lengths) for lengths in g.documents()]
    return torch.tensor(rows, dtype=torch.int32, device=device)


def dense_mask(mask: Mask, g: Geometry, device: str) -> torch.Tensor:
    """The mask's ``mask_mod`` at every ``(q_idx, kv_idx)``: boolean, ``True`` where a query may look; ``[batch, 1,
    seq, seq]`` (``[1, 1, seq, seq]`` when rows do not differ)."""
    import torch

    doc = document_tensor(g, device) if mask.packed else None
    fn = mask.mod(g, doc)
    idx = torch.arange(g.seq, device=device)
    b = torch.arange(g.batch, device=device).view(-1, 1, 1, 1)
    allowed = fn(b, torch.zeros_like(b), idx.view(1, 1, -1, 1), idx.view(1, 1, 1, -1))
    return allowed.expand(-1, 1, g.seq, g.seq).contiguous() if allowed.dim() == 4 else allowed


def block_mask(mask: Mask, g: Geometry, device: str) -> Any:
    """FlexAttention's block mask of ``mask`` (``create_block_mask``; per row for packed documents)."""
    from torch.nn.attention.flex_attention import create_block_mask

    doc = document_tensor(g, device) if mask.packed else None
    rows = g.batch if mask.packed else None
    return create_block_mask(mask.mod(g, doc), rows, None, g.seq, g.seq, device=device)


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Masked attention in float64, one batch row at a time (the yardstick of every method)."""
    import torch

    outs = []
    for row in range(q.size(0)):
        q64, k64, v64 = (t[row].double() for t in (q, k, v))
        scores = q64 @ k64.transpose(-2, -1) / math.sqrt(q.size(-1))
        keep = allowed[min(row, allowed.size(0) - 1)]
        outs.append(torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1) @ v64)
    return torch.stack(outs)


# --- the methods' calls ---------------------------------------------------------------------------------------------


def naive_masked(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, blocked: torch.Tensor) -> torch.Tensor:
    """Naive attention under a dense mask: ``blocked`` is ``True`` where a query may not look."""
    import torch

    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    scores = scores.masked_fill(blocked, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def sdpa_masked(q: Any, k: Any, v: Any, allowed: Any, backend: str | None) -> Any:
    """SDPA with the dense mask, ``backend`` forced (``None``: SDPA's choice)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if backend is None:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    with sdpa_kernel(getattr(SDPBackend, backend)):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)


def document_offsets(g: Geometry, device: str) -> torch.Tensor:
    """Where each document starts in the packed rows laid end to end, and where the last one ends."""
    import torch

    bounds = [0]
    for lengths in g.documents():
        for n in lengths:
            bounds.append(bounds[-1] + n)
    return torch.tensor(bounds, dtype=torch.int64, device=device)


def packed(x: torch.Tensor) -> torch.Tensor:
    """``[batch, heads, seq, dim]`` as the packed layout a data loader gives, ``[batch, seq, heads, dim]``
    (contiguous, a new leaf with ``x``'s ``requires_grad``)."""
    return x.detach().transpose(1, 2).contiguous().requires_grad_(x.requires_grad)


def jagged(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """Packed rows ``[batch, seq, heads, dim]`` as a jagged nested tensor ``[documents, heads, j, dim]``, one
    sequence per document: a view of ``x`` (no copy), in autograd's graph."""
    import torch

    b, s, h, d = x.shape
    return torch.nested.nested_tensor_from_jagged(x.view(b * s, h, d), offsets).transpose(1, 2)


def unjagged(out: Any, shape: Sequence[int]) -> torch.Tensor:
    """A nested output ``[documents, heads, j, dim]`` back as ``[batch, heads, seq, dim]``; ``shape`` is the packed
    inputs' ``[batch, seq, heads, dim]``."""
    b, s, h, d = shape
    return out.transpose(1, 2).values().reshape(b, s, h, d).transpose(1, 2)


def nested_sdpa(q: Any, k: Any, v: Any) -> Any:
    """SDPA on jagged nested tensors, causal within each sequence, no mask."""
    import torch.nn.functional as F

    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


_COMPILED: list[Any] = []


def compiled_flex() -> Any:
    """``torch.compile(flex_attention)``, made once per process."""
    if not _COMPILED:
        import torch
        from torch.nn.attention.flex_attention import flex_attention

        _COMPILED.append(torch.compile(flex_attention, dynamic=False))
    return _COMPILED[0]


@dataclass
class Prepared:
    """One case's inputs and the method's forward, ready to time."""

    forward: Callable[[], Any]
    leaves: tuple[Any, ...]
    grad: Any
    nested: bool = False
    sdpa_inputs: backends.Inputs | None = None
    prebuilt: Callable[[], Any] | None = None  # nested tensors: the call on tensors built once, before the calls

    def output(self, out: Any) -> Any:
        """``out`` as ``[batch, heads, seq, dim]`` (a nested output unpacked)."""
        return unjagged(out, self.leaves[0].shape) if self.nested else out

    def heads_first(self) -> tuple[Any, ...]:
        """The inputs as ``[batch, heads, seq, dim]``, detached (for the reference)."""
        return tuple(t.detach().transpose(1, 2) if self.nested else t.detach() for t in self.leaves)


def prepare(
    method: Method, mask: Mask, g: Geometry, setup: inputs.Setup, train: bool, cache: dict[str, Any]
) -> Prepared:
    """The method's forward on fresh inputs (``q``, ``k``, ``v`` leaves requiring gradients for training), and the
    fixed upstream gradient of a training step."""

    leaves = tuple(t.requires_grad_(train) for t in inputs.make_inputs(setup))
    q, k, v = leaves
    grad = inputs.random_tensor(setup.shape, setup.device, setup.dtype, workloads.GRAD_SEED)
    if method.compiled:
        bm = cache.get("block_mask")
        if bm is None:
            bm = cache["block_mask"] = block_mask(mask, g, setup.device)
        flex = compiled_flex()
        return Prepared(lambda: flex(q, k, v, block_mask=bm), leaves, grad)
    if method.packed_only:
        offsets = document_offsets(g, setup.device)
        leaves = tuple(packed(t) for t in leaves)
        ask = backends.Inputs(*(jagged(t, offsets) for t in leaves), is_causal=True)
        nested_grad = jagged(grad.transpose(1, 2).contiguous(), offsets)

        def forward() -> Any:
            return nested_sdpa(*(jagged(t, offsets) for t in leaves))

        views = [jagged(t, offsets) for t in leaves]  # built once: the time without the construction
        return Prepared(forward, leaves, nested_grad, True, ask, lambda: nested_sdpa(*views))
    allowed = cache.get("allowed")
    if allowed is None:
        allowed = cache["allowed"] = dense_mask(mask, g, setup.device)
    if method.sdpa:
        return Prepared(lambda: sdpa_masked(q, k, v, allowed, method.backend), leaves, grad,
                        sdpa_inputs=backends.Inputs(q, k, v, allowed))  # fmt: skip
    blocked = cache.get("blocked")
    if blocked is None:
        blocked = cache["blocked"] = ~allowed
    return Prepared(lambda: naive_masked(q, k, v, blocked), leaves, grad)


def step(p: Prepared, train: bool) -> Callable[[], Any]:
    """One step: the forward, or grads cleared, forward and backward with the fixed upstream gradient."""
    if not train:
        return _no_grad(p.forward)

    def call() -> None:
        for t in p.leaves:
            t.grad = None
        p.forward().backward(p.grad)

    return call


def _no_grad(fn: Callable[[], Any]) -> Callable[[], Any]:
    import torch

    def call() -> Any:
        with torch.no_grad():
            return fn()

    return call


def kernel_summary(parsed: dict[str, Any], annotation: str, device: str) -> tuple[list[tuple[str, float]], int]:
    """The longest kernels of the traced step (GPU), or its top-level operators (CPU), with their summed µs, and
    how many launches (kernels, or operators) the step made."""
    steps = trace.parse_trace(parsed, annotation)
    if not steps:
        return [], 0
    total: dict[str, float] = defaultdict(float)
    count = 0
    s = steps[-1]
    if device == "cuda":
        for kernel in s.kernels:
            total[kernel.name] += kernel.duration_us
            count += 1
    else:
        for op in s.cpu_ops:
            if op.depth == 0 and op.name.startswith("aten::"):
                total[op.name] += op.duration_us
                count += 1
    top = sorted(total.items(), key=lambda kv: -kv[1])[:TOP_KERNELS]
    return [(n, round(us, 3)) for n, us in top], count


# --- one case ------------------------------------------------------------------------------------------------------


def _case(method: Method, mask: Mask, g: Geometry, setup: inputs.Setup, workload: str) -> MaskCase:
    _, h, _, d = setup.shape
    flops = workloads.mask_flops(d, h, mask.pairs(g))
    if workloads.get(workload).backward:
        flops *= 1.0 + workloads.BACKWARD_FLOP_FACTOR
    return MaskCase(mask.name, method.name, workload, list(setup.shape), setup.dtype, g.window,
                    0 if mask.windowed or mask.packed else g.prefix, flops=flops)  # fmt: skip


def measure_case(
    method: Method,
    mask: Mask,
    g: Geometry,
    setup: inputs.Setup,
    workload: str,
    cache: dict[str, Any],
    *,
    traces: Path | None = None,
    check: bool = False,
) -> MaskCase:
    """One case, measured; a method that cannot run here is a case that says why.

    Args:
        method, mask, g, setup: What to run, under which mask, at which size.
        workload: A name of :data:`WORKLOADS` (``"prefill"``: one forward; ``"train"``: forward and backward).
        cache: The dense mask and the block mask of this mask and geometry, shared by its methods.
        traces: Folder to write the gzipped trace of one step into, or ``None``.
        check: Compare the forward's output with the float64 reference.
    """
    import torch

    case = _case(method, mask, g, setup, workload)
    if not method.applies(mask):
        case.status, case.reason = "not_applicable", f"{method.title} expresses packed documents only"
        return case
    if method.compiled and setup.device == "cpu":
        case.status = "not_measured"
        case.reason = "compiling takes tens of seconds on the CPU: the build runs FlexAttention on CUDA only"
        return case
    train = workloads.get(workload).backward
    with attempt(judge=plain) as made:
        p = prepare(method, mask, g, setup, train, cache)
        call = step(p, train)
    if not made.ok:
        case.status, case.reason = made.status, made.reason
        return case
    if p.sdpa_inputs is not None:  # does PyTorch take it? one real call, its refusal in PyTorch's words
        status, reason, ran = backends.call_once(p.sdpa_inputs, method.backend)
        if status != "ran":
            case.status, case.reason = status, reason
            return case
        case.ran = ran or method.backend
    with attempt(judge=plain) as timed:
        sync(setup.device)
        t0 = time.perf_counter()
        call()  # the first step (its warm-up): FlexAttention compiles here
        sync(setup.device)
        case.first_ms = (time.perf_counter() - t0) * 1e3
        with PeakMemory(setup.device) as peak:  # the peak of the timed steps: no step of its own
            t = time_shape(call, setup.device, MASK_PLAN, gpu_sleeper(setup.device))
        case.time_ms = t.gpu
        case.issue_us = noise.median_interval(t.samples.issue_us)
        if p.prebuilt is not None and not train:  # a training step builds its views in its own autograd graph
            once = time_shape(_no_grad(p.prebuilt), setup.device, MASK_PLAN, gpu_sleeper(setup.device))
            case.prebuilt_ms = once.gpu
        case.peak_bytes = peak.bytes
        if check and not train:
            ref = cache.get("reference")
            if ref is None:  # every method runs on the same inputs: one float64 reference per mask and size
                allowed = cache.get("allowed")
                allowed = dense_mask(mask, g, setup.device) if allowed is None else allowed
                ref = cache["reference"] = reference(*p.heads_first(), allowed)
                del allowed
            case.rel_error = inputs.relative_error(p.output(call()), ref)
            del ref
        if traces is not None:
            annotation = f"{mask.name}_{method.name}_{workload}"
            raw, parsed = capture_trace(call, annotation, setup.device, schedule=TRACE_SCHEDULE)
            case.kernels, _ = kernel_summary(parsed, annotation, setup.device)
            case.trace_file = f"{case.stem()}.trace.json.gz"
            traces.mkdir(parents=True, exist_ok=True)
            (traces / case.trace_file).write_bytes(gzip.compress(raw, mtime=0))
    if not timed.ok:
        case.status, case.reason = timed.status, timed.reason
        case.time_ms = None
    del p, call
    if setup.device == "cuda":
        torch.cuda.empty_cache()
    return case


def walls_ms(fn: Callable[[], Any], device: str, reps: int = 5) -> Figure:
    """Wall time of ``fn``, the device waited for (ms), over ``reps`` calls after one that pays for the caches."""
    fn()
    walls = []
    for _ in range(reps):
        sync(device)
        t0 = time.perf_counter()
        fn()
        sync(device)
        walls.append((time.perf_counter() - t0) * 1e3)
    return noise.median_interval(walls)


def measure_build(mask: Mask, g: Geometry, device: str, *, traces: Path | None = None) -> BlockMaskBuild:
    """``create_block_mask`` for ``mask`` at ``g``, timed apart (wall time, the device waited for) and traced."""
    build = BlockMaskBuild(mask.name, g.seq, g.window, 0 if mask.windowed or mask.packed else g.prefix,
                           density=mask.density(g))  # fmt: skip
    with attempt(judge=plain) as outcome:
        made: list[Any] = []

        def construct() -> None:
            made[:] = [block_mask(mask, g, device)]

        build.time_ms = walls_ms(construct, device)
        # what a new batch costs the methods that take a dense mask instead
        build.dense_ms = walls_ms(lambda: dense_mask(mask, g, device), device)
        bm = made[0]
        full = bm.full_kv_num_blocks
        kept = int(bm.kv_num_blocks.sum().item()) + (0 if full is None else int(full.sum().item()))
        build.kept_blocks = kept / (bm.kv_num_blocks.numel() * math.ceil(g.seq / bm.BLOCK_SIZE[1]))
        if traces is not None:
            annotation = f"{mask.name}_block_mask"
            raw, parsed = capture_trace(construct, annotation, device, schedule=TRACE_SCHEDULE)
            build.kernels, build.launches = kernel_summary(parsed, annotation, device)
            build.trace_file = f"{build.stem()}.trace.json.gz"
            traces.mkdir(parents=True, exist_ok=True)
            (traces / build.trace_file).write_bytes(gzip.compress(raw, mtime=0))
    if not outcome.ok:
        build.status, build.reason = outcome.status, outcome.reason
    return build


# --- the run -------------------------------------------------------------------------------------------------------


def reusable(plan: MaskPlan, folder: Path) -> MaskRun | None:
    """The run saved in ``folder`` when it stands for a new one: planned the same way, on this machine, after the
    last change to the measuring code (this module and the mask registry among it)."""
    path = Path(folder) / records.filename(plan.device)
    try:
        saved = records.load(path)
    except (FileNotFoundError, UnreadableFile):
        return None
    if saved.plan != plan.to_dict() or not reuse.measured_by_this_code(
        path, Path(__file__), Path(workloads.__file__)
    ):
        return None
    return saved if reuse.same_machine(saved.environment, environment(plan.device)) else None


def measure(plan: MaskPlan, folder: Path) -> MaskRun:
    """The run of ``plan``, saved in ``folder``, as the docs build takes it: a saved run that stands for a new one
    when ``$ATTNPROF_REUSE`` asks for reuse; replaying (every language after the first), the run the first language
    saved, never a new one.

    Raises:
        attnprof.measure.reuse.NotRecorded: replaying, when the first language saved no run.
    """
    if settings.replaying():
        path = Path(folder) / records.filename(plan.device)
        try:
            return records.load(path)
        except (FileNotFoundError, UnreadableFile) as exc:
            raise reuse.NotRecorded(f"replaying the mask run, but {path} cannot be read: {exc}") from exc
    saved = reusable(plan, folder) if settings.reuse_measurements() else None
    if saved is not None:
        return saved
    run_ = run(plan, save_to=folder)
    records.save(run_, folder)
    return run_


def run(
    plan: MaskPlan, *, save_to: Path | None = None, say: Callable[[MaskCase | BlockMaskBuild], None] | None = None
) -> MaskRun:
    """Measure every case of ``plan``; with ``save_to``, traces go to ``save_to`` (at ``plan.trace_seqs``).

    ``say`` hears each case and block-mask build as it ends (a probe prints them).
    """
    with dynamo_limits():  # one compiled flex entry per mask and size
        return _run(plan, save_to, say)


def _run(plan: MaskPlan, save_to: Path | None, say: Callable[[MaskCase | BlockMaskBuild], None] | None) -> MaskRun:
    t0 = time.perf_counter()
    result = MaskRun(plan.device, environment(plan.device), min_reps=min(MASK_PLAN.reps, MASK_PLAN.reps_slow),
                     plan=plan.to_dict())  # fmt: skip
    b, h, d = plan.bhd
    for name in plan.masks:
        mask = workloads.get_mask(name)
        for seq in plan.seqs:
            setup = inputs.make_setup((b, h, seq, d), plan.dtype, plan.device)
            traces = save_to if save_to is not None and seq in plan.trace_seqs else None
            for g in mask.geometries(b, seq, plan.windows):
                cache: dict[str, Any] = {}
                if any(workloads.get_method(m).compiled for m in plan.methods):
                    result.builds.append(build := measure_build(mask, g, plan.device, traces=traces))
                    if say is not None:
                        say(build)
                for workload in plan.workloads:
                    for m in plan.methods:
                        case = measure_case(workloads.get_method(m), mask, g, setup, workload, cache, traces=traces,
                                            check=seq in plan.check_seqs)  # fmt: skip
                        result.cases.append(case)
                        if say is not None:
                            say(case)
                del cache
    result.seconds = time.perf_counter() - t0
    return result


def seqs_arg(text: str, what: str) -> tuple[int, ...]:
    """``"4096,8192"`` as integers.

    Raises:
        ValueError: naming the bad value.
    """
    try:
        out = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(
            f"bad {what} {text!r}; expected comma-separated positive integers such as 4096,8192"
        ) from None
    if not out or min(out) <= 0:
        raise ValueError(f"bad {what} {text!r}; expected comma-separated positive integers such as 4096,8192")
    return out


def names_arg(text: str, known: Sequence[str], what: str) -> tuple[str, ...]:
    """``"flex,naive"`` as names from ``known``.

    Raises:
        ValueError: naming the first unknown name and what is accepted.
    """
    out = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [x for x in out if x not in known]
    if bad or not out:
        raise ValueError(f"unknown {what} {bad[0] if bad else text!r}; choose from: {', '.join(known)}")
    return out
