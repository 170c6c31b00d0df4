"""attnprof.cli.workload: ``attnprof profile/compare --workload train|decode`` (and ``compare --lengths``) on the CPU
at small shapes, the workload's setup, setups and table, and their bad input; ``attnprof sweep`` is the prefill sweep
alone."""

from __future__ import annotations

import argparse
import json

import pytest

from attnprof.cli import BadInput, workload
from helpers import run_cli as run

CPU = ["--device", "cpu", "--dtype", "fp32"]
DECODE = [*CPU, "--workload", "decode", "--shape", "1,4,1,16", "--kv-heads", "2", "--kv-len", "32"]


def test_profile_a_training_step():
    code, out, _ = run("profile", "naive", *CPU, "--shape", "1,2,32,16", "--workload", "train")
    assert code == 0
    assert "ms per train step" in out and "training step: forward" in out and "gradient error" in out


def test_profile_a_decoding_step_as_json():
    code, out, _ = run("profile", "sdpa_math", *DECODE, "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["workload"], data["kv_heads"], data["kv_len"], data["shape"]) == ("decode", 2, 32, [1, 4, 1, 16])
    assert data["decode_figures"]["bytes"] == (2 * 2 * 32 * 16 + 2 * 4 * 16) * 4


def test_compare_decoding_lists_every_variant_that_decodes():
    code, out, err = run("compare", "naive", "sdpa_math", "sdpa_cudnn", *DECODE)
    assert code == 0
    assert out.startswith("decode: [1, 4, 1, 16] float32 on cpu, KV cache [1, 2, 32, 16]")
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()[:1] in (["naive"], ["sdpa_math"],
                                                                                         ["sdpa_cudnn"])}  # fmt: skip
    assert set(rows) == {"naive", "sdpa_math", "sdpa_cudnn"}
    assert "no_cuda" in rows["sdpa_cudnn"] and "[1/3] naive" in err  # the progress lines of every command


def test_compare_decoding_over_cache_lengths_as_json():
    shape = ["--shape", "1,4,1,16", "--kv-heads", "2"]
    code, out, err = run("compare", "sdpa_math", *CPU, "--workload", "decode", *shape, "--lengths", "16,48", "--json")
    assert code == 0
    assert [(r["variant"], r["kv_len"], r["shape"]) for r in json.loads(out)] == [
        ("sdpa_math", 16, [1, 4, 1, 16]),
        ("sdpa_math", 48, [1, 4, 1, 16]),
    ]
    assert "[2/2] sdpa_math decode [1, 4, 1, 16] float32 on cpu, KV cache [1, 2, 48, 16]" in err


def test_compare_training_over_sequence_lengths():
    code, out, err = run("compare", "naive", "sdpa_math", *CPU, "--workload", "train", "--shape", "1,2,64,16",
                         "--lengths", "16", "32")  # fmt: skip
    assert code == 0
    assert out.startswith("train: [1, 2, 16, 16] float32 on cpu; [1, 2, 32, 16] float32 on cpu\n")
    rows = [line.split()[:2] for line in out.splitlines()[4:]]
    assert rows == [["naive", "16"], ["naive", "32"], ["sdpa_math", "16"], ["sdpa_math", "32"]]
    assert "compare: 2 variants at [1, 2, 16, 16] float32 on cpu; [1, 2, 32, 16] float32 on cpu" in err


def test_the_sweep_is_the_prefill_sweep_alone():
    code, out, err = run("sweep", *CPU, "--workload", "decode", "--seqs", "16")
    assert code == 2 and out == "" and "unrecognized arguments: --workload decode" in err
    code, out, _ = run("sweep", "--help")
    assert "without the profiler" in out and "--workload" not in out and "--lengths" not in out


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["profile", "naive", "--workload", "trian"], ["'trian'", "prefill, train, decode"]),
        (["profile", "naive_inplace", *DECODE], ["'naive_inplace'", "decode workload", "choose one of: naive"]),
        (["profile", "naive", *CPU, "--workload", "train", "--kv-len", "64"], ["decode workload, not 'train'"]),
        (["profile", "naive", *CPU, "--workload", "decode", "--kv-heads", "3"], ["bad kv_heads 3", "1, 2, 4, 8"]),
        (["profile", "naive", *CPU, "--workload", "decode", "--kv-len", "x"], ["'x'", "positive integer"]),
        (["profile", "naive", *CPU, "--workload", "decode", "--shape", "1,4,2,16", "--kv-len", "8"],
         ["bad decode shape [1, 4, 2, 16]", "must be 1"]),
        (["compare", "compiled_naive", *DECODE], ["'compiled_naive'", "decode workload"]),
        (["compare", *CPU, "--workload", "decode", "--lengths", "0"], ["bad length '0'", "positive integer"]),
        (["compare", *CPU, "--workload", "train", "--lengths", "8", "--shape", "1,-2,8,8"], ["bad shape '1,-2,8,8'"]),
        (["compare", *CPU, "--lengths", "64", "128"], ["--lengths is for --workload train or decode",
                                                       "attnprof sweep --seqs"]),
        (["compare", *DECODE, "--lengths", "64"], ["--lengths and --kv-len 32", "give one of them"]),
        (["compare", *CPU, "--workload", "train", "--lengths", "64,,8"], ["empty item in --lengths '64,,8'"]),
    ],
)  # fmt: skip
def test_bad_workload_input_is_one_line_and_exit_2(argv, names):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("attnprof: ")
    for name in names:
        assert name in err


def _args(**values: object) -> argparse.Namespace:
    unset = dict(workload=None, device="cpu", shape=None, dtype=None, kv_heads=None, kv_len=None)
    return argparse.Namespace(**{**unset, **values})


def test_the_workload_is_one_of_the_registrys_and_prefill_by_default():
    assert workload.name(_args()) == "prefill" and workload.name(_args(workload="decode")) == "decode"
    with pytest.raises(BadInput, match=r"^unknown workload 'trian'; choose one of: prefill, train, decode$"):
        workload.name(_args(workload="trian"))
    workload.check_variant("naive", "decode")
    with pytest.raises(BadInput, match="'compiled_naive'"):
        workload.check_variant("compiled_naive", "decode")


def test_a_decoding_setup_takes_the_workloads_kv_cache_unless_a_shape_is_given():
    run_ = workload.setup(_args(workload="decode", dtype="fp32"))
    assert run_.shape[2] == 1 and run_.kv_heads and run_.kv_len
    run_ = workload.setup(_args(workload="decode", dtype="fp32", shape="1,4,1,16", kv_heads="2", kv_len="32"))
    assert (run_.shape, run_.kv_heads, run_.kv_len) == ((1, 4, 1, 16), 2, 32)
    with pytest.raises(BadInput, match="bad kv_heads 3"):
        workload.setup(_args(workload="decode", kv_heads="3"))


def test_compare_runs_one_setup_or_one_per_length():
    (one,) = workload.setups(_args(dtype="fp32", shape="1,2,64,16"))
    assert one.shape == (1, 2, 64, 16) and one.kv_len is None
    train = workload.setups(_args(workload="train", dtype="fp32", shape="1,2,64,16", lengths=["16,32"]))
    assert [s.shape for s in train] == [(1, 2, 16, 16), (1, 2, 32, 16)]
    decode = workload.setups(_args(workload="decode", dtype="fp32", shape="1,4,1,16", kv_heads="2",
                                   lengths=["64", "128"]))  # fmt: skip
    assert [(s.shape, s.kv_heads, s.kv_len) for s in decode] == [((1, 4, 1, 16), 2, 64), ((1, 4, 1, 16), 2, 128)]
    with pytest.raises(BadInput, match="attnprof sweep"):
        workload.setups(_args(lengths=["64"]))


def test_the_table_of_a_workload_is_its_own():
    from helpers import decode_result, train_result

    train = workload.table("train", [train_result("sdpa_flash")]).splitlines()
    assert train[0].split()[:6] == ["variant", "seq", "step", "ms", "fwd", "ms"] and "bwd/fwd" in train[0]
    assert train[2].split()[:2] == ["sdpa_flash", "1024"] and "flash bwd" in train[2]
    decode = workload.table("decode", [decode_result("sdpa_flash", 8192)]).splitlines()
    assert decode[0].split()[:3] == ["variant", "KV", "len"] and decode[2].split()[:2] == ["sdpa_flash", "8192"]
