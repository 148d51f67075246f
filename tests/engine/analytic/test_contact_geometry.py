"""Contact finding: ray-cast points, clipped contact profiles, exact pressure integrals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.analytic.contact_points import (
    ContactFailure,
    find_contact_points,
    jaw_view,
    object_geometry,
)
from engine.analytic.contact_profile import (
    Polygons,
    _patch,
    check_clearance,
    clip,
    clip_prism,
    contact_profile,
    fan,
    friction_cells,
    outline_planes,
)
from engine.analytic.params import AnalyticParams, reach_hexagon
from engine.analytic.pipeline import analyze_grasp
from engine.grasp.grasp import Grasp, Perturbation
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadOutline, pad_outline
from tests.engine.analytic.scenes import cube


def _views(obj, grasp: Grasp, params: AnalyticParams, pose=None):
    geom = object_geometry(obj)
    jaws = place_jaws(grasp.pose() if pose is None else pose, params.open_width_m)
    return geom, tuple(jaw_view(geom, j) for j in jaws)


def _profile(obj, grasp, params, pose=None):
    geom, views = _views(obj, grasp, params, pose)
    check_clearance(geom, views, params.outline(), params.open_width_m)
    return contact_profile(
        geom,
        views,
        params.outline(),
        params.silicone_depth_m,
        params.closing_force_n,
        params.open_width_m,
        params.element_size_m,
    )


def test_pad_outline_areas():
    """Note 1.1: the YuMi D-pad is 17.5 x 20 mm plus a 10 mm half disc (350 + 50 pi = 507.08
    mm^2; 506.9 mm^2 at a 1 mm tip chord, 506.07 mm^2 with the 16-segment tip of round_pad.obj
    and the simulator's pad, the default); the REACH hexagon is 525 mm^2 with its centroid at
    a = -4.325 mm (the note's -4.32)."""
    assert pad_outline("rounded", 0.0005).area_m2 * 1e6 == pytest.approx(
        350 + 50 * math.pi, abs=0.1
    )
    assert pad_outline("rounded", 0.001).area_m2 * 1e6 == pytest.approx(506.9, abs=0.1)
    assert AnalyticParams().outline().area_m2 * 1e6 == pytest.approx(506.07, abs=0.01)
    hexagon = reach_hexagon()
    assert hexagon.area_m2 * 1e6 == pytest.approx(525.0, abs=1e-9)
    assert _centroid(hexagon.polygon)[0] * 1e3 == pytest.approx(-4.325, abs=0.001)


@pytest.mark.parametrize("pad", ["rounded", "reach_hexagon", "rectangular"])
def test_flat_face_profile_is_the_whole_pad_under_uniform_pressure(pad):
    """A pad square to a flat face larger than itself: the patch is the pad outline, the
    pressure is uniform (constant depth) and sums to the closing force at the outline centroid."""
    obj = cube(0.04, 0.02)
    params = AnalyticParams(pad=pad)
    outline = params.outline()
    grasp = Grasp(obj.center_of_mass, [1, 0, 0])
    patches = _profile(obj, grasp, params)
    jaws = place_jaws(grasp.pose(), params.open_width_m)
    centroid_ab = _centroid(outline.polygon)
    for patch, jaw in zip(patches, jaws, strict=True):
        assert patch.area_m2 == pytest.approx(outline.area_m2, rel=1e-9)
        assert patch.total_force_n == pytest.approx(20.0)
        assert np.allclose(patch.pressure_pa, 20.0 / outline.area_m2, rtol=1e-6)
        cop = patch.forces @ patch.centers_of_pressure / patch.total_force_n
        face = jaw.origin + 0.005 * jaw.normal  # the cube face is 5 mm ahead of the open pad
        expected = face + jaw.rotation[:, :2] @ centroid_ab
        assert cop == pytest.approx(expected, abs=1e-9)
        assert np.allclose(patch.normals, jaw.normal)


def _centroid(poly: np.ndarray) -> np.ndarray:
    q = np.roll(poly, -1, axis=0)
    cross = poly[:, 0] * q[:, 1] - q[:, 0] * poly[:, 1]
    return ((poly + q) * cross[:, None]).sum(axis=0) / (3 * cross.sum())


def test_linear_pressure_integrals_are_exact():
    """Linear pressure p = k d on a triangle: force k A (d1+d2+d3)/3 and first moment
    k A/12 [(sum d)(sum x) + sum d x] (exact barycentric integrals, note 1.5), checked against
    a dense quadrature."""
    obj = cube(0.03, 0.02)
    geom, views = _views(obj, Grasp(obj.center_of_mass, [1, 0, 0]), AnalyticParams())
    view = views[0]
    face = int(np.argmin(view.face_normals[:, 2]))  # a face square to the pad
    tri = np.array([[[0.0, 0.0, 0.010], [0.004, 0.0, 0.012], [0.0, 0.003, 0.0105]]])
    z_f = 0.013
    patch = _patch(geom, view, 0, tri, np.array([face]), z_f, 20.0)
    # Midpoint rule on the n^2 congruent sub-triangles of the triangle.
    n = 300
    i, j = (g.ravel() for g in np.meshgrid(np.arange(n), np.arange(n)))
    low, high = i + j <= n - 1, i + j <= n - 2
    u = np.concatenate([(i[low] + 1 / 3) / n, (i[high] + 2 / 3) / n])
    v = np.concatenate([(j[low] + 1 / 3) / n, (j[high] + 2 / 3) / n])
    pts = tri[0, 0] + u[:, None] * (tri[0, 1] - tri[0, 0]) + v[:, None] * (tri[0, 2] - tri[0, 0])
    d = z_f - pts[:, 2]
    cop_local = (d[:, None] * pts).sum(axis=0) / d.sum()
    assert patch.centers_of_pressure[0] == pytest.approx(view.to_world(cop_local), abs=1e-8)
    assert patch.total_force_n == pytest.approx(20.0)


def test_convex_prism_clip_areas():
    """Sutherland-Hodgman against the unit-square prism: a triangle covering it gives the
    square (area 1); the triangle (0,0),(1.5,0),(0,1.5) gives 1 - 1/8."""
    square = PadOutline("square", np.array([[0, 0], [1, 0], [1, 1], [0, 1.0]]), 1.0)
    nu, off = outline_planes(square)
    tris = np.array(
        [
            [[-1, -1, 0.0], [3, -1, 0.5], [-1, 3, 1.0]],
            [[0, 0, 0.0], [1.5, 0, 0.0], [0, 1.5, 0.0]],
            [[2, 2, 0.0], [3, 2, 0.0], [2, 3, 0.0]],  # outside
        ]
    )
    clipped = clip_prism(Polygons(tris, np.full(3, 3), np.arange(3)), nu, off)
    t, src = fan(clipped)
    a, b = t[:, :, :2][:, 1] - t[:, :, :2][:, 0], t[:, :, :2][:, 2] - t[:, :, :2][:, 0]
    area = 0.5 * np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    assert np.bincount(src, weights=area, minlength=3) == pytest.approx([1.0, 0.875, 0.0])
    with pytest.raises(ValueError, match="convex"):
        outline_planes(PadOutline("dart", np.array([[0, 0], [2, 1], [0, 2], [1, 1.0]]), 1.0))


def test_clip_drops_polygons_wholly_outside_without_any_to_cut():
    """One Sutherland-Hodgman pass on polygons that are all wholly beyond the plane (a pad
    whose footprint holds only surface behind its open face) keeps nothing: no straddling
    polygon is left to cut, and the pass must not fail on the empty cut."""
    tris = np.array([[[0, 0, -1.0], [1, 0, -1.0], [0, 1, -2.0]]])
    both = np.array(
        [[[0, 0, -1.0], [1, 0, -1.0], [0, 1, -2.0]], [[0, 0, 1.0], [1, 0, 1], [0, 1, 1]]]
    )
    assert len(clip(Polygons(tris, np.full(1, 3), np.arange(1)), np.array([0, 0, -1.0]), 0.0)) == 0
    kept = clip(Polygons(both, np.full(2, 3), np.arange(2)), np.array([0, 0, 1.0]), 0.0)
    assert len(kept) == 1 and kept.faces.tolist() == [0]


def test_ray_cast_contacts_on_the_cube():
    """Soft Point contacts are the first hits of the jaw centre rays: the cube's face centres
    (the rays pass through the faces' diagonal edges), normals into the object."""
    obj = cube(0.03, 0.02)
    params = AnalyticParams()
    geom, views = _views(obj, Grasp(obj.center_of_mass, [1, 0, 0]), params)
    p0, p1 = find_contact_points(geom, views, params.open_width_m)
    assert p0.position == pytest.approx([-0.015, 0, 0.015])
    assert p1.position == pytest.approx([0.015, 0, 0.015])
    assert p0.normal == pytest.approx([1, 0, 0]) and p1.normal == pytest.approx([-1, 0, 0])


@pytest.mark.parametrize(("size", "reason"), [(0.06, "too wide"), (0.10, "too wide")])
def test_pads_inside_a_big_object_are_too_wide(size, reason):
    """Open pads that cut the object's surface (6 cm) or sit wholly inside it (10 cm: found by
    ray parity) on both sides: the object is wider than the opening."""
    obj = cube(size, 0.05)
    params = AnalyticParams()
    geom, views = _views(obj, Grasp(obj.center_of_mass, [1, 0, 0]), params)
    with pytest.raises(ContactFailure) as info:
        check_clearance(geom, views, params.outline(), params.open_width_m)
    assert info.value.reason == reason


def test_tilted_pad_over_a_top_edge_is_continuous():
    """The D-pad overhangs the 3 cm cube's top by 2.5 mm. Tilting the gripper by +-0.003 rad
    makes the top face barely face one pad; pressure per projected area keeps that face from
    loading the grasp, so the margin moves by < 2 % either way (no jump at zero tilt)."""
    obj = cube(0.03, 0.02)
    grasp = Grasp(obj.center_of_mass, [1, 0, 0])
    params = AnalyticParams()
    nominal = analyze_grasp(obj, grasp, params, ["exact"], 0, 0)[0].margin
    for sign in (1, -1):
        pose = Perturbation(np.zeros(3), np.array([0, sign * 0.003, 0])).apply(grasp.pose())
        patches = _profile(obj, grasp, params, pose)
        from engine.analytic import exact_area
        from engine.analytic.wrench import gravity_wrench

        s = exact_area.evaluate(patches, gravity_wrench(0.02), obj.center_of_mass, params).margin
        assert s == pytest.approx(nominal, rel=0.02)


def test_friction_cells_conserve_force_and_moment():
    """Merging elements into cells keeps each jaw's total normal force and its pressure
    centre; cells are at most ~(patch area / cell^2) in number."""
    obj = cube(0.03, 0.02)
    params = AnalyticParams()
    patch = _profile(obj, Grasp(obj.center_of_mass, [1, 0, 0]), params)[0]
    cells = friction_cells(patch, 0.0015)
    assert cells.forces.sum() == pytest.approx(patch.total_force_n)
    assert cells.forces @ cells.positions == pytest.approx(
        patch.forces @ patch.centers_of_pressure, rel=1e-12
    )
    assert len(cells) < 1.5 * patch.area_m2 / 0.0015**2 + 60 < len(patch)
    assert np.allclose(np.linalg.norm(cells.normals, axis=1), 1.0)
