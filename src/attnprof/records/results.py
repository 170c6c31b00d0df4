"""The result file format: what one profiled run of one variant produced.

One JSON file per variant x workload x shape x dtype x device, named by :func:`result_filename`, with the raw
profiler trace beside it as ``<same stem>.trace.json.gz``. The format is versioned by :data:`SCHEMA_VERSION`; a reader
that meets another version refuses the file (:class:`StaleResultError`) instead of guessing. Every reader here raises
:class:`attnprof.records.files.UnreadableFile` (of which :class:`StaleResultError` is one kind) for a file it cannot
use, and ``FileNotFoundError`` when there is none; every writer writes atomically
(:func:`attnprof.records.files.atomic_write`).

Format (version 2: GPU and dispatch times carry their noise band; the workload and its figures), top-level keys of
the JSON object:

``schema_version``
    Integer, :data:`SCHEMA_VERSION`.
``variant``, ``shape``, ``dtype``, ``device``
    What was run: registry name, ``[batch, heads, seq, head_dim]``, ``"bfloat16"``-style dtype name, and
    ``"cuda"`` or ``"cpu"``.
``status``, ``reason``
    ``"ok"``, or why there is nothing to show: ``"unsupported"`` (the backend refused the inputs; ``reason`` holds
    PyTorch's own words), ``"no_cuda"``, ``"oom"`` or ``"error"``.
``environment``
    :class:`Environment`: where and when it was measured.
``device_properties``
    The ``deviceProperties`` entry of the trace (SM count, registers and shared memory per SM, ...), or ``{}``.
``steps``
    One :class:`StepTrace` per active profiler step.
``timing``
    :class:`Timing`, measured outside the profiler, or ``null``.
``reference_check``, ``reference_reason``
    The check of the output against the float64 reference, apart from the variant's own ``status``: ``"ok"``
    (``timing.rel_error`` holds the error), ``"oom"`` or ``"error"`` (the reference itself failed; PyTorch's first
    line in ``reference_reason``), ``"skipped"`` (not attempted: ``reference_reason`` says why, e.g. its estimated
    memory did not fit), or ``null`` when the variant did not run. A variant whose kernel ran is ``ok`` whatever
    happened to its check. (New in version 2.)
``trace_file``
    File name of the gzipped Chrome trace beside the JSON file, or ``null``.
``workload``, ``kv_heads``, ``kv_len``, ``train_figures``, ``decode_figures``
    The workload (:mod:`attnprof.workloads`), a decoding step's KV cache, and what only that workload measures
    (:class:`TrainFigures`, :class:`DecodeFigures` with :class:`GraphFigures`); ``null`` where they do not apply.

All times are microseconds unless a field name says otherwise; all memory sizes are bytes.
"""

from __future__ import annotations

import dataclasses
import gzip
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnprof.noise import CpuMedians, Figure
from attnprof.records import files, kinds, schema
from attnprof.records.files import StaleResultError, UnreadableFile, write_if_changed

SCHEMA_VERSION = 2

#: Statuses a result can carry.
STATUSES = ("ok", "unsupported", "no_cuda", "oom", "error")
#: What :attr:`Result.reference_check` can say (or ``None`` when the variant did not run).
REFERENCE_CHECKS = ("ok", "oom", "error", "skipped")


@dataclass
class GpuActivity:
    """One thing the GPU did during a step: a kernel, a memcpy or a memset.

    Times are relative to the start of the step's annotated region on the CPU. Fields that only kernels have
    (grid, registers, occupancy, ...) are ``None`` for memcpy and memset.
    """

    kind: str  # "kernel", "memcpy" or "memset"
    name: str
    start_us: float
    duration_us: float
    correlation: int | None = None
    stream: int | None = None
    grid: list[int] | None = None
    block: list[int] | None = None
    registers_per_thread: int | None = None
    shared_memory: int | None = None
    blocks_per_sm: float | None = None
    warps_per_sm: float | None = None
    reported_occupancy: float | None = None
    launch_api: str | None = None
    launch_start_us: float | None = None
    launch_duration_us: float | None = None
    bytes: int | None = None

    @property
    def threads_per_block(self) -> int | None:
        """Threads in one block (``block`` multiplied out), or ``None`` for non-kernels."""
        return math.prod(self.block) if self.block else None


@dataclass
class CpuOp:
    """One CPU-side event under the step's annotation: an ATen op, a nested annotation, or a runtime call.

    ``parent`` is the index of the enclosing op in the step's ``cpu_ops`` list (``None`` at the top level) and
    ``depth`` its nesting level (0 at the top) on its thread; ``thread`` is ``""`` on the annotating thread, else
    the name of the thread that ran it (``pt_autograd_0``: the backward of a training step, see :mod:`.trace`).
    """

    name: str
    category: str
    start_us: float
    duration_us: float
    depth: int = 0
    parent: int | None = None
    thread: str = ""


@dataclass
class StepTrace:
    """What one active profiler step shows for the annotated forward call."""

    index: int
    cpu_time_us: float  # duration of the annotation on the CPU
    gpu_time_us: float  # sum of GPU activity durations in the step
    gpu_span_us: float  # first GPU start to last GPU end
    activities: list[GpuActivity] = field(default_factory=list)
    cpu_ops: list[CpuOp] = field(default_factory=list)

    @property
    def kernels(self) -> list[GpuActivity]:
        """The kernels only (no memcpy, no memset)."""
        return [a for a in self.activities if a.kind == "kernel"]

    def op_counts(self) -> dict[str, int]:
        """How often each CPU op name occurs in the step (``aten::transpose`` -> 4, ...)."""
        return dict(Counter(op.name for op in self.cpu_ops))


@dataclass
class Timing:
    """Measurements taken outside the profiler, after warm-up.

    Attributes:
        gpu_ms_median: Median GPU time of one forward call, from CUDA events (wall clock on CPU), timed by
            :func:`attnprof.measure.timing.time_shape` exactly as a sweep point of the same shape is.
        gpu_ms_p10: 10th percentile of the same samples.
        gpu_ms_p90: 90th percentile of the same samples.
        repetitions: Number of timed calls behind the percentiles.
        dispatch_us_median: Median CPU time to issue one call without waiting for the GPU.
        context_us_median: Median CPU cost of entering and leaving the backend-forcing context alone
            (``None`` for variants that force nothing).
        peak_extra_bytes: Peak device memory allocated during one call, above what was allocated before it
            (``None`` on CPU, where PyTorch keeps no such counter).
        flops: Floating-point operations of one causal forward call (see :func:`attnprof.inputs.causal_flops`).
        tflops: ``flops`` / median time.
        rel_error: ``||out - ref|| / ||ref||`` against a float64 reference; ``None`` when the reference check did
            not run or failed (:attr:`Result.reference_check` says why).
        timer: ``"cuda_event_prefilled"`` (CUDA events with a GPU busy-wait queued first, so they time the GPU's
            work alone), ``"cuda_event"`` (events from an idle GPU: CPU issue time included) or
            ``"perf_counter"`` (CPU).
        warmup_s: Wall time of the warm-up calls (includes ``torch.compile`` compilation, if any); ``None`` when
            the calls were profiled elsewhere (:func:`attnprof.measure.profiling.from_trace`).
        profile_s: Wall time of the profiled steps, trace export included; ``None`` likewise.
        gpu_ms_lo: Lower end of the 95% confidence interval of the median GPU time
            (:func:`attnprof.noise.median_interval`).
        gpu_ms_hi: Upper end of it.
        dispatch_us_lo: Lower end of the 95% confidence interval of the median dispatch cost.
        dispatch_us_hi: Upper end of it.
        attempts: Measurements of the GPU time made: more than 1 when the first samples were unstable.
        unstable: The GPU-time samples spread too widely to stand for one figure, after every retry
            (:func:`attnprof.noise.unstable`).
    """

    gpu_ms_median: float
    gpu_ms_p10: float
    gpu_ms_p90: float
    repetitions: int
    dispatch_us_median: float
    context_us_median: float | None
    peak_extra_bytes: int | None
    flops: float
    tflops: float
    rel_error: float | None
    timer: str = "cuda_event"
    warmup_s: float | None = None
    profile_s: float | None = None
    gpu_ms_lo: float | None = None
    gpu_ms_hi: float | None = None
    dispatch_us_lo: float | None = None
    dispatch_us_hi: float | None = None
    attempts: int = 1
    unstable: bool = False

    @property
    def gpu(self) -> Figure:
        """The median GPU time (ms) with its confidence interval (the median itself where none was recorded)."""
        return _figure(self.gpu_ms_median, self.gpu_ms_lo, self.gpu_ms_hi, self.repetitions)

    @property
    def dispatch(self) -> Figure | None:
        """The median dispatch cost (µs) with its confidence interval, or ``None`` when not recorded."""
        if self.dispatch_us_median is None or not math.isfinite(self.dispatch_us_median):
            return None
        return _figure(self.dispatch_us_median, self.dispatch_us_lo, self.dispatch_us_hi, 0)


def _figure(median: float, lo: float | None, hi: float | None, n: int) -> Figure:
    return Figure(median, median if lo is None else lo, median if hi is None else hi, n)


@dataclass
class Environment:
    """Where and when a result was measured."""

    device_name: str  # "NVIDIA H200", or the CPU's name
    torch_version: str
    python_version: str
    date: str  # ISO 8601, UTC
    cuda_version: str | None = None
    cudnn_version: str | None = None
    driver_version: str | None = None
    cupti_version: str | None = None
    attnprof_version: str = ""
    platform: str = ""


# --- what only one workload measures (attnprof.workloads) -------------------------------------------------------


@dataclass
class TrainFigures:
    """What a training step measures beyond :class:`Timing` (whose figures are then the whole step's): the forward
    alone (median and percentiles, ms, autograd recording, as in training), device memory still allocated after the
    forward (the output and what autograd saved; ``None`` on the CPU), and the largest relative error of the three
    gradients against a float64 reference."""

    fwd_ms_median: float
    fwd_ms_p10: float
    fwd_ms_p90: float
    fwd_repetitions: int
    saved_bytes: int | None
    grad_rel_error: float


@dataclass
class GraphFigures:
    """The decoding step captured in a CUDA graph and replayed, side by side with the eager step (medians, µs).

    ``cpu``: CPU time until the call returns, the GPU idle at the start; ``wall``: CUDA events from an idle GPU
    without pre-fill (the CPU's issue time counts); ``gpu``: CUDA events with the GPU pre-filled
    (:func:`attnprof.measure.timing.timed_calls`). ``status`` is ``"ok"`` or why the step could not be captured (with
    PyTorch's ``reason``); ``steps`` are the replays under the profiler (annotation ``<variant>_decode_graph``).
    """

    status: str
    reason: str | None = None
    eager_cpu_us: float | None = None
    graph_cpu_us: float | None = None
    eager_wall_us: float | None = None
    graph_wall_us: float | None = None
    eager_gpu_us: float | None = None
    graph_gpu_us: float | None = None
    repetitions: int = 0
    replay_matches: bool | None = None
    steps: list[StepTrace] = field(default_factory=list)


@dataclass
class DecodeFigures:
    """What a decoding step measures beyond :class:`Timing`: the bytes it cannot avoid moving
    (:func:`attnprof.workloads.decode_bytes`), those bytes over the median GPU time (GB/s), the device's read
    bandwidth measured in the same process (:func:`attnprof.measure.timing.read_bandwidth`; ``None`` on the CPU) and
    the size of the buffer it read, and the step replayed from a CUDA graph (variants marked ``Variant.graph``)."""

    bytes: int
    gbs: float
    read_ceiling_gbs: float | None = None
    read_ceiling_bytes: int | None = None
    graph: GraphFigures | None = None

    @property
    def read_fraction(self) -> float | None:
        """Achieved bandwidth as a fraction of the read ceiling, or ``None`` without a ceiling."""
        return self.gbs / self.read_ceiling_gbs if self.read_ceiling_gbs else None


def _step(s: dict[str, Any]) -> StepTrace:
    acts, ops = [GpuActivity(**a) for a in s["activities"]], [CpuOp(**o) for o in s["cpu_ops"]]
    return StepTrace(**{**s, "activities": acts, "cpu_ops": ops})


def _decode_figures(d: dict[str, Any] | None) -> DecodeFigures | None:
    g = d.get("graph") if d is not None else None
    graph = None if g is None else GraphFigures(**{**g, "steps": [_step(s) for s in g.get("steps", [])]})
    return None if d is None else DecodeFigures(**{**d, "graph": graph})


@dataclass
class Result:
    """Everything one run of one variant produced. See the module docstring for the file format."""

    variant: str
    shape: list[int]
    dtype: str
    device: str
    status: str
    environment: Environment
    reason: str | None = None
    device_properties: dict[str, Any] = field(default_factory=dict)
    steps: list[StepTrace] = field(default_factory=list)
    timing: Timing | None = None
    trace_file: str | None = None
    reference_check: str | None = None
    reference_reason: str | None = None
    schema_version: int = SCHEMA_VERSION
    # --- the workload (issue 14): which one, its KV cache, and what only it measures ---
    workload: str = "prefill"
    kv_heads: int | None = None
    kv_len: int | None = None
    train_figures: TrainFigures | None = None
    decode_figures: DecodeFigures | None = None

    @property
    def ok(self) -> bool:
        """True when the variant ran and there is something to show."""
        return self.status == "ok"

    @property
    def stem(self) -> str:
        """File name without extension, see :func:`result_filename`."""
        return result_stem(self.variant, self.shape, self.dtype, self.device, self.workload, self.kv_heads,
                           self.kv_len)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form (plain dicts and lists)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild a result from :meth:`to_dict` output (checked first by :data:`KIND`, which every reader goes
        through).

        Raises:
            StaleResultError: if ``data`` is not a result.
        """
        try:
            d = dict(data)
            d["environment"] = Environment(**d["environment"])
            d["steps"] = [_step(s) for s in d.get("steps", [])]
            if d.get("timing") is not None:
                d["timing"] = Timing(**d["timing"])
            if d.get("train_figures") is not None:
                d["train_figures"] = TrainFigures(**d["train_figures"])
            d["decode_figures"] = _decode_figures(d.get("decode_figures"))
            return cls(**d)
        except (TypeError, KeyError, AttributeError) as exc:  # a field missing, unknown or of the wrong kind
            raise StaleResultError(f"not a result of schema version {SCHEMA_VERSION}: {exc}") from exc


#: Result files: one per variant, workload, shape, dtype and device (:func:`result_filename`), CUDA's first.
KIND: kinds.Kind[Result] = kinds.Kind("result", "result file", Result, bundle="result", pattern="*__*__*__*__*.json",
                                      name=lambda r: r.stem + ".json")  # fmt: skip


_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def result_stem(variant: str, shape: list[int] | tuple[int, ...], dtype: str, device: str, workload: str = "prefill",
                kv_heads: int | None = None, kv_len: int | None = None) -> str:  # fmt: skip
    """The name shared by a result and its trace: ``naive__prefill__8x16x1024x64__bfloat16__cuda``; a KV cache adds
    its heads and length to the shape: ``sdpa_flash__decode__8x32x1x128_kv8x4096__bfloat16__cuda``."""
    dims = "x".join(str(int(n)) for n in shape)
    if kv_heads is not None or kv_len is not None:
        dims += f"_kv{kv_heads or shape[1]}x{kv_len or shape[2]}"
    return _SAFE.sub("_", f"{variant}__{workload}__{dims}__{dtype}__{device}")


def result_filename(variant: str, shape: list[int] | tuple[int, ...], dtype: str, device: str, *rest: Any) -> str:
    """The JSON file name of a result; ``rest`` is :func:`result_stem`'s workload, kv_heads and kv_len."""
    return result_stem(variant, shape, dtype, device, *rest) + ".json"


def dumps(result: Result) -> bytes:
    """Serialise deterministically (sorted keys, fixed indentation)."""
    return KIND.dumps(result)


def save(result: Result, directory: Path, trace: bytes | None = None) -> Path:
    """Write ``result`` (and its raw Chrome trace, if given) into ``directory``. Returns the JSON path.

    The trace is gzipped with a zero timestamp so that identical traces give identical files. Either file is
    written only when its content changed.
    """
    directory = Path(directory)
    if trace is not None:
        result.trace_file = result.stem + ".trace.json.gz"
        write_if_changed(directory / result.trace_file, gzip.compress(trace, mtime=0))
    return KIND.save(result, directory)


#: Read a result file (:meth:`attnprof.records.kinds.Kind.load`).
load = KIND.load


def load_trace(result_path: Path, result: Result) -> dict[str, Any] | None:
    """The Chrome trace saved beside a result, parsed, or ``None`` when there is none.

    Raises:
        attnprof.records.files.UnreadableFile: for a trace file that is truncated or corrupt gzip, not JSON, not a
            Chrome trace, or holds events of the wrong kind (:func:`attnprof.records.schema.event_problem`).
    """
    if not result.trace_file:
        return None
    trace_path = Path(result_path).parent / result.trace_file
    if not trace_path.exists():
        return None
    data = files.read_json(trace_path)
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise UnreadableFile(f"{trace_path.name} is not a Chrome trace (no traceEvents list)", trace_path)
    found = schema.event_problem(data["traceEvents"])
    if found is not None:
        raise UnreadableFile(f"{trace_path.name}: {found}", trace_path)
    return data


def find(directory: Path, variant: str, workload: str = "prefill") -> list[Path]:
    """Result files for ``variant`` (``"*"``: every variant) and ``workload`` in ``directory``, CUDA results first,
    then by name."""
    name = "*" if variant == "*" else _SAFE.sub("_", variant)
    return KIND.order(list(Path(directory).glob(f"{name}__{_SAFE.sub('_', workload)}__*.json")))


# --- CPU cost per call, measured for several variants side by side ------------------------------------------------

CPU_COSTS_VERSION = 2


@dataclass
class CpuCostRow(CpuMedians):
    """One variant's CPU cost per call, from :func:`attnprof.measure.cpucosts.measure_cpu_costs`.

    Each figure is the median of the rounds' medians, with the 95% confidence interval of that median over the
    rounds (:func:`attnprof.noise.median_interval`): the rounds, not the single calls, are the independent samples,
    because CPU times drift with the machine's state.

    Attributes:
        variant: Registry name.
        status: ``"ok"`` or why it could not run (as in :class:`Result`); the figures are ``None`` then.
        reason: PyTorch's reason when it could not run.
        profiled: Length of the ``<variant>_fwd`` annotation with the profiler recording, µs.
        dispatch: CPU time to issue one call without the profiler (GPU idle at the start), µs.
        context: Cost of entering and leaving the backend-forcing context alone, µs, or ``None``.
        samples: Calls behind each figure (profiled, unprofiled).
    """

    variant: str
    status: str
    reason: str | None = None
    profiled: Figure | None = None
    dispatch: Figure | None = None
    context: Figure | None = None
    samples: list[int] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CpuCostRow:
        """Rebuild a row from its JSON form."""
        d = dict(data)
        for key in ("profiled", "dispatch", "context"):
            d[key] = Figure.from_dict(d.get(key))
        return cls(**d)


@dataclass
class CpuCosts:
    """CPU cost per call of several variants, measured in interleaved rounds so that they share conditions.

    Measured one variant after another, minutes apart, CPU timings drift with the machine's state by more than the
    differences between backends; taking every variant's samples in the same rounds (order rotated each round)
    makes the comparison fair. Saved as ``cpu_costs__<device>.json``.
    """

    device: str
    shape: list[int]
    dtype: str
    rounds: int
    environment: Environment
    rows: list[CpuCostRow] = field(default_factory=list)
    schema_version: int = CPU_COSTS_VERSION

    @property
    def filename(self) -> str:
        return CPU_COSTS.filename(self.device)

    def row(self, variant: str) -> CpuCostRow | None:
        """The row of ``variant``, or ``None``."""
        return next((r for r in self.rows if r.variant == variant), None)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CpuCosts:
        """Rebuild from :meth:`to_dict` output (checked first by :data:`CPU_COSTS`).

        Raises:
            StaleResultError: for a document that is not a CPU-cost file.
        """
        try:
            d = dict(data)
            d["environment"] = Environment(**d["environment"])
            d["rows"] = [CpuCostRow.from_dict(r) for r in d["rows"]]
            return cls(**d)
        except (TypeError, KeyError, AttributeError) as exc:
            raise StaleResultError(f"not a CPU-cost file: {exc}") from exc


#: The side-by-side CPU costs: ``cpu_costs__<device>.json``.
CPU_COSTS: kinds.Kind[CpuCosts] = kinds.Kind("cpu_costs", "CPU-cost file", CpuCosts)
save_cpu_costs, load_cpu_costs, find_cpu_costs = CPU_COSTS.save, CPU_COSTS.load, CPU_COSTS.find
