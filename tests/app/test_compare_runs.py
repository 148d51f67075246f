"""Compare runs in the real window: pin a trial, change E, run again; the plots draw both
trials, the view the pinned pads and object outlined at the shown frame's time, the runs
tab says what differs; ending the comparison removes all of it."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def _run(window, qtbot, frames: int):
    assert window.runs.start_simulation(max_frames=frames)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
    rec = window.doc.run.trials[0]
    assert len(rec.frames) == frames, rec.result
    return rec


def test_pin_a_trial_then_compare_a_run_with_another_stiffness(window, qtbot):
    first = _run(window, qtbot, 12)
    first_run = window.doc.run.run_id
    QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)  # Pin (Ctrl+K)
    pinned = window.model.pinned
    assert pinned is not None and pinned.label == f"run {first_run}, trial 0"
    assert pinned.record is first and len(pinned.series) == 12
    assert window.plots.pinned is pinned.series
    label = window.compare_label
    assert not label.isHidden() and "same parameters and grasp" in label.text()

    # Another stiffness: the settings differ from the pinned run's at once.
    assert window.editing.edit_param("youngs_modulus_pa", 1e7)
    assert "differs in: E 1e+08 Pa → 1e+07 Pa" in label.text()
    second = _run(window, qtbot, 12)
    assert window.doc.run.run_id != first_run and window.model.pinned is pinned
    assert "differs in: E 1e+08 Pa → 1e+07 Pa" in label.text()
    img = window.plots.grab().toImage()  # both trials painted (the pinned one dashed)
    assert img.width() > 100

    # The view shows the pinned trial's pads and object at the shown frame's time.
    drawn: list[int] = []
    window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
    window.timeline.seek(6)
    qtbot.waitUntil(lambda: 6 in drawn, timeout=5_000)
    k = pinned.frame_at(second.frames[6].time_s)
    assert k == 6  # the same time step of the same procedure
    ghosts = window.viewport.ghost.points
    np.testing.assert_allclose(ghosts[0], first.frames[k].pad_vertices[0])
    np.testing.assert_allclose(ghosts[1], first.frames[k].pad_vertices[1])
    actors = window.viewport.plotter.renderer.actors
    np.testing.assert_allclose(actors["ghost_object"].user_matrix, first.frames[k].object_pose)
    assert actors["ghost_pad0"].prop.style == "Wireframe"

    # End the comparison: no dashed curves, no ghost, no comparison line.
    window.menus.unpin_action.trigger()
    assert window.model.pinned is None and window.plots.pinned is None
    assert label.isHidden()
    names = set(window.viewport.plotter.renderer.actors)
    assert not names & {"ghost_pad0", "ghost_pad1", "ghost_object"}
    window.doc.dirty = False
