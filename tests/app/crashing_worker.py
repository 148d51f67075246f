"""A simulation worker that crashes once, for the tests (no Qt: it runs in a spawned process).

The crash hook is no product parameter: a test installs `crashing_worker(marker)` as the body
the simulation pool spawns (monkeypatching app.sim_pool.worker_main) and replaces the running
workers. The body is app.workers.simulation.worker_main with an outbox that, while the file
`marker` exists, deletes it and kills the process (os._exit(3): no cleanup, like a segfault)
right after sending trial 0's second frame; every worker after that one runs normally.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from app.workers.messages import FramePacket
from app.workers.simulation import worker_main

CRASH_AFTER_FRAMES = 2
CRASH_EXIT_CODE = 3


class _CrashingOutbox:
    def __init__(self, outbox: Any, marker: str) -> None:
        self._outbox, self._marker, self._frames = outbox, marker, 0

    def put(self, message: Any) -> None:
        self._outbox.put(message)
        if isinstance(message, FramePacket) and message.trial == 0:
            self._frames += 1
            if self._frames >= CRASH_AFTER_FRAMES and Path(self._marker).exists():
                Path(self._marker).unlink()
                os._exit(CRASH_EXIT_CODE)


def _crash_once_main(marker: str, worker: int, inbox: Any, outbox: Any, cancel: Any) -> None:
    worker_main(worker, inbox, _CrashingOutbox(outbox, marker), cancel)


def crashing_worker(marker: Path) -> Any:
    """The pool's worker body that crashes once (see the module's docstring); creates
    `marker`."""
    marker.write_text("crash once")
    return functools.partial(_crash_once_main, str(marker))
