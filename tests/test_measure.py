"""Interrupts stay interrupts: through the profiler, through chained errors, and when a library swallowed one."""

from __future__ import annotations

import os
import signal
import time

import pytest

from attnprof import measure


def test_the_interrupt_behind_an_error_is_found_in_its_chain():
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as ki:
            raise AssertionError("Profiler must be initialized before exiting") from ki
    except AssertionError as exc:
        assert isinstance(measure.interrupt_in(exc), KeyboardInterrupt)
        with pytest.raises(KeyboardInterrupt):
            measure.reraise_interrupt(exc)
    assert measure.interrupt_in(ValueError("plain")) is None
    measure.reraise_interrupt(ValueError("plain"))  # an ordinary failure: nothing raised
    assert isinstance(measure.interrupt_in(SystemExit(3)), SystemExit)


def test_an_interrupt_inside_the_profiler_leaves_it_as_an_interrupt():
    calls = [0]

    def fn():
        calls[0] += 1
        if calls[0] == 3:  # during the profiler's schedule
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        measure.capture_trace(fn, "x_fwd", "cpu")
    # and the profiler is usable again afterwards
    raw, parsed = measure.capture_trace(lambda: None, "x_fwd", "cpu", schedule=None)
    assert raw and "traceEvents" in parsed


def test_a_swallowed_sigint_is_still_counted_and_raised_again():
    with measure.counting_interrupts():
        seen = measure.interrupts_seen()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
        assert measure.interrupts_seen() == seen + 1
        with pytest.raises(KeyboardInterrupt):
            measure.reraise_interrupt(RuntimeError("what the library raised next"), seen)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_during_torchs_import_is_held_until_the_import_is_done():
    done = []
    with pytest.raises(KeyboardInterrupt), measure.deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # would be interrupted at once without the hold
        done.append("the block finished")
    assert done == ["the block finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    measure.import_torch()  # nothing held, nothing raised
