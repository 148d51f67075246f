"""Provenance: every row names the engine build that made it, task keys include it, and a
resumed batch refuses to mix rows of different builds unless told to."""

from __future__ import annotations

import csv

import pytest

from engine.batch import tasks as batch_tasks
from engine.cli.main import main
from engine.version import build_id
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps


def batch(*args: str) -> int:
    return main(["batch", *args, "--quiet", "--workers", "0"])


def _rewrite_versions(path, version: str) -> None:
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            # Another build's task keys differ, since they include the build.
            w.writerow({**r, "ipcgrasp_version": version, "task_key": "old" + r["task_key"]})


def test_rows_name_the_build_and_other_builds_are_not_mixed_in(
    tmp_path, fake_analytic, capsys, monkeypatch
):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach", "--samples", "3"]
    assert batch(*args) == 0
    (row,) = read_rows(out)
    assert row["ipcgrasp_version"] == build_id()

    # The same file, as if written by an older engine: refused, nothing appended.
    _rewrite_versions(out, "0.1.0")
    before = out.read_bytes()
    assert batch(*args) == 2
    err = capsys.readouterr().err
    assert "holds 1 rows of ipcgrasp 0.1.0" in err and "--allow-mixed-versions" in err
    assert out.read_bytes() == before

    # Allowed: the old row is kept and the task runs again under this build (its key differs).
    assert batch(*args, "--allow-mixed-versions") == 0
    rows = read_rows(out)
    assert [r["ipcgrasp_version"] for r in rows] == ["0.1.0", build_id()]
    assert rows[0]["task_key"] != rows[1]["task_key"]


def test_task_keys_change_with_the_engine_build(monkeypatch):
    from engine.batch.tasks import BatchConfig

    cfg = BatchConfig()

    def key() -> str:
        return batch_tasks._digest(batch_tasks._model_settings("ipc", cfg.params, cfg))

    a = key()
    monkeypatch.setattr(batch_tasks, "build_id", lambda: "9.9.9+etest")
    assert key() != a


@pytest.mark.parametrize("n_trials, pose", [(1, "nominal"), (5, "perturbed")])
def test_ipc_task_settings_say_which_poses_run(n_trials, pose):
    from engine.batch.tasks import BatchConfig
    from engine.grasp.trials import TrialSpec

    cfg = BatchConfig(spec=TrialSpec(n_trials=n_trials))
    assert batch_tasks._model_settings("ipc", cfg.params, cfg)["pose"] == pose
