"""Pad outline presets and tet meshes: exact volume, conformity, closed surface, flags."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.errors import ParameterError
from engine.gripper.pad_geometry import (
    PAD_PRESETS,
    PadOutline,
    mesh_pad,
    pad_outline,
    pad_resolution_summary,
)


def _rotated_rectangle() -> PadOutline:
    a = 0.4
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    rect = np.array([[0.0, 0.0], [0.0275, 0.0], [0.0275, 0.02], [0.0, 0.02]])
    return PadOutline("slanted", rect @ rot, 0.003)


def _l_shape() -> PadOutline:
    poly = [[0, 0], [0.02, 0], [0.02, 0.007], [0.007, 0.007], [0.007, 0.02], [0, 0.02]]
    return PadOutline("L", np.array(poly, dtype=float), 0.003)


def _outlines() -> list[tuple[PadOutline, float]]:
    """(outline, edge) cases: both presets at two resolutions, a slanted and a non-convex one."""
    cases = [(pad_outline(name, e), e) for name in PAD_PRESETS for e in (0.003, 0.0015)]
    return [*cases, (_rotated_rectangle(), 0.0011), (_l_shape(), 0.0013)]


CASES = _outlines()
IDS = [f"{o.name}-{e * 1e3:g}mm" for o, e in CASES]


@pytest.fixture(scope="module", params=range(len(CASES)), ids=IDS)
def case(request):
    outline, edge = CASES[request.param]
    return outline, edge, mesh_pad(outline, edge)


def _face_counts(tets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    faces = np.sort(tets[:, [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]].reshape(-1, 3), axis=1)
    return np.unique(faces, axis=0, return_counts=True)


def test_presets_have_the_yumi_pad_dimensions():
    for name in PAD_PRESETS:
        o = pad_outline(name)
        assert o.thickness_m == pytest.approx(0.003)
        np.testing.assert_allclose(o.polygon.min(axis=0), [-0.0175, -0.010], atol=1e-15)
        np.testing.assert_allclose(o.polygon.max(axis=0), [0.010, 0.010], atol=1e-15)
    assert pad_outline("rectangular").area_m2 == pytest.approx(0.0275 * 0.020, rel=1e-12)


@pytest.mark.parametrize("edge", [0.003, 0.0015, 0.0005])
def test_rounded_tip_is_a_fine_enough_semicircle(edge):
    poly = pad_outline("rounded", edge).polygon
    arc = poly[poly[:, 0] >= 0.0]
    np.testing.assert_allclose(np.hypot(arc[:, 0], arc[:, 1]), 0.010, rtol=1e-12)
    segments = len(arc) - 1
    assert segments >= 16
    chord_error = 0.010 * (1.0 - math.cos(math.pi / segments / 2.0))
    assert chord_error < edge / 20.0
    # The straight sides run from the arc ends back to a = -17.5 mm.
    assert {tuple(p) for p in poly[poly[:, 0] < 0.0]} == {(-0.0175, -0.01), (-0.0175, 0.01)}


def test_tet_volume_equals_outline_area_times_thickness(case):
    outline, _, mesh = case
    assert np.all(mesh.rest_volumes > 0)
    d = mesh.vertices[mesh.tets[:, 1:]] - mesh.vertices[mesh.tets[:, :1]]
    signed = np.einsum("ti,ti->t", d[:, 0], np.cross(d[:, 1], d[:, 2])) / 6.0
    np.testing.assert_allclose(signed, mesh.rest_volumes, rtol=1e-12)
    expected = outline.area_m2 * outline.thickness_m
    assert mesh.rest_volumes.sum() == pytest.approx(expected, rel=1e-9)


def test_mesh_is_conforming_every_interior_face_shared_by_two_tets(case):
    _, _, mesh = case
    faces, counts = _face_counts(mesh.tets)
    assert set(np.unique(counts)) <= {1, 2}
    boundary = {tuple(f) for f in faces[counts == 1]}
    assert boundary == {tuple(f) for f in np.sort(mesh.surface_faces, axis=1)}
    assert len(boundary) == len(mesh.surface_faces)


def test_boundary_is_a_closed_outward_2_manifold(case):
    _, _, mesh = case
    surf = trimesh.Trimesh(mesh.vertices, mesh.surface_faces, process=False)
    assert surf.is_watertight
    assert surf.is_winding_consistent
    # Positive enclosed volume means outward normals.
    assert surf.volume == pytest.approx(mesh.rest_volumes.sum(), rel=1e-9)
    np.testing.assert_array_equal(mesh.surface_vertices, np.unique(mesh.surface_faces))


def test_contact_face_normals_point_toward_the_object(case):
    _, _, mesh = case
    tri = mesh.vertices[mesh.surface_faces]
    normal_n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])[:, 2]
    on_front = mesh.contact_face[mesh.surface_faces].all(axis=1)
    on_back = mesh.glued[mesh.surface_faces].all(axis=1)
    assert on_front.any() and on_back.any()
    assert np.all(normal_n[on_front] > 0)
    assert np.all(normal_n[on_back] < 0)


def test_glued_and_contact_flags_are_exactly_the_back_and_front_faces(case):
    outline, _, mesh = case
    n = mesh.vertices[:, 2]
    np.testing.assert_array_equal(mesh.glued, n == -outline.thickness_m)
    np.testing.assert_array_equal(mesh.contact_face, n == 0.0)
    assert mesh.glued.sum() == mesh.contact_face.sum() > 0
    assert n.min() == -outline.thickness_m and n.max() == 0.0
    # Every vertex lies on one of the layer planes.
    levels = np.unique(n)
    assert np.allclose(np.diff(levels), levels[1] - levels[0])


def test_arrays_have_the_documented_dtypes_and_are_read_only(case):
    _, _, mesh = case
    assert mesh.vertices.dtype == np.float64 and mesh.vertices.shape[1] == 3
    assert mesh.tets.dtype == np.int64 and mesh.surface_faces.dtype == np.int64
    assert mesh.surface_vertices.dtype == np.int64
    assert mesh.glued.dtype == bool and mesh.contact_face.dtype == bool
    with pytest.raises(ValueError):
        mesh.vertices[0, 0] = 1.0


def test_finer_edge_length_gives_more_tets():
    for name in PAD_PRESETS:
        edges = (0.004, 0.003, 0.002, 0.0015)
        counts = [len(mesh_pad(pad_outline(name, e), e).tets) for e in edges]
        assert counts == sorted(counts) and len(set(counts)) == len(counts), counts


def test_layers_stack_whole_prisms():
    outline = pad_outline("rectangular")
    one = mesh_pad(outline, 0.003, layers=1)
    three = mesh_pad(outline, 0.003, layers=3)
    assert len(three.tets) == 3 * len(one.tets)
    assert len(np.unique(three.vertices[:, 2])) == 4
    default = mesh_pad(outline, 0.003)  # max(2, round(3 mm / 3 mm)) = 2 layers
    assert len(default.tets) == 2 * len(one.tets)


def test_resolution_summary_counts():
    mesh = mesh_pad(pad_outline("rounded"), 0.003)
    s = pad_resolution_summary(mesh)
    assert s["vertices"] == len(mesh.vertices)
    assert s["tets"] == len(mesh.tets)
    assert s["surface_vertices"] == len(mesh.surface_vertices)
    assert s["surface_faces"] == len(mesh.surface_faces)
    assert s["glued_vertices"] == int(mesh.glued.sum())


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ParameterError, match="rounded, rectangular"):
        pad_outline("round")


@pytest.mark.parametrize("edge", [0.0, -0.001, math.nan, math.inf])
def test_non_finite_or_non_positive_edge_is_rejected(edge):
    with pytest.raises(ParameterError, match="edge_length_m"):
        mesh_pad(pad_outline("rounded"), edge)


def test_edge_giving_too_many_or_too_few_tets_says_what_works():
    with pytest.raises(ParameterError, match=r"200000\]; use edge_length_m >= about 0.000"):
        mesh_pad(pad_outline("rounded"), 1e-5)
    # One layer of a rectangle: 2 triangles x 3 tets at most, so there is an upper bound too.
    with pytest.raises(ParameterError, match=r"gives 6 tets.*between about 0.000\d+ and 0.0\d+ m"):
        mesh_pad(pad_outline("rectangular"), 1.0, layers=1)
    with pytest.raises(ParameterError, match=r"between about"):
        mesh_pad(pad_outline("rectangular"), 0.0001, layers=1)


@pytest.mark.parametrize("layers", [0, -1, 1.5, True])
def test_bad_layers_are_rejected(layers):
    with pytest.raises(ParameterError, match="layers"):
        mesh_pad(pad_outline("rounded"), 0.003, layers=layers)


@pytest.mark.parametrize(
    ("polygon", "thickness", "match"),
    [
        ([[0, 0], [0, 1], [1, 0]], 0.003, "counter-clockwise"),
        ([[0, 0], [1, 1], [1, 0], [0, 1]], 0.003, "simple|counter-clockwise"),
        ([[0, 0], [1, 0]], 0.003, "k >= 3"),
        ([[0, 0], [1, 0], [0, 1]], 0.0, "thickness"),
        ([[0, 0], [1, 0], [math.nan, 1]], 0.003, "non-finite"),
    ],
)
def test_bad_outlines_are_rejected(polygon, thickness, match):
    with pytest.raises(ParameterError, match=match):
        PadOutline("bad", np.array(polygon, dtype=float), thickness)
