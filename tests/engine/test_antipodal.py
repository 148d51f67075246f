"""Antipodal completion of a picked point, and the inverse of Grasp.pose."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import GraspError
from engine.grasp.antipodal import antipodal_grasp, grasp_from_pose
from engine.grasp.grasp import Grasp
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object


@pytest.fixture(scope="module")
def cube():
    return rest_object(builtin_cube())


def test_click_on_a_cube_side_gives_the_opposite_side(cube):
    done = antipodal_grasp(cube, [0.015, 0.004, 0.012], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(done.grasp.axis, [-1.0, 0.0, 0.0])
    np.testing.assert_allclose(done.contact1, [-0.015, 0.004, 0.012], atol=1e-9)
    np.testing.assert_allclose(done.grasp.center, [0.0, 0.004, 0.012], atol=1e-9)
    assert done.width_m == pytest.approx(0.03)


def test_point_off_the_object_is_refused(cube):
    with pytest.raises(GraspError, match="opposite surface"):
        antipodal_grasp(cube, [0.2, 0.0, 0.012], [1.0, 0.0, 0.0])
    with pytest.raises(GraspError, match="normal"):
        antipodal_grasp(cube, [0.015, 0.0, 0.012], [0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "axis", [[1.0, 0.0, 0.0], [0.3, -0.8, 0.2], [0.0, 0.0, 1.0], [0.05, 0.0, -1.0]]
)
@pytest.mark.parametrize("angle", [0.0, 0.7, -2.5])
def test_grasp_from_pose_inverts_pose(axis, angle):
    g = Grasp(np.array([0.01, -0.02, 0.03]), np.array(axis), angle)
    back = grasp_from_pose(g.pose())
    np.testing.assert_allclose(back.pose(), g.pose(), atol=1e-12)


def test_contacts_along_axis(cube):
    from engine.grasp.antipodal import contacts_along_axis

    a, b = contacts_along_axis(cube, Grasp(np.array([0.0, 0.0, 0.015]), np.array([0.0, 1.0, 0.0])))
    np.testing.assert_allclose(a, [0.0, -0.015, 0.015], atol=1e-9)
    np.testing.assert_allclose(b, [0.0, 0.015, 0.015], atol=1e-9)
    assert (
        contacts_along_axis(cube, Grasp(np.array([0.0, 0.0, 0.1]), np.array([0.0, 1.0, 0.0])))
        is None
    )
