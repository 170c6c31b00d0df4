"""The ``metric`` role: one live value of one variant's result, with its unit, inside prose.

``{metric}`sdpa_flash:gpu_ms``` renders this build's median GPU time of the flash backend, so the sentence around
it stays the same message for translators whatever the number is. Fields: :data:`METRIC_FIELDS`, and
``op:<op name>`` for the mean count of a CPU op per step.

``time`` is that median with the device it ran on (``0.162 ms on the GPU``; ``16.0 ms on the CPU`` on a CPU-only
build, where ``gpu_ms`` holds CPU time): prose that names no device stays true on every build.

The ``fixed-cost`` role cites the build's one figure of a cost that does not depend on the shape
(:mod:`attnprof.records.fixedcosts`), with its band (±10 % at least, as every CPU figure): ``{fixed-cost}`forcing```
(the ``sdpa_kernel`` context), ``{fixed-cost}`profiler_per_op``` (what the profiler adds to one op).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxRole

from attnprof import words
from attnprof.analysis.summary import Analysis, KernelRow
from attnprof.noise import CPU_FLOOR
from attnprof.render.columns import limiter_words
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import status_words
from attnprof.words import fmt

#: Fields of the ``metric`` role, besides ``op:<op name>``.
METRIC_FIELDS: tuple[str, ...] = (
    "gpu_ms",
    "gpu_ms_p10",
    "gpu_ms_p90",
    "time",
    "cpu_us",
    "dispatch_us",
    "context_us",
    "tflops",
    "peak_mib",
    "rel_error",
    "activities_per_step",
    "kernels_per_step",
    "main_kernel",
    "main_kernel_api",
    "main_kernel_us",
    "main_kernel_regs",
    "main_kernel_threads",
    "main_kernel_smem",
    "main_kernel_grid",
    "main_kernel_block",
    "main_kernel_reported_occupancy",
    "main_kernel_theoretical_occupancy",
    "main_kernel_limiter",
    "main_kernel_theoretical_blocks",
    "main_kernel_theoretical_warps",
    "main_kernel_regs_per_block",
    "sm_count",
    "sm_registers",
    "sm_shared_memory",
    "sm_max_warps",
    "device",
    "shape",
    "dtype",
    "status",
    "reason",
)


def _ms(x: float) -> str:
    return fmt.unit(fmt.number(x), "ms")


def _us(x: float) -> str:
    return fmt.unit(fmt.number(x), "µs")


def _main_kernel(row: KernelRow, field: str, lang: str | None) -> Any:
    theo = row.theoretical
    theoretical: dict[str, Callable[[], Any]] = {
        "main_kernel_theoretical_occupancy": lambda: fmt.percent(theo.percent),
        "main_kernel_limiter": lambda: limiter_words(theo.limiters or theo.limiter, lang),
        "main_kernel_theoretical_blocks": lambda: theo.blocks_per_sm,
        "main_kernel_theoretical_warps": lambda: theo.active_warps,
        "main_kernel_regs_per_block": lambda: theo.registers_per_block,
    }
    if field in theoretical:
        return None if theo is None else theoretical[field]()
    return {
        "main_kernel": row.info.text(lang),
        "main_kernel_api": row.launch_api,
        "main_kernel_us": row.avg_us and _us(row.avg_us),
        "main_kernel_regs": row.registers_per_thread,
        "main_kernel_threads": row.threads,
        "main_kernel_smem": None if row.shared_memory is None else fmt.size(row.shared_memory),
        "main_kernel_grid": fmt.dims(row.grid) or None,
        "main_kernel_block": fmt.dims(row.block) or None,
        "main_kernel_reported_occupancy": None
        if row.reported_occupancy is None
        else fmt.percent(row.reported_occupancy),
    }[field]


def _sm(props: dict[str, Any], field: str) -> Any:
    """A per-SM limit of the GPU, from the trace's device properties."""
    if field == "sm_count":
        return props.get("numSms")
    if field == "sm_registers":
        return props.get("regsPerMultiprocessor")
    if field == "sm_shared_memory":
        value = props.get("sharedMemPerMultiprocessor")
        return None if value is None else fmt.size(int(value))
    threads, warp = props.get("maxThreadsPerMultiprocessor"), props.get("warpSize")
    return threads // warp if threads and warp else None


def metric_text(a: Analysis, field: str, lang: str | None = None) -> str:
    """One value of an analysed result as the ``metric`` role shows it, with its unit.

    Args:
        a: The analysed result to read.
        field: One of :data:`METRIC_FIELDS`, or ``op:<op name>`` (mean count of that CPU op per step).
        lang: The build's language, for words (status, limiter, "n/a").

    Returns:
        The text; for a result that did not run, its status in words (except for ``status`` and ``reason``).

    Raises:
        KeyError: for an unknown field, naming the accepted ones.
    """
    if field not in METRIC_FIELDS and not field.startswith("op:"):
        raise KeyError(f"unknown metric field {field!r}; choose one of: {', '.join(METRIC_FIELDS)}, op:<op name>")
    result, row, t = a.result, a.summary, a.result.timing
    if field == "status":
        return status_words(result.status, lang)
    if field == "reason":
        return result.reason or words.text("not_available", lang)
    if field in ("device", "dtype"):
        return str(getattr(result, field))
    if field == "shape":
        return "[" + ", ".join(str(d) for d in result.shape) + "]"
    if not result.ok:
        return status_words(result.status, lang)
    value: Any
    if field.startswith("sm_"):
        value = _sm(result.device_properties, field)
    elif field.startswith("op:"):
        value = fmt.count(a.ops.get(field[3:], 0.0))
    elif field.startswith("main_kernel"):
        main = a.main_kernel()
        value = None if main is None else _main_kernel(main, field, lang)
    else:
        figures: dict[str, tuple[float | None, Callable[[float], str]]] = {
            "gpu_ms": (row.gpu_ms, _ms),
            "gpu_ms_p10": (t and t.gpu_ms_p10, _ms),
            "gpu_ms_p90": (t and t.gpu_ms_p90, _ms),
            "cpu_us": (row.cpu_us, _us),
            "dispatch_us": (row.dispatch_us, _us),
            "context_us": (t and t.context_us_median, _us),
            "tflops": (row.tflops, lambda x: fmt.unit(fmt.number(x), "TFLOP/s")),
            "peak_mib": (row.peak_mib, lambda x: fmt.unit(fmt.number(x), "MiB")),
            "rel_error": (row.rel_error, lambda x: f"{x:.1e}"),
            "activities_per_step": (row.activities_per_step, fmt.count),
            "kernels_per_step": (row.kernels_per_step, fmt.count),
        }
        if field == "time":
            device = "cuda" if result.device == "cuda" else "cpu"
            value = None if row.gpu_ms is None else words.text(f"metric.time.{device}", lang, value=_ms(row.gpu_ms))
        else:
            number, form = figures[field]
            value = None if number is None else form(number)
    return words.text("not_available", lang) if value is None else str(value)


class MetricRole(SphinxRole):
    """``{metric}`VARIANT:FIELD```: one live value with its unit (see :data:`METRIC_FIELDS`)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        variant, sep, field = self.text.strip().partition(":")
        location = self.get_location()
        lang = self.config.language
        if not sep or not field:
            return self._problem(f"metric {self.text!r}: expected VARIANT:FIELD, e.g. sdpa_flash:gpu_ms", location)
        if field not in METRIC_FIELDS and not field.startswith("op:"):
            return self._problem(
                f"metric {self.text!r}: unknown field {field!r}; choose one of: {', '.join(METRIC_FIELDS)}, "
                "op:<op name>",
                location,
            )
        found = lookup.find_result(self.env, variant, location)
        if found.analysis is None:
            return [nodes.problematic(self.rawtext, f"{self.text} ({words.text('status.missing', lang)})")], []
        text = metric_text(found.analysis, field, lang)
        classes = ["attnprof-metric"] + ([] if found.analysis.result.ok else ["attnprof-not-run"])
        if field == "reason" and found.analysis.result.reason:
            classes.append("attnprof-message")  # PyTorch's words, as recorded
        node = nodes.inline(self.rawtext, text, classes=classes)
        node["support_smartquotes"] = False
        return [node], []

    def _problem(self, message: str, location: str) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        lookup.warn(message, "metric", location)
        return [nodes.problematic(self.rawtext, self.rawtext)], []


#: Fields of the ``fixed-cost`` role: figures of :class:`attnprof.records.fixedcosts.FixedCosts`, in µs.
FIXED_COST_FIELDS: tuple[str, ...] = ("forcing", "profiler_per_op")


class FixedCostRole(SphinxRole):
    """``{fixed-cost}`FIELD```: the build's one figure of a shape-independent CPU cost, with its band (see
    :data:`FIXED_COST_FIELDS`)."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        field = self.text.strip()
        location = self.get_location()
        lang = self.config.language
        if field not in FIXED_COST_FIELDS:
            lookup.warn(f"fixed-cost {self.text!r}: unknown field; choose one of: {', '.join(FIXED_COST_FIELDS)}",
                        "fixed-cost", location)  # fmt: skip
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        fixed = lookup.find_fixed_costs(self.env, location, needed=True)
        figure = getattr(fixed, field) if fixed is not None else None
        if figure is None:
            text = words.text("not_available", lang)
        else:
            lo, hi = figure.band(CPU_FLOOR)
            text = words.text("figure.band", lang, median=_us(figure.median), lo=fmt.number(lo), hi=fmt.number(hi))
        node = nodes.inline(self.rawtext, text, classes=["attnprof-metric", "attnprof-fixed-cost"])
        node["support_smartquotes"] = False
        return [node], []


def setup_metrics(app: Sphinx) -> None:
    """Register the ``metric`` and ``fixed-cost`` roles."""
    app.add_role("metric", MetricRole())
    app.add_role("fixed-cost", FixedCostRole())
