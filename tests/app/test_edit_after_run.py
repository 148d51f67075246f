"""Issue 39: re-placing the grasp by mouse over a simulated frame, a grasp through empty space,
and the colour bar's clutter, driven by real clicks, keys and mouse moves."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from PySide6.QtCore import QPoint, Qt

from tests.app.test_open_and_edit import _mouse_move, _screen_pos


def _run_to_end(window, qtbot) -> None:
    window.doc.dirty = False
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
    assert window.doc.run.trials[0].status == "done"


def _drawn(window, rest_point) -> QPoint:
    """Widget pixel of a resting-frame point of the object as drawn (its frame's pose)."""
    pose = np.asarray(window.viewport.object.actor.user_matrix)
    return _screen_pos(window, pose[:3, :3] @ np.asarray(rest_point) + pose[:3, 3])


def _statuses(window) -> list[str]:
    seen: list[str] = []
    status = window.ui.status

    def record(text: str, log_it: bool = True) -> None:
        seen.append(text)
        status(text, log_it)

    window.ui.status = record
    return seen


def test_right_click_on_a_simulated_frame_places_the_grasp_on_the_resting_object(window, qtbot):
    """Issue 39 point 2: after a run, Home shows the first frame (the object settled 0.08 mm
    above its resting height); a right-click on the cube's +x face there said "picked point is
    0.1 mm off the object's surface", on a lifted frame "9.6 mm off", and hovering showed no
    preview. Now the pick is mapped back through the frame's object pose: the hover preview
    appears on the object as drawn, the click places the grasp on the resting cube where it
    was picked, and the view returns to edit mode saying so."""
    _run_to_end(window, qtbot)
    vp, p = window.viewport, window.viewport.plotter
    p.view_vector((1.0, -0.3, 0.2), viewup=(0.0, 0.0, 1.0))
    p.reset_camera()
    p.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: window.model.mode == "play" and window.timeline.index == 0)
    vp.render_now()
    rec = window.doc.run.trials[0]
    lifted = max(range(len(rec.frames)), key=lambda i: rec.frames[i].object_pose[2, 3])
    assert rec.frames[lifted].object_pose[2, 3] > 0.005  # the cube is drawn lifted there
    seen = _statuses(window)
    try:
        for index in (0, lifted):
            window.scene.seek(index)
            qtbot.waitUntil(lambda i=index: window.scene._shown is not None
                            and window.scene._shown[2] == i)  # fmt: skip
            window.scene.present()
            vp.render_now()
            _mouse_move(p, QPoint(3, 3))  # the corner: background, no preview
            qtbot.waitUntil(lambda: vp.preview.points == [], timeout=5_000)
            target = (0.015, 0.004, 0.008)  # on the +x face, below the pads
            pos = _drawn(window, target)
            _mouse_move(p, pos)
            qtbot.waitUntil(lambda: len(vp.preview.points) == 2, timeout=5_000)
            qtbot.waitUntil(lambda: seen and seen[-1].startswith("right-click"), timeout=5_000)
            c0, c1 = vp.preview.points
            np.testing.assert_allclose(c0, target, atol=5e-4)  # resting frame
            assert np.linalg.norm(c1 - c0) == pytest.approx(0.03, abs=1e-3)
            assert seen[-1].startswith("right-click to grasp here: contacts 30.0 mm apart")
            assert "returns to the object at rest" in seen[-1]
            old = window.doc.grasp
            qtbot.mouseClick(p, Qt.MouseButton.RightButton, pos=pos)
            qtbot.waitUntil(lambda o=old: window.doc.grasp is not o, timeout=5_000)
            g = window.doc.grasp
            np.testing.assert_allclose(g.axis, [-1.0, 0.0, 0.0], atol=1e-6)
            np.testing.assert_allclose(g.center, [0.0, 0.004, 0.008], atol=5e-4)
            assert window.model.mode == "edit"
            np.testing.assert_allclose(vp.object.actor.user_matrix, np.eye(4))
            assert seen[-1].startswith("grasp placed: contacts 30.0 mm apart")
            assert "back in edit mode with the object at rest" in seen[-1]
            assert not any("off the object's surface" in s for s in seen)
        # Typing in a grasp field over a frame also goes back, and says so.
        qtbot.keyClick(window, Qt.Key.Key_End)
        qtbot.waitUntil(lambda: window.model.mode == "play")
        window.scene.present()
        window.grasp_dock.center[2].setValue(12.0)
        assert window.model.mode == "edit"
        assert any(s.startswith("grasp changed: the view is back in edit mode") for s in seen)
    finally:
        del window.ui.status


def test_no_colour_bar_until_pads_are_coloured_and_one_beside_the_comparison(window, qtbot):
    """Issue 39 point 9: the closing-axis line drew a "Distance 0-1" colour bar over the view
    before any simulation; back in edit mode after a run the energy bar stayed beside it (two
    bars); side by side the bar sat over the left half's run. Now: none in edit mode, one while
    coloured frames are shown, in the right half's renderer when comparing side by side."""
    vp = window.viewport
    assert vp.colour_bar.bars == {}
    _run_to_end(window, qtbot)
    window.scene.present()
    assert vp.colour_bar.bars == {"strain energy density (J/m^3)": "main"}
    window.grasp_dock.center[2].setValue(14.0)  # an edit: the open gripper again
    assert window.model.mode == "edit" and vp.colour_bar.bars == {}
    qtbot.keyClick(window, Qt.Key.Key_End)
    window.scene.present()
    assert vp.colour_bar.bars == {"strain energy density (J/m^3)": "main"}
    window.compare.pin()
    _run_to_end(window, qtbot)
    window.menus.side_by_side_action.setChecked(True)
    window.scene.present()
    qtbot.waitUntil(lambda: vp.side_by_side.renderer is not None, timeout=5_000)
    assert vp.colour_bar.bars == {"strain energy density (J/m^3)": "side"}
    window.menus.side_by_side_action.setChecked(False)
    window.scene.present()
    assert vp.colour_bar.bars == {"strain energy density (J/m^3)": "main"}


def test_the_colour_scale_of_a_new_run_starts_pale(window, qtbot):
    """Issue 39 point 9: a new run's first frames (pads at rest, strain energy ~1e-5 J/m^3 of
    round-off) set the top of the colour scale to that round-off: the pads started solid red.
    The scale's top is at least a 0.01 % strain's energy (0.5 E 1e-8 = 0.5 J/m^3 at 1e8 Pa)."""
    _run_to_end(window, qtbot)
    rec = window.doc.run.trials[0]
    noise = float(np.percentile(np.concatenate(rec.energy_density[0]), 99))
    assert 0 < noise < 1e-3  # at rest: round-off
    first = type(rec)(rec.trial, rec.gripper_pose, "running")
    first.frames, first.energy_density = rec.frames[:1], rec.energy_density[:1]
    window.model.pads.reset_ranges()
    top = window.model.field_range(first, "energy")
    assert top == pytest.approx(0.5 * window.doc.params.youngs_modulus_pa * 1e-8)
    assert noise / top < 1e-3  # drawn at the pale end of the scale


def _ball_and_box_file(tmp_path):
    ball = trimesh.creation.icosphere(subdivisions=3, radius=0.02)
    ball.apply_translation([-0.03, 0.0, 0.02])
    box = trimesh.creation.box(extents=[0.03] * 3)
    box.apply_translation([0.025, 0.0, 0.015])
    path = tmp_path / "ball_and_box.stl"
    trimesh.util.concatenate([ball, box]).export(path)
    return path


def test_a_grasp_in_the_gap_between_two_parts_is_invalid_before_any_run(
    window, qtbot, tmp_path, monkeypatch
):
    """Issue 39 point 3: a 40 mm ball and a 30 mm box 20 mm apart, opened "all of them, as
    one rigid object": the default grasp sat in the gap (Width blank, Status valid) and F5 ran
    until the jaws closed on each other. Now the default grasp is one the check accepts (Width
    shown), and typing the gap's centre into the grasp fields makes it invalid with the reason;
    F5 refuses it."""
    monkeypatch.setattr(window.ui, "choose_body", lambda name, bodies, current=None: "all")
    assert window.opening.open_path(_ball_and_box_file(tmp_path))
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=180_000)
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    assert window.model.grasp_valid, window.model.grasp_reason
    assert window.model.grasp_width_mm is not None
    assert "mm between contacts" in window.grasp_dock.width_label.text()
    # The centre of mass, in the gap, typed into the fields (mm).
    com = np.asarray(window.doc.obj.center_of_mass) * 1e3
    dock = window.grasp_dock
    for k, value in enumerate(com):
        dock.center[k].setValue(float(value))
    dock.axis[1].setValue(1.0)  # across the gap's long side: y
    dock.axis[0].setValue(0.0)
    dock.axis[2].setValue(0.0)
    qtbot.waitUntil(lambda: window.model.grasp_valid is False, timeout=60_000)
    assert "closing line passes through empty space" in window.model.grasp_reason
    assert "invalid" in dock.status_label.text()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert not window.sim.is_running()
    assert "empty space" in window.ui.errors[-1]
