"""A wall-clock limit on one trial, so no task can hold a batch or an app worker forever.

`wall_clock_limit(seconds)` raises TrialTimedOut in the calling thread once `seconds` of wall
time have passed inside it: a POSIX interval timer (SIGALRM) whose handler raises at the next
Python bytecode, i.e. within one ipctk or numba call (milliseconds) of the limit. Signals reach
only a process's main thread, where batch workers and the app's worker processes run their
tasks; elsewhere (another thread, a platform without SIGALRM) the limit is not enforced and a
debug line says so.
"""

from __future__ import annotations

import contextlib
import logging
import math
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

from engine.errors import IpcGraspError

log = logging.getLogger(__name__)

TIMED_OUT = "timed out"
"""The reason of a task ended by its time limit."""


class TrialTimedOut(IpcGraspError):
    """A trial ran longer than its wall-clock limit (`limit_s`)."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(
            f"the trial ran longer than its {limit_s:g} s wall-clock limit and was stopped; "
            "raise the limit (--trial-timeout) if the machine is slow, or check the grasp"
        )
        self.limit_s = limit_s


@contextlib.contextmanager
def wall_clock_limit(seconds: float | None) -> Iterator[None]:
    """Raise TrialTimedOut inside this block after `seconds` (None or inf: no limit)."""
    if seconds is None or not math.isfinite(seconds):
        yield
        return
    if seconds <= 0:
        raise ValueError(f"a time limit must be > 0 s (got {seconds})")
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        log.debug("no wall-clock limit outside a process's main thread")
        yield
        return

    # Another user of the process's one timer (pytest-timeout, say) keeps its deadline: the
    # timer fires at the earlier one, and its own handler runs at its own.
    start = time.monotonic()
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, 0.0)
    theirs = start + old_delay if old_delay > 0 else math.inf

    def expire(signum: int, frame: FrameType | None) -> None:
        if time.monotonic() >= theirs - 1e-3 and callable(previous):
            previous(signum, frame)
            return
        raise TrialTimedOut(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, theirs - start))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        if old_delay > 0:
            left = max(theirs - time.monotonic(), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, old_interval)
