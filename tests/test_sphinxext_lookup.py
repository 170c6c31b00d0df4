"""attnprof.sphinxext.lookup: how a page finds and reads its files. One path for every kind of file (a corrupt one of
each kind is one warning naming the file and the fix, and the build goes on), one cache (each file read once),
missing and unknown names said in one line. Tiny Sphinx projects in tmp_path."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

from attnprof.analysis import summary
from attnprof.noise import Figure, exact
from attnprof.records import eligibility, forcing, kinds, masks, parallel, results, trainscale
from attnprof.records.forcing import Forcing, ForcingCase, IssueRow
from attnprof.records.results import CpuCostRow, CpuCosts
from attnprof.sphinxext import lookup
from helpers import (
    ALSO_READS,
    PAGE_OF_KIND,
    fixed_costs,
    h200_sweep,
    h200x2_run,
    html,
    plant_wrong_type,
    record_samples,
    trace_result,
)

#: The mask run recorded on the CPU (tests/data/masks/cpu).
MASK_RUN = Path(__file__).parent / "data" / "masks" / "cpu" / masks.filename("cpu")
TRAIN_SCALE = Path(__file__).parent / "data" / "trainscale__cuda.json.gz"
#: A gallery script that declares every file the pages read, so that the fix names it (sphinx-gallery does not run
#: it: ``plot_gallery`` is off).
GALLERY = {
    "examples/GALLERY_HEADER.rst": "Gallery\n=======\n",
    "examples/01-writes.py": '"""\nWrites\n======\n\nWrites every file.\n"""\n\n'
    '# sphinx_gallery_attnprof_writes = ["*__*.json", "cpu_costs__*.json", "sweep__*.json", "parallel__*.json"]\n',
}
GALLERY_CONF = """
extensions.append("sphinx_gallery.gen_gallery")
sphinx_gallery_conf = {"examples_dirs": ["examples"], "gallery_dirs": ["auto_examples"], "plot_gallery": "False",
                       "filename_pattern": r"/\\d\\d-", "download_all_examples": False}
exclude_patterns += ["examples", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                     "auto_examples/*.md5", "auto_examples/*.json", "auto_examples/*.pickle", "sg_execution_times.*"]
"""
TOC = "```{toctree}\nauto_examples/index\n```\n\n"
#: After the bad files, a table that reads good ones: the build must get there.
STILL_BUILT = "```{kernel-table} naive_inplace\n```\n"


def _cpu_costs() -> CpuCosts:
    row = CpuCostRow("sdpa_flash", "ok", None, exact(90.0), exact(45.0), exact(5.0), [30, 100])
    return CpuCosts("cuda", [8, 16, 1024, 64], "bfloat16", 10, trace_result("sdpa_flash")[0].environment, [row])


def _corrupt(path: Path) -> None:
    """Cut ``path`` in half, as a write cut off midway leaves it, and give it a new modification time."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)


def _one_warning_each(app, paths: dict[str, Path]) -> None:
    """Every bad file is named by exactly one warning line, which gives the fix; no traceback; the page is built to
    its end."""
    warnings = app.warning.getvalue()
    assert "Traceback" not in warnings and "Exception occurred" not in warnings
    for what, path in paths.items():
        lines = [line for line in warnings.splitlines() if str(path) in line]
        assert len(lines) == 1, (what, lines)
        assert re.search(rf"WARNING: stale or unreadable {what}: {re.escape(str(path))}", lines[0]), lines[0]
        assert re.search(r"; delete it and build again: the build then re-runs \S*01-writes\.py, which", lines[0])
    assert "attnprof-kernel-table" in html(app)


def test_a_corrupt_file_of_every_kind_is_one_warning_naming_it_and_the_fix_and_the_build_goes_on(
    project, tmp_path, cpu_grid
):
    folder = tmp_path / "results"
    h200x2_run(folder=folder)  # a context-parallel run file, with its ranks' traces
    eligibility.save(cpu_grid, folder)
    masks.save(masks.load(MASK_RUN), folder)
    trainscale.save(trainscale.load(TRAIN_SCALE), folder)
    page = TOC + "\n\n".join(
        ["```{kernel-table} naive\n```", "```{timeline} sdpa_flash\n```", "```{cpu-cost-table} sdpa_flash\n```",
         "```{scaling-table}\n```", "```{parallel-status}\n```", "```{eligibility-table}\n:family: dtype\n```",
         "```{mask-verdicts}\n```", "```{train-scale-table}\n```", STILL_BUILT]
    )  # fmt: skip
    pages = {"index.md": f"# Bad files\n\n{page}"}
    variants = ("naive", "naive_inplace", "sdpa_flash")
    fixed = fixed_costs(Figure(8.01, 7.93, 8.12, 20))
    app = project(pages, variants, sweep_data=h200_sweep(), cpu_costs=_cpu_costs(), fixed=fixed, conf=GALLERY_CONF,
                  extra=GALLERY)  # fmt: skip
    assert app.warning.getvalue() == ""
    bad = {
        "fixed-cost file": folder / "fixed_costs__cuda.json",
        "result file": results.find(folder, "naive")[0],
        "trace file": folder / results.find(folder, "sdpa_flash")[0].name.replace(".json", ".trace.json.gz"),
        "CPU-cost file": folder / "cpu_costs__cuda.json",
        "sweep file": folder / "sweep__cuda.json",
        "context-parallel run file": folder / "parallel__cuda.json",
        "eligibility map": folder / eligibility.filename("cpu"),
        "mask run": folder / masks.filename("cpu"),
        "training-scale file": folder / trainscale.filename("cuda"),
    }
    for path in bad.values():
        _corrupt(path)
    app = project(pages, (), conf=GALLERY_CONF, extra=GALLERY)
    _one_warning_each(app, bad)
    # a box where each file was needed; the CPU-cost and fixed-cost files are optional to the CPU-cost table: it falls
    # back on each result's own figures, and leaves out the fixed costs
    page = html(app)
    assert page.count('class="attnprof-problem admonition warning"') == 7 and "attnprof-cpu-cost-table" in page
    # every kind of file a page reads was checked here (rank traces are traces: the next test; a profiler trace
    # of anyone's code, read by explain-report: test_sphinxext_dropin.py; the forcing file, read with every result
    # of the build: the test after the next)
    assert {k.what for k in lookup.KINDS} == {*bad, lookup.FOREIGN.what, forcing.KIND.what}


def test_a_corrupt_forcing_file_is_one_warning_and_the_decision_is_built_from_the_own_runs(project, tmp_path):
    folder = tmp_path / "results"
    auto = IssueRow("sdpa_auto", issue=exact(33.0))
    case = ForcingCase("decode", [8, 32, 1, 128], "bfloat16", 8, 8192, 6, 3, [auto])
    forcing.save(Forcing("cuda", trace_result("sdpa_flash")[0].environment, [case]), folder)
    pages = {"index.md": "# Decision\n\n" + TOC + "```{decision}\n```\n"}
    app = project(pages, (), sweep_data=h200_sweep(), conf=GALLERY_CONF, extra=GALLERY, workloads=True)
    assert app.warning.getvalue() == ""
    path = folder / forcing.filename("cuda")
    _corrupt(path)
    app = project(pages, (), conf=GALLERY_CONF, extra=GALLERY)
    lines = [line for line in app.warning.getvalue().splitlines() if str(path) in line]
    assert len(lines) == 1 and "stale or unreadable forcing file" in lines[0] and "01-writes.py" in lines[0]
    assert "attnprof-decision-table" in html(app)


def test_a_wrongly_typed_field_planted_in_a_file_of_every_kind_is_one_warning_and_the_build_goes_on(
    project, tmp_path, cpu_grid
):
    """Generated from the register: every kind a page looks up gets a file of its own with one field of the wrong
    type (``"flops": "x"`` in a mask run once ended the whole Sphinx run with a TypeError); each is one warning
    naming the file and the field (one per element that reads it: :data:`helpers.ALSO_READS`), and the page is built
    to its end."""
    looked_up = [k for k in kinds.every() if k.devices]
    assert set(PAGE_OF_KIND) == {k.what for k in looked_up}  # a new kind needs a page element here
    folder = tmp_path / "results"
    planted = {}
    for kind, record in record_samples(cpu_grid).items():
        if kind not in looked_up:
            continue
        doc, where = plant_wrong_type(record.to_dict())
        path = folder / kind.filename_of(record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc))
        planted[kind.what] = (path, where)
    page = TOC + "\n\n".join([*(t for t in PAGE_OF_KIND.values() if t), STILL_BUILT])
    app = project({"index.md": f"# Planted fields\n\n{page}"}, ("naive", "naive_inplace"), conf=GALLERY_CONF,
                  extra=GALLERY)  # fmt: skip
    warnings = app.warning.getvalue()
    assert "Traceback" not in warnings and "Exception occurred" not in warnings
    readers = Counter(also for kinds_read in ALSO_READS.values() for also in kinds_read)  # elements reading it too
    for what, (path, where) in planted.items():
        lines = [line for line in warnings.splitlines() if str(path) in line]
        assert len(lines) == 1 + readers[what], (what, lines)
        for line in lines:
            assert f"WARNING: stale or unreadable {what}: {path}: {path.name}: field {where}: 'x' is not " in line
    assert len(warnings.splitlines()) == len(planted) + sum(readers[what] for what in planted)
    assert "attnprof-kernel-table" in html(app)  # the element after them all was built


def test_a_corrupt_trace_of_one_rank_is_one_warning_and_is_not_linked(project, tmp_path):
    folder = tmp_path / "results"
    h200x2_run(folder=folder)
    pages = {"index.md": f"# A rank's trace\n\n{TOC}```{{parallel-timeline}}\n```\n\n{STILL_BUILT}"}
    app = project(pages, ("naive_inplace",), conf=GALLERY_CONF, extra=GALLERY)
    assert app.warning.getvalue() == ""
    rank0, rank1 = (parallel.trace_name("cuda", "flash", "allgather", 32768, r) for r in (0, 1))
    assert rank0 in html(app) and rank1 in html(app)  # the timeline's download links
    _corrupt(folder / rank0)
    app = project(pages, (), conf=GALLERY_CONF, extra=GALLERY)
    warnings = app.warning.getvalue()
    (line,) = [line for line in warnings.splitlines() if rank0 in line]
    assert f"stale or unreadable trace file: {folder / rank0} is a truncated gzip file" in line
    assert re.search(r"; delete it and build again: the build then re-runs \S*01-writes\.py, which", line)
    assert rank0 not in html(app) and rank1 in html(app) and "attnprof-kernel-table" in html(app)


def test_deleting_a_rank_trace_makes_the_build_run_the_script_again(tmp_path):
    from attnprof.sphinxext import gallery

    folder = tmp_path / "results"
    h200x2_run(folder=folder)
    assert gallery.missing_outputs(["parallel__*.json"], folder) == []
    rank1 = parallel.trace_name("cuda", "flash", "alltoall", 65536, 1)
    (folder / rank1).unlink()
    assert gallery.missing_outputs(["parallel__*.json"], folder) == [rank1]


def test_missing_result_warns_with_location_and_shows_a_box(project):
    app = project({"index.md": "# Page\n\nText.\n\n```{kernel-table} sdpa_cudnn\n```\n"}, variants=("naive",))
    warnings = app.warning.getvalue()
    assert "no result file for variant 'sdpa_cudnn'" in warnings
    assert "index.md:5" in warnings
    assert "attnprof-problem" in html(app)


def test_unknown_variant_names_the_choices(project):
    app = project({"index.md": "# Page\n\n```{timeline} flsh\n```\n"})
    warnings = app.warning.getvalue()
    assert "unknown variant 'flsh'; choose one of: naive, naive_inplace" in warnings


def test_stale_result_warns(project, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "naive__prefill__1x4x256x64__bfloat16__cpu.json").write_text('{"schema_version": 0}')
    app = project({"index.md": "# Page\n\n```{kernel-table} naive\n```\n"}, variants=())
    warnings = app.warning.getvalue()
    assert "stale or unreadable result file" in warnings and "schema version 0" in warnings
    assert "index.md:3" in warnings


def test_a_result_that_ran_is_shown_before_one_that_did_not(project, tmp_path):
    from attnprof.records.results import Environment, Result

    env = Environment(device_name="CPU", torch_version="2.13.0+cpu", python_version="3.11", date="2026-12-01")
    refused = Result("sdpa_flash", [1, 4, 256, 64], "bfloat16", "cpu", "unsupported", env, reason="made-up refusal")
    results.save(refused, tmp_path / "results")
    app = project({"index.md": "# Flash\n\n```{kernel-table} sdpa_flash\n```\n"}, variants=("sdpa_flash",))
    assert app.warning.getvalue() == ""
    assert "made-up refusal" not in html(app) and "pytorch_flash" in html(app)


def test_a_page_reads_each_file_once(project, monkeypatch):
    analysed_, loaded = Counter(), Counter()
    real_analyse, real_load = summary.analyse, kinds.Kind.load
    monkeypatch.setattr(summary, "analyse", lambda r: analysed_.update([r.variant]) or real_analyse(r))
    monkeypatch.setattr(kinds.Kind, "load", lambda k, p: loaded.update([Path(p).name]) or real_load(k, p))
    fields = ("gpu_ms", "cpu_us", "dispatch_us", "tflops", "peak_mib", "main_kernel", "main_kernel_regs",
              "main_kernel_smem", "main_kernel_theoretical_occupancy", "main_kernel_limiter", "sm_count",
              "kernels_per_step", "activities_per_step", "op:aten::transpose", "rel_error")  # fmt: skip
    roles = " ".join(f"{{metric}}`{v}:{f}`" for v in ("sdpa_flash", "naive") for f in fields)
    tables_ = "\n\n".join(["```{kernel-table} sdpa_flash\n```", "```{compare-table} naive sdpa_flash\n```",
                            "```{cpu-cost-table} sdpa_flash\n```", "```{cpu-cost-table} naive\n```",
                            "```{claims} C9 C10 C2\n```", "```{scaling-table}\n```", "```{roofline-table}\n```",
                            "```{sdpa-choice-table}\n```"])  # fmt: skip
    app = project({"index.md": f"# Many\n\n{roles}\n\n{tables_}\n"}, sweep_data=h200_sweep(), cpu_costs=_cpu_costs())
    assert app.warning.getvalue() == ""
    assert dict(analysed_) == {"naive": 1, "naive_inplace": 1, "sdpa_flash": 1}
    assert loaded["sweep__cuda.json"] == 1 and loaded["cpu_costs__cuda.json"] == 1
    assert all(n == 1 for n in loaded.values()), loaded  # every file of every kind, results included
