"""When a batch worker process is replaced by a fresh one (engine.batch.runner does it), and how
long one task may take.

Free of imports, so `ipcgrasp batch --help` shows the defaults without loading the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TRIAL_TIMEOUT_S = 300.0
"""A task's default wall-clock limit (s; engine.batch.tasks enforces it): far above any trial
seen on real meshes (15 s on a 16k-face scan), far below the minutes a stalled one held a
batch."""


@dataclass(frozen=True)
class RecyclePolicy:
    """When a worker process is replaced by a fresh one (0 disables a limit)."""

    max_tasks: int = 200  # tasks per worker (~30 min of IPC trials)
    max_memory_mb: float = 2048.0  # resident memory after a task (local pool only)

    def due(self, tasks: int, rss_mb: float) -> bool:
        """Whether a worker that ran `tasks` tasks and holds `rss_mb` must be replaced."""
        return bool(self.max_tasks and tasks >= self.max_tasks) or bool(
            self.max_memory_mb and rss_mb > self.max_memory_mb
        )
