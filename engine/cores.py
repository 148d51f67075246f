"""How many CPU cores this process may run on."""

from __future__ import annotations

import os

MAX_WORKERS = 1024
"""Most worker processes a batch starts (each holds a simulator: about 300 MB)."""


def usable_cores() -> int:
    """The cores this process may use (its affinity mask where the OS has one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
