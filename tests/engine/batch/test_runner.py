"""The local pool: a worker that dies is replaced; its task is retried once, then recorded.
A SIGTERM while a row is written takes effect once the row is complete."""

from __future__ import annotations

import os
import signal

import pytest

from engine.batch.grasp_table import read_grasp_table
from engine.batch.results_store import ResultsStore
from engine.batch.runner import local_results, run_batch
from engine.batch.tasks import BatchConfig, base_row, make_tasks
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps


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


def ok_row(task):
    return {**base_row(task), "status": "ok"}


class TerminatedWhileWriting(ResultsStore):
    """SIGTERM arrives while grasp 'a''s row is being written."""

    def append(self, row):
        if row["grasp_id"] == "a":
            os.kill(os.getpid(), signal.SIGTERM)
        super().append(row)


def batch_into(path, tasks, store_type=ResultsStore):
    store = store_type(path)
    try:
        return run_batch(tasks, store, store.open(), workers=0, fn=ok_row)
    finally:
        store.close()


def test_sigterm_while_a_row_is_written_stops_after_that_row_and_resumes(tmp_path):
    grasps = write_grasps(tmp_path / "g.csv", [[g, *CUBE_ROW] for g in "abc"])
    tasks = make_tasks(read_grasp_table(grasps), BatchConfig(models=("reach",)))
    before = signal.getsignal(signal.SIGTERM)
    summary = batch_into(tmp_path / "r.csv", tasks, TerminatedWhileWriting)
    assert summary.interrupted and summary.ran == 1 and summary.stopped_by == "SIGTERM"
    assert summary.exit_status == 143
    assert signal.getsignal(signal.SIGTERM) == before
    assert [r["grasp_id"] for r in read_rows(tmp_path / "r.csv")] == ["a"]
    summary = batch_into(tmp_path / "r.csv", tasks)
    assert not summary.interrupted and summary.exit_status == 0
    assert (summary.skipped, summary.ran) == (1, 2)
    assert [r["grasp_id"] for r in read_rows(tmp_path / "r.csv")] == ["a", "b", "c"]


UNGUARDED_SCRIPT = """
import sys
sys.path.insert(0, {repo!r})
from engine.batch.grasp_table import read_grasp_table
from engine.batch.runner import local_results
from engine.batch.tasks import BatchConfig, make_tasks
from tests.engine.batch.test_runner import ok_row

tasks = make_tasks(read_grasp_table({grasps!r}), BatchConfig(models=("reach",)))
for row in local_results(tasks, 1, ok_row):  # no 'if __name__ == "__main__":' around it
    print("ROW", row["status"], row["error"])
"""


@pytest.mark.slow
def test_a_batch_from_an_unguarded_script_names_the_missing_main_guard(tmp_path):
    """Workers start by importing the main module (spawn): a script that starts a batch
    without the guard starts it again in each worker, which dies. The error row must say
    so, not only blame the solver or memory."""
    import subprocess
    import sys

    from tests.conftest import REPO

    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    script = tmp_path / "label_my_grasps.py"
    script.write_text(UNGUARDED_SCRIPT.format(repo=str(REPO), grasps=str(grasps)))
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    rows = [line for line in out.stdout.splitlines() if line.startswith("ROW")]
    assert rows, out.stderr[-2000:]
    assert rows[0].startswith("ROW error"), rows
    assert "label_my_grasps.py starts the batch without an" in rows[0], rows
