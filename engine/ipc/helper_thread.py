"""The process's one helper thread for work that splits into two independent halves (the two
pads' rows of the LDL^T, the two pads' elastic terms): `in_pair` runs one half beside the
other when the process may use two threads (ipctk_gateway.query_threads).

Each half's arithmetic is the same on either thread and the results are combined in a fixed
order, so a trial's numbers are the same to the bit on one thread or two. The halves' numba
kernels release the GIL. A hand-off costs about 0.1-0.2 ms (the helper's wake-up and the GIL,
measured on the 2-core machines here), so callers split only halves worth more than that.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from engine.ipc.ipctk_gateway import query_threads

T = TypeVar("T")
U = TypeVar("U")

_helper: ThreadPoolExecutor | None = None


def two_threads() -> bool:
    """Whether this process may run two halves at once (IPCGRASP_QUERY_THREADS >= 2)."""
    return query_threads() >= 2


def in_pair(first: Callable[[], T], second: Callable[[], U]) -> tuple[T, U]:
    """(first(), second()): `second` on the helper thread beside `first` on this one when
    two_threads(), else one after the other. Both always run to their end (the helper's
    writes must be done before the caller goes on), and the first exception raised is raised."""
    if not two_threads():
        return first(), second()
    beside = _executor().submit(second)
    try:
        a = first()
    except BaseException:
        beside.exception()  # wait for the helper; this thread's error is the one raised
        raise
    return a, beside.result()


def _executor() -> ThreadPoolExecutor:
    """The helper thread, started on first use."""
    global _helper
    if _helper is None:
        _helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ipcgrasp-helper")
    return _helper


def _forget_helper() -> None:
    # A forked child has no helper thread, only the executor that thinks it has one.
    global _helper
    _helper = None


os.register_at_fork(after_in_child=_forget_helper)
