"""attnprof.measure.interrupts: Ctrl-C stays an interrupt through chained errors, when a library swallowed it, and
while torch imports; real SIGINTs sent to this process."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from attnprof.measure import interrupts


def test_the_interrupt_behind_an_error_is_found_in_its_chain():
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as ki:
            raise AssertionError("Profiler must be initialized before exiting") from ki
    except AssertionError as exc:
        assert isinstance(interrupts.interrupt_in(exc), KeyboardInterrupt)
        with pytest.raises(KeyboardInterrupt):
            interrupts.reraise_interrupt(exc)
    assert interrupts.interrupt_in(ValueError("plain")) is None
    interrupts.reraise_interrupt(ValueError("plain"))  # an ordinary failure: nothing raised
    assert isinstance(interrupts.interrupt_in(SystemExit(3)), SystemExit)


def test_a_swallowed_sigint_is_still_counted_and_raised_again():
    with interrupts.counting_interrupts():
        seen = interrupts.interrupts_seen()
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
        assert interrupts.interrupts_seen() == seen + 1
        with pytest.raises(KeyboardInterrupt):
            interrupts.reraise_interrupt(RuntimeError("what the library raised next"), seen)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_during_torchs_import_is_held_until_the_import_is_done():
    done = []
    with pytest.raises(KeyboardInterrupt), interrupts.deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # would be interrupted at once without the hold
        done.append("the block finished")
    assert done == ["the block finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    interrupts.import_torch()  # nothing held, nothing raised


def test_raise_if_interrupted_counts_from_where_it_is_told():
    with interrupts.counting_interrupts():
        before = interrupts.interrupts_seen()
        interrupts.raise_if_interrupted(before)  # nothing arrived: nothing raised
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
        interrupts.raise_if_interrupted(interrupts.interrupts_seen())  # counted from now: nothing
        with pytest.raises(KeyboardInterrupt):
            interrupts.raise_if_interrupted(before)


def test_outside_the_main_thread_the_blocks_run_without_a_handler():
    ran = []

    def body():
        with interrupts.counting_interrupts(), interrupts.deferred_interrupts():
            ran.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert ran == [signal.default_int_handler]  # nothing installed: only the main thread may


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_like_ctrl_c_and_are_named(sig):
    before = {s: signal.getsignal(s) for s in interrupts.STOP_SIGNALS}
    with interrupts.counting_interrupts():
        seen = interrupts.interrupts_seen()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), sig)
            time.sleep(1)
        assert interrupts.interrupts_seen() == seen + 1 and interrupts.last_signal() == sig
    done = []
    with pytest.raises(KeyboardInterrupt), interrupts.deferred_interrupts():
        os.kill(os.getpid(), sig)
        time.sleep(0.2)
        done.append("held")
    assert done == ["held"] and interrupts.last_signal() == sig
    assert {s: signal.getsignal(s) for s in interrupts.STOP_SIGNALS} == before  # every handler given back
