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


def test_the_kept_pose_is_handed_out_as_a_copy_and_the_cross_products_are_numpys():
    """A grasp keeps its pose once computed: a caller changing the matrix it got does not
    change the grasp's next answer. Its cross products take np.cross's
    products and differences, so the frame is the same to the bit."""
    g = Grasp([0.01, -0.02, 0.03], [0.3, -0.8, 0.1], 0.7)
    first = g.pose()
    x, z = first[:3, 0], first[:3, 2]
    assert np.array_equal(first[:3, 1], np.cross(z, x))
    first[:] = 0.0
    again = g.pose()
    assert np.array_equal(again, Grasp([0.01, -0.02, 0.03], [0.3, -0.8, 0.1], 0.7).pose())
    assert again[3, 3] == 1.0 and np.allclose(again[:3, :3].T @ again[:3, :3], np.eye(3))


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


def test_rotation_from_vector_is_rodrigues():
    """Against SciPy's independent rotation-vector conversion, on axes that are not
    coordinate axes and angles from the 0.003 rad perturbation scale to 2 rad."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(5)
    for theta in (0.003, 0.5, 2.0):
        axis = rng.normal(size=3)
        omega = theta * axis / np.linalg.norm(axis)
        expected = Rotation.from_rotvec(omega).as_matrix()
        np.testing.assert_allclose(rotation_from_vector(omega), expected, atol=1e-14)
    np.testing.assert_array_equal(rotation_from_vector(np.zeros(3)), np.eye(3))


def test_a_perturbation_rotates_the_gripper_about_its_own_axes():
    """0.003 rad about the gripper's approach axis z turns the closing axis x towards y:
    x' = cos(0.003) x + sin(0.003) y, the approach axis unchanged."""
    from engine.grasp.grasp import Perturbation

    pose = Grasp([0, 0, 0.02], [0, 1, 0], 0.4).pose()
    x, y, z = pose[:3, 0], pose[:3, 1], pose[:3, 2]
    moved = Perturbation(np.zeros(3), np.array([0.0, 0.0, 0.003])).apply(pose)
    np.testing.assert_allclose(moved[:3, 0], np.cos(0.003) * x + np.sin(0.003) * y, atol=1e-15)
    np.testing.assert_allclose(moved[:3, 2], z, atol=1e-15)
    np.testing.assert_allclose(moved[:3, 3], pose[:3, 3], atol=0)


def test_perturbations_are_zero_mean_with_three_independent_components():
    """IPC-GraspSim draws each offset component from N(0, sigma): the sample mean of 4000
    draws lies within 5 standard errors (5 sigma / sqrt(4000)) of 0, every offset has three
    components, and sigma 0 gives no offset at all."""
    p = sample_perturbations(4000, seed=2)
    t = np.array([x.translation for x in p])
    r = np.array([x.rotation for x in p])
    assert t.shape == (4000, 3) and r.shape == (4000, 3)
    assert np.all(np.abs(t.mean(axis=0)) < 5 * 1e-3 / np.sqrt(4000))
    assert np.all(np.abs(r.mean(axis=0)) < 5 * 3e-3 / np.sqrt(4000))
    # The three components are distinct draws, not one number repeated.
    assert np.all(np.abs(np.corrcoef(t.T)[np.triu_indices(3, 1)]) < 0.1)
    none = sample_perturbations(3, seed=2, translation_sigma_m=0.0, rotation_sigma_rad=0.0)
    for x in none:
        np.testing.assert_array_equal(x.translation, np.zeros(3))
        np.testing.assert_array_equal(x.rotation, np.zeros(3))
    assert sample_perturbations(0, seed=2) == []


def test_bad_perturbation_inputs_are_refused_with_their_name():
    with pytest.raises(ParameterError) as n:
        sample_perturbations(-1, seed=0)
    assert str(n.value) == "number of trials must be >= 0 (got -1)"
    with pytest.raises(ParameterError) as t:
        sample_perturbations(2, seed=0, translation_sigma_m=-0.001)
    assert str(t.value) == "translation sigma must be a finite number >= 0 (got -0.001)"
    with pytest.raises(ParameterError) as r:
        sample_perturbations(2, seed=0, rotation_sigma_rad=float("nan"))
    assert str(r.value) == "rotation sigma must be a finite number >= 0 (got nan)"


def test_a_perturbation_as_result_columns():
    """The result rows store an offset as dx, dy, dz (m) and rx, ry, rz (rad), plain floats."""
    from engine.grasp.grasp import Perturbation

    row = Perturbation(np.array([1e-3, -2e-3, 3e-3]), np.array([4e-3, 5e-3, -6e-3])).to_dict()
    assert row == {"dx": 1e-3, "dy": -2e-3, "dz": 3e-3, "rx": 4e-3, "ry": 5e-3, "rz": -6e-3}
    assert all(type(v) is float for v in row.values())


def test_gripper_frame_of_a_vertical_and_a_tilted_axis_in_closed_form():
    """Vertical closing axis x = (0, 0, 1): the approach starts from -x_world, z0 = (-1, 0, 0),
    and turns about x by the right-hand rule: z = cos(a) z0 + sin(a) x × z0 with
    x × z0 = (0, -1, 0); y = z × x."""
    a = 0.3
    t = Grasp([0, 0, 0.01], [0, 0, 1], a).pose()
    np.testing.assert_allclose(t[:3, 0], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(t[:3, 2], [-np.cos(a), -np.sin(a), 0], atol=1e-15)
    np.testing.assert_allclose(t[:3, 1], [-np.sin(a), np.cos(a), 0], atol=1e-15)
    # Tilted axis (1, 0, 1)/sqrt 2 at angle 0: straight down projected off the axis,
    # (0, 0, -1) + (1/2, 0, 1/2), normalised: (1, 0, -1)/sqrt 2.
    t = Grasp([0, 0, 0.01], [1, 0, 1], 0.0).pose()
    r = t[:3, :3]
    np.testing.assert_allclose(r.T @ r, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(t[:3, 2], np.array([1, 0, -1]) / np.sqrt(2), atol=1e-15)
    # A quarter turn about the x axis takes the downward approach to +y (right-hand rule).
    t = Grasp([0, 0, 0.01], [1, 0, 0], np.pi / 2).pose()
    np.testing.assert_allclose(t[:3, 2], [0, 1, 0], atol=1e-15)


def test_grasp_inputs_are_taken_as_3_vectors_and_refused_with_exact_messages():
    g = Grasp([[0, 0, 0.01]], [[2, 0, 0]], 0.0)
    assert g.center.shape == (3,) and g.axis.shape == (3,)
    assert g.to_dict() == {
        "center": [0.0, 0.0, 0.01],
        "axis": [1.0, 0.0, 0.0],
        "approach_angle_rad": 0.0,
    }
    # The smallest axis taken: length 1e-12 (below it counts as zero).
    np.testing.assert_array_equal(Grasp([0, 0, 0], [1e-12, 0, 0]).axis, [1.0, 0.0, 0.0])
    with pytest.raises(ParameterError) as err:
        Grasp([0, 0, 0], [0, 0, 0])
    assert str(err.value) == "grasp axis is the zero vector; give a direction such as 1 0 0"
    with pytest.raises(ParameterError) as err:
        Grasp([0, 0, 0], [1, np.inf, 0])
    assert str(err.value) == "grasp axis contains NaN or inf: [1.0, inf, 0.0]"
    with pytest.raises(ParameterError) as err:
        Grasp([0, np.nan, 0], [1, 0, 0])
    assert str(err.value) == "grasp centre contains NaN or inf: [0.0, nan, 0.0]"
    with pytest.raises(ParameterError) as err:
        Grasp([0, 0, 0], [1, 0, 0], float("nan"))
    assert str(err.value) == "approach angle is NaN or inf; give radians, e.g. 0"


def test_a_huge_axis_is_a_direction_not_the_zero_vector():
    """|(1e200, 0, 0)| overflows to inf; the axis is still the unit direction it names (a
    session or CSV with such an axis loaded as the zero vector, found by the fuzz suite)."""
    from engine.grasp.grasp import Grasp

    g = Grasp([0.0, 0.0, 0.01], [1e200, 1e200, 0.0], 0.0)
    assert np.allclose(g.axis, [2**-0.5, 2**-0.5, 0.0])
    assert Grasp([0.0, 0.0, 0.01], [0.0, 3.0, 4.0], 0.0).axis.tolist() == [0.0, 0.6, 0.8]
