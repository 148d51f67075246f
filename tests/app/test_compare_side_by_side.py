"""Compare runs side by side in the real window, driven by input events: with a trial pinned
(Ctrl+K) and another run shown, View > Compare side by side splits the 3D view in two halves
seen by one camera (the shown run left, the pinned run right, each titled with its run and
the values of the parameters that differ); scrubbing with the timeline keys moves both to the
same simulated time; Ctrl+Shift+K goes back to the outlined overlay. The contact-force mode
and the comparison's view are kept for the next session (a new window reads them back)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

FRAMES = 12
SHORT = 10_000


def _run(window, qtbot):
    assert window.runs.start_simulation(max_frames=FRAMES)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
    rec = window.doc.run.trials[0]
    assert len(rec.frames) == FRAMES, rec.result
    window.doc.dirty = False
    return rec


def _menu_click(window, qtbot, menu_title: str, text: str) -> None:
    """Open the menu bar's `menu_title` with the mouse and click its item `text`."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=SHORT)
    item = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=SHORT)


def _scrub_to(window, qtbot, index: int) -> None:
    """Home, then Right `index` times, in the 3D view; waits until that frame is drawn."""
    drawn: list[int] = []
    conn = window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
    window.viewport.widget.setFocus()
    QTest.keyClick(window, Qt.Key.Key_Home)
    for _ in range(index):
        QTest.keyClick(window, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: window.timeline.index == index and index in drawn, timeout=SHORT)
    window.scene.frame_displayed.disconnect(conn)


def test_side_by_side_shows_both_runs_at_the_scrubbed_time(window, qtbot):
    vp = window.viewport
    first = _run(window, qtbot)
    QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)  # Pin
    pinned = window.model.pinned
    assert pinned is not None and pinned.record is first
    assert window.editing.edit_param("youngs_modulus_pa", 1e7)
    second = _run(window, qtbot)

    _menu_click(window, qtbot, "View", "Compare side by side")
    assert window.menus.side_by_side_action.isChecked() and window.scene.compare_view == "side"
    for index in (6, 3, FRAMES - 1):
        _scrub_to(window, qtbot, index)
        side = vp.side_by_side.renderer
        assert side is not None
        window_renderers = vp.plotter.render_window.GetRenderers()
        assert window_renderers.IsItemPresent(side)
        assert tuple(vp.plotter.renderer.GetViewport()) == (0.0, 0.0, 0.5, 1.0)
        assert tuple(side.GetViewport()) == (0.5, 0.0, 1.0, 1.0)
        assert side.GetActiveCamera() is vp.plotter.renderer.GetActiveCamera()
        # Left: the shown run's frame; right: the pinned run's frame at the same time.
        shown = second.frames[index]
        k = pinned.frame_at(shown.time_s)
        assert k == index  # the same time step of the same procedure
        for pad in (0, 1):
            np.testing.assert_allclose(vp.gripper.points[pad], shown.pad_vertices[pad])
            np.testing.assert_allclose(
                vp.side_by_side.points[pad], first.frames[k].pad_vertices[pad]
            )
        actors = vp.plotter.renderer.actors
        np.testing.assert_allclose(actors["object"].user_matrix, shown.object_pose)
        np.testing.assert_allclose(vp.side_by_side.object_pose, first.frames[k].object_pose)
        # Solid pads and the object in the right half, no outline over the left one.
        assert {"side_pad0", "side_pad1", "side_object", "side_ground"} <= set(side.actors)
        assert side.actors["side_pad0"].prop.style == "Surface"
        assert not set(actors) & {"ghost_pad0", "ghost_pad1", "ghost_object"}
        left, right = vp.side_by_side.titles
        assert left == f"run {window.doc.run.run_id}, trial 0: E 1e+07 Pa"
        assert right == f"{pinned.label} (pinned): E 1e+08 Pa"
    assert "beside the shown run" in window.compare_label.text()

    # Ctrl+Shift+K: back to the pinned trial outlined over the shown one, one view.
    QTest.keyClick(
        window, Qt.Key.Key_K,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )  # fmt: skip
    assert not window.menus.side_by_side_action.isChecked()
    qtbot.waitUntil(lambda: vp.side_by_side.renderer is None, timeout=SHORT)
    qtbot.waitUntil(lambda: "ghost_pad0" in vp.plotter.renderer.actors, timeout=SHORT)
    assert tuple(vp.plotter.renderer.GetViewport()) == (0.0, 0.0, 1.0, 1.0)
    k = pinned.frame_at(second.frames[FRAMES - 1].time_s)
    np.testing.assert_allclose(vp.ghost.points[0], first.frames[k].pad_vertices[0])

    # Side by side again, then End comparison: one view, nothing of the pinned run left.
    _menu_click(window, qtbot, "Simulation", "Compare side by side")
    qtbot.waitUntil(lambda: vp.side_by_side.renderer is not None, timeout=SHORT)
    _menu_click(window, qtbot, "Simulation", "End comparison")
    assert window.model.pinned is None and vp.side_by_side.renderer is None
    assert tuple(vp.plotter.renderer.GetViewport()) == (0.0, 0.0, 1.0, 1.0)
    assert "side_title" not in vp.plotter.renderer.actors
    window.doc.dirty = False


def _restart(qtbot):
    """A new main window (no workers): what the next session starts with."""
    from app.main_window import MainWindow

    w = MainWindow(n_workers=1, start_workers=False)
    qtbot.addWidget(w)
    return w


def test_the_force_mode_and_comparison_view_are_kept_for_the_next_session(window, qtbot):
    # Per pad and patch (View menu), side by side (Ctrl+Shift+K).
    _menu_click(window, qtbot, "View", "Forces per pad and patch")
    assert window.menus.forces_action.isChecked() and window.scene.force_mode == "patches"
    QTest.keyClick(
        window, Qt.Key.Key_K,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )  # fmt: skip
    assert window.menus.side_by_side_action.isChecked()
    # On disk, as the next process would read them.
    from app import settings as app_settings

    store = app_settings.settings()
    store.sync()
    text = Path(store.fileName()).read_text(encoding="utf-8")
    assert "contact_forces=patches" in text and "compare_view=side" in text
    later = _restart(qtbot)
    try:
        assert later.menus.forces_action.isChecked()
        assert later.menus.force_mode_actions["patches"].isChecked()
        assert later.scene.show_forces and later.scene.force_mode == "patches"
        assert later.menus.side_by_side_action.isChecked() and later.scene.compare_view == "side"
    finally:
        later.shutdown()

    # Per contact point, then off (Ctrl+F), outlined again (the View menu).
    _menu_click(window, qtbot, "View", "Forces per contact point")
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert not window.menus.forces_action.isChecked()
    _menu_click(window, qtbot, "View", "Compare side by side")
    assert not window.menus.side_by_side_action.isChecked()
    later = _restart(qtbot)
    try:
        assert not later.menus.forces_action.isChecked() and not later.scene.show_forces
        assert later.menus.force_mode_actions["points"].isChecked()
        assert not later.menus.side_by_side_action.isChecked()
        assert later.scene.compare_view == "overlay"
    finally:
        later.shutdown()

    # Per contact point and on: the mode kept with the arrows on.
    _menu_click(window, qtbot, "View", "Forces per contact point")
    later = _restart(qtbot)
    try:
        assert later.menus.forces_action.isChecked() and later.scene.force_mode == "points"
    finally:
        later.shutdown()


def test_an_exported_video_shows_both_runs_side_by_side(window, qtbot, tmp_path):
    """File > Export video with the view comparing side by side: every frame holds the shown
    run in the left half and the pinned run at the same simulated time in the right half, as
    the view draws them (one camera: both halves frame the same cube)."""
    from tests.app.test_exports_sessions import _read_mp4

    first = _run(window, qtbot)
    QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)  # Pin
    pinned = window.model.pinned
    assert window.editing.edit_param("youngs_modulus_pa", 1e7)
    second = _run(window, qtbot)
    _menu_click(window, qtbot, "View", "Compare side by side")
    window.model.select_trial(0)

    side = window.scene.video_side_by_side(second)
    assert side is not None and len(side.frames) == len(second.frames)
    for f, g in zip(second.frames, side.frames, strict=True):
        k = pinned.frame_at(f.time_s)
        assert g is not None
        np.testing.assert_allclose(g.pad_vertices[0], first.frames[k].pad_vertices[0])
        np.testing.assert_allclose(g.object_pose, first.frames[k].object_pose)
    assert side.titles == (
        f"run {window.doc.run.run_id}, trial 0: E 1e+07 Pa",
        f"{pinned.label} (pinned): E 1e+08 Pa",
    )

    path = tmp_path / "side.mp4"
    assert window.exports.export_video(path, fps=10)
    qtbot.waitUntil(lambda: window.exports.video is None, timeout=180_000)
    assert window.exports.last_export["error"] == "", window.exports.last_export
    frames = _read_mp4(path)
    assert len(frames) == FRAMES
    w = frames.shape[2]
    left, right = frames[-1][:, : w // 2].astype(float), frames[-1][:, w - w // 2 :].astype(float)
    # Both halves hold a scene (not the bare background), and the same one: the two runs differ
    # only in E, so their cubes and pads sit where the other's do.
    assert left.std() > 5 and right.std() > 5
    assert np.corrcoef(left.ravel(), right.ravel())[0, 1] > 0.9
    # Out of comparison, the video is the whole view again.
    _menu_click(window, qtbot, "View", "Compare side by side")
    assert window.scene.video_side_by_side(second) is None
    window.doc.dirty = False
