"""Everything that runs in the app's worker processes, and nothing that needs Qt.

The worker bodies (simulation, analysis, sampling, psi_force, video), the messages they
exchange with the GUI (messages) and the process helper that spawns them (process) live in this
one package, so the Qt-free import contract in pyproject.toml covers the package: a new worker
body added here is checked without editing a list. The GUI side of a worker is
app.worker_client (request workers) or app.sim_pool (the simulation workers).
"""

from app.workers.process import (
    WorkerProcess,
    drain_queue,
    newest_job,
    spawn_context,
    worker_entry,
)

__all__ = ["WorkerProcess", "drain_queue", "newest_job", "spawn_context", "worker_entry"]
