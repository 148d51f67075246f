"""Grasp frames and the seeded pose-perturbation model (IPC-GraspSim: 1 mm, 0.003 rad)."""

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.grasp.grasp import Grasp, rotation_from_vector, sample_perturbations


def test_gripper_frame_is_right_handed_with_axis_as_x_and_approach_down():
    g = Grasp(center=[0, 0, 0.015], axis=[0, 2.0, 0], approach_angle_rad=0.0)
    t = g.pose()
    r = t[:3, :3]
    assert np.allclose(r.T @ r, np.eye(3)) and np.isclose(np.linalg.det(r), 1.0)
    assert np.allclose(r[:, 0], [0, 1, 0])
    assert np.allclose(r[:, 2], [0, 0, -1])  # approach angle 0 approaches straight down


def test_approach_angle_rotates_about_the_closing_axis():
    a = Grasp([0, 0, 0], [1, 0, 0], 0.0).pose()
    b = Grasp([0, 0, 0], [1, 0, 0], np.pi / 2).pose()
    assert np.allclose(b[:3, 0], a[:3, 0])
    assert np.isclose(a[:3, 2] @ b[:3, 2], 0.0, atol=1e-12)


def test_vertical_axis_has_a_defined_frame():
    t = Grasp([0, 0, 0], [0, 0, 1], 0.3).pose()
    assert np.allclose(t[:3, :3].T @ t[:3, :3], np.eye(3))


def test_bad_grasp_inputs_are_rejected_with_the_field_named():
    with pytest.raises(ParameterError, match="axis"):
        Grasp([0, 0, 0], [0, 0, 0])
    with pytest.raises(ParameterError, match="centre"):
        Grasp([0, np.nan, 0], [1, 0, 0])


def test_perturbations_are_seeded_and_prefix_stable():
    """Same seed, same perturbations; trial k does not depend on the number of trials."""
    a = sample_perturbations(5, seed=7)
    b = sample_perturbations(8, seed=7)
    for pa, pb in zip(a, b[:5], strict=True):
        assert np.array_equal(pa.translation, pb.translation)
        assert np.array_equal(pa.rotation, pb.rotation)
    c = sample_perturbations(5, seed=8)
    assert not np.array_equal(a[0].translation, c[0].translation)


def test_perturbation_statistics_match_the_sigmas():
    """Sample standard deviations approach sigma_t = 1 mm and sigma_r = 0.003 rad."""
    p = sample_perturbations(4000, seed=1)
    t = np.array([x.translation for x in p])
    r = np.array([x.rotation for x in p])
    assert np.allclose(t.std(axis=0), 1e-3, rtol=0.05)
    assert np.allclose(r.std(axis=0), 3e-3, rtol=0.05)


def test_perturbation_is_applied_in_the_gripper_frame():
    """A +x gripper-frame offset moves the centre along the closing axis."""
    from engine.grasp.grasp import Perturbation

    pose = Grasp([0, 0, 0.02], [0, 1, 0]).pose()
    moved = Perturbation(np.array([0.001, 0, 0]), np.zeros(3)).apply(pose)
    assert np.allclose(moved[:3, 3], [0, 0.001, 0.02])
    rot = rotation_from_vector(np.array([0, 0, np.pi / 2]))
    assert np.allclose(rot @ [1, 0, 0], [0, 1, 0])
