"""Contact forces per pad and patch, and the object's weight, in the real window.

View > Forces per pad and patch draws one resultant arrow per contact patch (pad 1, pad 2, the
ground) for each kind of force, ending at the patch's centre of pressure, at a trial-wide
scale the legend states; the object's centre of mass is marked and its weight m g drawn from
there at the normal forces' scale. Driven with the mouse in the menus and the timeline keys.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.force_arrows import arrow_count
from app.model.forces import PATCH_ARROW_MM, WEIGHT_SOURCE, force_scale
from engine.constants import GRAVITY_M_S2
from tests.app.test_contact_forces_view import (
    FRAMES,
    _arrow_pixels,
    _click_view_menu_item,
    _show_frame,
)
from tests.app.test_exports_sessions import _read_mp4


def _run(window, qtbot, max_frames: int | None):
    """Simulate the example cube's nominal trial (up to `max_frames`): its record."""
    assert window.runs.start_simulation(max_frames=max_frames)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=300_000)
    rec = window.doc.run.trials[0]
    window.doc.dirty = False
    return rec


def _com(window, frame) -> np.ndarray:
    """The cube's centre of mass in the world at `frame` (its pose applied to the resting
    frame's centre of mass)."""
    pose = np.asarray(frame.object_pose)
    return pose[:3, :3] @ np.asarray(window.doc.obj.center_of_mass) + pose[:3, 3]


def _drawn_forces_n(layer, scale) -> np.ndarray:
    """The forces the drawn arrows stand for (N), read back from their drawn vectors at the
    stated scale: normal, friction and weight arrows together, (n, 3)."""
    parts = [layer.arrows[k].vectors * 1e3 * scale.normal_n_per_mm for k in ("normal", "weight")]
    parts.append(layer.arrows["friction"].vectors * 1e3 * scale.friction_n_per_mm)
    return np.concatenate(parts)


def test_per_patch_arrows_from_the_view_menu(window, qtbot):
    rec = _run(window, qtbot, FRAMES)
    assert len(rec.frames) == FRAMES, rec.result
    layer = window.viewport.forces.layer
    # A squeeze frame in which both pads press, the cube still touching the ground.
    k = next(i for i, f in enumerate(rec.frames) if min(f.grip_force_n) > 5.0)
    frame = rec.frames[k]
    _show_frame(window, qtbot, k)
    assert not layer.visible

    # Choosing the mode in the View menu turns the arrows on, drawn per pad and patch.
    _click_view_menu_item(window, qtbot, "Forces per pad and patch")
    assert window.menus.forces_action.isChecked()
    assert window.menus.force_mode_actions["patches"].isChecked()
    assert not window.menus.force_mode_actions["points"].isChecked()
    qtbot.waitUntil(lambda: layer.visible and len(layer.arrows["normal"].tails) < 10, timeout=5_000)
    scale = force_scale(rec.frames, "patches")
    source = np.asarray(frame.contact_source)
    active = sorted(set(source.tolist()))
    assert active == [0, 1, 2]  # both pads and the ground
    for kind, forces in (
        ("normal", frame.contact_normal_n),
        ("friction", frame.contact_friction_n),
    ):
        arrows = layer.arrows[kind]
        # One arrow per active patch (each has a nonzero resultant of both kinds here).
        assert sorted(arrows.source.tolist()) == active
        assert arrow_count(layer.meshes[kind]) == len(active)
        for a in range(len(arrows.source)):
            mine = source == arrows.source[a]
            # The patch's resultant, drawn at the stated scale...
            np.testing.assert_allclose(
                arrows.vectors[a] * 1e3 * scale.n_per_mm(kind), forces[mine].sum(axis=0),
                rtol=1e-9, atol=1e-12,
            )  # fmt: skip
            # ... ending at its centre of pressure: the contact points weighted by |normal|.
            w = np.linalg.norm(frame.contact_normal_n[mine], axis=1)
            centre = (w[:, None] * frame.contact_points[mine]).sum(axis=0) / w.sum()
            np.testing.assert_allclose(arrows.tails[a] + arrows.vectors[a], centre, atol=1e-12)
    # Each pad's resultant normal arrow is the grip force the frame reports, at the scale.
    normal = layer.arrows["normal"]
    for pad in (0, 1):
        mm = float(np.linalg.norm(normal.vectors[normal.source == pad])) * 1e3
        assert mm * scale.normal_n_per_mm == pytest.approx(frame.grip_force_n[pad], rel=1e-3)
        assert 2.0 < mm <= PATCH_ARROW_MM  # legible: a few mm, at most 25 mm at 20 N
    # The weight: m g straight down from the centre of mass, at the normal forces' scale.
    m = window.doc.obj.mass_kg
    weight = layer.arrows["weight"]
    assert weight.source.tolist() == [WEIGHT_SOURCE]
    np.testing.assert_allclose(weight.tails[0], _com(window, frame), atol=1e-12)
    mm = float(np.linalg.norm(weight.vectors[0])) * 1e3
    assert mm * scale.normal_n_per_mm == pytest.approx(m * GRAVITY_M_S2, rel=1e-9)
    assert weight.vectors[0][2] < 0 and not weight.vectors[0][:2].any()
    np.testing.assert_allclose(layer.com, _com(window, frame), atol=1e-12)
    assert layer.com_actor.GetVisibility()
    np.testing.assert_allclose(layer.com_actor.GetPosition(), layer.com, atol=1e-12)
    legend = layer.legend
    assert (
        f"normal force per patch (at its centre of pressure): 1 mm = {scale.normal_n_per_mm:g} N"
        in legend
    )
    assert (
        f"friction force per patch (at its centre of pressure): 1 mm = "
        f"{scale.friction_n_per_mm:g} N" in legend
    )
    assert f"weight {m * GRAVITY_M_S2:.2g} N at the centre of mass: 1 mm = " in "\n".join(legend)
    assert "weight 0.029 N at the centre of mass" in "\n".join(legend)  # the 3 g cube

    # The centre of mass follows the timeline: before contact it is where the cube rests.
    _show_frame(window, qtbot, 1)
    np.testing.assert_allclose(layer.com, _com(window, rec.frames[1]), atol=1e-12)
    assert layer.arrows["normal"].source.tolist() == [2]  # the ground alone

    # Back to one arrow per contact point, from the menu.
    _show_frame(window, qtbot, k)
    _click_view_menu_item(window, qtbot, "Forces per contact point")
    assert (
        window.menus.force_mode_actions["points"].isChecked()
        and window.menus.forces_action.isChecked()
    )
    expected = int(np.any(frame.contact_normal_n != 0, axis=1).sum())
    qtbot.waitUntil(lambda: len(layer.arrows["normal"].tails) == expected, timeout=5_000)
    point_scale = force_scale(rec.frames, "points")
    mm = float(np.linalg.norm(layer.arrows["weight"].vectors[0])) * 1e3
    assert mm * point_scale.normal_n_per_mm == pytest.approx(m * GRAVITY_M_S2, rel=1e-9)

    # Ctrl+F turns everything off, the marker and the weight too.
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not layer.visible, timeout=5_000)
    assert not layer.com_actor.GetVisibility() and layer.legend == []


def _step_right(window, qtbot, index: int) -> None:
    """The next frame, `index`, with the Right key; waits until it is drawn."""
    drawn: list[int] = []
    conn = window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
    QTest.keyClick(window, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: window.timeline.index == index and index in drawn, timeout=10_000)
    window.scene.frame_displayed.disconnect(conn)


def test_held_cube_the_drawn_resultants_balance_its_weight(window, qtbot):
    """Newton's second law for the rigid cube, read off the arrows drawn per pad and patch:
    the drawn resultants (pads and ground, normal and friction) plus the drawn weight m g
    equal m a, a the implicit-Euler acceleration of its centre of mass between frames. Held
    in the hold phase, the cube is at rest up to the stop at the lift height, so they nearly
    cancel.

    Tolerance (the engine's own, tests/engine/test_contact_forces.py): Newton stops only when
    every force residual is below newton_force_tol (1e-3 N per object translation DOF), so the
    force left unbalanced on the object is at most sqrt(3) x 1e-3 N (6 % of the cube's 0.029 N
    weight). Reading the forces back from drawn vectors adds only float rounding.
    """
    rec = _run(window, qtbot, None)
    assert rec.result is not None and rec.result.success, rec.result
    p = window.doc.params
    m = window.doc.obj.mass_kg
    layer = window.viewport.forces.layer
    hold = [i for i, f in enumerate(rec.frames) if f.phase == "hold"]
    assert len(hold) >= 3
    _show_frame(window, qtbot, hold[0])
    _click_view_menu_item(window, qtbot, "Forces per pad and patch")
    scale = force_scale(rec.frames, "patches")
    checked = 0
    qtbot.waitUntil(lambda: layer.visible and "weight" in layer.arrows, timeout=5_000)
    assert hold == list(range(hold[0], hold[0] + len(hold)))  # the hold runs to the end
    for i in hold:
        if i > hold[0]:
            _step_right(window, qtbot, i)
        f0, f1, f2 = rec.frames[i - 2], rec.frames[i - 1], rec.frames[i]
        assert f2 is rec.frames[window.timeline.index]
        # Lifted: pads only, one normal and one friction arrow each, and the weight.
        assert sorted(layer.arrows["normal"].source.tolist()) == [0, 1]
        assert sorted(layer.arrows["friction"].source.tolist()) == [0, 1]
        h1, h2 = f1.time_s - f0.time_s, f2.time_s - f1.time_s
        c0, c1, c2 = (_com(window, f) for f in (f0, f1, f2))
        accel = ((c2 - c1) / h2 - (c1 - c0) / h1) / h2
        total = _drawn_forces_n(layer, scale).sum(axis=0)
        tol = math.sqrt(3.0) * p.newton_force_tol_n
        residual = total - m * accel
        assert np.linalg.norm(residual) <= tol, (i, residual, tol)
        checked += 1
    assert checked == len(hold)
    # Once stopped at the lift height the cube is still: the drawn forces cancel to within a
    # thousandth of its weight (the same bound as the engine's test of the last hold frame).
    total = _drawn_forces_n(layer, scale).sum(axis=0)
    assert np.linalg.norm(total) <= 1e-3 * m * GRAVITY_M_S2, total


def _purple_pixels(img: np.ndarray) -> np.ndarray:
    """Pixels in the weight's and centre of mass's purple (#7b2cbf), shaded."""
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (b > 100) & (r > 1.3 * g + 20) & (b > r + 30) & (g < 110)


def test_an_exported_video_draws_patches_and_the_centre_of_mass(window, qtbot, tmp_path):
    rec = _run(window, qtbot, FRAMES)
    window.menus.color_combo.setCurrentIndex(0)  # plain pads: no orange in the colour map
    k = next(i for i, f in enumerate(rec.frames) if min(f.grip_force_n) > 5.0)
    _show_frame(window, qtbot, k)
    videos = {}
    for on in (False, True):
        if on:
            window.activateWindow()  # the export's progress dialog had the focus
            qtbot.waitUntil(window.isActiveWindow, timeout=5_000)
            _click_view_menu_item(window, qtbot, "Forces per pad and patch")
        assert window.menus.forces_action.isChecked() == on
        path = tmp_path / f"patches_{on}.mp4"
        assert window.exports.export_video(path, fps=10)
        qtbot.waitUntil(lambda: window.exports.video is None, timeout=180_000)
        assert window.exports.last_export["error"] == "", window.exports.last_export
        videos[on] = _read_mp4(path)
    on, off = videos[True], videos[False]
    assert _arrow_pixels(on[k]).sum() > 200  # the pads' resultants, orange and green
    assert _arrow_pixels(off[k]).sum() < 20
    # The centre-of-mass marker (and the weight, too short to see for a 3 g cube), purple, in
    # every frame: before contact too.
    for i in (0, k):
        assert _purple_pixels(on[i]).sum() > 20, i
        assert _purple_pixels(off[i]).sum() < 5, i
