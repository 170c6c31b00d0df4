"""attnprof.cli.args: the parser. Every option says its default and what it accepts, every command has an example
that runs as written, and the parser's own errors are one line."""

from __future__ import annotations

import argparse
import shutil

import pytest

from attnprof.cli import BadInput, args
from attnprof.records import results
from helpers import FOREIGN, TRACES, trace_result
from helpers import run_cli as run


@pytest.mark.parametrize("command", ["list", "profile", "compare", "sweep"])
def test_help_teaches_description_example_defaults_and_accepted_values(command):
    code, out, err = run(command, "--help")
    assert code == 0 and err == ""
    summary, example, options = args.COMMANDS[command]
    assert summary in out and f"example:\n  {example}" in out
    out = " ".join(out.split())  # argparse wraps the help texts at a column that the longest option decides
    for flag, keywords in options:
        assert "default" in keywords["help"] or flag == "variant", (command, flag)  # one variant, no default
        assert flag in out
    if command != "list":
        assert "bf16, bfloat16, fp16" in out and "(default: cuda when available, else cpu)" in out
    assert "--device" in out
    if command in ("profile", "compare"):
        assert "8,16,1024,64 on CUDA, 1,4,256,64 on the CPU" in out
    if command == "sweep":
        assert "float32 on the CPU" in out and "60 on the CPU" in out


def test_the_examples_in_the_help_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command, (_, example, _) in args.COMMANDS.items():
        argv = example.split()[1:]
        if command == "explain":  # reads a trace: a recorded one, under the example's name
            shutil.copy(TRACES / "sdpa_flash.json.gz", tmp_path / argv[1])
            code, _, err = run(*argv, "--no-why")
        elif command == "diff":  # reads two traces: the sdpa and eager recordings, under the example's names
            shutil.copy(FOREIGN / "h200" / "hf_sdpa_train.json.gz", tmp_path / argv[1])
            shutil.copy(FOREIGN / "h200" / "hf_eager_train.json.gz", tmp_path / argv[2])
            code, _, err = run(*argv)
        elif command == "bundle":  # packs a results folder: one recorded result, under the example's folder name
            result, raw = trace_result("sdpa_flash")
            results.save(result, tmp_path / argv[argv.index("--from") + 1], raw)
            code, _, err = run(*argv)
        else:
            code, _, err = run(*argv, "--dry-run") if command != "list" else (0, "", "")
        assert code == 0, err


def test_the_parsers_own_errors_are_one_line_with_the_usage_folded_in():
    with pytest.raises(BadInput) as caught:
        args.parser().parse_args(["profile", "naive", "--frobnicate"])
    message = str(caught.value)
    assert "\n" not in message and "unrecognized arguments: --frobnicate" in message
    assert message.endswith("; usage: attnprof profile [-h] [--shape SHAPE] [--dtype DTYPE] [--device DEVICE] "
                            "[--workload W] [--kv-heads N] [--kv-len L] [--trace FILE] [--json] [--force] "
                            "[--dry-run] variant")  # the command's usage, not the top level's  # fmt: skip


@pytest.mark.parametrize("value", ["", "   ", "\t"])
def test_an_empty_value_of_any_option_is_refused_naming_what_is_accepted(value):
    check = args.text("one of: bf16, fp32")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^empty value .*; expected one of: bf16, fp32$"):
        check(value)
    assert check("bf16") == "bf16"
    for command, (_, _, options) in args.COMMANDS.items():
        for flag, keywords in options:
            if keywords.get("action") == "store_true":
                continue
            positional = {"profile": ["naive"], "explain": ["trace.json"], "bundle": ["show"]}.get(command, [])
            argv = [command, *(positional if flag not in ("variant", "trace") else []), flag, value]
            if flag in ("variant", "variants", "trace", "action"):
                argv = [command, value]
            if flag == "file":  # the bundle that ``bundle show`` reads
                argv = [command, "show", value]
            with pytest.raises(BadInput, match="empty value"):
                args.parser().parse_args(argv)


def test_the_parser_leaves_defaults_that_depend_on_the_device_unset():
    parsed = args.parser().parse_args(["sweep"])
    assert (parsed.command, parsed.device, parsed.seqs, parsed.batch, parsed.dtype) == (
        "sweep",
        None,
        None,
        None,
        None,
    )
    parsed = args.parser().parse_args(["compare", "naive", "sdpa_flash", "--json"])
    assert parsed.variants == ["naive", "sdpa_flash"] and parsed.json and not parsed.force and not parsed.dry_run


def test_a_value_that_starts_with_a_minus_reaches_the_options_own_check():
    found = args.parser().parse_args(["profile", "naive", "--shape", "-1,4,256,64", "--kv-len", "-5"])
    assert found.shape == "-1,4,256,64" and found.kv_len == "-5"
    assert args.parser().parse_args(["why", "--dropout", "-.5"]).dropout == "-.5"
    with pytest.raises(BadInput, match="--dtype: expected one argument"):  # an option is still an option
        args.parser().parse_args(["profile", "naive", "--dtype", "--help"])
    with pytest.raises(BadInput, match="unrecognized arguments: -1"):  # and a stray value still a stray value
        args.parser().parse_args(["profile", "naive", "--json", "-1"])
