"""rest_object_from_rotation: a recorded object rotation placed on the table like rest_object."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.errors import ParameterError
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object, rest_object_from_rotation


def rot(axis, angle_deg):
    return trimesh.transformations.rotation_matrix(math.radians(angle_deg), axis)[:3, :3]


def test_identity_rotation_matches_the_stable_pose_of_the_cube():
    cube = builtin_cube()
    a = rest_object_from_rotation(cube, np.eye(3), mass_kg=0.003)
    b = rest_object(cube, 0, mass_kg=0.003)
    assert a.vertices[:, 2].min() == 0.0
    assert np.allclose(a.center_of_mass, [0, 0, 0.015])
    assert np.allclose(np.sort(a.vertices, axis=0), np.sort(b.vertices, axis=0), atol=1e-12)
    assert a.mass_kg == b.mass_kg and a.volume_m3 == pytest.approx(b.volume_m3)
    assert np.allclose(a.second_moment, b.second_moment, rtol=1e-9, atol=1e-15)
    assert a.stable_pose_index == -1 and math.isnan(a.stable_pose_probability)


def test_rotation_is_kept_and_the_frame_is_recentred():
    cube = builtin_cube()
    r = rot([0, 0, 1], 30) @ rot([1, 0, 0], 90)
    obj = rest_object_from_rotation(cube, r, density_kg_m3=500.0)
    assert np.allclose(obj.pose_transform[:3, :3], r)
    mapped = np.asarray(cube.vertices) @ obj.pose_transform[:3, :3].T + obj.pose_transform[:3, 3]
    assert np.allclose(mapped, obj.vertices)
    assert obj.vertices[:, 2].min() == 0.0 and np.allclose(obj.center_of_mass[:2], 0.0)
    assert obj.mass_kg == pytest.approx(500.0 * 0.03**3)


def test_a_slightly_tilted_pose_can_be_laid_flat():
    cube = builtin_cube()
    r = rot([1, 1, 0], 0.4) @ rot([0, 0, 1], 10)
    tilted = rest_object_from_rotation(cube, r)
    assert np.sum(tilted.vertices[:, 2] < 1e-9) == 1  # balanced on a corner
    flat = rest_object_from_rotation(cube, r, snap_to_support_deg=2.0)
    assert np.sum(flat.vertices[:, 2] < 1e-9) == 4
    assert np.ptp(flat.vertices[:, 2]) == pytest.approx(0.03)
    # The yaw survives the snap.
    x_axis = flat.pose_transform[:3, :3] @ [1, 0, 0]
    assert math.degrees(math.atan2(x_axis[1], x_axis[0])) == pytest.approx(10, abs=0.5)
    # Beyond the snap angle the pose is kept.
    kept = rest_object_from_rotation(cube, rot([1, 0, 0], 20), snap_to_support_deg=2.0)
    assert np.sum(kept.vertices[:, 2] < 1e-9) == 2


@pytest.mark.parametrize("yaw_deg", [7.0, 97.0, 187.0])
def test_a_pose_flat_up_to_round_off_is_kept_when_snapped(yaw_deg):
    """A recorded pose that only turns the cube about the vertical: its bottom face normal is
    -z up to round-off, which once made the snap axis the zero vector and the pose NaN."""
    cube = builtin_cube()
    obj = rest_object_from_rotation(cube, rot([0, 0, 1], yaw_deg), snap_to_support_deg=2.0)
    assert np.all(np.isfinite(obj.pose_transform)) and np.all(np.isfinite(obj.vertices))
    assert np.sum(obj.vertices[:, 2] < 1e-12) == 4  # on its face
    assert np.allclose(obj.pose_transform[:3, :3], rot([0, 0, 1], yaw_deg), atol=1e-12)


def test_near_rotations_are_projected_and_others_refused():
    cube = builtin_cube()
    noisy = np.eye(3) + np.array([[0, 0.01, 0], [0, 0, 0], [0, 0, 0]])
    obj = rest_object_from_rotation(cube, noisy)
    r = obj.pose_transform[:3, :3]
    assert np.allclose(r @ r.T, np.eye(3), atol=1e-12)
    with pytest.raises(ParameterError, match="not a rotation matrix"):
        rest_object_from_rotation(cube, 2 * np.eye(3))
    with pytest.raises(ParameterError, match="reflection"):
        rest_object_from_rotation(cube, np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ParameterError, match="3x3"):
        rest_object_from_rotation(cube, np.eye(4))
    with pytest.raises(ParameterError, match="either mass_kg or density_kg_m3"):
        rest_object_from_rotation(cube, np.eye(3), mass_kg=1.0, density_kg_m3=1.0)
