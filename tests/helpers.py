"""What several test modules share: results and a sweep made from the real H200 recordings, and ways to read a built
Sphinx page. Test modules import from here, never from each other or from conftest.py."""

from __future__ import annotations

import copy
import functools
import gzip
import json
import os
from pathlib import Path
from typing import NamedTuple

from docutils import nodes

from attnprof import inputs, variants
from attnprof.analysis import attention, explain, rank_traces, summary
from attnprof.analysis.summary import Analysis
from attnprof.analysis.workload_rows import Build
from attnprof.measure import sweeprun
from attnprof.noise import Figure
from attnprof.records import foreign, parallel, trace
from attnprof.records.fixedcosts import FixedCosts
from attnprof.records.parallel import Collective, ParallelCase, ParallelRun, RankRun
from attnprof.records.results import DecodeFigures, Environment, GraphFigures, Result, StepTrace, Timing, TrainFigures
from attnprof.records.sweep import Ceilings, Sweep, SweepPoint

DATA = Path(__file__).parent / "data"
TRACES = DATA / "traces"
#: Variants with a fixture trace (all of the registry).
TRACE_VARIANTS = tuple(sorted(p.name.removesuffix(".json.gz") for p in TRACES.glob("*.json.gz")))
SHAPE = [8, 16, 1024, 64]


def h200_environment() -> Environment:
    """The environment the fixture traces were recorded in (``tests/data/h200-probe-facts.json``)."""
    facts = json.loads((DATA / "h200-probe-facts.json").read_text())
    return Environment(
        device_name=facts["gpu"],
        torch_version=facts["torch"],
        python_version="3.12.3",
        date="2026-11-30T01:40:00+00:00",
        cuda_version=facts["cuda"],
        cudnn_version=str(facts["cudnn"]),
        driver_version="580.95.05",
        attnprof_version="0.1.0",
    )


def fixed_costs(forcing: Figure | None, per_op: Figure | None = None) -> FixedCosts:
    """A fixed-cost file of the H200 environment with the given forcing cost (and profiler cost per op), µs: test
    inputs, not recordings (the probes of tests/data did not measure the forcing context alone)."""
    return FixedCosts("cuda", h200_environment(), rounds=20, calls=200, forcing=forcing,
                      backends=["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"],
                      op_us=None if per_op is None else Figure(4.0, 3.9, 4.1, 8),
                      profiled_op_us=None if per_op is None else Figure(4.0 + per_op.median, 5.0, 7.0, 8),
                      profiler_per_op=per_op, events_per_call=None if per_op is None else 2.0)  # fmt: skip


def trace_result(variant: str) -> tuple[Result, bytes]:
    """A CUDA result of ``variant`` parsed from its fixture trace, and the raw trace bytes."""
    raw = gzip.decompress((TRACES / f"{variant}.json.gz").read_bytes())
    parsed = json.loads(raw)
    facts = json.loads((DATA / "h200-probe-facts.json").read_text())["timings"][variant]
    flops = 2.0 * SHAPE[0] * SHAPE[1] * SHAPE[2] * SHAPE[2] * SHAPE[3]
    ms = facts["median_ms"]
    result = Result(
        variant=variant,
        shape=list(SHAPE),
        dtype="bfloat16",
        device="cuda",
        status="ok",
        environment=h200_environment(),
        device_properties=trace.device_properties(parsed),
        steps=trace.parse_trace(parsed, f"{variant}_fwd"),
        # The median GPU time and the error were recorded with the traces (h200-probe-facts.json); the
        # percentiles, dispatch, context and peak-memory figures were not, and are synthetic test inputs.
        timing=Timing(
            gpu_ms_median=ms,
            gpu_ms_p10=ms * 0.98,
            gpu_ms_p90=ms * 1.03,
            repetitions=30,
            dispatch_us_median=25.0,
            context_us_median=4.0 if variant.startswith("sdpa_") and variant != "sdpa_auto" else None,
            peak_extra_bytes=3 * 2**20,
            flops=flops,
            tflops=flops / (ms * 1e-3) / 1e12,
            rel_error=facts["err"],
        ),
    )
    return result, raw


@functools.cache
def raw_trace(variant: str) -> dict:
    """The parsed fixture trace of ``variant`` (do not modify it: it is cached)."""
    with gzip.open(TRACES / f"{variant}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def fixture_steps(variant: str) -> tuple[StepTrace, ...]:
    """The steps :func:`attnprof.records.trace.parse_trace` reads from the fixture trace of ``variant``."""
    return tuple(trace.parse_trace(raw_trace(variant), f"{variant}_fwd"))


def raw_events(variant: str) -> list[dict]:
    """The complete (``ph: X``) events of the fixture trace of ``variant``."""
    return [e for e in raw_trace(variant)["traceEvents"] if e.get("ph") == "X"]


def annotation_marks(variant: str) -> list[dict]:
    """The ``<variant>_fwd`` annotation events of the fixture trace, in time order."""
    return sorted(
        (e for e in raw_events(variant) if e.get("cat") == "user_annotation" and e["name"] == f"{variant}_fwd"),
        key=lambda e: e["ts"],
    )


def analysed(variant: str) -> Analysis:
    """The analysis of :func:`trace_result`'s result of ``variant``."""
    return summary.analyse(trace_result(variant)[0])


def analysed_build(variants_: tuple[str, ...] = TRACE_VARIANTS) -> dict[str, Analysis]:
    """``{variant: analysis}`` of the recorded H200 results."""
    return {v: analysed(v) for v in variants_}


# --- a made-up H200 sweep -------------------------------------------------------------

# TFLOP/s each variant reaches at long sequences (rough H200 figures), and its fixed cost per call (ms)
_RATES = {
    "sdpa_math": 12.0,
    "sdpa_efficient": 180.0,
    "sdpa_flash": 330.0,
    "sdpa_cudnn": 420.0,
    "sdpa_auto": 420.0,
    "flex": 300.0,
    "naive": 40.0,
    "naive_inplace": 45.0,
}
_FIXED_MS = {"sdpa_math": 0.15, "naive": 0.05, "naive_inplace": 0.05}
H200_CEILINGS = Ceilings(matmul_tflops=720.0, matmul_n=8192, bandwidth_gbs=4100.0, copy_bytes=2**31, repetitions=10)
UNSUPPORTED = "RuntimeError: No available kernel. Aborting execution. | made-up refusal for the test"


def h200_sweep() -> Sweep:
    """A sweep with the default GPU configuration and plausible numbers: OOMs, an unsupported point, a CPU-bound
    point, flex at its three sequence lengths only, SDPA picking cuDNN."""
    cfg = sweeprun.default_config("cuda")
    points = []
    for v in cfg.variants:
        for d in cfg.head_dims:
            for s in cfg.seqs_for(v):
                flops = inputs.causal_flops((cfg.batch, cfg.heads, s, d))
                if v == "sdpa_math" and s >= 16384:
                    reason = "CUDA out of memory. Tried to allocate 128.00 GiB"
                    if s > 16384:
                        reason = "skipped: out of memory at seq 16384"
                    points.append(SweepPoint(v, s, d, "oom", reason))
                    continue
                if v == "sdpa_efficient" and d == 128 and s == 512:
                    points.append(SweepPoint(v, s, d, "unsupported", UNSUPPORTED))
                    continue
                ms = flops / (_RATES[v] * 1e12) * 1e3 * (1 + 512 / s) + _FIXED_MS.get(v, 0.01)
                scores = cfg.batch * cfg.heads * s * s * 2 if variants.get(v).materializes_scores else 0
                points.append(
                    SweepPoint(
                        v,
                        s,
                        d,
                        "ok",
                        gpu_ms=ms,
                        gpu_ms_min=ms * 0.98,
                        gpu_ms_max=ms * 1.05,
                        repetitions=10 if ms < 20 else 5,
                        tflops=flops / (ms * 1e-3) / 1e12,
                        peak_extra_bytes=int(3 * scores + 4 * cfg.batch * cfg.heads * s * d * 2),
                        dispatch_us=900.0 if v == "sdpa_math" else 25.0,
                        sdpa_choice="cudnn" if v == "sdpa_auto" else None,
                        sdpa_evidence="cudnn_generated_fort_native_sdpa_sm90_flash_fprop"
                        if v == "sdpa_auto"
                        else None,
                        wall_s=0.1,
                    )
                )
    env = Environment(
        device_name="NVIDIA H200",
        torch_version="2.11.0+cu130",
        python_version="3.12.3",
        date="2026-11-30T03:00:00+00:00",
        cuda_version="13.0",
        cudnn_version="91900",
    )
    order = {(v, d, s): i for i, (v, d, s) in enumerate((p.variant, p.head_dim, p.seq) for p in points)}
    points.sort(key=lambda p: order[(p.variant, p.head_dim, p.seq)])
    return Sweep(
        device="cuda",
        dtype=cfg.dtype,
        batch=cfg.batch,
        heads=cfg.heads,
        seqs=list(cfg.seqs),
        head_dims=list(cfg.head_dims),
        variants=list(cfg.variants),
        environment=env,
        points=points,
        ceilings=H200_CEILINGS,
        compiled_seqs=list(sweeprun.COMPILED_SEQS),
        timer="cuda_event_prefilled",
        budget_s=45.0,
        elapsed_s=24.0,
    )


# --- the recorded 2 x H200 context-parallel run ---------------------------------------------------------------------

CP = DATA / "workloads" / "cp"
CP_SEQS = (32768, 65536, 131072)
_CP_BACKENDS = {"FLASH_ATTENTION": "flash", "auto": "auto"}


@functools.cache
def cp_facts() -> dict:
    """``tests/data/workloads/h200x2-facts.json`` (do not modify it: it is cached)."""
    return json.loads((DATA / "workloads" / "h200x2-facts.json").read_text())


def cp_fixture(backend: str, method: str, seq: int, rank: int) -> Path:
    """The recorded trace of one rank of one case (``backend`` ``flash`` or ``auto``)."""
    tag = "" if backend == "flash" else f"{backend}-"
    return CP / f"{tag}{method}-S{seq}-rank{rank}.json.gz"


@functools.cache
def cp_rank_trace(backend: str, method: str, seq: int, rank: int) -> rank_traces.RankTrace:
    """:func:`attnprof.analysis.rank_traces.read_rank` of one recorded trace."""
    return rank_traces.read_rank(trace.read_trace(cp_fixture(backend, method, seq, rank)), f"cp_{method}")


def h200x2_run(backend: str = "flash", folder: Path | None = None) -> ParallelRun:
    """The context-parallel run the probe recorded on 2 x H200, as the runner would have written it: every figure
    from ``h200x2-facts.json`` (measured by the first probe, see ``tests/data/workloads/README.md``), every rank's
    trace read from the fixtures. With ``folder``, the traces are copied there under the runner's names and the run
    file is saved there."""
    facts = cp_facts()
    env = Environment(
        device_name="NVIDIA H200",
        torch_version=facts["facts"]["torch"],
        python_version=facts["facts"]["python"],
        date="2026-12-01T00:17:00+00:00",
        cuda_version=facts["facts"]["cuda"],
        cudnn_version=str(facts["facts"]["cudnn"]),
    )
    probe_backend = next(k for k, v in _CP_BACKENDS.items() if v == backend)
    cfg = parallel.ParallelConfig(seqs=CP_SEQS, backends=(backend,), world=2)
    by_rank = {r["rank"]: r for r in facts["cp"]["ranks"]}
    cases = []
    for seq in CP_SEQS:
        for method in parallel.METHODS:
            rows = [next(c for c in by_rank[r]["configs"] if (c["case"], c["backend"], c["method"], c["S"])
                         == ("main", probe_backend, method, seq)) for r in (0, 1)]  # fmt: skip
            rank_runs = []
            for r, c in enumerate(rows):
                name = parallel.trace_name("cuda", backend, method, seq, r)
                if folder is not None:
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / name).write_bytes(cp_fixture(backend, method, seq, r).read_bytes())
                rank_runs.append(
                    RankRun(
                        rank=r,
                        step_ms=c["cp_ms"]["median"],
                        step_ms_p10=c["cp_ms"]["p10"],
                        step_ms_p90=c["cp_ms"]["p90"],
                        dispatch_ms=c["cp_dispatch_ms"]["median"],
                        peak_extra_bytes=int(c["cp_peak_extra_MiB"] * 2**20),
                        local_seq=c["local_shape"][2],
                        single_ms=c["single_gpu_ms"]["median"],
                        trace_file=name,
                        trace=copy.deepcopy(cp_rank_trace(backend, method, seq, r)),  # tests change it
                    )
                )
            cases.append(
                ParallelCase(
                    backend=backend,
                    method=method,
                    seq=seq,
                    status="ok",
                    single_ms=rows[0]["single_gpu_ms"]["median"],
                    single_peak_extra_bytes=int(rows[0]["single_gpu_peak_extra_MiB"] * 2**20),
                    rel_error=rows[0]["rel_err_vs_single_gpu"],
                    ranks=rank_runs,
                    wall_s=1.0,
                )
            )
    bw = by_rank[0]["nccl_bandwidth"]
    run = ParallelRun(
        device="cuda",
        status="ok",
        config=cfg,
        environment=env,
        world=2,
        gpus=["NVIDIA H200", "NVIDIA H200"],
        nccl_version=facts["facts"]["nccl"],
        launcher="torch.multiprocessing (spawn)",
        collectives=[
            Collective(op, b["output_bytes"], b["ms"]["median"], b["algbw_GBps"], b["busbw_GBps"], b["ms"]["reps"])
            for op, b in bw.items()
        ],
        init_s=[by_rank[r]["init_s"] for r in (0, 1)],
        cases=cases,
        elapsed_s=14.2,  # not recorded by the probe: a stand-in for the tests
    )
    if folder is not None:
        parallel.save(run, folder)
    return run


def runner_h200x2() -> ParallelRun:
    """The run file ``attnprof.measure.parallelrun`` wrote on 2 x H200 (the gallery script run plainly, default
    configuration; its traces were not kept)."""
    return ParallelRun.from_dict(json.loads(gzip.decompress((CP / "runner-h200x2.json.gz").read_bytes())))


NO_CUDA = "torch.cuda.is_available() is False; context parallelism needs at least 2 CUDA GPUs"


def no_gpu_run(status: str = "no_cuda", reason: str = NO_CUDA) -> ParallelRun:
    """The run file a build without two GPUs writes."""
    env = Environment(device_name="CPU (x86_64, 2 cores)", torch_version="2.13.0+cpu", python_version="3.11.2",
                      date="2026-12-01T00:00:00+00:00")  # fmt: skip
    cfg = parallel.ParallelConfig(seqs=(32768, 65536))
    return ParallelRun(device="cuda", status=status, reason=reason, config=cfg, environment=env)


#: The pages the guide's parallel page links to, as stubs: a small project that builds that page alone
#: (``{**PARALLEL_STUBS, "guide/parallel.md": ...}``).
PARALLEL_ANCHORS = ("glossary-context-parallelism", "glossary-ring-attention", "glossary-rank", "glossary-nccl",
                    "glossary-collectives", "glossary-speed-up")  # fmt: skip
PARALLEL_STUBS = {
    "index.md": "# Site\n\n```{toctree}\nguide/parallel\nguide/glossary\nguide/methodology\n"
    "auto_examples/14-context-parallel\n```\n",
    "guide/methodology.md": "# Methodology\n\nStub.\n",
    "auto_examples/14-context-parallel.md": "# The script\n\nStub.\n",
    "guide/glossary.md": "# Glossary\n\n" + "".join(f"({a})=\n**{a}**\n: stub.\n\n" for a in PARALLEL_ANCHORS),
}


# --- reading a built Sphinx project ---------------------------------------------------------------------------------


def html(app, doc: str = "index") -> str:
    """The HTML a Sphinx app wrote for ``doc``."""
    return (Path(app.outdir) / f"{doc}.html").read_text(encoding="utf-8")


def doctree(app, doc: str = "index") -> nodes.document:
    """The doctree Sphinx keeps for ``doc``."""
    return app.env.get_doctree(doc)


def tables(app, cls: str, doc: str = "index") -> list[nodes.table]:
    """The tables of ``doc`` with the CSS class ``cls``."""
    return [t for t in doctree(app, doc).findall(nodes.table) if cls in t["classes"]]


def write_catalog(src: Path, messages: dict[str, str], doc: str = "index") -> None:
    """A Japanese gettext catalog for ``doc`` of a test project in ``src``: ``{msgid: msgstr}``."""
    po = src / "locales" / "ja" / "LC_MESSAGES" / f"{doc}.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"\nmsgid {json.dumps(k, ensure_ascii=False)}\nmsgstr {json.dumps(v, ensure_ascii=False)}\n"
                   for k, v in messages.items())  # fmt: skip
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n' + body, encoding="utf-8")


def assert_warned(app, *parts: str, marker: str = "") -> None:
    """Each of ``parts`` is in the build's warnings, and ``marker`` (a CSS class, or other text) on the page."""
    warnings = app.warning.getvalue()
    for part in parts:
        assert part in warnings, f"{part!r} not in the warnings: {warnings}"
    assert marker in html(app)


def body_rows(table: nodes.table) -> list[nodes.row]:
    """The rows of a table's body."""
    return list(next(iter(table.findall(nodes.tbody))).findall(nodes.row))


def rows(table: nodes.table) -> list[list[str]]:
    """The text of every cell of a table's body, row by row."""
    return [[cell.astext() for cell in row] for row in body_rows(table)]


# --- the workloads: results made from the 2xH200 recordings (tests/data/workloads) ---------------------------------

WORKLOADS = DATA / "workloads"
TRAIN_VARIANTS = tuple(sorted(p.name.removesuffix(".json.gz") for p in (WORKLOADS / "train").glob("*.json.gz")))
#: The decoding fixtures: variant -> the backend name the probe used in file names and annotations.
DECODE_FIXTURES = {"sdpa_math": "sdpa_math", "sdpa_flash": "sdpa_flash", "sdpa_cudnn": "sdpa_cudnn",
                   "sdpa_auto": "sdpa_auto", "naive": "naive_repeat", "flex": "flex"}  # fmt: skip
DECODE_LENS = (8192, 131072)
GRAPH_VARIANTS = ("sdpa_auto", "sdpa_flash", "sdpa_cudnn")
GRAPH_LEN = 4096
DECODE_SHAPE = [8, 32, 1, 128]
#: Synthetic test input: the probe measured a copy (read + write), not a read; about the H200's published peak.
READ_CEILING_GBS = 4700.0
GQA_REFUSAL = (
    "RuntimeError: No available kernel. Aborting execution. | For dense input, both fused kernels require query, "
    "key and value to have the same num_heads."
)


@functools.cache
def workload_facts() -> dict:
    """``tests/data/workloads/h200x2-facts.json``."""
    return json.loads((WORKLOADS / "h200x2-facts.json").read_text())


def _workload_env() -> Environment:
    f = workload_facts()["facts"]
    return Environment(f["gpus"][0]["name"], f["torch"], f["python"], "2026-12-01T00:00:00+00:00", f["cuda"],
                       str(f["cudnn"]), "580.159.04", attnprof_version="0.1.0")  # fmt: skip


@functools.cache
def workload_trace(path: str) -> dict:
    """A workload fixture trace (``"train/sdpa_flash"``), parsed JSON (do not modify: cached)."""
    with gzip.open(WORKLOADS / f"{path}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def train_result(variant: str) -> Result:
    """The training result of ``variant``: steps from its trace, figures from the facts file."""
    f = workload_facts()["train"]["variants"][variant]
    raw = workload_trace(f"train/{variant}")
    step, fwd = f["fwd_bwd_ms"], f["fwd_ms"]
    flops = 3.5 * 2.0 * 8 * 16 * 1024 * 1024 * 64
    return Result(
        variant=variant, shape=list(SHAPE), dtype="bfloat16", device="cuda", status="ok",
        environment=_workload_env(), device_properties=trace.device_properties(raw),
        steps=trace.parse_trace(raw, f"{variant}_train"), workload="train",
        timing=Timing(step["median"], step["p10"], step["p90"], step["reps"], f["dispatch_us_fwd_bwd"], None,
                      int(f["peak_fwd_bwd_MiB"] * 2**20), flops, flops / (step["median"] * 1e-3) / 1e12,
                      f["rel_err"]["out"], "cuda_event_prefilled"),
        train_figures=TrainFigures(fwd["median"], fwd["p10"], fwd["p90"], fwd["reps"],
                                   int(f["saved_after_fwd_MiB"] * 2**20),
                                   max(f["rel_err"][g] for g in ("dq", "dk", "dv"))),
    )  # fmt: skip


def _decode_row(variant: str, length: int) -> dict:
    d = workload_facts()["decode"]
    name = DECODE_FIXTURES.get(variant, variant)
    return next(r for r in d["rows"] + d["flex_rows"] if r["backend"] == name and r["L"] == length)


def decode_result(variant: str, length: int) -> Result:
    """The decoding result of ``variant`` at cache ``length``: steps from its trace (at 8192 and 131072; at the
    CUDA-graph length, the eager steps of the graph trace, with the graph comparison), figures from the facts."""
    row = _decode_row(variant, length)
    base = dict(variant=variant, shape=list(DECODE_SHAPE), dtype="bfloat16", device="cuda",
                environment=_workload_env(), workload="decode", kv_heads=8, kv_len=length)  # fmt: skip
    if row["status"] != "ok":
        return Result(**base, status=row["status"], reason=row["reason"])
    graph = None
    if length == GRAPH_LEN and variant in GRAPH_VARIANTS:
        raw = workload_trace(f"graph/decode_graph-{variant}")
        steps = trace.parse_trace(raw, "decode_eager")
        g = workload_facts()["graph"][variant]
        graph = GraphFigures(
            "ok", None, g["eager"]["cpu_us"], g["graph"]["cpu_us"], g["eager"]["wall_us"], g["graph"]["wall_us"],
            g["eager"]["gpu_us"], g["graph"]["gpu_us"], 30, g["replay_matches_eager"],
            trace.parse_trace(raw, "decode_graph"),
        )  # fmt: skip
    elif length in DECODE_LENS:
        raw = workload_trace(f"decode/{DECODE_FIXTURES[variant]}-L{length}")
        steps = trace.parse_trace(raw, f"{DECODE_FIXTURES[variant]}_decode")
    else:  # the probe timed every length but traced only two: a result without steps (as if not profiled)
        raw, steps = {}, []
    us = row["gpu_us"]
    flops = 4.0 * 8 * 32 * length * 128
    return Result(
        **base, status="ok", device_properties=trace.device_properties(raw), steps=steps,
        timing=Timing(us["median"] / 1e3, us["p10"] / 1e3, us["p90"] / 1e3, us["reps"], row["dispatch_us"], None,
                      None, flops, flops / (us["median"] * 1e-6) / 1e12, row["rel_err_vs_fp32"],
                      "cuda_event_prefilled"),
        decode_figures=DecodeFigures(row["bytes"], row["GBps"], READ_CEILING_GBS, 2**31, graph),
    )  # fmt: skip


#: Lengths the probe timed without tracing (results without steps), besides the traced ones and the graph's.
TIMED_LENS = (1024, 16384)


def decode_results() -> list[Result]:
    """Every decoding fixture result: the traced variants at 8192 and 131072, the CUDA-graph variants at 4096 (and
    the others there, untraced), every SDPA backend untraced at 1024 and 16384, and the memory-efficient backend's
    refusals at every length."""
    sdpa = ("sdpa_math", "sdpa_flash", "sdpa_cudnn", "sdpa_auto")
    out = [decode_result(v, n) for v in DECODE_FIXTURES for n in DECODE_LENS]
    out += [decode_result(v, GRAPH_LEN) for v in (*GRAPH_VARIANTS, "sdpa_math", "naive")]
    out += [decode_result(v, n) for v in sdpa for n in TIMED_LENS]
    out += [decode_result("sdpa_efficient", n) for n in (*TIMED_LENS, *DECODE_LENS, GRAPH_LEN)]
    return out


@functools.cache
def workload_build() -> Build:
    """The workloads of the 2xH200 recordings, analysed, with the H200 prefill results and the made-up sweep."""
    return Build(
        {
            "train": [summary.analyse(train_result(v)) for v in TRAIN_VARIANTS],
            "decode": [summary.analyse(r) for r in decode_results()],
            "prefill": list(analysed_build().values()),
        },
        h200_sweep(),
    )


#: The result files of a real H200 docs build (main 06113e9, torch 2.11+cu130, 2026-12-03): the bundle shipped as
#: docs/bundles/h200.tar.gz when it was recorded, kept here so that the tests do not move when that one is renewed.
H200_BUILD = DATA / "h200-build.tar.gz"


def h200_build_results(folder: Path) -> Path:
    """The result files of the real H200 build (:data:`H200_BUILD`), written into ``folder``; returns it."""
    from attnprof.records import bundle

    folder.mkdir(parents=True, exist_ok=True)
    for name, data in bundle.read(H200_BUILD).data.items():
        (folder / name).write_bytes(data)
    return folder


@functools.cache
def h200_build() -> Build:
    """The real H200 build's training, prefill and decoding results, analysed, with its sweep (no side-by-side issue
    times: that build predates them)."""
    from attnprof.records import bundle, results, sweep

    b = Build()
    for name, data in sorted(bundle.read(H200_BUILD).data.items()):
        if name.count("__") >= 4:
            r = results.Result.from_dict(json.loads(data))
            b.by_workload.setdefault(r.workload, []).append(summary.analyse(r))
        elif name == sweep.filename("cuda"):
            b.sweep = Sweep.from_dict(json.loads(data))
    return b


# --- kernel names ---------------------------------------------------------------------------------------------------

#: What :func:`attnprof.analysis.kernels.decode` gave for every name of :func:`kernel_names` before the decoder
#: became a table of data (``scripts/kernel_golden.py`` writes it).
KERNEL_GOLDEN = DATA / "kernels-golden.json.gz"
_GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def _run_file_kernel_names(node: object) -> set[str]:
    """The ``name`` of every kernel a run file (``parallel__<device>.json``) records, however deep."""
    if isinstance(node, dict):
        own = {node["name"]} if {"name", "family", "short"} <= node.keys() else set()
        return own.union(*(_run_file_kernel_names(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_run_file_kernel_names(v) for v in node))
    return set()


def _test_kernels_names() -> set[str]:
    """The names ``tests/test_kernels.py`` decodes: arguments of ``decode(...)`` and the first item of each
    parametrized case."""
    import ast

    tree = ast.parse((Path(__file__).parent / "test_kernels.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "decode" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "parametrize":
            cases = node.args[1] if len(node.args) > 1 else None
            for case in getattr(cases, "elts", []):
                first = case.elts[0] if isinstance(case, ast.Tuple) else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
    return names


#: Names no fixture holds, one or more per branch of the decoder the fixtures leave out (other spellings of the
#: same libraries, unknown tokens, edge cases of the label's length), so that the golden file and the browser's
#: decoder are held to every branch.
KERNEL_EXTRA_NAMES = (
    "",
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, "
    "true>(pytorch_flash::Flash_fwd_params)",
    "void pytorch_flash::flash_bwd_convert_dkv_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, "
    "false, false, cutlass::half_t, Flash_kernel_traits<128, 64, 128, 8, cutlass::half_t> > "
    ">(pytorch_flash::Flash_bwd_params)",
    "flash_bwd_mystery_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::bfloat16_t>",
    "void "
    "cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnBwdSm90<flash::CollectiveMainloopBwdSm90<2,"
    " cute::tuple<cute::C<1>>, 128, cutlass::half_t> > > >(Params)",
    "fmha_cutlassF_f16_notaligned_64x128_gmem_sm75",
    "fmha_cutlassB_f32_aligned_128x64_k65536_dropout_sm80",
    "cudnn_generated_fort_native_sdpa_sm100_flash_fprop_umma_f16_knob_1",
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_bf16_64x64x64",
    "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
    "(cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, "
    "float*)",
    "sm80_cudnn_infer_xyz_kernel",
    "triton_flash_attention_kernel",
    "triton_poi_fused_0",
    "triton_spl_fused_cumsum_0",
    "triton_for_fused_1",
    "triton_sca_fused_cumsum_2",
    "triton_xyz_fused_add_7",
    "triton_poi_fused___0",
    "triton_per_fused_a__b___c__0",
    "triton_red_fused_native_layer_norm_native_layer_norm_backward_0",
    "triton_poi_fused_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_0",
    "nvjet_hsh_64x8_64x4_1x1_v_bz_splitK_TNT",
    "nvjet_sss_tf32_128x128_32x4_2x1_h_bz_NNN",
    "nvjet_sm100_xyz_256x256_64x3_2x1_2cta_h_bz_weird_TNN",
    "nvjet_dsd_64x64x8",
    "nvjet_sss_128x64_8x3_pingpong_h_h_TN",
    "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize256x128x32_stage3_warpsize4x2x1_hmma_execute_kernel",
    "sm75_xmma_fprop_implicit_gemm_indexed_f16f16_f16f16_f16_nhwckrsc_nhwc_tn_tilesize128x128x32_stage1",
    "sm90_xmma_wgrad_xyz_tn_tilesize64x64x64_stage2",
    "sm86_xmma_gemm_s8s8_s32s32_s32_tn_n_tilesize128x128x64_stage4_warpsize2x2x1_imma_kernel_cublas",
    "volta_sgemm_64x64_nn",
    "turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn",
    "maxwell_dgemm_64x64_nt",
    "ampere_i8_i16832gemm_int8_128x128_tn",
    "ampere_z1234gemm_64x64_tn",
    "cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align8",
    "cutlass_80_tensorop_s16816gemm_f16_64x64_32x6_nn_align8",
    "cutlass_80_tensorop_h16816gemm_64x64_64x5_nt_align8",
    "cutlass_80_simt_dgemm_64x64_8x5_tt",
    "cutlass3x_sm90_simt_gemm_f32_f32_64x64x8_1x1x1_3_nn_align1",
    "cutlass3x_sm90_tensorop_gemm_128x128x64_1x1x1_0_tnt_align4",
    "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16,"
    " float, __nv_bfloat16, false, true, true, false, 7, false, cublasGemvParamsEx<int, "
    "cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16 "
    "const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float> >(cublasGemvParamsEx<int, "
    "cublasGemvTensorStridedBatched<__nv_bfloat16 const>, cublasGemvTensorStridedBatched<__nv_bfloat16 "
    "const>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>)",
    "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> "
    ">(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, "
    "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
    "void cutlass::Kernel<cutlass_tensorop_something>(Params)",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*, float "
    "const*, int)",
    "void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, 4, false, true>(c10::Half*)",
    "void (anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous "
    "namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)",
    "void (anonymous namespace)::cunn_SoftMaxForwardSmem<8, c10::Half, float, c10::Half, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::Half*, c10::Half const*, long)",
    "void at::native::(anonymous namespace)::cunn_LogSoftMaxForward<4, float, float, float>(float*, float const*)",
    "void my_softmax_kernel<float>(float*)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float,"
    " at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
    "float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
    "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
    "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::BFloat16, "
    "at::native::MaxOps<float>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, "
    "at::native::MaxOps<float>, unsigned int, c10::BFloat16, 4, 4>)",
    "void at::native::reduce_kernel<256, 2, at::native::ReduceOp<double, at::native::Foo<double>, "
    "unsigned int, double, 4> >(at::native::ReduceOp<double, at::native::Foo<double>, unsigned int, "
    "double, 4>)",
    "void at::native::triu_tril_kernel<float, long, true, 4, true>(at::cuda::detail::TensorInfo<float, long>)",
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::float8_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul> >(int, std::array<char*, 2ul>)",
    "void "
    "at::native::unrolled_elementwise_kernel<at::native::complex_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1},"
    " std::array<char*, 2ul>, 4>(int)",
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}, std::array<char*, 2ul> >(int)",
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::something>(int)",
    "void at::native::index_elementwise_kernel<128, 4, "
    "at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<2> "
    ">(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, "
    "long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(int)#1}>(long)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnOther_add<c10::Half>, "
    "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnOther_add<c10::Half>, std::array<char*, 2ul>)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor<float>, std::array<char*, 2ul> >(int)",
    "void at::native::vectorized_elementwise_kernel<2, at::native::FillFunctor<double>, std::array<char*,"
    " 1ul> >(int)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<c10::Half, c10::Half, "
    "c10::Half, at::native::binary_internal::DivFunctor<float> >, std::array<char*, 2ul> >(int)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "void ncclDevKernel_AllReduce_Sum_f32_NVLS_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_AllReduce",
    "Memcpy DtoH (Device -> Pageable)",
    "Memcpy HtoD (Pageable -> Device)",
    "Memcpy PtoP (Device -> Device)",
    "Memset (Unknown)",
    "a::b::xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx<int>(int)",
    "void foo(int (*)(int), char)",
    "void no_parameters<int",
    "void (anonymous namespace)::kernel()",
    "  padded_kernel  ",
    "my_kernel_ü<α, β>(é)",
    "カーネル::" + "長い名前" * 20 + "<int>(float)",
    "emoji_😀::🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀",
)


@functools.cache
def kernel_names() -> tuple[str, ...]:
    """Every distinct kernel, memcpy and memset name of the fixtures (the GPU events of ``traces/`` and
    ``workloads/``, the kernels of the recorded run file), of ``tests/test_kernels.py`` and of
    :data:`KERNEL_EXTRA_NAMES`, sorted."""
    names: set[str] = set()
    for path in (*TRACES.glob("*.json.gz"), *(DATA / "workloads").rglob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
        if "traceEvents" in data:
            names |= {e["name"] for e in data["traceEvents"] if e.get("cat") in _GPU_CATEGORIES}
        else:
            names |= _run_file_kernel_names(data)
    return tuple(sorted(names | _test_kernels_names() | set(KERNEL_EXTRA_NAMES)))


# --- the command line -----------------------------------------------------------------------------------------------


class CliRun(NamedTuple):
    """What a run of the command gave: its exit status, standard output and standard error (it unpacks as
    ``code, out, err``, and reads like :class:`subprocess.CompletedProcess`)."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*argv: str, cwd: str | os.PathLike[str] | None = None) -> CliRun:
    """``attnprof ARGV`` run in-process (:func:`attnprof.cli.main`), in the working directory ``cwd`` when given.

    For every case where a new process adds nothing (bad input refused, a dry run, a file written): the command's
    own streams are two buffers, and whatever the code writes to ``sys.stdout`` or ``sys.stderr`` past them lands
    in the same buffers, so a stray print still fails a test that wants one line. What only a process shows (its
    real file descriptors, signals, a full or closed standard output, what is imported at start) needs
    ``subprocess``.
    """
    import contextlib
    import io

    from attnprof import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        code = cli.main(list(argv), out=out, err=err)
    return CliRun(code, out.getvalue(), err.getvalue())


def older_layout(doc: dict, links: str = "flows") -> dict:
    """The layouts of older PyTorch releases: ``Operator``, ``Runtime``, ``Kernel``, ``Memcpy`` categories, ``Input
    dims``, and a launch linked to its kernel by ``ac2g`` flows alone (``links="flows"``: no ``correlation`` in the
    events' args) or by ``args.correlation`` alone (``links="args"``: no flows, as before PyTorch wrote them)."""
    old = {"cpu_op": "Operator", "cuda_runtime": "Runtime", "kernel": "Kernel", "gpu_memcpy": "Memcpy",
           "gpu_memset": "Memset"}  # fmt: skip
    out = []
    for e in doc["traceEvents"]:
        e = json.loads(json.dumps(e))
        if links == "args" and e.get("cat") == "ac2g":
            continue
        if e.get("ph") == "X":
            e["cat"] = old.get(e.get("cat"), e.get("cat"))
            args = e.get("args", {})
            if links == "flows":
                args.pop("correlation", None)
            if "Input Dims" in args:
                args["Input dims"] = args.pop("Input Dims")
        out.append(e)
    return dict(doc, traceEvents=out)


# --- traces of code nobody here wrote -----------------------------------------------------------------------------

#: Recordings of models nobody here wrote (scripts/probe_foreign.py): one folder per device, each with facts.json.
FOREIGN = DATA / "foreign"
FOREIGN_FOLDERS = tuple(sorted(p for p in FOREIGN.iterdir() if (p / "facts.json").is_file()))


def foreign_facts(folder: Path) -> dict:
    """What the probe recorded of a folder's traces: device, layers, active steps, each case's size and time."""
    return json.loads((folder / "facts.json").read_text())


def explained(path: Path) -> explain.Explanation:
    """:func:`attnprof.analysis.explain.explain` of the trace at ``path``, read as ``attnprof explain`` reads it."""
    return explain.explain(foreign.load(path, inputs_of=attention.wants_inputs))


# --- results bundles (attnprof.records.bundle) ----------------------------------------------------------------------


def h200_bundle(path: Path, *, traces: bool = False) -> Path:
    """A bundle of the recorded H200 results: the prefill results made from the H200 traces (their times recorded
    with them), the training and decoding results made from the 2xH200 recordings, and the made-up H200 sweep (for
    its ceilings), packed with the provenance of those results; written to ``path``."""
    from attnprof.records import bundle, files, results, sweep

    contents: dict[str, bytes] = {}
    for v in TRACE_VARIANTS:
        result, raw = trace_result(v)
        if traces:
            result.trace_file = result.stem + ".trace.json.gz"
            contents[result.trace_file] = gzip.compress(raw, mtime=0)
        contents[result.stem + ".json"] = results.dumps(result)
    for r in [*(train_result(v) for v in TRAIN_VARIANTS), *decode_results()]:
        contents[r.stem + ".json"] = results.dumps(r)
    sw = h200_sweep()
    contents[sweep.filename("cuda")] = files.json_bytes(sw.to_dict())
    env = h200_environment()
    prov = bundle.Provenance(gpu_model=env.device_name, gpu_count=1, torch=env.torch_version, measured=env.date,
                             created="2026-12-02T00:00:00+00:00", driver=env.driver_version, cuda=env.cuda_version,
                             cudnn=env.cudnn_version, attnprof_version="0.1.0", attnprof_commit="0" * 40)  # fmt: skip
    data, _ = bundle.pack(contents, prov)
    path.write_bytes(data)
    return path


# --- one record of every kind of the register ----------------------------------------------------------------------

#: The mask run recorded on the CPU, and the training-scale grid recorded on the H200.
MASK_RUN = DATA / "masks" / "cpu" / "masks__cpu.json"
TRAIN_SCALE = DATA / "trainscale__cuda.json.gz"
#: What explain --measure measured of a padded batch's trace on the CPU (attnprof explain ... --measure --json).
ADVICE_RECORD = DATA / "foreign" / "cpu-advice" / "advice__hf_padded_infer.json"


def record_samples(grid) -> dict:
    """One record of every kind of the register (:func:`attnprof.records.kinds.every`), by kind: real recordings
    where there are some (the H200 traces, sweep, run, grid; the CPU mask run), small made ones otherwise.
    ``grid`` is the eligibility map (the session's ``cpu_grid``). A kind without a sample here fails the tests that
    go over the register."""
    from attnprof.records import (
        advice,
        buildtimes,
        eligibility,
        fixedcosts,
        forcing,
        kinds,
        masks,
        parallel,
        results,
        sweep,
        trainscale,
    )
    from attnprof.records.results import CpuCostRow, CpuCosts

    costs = CpuCosts("cuda", [8, 16, 1024, 64], "bfloat16", 10, h200_environment(), [
        CpuCostRow("sdpa_flash", "ok", profiled=Figure(60.0, 58.0, 63.0, 10), dispatch=Figure(40.0, 39.0, 41.0, 10),
                   context=Figure(3.0, 2.9, 3.1, 10), samples=[30, 100]),
        CpuCostRow("sdpa_cudnn", "unsupported", "RuntimeError: no"),
    ])  # fmt: skip
    issued = forcing.ForcingCase("decode", [8, 32, 1, 128], "bfloat16", 8, 1024, 12, 3, [  # made up for the test
        forcing.IssueRow("sdpa_auto", issue=Figure(33.0, 31.0, 35.0, 12), wall_ms=0.05),
        forcing.IssueRow("sdpa_cudnn", issue=Figure(85.0, 82.0, 88.0, 12), over_auto=Figure(52.1, 48.0, 55.0, 12),
                         wall_ms=0.05),
        forcing.IssueRow("sdpa_efficient", "unsupported", "RuntimeError: No available kernel."),
    ], 0.2)  # fmt: skip
    samples = {
        results.KIND: trace_result("sdpa_flash")[0],
        results.CPU_COSTS: costs,
        sweep.KIND: h200_sweep(),
        parallel.KIND: runner_h200x2(),
        fixedcosts.KIND: fixed_costs(Figure(5.0, 4.0, 6.0, 10)),
        eligibility.KIND: grid,
        buildtimes.KIND: buildtimes.LanguageTimes("ja", {"01-naive.py": 1.5}, 2.0, 3.0, 4.0, ["index"], None),
        masks.KIND: masks.load(MASK_RUN),
        trainscale.KIND: trainscale.load(TRAIN_SCALE),
        advice.KIND: advice.load(ADVICE_RECORD),
        forcing.KIND: forcing.Forcing("cuda", h200_environment(), [issued], 2.5),
    }
    missing = [k.what for k in kinds.every() if k not in samples]
    assert not missing, f"tests/helpers.py: record_samples has no sample of {', '.join(missing)}"
    return samples


#: conf.py lines that give a test project a gallery whose scripts declare what the real ones declare
#: (:func:`example_stubs`), so that a warning names the real script; sphinx-gallery runs nothing (``plot_gallery``
#: off) and its pages are not read.
STUB_GALLERY_CONF = """
extensions.append("sphinx_gallery.gen_gallery")
sphinx_gallery_conf = {"examples_dirs": ["examples"], "gallery_dirs": ["auto_examples"], "plot_gallery": "False",
                       "filename_pattern": r"/\\d\\d-", "download_all_examples": False}
exclude_patterns += ["examples", "auto_examples"]
"""


def example_stubs() -> dict[str, str]:
    """One stub per gallery script of ``examples/``, under its name, declaring the files the real script declares
    (``# sphinx_gallery_attnprof_writes``); for a test project's ``extra`` files, with :data:`STUB_GALLERY_CONF`."""
    from attnprof.sphinxext import gallery

    stubs = {"examples/GALLERY_HEADER.rst": "Gallery\n=======\n"}
    for script in sorted((DATA.parent.parent / "examples").glob("[0-9][0-9]-*.py")):
        declared = gallery.declared_outputs(script)
        if declared:
            stubs[f"examples/{script.name}"] = (f'"""\n{script.stem}\n{"=" * len(script.stem)}\n\nStub.\n"""\n\n'
                                                f"# sphinx_gallery_attnprof_writes = {declared!r}\n")  # fmt: skip
    return stubs


#: For every kind of the register that a page looks up, a page element that reads it (the tests that go over the
#: register build a page of them all); the CPU-cost table reads the CPU costs and the fixed costs, the decision table
#: (of prefill alone: no training or decoding results needed) the side-by-side issue times.
PAGE_OF_KIND = {
    "result file": "```{kernel-table} sdpa_flash\n```",
    "CPU-cost file": "```{cpu-cost-table} naive\n```",
    "fixed-cost file": "",
    "sweep file": "```{scaling-table}\n```",
    "context-parallel run file": "```{parallel-status}\n```",
    "eligibility map": "```{eligibility-table}\n:family: dtype\n```",
    "mask run": "```{mask-table}\n:mask: documents\n```",
    "training-scale file": "```{train-scale-table}\n```",
    "forcing file": "```{decision}\n:workload: prefill\n```",
}

#: The kinds an element of :data:`PAGE_OF_KIND` reads besides its own (so a bad file of them is one warning from each
#: element that reads it): the decision table reads every result and the sweep as well.
ALSO_READS = {"forcing file": ("result file", "sweep file")}

VERSION_FIELDS = ("version", "schema_version")


def plant_wrong_type(doc: dict) -> tuple[dict, str]:
    """``doc`` with one field planted with a value of the wrong type, and where (as the schema check names it): the
    first number inside a list of objects (``cases[0].flops``, a point's time, a rank's step), else the first
    top-level number, set to ``"x"``. The version fields are left alone (another version is another message)."""
    planted = copy.deepcopy(doc)

    def first(node, where: str):
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{where}.{key}" if where else key
                if type(value) in (int, float) and "[" in where and key not in VERSION_FIELDS:
                    return node, key, here
                found = first(value, here)
                if found:
                    return found
        elif isinstance(node, list):
            for i, value in enumerate(node[:3]):
                found = first(value, f"{where}[{i}]")
                if found:
                    return found
        return None

    found = first(planted, "") or next(
        (planted, k, k) for k, v in planted.items() if type(v) in (int, float) and k not in VERSION_FIELDS
    )
    node, key, where = found
    node[key] = "x"
    return planted, where
