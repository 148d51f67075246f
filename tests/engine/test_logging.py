"""The engine logs through `logging`; `--log-level/--log-file` collect the records of the
command and of its spawned batch workers in one place."""

from __future__ import annotations

import pytest

from engine import logs
from engine.cli.main import main
from tests.engine.batch.conftest import write_grasps


@pytest.fixture(autouse=True)
def _restore_logging():
    yield
    logs.configure("warning")  # the default of every command; other handlers are left alone


def test_batch_worker_records_reach_the_log_file(tmp_path, monkeypatch):
    monkeypatch.delenv("IPCGRASP_LOG_FILE", raising=False)
    # A table whose only mesh is missing is refused before any worker starts: one good row.
    grasps = write_grasps(
        tmp_path / "g.csv",
        [
            ["nomesh", "missing.obj", "0", "0", "0.01", "1", "0", "0"],
            ["good", "cube", "0", "0", "0.015", "1", "0", "0"],
        ],
    )
    log_file = tmp_path / "run.log"
    code = main(
        ["--log-level", "info", "--log-file", str(log_file), "batch", str(grasps),
         "--out", str(tmp_path / "r.csv"), "--models", "reach", "--samples", "2",
         "--workers", "1", "--quiet"]
    )  # fmt: skip
    assert code == 1  # the error row of nomesh
    text = log_file.read_text()
    # Written by the spawned worker (its process name), with the task and the reason.
    worker_lines = [line for line in text.splitlines() if "SpawnProcess" in line]
    assert any("grasp nomesh" in line and "failed" in line for line in worker_lines), text


def test_warning_level_keeps_stderr_quiet(tmp_path, capsys):
    assert (
        main(["--log-level", "warning", "analyze", "--models", "soft_point", "--samples", "0"]) == 0
    )
    assert "INFO" not in capsys.readouterr().err
