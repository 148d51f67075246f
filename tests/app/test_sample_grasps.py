"""Edit > Sample grasps in the real window: an L-bracket wider than the YuMi's stroke (generated
here) opens with a valid default grasp, "Sample grasps" draws the candidates from a worker
process as glyphs coloured by quality, and a real left click on a glyph makes that candidate
the grasp (undoable); turning the camera with a drag chooses nothing."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from tests.app.test_open_and_edit import _drag, _screen_pos
from tests.engine import procedural_objects as po


def _widget_pos(widget, display_x: float, display_y: float) -> QPoint:
    ratio = widget.devicePixelRatioF()
    return QPoint(round(display_x / ratio), round(widget.height() - 1 - display_y / ratio))


def _display(window, world) -> tuple[float, float]:
    ren = window.viewport.plotter.renderer
    ren.SetWorldPoint(*world, 1.0)
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    return x, y


def _left(widget, kind, pos: QPoint) -> None:
    buttons = (
        Qt.MouseButton.LeftButton
        if kind == QEvent.Type.MouseButtonPress
        else Qt.MouseButton.NoButton
    )
    event = QMouseEvent(
        kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), Qt.MouseButton.LeftButton,
        buttons, Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def _glyph_point(candidate) -> np.ndarray:
    """The middle of the glyph's palm bar (see app.scene_style.candidate_glyphs)."""
    pose = candidate.grasp.pose()
    return pose[:3, 3] + pose[:3, 2] * (-0.012)


def test_sample_grasps_draws_coloured_glyphs_and_a_click_chooses_one(window, qtbot, tmp_path):
    mesh = po.l_bracket()
    path = po.write_obj(np.asarray(mesh.vertices), np.asarray(mesh.faces), tmp_path / "bracket.obj")
    assert window.opening.open_path(path)
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    # 70 x 60 mm on its base: the grasp through the centre cannot fit the 50 mm YuMi, the
    # default is a sampled one, and the simulator's check accepts it.
    assert window.model.grasp_valid, window.model.grasp_reason
    default = window.doc.grasp

    # A gizmo drag switches the interactor's style twice (pyvista's widget): glyph clicks
    # must still work afterwards (they were ignored once the gizmo had been dragged).
    vp = window.viewport
    window.grasp_dock.gizmo_button.setChecked(True)
    vp.render_now()
    gizmo = vp.gizmo.widget
    k = int(np.argmax(np.abs(np.asarray(gizmo.axes)[:, 2])))  # the vertical arrow
    start = _screen_pos(window, np.asarray(gizmo._arrows[k].center))
    _drag(qtbot, vp, gizmo._arrows[k], [QPoint(start.x(), start.y() - 12 * i) for i in range(4)])
    qtbot.waitUntil(lambda: window.doc.grasp is not default, timeout=5_000)  # the drag moved it
    window.grasp_dock.gizmo_button.setChecked(False)
    window.undo_stack.undo()
    assert window.doc.grasp is default
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)

    window.menus.sample_grasps_action.trigger()
    qtbot.waitUntil(lambda: len(window.model.candidates) > 0, timeout=120_000)
    cands = window.model.candidates
    assert len(cands) == window.sampling.count
    qualities = [c.quality for c in cands]
    assert qualities == sorted(qualities, reverse=True)
    assert "sampled grasps" in window.status_label.text()
    actor = window.viewport.plotter.renderer.actors["candidates"]
    data = actor.mapper.dataset
    assert data.n_cells == 4 * len(cands)
    np.testing.assert_allclose(data.cell_data["quality"][::4], qualities)
    assert actor.mapper.scalar_range == (min(qualities), max(qualities))

    window.viewport.render_now()
    # Click the glyph of a candidate whose palm is visible: the one nearest the camera.
    cam = np.asarray(window.viewport.plotter.camera.position)
    k = int(np.argmin([np.linalg.norm(_glyph_point(c) - cam) for c in cands]))
    x, y = _display(window, _glyph_point(cands[k]))
    hit = window.viewport.picking.glyph_at(x, y)
    assert hit is not None and hit[0] == "candidates"
    clicked = hit[1]
    widget = window.viewport.plotter
    pos = _widget_pos(widget, x, y)
    _left(widget, QEvent.Type.MouseButtonPress, pos)
    _left(widget, QEvent.Type.MouseButtonRelease, pos)
    qtbot.waitUntil(lambda: window.doc.grasp is cands[clicked].grasp, timeout=5_000)
    assert "chosen" in window.status_label.text()
    qtbot.waitUntil(lambda: window.model.grasp_valid is not None, timeout=60_000)
    assert window.model.grasp_valid, window.model.grasp_reason

    # A drag turns the camera and chooses nothing.
    before = window.doc.grasp
    _left(widget, QEvent.Type.MouseButtonPress, pos)
    _left(widget, QEvent.Type.MouseButtonRelease, pos + QPoint(40, 25))
    QApplication.processEvents()
    assert window.doc.grasp is before

    window.menus.undo_action.trigger()
    assert np.allclose(window.doc.grasp.center, default.center)
    # Another resting pose clears the candidates (they were sampled for this one).
    window.editing.set_stable_pose(1)
    assert window.model.candidates == []
    assert "candidates" not in window.viewport.plotter.renderer.actors


def test_a_file_with_two_bodies_asks_which_one_to_open(window, tmp_path):
    """Two separate boxes in one file: the app lists them (largest first) and opens the chosen
    one; the session records that body; Escape cancels."""
    from PySide6.QtCore import QTimer

    two = po.two_boxes()
    path = tmp_path / "two.obj"
    two.export(path)
    seen: list = []

    def answer(keys) -> None:
        _answer_body_dialog(window, keys, seen)

    QTimer.singleShot(0, lambda: answer([Qt.Key.Key_Down]))
    assert window.opening.open_path(path)
    texts, _ = seen[-1]
    assert texts[0].startswith("body 0: 36 cm^3") and texts[1].startswith("body 1: 12 cm^3")
    assert texts[2] == "all of them, as one rigid object"
    assert window.doc.mesh.repair.body == "1 of 2"
    np.testing.assert_allclose(window.doc.obj.volume_m3, 12e-6, rtol=1e-6)
    assert window.doc.to_session().object_repair.body_option == "1"
    before = window.doc
    QTimer.singleShot(0, lambda: answer([Qt.Key.Key_Escape]))
    assert not window.opening.open_path(path, ask_body=True)  # the choice is remembered
    assert window.doc is before and "cancelled" in window.status_label.text()


def test_overlapping_bodies_open_merged_and_reopen_as_one_of_them(window, tmp_path):
    """A part exported as two overlapping 3 cm boxes (27 cm^3 each, 42 cm^3 as one solid) opens
    merged and says so; File > Reopen with another body offers the merged solid (preselected)
    or either box alone, and the merged solid again (issue 39 point 1)."""
    import trimesh
    from PySide6.QtCore import QTimer

    a = trimesh.creation.box(extents=(0.03, 0.03, 0.03))
    b = trimesh.creation.box(extents=(0.03, 0.03, 0.03)).apply_translation((0.01, 0.01, 0))
    path = tmp_path / "part.stl"
    trimesh.util.concatenate([a, b]).export(path)
    seen: list = []

    def answer(keys) -> None:
        _answer_body_dialog(window, keys, seen)

    assert window.opening.open_path(path)
    assert window.doc.mesh.repair.body == "merged 2" and not seen
    np.testing.assert_allclose(window.doc.obj.volume_m3, 42e-6, rtol=1e-6)
    assert "2 overlapping bodies merged into one solid" in window.status_label.text()
    QTimer.singleShot(0, lambda: answer([Qt.Key.Key_Down]))
    assert window.opening.reopen_with_body()
    texts, current = seen[-1]
    assert texts[0] == "all 2 merged into one solid" and current == 0
    assert texts[1].startswith("body 0: 27 cm^3") and texts[2].startswith("body 1: 27 cm^3")
    assert window.doc.mesh.repair.body == "0 of 2"
    np.testing.assert_allclose(window.doc.obj.volume_m3, 27e-6, rtol=1e-6)
    QTimer.singleShot(0, lambda: answer([Qt.Key.Key_Up]))
    assert window.opening.reopen_with_body()
    assert seen[-1][1] == 1  # the body open now preselected
    assert window.doc.mesh.repair.body == "merged 2"
    np.testing.assert_allclose(window.doc.obj.volume_m3, 42e-6, rtol=1e-6)


def _answer_body_dialog(window, keys, seen: list) -> None:
    """When the body dialog shows, note its lines and the line preselected in `seen`, press
    `keys` in its list, then Return (unless one of them was Escape)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QComboBox

    dialog = window.ui.body_dialog
    if dialog is None or not dialog.isVisible():
        QTimer.singleShot(20, lambda: _answer_body_dialog(window, keys, seen))
        return
    combo = dialog.findChild(QComboBox)
    seen.append(([combo.itemText(i) for i in range(combo.count())], combo.currentIndex()))
    for key in keys:
        QTest.keyClick(combo, key)
    if Qt.Key.Key_Escape not in keys:
        QTest.keyClick(combo, Qt.Key.Key_Return)
