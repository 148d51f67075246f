"""Contact forces in the real window: Ctrl+F (View > Contact forces) draws arrows of the
contact forces on the object at the frame shown, normal and friction in two colours at the
scales the legend states; they follow the timeline, leave with the toggle, and an exported
video shows them when the view does."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.force_arrows import arrow_count
from app.model.forces import force_scale
from tests.app.test_exports_sessions import _read_mp4

FRAMES = 10  # the cube meets the pads at frame 5 and presses 20 N by frame 8


@pytest.fixture
def squeezed(window, qtbot):
    """A run of the example cube up to its full squeeze: (window, the trial's record)."""
    assert window.runs.start_simulation(max_frames=FRAMES)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=180_000)
    rec = window.doc.run.trials[0]
    assert len(rec.frames) == FRAMES, rec.result
    window.doc.dirty = False
    return window, rec


def _show_frame(window, qtbot, index: int) -> None:
    """Scrub to frame `index` with the timeline keys (Home, then Right) in the 3D view."""
    drawn: list[int] = []
    window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
    window.viewport.widget.setFocus()
    QTest.keyClick(window, Qt.Key.Key_Home)
    for _ in range(index):
        QTest.keyClick(window, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: window.timeline.index == index and index in drawn, timeout=10_000)


def _click_view_menu_item(window, qtbot, text: str) -> None:
    """Open the View menu with the mouse and click the item `text`."""
    bar = window.menuBar()
    view = next(a for a in bar.actions() if a.text().replace("&", "") == "View")
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(view).center())
    menu = view.menu()
    qtbot.waitUntil(menu.isVisible, timeout=5_000)
    item = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=5_000)


def test_ctrl_f_draws_the_contact_forces_of_the_frame_shown(squeezed, qtbot):
    window, rec = squeezed
    layer = window.viewport.forces.layer
    # A squeeze frame in which both pads press: the one where the grip first passes 5 N.
    k = next(i for i, f in enumerate(rec.frames) if min(f.grip_force_n) > 5.0)
    frame = rec.frames[k]
    assert frame.phase == "squeeze"
    _show_frame(window, qtbot, k)
    assert not layer.visible

    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.menus.forces_action.isChecked()
    qtbot.waitUntil(lambda: layer.visible, timeout=5_000)
    scale = force_scale(rec.frames)
    normal = layer.arrows["normal"]
    # One arrow per contact point with a normal force, each ending at its point; all of them
    # drawn (the glyph mesh holds that many arrows).
    expected = int(np.any(frame.contact_normal_n != 0, axis=1).sum())
    assert expected > 100  # both pads' pressed patches
    assert len(normal.tails) == expected == arrow_count(layer.meshes["normal"])
    np.testing.assert_allclose(
        normal.tails + normal.vectors, frame.contact_points[np.any(frame.contact_normal_n, 1)]
    )
    assert arrow_count(layer.meshes["friction"]) > 0
    # Each pad's arrows add up, at the stated scale, to the grip force the frame reports.
    for pad in (0, 1):
        mm = np.linalg.norm(normal.vectors[normal.source == pad].sum(axis=0)) * 1e3
        assert mm * scale.normal_n_per_mm == pytest.approx(frame.grip_force_n[pad], rel=1e-3)
    legend = layer.legend
    assert f"normal force on the object: 1 mm = {scale.normal_n_per_mm:g} N" in legend
    assert f"friction force on the object: 1 mm = {scale.friction_n_per_mm:g} N" in legend

    # Scrubbing redraws them for the new frame: before contact, only the ground pushes.
    _show_frame(window, qtbot, 1)
    assert set(layer.arrows["normal"].source.tolist()) == {2}
    _show_frame(window, qtbot, k)
    assert len(layer.arrows["normal"].tails) == expected

    # The View menu turns them off again (and the help lists the key).
    _click_view_menu_item(window, qtbot, "Contact forces")
    assert not window.menus.forces_action.isChecked()
    qtbot.waitUntil(lambda: not layer.visible, timeout=5_000)
    assert layer.legend == []
    QTest.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: window.help_overlay.isVisible(), timeout=5_000)
    assert dict(window.help_overlay.rows)["Contact forces"] == "Ctrl+F"
    QTest.keyClick(window.help_overlay, Qt.Key.Key_Escape)


def _arrow_pixels(img: np.ndarray) -> np.ndarray:
    """Pixels in the arrows' orange (#e8590c) or green (#0b8f6a), nothing else in the scene
    with plain pads (blue), the beige cube, grey plates and ground."""
    r, g, b = (img[..., i].astype(int) for i in range(3))
    orange = (r > 170) & (g > 40) & (g < 140) & (b < 90)
    green = (r < 80) & (g > 100) & (b > 60) & (b < 150) & (g - b > 15)
    return orange | green


def test_an_exported_video_shows_the_arrows_when_the_view_does(squeezed, qtbot, tmp_path):
    window, rec = squeezed
    window.menus.color_combo.setCurrentIndex(0)  # plain pads: no orange in the colour map
    k = next(i for i, f in enumerate(rec.frames) if min(f.grip_force_n) > 5.0)
    videos = {}
    for on in (False, True):
        if window.menus.forces_action.isChecked() != on:
            # The export's progress dialog had the focus: the window takes the key again.
            window.activateWindow()
            qtbot.waitUntil(window.isActiveWindow, timeout=5_000)
            QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        assert window.menus.forces_action.isChecked() == on
        path = tmp_path / f"forces_{on}.mp4"
        assert window.exports.export_video(path, fps=10)
        qtbot.waitUntil(lambda: window.exports.video is None, timeout=180_000)
        assert window.exports.last_export["error"] == "", window.exports.last_export
        videos[on] = _read_mp4(path)
    off, on = videos[False][k], videos[True][k]
    assert off.shape == on.shape
    arrows_on, arrows_off = _arrow_pixels(on), _arrow_pixels(off)
    assert arrows_on.sum() > 200 and arrows_off.sum() < 20
    # Where the arrows are drawn the two videos differ; the scene around them is the same.
    changed = np.abs(on.astype(int) - off.astype(int)).max(axis=2) > 40
    assert changed[arrows_on].mean() > 0.9
    h, w = changed.shape
    far = np.ones_like(changed)
    ys, xs = np.nonzero(arrows_on)
    far[max(ys.min() - 20, 0) : ys.max() + 20, max(xs.min() - 20, 0) : xs.max() + 20] = False
    far[: h // 5, w // 2 :] = False  # the legend, top right
    assert changed[far].mean() < 0.01
