"""The MuJoCo baseline's row when it cannot run (mujoco not installed, the baseline failing on
an object): the row says "could not run" and why, not a red "no" that reads as a prediction,
and the worker's log says each kind of failure once, not at every request (79 identical
lines were seen)."""

from __future__ import annotations

import logging

import pytest

from app.workers import analysis
from engine.analytic.registry import MUJOCO


class _Job:
    request = 7
    grasp = params = seed = None


@pytest.fixture
def failing(monkeypatch):
    import app.mujoco_prediction as mp
    import engine.grasp.simulation as sim

    monkeypatch.setattr(sim, "build_pad", lambda params: type("Pad", (), {"vertices": None}))
    monkeypatch.setattr(analysis, "_LOGGED", set())

    def use(error: Exception) -> None:
        def fail(*args, **kwargs):
            raise error

        monkeypatch.setattr(mp, "mujoco_prediction", fail)

    return use


def test_a_missing_mujoco_is_could_not_run_with_the_extra_to_install(failing):
    failing(ImportError("No module named 'mujoco'"))
    row = analysis._mujoco(_Job(), None, 0)
    assert row.model == MUJOCO and row.details[analysis.COULD_NOT_RUN]
    assert row.reason == (
        "could not run: mujoco is not installed (No module named 'mujoco'); "
        "pip install 'ipcgrasp[mujoco]'"
    )


def test_the_same_failure_is_logged_once(failing, caplog):
    failing(RuntimeError("no convex decomposition"))
    with caplog.at_level(logging.INFO, logger=analysis.log.name):
        for _ in range(5):
            row = analysis._mujoco(_Job(), None, 0)
    assert row.reason == "could not run: RuntimeError: no convex decomposition"
    assert len([r for r in caplog.records if "could not run" in r.getMessage()]) == 1


@pytest.mark.gui
def test_the_predictions_table_shows_could_not_run_not_a_red_no(qtbot, failing):
    from app.tables import PredictionsPanel

    failing(ImportError("No module named 'mujoco'"))
    panel = PredictionsPanel()
    qtbot.addWidget(panel)
    panel.set_results(1, [analysis._mujoco(_Job(), None, 0)])
    row = [s.name for s in panel.models].index(MUJOCO)
    cell = panel.table.item(row, 1)
    assert cell.text() == "could not run"
    assert "pip install 'ipcgrasp[mujoco]'" in cell.toolTip()
    assert cell.background().color().name() != "#fdecea"  # not the failed prediction's red
