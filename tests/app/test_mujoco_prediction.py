"""The MuJoCo baseline in the app: a row of the predictions table, and its run on the timeline."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco", reason="the MuJoCo baseline needs the mujoco extra")


def test_mujoco_prediction_appears_for_the_default_grasp_and_its_run_plays(window, qtbot):
    panel = window.predictions
    qtbot.waitUntil(
        lambda: "mujoco" in panel.results or "not available" in panel.status.text(),
        timeout=120_000,
    )
    result = panel.results["mujoco"]
    row = 4  # the fifth row of the predictions table (app.workers.analysis.prediction_models)
    assert panel.table.item(row, 0).text() == "MuJoCo (rigid pads)"
    assert panel.table.item(row, 1).text() in ("yes", "no")
    assert result.success, result.reason  # the default grasp lifts the 3 g cube
    frames = result.details["frames"]
    assert frames and frames[-1].phase == "hold"

    # Double-clicking the row (the controller's slot) plays the nominal trial on the timeline.
    assert window.analysis_ctl.play_model_run(row)
    assert window.doc.run.trials[0].result.success
    assert len(window.timeline.series) == len(frames)
    assert window.model.mode == "play"
    window.timeline.seek(len(frames) - 1)
    assert window.timeline.index == len(frames) - 1
    window.timeline.toggle_play()
    window.timeline.toggle_play()
    window.doc.dirty = False
