"""Right-click placement on the thin, concave parts issue 15 names: a mug's handle and a bowl's
rim (generated meshes, real mouse clicks in the real window)."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh
from PySide6.QtCore import QPoint, Qt

from tests.engine import procedural_objects as po

HANDLE_WIDTH_M = 2 * 0.04 * np.sin(np.pi / 24)  # po.mug(): its 24 sections' segment, 10.4 mm
BOWL_HEIGHT_M = 0.045


def _bowl() -> trimesh.Trimesh:
    """A 120 mm bowl, 45 mm high, on a 60 mm foot, its wall 4 mm across at the rim: wider than
    any stroke across, so only the rim can be grasped."""
    profile = [(0, 0), (0.03, 0), (0.06, 0.045), (0.056, 0.045), (0.026, 0.004), (0, 0.004)]
    return po.revolve(profile, sections=48)


def _screen_pos(window, world) -> QPoint:
    """Widget pixel of a world point in the 3D view (pyvistaqt's event mapping inverted)."""
    p = window.viewport.plotter
    ren = p.renderer
    ren.SetWorldPoint(*world, 1.0)
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    ratio = p.devicePixelRatioF()
    return QPoint(round(x / ratio), round(p.height() - 1 - y / ratio))


def _foot(vertices: np.ndarray) -> tuple[np.ndarray, bool]:
    """The centre of the vertices on the ground, and whether one of them is that centre (the
    bottom's centre vertex of a solid of revolution standing upright, not on its rim)."""
    ground = vertices[vertices[:, 2] < 1e-6]
    centre = ground.mean(axis=0)
    return centre, bool(np.min(np.linalg.norm(ground - centre, axis=1)) < 1e-5)


def _open_upright(window, path, view) -> tuple[trimesh.Trimesh, np.ndarray]:
    """Open the mesh, rest it upright (open side up), look along `view`; its surface as loaded
    and its vertical axis' point on the ground."""
    assert window.opening.open_path(path)
    d = window.doc
    for k in range(len(d.poses)):  # it opens in the most probable pose group's pose
        window.editing.set_stable_pose(k)
        if _foot(np.asarray(window.doc.obj.vertices))[1]:
            break
    vertices = np.asarray(window.doc.obj.vertices)
    axis_point, upright = _foot(vertices)
    assert upright
    vp, p = window.viewport, window.viewport.plotter
    p.view_vector(view, viewup=(0.0, 0.0, 1.0))
    p.reset_camera()
    vp.render_now()
    return trimesh.Trimesh(vertices, np.asarray(window.doc.obj.faces), process=False), axis_point


def _click_all(window, qtbot, surface, faces, count, seed):
    """Right-click `count` random points of `faces` where they show; yields (picked point,
    outward normal, status line) for each click that hit the object."""
    vp, p = window.viewport, window.viewport.plotter
    picks: list = []
    vp.picked.connect(lambda point, normal: picks.append((point, normal)))
    statuses: list[str] = []
    status = window.ui.status
    window.ui.status = lambda text, log_it=True: (statuses.append(text), status(text, log_it))
    part = surface.submesh([faces], append=True)
    rng = np.random.default_rng(seed)
    try:
        for _ in range(count):
            q = trimesh.sample.sample_surface(part, 1, seed=int(rng.integers(1 << 30)))[0][0]
            picks.clear()
            statuses.clear()
            qtbot.mouseClick(p, Qt.MouseButton.RightButton, pos=_screen_pos(window, q))
            # The placement's own message: a background job (the default grasp, the force a
            # Psi_th implies) may post a status after it on a busy machine.
            placement = [t for t in statuses if t.startswith(("grasp placed", "cannot place"))]
            if picks and placement:
                point, normal = picks[-1]
                yield np.asarray(point), np.asarray(normal), placement[-1]
    finally:
        window.ui.status = status


def _jaws(window, surface, point, normal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The placed grasp's closing axis and jaw contacts, checked against the click: jaw 0 is at
    the clicked point (the picker's point, which near a facet's edge can lie a hair off the
    surface, moved onto it) and the axis is the inward normal there, or on a sharp edge the
    edge's normal (engine.grasp.antipodal), which leans less than 90 degrees from it."""
    g = window.doc.grasp
    inward = -normal / np.linalg.norm(normal)
    axis = np.asarray(g.axis)
    if not np.allclose(axis, inward, atol=1e-6):
        assert axis @ inward > 0.0, (axis.tolist(), inward.tolist())
    jaw0 = g.center - np.dot(g.center - point, axis) * axis
    on_surface = trimesh.proximity.closest_point(surface, point[None])[0][0]
    assert np.linalg.norm(jaw0 - on_surface) < 1e-4
    return axis, jaw0, 2.0 * g.center - jaw0


def test_right_clicks_on_a_mug_handle_place_grasps_on_the_handle(window, qtbot, tmp_path):
    """The mug of tests/engine/procedural_objects.py (80 mm, wider than the 50 mm stroke) with
    its C-shaped handle (8 mm thick, 10.4 mm wide, one surface with the cup). Clicks on the
    handle where it shows: each places a grasp with jaw 0 at the click and jaw 1 on the
    surface within the opening; on the handle's flat sides the jaws pinch the handle across
    its width, both on the handle. Where no opposite surface lies within the opening (down
    the C's outer side, 50 mm), the status line says so."""
    path = tmp_path / "mug.stl"
    po.mug().export(path)
    # The handle's direction first, from the mesh as it rests.
    assert window.opening.open_path(path)
    surface, axis_point = _open_upright(window, path, (1.0, 0.0, 0.0))
    radial = surface.triangles_center[:, :2] - axis_point[:2]
    on_handle = np.linalg.norm(radial, axis=1) > 0.0415
    out = np.append(radial[on_handle].mean(axis=0), 0.0)
    out /= np.linalg.norm(out)
    side = np.cross([0.0, 0.0, 1.0], out)
    # Look at the handle from outside, a side of it and from above.
    surface, _ = _open_upright(window, path, tuple(out + 0.9 * side + 0.5 * np.array([0, 0, 1])))

    def handle_point(x: np.ndarray) -> bool:
        return float(np.linalg.norm(x[:2] - axis_point[:2])) > 0.0415

    steps = np.linspace(2e-4, 0.05 - 2e-4, 250)
    clicks = placed = pinches = 0
    for point, normal, text in _click_all(window, qtbot, surface, np.nonzero(on_handle)[0], 80, 3):
        if not handle_point(point):
            continue  # the cup hides that point of the handle: the click hit the cup
        inward = -normal / np.linalg.norm(normal)
        if not (~surface.contains(point + steps[:, None] * inward)).any():
            # No way out within the opening (down the C's 50 mm outer height): say so.
            assert text.startswith("cannot place") and "thick" in text, text
            continue
        clicks += 1
        if not text.startswith("grasp placed"):
            continue
        placed += 1
        axis, jaw0, jaw1 = _jaws(window, surface, point, normal)
        _, dist, _ = trimesh.proximity.closest_point(surface, jaw1[None])
        assert dist[0] < 2e-4  # jaw 1 on the surface
        assert 0.0 < np.dot(jaw1 - jaw0, axis) <= 0.05
        if abs(np.dot(axis, side)) > 0.99:  # a flat side of the handle: pinch it across
            pinches += 1
            assert np.linalg.norm(jaw1 - jaw0) == pytest.approx(HANDLE_WIDTH_M, abs=3e-4)
            assert handle_point(jaw1)
    assert clicks >= 30, clicks
    assert placed >= 0.95 * clicks, f"{placed} of {clicks} clicks on the handle placed"
    assert pinches >= 5, pinches


def test_right_clicks_on_a_bowl_rim_pinch_the_rim(window, qtbot, tmp_path):
    """A 120 mm bowl: across it is wider than any stroke, so a click near its rim (outside,
    on top or inside) places a grasp that pinches the 4 mm wall, both jaws near the rim."""
    path = tmp_path / "bowl.stl"
    _bowl().export(path)
    surface, _ = _open_upright(window, path, (1.0, -0.6, 0.8))
    top = float(surface.vertices[:, 2].max())
    assert top == pytest.approx(BOWL_HEIGHT_M, abs=1e-6)
    near_rim = np.nonzero(surface.triangles_center[:, 2] > top - 0.006)[0]
    clicks = placed = 0
    for point, normal, text in _click_all(window, qtbot, surface, near_rim, 80, 5):
        if point[2] < top - 0.008:
            continue  # hidden from this view: the click hit the bowl elsewhere
        clicks += 1
        if not text.startswith("grasp placed"):
            continue
        placed += 1
        axis, jaw0, jaw1 = _jaws(window, surface, point, normal)
        _, dist, _ = trimesh.proximity.closest_point(surface, jaw1[None])
        assert dist[0] < 2e-4  # jaw 1 on the surface
        width = float(np.dot(jaw1 - jaw0, axis))
        assert 0.0 < width < 0.008, (width, point.tolist(), normal.tolist())  # the wall
        assert jaw1[2] > top - 0.012
    assert clicks >= 30, clicks
    assert placed >= 0.95 * clicks, f"{placed} of {clicks} clicks near the rim placed"
