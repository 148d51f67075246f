"""`--models mujoco` in batches: one task per planned trial, paired with IPC's, reduced like IPC."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco", reason="the MuJoCo baseline needs the mujoco extra")

from engine.batch.grasp_table import read_grasp_table
from engine.batch.task_run import run_task
from engine.batch.tasks import IPC, MUJOCO, BatchConfig, make_tasks, parse_models
from engine.evaluation.labels import predictions_from_rows
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from tests.conftest import SHARED_DATA

REACH = SHARED_DATA / "reach_cube" / "reach_cube_3cm.json"


@pytest.mark.skipif(not REACH.exists(), reason=f"{REACH} is absent")
def test_mujoco_tasks_pair_with_ipc_trials_and_evaluate_reduces_them_like_ipc():
    """Common random numbers: MuJoCo trial k runs IPC trial k's perturbed pose (same grasp seed),
    and evaluate's prediction is the mean success of the grasp's trials."""
    assert parse_models("ipc,mujoco") == (IPC, MUJOCO)
    table = read_grasp_table(str(REACH), limit=1)
    config = BatchConfig(
        models=(IPC, MUJOCO),
        spec=TrialSpec(n_trials=3, seed=0),
        params=SimulationParams(squeeze_force_n=20.0, auto_open_m=0.02),
    )
    tasks = make_tasks(table, config)
    ipc = [t for t in tasks if t.model == IPC]
    mj = [t for t in tasks if t.model == MUJOCO]
    assert [t.trial for t in mj] == [t.trial for t in ipc] == [0, 1, 2]
    assert {t.grasp_seed for t in mj} == {t.grasp_seed for t in ipc}
    assert len({t.key for t in tasks}) == len(tasks)
    rows = [run_task(t) for t in mj]
    assert all(r["status"] == "ok" for r in rows), [r["error"] for r in rows]
    for row in rows:
        assert row["perturbation_dx"] != ""  # the planned offset, as IPC rows record it
    lifted = [r for r in rows if r["success"] is True]
    assert lifted  # the physical grasp 0 lifts in 5 of 5
    for row in lifted:  # a lifted trial held the squeeze force, 20 N per pad
        assert float(row["grip_force_1"]) == pytest.approx(20.0, rel=0.03)  # type: ignore[arg-type]
    text_rows = [{k: str(v) for k, v in r.items()} for r in rows]
    (pred,) = predictions_from_rows(text_rows)
    wins = sum(r["success"] is True for r in rows)
    assert pred.model == MUJOCO
    assert pred.robustness[table.grasps[0].grasp_id] == pytest.approx(wins / 3)
