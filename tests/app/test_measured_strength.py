"""The grip strength a run measured, beside the models' margins (issue 41): with
Parameters > Disturbance set to "down", a finished run of the example cube shows the margin
IPC measured ((pull down at slip + weight) / weight) under the predictions table, and an edit
of the grasp hides it (it belongs to the run's grasp)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.grasp import Grasp
from engine.grasp.strength import measured_margin


def test_the_measured_margin_shows_under_the_predictions(window, qtbot):
    panel = window.predictions
    assert panel.measured_label.isHidden()
    combo = window.param_dock.fields["disturb"].editor
    assert [combo.itemText(k) for k in range(combo.count())][:3] == ["off", "all", "along"]
    assert window.editing.edit_param("disturb", "down")
    window.editing.edit_param("n_trials", 1)
    assert window.runs.start_simulation()
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
    r = window.doc.run.trials[0].result
    assert r.success and "down" in r.strength, (r.reason, r.error)
    qtbot.waitUntil(lambda: not panel.measured_label.isHidden(), timeout=10_000)
    text = panel.measured_label.text()
    margin = measured_margin(r.strength_weights["down"])
    assert f"margin {margin:.3g}" in text and f"down {r.strength['down']:.3g} N" in text
    # Coulomb: the centred 3 g cube at mu F per pad slips at 2 mu F (+- 5 %) in all.
    pull = r.strength["down"] + window.doc.obj.mass_kg * 9.81
    assert pull == pytest.approx(2 * window.doc.params.mu * r.grip_force_n, rel=0.05)
    # Another grasp: the run's strength is not this grasp's.
    d = window.doc
    window.editing.set_grasp(Grasp(d.grasp.center + np.array([0.0, 0.002, 0.0]), d.grasp.axis, 0.0))
    qtbot.waitUntil(panel.measured_label.isHidden, timeout=10_000)
    window.editing.edit_param("disturb", "off")
