"""Worker memory (issue 11): flat over many tasks, and workers recycled without losing a row."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import scipy.sparse as sp

from engine.batch.grasp_table import read_grasp_table
from engine.batch.progress import Progress
from engine.batch.runner import RecyclePolicy, WorkerStats, local_results
from engine.batch.tasks import BatchConfig, Task, base_row, make_tasks
from tests.engine.batch.conftest import CUBE_ROW, write_grasps

GROWTH_BOUND_MB = 20.0
"""What 15 tasks may add to a worker (the leak added ~260 MB: 45 failed factorisations)."""


def indefinite_newton_matrix(n: int = 14) -> sp.csr_matrix:
    """A FEM-like SPD matrix (3D grid Laplacian, 3 DOFs a node, 8232 rows) made indefinite by
    its last diagonal entry: a Cholesky factorisation fails late, as with a contact Hessian."""
    one = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = sp.eye(n)
    lap = (
        sp.kron(sp.kron(one, eye), eye)
        + sp.kron(sp.kron(eye, one), eye)
        + sp.kron(sp.kron(eye, eye), one)
    )
    h = (sp.kron(lap, sp.eye(3)) + 1e-3 * sp.eye(3 * n**3)).tolil()
    h[-1, -1] = -1.0
    return h.tocsr()


def newton_on_indefinite(task: Task) -> dict:
    """Module-level task: what a Newton iteration does with an indefinite (contact) Hessian
    three times (the REACH cube grasp 2 meets ~130 of them per trial)."""
    from engine.ipc.sparse_factors import factor_spd

    h = indefinite_newton_matrix()
    for _ in range(3):
        assert factor_spd(h, expect_failure=True) is None
    return {**base_row(task), "status": "ok"}


_HELD: list[np.ndarray] = []


def hold_memory(task: Task) -> dict:
    """Module-level task that leaks 40 MB on purpose."""
    _HELD.append(np.ones(5_000_000))
    return {**base_row(task), "status": "ok", "pid": os.getpid()}


def quick(task: Task) -> dict:
    return {**base_row(task), "status": "ok", "pid": os.getpid()}


def make(tmp_path, n: int) -> list[Task]:
    grasps = write_grasps(tmp_path / "g.csv", [[f"g{i}", *CUBE_ROW] for i in range(n)])
    return make_tasks(read_grasp_table(grasps), BatchConfig(models=("reach",)))


def test_a_worker_stays_flat_over_15_tasks_with_indefinite_newton_matrices(tmp_path):
    tasks = make(tmp_path, 15)
    stats = WorkerStats()
    memory = []
    for _row in local_results(tasks, 1, newton_on_indefinite, RecyclePolicy(0, 0), stats):
        memory.append(stats.current_mb)
    assert len(memory) == 15 and stats.recycled == 0
    assert memory[-1] - memory[0] < GROWTH_BOUND_MB, memory


def test_workers_are_recycled_after_max_tasks_and_no_row_is_lost_or_doubled(tmp_path):
    tasks = make(tmp_path, 9)
    stats = WorkerStats()
    rows = list(local_results(tasks, 2, quick, RecyclePolicy(max_tasks=2, max_memory_mb=0), stats))
    assert Counter(r["task_key"] for r in rows) == Counter(t.key for t in tasks)
    # Once a worker is due, the pool takes no new task: only the tasks already handed to it
    # finish (up to 3 more; one worker may take them all while the other starts up), so a pool
    # runs at most 5 of the 9 tasks and a fresh pool runs the rest.
    assert max(Counter(r["pid"] for r in rows).values()) <= 2 + 3
    assert stats.recycled >= 1 and len({r["pid"] for r in rows}) >= 2


def test_a_worker_above_the_memory_ceiling_is_recycled(tmp_path):
    tasks = make(tmp_path, 6)
    stats = WorkerStats()
    policy = RecyclePolicy(max_tasks=0, max_memory_mb=1.0)  # every worker is above 1 MB
    rows = list(local_results(tasks, 1, hold_memory, policy, stats))
    assert Counter(r["task_key"] for r in rows) == Counter(t.key for t in tasks)
    # The worker finishes the second task queued to it, then is replaced: 3 workers.
    assert stats.recycled == 3 and len({r["pid"] for r in rows}) == 3
    assert stats.largest_mb > 40


def test_the_progress_line_shows_the_largest_worker_and_recycled_workers():
    progress = Progress(10, enabled=False)
    assert "worker" not in progress.line()
    stats = WorkerStats()
    progress.workers = stats
    stats.record("h:1", 410.4, 420.0)
    stats.record("h:2", 380.0, 390.0)
    assert progress.line().endswith("worker 410 MB (max 410)")
    stats.retire("h:1")
    assert progress.line().endswith("worker 380 MB (max 410), 1 recycled")
