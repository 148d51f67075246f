"""Stable poses and the resting frame: contact at z = 0, centre of mass on the z axis, mass."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.errors import ParameterError
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, ObjectMesh, builtin_cube
from engine.scene.resting import DEFAULT_DENSITY_KG_M3, rest_object, stable_poses

SIDE = 0.03


def mesh_from(tm: trimesh.Trimesh, name: str = "test") -> ObjectMesh:
    return ObjectMesh(
        vertices=np.asarray(tm.vertices, dtype=np.float64),
        faces=np.asarray(tm.faces, dtype=np.int64),
        name=name,
        source=f"/nowhere/{name}.obj",
        sha256="0" * 64,
    )


def second_moment_by_tetrahedra(vertices: np.ndarray, faces: np.ndarray, density: float):
    """Independent check: integral of rho (X - c)(X - c)^T dV over a closed mesh.

    Sums signed tetrahedra (origin, a, b, c); for a tetrahedron with edge matrix A the
    integral of X X^T is det(A)/120 * A (Id + 1 1^T) A^T.
    """
    tri = vertices[faces]  # (m, 3 vertices, 3 coords)
    a = np.transpose(tri, (0, 2, 1))  # columns are the vertices
    det = np.linalg.det(a)
    volume = det.sum() / 6.0
    first = (det[:, None] * tri.sum(axis=1)).sum(axis=0) / 24.0
    center = first / volume
    kernel = np.eye(3) + np.ones((3, 3))
    raw = np.einsum("m,mij,jk,mlk->il", det, a, kernel, a) / 120.0
    return density * (raw - volume * np.outer(center, center)), center, volume


def test_cube_has_six_equally_likely_stable_poses():
    poses = stable_poses(builtin_cube())
    assert len(poses) == 6
    probabilities = [p.probability for p in poses]
    assert sum(probabilities) == pytest.approx(1.0, abs=1e-12)
    assert probabilities == pytest.approx([1 / 6] * 6, abs=1e-12)
    for pose in poses:
        rotation = pose.transform[:3, :3]
        assert np.allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)
        assert np.linalg.det(rotation) == pytest.approx(1.0)


def test_subdivided_cube_still_has_six_stable_poses():
    poses = stable_poses(builtin_cube(target_vertices=399))
    assert len(poses) == 6
    assert sum(p.probability for p in poses) == pytest.approx(1.0, abs=1e-12)


def test_poses_are_sorted_and_a_flat_box_lies_on_its_largest_face():
    flat = mesh_from(trimesh.creation.box(extents=[0.02, 0.04, 0.01]), "flat")
    poses = stable_poses(flat)
    probabilities = [p.probability for p in poses]
    assert probabilities == sorted(probabilities, reverse=True)
    resting = rest_object(flat, stable_pose=0)
    assert np.ptp(resting.vertices[:, 2]) == pytest.approx(0.01)


@pytest.mark.parametrize("pose", range(6))
def test_cube_resting_frame_mass_and_second_moment(pose):
    obj = rest_object(builtin_cube(target_vertices=26), stable_pose=pose)
    assert obj.vertices[:, 2].min() == 0.0  # exactly on the table
    assert obj.center_of_mass[0] == 0.0
    assert obj.center_of_mass[1] == 0.0
    assert obj.center_of_mass[2] == pytest.approx(SIDE / 2, rel=1e-12)
    # The vertices really are centred: the cube's centroid is its centre of mass.
    assert np.allclose(obj.vertices.mean(axis=0)[:2], 0.0, atol=1e-15)
    assert obj.mass_kg == BUILTIN_CUBE_MASS_KG
    assert obj.volume_m3 == pytest.approx(SIDE**3, rel=1e-12)
    assert obj.density_kg_m3 == pytest.approx(BUILTIN_CUBE_MASS_KG / SIDE**3, rel=1e-12)
    expected = obj.mass_kg * SIDE**2 / 12 * np.eye(3)
    assert np.allclose(obj.second_moment, expected, rtol=1e-12, atol=1e-12 * expected[0, 0])
    assert obj.stable_pose_index == pose
    assert obj.stable_pose_probability == pytest.approx(1 / 6)
    assert obj.faces.dtype == np.int64


def test_pose_transform_maps_mesh_to_resting_vertices():
    mesh = builtin_cube()
    obj = rest_object(mesh, stable_pose=3)
    mapped = trimesh.transform_points(mesh.vertices, obj.pose_transform)
    assert np.allclose(mapped, obj.vertices, atol=1e-15)
    assert obj.mesh is mesh


def test_second_moment_of_asymmetric_shape_matches_independent_integration():
    points = np.array(
        [[0, 0, 0], [0.04, 0, 0], [0, 0.03, 0], [0, 0, 0.02], [0.03, 0.025, 0.015], [0.01, 0, 0.03]]
    )
    mesh = mesh_from(trimesh.convex.convex_hull(points), "wedge")
    obj = rest_object(mesh, stable_pose=1, density_kg_m3=700.0)
    expected, center, volume = second_moment_by_tetrahedra(obj.vertices, obj.faces, 700.0)
    assert abs(expected[0, 1]) + abs(expected[0, 2]) + abs(expected[1, 2]) > 0  # off-diagonals
    assert np.allclose(obj.second_moment, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    assert np.allclose(center[:2], 0.0, atol=1e-15)
    assert obj.center_of_mass == pytest.approx(center, abs=1e-15)
    assert obj.volume_m3 == pytest.approx(volume, rel=1e-12)
    assert obj.mass_kg == pytest.approx(700.0 * volume, rel=1e-12)
    assert obj.vertices[:, 2].min() == 0.0


def test_mass_sets_density_and_density_sets_mass():
    cube = builtin_cube()
    by_mass = rest_object(cube, mass_kg=0.01)
    assert by_mass.mass_kg == 0.01
    assert by_mass.density_kg_m3 == pytest.approx(0.01 / SIDE**3)
    by_density = rest_object(cube, density_kg_m3=500.0)
    assert by_density.density_kg_m3 == 500.0
    assert by_density.mass_kg == pytest.approx(500.0 * SIDE**3)


def test_file_mesh_defaults_to_water_density():
    obj = rest_object(mesh_from(trimesh.creation.box(extents=[SIDE] * 3)))
    assert obj.density_kg_m3 == DEFAULT_DENSITY_KG_M3
    assert obj.mass_kg == pytest.approx(DEFAULT_DENSITY_KG_M3 * SIDE**3)


def test_mass_and_density_together_are_rejected():
    with pytest.raises(ParameterError, match="not both"):
        rest_object(builtin_cube(), mass_kg=0.003, density_kg_m3=100.0)


@pytest.mark.parametrize("name", ["mass_kg", "density_kg_m3"])
@pytest.mark.parametrize("value", [math.nan, math.inf, 0.0, -1.0])
def test_non_positive_or_nan_mass_and_density_are_rejected(name, value):
    with pytest.raises(ParameterError, match=rf"{name} must be finite and > 0"):
        rest_object(builtin_cube(), **{name: value})


@pytest.mark.parametrize("index", [6, -1])
def test_stable_pose_out_of_range_lists_how_many_exist(index):
    with pytest.raises(ParameterError, match=r"out of range: this object has 6 stable poses"):
        rest_object(builtin_cube(), stable_pose=index)
