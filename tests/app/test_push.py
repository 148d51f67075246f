"""The push (issues 39 and 41): during the hold, Ctrl + drag on the object pushes it with the
force the drag asks for (a drag across the object's size asks for the grip's friction 2 mu F),
in a worker, the trial re-run and its push frames streaming; the status line says whether the
grip held. Driven by mouse events on the 3D view, as a user drags."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from tests.app.test_sample_grasps import _display, _widget_pos

CTRL = Qt.KeyboardModifier.ControlModifier


def _mouse(widget, kind, pos: QPoint, held: bool) -> None:
    buttons = Qt.MouseButton.LeftButton if held else Qt.MouseButton.NoButton
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    event = QMouseEvent(kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons, CTRL)
    QApplication.sendEvent(widget, event)


def _simulate(window, qtbot):
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=120_000)
    rec = window.doc.run.trials[0]
    assert rec.result.success, rec.result.reason
    window.doc.dirty = False  # a push replaces the run: no "save first?" in these tests
    return rec


def _drag_on_object(window, qtbot, rec, frame_index, along_screen_down_m):
    """Show frame `frame_index`, Ctrl + drag from the object's centre by `along_screen_down_m`
    (world metres, down the screen at the object's depth); the drag's world vector."""
    window.scene.seek(frame_index)
    qtbot.waitUntil(lambda: window.timeline.index == frame_index, timeout=5_000)
    window.viewport.render_now()
    f = rec.frames[frame_index]
    com = np.asarray(window.doc.run.obj.center_of_mass)
    start = f.object_pose[:3, :3] @ com + f.object_pose[:3, 3]
    cam = window.viewport.plotter.renderer.GetActiveCamera()
    look = np.subtract(cam.GetFocalPoint(), cam.GetPosition())
    up = np.asarray(cam.GetViewUp(), dtype=float)
    up -= look * (up @ look) / (look @ look)
    up /= np.linalg.norm(up)
    end = start - along_screen_down_m * up
    plotter = window.viewport.plotter
    a, b = (
        _widget_pos(plotter, *_display(window, start)),
        _widget_pos(plotter, *_display(window, end)),
    )
    camera = window.viewport.camera_position()
    _mouse(plotter, QEvent.Type.MouseButtonPress, a, True)
    _mouse(plotter, QEvent.Type.MouseMove, QPoint((a.x() + b.x()) // 2, (a.y() + b.y()) // 2), True)
    drawn = window.viewport.push_arrow.drawn
    _mouse(plotter, QEvent.Type.MouseMove, b, True)
    _mouse(plotter, QEvent.Type.MouseButtonRelease, b, False)
    assert window.viewport.camera_position() == camera  # the drag pushed, it did not spin
    return end - start, drawn


def test_a_drag_during_the_hold_pushes_the_held_object_and_says_whether_it_held(window, qtbot):
    rec = _simulate(window, qtbot)
    size = float(np.ptp(np.asarray(window.doc.obj.vertices), axis=0).max())
    capacity = 2 * window.doc.params.mu * rec.result.grip_force_n
    last = len(rec.frames) - 1
    assert rec.frames[last].phase == "hold"

    # A short drag: a tenth of the object's size asks for a tenth of the grip's friction.
    drag, drawn = _drag_on_object(window, qtbot, rec, last, 0.1 * size)
    assert drawn  # the arrow follows the drag
    status = window.status_label.text()
    assert window.sim.is_running() and "pushing trial 0" in status, status
    run = window.doc.run
    assert run.push is not None
    force = np.asarray(run.push.force_n)
    assert np.linalg.norm(force) == pytest.approx(0.1 * capacity, rel=0.15)
    assert force @ drag > 0.95 * np.linalg.norm(force) * np.linalg.norm(drag)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=120_000)
    pushed = run.trials[0]
    assert pushed.result.success and pushed.result.push["held"] == 1.0
    assert pushed.frames[-1].phase == "push" and pushed.frames[len(rec.frames) - 1].phase == "hold"
    assert "push of" in window.status_label.text() and ": held" in window.status_label.text()
    # The push's frames draw its arrow onto the pushed point while it pushes.
    first_push = next(i for i, f in enumerate(pushed.frames) if f.phase == "push")
    window.doc.dirty = False
    window.scene.seek(first_push + 5)
    qtbot.waitUntil(lambda: window.viewport.push_arrow.drawn, timeout=5_000)

    # Twice the grip's friction pulls it out: not held.
    _drag_on_object(window, qtbot, pushed, first_push - 1, 2.0 * size)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=120_000)
    out = window.doc.run.trials[0].result
    assert out.push["held"] == 0.0 and out.push["moved"] > window.doc.params.slip_tolerance_m
    assert "NOT held" in window.status_label.text()
    window.doc.dirty = False


def test_a_push_needs_a_held_object_and_the_view_says_so(window, qtbot):
    rec = _simulate(window, qtbot)
    run = window.doc.run
    assert rec.frames[0].phase == "squeeze"
    _drag_on_object(window, qtbot, rec, 0, 0.01)
    assert not window.sim.is_running() and window.doc.run is run  # nothing started
    assert "scrub to the hold" in window.status_label.text()
    assert not window.viewport.push_arrow.drawn
    window.doc.dirty = False
