"""The build's stack sampler (attnprof.site.stacks): it sees the sampled thread's own functions, and writes the
collapsed form flame-graph tools read."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from attnprof.site import stacks


def spin_here(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_sampler_sees_the_busy_function(tmp_path: Path) -> None:
    with stacks.Sampler(interval_s=0.002) as sampler:
        spin_here(0.3)
    inside = sum(n for stack, n in sampler.counts.items() if any(":spin_here:" in f for f in stack))
    assert inside >= 0.5 * sum(sampler.counts.values()) > 0
    assert sampler.seconds >= 0.3
    assert 0.2 <= sum(sampler.counts.values()) / 1e6 <= sampler.seconds  # wall time, in microseconds
    lines = sampler.collapsed().splitlines()
    stack, count = lines[0].rsplit(" ", 1)
    assert int(count) == max(sampler.counts.values())
    assert stack.split(";")[-1].startswith("tests/test_stacks.py:spin_here:") or "spin_here" in stack
    path = tmp_path / "s.txt.gz"
    sampler.save(path)
    assert gzip.decompress(path.read_bytes()).decode() == sampler.collapsed()


@pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
def test_bad_interval_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="interval_s must be a positive"):
        stacks.Sampler(interval_s=bad)


def test_builder_samples_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from attnprof.site import builder

    monkeypatch.setenv(builder.STACKS_ENV, str(tmp_path / "stacks.txt"))
    monkeypatch.setattr(builder, "build", lambda root, out, extra: spin_here(0.05) or 3)
    assert builder.main(["--root", str(tmp_path)]) == 3
    assert ":spin_here:" in (tmp_path / "stacks.txt").read_text()
