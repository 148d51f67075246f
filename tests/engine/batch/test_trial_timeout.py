"""A batch enforces a wall-clock limit per task: a task that never ends becomes an error row
saying so, and the batch goes on to the next task and finishes (a stalled trial once held a
batch for more than 4 minutes)."""

from __future__ import annotations

import pytest

import engine.batch.task_run as tasks
from engine.cli.main import main
from tests.engine.batch.conftest import read_rows, write_grasps


def _never_ends(task, row, obj, grasp):
    while True:
        pass


def test_a_task_that_never_ends_becomes_an_error_row_and_the_batch_goes_on(
    tmp_path, monkeypatch, fake_analytic
):
    real = tasks._run_analytic

    def hangs_on_one(task, row, obj, grasp):
        if task.grasp.grasp_id == "hangs":
            _never_ends(task, row, obj, grasp)
        real(task, row, obj, grasp)

    monkeypatch.setattr(tasks, "_run_analytic", hangs_on_one)
    grasps = write_grasps(
        tmp_path / "g.csv",
        [
            ["hangs", "cube", "0", "0", "0.015", "1", "0", "0"],
            ["fine", "cube", "0.001", "0", "0.015", "1", "0", "0"],
        ],
    )
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach", "--workers", "0", "--quiet"]
    assert main(["batch", *args, "--trial-timeout", "0.5"]) == 1  # the timed-out error row
    rows = {r["grasp_id"]: r for r in read_rows(out)}
    assert rows["hangs"]["status"] == "error"
    assert rows["hangs"]["reason"] == "timed out"
    assert "0.5 s wall-clock limit" in rows["hangs"]["error"]
    assert "--trial-timeout" in rows["hangs"]["error"]
    assert rows["fine"]["status"] == "ok"


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_bad_limit_is_refused(tmp_path, value, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [["a", "cube", "0", "0", "0.015", "1", "0", "0"]])
    out = tmp_path / "r.csv"
    code = main(["batch", str(grasps), "--out", str(out), "--trial-timeout", value])
    assert code == 2
    assert "--trial-timeout must be a number of seconds >= 0" in capsys.readouterr().err
    assert not out.exists()
