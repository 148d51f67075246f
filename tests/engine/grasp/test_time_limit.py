"""A trial's wall-clock limit stops a computation that would never end, and leaves nothing armed
behind it (no test here depends on how fast the machine is: the endless loop ends only by the
limit, and the timer's state is read, not timed)."""

from __future__ import annotations

import pickle
import signal
import threading

import pytest

from engine.grasp.time_limit import TrialTimedOut, wall_clock_limit


def test_an_endless_computation_is_stopped_with_the_limit_named():
    with pytest.raises(TrialTimedOut, match=r"longer than its 0.1 s wall-clock limit") as err:
        with wall_clock_limit(0.1):
            while True:
                pass
    assert err.value.limit_s == 0.1
    # A worker process sends it back to the driver whole.
    assert pickle.loads(pickle.dumps(err.value)).limit_s == 0.1


def test_a_block_that_ends_leaves_the_timer_as_it_found_it():
    """Another user of the process's timer (pytest-timeout arms one per test) keeps its
    deadline, and the handler is restored."""
    handler = signal.getsignal(signal.SIGALRM)
    before = signal.getitimer(signal.ITIMER_REAL)[0]
    with wall_clock_limit(7200.0):
        inside = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0.0 < inside <= (before if before > 0 else 7200.0)
    after = signal.getitimer(signal.ITIMER_REAL)[0]
    assert signal.getsignal(signal.SIGALRM) is handler
    if before > 0:
        assert 0.0 < after <= before
    else:
        assert after == 0.0


def test_outside_the_main_thread_there_is_no_limit():
    seen = []

    handler = signal.getsignal(signal.SIGALRM)

    def body():
        with wall_clock_limit(600.0):
            seen.append(signal.getsignal(signal.SIGALRM))

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [handler]
