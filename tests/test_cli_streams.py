"""attnprof.cli.streams: standard output whose failures become one line (or silence, for a broken pipe), standard
error that never breaks a run, and the profiler's own lines kept off the terminal. The program itself, with real
full devices, closed streams and broken pipes, is driven in test_cli_hostile.py."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import attnprof
from attnprof.cli import streams

SRC = Path(attnprof.__file__).parent.parent


class Failing(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error


def test_output_turns_a_broken_pipe_into_silence_and_other_errors_into_one_line():
    with pytest.raises(streams.OutputGone):
        streams.Output(Failing(BrokenPipeError(errno.EPIPE, "Broken pipe"))).write("x")
    with pytest.raises(streams.OutputFailed, match=r"^cannot write to standard output: No space left on device$"):
        streams.Output(Failing(OSError(errno.ENOSPC, "No space left on device"))).flush()
    with pytest.raises(streams.OutputFailed, match="it is closed"):
        streams.Output(None).write("x")
    fine = io.StringIO()
    assert streams.Output(fine).write("table\n") == 6 and fine.getvalue() == "table\n"


def test_best_effort_drops_what_cannot_be_written_and_goes_on():
    err = streams.BestEffort(Failing(OSError(errno.ENOSPC, "No space left on device")))
    assert err.write("progress\n") == 9 and err.stream is None
    err.write("more\n")
    err.flush()
    assert not err.isatty()


def test_program_streams_drop_the_profilers_lines_and_keep_the_rest():
    probe = (
        "import os, sys; from attnprof.cli import streams\n"
        "with streams.program_streams() as (out, err):\n"
        "    os.write(2, b'USDT:2026 SyncActivityProfilerHandler.cpp:52] profiler_start\\nkept from C\\n')\n"
        "    os.write(2, b'STAGE:2026 ActivityProfilerController.cpp:1] Completed Stage\\n')\n"
        "    print('a warning', file=sys.stderr)\n"
        "    err.write('progress\\n'); out.write('table\\n')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == "table\n"
    assert sorted(run.stderr.splitlines()) == ["a warning", "kept from C", "progress"]


def test_a_stream_that_takes_ascii_alone_gets_spellings_and_json_gets_escapes():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    out = streams.Output(stream)
    out.write("8×8 µs → 1 ms; 日本\n")
    out.write_data('{"k": "µ × 𝔸"}\n')
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert text.splitlines()[0] == "8x8 us -> 1 ms; \\u65e5\\u672c"
    import json

    assert json.loads(text.splitlines()[1]) == {"k": "µ × 𝔸"}  # a character beyond the first plane: a pair
    err_raw = io.BytesIO()
    err = streams.BestEffort(io.TextIOWrapper(err_raw, encoding="latin-1"))
    err.write("µs → ×\n")  # latin-1 has µ and ×, not the arrow
    err.flush()
    assert err_raw.getvalue().decode("latin-1") == "µs -> ×\n"
