"""Issue 39 point 6, in the real window with keys and wheel events: after wheel zooms each
camera preset frames the object and the open gripper (their corners projected inside the
view), Ctrl+R puts the initial view back, Ctrl+5 switches to an orthographic view that frames
them too, and Ctrl+4 cuts the scene by the grasp plane, also while frames play."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

CTRL = Qt.KeyboardModifier.ControlModifier


def _wheel(widget, steps: int) -> None:
    """`steps` notches of the mouse wheel over the view's centre (positive: zoom in)."""
    for _ in range(abs(steps)):
        at = QPointF(widget.width() / 2, widget.height() / 2)
        event = QWheelEvent(
            at, widget.mapToGlobal(at), QPoint(0, 0), QPoint(0, 120 if steps > 0 else -120),
            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase, False,
        )  # fmt: skip
        QApplication.sendEvent(widget, event)


def _key(window, qtbot, key) -> None:
    window.activateWindow()
    qtbot.keyClick(window, key, CTRL)


def projected_extent(renderer, box: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Display-pixel (min, max) of `box`'s ((3, 2) bounds) corners as `renderer` draws them."""
    points = []
    for p in [(x, y, z) for x in box[0] for y in box[1] for z in box[2]]:
        renderer.SetWorldPoint(*p, 1.0)
        renderer.WorldToDisplay()
        points.append(renderer.GetDisplayPoint()[:2])
    pts = np.asarray(points)
    return pts.min(axis=0), pts.max(axis=0)


def _inside(vp, box) -> bool:
    """Whether `box`'s eight corners project inside the view (its renderer's pixels)."""
    r = vp.plotter.renderer
    lo, hi = projected_extent(r, np.asarray(box))
    width, height = r.GetSize()
    return bool(np.all(lo >= 0) and hi[0] <= width and hi[1] <= height)


def _camera(vp) -> np.ndarray:
    cp = vp.camera_position()
    return np.array([cp.position, cp.focal_point, cp.viewup], dtype=float)


def _cube_box(vp):
    return np.asarray(vp.object.actor.GetBounds()).reshape(3, 2)


def test_presets_frame_the_cube_and_gripper_after_wheel_zooms(window, qtbot):
    vp = window.viewport
    cube = _cube_box(vp)
    assert np.allclose(cube[:, 1] - cube[:, 0], 0.03, atol=1e-6)  # the 30 mm cube
    keys = {"front": Qt.Key.Key_1, "side": Qt.Key.Key_2, "top": Qt.Key.Key_3, "fit": Qt.Key.Key_0}
    for zoom in (6, -8, 12):  # in, far out, far in
        _wheel(vp.plotter, zoom)
        for name, key in keys.items():
            _key(window, qtbot, key)
            assert _inside(vp, cube), (name, zoom)
            assert _inside(vp, vp.camera.framed_bounds()), (name, zoom)  # the open gripper too
            _wheel(vp.plotter, zoom)
    # Each preset gives the same picture whatever the zoom before.
    _key(window, qtbot, Qt.Key.Key_1)
    first = _camera(vp)
    _wheel(vp.plotter, 9)
    _key(window, qtbot, Qt.Key.Key_1)
    np.testing.assert_allclose(_camera(vp), first, atol=1e-12)


def test_reset_view_restores_the_initial_view(window, qtbot):
    vp = window.viewport
    assert window.opening.load_example()
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    initial = _camera(vp)
    angle = vp.view_angle_deg()
    assert _inside(vp, vp.camera.framed_bounds())
    _wheel(vp.plotter, 7)
    _key(window, qtbot, Qt.Key.Key_3)  # another direction, then zoomed again
    _wheel(vp.plotter, -4)
    assert not np.allclose(_camera(vp), initial)
    _key(window, qtbot, Qt.Key.Key_R)
    np.testing.assert_allclose(_camera(vp), initial, atol=1e-12)
    assert vp.view_angle_deg() == angle


def test_orthographic_toggle_frames_the_scene(window, qtbot):
    vp = window.viewport
    cam = vp.plotter.renderer.camera
    try:
        _key(window, qtbot, Qt.Key.Key_5)
        assert window.menus.ortho_action.isChecked() and cam.parallel_projection
        assert _inside(vp, vp.camera.framed_bounds())
        _wheel(vp.plotter, 10)  # the wheel zooms a parallel view by its scale
        for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_0, Qt.Key.Key_R):
            _key(window, qtbot, key)
            assert _inside(vp, _cube_box(vp)) and _inside(vp, vp.camera.framed_bounds())
            _wheel(vp.plotter, 10)
    finally:
        _key(window, qtbot, Qt.Key.Key_5)
    assert not window.menus.ortho_action.isChecked() and not cam.parallel_projection


def _section_outline(vp):
    actor = vp.plotter.renderer.actors.get("section_outline")
    return None if actor is None else actor.mapper.dataset


def test_section_through_the_grasp_plane_stays_while_frames_play(window, qtbot):
    vp = window.viewport
    obj = vp.object.actor
    pose = window.doc.grasp.pose()
    try:
        _key(window, qtbot, Qt.Key.Key_4)
        assert window.menus.section_action.isChecked()
        assert obj.mapper.GetNumberOfClippingPlanes() == 1
        assert vp.gripper.pad_actors[0].mapper.GetNumberOfClippingPlanes() == 1
        np.testing.assert_allclose(vp.camera.section.origin, pose[:3, 3])
        np.testing.assert_allclose(vp.camera.section.normal, pose[:3, 2])  # normal to the approach
        outline = _section_outline(vp)
        assert outline is not None and outline.n_points > 0
        # The cut lies in the plane; the camera looks down the approach at it.
        d = (np.asarray(outline.points) - pose[:3, 3]) @ pose[:3, 2]
        assert np.abs(d).max() < 1e-6
        cam = vp.plotter.renderer.camera
        view = np.asarray(cam.focal_point) - np.asarray(cam.position)
        np.testing.assert_allclose(view / np.linalg.norm(view), pose[:3, 2], atol=1e-9)
        # A run's frames keep the section, through the lifted grasp centre.
        assert window.runs.start_simulation(max_frames=40)
        qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
        rec = window.doc.run.trials[0]
        frame = rec.frames[-1]
        assert frame.plate_lift_m > 0.005  # the run got into the lift
        for index in (0, len(rec.frames) - 1):  # away from the frame shown, then the last
            with qtbot.waitSignal(window.scene.frame_displayed, timeout=10_000):
                window.timeline.seek(index)
        assert window.model.mode == "play"
        assert obj.mapper.GetNumberOfClippingPlanes() == 1
        assert _section_outline(vp) is not None and _section_outline(vp).n_points > 0
        lifted = np.asarray(rec.gripper_pose)[:3, 3] + [0.0, 0.0, frame.plate_lift_m]
        np.testing.assert_allclose(vp.camera.section.origin, lifted, atol=1e-9)
    finally:
        if window.menus.section_action.isChecked():
            _key(window, qtbot, Qt.Key.Key_4)
    assert obj.mapper.GetNumberOfClippingPlanes() == 0
    assert _section_outline(vp) is None


def test_help_lists_the_camera_keys(window, qtbot):
    qtbot.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: window.help_overlay.isVisible(), timeout=5_000)
    rows = dict(window.help_overlay.rows)
    assert rows["Camera: Reset view"] == "Ctrl+R"
    assert rows["Camera: Orthographic"] == "Ctrl+5"
    assert rows["Section through the grasp"] == "Ctrl+4"
    assert rows["Camera: Fit object and gripper"] == "Ctrl+0"
    window.help_overlay.close()


def test_the_views_own_r_and_v_keys_reset_the_view_too(window, qtbot):
    """'r' and 'v' typed in the 3D view (pyvista's reset-camera and isometric keys) do View >
    Camera > Reset view: the initial view, framing the object and the open gripper, not
    pyvista's fit of everything drawn (the ground grid included)."""
    vp = window.viewport
    assert window.opening.load_example()
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    initial = _camera(vp)
    for key in (Qt.Key.Key_R, Qt.Key.Key_V):
        _wheel(vp.plotter, 7)
        _key(window, qtbot, Qt.Key.Key_3)
        assert not np.allclose(_camera(vp), initial)
        vp.plotter.setFocus()
        qtbot.keyClick(vp.plotter, key)
        np.testing.assert_allclose(_camera(vp), initial, atol=1e-12)
