"""The local pool: a worker that dies is replaced; its task is retried once, then recorded."""

from __future__ import annotations

import os

from engine.batch.grasp_table import read_grasp_table
from engine.batch.runner import local_results
from engine.batch.tasks import BatchConfig, base_row, make_tasks
from tests.engine.batch.conftest import CUBE_ROW, write_grasps


def crash_on_b(task):
    """Module-level (picklable) task function: grasp 'b' kills its worker process."""
    if task.grasp.grasp_id == "b":
        os._exit(3)
    return {**base_row(task), "status": "ok"}


def test_a_dying_worker_does_not_stop_the_pool(tmp_path):
    grasps = write_grasps(tmp_path / "g.csv", [[g, *CUBE_ROW] for g in "abcd"])
    tasks = make_tasks(read_grasp_table(grasps), BatchConfig(models=("reach",)))
    rows = list(local_results(tasks, 2, crash_on_b))
    by_grasp = {r["grasp_id"]: r for r in rows}
    assert sorted(by_grasp) == ["a", "b", "c", "d"] and len(rows) == 4
    assert by_grasp["b"]["status"] == "error" and by_grasp["b"]["reason"] == "worker died"
    assert all(by_grasp[g]["status"] == "ok" for g in "acd")
