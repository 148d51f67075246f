"""The batch pool workers' initializer, in a module that imports only engine.lifeline and
engine.logs (standard library only).

A spawned worker imports its initializer's module before it can run it. In engine.batch.runner
it came after numpy, trimesh and the solver (~3 s, more on busy cores): a driver killed while
its pool was starting left workers (and multiprocessing's resource tracker, which lives as long
as they do) running that long before they could notice. From here a worker is tied to its
driver a fraction of a second after it starts.
"""

from __future__ import annotations

import signal

from engine import lifeline, logs


def init_worker() -> None:
    """First thing in a pool worker: end with the driver, leave Ctrl+C to it, set up logging."""
    # A killed driver runs no cleanup: the worker ends itself when its driver is gone.
    lifeline.die_with_parent()
    # Ctrl+C reaches the whole process group; only the driver reacts (it stops the workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logs.configure_worker()
