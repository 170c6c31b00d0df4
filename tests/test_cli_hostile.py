"""The ``attnprof`` command under bad and hostile input: empty and odd values, output paths that are not files (a
real FIFO, a socket, devices used read-only, a directory, a path under a file, a folder root cannot write), runs too
large for the machine, Ctrl-C mid-run; and random strings for every option (hypothesis).

The tables of refusals, reads and dry runs run the command in this process (:func:`helpers.run_cli`: the same
``main`` the program calls, with the case's folder as working directory); what only a process shows runs it as a
subprocess: its real standard streams (full, closed, a broken pipe, the profiler's own lines on file descriptor 2),
signals, and what it imports before it refuses.

Each case asserts the exit status, a single line of output for a refusal, and that nothing in the case's folder was
created or changed except the one file the command was asked to write. The real devices are only ever named as
targets; the tests check that they are still the same devices afterwards.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import attnprof
from attnprof import cli
from attnprof.records import sweep
from attnprof.words import fmt
from helpers import run_cli

SRC = Path(attnprof.__file__).parent.parent
TINY = ["--device", "cpu", "--shape", "1,1,16,8", "--dtype", "fp32"]
#: Every point of this sweep needs terabytes: with the memory check on, nothing runs and nothing is slow.
HUGE_SWEEP = ["--device", "cpu", "--batch", "100000", "--heads", "100000", "--seqs", "100000", "--variants", "naive"]
#: Small in memory, hours on the CPU: refused on time before anything runs.
SLOW = ["--device", "cpu", "--shape", "1,1,4194304,8", "--dtype", "fp32"]
REFUSED = "expected a regular file, or a new file in an existing folder you can write to"


def attnprof_cli(*argv: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "attnprof", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _devices() -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for dev in ("/dev/null", "/dev/zero"):
        st_ = os.lstat(dev)
        out[dev] = (st_.st_mode, st_.st_rdev, st_.st_ino, st_.st_size)
    return out


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder``: kind and content (regular files) or target (links); FIFOs are never opened."""
    out = {}
    for path in sorted(folder.rglob("*")):
        st_ = os.lstat(path)
        key = str(path.relative_to(folder))
        if stat.S_ISLNK(st_.st_mode):
            out[key] = ("link", os.readlink(path))
        elif stat.S_ISREG(st_.st_mode):
            out[key] = ("file", path.read_bytes())
        else:
            out[key] = (stat.S_IFMT(st_.st_mode),)
    return out


@pytest.fixture
def arena(tmp_path):
    """A folder holding one of each kind of thing a path can name, and the command's working directory."""
    (tmp_path / "file.txt").write_text("keep me")
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    (tmp_path / "null-link").symlink_to("/dev/null")  # a device-like path inside the temp folder
    (tmp_path / "zero-link").symlink_to("/dev/zero")
    (tmp_path / "dir-link").symlink_to(tmp_path / "dir")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing" / "x.json")
    whole = gzip.compress(b'{"traceEvents": []}' * 100)
    (tmp_path / "old.trace.json.gz").write_bytes(whole[: len(whole) // 2])  # a truncated gzip
    (tmp_path / "readonly.json").write_text("keep me too")
    (tmp_path / "readonly.json").chmod(0o444)
    (tmp_path / "file-link").symlink_to(tmp_path / "file.txt")  # a link to a regular file
    (tmp_path / "passwd-link").symlink_to(tmp_path / "readonly.json")
    for name, events in HOSTILE_TRACES.items():
        (tmp_path / name).write_text(json.dumps({"traceEvents": events}))
    member = gzip.compress(b"\0" * (1 << 20), compresslevel=9)  # 3 MB of gzip, 3 GB of zeros
    (tmp_path / "bomb.json.gz").write_bytes(member * ((3 << 20) // len(member)))
    body = gzip.compress(b"{}," * (1 << 20), compresslevel=9)  # 100 KB of gzip, 34 million empty events
    (tmp_path / "events.json.gz").write_bytes(gzip.compress(b'{"traceEvents": [') + body * ((100 << 10) // len(body))
                                              + gzip.compress(b"{}]}"))  # fmt: skip
    yield tmp_path
    sock.close()


#: Traces whose events are not what a trace holds.
OP = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "dur": 1}
HOSTILE_TRACES = {
    "scalars.json": [1, 2, "x", None],
    "text-ts.json": [{**OP, "ts": "abc"}],
    "list-dur.json": [{**OP, "ts": 1, "dur": [1]}],
    "null-ts.json": [{**OP, "ts": None}, {**OP, "ts": True}],
}
E = "attnprof: argument"
#: (id, arguments (``{t}`` is the case's folder), words the one line must contain)
REFUSALS: list[tuple[str, list[str], list[str]]] = [
    # empty values: one rule for every option of every command
    ("empty variant", ["profile", "", *TINY], [f"{E} variant: empty value ''"]),
    ("empty dtype", ["profile", "naive", "--device", "cpu", "--dtype", ""], [f"{E} --dtype: empty value", "bf16"]),
    ("blank dtype", ["compare", "naive", "--device", "cpu", "--dtype", " "], [f"{E} --dtype: empty value ' '"]),
    ("empty shape", ["profile", "naive", "--device", "cpu", "--shape", ""], [f"{E} --shape: empty value"]),
    ("empty device", ["profile", "naive", "--device", ""], [f"{E} --device: empty value", "cuda or cpu"]),
    ("empty trace", ["profile", "naive", *TINY, "--trace", ""], [f"{E} --trace: empty value"]),
    ("empty compare variant", ["compare", "", "--device", "cpu"], [f"{E} variants: empty value"]),
    ("empty list device", ["list", "--device", ""], [f"{E} --device: empty value"]),
    ("empty seqs", ["sweep", "--device", "cpu", "--seqs", ""], [f"{E} --seqs: empty value", "512,1024"]),
    ("empty variants", ["sweep", "--device", "cpu", "--variants", ""], [f"{E} --variants: empty value"]),
    ("empty head dims", ["sweep", "--device", "cpu", "--head-dims", ""], [f"{E} --head-dims: empty value"]),
    ("empty batch", ["sweep", "--device", "cpu", "--batch", ""], [f"{E} --batch: empty value"]),
    ("empty heads", ["sweep", "--device", "cpu", "--heads", ""], [f"{E} --heads: empty value"]),
    ("empty budget", ["sweep", "--device", "cpu", "--budget-s", ""], [f"{E} --budget-s: empty value"]),
    ("empty compiled seqs", ["sweep", "--device", "cpu", "--compiled-seqs", ""], [f"{E} --compiled-seqs: empty"]),
    ("empty out", ["sweep", "--device", "cpu", "--out", ""], [f"{E} --out: empty value"]),
    ("empty sweep dtype", ["sweep", "--device", "cpu", "--dtype", ""], [f"{E} --dtype: empty value"]),
    ("empty item", ["sweep", "--device", "cpu", "--seqs", "512,,1024"], ["empty item in --seqs '512,,1024'"]),
    ("trailing comma", ["sweep", "--device", "cpu", "--variants", "naive,"], ["empty item in --variants 'naive,'"]),
    # odd values
    ("three dims", ["profile", "naive", "--device", "cpu", "--shape", "8,16,1024"], ["'8,16,1024'", "B,H,S,D"]),
    ("negative dim", ["profile", "naive", "--device", "cpu", "--shape", "1,-1,8,8"], ["'1,-1,8,8'"]),
    ("float dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,1e3,8"], ["'1,1,1e3,8'"]),
    ("nan budget", ["sweep", "--device", "cpu", "--budget-s", "nan"], ["bad time budget 'nan'"]),
    ("infinite budget", ["sweep", "--device", "cpu", "--budget-s", "inf"], ["bad time budget 'inf'"]),
    ("negative budget", ["sweep", "--device", "cpu", "--budget-s", "-5"], ["bad time budget '-5'"]),
    ("zero batch", ["sweep", "--device", "cpu", "--batch", "0"], ["bad batch size '0'"]),
    ("fractional heads", ["sweep", "--device", "cpu", "--heads", "2.5"], ["bad number of heads '2.5'"]),
    ("int dtype", ["profile", "naive", "--device", "cpu", "--dtype", "int8"], ["unknown dtype 'int8'"]),
    ("typo variant", ["profile", "flsh", "--device", "cpu"], ["unknown variant 'flsh'", "sdpa_flash"]),
    ("unknown device", ["profile", "naive", "--device", "tpu"], ["unknown device 'tpu'", "cuda, cpu"]),
    ("option as value", ["profile", "naive", "--dtype", "--help"], ["--dtype: expected one argument"]),
    # output paths that are not files, refused before any work and without being opened
    ("real /dev/null", ["sweep", "--device", "cpu", "--out", "/dev/null"], ["'/dev/null' is a character device"]),
    ("real /dev/zero", ["profile", "naive", *TINY, "--trace", "/dev/zero"], ["'/dev/zero' is a character device"]),
    ("link to /dev/null", ["sweep", "--device", "cpu", "--out", "{t}/null-link"], ["is a character device", REFUSED]),
    ("link to /dev/zero", ["profile", "naive", *TINY, "--trace", "{t}/zero-link"], ["is a character device"]),
    ("fifo", ["sweep", "--device", "cpu", "--out", "{t}/fifo"], ["is a FIFO (named pipe)", REFUSED]),
    ("fifo trace", ["profile", "naive", *TINY, "--trace", "{t}/fifo"], ["is a FIFO (named pipe)"]),
    ("socket", ["sweep", "--device", "cpu", "--out", "{t}/sock"], ["is a socket"]),
    ("directory", ["sweep", "--device", "cpu", "--out", "{t}/dir"], ["is a directory"]),
    ("directory slash", ["profile", "naive", *TINY, "--trace", "{t}/dir/"], ["is a directory"]),
    ("link to directory", ["sweep", "--device", "cpu", "--out", "{t}/dir-link"], ["is a directory"]),
    ("under a file", ["sweep", "--device", "cpu", "--out", "{t}/file.txt/s.json"], ["which is not a folder"]),
    ("missing folder", ["profile", "naive", *TINY, "--trace", "{t}/missing/t.json"], ["does not exist"]),
    ("dangling link", ["sweep", "--device", "cpu", "--out", "{t}/dangling"], ["does not exist"]),
    ("read-only folder", ["sweep", "--device", "cpu", "--out", "/proc/self/attnprof.json"], ["cannot create"]),
    ("name too long", ["profile", "naive", *TINY, "--trace", "{t}/" + "x" * 300], ["File name too long"]),
    # files it should not touch: a read-only file, a link's target (--force does both), standard output where two
    # outputs ask for it
    (
        "read-only out",
        ["sweep", "--device", "cpu", "--out", "{t}/readonly.json"],
        ["is read-only (mode 0444)", "--force"],
    ),
    ("read-only trace", ["profile", "naive", *TINY, "--trace", "{t}/readonly.json"], ["is read-only", "--force"]),
    ("read-only json", ["explain", "{t}/text-ts.json", "--json", "{t}/readonly.json"], ["is read-only"]),
    ("read-only html, relative", ["explain", "text-ts.json", "--html", "readonly.json"], ["'readonly.json' is read"]),
    ("link out", ["sweep", "--device", "cpu", "--out", "{t}/file-link"], ["is a symbolic link to", "--force"]),
    ("link trace", ["profile", "naive", *TINY, "--trace", "{t}/file-link"], ["is a symbolic link to"]),
    ("link to a read-only file", ["sweep", "--device", "cpu", "--out", "{t}/passwd-link"], ["is read-only"]),
    ("link html", ["explain", "{t}/text-ts.json", "--html", "{t}/file-link"], ["is a symbolic link to"]),
    ("link json, dry run", ["profile", "naive", *TINY, "--trace", "file-link", "--dry-run"], ["symbolic link"]),
    ("stdout twice", ["profile", "naive", *TINY, "--trace", "-", "--json"], ["--trace - and --json both ask"]),
    # cost before work: refused before allocating anything
    (
        "too much memory",
        ["profile", "naive", "--device", "cpu", "--shape", "8,16,65536,64"],
        ["needs about", "--force"],
    ),
    ("huge dims", ["compare", "--device", "cpu", "--shape", "1,1,99999999999999999999,1"], ["needs about"]),
    ("too long on cpu", ["profile", "sdpa_flash", *SLOW], ["would take about", "(estimated), more than the 1 h"]),
    ("too much memory, why", ["why", *SLOW], ["needs about", "--no-call"]),
    # one rule for numbers: plain ASCII integers only, whatever Python's int() also takes
    ("underscore dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,2_56,8"], ["bad shape '1,1,2_56,8'"]),
    ("plus sign dim", ["compare", "naive", "--device", "cpu", "--shape", "1,+1,8,8"], ["bad shape '1,+1,8,8'"]),
    ("arabic digit dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,٣,8"], ["bad shape '1,1,٣,8'"]),
    ("spaced digits dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,2 56,8"], ["bad shape"]),
    ("underscore seqs", ["sweep", "--device", "cpu", "--seqs", "2_56"], ["bad sequence length '2_56'"]),
    ("underscore batch", ["sweep", "--device", "cpu", "--batch", "1_0"], ["bad batch size '1_0'"]),
    ("underscore budget", ["sweep", "--device", "cpu", "--budget-s", "4_5"], ["bad time budget '4_5'"]),
    (
        "underscore kv-len",
        ["profile", "sdpa_auto", "--workload", "decode", "--device", "cpu", "--kv-len", "4_096"],
        ["bad kv_len '4_096'"],
    ),
    (
        "underscore lengths",
        ["compare", "--workload", "train", "--device", "cpu", "--lengths", "1_024"],
        ["bad length '1_024'"],
    ),
    ("underscore dropout", ["why", "--device", "cpu", "--dropout", "0.1_0"], ["bad dropout '0.1_0'"]),
    ("underscore gpu id", ["explain", "{t}/old.trace.json.gz", "--gpu", "0_0"], ["bad --gpu '0_0'"]),
    ("underscore max-mb", ["explain", "{t}/old.trace.json.gz", "--max-mb", "1_0"], ["bad --max-mb '1_0'"]),
    ("hex dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,0x10,8"], ["bad shape '1,1,0x10,8'"]),
    ("fullwidth digit dim", ["profile", "naive", "--device", "cpu", "--shape", "1,1,１６,8"], ["bad shape"]),
    ("underscore heads", ["sweep", "--device", "cpu", "--heads", "1_6"], ["bad number of heads '1_6'"]),
    ("underscore head dims", ["sweep", "--device", "cpu", "--head-dims", "6_4"], ["bad head_dim '6_4'"]),
    ("underscore compiled seqs", ["sweep", "--device", "cpu", "--compiled-seqs", "1_0"], ["'1_0'"]),
    ("exponent seqs", ["sweep", "--device", "cpu", "--seqs", "1e3"], ["bad sequence length '1e3'"]),
    # a long bad value is echoed shortened, not whole
    ("10k-char layout", ["why", "--device", "cpu", "--layout", "l" * 10_000], ["unknown --layout 'lll"]),
    ("10k-char lang", ["explain", "t.json", "--lang", "j" * 10_000], ["unknown --lang 'jjj"]),
    (
        "10k-char kv-heads",
        ["profile", "sdpa_auto", "--workload", "decode", "--kv-heads", "k" * 10_000],
        ["bad kv_heads 'kkk"],
    ),
    ("unknown option, top level", ["--frob"], ["usage: attnprof [-h] [--version]"]),
    ("10k-char variant", ["profile", "v" * 10_000, "--device", "cpu"], ["unknown variant '" + "v" * 59 + "…'"]),
    (
        "10k-char dtype",
        ["compare", "--device", "cpu", "--dtype", "d" * 10_000],
        ["unknown dtype '" + "d" * 59 + "…'"],
    ),
    ("10k-char device", ["list", "--device", "c" * 10_000], ["unknown device '" + "c" * 59 + "…'"]),
    ("10k-char shape", ["profile", "naive", "--device", "cpu", "--shape", "1," * 5_000], ["bad shape '1,1,1,"]),
    ("10k-char workload", ["compare", "--device", "cpu", "--workload", "w" * 10_000], ["unknown workload 'www"]),
    ("10k-char mask", ["why", "--device", "cpu", "--mask", "m" * 10_000], ["unknown --mask 'mmm"]),
    ("10k-char seqs", ["sweep", "--device", "cpu", "--seqs", "9" * 10_000 + "x"], ["bad sequence length '999"]),
    ("10k-char command", ["c" * 10_000], ["invalid choice: 'ccc", "usage: attnprof [-h]"]),
    ("10k-char unknown option", ["sweep", "--" + "o" * 10_000], ["unrecognized arguments: --ooo"]),
    (
        "10k spaced words",
        ["profile", "naive", "--device", "cpu", "--dtype", "word " * 2_000],
        ["unknown dtype 'word"],
    ),
    # an unknown option is answered with its command's usage
    ("unknown option, profile", ["profile", "naive", "--bogus"], ["arguments: --bogus; usage: attnprof profile"]),
    ("unknown option, compare", ["compare", "--frob"], ["arguments: --frob; usage: attnprof compare"]),
    ("unknown option, sweep", ["sweep", "--frob", "8"], ["arguments: --frob 8; usage: attnprof sweep"]),
    ("unknown option, why", ["why", "--masks", "bool"], ["arguments: --masks bool; usage: attnprof why"]),
    ("unknown option, list", ["list", "--all"], ["arguments: --all; usage: attnprof list"]),
    ("unknown option, explain", ["explain", "t.json", "--xml", "x"], ["--xml x; usage: attnprof explain"]),
    # in any case, but still checked
    ("upper-case typo", ["profile", "NAIVEE", "--device", "CPU"], ["unknown variant 'NAIVEE'"]),
    ("upper-case bad device", ["profile", "NAIVE", "--device", "TPU"], ["unknown device 'TPU'"]),
    # decoding values checked before torch is imported (--device left out: finding it imports torch)
    (
        "decode kv-heads typo",
        ["profile", "sdpa_auto", "--workload", "decode", "--kv-heads", "x"],
        ["bad kv_heads 'x'"],
    ),
    ("decode kv-len typo", ["compare", "--workload", "decode", "--kv-len", "4k"], ["bad kv_len '4k'"]),
    ("decode shape typo", ["profile", "naive", "--workload", "decode", "--shape", "1,8,1,6_4"], ["bad shape"]),
    ("decode dtype typo", ["compare", "--workload", "decode", "--dtype", "bf61"], ["unknown dtype 'bf61'"]),
]


#: Files ``explain`` reads: bombs refused by their bounds, events of the wrong kind named (after its one progress
#: line, "reading FILE").
READ_REFUSALS: list[tuple[str, list[str], list[str]]] = [
    ("gzip bomb", ["explain", "{t}/bomb.json.gz"], ["more than the 536870912 bytes", "--max-mb"]),
    ("gzip bomb, small limit", ["explain", "bomb.json.gz", "--max-mb", "8"], ["more than the 8388608 bytes"]),
    ("event bomb", ["explain", "{t}/events.json.gz"], ["more than 8000000 JSON objects", "ATTNPROF_MAX_OBJECTS"]),
    ("events not objects", ["explain", "{t}/scalars.json"], ["event 1 is int '1', not an object"]),
    ("text ts", ["explain", "{t}/text-ts.json"], ["'ts' is 'abc', not a number"]),
    ("list dur", ["explain", "{t}/list-dur.json"], ["'dur' is '[1]', not a number"]),
    ("null ts", ["explain", "{t}/null-ts.json"], ["'ts' is 'None', not a number"]),
    ("truncated gzip trace", ["explain", "{t}/old.trace.json.gz"], ["truncated gzip"]),
    ("not json", ["explain", "{t}/file.txt"], ["not valid JSON"]),
]


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in READ_REFUSALS], ids=[c[0] for c in READ_REFUSALS])
def test_a_trace_that_is_a_bomb_or_holds_bad_events_is_refused_in_one_line_touching_nothing(arena, argv, words):
    before = snapshot(arena)
    t0 = time.perf_counter()
    run = run_cli(*[a.replace("{t}", str(arena)) for a in argv], cwd=arena)
    assert run.returncode == 2 and run.stdout == "", run.stderr
    progress, line = run.stderr.splitlines()
    assert progress == f"reading {fmt.shown(argv[1].replace('{t}', str(arena)))}" and line.startswith("attnprof: ")
    for word in words:
        assert word in line
    assert snapshot(arena) == before
    assert time.perf_counter() - t0 < 30


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_bad_or_hostile_input_is_one_line_exit_2_and_touches_nothing(arena, argv, words):
    before, devices = snapshot(arena), _devices()
    t0 = time.perf_counter()
    run = run_cli(*[a.replace("{t}", str(arena)) for a in argv], cwd=arena)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("attnprof: "), run.stderr
    for word in words:
        assert word.replace("{t}", str(arena)) in run.stderr
    assert len(run.stderr) < 1000  # a long value is echoed shortened
    assert snapshot(arena) == before and _devices() == devices
    assert time.perf_counter() - t0 < 30  # refused up front, not after work (generous: CI machines are shared)


def test_the_table_covers_every_class_of_hostile_input():
    assert len(REFUSALS) >= 90 and len(STREAMS) >= 12 and len(STOPS) >= 4 and len(ACCEPTED) >= 10
    ids = " ".join(c[0] for c in [*REFUSALS, *STREAMS, *STOPS, *ACCEPTED])
    for word in ("empty", "fifo", "socket", "/dev/null", "directory", "under a file", "read-only", "memory", "long",
                 "underscore", "10k", "unknown option", "upper-case", "decode", "full", "closed", "broken pipe",
                 "SIGTERM", "SIGHUP", "any case", "dry run", "link out", "read-only out", "stdout"):  # fmt: skip
        assert word in ids
    read = " ".join(c[0] for c in READ_REFUSALS)
    for word in ("gzip bomb", "event bomb", "events not objects", "text ts", "truncated"):
        assert word in read


def test_decoding_typos_are_refused_without_importing_torch():
    probe = (
        "import sys, io; from attnprof import cli; err = io.StringIO(); "
        "code = cli.main(['profile', 'sdpa_auto', '--workload', 'decode', '--kv-heads', 'x'], out=io.StringIO(), "
        "err=err); print(code, 'torch' in sys.modules, err.getvalue().strip())"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "2 False attnprof: bad kv_heads 'x'; expected a positive integer such as 8"


# --- accepted in any case, and what a dry run shows -----------------------------------------------------------------

#: (id, arguments, what standard output starts with, whether the plan says the run would be refused): each exits 0,
#: writes only to standard output, touches nothing.
ACCEPTED: list[tuple[str, list[str], str, bool]] = [
    ("any case variant", ["profile", "NAIVE", *TINY, "--dry-run"], "dry run; would run profile: naive at", False),
    ("any case device", ["profile", "naive", "--device", "CPU", "--shape", "1,1,8,8", "--dry-run"],
     "dry run; would run profile: naive at [1, 1, 8, 8] bfloat16 on cpu", False),
    ("any case dtype", ["compare", "naive", "--device", "cpu", "--dtype", "FP16", "--dry-run"],
     "dry run; would run compare: naive at [1, 4, 256, 64] float16 on cpu", False),
    ("any case workload", ["compare", "Naive", "--workload", "DECODE", "--device", "Cpu", "--dry-run"],
     "dry run; would run compare: naive at [1, 8, 1, 64] bfloat16 on cpu, KV cache [1, 2, ", False),
    ("any case mask and layout", ["why", "--device", "cpu", "--mask", "BOOL", "--layout", "Contiguous", "--dry-run"],
     "dry run; would ask the checks and one call of each backend, timed: [1, 4, 256, 64] bfloat16, boolean mask",
     False),
    ("any case sweep", ["sweep", "--device", "CPU", "--variants", "NAIVE", "--dtype", "FP32", "--dry-run"],
     "dry run; would run sweep: 1 variant,", False),
    ("any case command", ["PROFILE", "naive", *TINY, "--dry-run"], "dry run; would run profile: naive at", False),
    ("any case shape separator", ["profile", "naive", "--device", "cpu", "--shape", "1X1X8X8", "--dry-run"],
     "dry run; would run profile: naive at [1, 1, 8, 8]", False),
    ("dry run of a refused run", ["compare", "sdpa_flash", "--dry-run", *SLOW],
     "dry run; would run compare: sdpa_flash at [1, 1, 4194304, 8]", True),
    ("dry run of a refused why", ["why", "--dry-run", *SLOW], "dry run; would ask the checks and one call", True),
    ("dry run of the readme's shape", ["compare", "--shape", "8,16,4096,64", "--device", "cpu", "--dry-run"],
     "dry run; would run compare: 9 variants at [8, 16, 4096, 64] bfloat16 on cpu", True),
    ("decode lengths keep the workload's KV heads",
     ["compare", "--workload", "decode", "--device", "cpu", "--lengths", "1024", "16384", "--dry-run"],
     "dry run; would run compare: 7 variants at [1, 8, 1, 64] bfloat16 on cpu, KV cache [1, 2, 1024, 64]; ", False),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "start", "refused"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_names_in_any_case_and_dry_runs_are_accepted_and_touch_nothing(arena, argv, start, refused):
    before = snapshot(arena)
    run = run_cli(*argv, cwd=arena)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.startswith(start), run.stdout
    last = run.stdout.splitlines()[-1]
    assert last.startswith("would be refused: ") == refused
    assert ("--force" in last) == refused
    assert snapshot(arena) == before


def test_writes_only_the_file_asked_for_even_over_a_truncated_gzip_or_through_a_link_with_force(arena):
    (arena / "target.json").write_text("old")
    (arena / "trace-link").symlink_to(arena / "target.json")
    before = snapshot(arena)
    run = run_cli("profile", "naive", *TINY, "--trace", "old.trace.json.gz", cwd=arena)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "Chrome trace written to old.trace.json.gz" in run.stderr
    after = snapshot(arena)
    assert {k for k in after if after[k] != before.get(k)} == {"old.trace.json.gz"}
    assert b"naive_fwd" in gzip.decompress((arena / "old.trace.json.gz").read_bytes())  # whole again
    run = run_cli("profile", "naive", *TINY, "--trace", "trace-link", "--json", "--force", cwd=arena)
    assert run.returncode == 0, run.stderr
    final = snapshot(arena)
    assert {k for k in final if final[k] != after.get(k)} == {"target.json"}
    assert final["trace-link"] == ("link", str(arena / "target.json")) and b"naive_fwd" in final["target.json"][1]


def test_a_sweep_writes_its_file_and_a_dry_run_writes_nothing(arena):
    before = snapshot(arena)
    run = run_cli("sweep", "--dry-run", "--out", "file.txt", *HUGE_SWEEP, cwd=arena)
    assert run.returncode == 0 and run.stdout.startswith("dry run; would run sweep: 1 variant,") and run.stderr == ""
    assert snapshot(arena) == before
    run = run_cli("sweep", "--out", "s.json", *HUGE_SWEEP, cwd=arena)
    assert run.returncode == 0, run.stderr
    after = snapshot(arena)
    assert {k for k in after if after[k] != before.get(k)} == {"s.json"}
    (point,) = sweep.load(arena / "s.json").points
    assert point.status == "oom" and point.reason.startswith("not run: needs about")


def _interrupt_after_progress(
    arena: Path, argv: list[str], wait_for: str, sig: int = signal.SIGINT, tmp: Path | None = None
) -> tuple[subprocess.Popen, str, float]:
    """Start ``attnprof argv`` (temporary files in ``tmp`` when given), wait for a progress line containing
    ``wait_for``, send ``sig``; (process, the standard error so far, seconds until the first line)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), **({"TMPDIR": str(tmp)} if tmp else {})}
    proc = subprocess.Popen([sys.executable, "-m", "attnprof", *argv], cwd=arena, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    t0 = time.perf_counter()
    seen, first = "", None
    try:
        while wait_for not in seen:
            line = proc.stderr.readline()
            assert line, f"the command ended before showing progress: {seen}"
            first = first if first is not None else time.perf_counter() - t0
            seen += line
        time.sleep(2.5)  # inside the run
        proc.send_signal(sig)
        _, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc, seen + rest, first


@pytest.mark.slow
def test_compare_at_readmes_shape_shows_progress_at_once_and_ctrl_c_stops_it(arena):
    before = snapshot(arena)
    proc, err, first = _interrupt_after_progress(
        arena, ["compare", "--shape", "8,16,1024,64", "--device", "cpu"], "[1/9] naive"
    )
    lines = err.splitlines()  # Kineto's own chatter (USDT:, STAGE:) is filtered out
    assert first < 5.0  # the plan comes before torch is even imported
    assert lines[0].startswith("compare: 9 variants at [8, 16, 1024, 64] bfloat16 on cpu: about ")
    assert lines[1].startswith("[1/9] naive: about ")
    assert proc.returncode == 130
    assert lines[-1] == "attnprof: interrupted (Ctrl-C)" and len(lines) == 3  # no traceback, no next variant
    assert snapshot(arena) == before


def test_ctrl_c_during_a_sweep_leaves_no_file_and_no_temporary_file(arena):
    before = snapshot(arena)
    argv = ["sweep", "--device", "cpu", "--variants", "naive", "--seqs", "1024", "2048", "--batch", "8", "--heads",
            "16", "--out", "s.json"]  # fmt: skip
    proc, err, _ = _interrupt_after_progress(arena, argv, "sweep: 1 variant,")
    assert proc.returncode == 130, err
    assert err.rstrip().endswith("attnprof: interrupted (Ctrl-C)") and "Traceback" not in err
    assert snapshot(arena) == before


# --- standard output that fails, and signals that stop a run --------------------------------------------------------

#: (id, arguments, what standard output is, exit status, the one line on standard error ("" for none))
FULL = "attnprof: cannot write to standard output: No space left on device"
CLOSED = "attnprof: cannot write to standard output: it is closed"
STREAMS: list[tuple[str, list[str], str, int, str]] = [
    ("full device, list", ["list", "--device", "cpu", "--no-compile"], "full", 1, FULL),
    ("full device, profile json", ["profile", "naive", *TINY, "--json"], "full", 1, FULL),
    ("full device, compare dry run", ["compare", "--device", "cpu", "--dry-run"], "full", 1, FULL),
    ("full device, sweep dry run", ["sweep", *HUGE_SWEEP, "--dry-run"], "full", 1, FULL),
    ("full device, why dry run", ["why", "--device", "cpu", "--dry-run"], "full", 1, FULL),
    ("full device, help", ["profile", "--help"], "full", 1, FULL),
    ("closed stdout, list", ["list", "--device", "cpu", "--no-compile"], "closed", 1, CLOSED),
    ("closed stdout, profile", ["profile", "naive", *TINY], "closed", 1, CLOSED),
    ("closed stdout, help", ["--help"], "closed", 1, CLOSED),
    ("broken pipe, list", ["list", "--device", "cpu", "--no-compile"], "pipe", 141, ""),
    ("broken pipe, profile", ["profile", "naive", *TINY], "pipe", 141, ""),
    ("broken pipe, compare dry run", ["compare", "--device", "cpu", "--dry-run"], "pipe", 141, ""),
    ("broken pipe, help", ["sweep", "--help"], "pipe", 141, ""),
    ("full stderr, profile", ["profile", "naive", *TINY, "--trace", "t.json"], "stderr full", 0, ""),
]


def _run_with_stdout(argv: list[str], how: str, cwd: Path) -> tuple[int, str]:
    """Run ``attnprof argv`` with its standard output full (``/dev/full``), closed, or a pipe whose reader has gone;
    or with its standard error full. Returns the exit status and standard error."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-m", "attnprof", *argv]
    if how == "stderr full":
        with open("/dev/full", "w") as full:
            run = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=full, timeout=120)
        return run.returncode, ""
    if how == "pipe":
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()  # the reader goes away before anything is written
        _, err = proc.communicate(timeout=120)
        return proc.returncode, err.decode()
    if how == "closed":
        run = subprocess.run(cmd, cwd=cwd, env=env, capture_output=False, stderr=subprocess.PIPE, timeout=120,
                             preexec_fn=lambda: os.close(1))  # fmt: skip
        return run.returncode, run.stderr.decode()
    with open("/dev/full", "w") as full:
        run = subprocess.run(cmd, cwd=cwd, env=env, stdout=full, stderr=subprocess.PIPE, timeout=120)
    return run.returncode, run.stderr.decode()


@pytest.mark.parametrize(("argv", "how", "code", "line"), [c[1:] for c in STREAMS], ids=[c[0] for c in STREAMS])
def test_standard_output_that_fails_ends_in_one_line_or_silently_for_a_broken_pipe(arena, argv, how, code, line):
    before = snapshot(arena)
    status, err = _run_with_stdout(argv, how, arena)
    assert status == code, err
    assert err == (line + "\n" if line else ""), err  # never a traceback, nor Python's "Exception ignored"
    after = snapshot(arena)
    assert {k for k in after if after[k] != before.get(k)} == ({"t.json"} if "--trace" in argv else set())


#: (id, signal, arguments, the progress line to wait for): the run is stopped inside its work.
SLOW_PROFILE = ["--device", "cpu", "--shape", "1,8,2048,64", "--dtype", "fp32"]
STOPS: list[tuple[str, int, list[str], str]] = [
    ("SIGTERM during profile --trace", signal.SIGTERM, ["profile", "naive", *SLOW_PROFILE, "--trace", "t.json.gz"],
     "[1/1] naive"),
    ("SIGHUP during profile --trace", signal.SIGHUP, ["profile", "naive", *SLOW_PROFILE, "--trace", "t.json"],
     "[1/1] naive"),
    ("SIGTERM during a sweep", signal.SIGTERM, ["sweep", "--device", "cpu", "--variants", "naive", "--seqs", "1024",
     "2048", "--batch", "8", "--heads", "16", "--out", "s.json"], "sweep: 1 variant,"),
    ("SIGHUP during compare", signal.SIGHUP, ["compare", "naive", "sdpa_math", *SLOW_PROFILE], "[1/2] naive"),
]  # fmt: skip
STOPPED = {signal.SIGTERM: "attnprof: terminated (SIGTERM)", signal.SIGHUP: "attnprof: hung up (SIGHUP)"}


@pytest.mark.parametrize(("sig", "argv", "wait_for"), [c[1:] for c in STOPS], ids=[c[0] for c in STOPS])
def test_sigterm_and_sighup_stop_like_ctrl_c_leaving_no_file_and_no_temporary_folder(arena, sig, argv, wait_for):
    tmp = arena / "tmp"
    tmp.mkdir()
    before = snapshot(arena)
    proc, err, _ = _interrupt_after_progress(arena, argv, wait_for, sig=sig, tmp=tmp)
    assert proc.returncode == 128 + sig, err
    assert err.rstrip().splitlines()[-1] == STOPPED[sig] and "Traceback" not in err
    cache = "tmp/torchinductor_"  # torch's compile cache, kept on purpose between runs (a sweep imports dynamo)
    assert {k: v for k, v in snapshot(arena).items() if not k.startswith(cache)} == before  # no file left


@pytest.mark.slow
def test_the_profilers_own_lines_stay_out_of_standard_error(arena):
    run = attnprof_cli("compare", "naive", "sdpa_math", *TINY, cwd=arena)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("compare: 2 variants at [1, 1, 16, 8] float32 on cpu")
    assert not [line for line in run.stderr.splitlines() if line.startswith(("USDT:", "STAGE:"))], run.stderr
    assert "CPU ms" in run.stdout.splitlines()[2] and "GPU ms" not in run.stdout


# --- random strings for every option --------------------------------------------------------------------------------

#: Values worth trying besides random text: valid ones, edges, and spellings that look valid.
EDGES = ["", " ", "cpu", "cuda", "naive", "sdpa_flash", "fp32", "bf16", "1,1,8,8", "1x1x8x8", "0", "-1", "8", "1e3",
         "nan", "inf", "512,1024", "1,,2", "٣", "--help", "-h", "/dev/null", "\0", "x" * 300]  # fmt: skip
RANDOM = st.one_of(st.text(max_size=24), st.sampled_from(EDGES))

#: command -> (arguments that make a quick run or a quick refusal, option or positional -> where the value goes)
COMMANDS = {
    "profile": (["sdpa_flash", *SLOW], ["VARIANT", "--shape", "--dtype", "--device", "--trace"]),
    "compare": (["sdpa_flash", *SLOW], ["VARIANT", "--shape", "--dtype", "--device"]),
    "sweep": (
        HUGE_SWEEP,
        "--variants --seqs --head-dims --batch --heads --dtype --device --compiled-seqs --budget-s --out".split(),
    ),
    "list": (["--device", "cuda", "--no-compile"], ["--device"]),
    "why": (SLOW, "--shape --dtype --device --mask --kv-heads --dropout --layout".split()),
}
CASES = [(command, option) for command, (_, options) in COMMANDS.items() for option in options]


def _argv(command: str, option: str, value: str, folder: Path, dry_run: bool) -> list[str]:
    base, _ = COMMANDS[command]
    if option in ("--trace", "--out"):
        assume(not value.startswith("/") and ".." not in value)  # stay inside the test's folder
        value = str(folder / value)
    if option == "VARIANT":
        args = [command, value, *base[1:]]
    else:
        args = [command, *base, option, value]  # a repeated option: the last one counts
    return [*args, "--dry-run"] if dry_run and command != "list" else args


@pytest.mark.parametrize(("command", "option"), CASES, ids=[f"{c} {o}" for c, o in CASES])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=RANDOM, dry_run=st.booleans())
def test_random_strings_for_any_option_exit_0_or_2_and_never_a_traceback(tmp_path, command, option, value, dry_run):
    folder = tmp_path / "out"
    folder.mkdir(exist_ok=True)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(_argv(command, option, value, folder, dry_run), out=out, err=err)
    assert code in (0, 2), err.getvalue()
    assert "Traceback" not in err.getvalue() + out.getvalue()
    if code == 2:
        assert out.getvalue() == "" and err.getvalue().count("\n") == 1 and err.getvalue().startswith("attnprof: ")


# --- output files: --force, gzip by name, standard output, a folder that vanishes before the end ------------------


def test_force_replaces_a_read_only_file_keeping_its_mode_and_writes_through_a_link(arena):
    before = snapshot(arena)
    run = run_cli("profile", "naive", *TINY, "--trace", "readonly.json", "--force", cwd=arena)
    assert run.returncode == 0, run.stderr
    after = snapshot(arena)
    assert {k for k in after if after[k] != before[k]} == {"readonly.json"}
    assert stat.S_IMODE(os.stat(arena / "readonly.json").st_mode) == 0o444
    assert json.loads((arena / "readonly.json").read_text())["traceEvents"]  # plain JSON: the name has no .gz
    run = run_cli("profile", "naive", *TINY, "--trace", "file-link", "--force", cwd=arena)
    assert run.returncode == 0, run.stderr
    final = snapshot(arena)
    assert {k for k in final if final[k] != after[k]} == {"file.txt"} and final["file-link"] == after["file-link"]


def test_a_sweep_named_json_gz_is_gzip_that_the_reader_reads_and_dash_is_standard_output(arena):
    before = snapshot(arena)
    run = run_cli("sweep", "--out", "s.json.gz", *HUGE_SWEEP, cwd=arena)
    assert run.returncode == 0, run.stderr
    assert (arena / "s.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    (point,) = sweep.load(arena / "s.json.gz").points
    assert point.status == "oom"
    (arena / "s.json.gz").unlink()
    run = run_cli("sweep", "--out", "-", *HUGE_SWEEP, cwd=arena)
    assert run.returncode == 0 and "sweep written" not in run.stderr, run.stderr
    assert json.loads(run.stdout)["kind"] == "sweep"  # the JSON alone, no tables
    run = run_cli("profile", "naive", *TINY, "--trace", "-", cwd=arena)
    assert run.returncode == 0, run.stderr
    assert any(e.get("name") == "naive_fwd" for e in json.loads(run.stdout)["traceEvents"])
    assert snapshot(arena) == before  # no file named "-"


def _vanishing(monkeypatch, module, name: str, folder: Path) -> None:
    """Make ``module.name`` remove ``folder`` once it has done its work: the output's folder is gone at the end."""
    real = getattr(module, name)

    def run_then_remove(*args, **kwargs):
        done = real(*args, **kwargs)
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        return done

    monkeypatch.setattr(module, name, run_then_remove)


#: A tiny profile of each workload.
DECODE = ["--device", "cpu", "--dtype", "fp32", "--workload", "decode", "--shape", "1,2,1,8", "--kv-heads", "1"]
WORKLOAD_RUNS = {
    "prefill": ["profile", "naive", *TINY],
    "train": ["profile", "naive", *TINY, "--workload", "train"],
    "decode": ["profile", "naive", *DECODE, "--kv-len", "16"],
}


@pytest.mark.parametrize("workload", list(WORKLOAD_RUNS))
def test_a_trace_whose_folder_vanished_during_the_run_is_one_line_and_the_tables_are_kept(tmp_path, monkeypatch,
                                                                                          workload):  # fmt: skip
    from attnprof.measure import profiling

    folder = tmp_path / "gone"
    folder.mkdir()
    _vanishing(monkeypatch, profiling, "profile", folder)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main([*WORKLOAD_RUNS[workload], "--trace", str(folder / "t.json.gz")], out=out, err=err)
    assert code == 1 and "Traceback" not in err.getvalue()
    last = err.getvalue().splitlines()[-1]
    # a long temporary folder is shortened in the middle, as every message shortens a path
    shown = fmt.quoted_path(folder / "t.json.gz")
    assert last.startswith(f"attnprof: cannot write {shown}: the folder of output file")
    assert "does not exist" in last and not folder.exists()
    assert "naive" in out.getvalue()  # the kernel table and summary were shown before the write


def test_a_sweep_whose_folder_vanished_is_one_line_after_its_tables(tmp_path, monkeypatch):
    from attnprof.measure import sweeprun

    folder = tmp_path / "gone"
    folder.mkdir()
    _vanishing(monkeypatch, sweeprun, "run_sweep", folder)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["sweep", *HUGE_SWEEP, "--out", str(folder / "s.json")], out=out, err=err)
    assert code == 1 and "Traceback" not in err.getvalue()
    assert err.getvalue().splitlines()[-1].startswith(f"attnprof: cannot write {fmt.quoted_path(folder / 's.json')}")
    assert "naive" in out.getvalue()  # what was measured is still shown


def test_an_explain_page_whose_folder_vanished_is_one_line(tmp_path, monkeypatch):
    from attnprof.records import foreign

    folder = tmp_path / "gone"
    folder.mkdir()
    _vanishing(monkeypatch, foreign, "load", folder)
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"traceEvents": [{**OP, "ts": 1}]}))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["explain", str(trace), "--no-why", "--json", str(folder / "r.json")], out=out, err=err)
    assert code == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    assert err.getvalue().splitlines()[-1].startswith(f"attnprof: cannot write {fmt.quoted_path(folder / 'r.json')}")


# --- a reader that never destroys or misreads (issue 31) -----------------------------------------------------------

H200 = SRC.parent / "tests" / "data" / "foreign" / "h200"
GOOD = H200 / "hf_sdpa_train.json.gz"
#: A small GPU trace: a step, an op, its launch and the kernel it launched. A case replaces one field's raw text.
_STEP = {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 5e12, "dur": 50.0,
         "args": {"External id": 1}}  # fmt: skip
_MM = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5e12 + 1, "dur": 8.0,
       "args": {"External id": 2}}  # fmt: skip
_LAUNCH = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5e12 + 2,
           "dur": 4.0, "args": {"correlation": 9, "External id": 2}}  # fmt: skip
_KERNEL = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5e12 + 10, "dur": 3.0,
           "args": {"device": 0, "correlation": 9}}  # fmt: skip


def _small(field: str | None = None) -> bytes:
    """The small trace, with the kernel's ``"ts": ...`` or ``"dur": ...`` replaced by ``field`` (raw JSON text)."""
    text = json.dumps({"traceEvents": [_STEP, _MM, _LAUNCH, _KERNEL]})
    if field is not None:
        key = field.split(":")[0]
        head, tail = text.rsplit(f"{key}: {json.dumps(_KERNEL[key.strip(chr(34))])}", 1)
        text = head + field + tail
    return text.encode()


def _tar_gz() -> bytes:
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(GOOD, arcname="trace.json.gz")
    return buf.getvalue()


#: (file name, content) of the traces the cases read.
READER_FILES = {
    "ts-10e400.json": _small('"ts": 1' + "0" * 400),
    "ts-nan.json": _small('"ts": NaN'),
    "dur-infinity.json": _small('"dur": Infinity'),
    "dur-minus-5.json": _small('"dur": -5'),
    "ts-minus-5.json": _small('"ts": -5'),
    "ts-1e300.json": _small('"ts": 1e300'),
    "ts-far.json": _small('"ts": 9e16'),
    "tar.json.gz": _tar_gz(),
    "perfetto.json.gz": gzip.compress(b"\x0a\x8c\x01\x12\x0b\x0a\x09\x08\x01" + bytes(range(140))),
    "zip.json": b"PK\x03\x04" + b"\0" * 60,
    "report.json": b"<!DOCTYPE html><html><body>a report, not a trace</body></html>",
    "empty.json": b"",
    "cut.json": _small()[:-40],
}


@pytest.fixture
def shelf(arena):
    """The arena, with a real trace (gzip and plain), links and a hard link to it, the traces above, two exports
    of one run in one file, the JSON array form, and a trace of one step with one call."""
    (arena / "good.json.gz").write_bytes(GOOD.read_bytes())
    plain = gzip.decompress(GOOD.read_bytes())
    (arena / "good.json").write_bytes(plain)
    (arena / "trace-link").symlink_to(arena / "good.json.gz")
    (arena / "out-link").symlink_to(arena / "a.out")  # a link to a file not yet there
    os.link(arena / "good.json.gz", arena / "hard.json.gz")
    for name, content in READER_FILES.items():
        (arena / name).write_bytes(content)
    doc = json.loads(plain)
    (arena / "twice.json").write_text(json.dumps({**doc, "traceEvents": doc["traceEvents"] * 2}))
    (arena / "array.json").write_text(json.dumps(doc["traceEvents"]))
    one = json.loads(gzip.decompress((SRC.parent / "tests" / "data" / "traces" / "sdpa_flash.json.gz").read_bytes()))
    marks = [e for e in one["traceEvents"] if str(e.get("name")).startswith("ProfilerStep#")]
    first = min(marks, key=lambda e: e["ts"])
    start, end = first["ts"], first["ts"] + first["dur"]
    kept = [e for e in one["traceEvents"] if e.get("ph") != "X" or e.get("cat") in ("kernel", "gpu_memcpy",
            "gpu_memset") or start <= e["ts"] <= end]  # fmt: skip
    launched = {e["args"].get("correlation") for e in kept if e.get("cat") == "cuda_runtime"}
    kept = [e for e in kept if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset")
            or e["args"].get("correlation") in launched]  # fmt: skip
    (arena / "one-step.json").write_text(json.dumps({**one, "traceEvents": kept}))  # its first step alone
    (arena / "b.tar.gz").write_bytes(gzip.compress(b"not a bundle"))
    (arena / "dir" / "sub").mkdir()
    yield arena


def _in_process(folder: Path, argv: list[str], monkeypatch) -> tuple[int, str, str]:
    """``attnprof ARGV`` in this process, in ``folder``: the exit status, standard output and standard error."""
    from helpers import run_cli

    monkeypatch.chdir(folder)
    return run_cli(*[a.replace("{t}", str(folder)) for a in argv])


#: (id, arguments, words of the one line): an output that is an input, or another output, refused before anything
#: is read (no "reading" line), whatever --force says.
CLASHES: list[tuple[str, list[str], list[str]]] = [
    ("json over its gzip trace", ["explain", "good.json.gz", "--json", "good.json.gz"],
     ["--json 'good.json.gz' is the file TRACE reads", "never writes over its input"]),
    ("html over its plain trace", ["explain", "good.json", "--html", "good.json"],
     ["--html 'good.json' is the file"]),
    ("json over its trace, --force", ["explain", "good.json.gz", "--json", "good.json.gz", "--force"],
     ["is the file TRACE reads"]),
    ("json and html one file", ["explain", "good.json.gz", "--json", "same.out", "--html", "same.out"],
     ["--html 'same.out' is the same file as --json; give each output a file of its own"]),
    ("json over its trace through a link", ["explain", "good.json.gz", "--json", "trace-link", "--force"],
     ["--json 'trace-link' is the file TRACE reads"]),
    ("trace through a link, json the file", ["explain", "trace-link", "--json", "good.json.gz"],
     ["--json 'good.json.gz' is the file TRACE reads"]),
    ("json over its trace through ..", ["explain", "good.json.gz", "--json", "dir/sub/../../good.json.gz"],
     ["--json 'dir/sub/../../good.json.gz' is the file TRACE reads"]),
    ("json over its trace through a hard link", ["explain", "good.json.gz", "--json", "hard.json.gz"],
     ["--json 'hard.json.gz' is the file TRACE reads"]),
    ("absolute trace, relative html", ["explain", "{t}/good.json.gz", "--html", "good.json.gz"],
     ["--html 'good.json.gz' is the file TRACE reads"]),
    ("json and html through a link to a new file", ["explain", "good.json.gz", "--json", "a.out", "--html",
     "out-link"], ["--html 'out-link' is the same file as --json"]),
    ("bundle over its input", ["bundle", "create", "--from", "b.tar.gz", "--out", "b.tar.gz"],
     ["--out 'b.tar.gz' is the file --from b.tar.gz reads"]),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in CLASHES], ids=[c[0] for c in CLASHES])
def test_an_output_that_is_an_input_or_another_output_is_refused_before_reading(shelf, monkeypatch, argv, words):
    before = snapshot(shelf)
    code, out, err = _in_process(shelf, argv, monkeypatch)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("attnprof: ") and "reading" not in err, err
    for w in words:
        assert w in err, err
    assert snapshot(shelf) == before


#: (id, the trace, words of the refusal): read, then refused in one line naming the first bad event or what the
#: file is instead.
BAD_TRACES: list[tuple[str, str, list[str]]] = [
    ("ts 10**400", "ts-10e400.json", ["event 4 ('k'): 'ts' is 10000000… (401 digits), past any clock"]),
    ("ts NaN", "ts-nan.json", ["event 4 ('k'): 'ts' is nan, not a finite number of microseconds"]),
    ("dur Infinity", "dur-infinity.json", ["event 4 ('k'): 'dur' is inf, not a finite number"]),
    ("dur -5", "dur-minus-5.json", ["event 4 ('k'): 'dur' is -5, negative"]),
    ("kernel ts -5", "ts-minus-5.json", ["event 4 ('k'): 'ts' is -5, negative"]),
    ("ts 1e300", "ts-1e300.json", ["event 4 ('k'): 'ts' is 1e+300, past any clock"]),
    ("ts 2854 years away", "ts-far.json", ["event 4 ('k'): 'ts' 9e+16 lies 2854 years from the rest of the trace"]),
    ("two exports concatenated", "twice.json", ["repeats event", "two exports in one file"]),
    ("tar.gz named .json.gz", "tar.json.gz", ["not a trace: the file is a gzip-compressed tar archive (first "
                                              "member 'trace.json.gz')"]),
    ("Perfetto protobuf", "perfetto.json.gz", ["the file is a Perfetto protobuf trace"]),
    ("zip", "zip.json", ["the file is a zip archive"]),
    ("an HTML report", "report.json", ["the file is an HTML page"]),
    ("empty file", "empty.json", ["the file is empty"]),
    ("cut short", "cut.json", ["it ends before the JSON does", "a trace cut short"]),
]  # fmt: skip


@pytest.mark.parametrize(("trace", "words"), [c[1:] for c in BAD_TRACES], ids=[c[0] for c in BAD_TRACES])
def test_a_trace_with_times_that_are_no_times_or_that_is_no_trace_is_refused_naming_why(shelf, monkeypatch, trace,
                                                                                         words):  # fmt: skip
    before = snapshot(shelf)
    code, out, err = _in_process(shelf, ["explain", trace, "--json", "r.json", "--html", "r.html"], monkeypatch)
    assert code == 2 and out == "", err
    progress, line = err.splitlines()
    assert progress == f"reading {trace}" and line.startswith(f"attnprof: {trace}: "), err
    for w in words:
        assert w in line, line
    if "two exports" not in " ".join(words) and "event" in " ".join(words):
        assert line.endswith(
            (
                "microseconds",
                "never negative",
                "written with (at most 1e+17 µs)",
                "not a time of this trace",
                "more than a day; a profiler records seconds to minutes",
            )
        )
    else:
        assert "event" in line or line.endswith("expected a .json or .json.gz file from torch.profiler's "
                                                "export_chrome_trace")  # fmt: skip
    assert snapshot(shelf) == before


#: (id, arguments, what standard output holds, what standard error holds): read as what they are, exit 0.
READS: list[tuple[str, list[str], list[str], list[str]]] = [
    ("the JSON array form names its GPU", ["explain", "array.json", "--no-why"],
     ["array.json: 2 profiler steps, 6293 events, GPU 0 (its name is not in this form of trace", "cudnn"], []),
    ("one step, one call", ["explain", "one-step.json", "--no-why"], ["one-step.json: 1 profiler step, "],
     ["found 1 attention call in 1 step"]),
    ("Japanese progress", ["explain", "good.json.gz", "--no-why", "--lang", "ja"], ["プロファイラのステップ"],
     ["good.json.gz を読み込み中", "を 0.", "ステップ 2 個にアテンションの呼び出し 8 回が見つかりました"]),
    ("why skipped where the trace's GPU is not", ["explain", "good.json.gz"],
     ["PyTorch cannot be asked here: the trace ran on NVIDIA H200, and PyTorch"],
     ["not asking PyTorch why: the trace ran on NVIDIA H200, and PyTorch", "(torch not imported)"]),
    ("decode at a cache of 10**11, dry run", ["compare", "--workload", "decode", "--lengths", "100000000000",
     "--device", "cpu", "--dry-run"], ["KV cache [1, 2, 100000000000, 64]", "at most 239 TiB at once",
     "would be refused: sdpa_math at"], []),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "stdout", "stderr"), [c[1:] for c in READS], ids=[c[0] for c in READS])
def test_what_ran_is_read_as_it_is_and_nothing_is_written(shelf, monkeypatch, argv, stdout, stderr):
    before = snapshot(shelf)
    code, out, err = _in_process(shelf, argv, monkeypatch)
    assert code == 0, err
    for w in stdout:
        assert w in out, w
    for w in stderr:
        assert w in err, (w, err)
    assert "no GPU in the trace" not in out
    assert snapshot(shelf) == before


def test_the_why_of_a_gpu_trace_on_this_cpu_machine_imports_no_torch(shelf):
    probe = ("import sys, io; from attnprof import cli; err = io.StringIO(); "
             "code = cli.main(['explain', 'good.json.gz', '--json', '-'], out=io.StringIO(), err=err); "
             "print(code, 'torch' in sys.modules)")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-c", probe], cwd=shelf, env=env, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert run.stdout.split() == ["0", "False"], run.stderr


#: (id, arguments, words of the one line): refused in one line, before any work, touching nothing.
MORE_REFUSALS: list[tuple[str, list[str], list[str]]] = [
    ("negative shape", ["profile", "naive", "--device", "cpu", "--shape", "-1,4,256,64"],
     ["attnprof: bad shape '-1,4,256,64'; expected four positive integers"]),
    ("negative shape, compare", ["compare", "--device", "cpu", "--shape", "-1,4,256,64"],
     ["bad shape '-1,4,256,64'"]),
    ("negative number, why", ["why", "--device", "cpu", "--dropout", "-0.5"], ["bad dropout '-0.5'"]),
    ("decode at a cache of 10**11", ["compare", "--workload", "decode", "--lengths", "100000000000", "--device",
     "cpu"], ["KV cache [1, 2, 100000000000, 64] needs about 239 TiB (estimated)", "--force"]),
    ("decode profile at a cache of 10**11", ["profile", "sdpa_flash", "--workload", "decode", "--kv-len",
     "100000000000", "--device", "cpu"], ["needs about 46.6 TiB (estimated)"]),
    ("5000-character output name", ["explain", "good.json.gz", "--json", "x" * 5000], ["File name too long", "…"]),
    ("control characters in a trace name", ["explain", "no\x1b[2Jtrace\x07.json"],
     ["no trace file 'no\\x1b[2Jtrace\\x07.json'"]),
    ("control characters in an output name", ["explain", "good.json.gz", "--html", "missing/\x1b]0;x\x07.html"],
     ["'missing/\\x1b]0;x\\x07.html' does not exist"]),
    ("a line break in an output name", ["explain", "good.json.gz", "--json", "missing/a\nb.json"], ["a\\nb.json"]),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in MORE_REFUSALS], ids=[c[0] for c in MORE_REFUSALS])
def test_more_bad_input_is_one_escaped_shortened_line_exit_2(shelf, monkeypatch, argv, words):
    before = snapshot(shelf)
    code, out, err = _in_process(shelf, argv, monkeypatch)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("attnprof: "), err
    assert len(err) < 1000 and "\x1b" not in err and "\x07" not in err
    for w in words:
        assert w in err, err
    assert snapshot(shelf) == before


# --- streams and signals, where the process matters ---------------------------------------------------------------


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attnprof", *argv], cwd=cwd, capture_output=True, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(SRC), **env})  # fmt: skip


#: (id, arguments): each on a terminal that takes ASCII alone, exit 0, standard output and error in ASCII.
ASCII: list[tuple[str, list[str]]] = [
    ("ascii terminal, explain", ["explain", "good.json.gz", "--no-why"]),
    ("ascii terminal, explain in Japanese", ["explain", "good.json.gz", "--no-why", "--lang", "ja"]),
    ("ascii terminal, explain why", ["explain", "good.json.gz"]),
    ("ascii terminal, profile", ["profile", "naive", *TINY]),
    ("ascii terminal, compare dry run", ["compare", "--device", "cpu", "--dry-run"]),
]


@pytest.mark.parametrize("argv", [c[1] for c in ASCII], ids=[c[0] for c in ASCII])
def test_a_terminal_that_takes_ascii_alone_gets_ascii_spellings_not_a_traceback(shelf, argv):
    before = snapshot(shelf)
    run = _run(argv, shelf, PYTHONIOENCODING="ascii")
    assert run.returncode == 0, run.stderr.decode("ascii", "replace")[-2000:]
    out, err = run.stdout.decode("ascii"), run.stderr.decode("ascii")  # raises if anything is not ASCII
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if argv[0] == "explain":
        assert " us" in out and "GPU 0" not in out  # µs spelt as us; the GPU named
        assert ("\\u" in out) == ("ja" in argv)  # Japanese, escaped; English needs no escape
    assert snapshot(shelf) == before


def test_json_on_an_ascii_terminal_is_the_same_json(shelf):
    argv = ["explain", "good.json.gz", "--json", "-", "--no-why"]
    run = _run(argv, shelf, PYTHONIOENCODING="ascii")
    assert run.returncode == 0, run.stderr
    utf8 = _run(argv, shelf)
    text = utf8.stdout.decode("utf-8")
    assert json.loads(run.stdout.decode("ascii")) == json.loads(text)
    assert any(c > "\x7f" for c in text) and "\\u" in run.stdout.decode("ascii")  # the same data, escaped


def test_a_cpu_torch_without_numpy_warns_nothing(shelf):
    probe = ("import sys; sys.modules['numpy'] = None; from attnprof import cli; "
             "sys.argv = ['attnprof', 'list', '--device', 'cpu', '--no-compile']; sys.exit(cli.main())")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", probe], cwd=shelf, capture_output=True, text=True, timeout=180,
                         env={**os.environ, "PYTHONPATH": str(SRC)})  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert "naive" in run.stdout
    bare = subprocess.run([sys.executable, "-c", "import sys; sys.modules['numpy'] = None; import torch"],
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert "Failed to initialize NumPy" in bare.stderr  # what the command keeps off the terminal


def test_a_bad_list_device_is_refused_before_torch_is_imported():
    probe = ("import sys, io; from attnprof import cli; err = io.StringIO(); "
             "code = cli.main(['list', '--device', 'xx'], out=io.StringIO(), err=err); "
             "print(code, 'torch' in sys.modules, err.getvalue().strip())")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(SRC)},
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.stdout.strip() == "2 False attnprof: unknown device 'xx'; choose one of: cuda, cpu", run.stderr


#: Runs explain with the HTML page's making slowed and Ctrl-C sent while it is made (after the JSON is made).
CTRL_C_IN_HTML = """
import os, signal, sys
from attnprof import cli
from attnprof.render import explainhtml
real = explainhtml.page
def page(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    return real(*args, **kwargs)
explainhtml.page = page
sys.argv = ["attnprof", "explain", "good.json.gz", "--no-why", "--json", sys.argv[1], "--html", "r.html"]
sys.exit(cli.main())
"""


@pytest.mark.parametrize("json_file", ["r.json", "file.txt"])
def test_ctrl_c_while_the_html_is_made_leaves_neither_file_and_keeps_the_old_one(shelf, json_file):
    before = snapshot(shelf)
    run = subprocess.run([sys.executable, "-c", CTRL_C_IN_HTML, json_file], cwd=shelf, capture_output=True,
                         text=True, timeout=180, env={**os.environ, "PYTHONPATH": str(SRC)})  # fmt: skip
    assert run.returncode == 130, run.stderr
    assert run.stderr.splitlines()[-1] == "attnprof: interrupted (Ctrl-C)" and "Traceback" not in run.stderr
    assert snapshot(shelf) == before  # no r.json, no r.html, file.txt as it was, no temporary file


def test_both_outputs_are_written_together_and_said(shelf, monkeypatch):
    code, _, err = _in_process(shelf, ["explain", "good.json.gz", "--no-why", "--json", "r.json", "--html",
                                       "r.html"], monkeypatch)  # fmt: skip
    assert code == 0 and "JSON written to r.json" in err and "HTML page written to r.html" in err
    assert json.loads((shelf / "r.json").read_text())["version"] == 2
    assert not [p for p in shelf.iterdir() if p.name.endswith(".tmp")]


def test_the_reader_tables_cover_every_case_of_issue_31():
    ids = " ".join(c[0] for c in [*CLASHES, *BAD_TRACES, *READS, *MORE_REFUSALS, *ASCII])
    for word in ("over its gzip trace", "over its plain trace", "one file", "through a link", "through ..",
                 "hard link", "--force", "bundle", "10**400", "NaN", "Infinity", "-5", "1e300", "years away",
                 "two exports", "tar.gz", "Perfetto", "zip", "HTML", "empty", "cut short", "array form", "one step",
                 "Japanese progress", "why skipped", "decode at a cache of 10**11", "negative shape",
                 "5000-character", "control characters", "ascii terminal"):  # fmt: skip
        assert word in ids, word
    assert len(CLASHES) + len(BAD_TRACES) + len(READS) + len(MORE_REFUSALS) + len(ASCII) == 44
