"""The grip force a Psi_th implies, beside the Psi_th field, and the analytic models' grip force
after a simulation (issues 15 and 19), driven through the real window."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.param_dock import STOP_GRIPPER, STOP_PSI

PSI_TH = 1e-7  # J: about 2.2 N per pad on the cube's default grasp at E = 1e8 Pa
SQUEEZE_S = 120_000  # ms: a squeeze is ~1 s, but the worker starts on first use, at nice 10


def _type(box, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, Qt.Key.Key_Return)


def _forces(text: str) -> tuple[float, float]:
    m = re.search(r"([\d.]+) / ([\d.]+) N per pad", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


def test_typing_a_psi_th_shows_the_grip_force_it_implies_on_the_grasp(window, qtbot):
    from engine.grasp.calibration import force_at_psi

    dock = window.param_dock
    label = dock.psi_force_label
    assert not label.isVisible()  # the gripper's force stop: no Psi_th, no row
    dock.stop_combo.setCurrentIndex(STOP_PSI)
    _type(dock.psi_spin, "1e-7")
    assert window.doc.params.psi_th_j == pytest.approx(PSI_TH)
    assert label.isVisible()
    assert label.text() == "computing…"
    qtbot.waitUntil(lambda: "N per pad" in label.text(), timeout=SQUEEZE_S)
    assert window.model.psi_force.status == "done", label.text()
    shown = _forces(label.text())
    # The engine's own answer for the same object, grasp and parameters.
    d = window.doc
    expected = force_at_psi(d.obj, d.grasp, d.params)
    assert expected.stopped_by == "psi"
    assert shown == pytest.approx(expected.grip_force_n, abs=0.006)
    assert 1.0 < shown[0] < 5.0
    assert "Ψ/F²" in label.toolTip()
    # The analytic models now assume that force (the same grasp, no run yet).
    panel = window.predictions
    qtbot.waitUntil(lambda: "implies on this grasp" in panel.force_label.text(), timeout=60_000)
    assert panel.force_n == pytest.approx(expected.grip_mean_n, rel=1e-9)
    assert f"at {expected.grip_mean_n:.3g} N" in panel.force_label.text()

    # Another E squeezes again; going back is remembered (no new squeeze).
    sent = window.psi_force.jobs_sent
    _type(dock.e_spin, "3e7")
    assert label.text() == "computing…"
    qtbot.waitUntil(lambda: "N per pad" in label.text(), timeout=SQUEEZE_S)
    softer = _forces(label.text())
    assert softer != shown
    window.menus.undo_action.trigger()
    assert window.doc.params.youngs_modulus_pa == pytest.approx(1e8)
    assert _forces(label.text()) == shown
    assert window.psi_force.jobs_sent == sent + 1

    # A Psi_th the YuMi's 20 N cannot reach says so; one the pads reach alone says why not.
    _type(dock.psi_spin, "1e-3")
    qtbot.waitUntil(lambda: "reached first" in label.text(), timeout=SQUEEZE_S)
    assert "the gripper's 20 N is reached first" in label.text()
    _type(dock.psi_spin, "1e-14")
    qtbot.waitUntil(lambda: label.text().startswith("no grip"), timeout=SQUEEZE_S)
    assert "before gripping" in label.text() and "raise Psi_th" in label.toolTip()

    dock.stop_combo.setCurrentIndex(STOP_GRIPPER)
    assert not label.isVisible() and window.model.psi_force.status == "off"


def test_after_a_run_the_models_use_the_force_the_simulation_reached(window, qtbot):
    """The analytic predictions shown beside a simulation use the grip force it reached at
    the end of its squeeze, and say so; an edit makes it another grasp's force again."""
    dock, panel, label = window.param_dock, window.predictions, window.param_dock.psi_force_label
    dock.stop_combo.setCurrentIndex(STOP_PSI)
    _type(dock.psi_spin, "1e-7")
    qtbot.waitUntil(lambda: "N per pad" in label.text(), timeout=SQUEEZE_S)
    assert window.runs.start_simulation()
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=300_000)
    result = window.doc.run.trials[0].result
    assert result is not None and result.success, result
    reached = result.grip_force_n
    qtbot.waitUntil(
        lambda: "simulation's squeeze force" in panel.force_label.text(), timeout=60_000
    )
    assert panel.force_n == pytest.approx(reached, rel=1e-9)
    assert panel.force_label.text() == (
        f"Grip force: at {reached:.3g} N, the simulation's squeeze force"
    )
    assert window.analysis_ctl.force.source == "simulation"
    assert window.model.closing_force_n == pytest.approx(reached, rel=1e-9)
    # Beside Psi_th: the force the run reached, per pad.
    assert label.text().endswith("N per pad reached in the simulation"), label.text()
    assert _forces(label.text()) == pytest.approx(
        (result.grip_force1_n, result.grip_force2_n), abs=0.006
    )
    # The predictions' table holds the answer to a request made with that force.
    qtbot.waitUntil(lambda: panel.stage == "robust", timeout=60_000)
    assert panel.request == window.analysis.latest_request

    # Another friction: the run is another grasp's; the models go back to Psi_th's force.
    window.editing.edit_param("mu", 0.5)
    qtbot.waitUntil(lambda: "implies on this grasp" in panel.force_label.text(), timeout=SQUEEZE_S)
    assert not label.text().endswith("reached in the simulation")
    window.menus.undo_action.trigger()
    qtbot.waitUntil(
        lambda: "simulation's squeeze force" in panel.force_label.text(), timeout=60_000
    )
    assert label.text().endswith("reached in the simulation")


def test_with_the_gripper_force_stop_the_run_force_replaces_the_preset_force(window, qtbot):
    panel = window.predictions
    qtbot.waitUntil(lambda: "gripper's force" in panel.force_label.text(), timeout=60_000)
    assert panel.force_n == pytest.approx(20.0)
    assert window.runs.start_simulation()
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=300_000)
    result = window.doc.run.trials[0].result
    qtbot.waitUntil(
        lambda: "simulation's squeeze force" in panel.force_label.text(), timeout=60_000
    )
    assert panel.force_n == pytest.approx(result.grip_force_n, rel=1e-9)
    assert panel.force_n == pytest.approx(20.0, rel=0.02)
