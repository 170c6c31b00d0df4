"""attnprof.cli.checks: every value, the device, the output paths and the cost of a run, checked before any work;
each refusal one line naming the value and what is accepted."""

from __future__ import annotations

import argparse
import io
import os

import pytest

from attnprof import inputs
from attnprof.cli import checks
from attnprof.cli.checks import BadInput
from attnprof.measure import cost, sweeprun


def _args(**values: object) -> argparse.Namespace:
    """A command line as the parser leaves it: every option unset unless given."""
    unset = dict(shape=None, dtype=None, device="cpu", variants=None, seqs=None, head_dims=None, compiled_seqs=None,
                 batch=None, heads=None, budget_s=None)  # fmt: skip
    return argparse.Namespace(**{**unset, **values})


def test_items_split_on_commas_and_spaces_and_refuse_an_empty_one():
    assert checks.items("--seqs", ["512,1024", "2048"]) == ["512", "1024", "2048"]
    assert checks.items("--seqs", None) is None
    with pytest.raises(BadInput, match=r"^empty item in --seqs '512,,1024'; expected values separated by commas"):
        checks.items("--seqs", ["512,,1024"])


@pytest.mark.parametrize("value", ["0", "-3", "soon", "nan", "inf", ""])
def test_a_time_budget_is_a_finite_positive_number(value):
    with pytest.raises(BadInput, match=rf"^bad time budget '{value}'; expected a positive number of seconds"):
        checks.budget(value)
    assert checks.budget("45") == 45.0 and checks.budget(None) is None


def test_variant_names_are_checked_against_the_registry():
    assert checks.variant_names(["naive", "sdpa_flash"]) == ["naive", "sdpa_flash"]
    with pytest.raises(BadInput, match=r"'flsh'.*naive, naive_inplace"):
        checks.variant_names(["naive", "flsh"])


def test_an_output_path_that_cannot_be_written_is_refused(tmp_path):
    assert checks.output(None, "trace file") is None
    assert checks.output(str(tmp_path / "t.json"), "trace file") == tmp_path / "t.json"
    with pytest.raises(BadInput, match="trace file"):
        checks.output(str(tmp_path), "trace file")  # a directory
    with pytest.raises(BadInput, match="trace file"):
        checks.output(str(tmp_path / "no such folder" / "t.json"), "trace file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="trace file"):
        checks.output(str(fifo), "trace file")


def test_the_device_is_checked_by_name_before_torch_is_asked():
    assert checks.device("cpu") == "cpu"
    with pytest.raises(BadInput, match=r"^unknown device 'tpu'; choose one of: cuda, cpu$"):
        checks.device("tpu")


def test_a_setup_gets_the_devices_default_shape_and_checks_shape_and_dtype():
    run = checks.setup(_args())
    assert (run.shape, run.dtype, run.device) == (inputs.CPU_SHAPE, "bfloat16", "cpu")
    run = checks.setup(_args(shape="2x4x64x16", dtype="fp32"))
    assert (run.shape, run.dtype) == ((2, 4, 64, 16), "float32")
    with pytest.raises(BadInput, match="'8,16,1024'"):
        checks.setup(_args(shape="8,16,1024"))
    with pytest.raises(BadInput, match="'bf8'"):
        checks.setup(_args(dtype="bf8"))


def test_a_sweep_config_takes_the_cpu_defaults_and_refuses_bad_values():
    cfg = checks.sweep_config(_args())
    assert (cfg.device, cfg.seqs, cfg.head_dims) == ("cpu", sweeprun.CPU_SEQS, sweeprun.CPU_HEAD_DIMS)
    cfg = checks.sweep_config(_args(variants=["naive,sdpa_math"], seqs=["32", "64"], head_dims=["16"], budget_s="5"))
    assert (cfg.variants, cfg.seqs, cfg.head_dims, cfg.budget_s) == (("naive", "sdpa_math"), (32, 64), (16,), 5.0)
    with pytest.raises(BadInput, match="'abc'"):
        checks.sweep_config(_args(seqs=["512,abc"]))


def test_a_run_that_cannot_fit_is_refused_unless_forced():
    huge = inputs.make_setup("1,1,4194304,1", "fp32", "cpu")
    with pytest.raises(BadInput, match=r"needs about 144 TiB \(estimated\)"):
        checks.plan(["naive"], huge, force=False)
    estimates, limit = checks.plan(["naive"], huge, force=True)
    assert estimates[0].bytes > limit.bytes  # type: ignore[union-attr]


def test_the_plan_in_words_and_the_dry_run_listing():
    run = inputs.make_setup("1,4,256,64", "bf16", "cpu")
    estimates, limit = checks.plan(["naive", "sdpa_flash"], run, force=False)
    line = checks.describe_plan("compare", estimates, limit)
    assert line.startswith("compare: 2 variants at [1, 4, 256, 64] bfloat16 on cpu: about ")
    assert f"at most {cost.human_bytes(max(e.bytes for e in estimates))} at once" in line
    assert limit is not None and f"({cost.human_bytes(limit.bytes)} of {limit.source})" in line

    out = io.StringIO()
    assert checks.dry_run(out, "compare", estimates, limit) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"dry run; would run {line}"
    assert [x.split(":")[0] for x in lines[1:]] == ["  naive", "  sdpa_flash"]
