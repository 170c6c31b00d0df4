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
    assert progress == f"reading {argv[1].replace('{t}', str(arena))}" and line.startswith("attnprof: ")
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
     "dry run; would run sweep: 1 variants", False),
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
    assert run.returncode == 0 and run.stdout.startswith("dry run; would run sweep: 1 variants") and run.stderr == ""
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
    proc, err, _ = _interrupt_after_progress(arena, argv, "sweep: 1 variants")
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
     "2048", "--batch", "8", "--heads", "16", "--out", "s.json"], "sweep: 1 variants"),
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
    assert last.startswith(f"attnprof: cannot write '{folder / 't.json.gz'}': the folder of output file")
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
    assert err.getvalue().splitlines()[-1].startswith(f"attnprof: cannot write '{folder / 's.json'}'")
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
    assert err.getvalue().splitlines()[-1].startswith(f"attnprof: cannot write '{folder / 'r.json'}'")
