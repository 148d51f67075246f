"""Widths are measured across the object, not along its axis-aligned box: the "no grasp fits"
message of a brick turned on the table gives the brick's narrowest width."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.grasp.default_grasp import narrowest_width, no_grasp_error
from engine.grasp.params import SimulationParams
from engine.scene.object_mesh import ObjectMesh
from engine.scene.resting import rest_object_from_rotation

BRICK_M = (0.052, 0.100, 0.030)  # lying flat: 52 mm is its narrowest width across


def _turned_brick(degrees: float):
    box = trimesh.creation.box(extents=BRICK_M)
    mesh = ObjectMesh(np.asarray(box.vertices), np.asarray(box.faces), "brick", "generated", None)
    turn = trimesh.transformations.rotation_matrix(math.radians(degrees), [0, 0, 1])[:3, :3]
    return rest_object_from_rotation(mesh, turn, mass_kg=0.1)


@pytest.mark.parametrize("degrees", [0.0, 17.0, 30.0, 45.0, 81.0])
def test_the_narrowest_width_does_not_depend_on_how_the_object_is_turned(degrees):
    brick = _turned_brick(degrees)
    assert narrowest_width(brick.vertices) == pytest.approx(0.052, abs=1e-9)


def test_a_cylinder_is_its_diameter_across():
    can = trimesh.creation.cylinder(radius=0.033, height=0.115, sections=256)
    assert narrowest_width(np.asarray(can.vertices)) == pytest.approx(0.066, rel=1e-3)


def test_the_too_wide_message_gives_the_width_across_the_turned_brick():
    brick = _turned_brick(30.0)
    boxed = float(np.ptp(brick.vertices[:, :2], axis=0).min())
    assert boxed * 1e3 == pytest.approx(95.0, abs=0.5)  # what the axis-aligned box says
    text = str(no_grasp_error(brick, SimulationParams(), 0, ""))
    assert "50 mm opening" in text
    assert "its narrowest width across, over every horizontal direction, is 52 mm" in text
    assert "95 mm" not in text
