"""Help where users look for it, in the real window: F1 and ? show every shortcut (from the
window's own actions) and the mouse actions, Esc closes it; the camera presets look at the
object from the front, the side and the top and fit it; the status line says what to do next."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def test_f1_and_question_mark_list_the_keys(window, qtbot):
    QTest.keyClick(window, Qt.Key.Key_F1)
    overlay = window.help_overlay
    qtbot.waitUntil(lambda: overlay is not None and overlay.isVisible(), timeout=5_000)
    rows = dict(overlay.rows)
    # Every action that has a shortcut is listed with it (declared once, in app/menus.py).
    assert rows["Simulate"] == "F5" and rows["Cancel"] == "Esc"
    assert rows["Pin trial for comparison"] == "Ctrl+K"
    assert rows["Open data set"] == "Ctrl+Shift+O"
    assert rows["Keys and clicks"] == "F1"
    assert rows["Camera: Top"] == "Ctrl+3"
    assert rows["Timeline: play / pause"] == "Space"
    assert "right-click" in overlay.label.text() and "F5 simulates" in overlay.label.text()
    QTest.keyClick(overlay, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not overlay.isVisible(), timeout=5_000)
    # "?" opens it too (Shift+/ on most layouts), and again closes it.
    QTest.keyClick(window, Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.help_overlay.isVisible(), timeout=5_000)
    QTest.keyClick(window.help_overlay, Qt.Key.Key_Question)
    qtbot.waitUntil(lambda: not window.help_overlay.isVisible(), timeout=5_000)


def test_camera_presets_look_from_the_front_side_and_top(window):
    vp = window.viewport
    cam = vp.plotter.renderer.camera
    # The presets frame the object and the open gripper (issue 39 point 6).
    centre = vp.camera.framed_bounds().mean(axis=1)
    for name, direction in (("front", [0, -1, 0]), ("side", [1, 0, 0]), ("top", [0, 0, 1])):
        window.menus.camera_actions[name].trigger()
        view = np.asarray(cam.position) - np.asarray(cam.focal_point)
        np.testing.assert_allclose(view / np.linalg.norm(view), direction, atol=1e-9)
        np.testing.assert_allclose(cam.focal_point, centre, atol=1e-9)
    angle = vp.view_angle_deg()
    cam.zoom(0.2)  # zoomed far out and panned: "fit" brings the object back, direction kept
    pan = np.array([0.05, 0.02, 0.0])
    cam.position = np.asarray(cam.position) + pan
    cam.focal_point = np.asarray(cam.focal_point) + pan
    window.menus.camera_actions["fit"].trigger()
    view = np.asarray(cam.position) - np.asarray(cam.focal_point)
    np.testing.assert_allclose(view / np.linalg.norm(view), [0, 0, 1], atol=1e-6)
    np.testing.assert_allclose(cam.focal_point, centre, atol=1e-9)
    assert vp.view_angle_deg() == angle  # the presets do not zoom in further each time


def test_the_status_line_says_what_to_do_next_after_opening(window):
    assert window.opening.load_example()
    text = window.status_label.text()
    assert "F5 simulates" in text and "right-click places the grasp" in text and "F1" in text
