"""What the laws of contact expect of the grip-strength test's directions (engine.grasp.
strength_estimates): which measured directions estimate where the next leaves (Coulomb: a
force across the closing axis leaves at the friction plus the weight's share), the pads' bound
on a push along the closing axis (2 F) and the patches' friction moment (sum mu N_i r_i)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.strength import Strength
from engine.grasp.strength_estimates import (
    directions,
    friction_hint,
    normal_limit,
    patch_friction_moment,
    twists,
)
from engine.ipc.contact_metrics import SOURCE_GROUND, SOURCE_PAD1, SOURCE_PAD2, ContactForces


def test_the_normal_forces_bound_only_a_push_along_the_closing_axis():
    closing = np.array([1.0, 0.0, 0.0])
    by_name = {d.name: d for d in directions(closing)}
    assert normal_limit(by_name["along"], closing, 20.0) == pytest.approx(40.0)
    for name in ("across", "up", "down", "twist", "tilt", "turn"):
        assert normal_limit(by_name[name], closing, 20.0) is None


def _strength(direction: str, load: float, held: bool = False) -> Strength:
    return Strength(direction, load, 0.0, held, 1, 1)


def test_the_opposite_direction_gives_the_hint_shifted_by_twice_the_weight():
    """Up and down lie on one line: by Coulomb's law up leaves at the friction plus the weight,
    down at the friction less it."""
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    (down,) = [d for d in directions(closing) if d.name == "down"]
    measured = [_strength("along", 40.0), _strength("across", 14.5), _strength("up", 9.5)]
    assert friction_hint(down, measured, closing, weight) == pytest.approx(9.5 - 2 * weight)


def test_no_hint_without_the_opposite_direction():
    """A pull across and a vertical one turn an off-centre grasp out by different arms (on the
    banana across leaves at 12-18 N, up at 2.5-13.5 N): across does not estimate up."""
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    (up,) = [d for d in directions(closing) if d.name == "up"]
    measured = [_strength("along", 40.0), _strength("across", 14.5), _strength("down", 9.5)]
    assert friction_hint(up, measured, closing, weight) == pytest.approx(9.5 + 2 * weight)
    assert friction_hint(up, measured[:2], closing, weight) is None


def test_no_hint_for_the_normal_forces_torques_held_directions_or_a_first_direction():
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    by_name = {d.name: d for d in directions(closing)}
    measured = [_strength("across", 14.5), _strength("up", 9.5)]
    for name in ("along", "twist", "tilt", "turn"):
        assert friction_hint(by_name[name], measured, closing, weight) is None
    assert friction_hint(by_name["across"], [], closing, weight) is None
    held = [_strength("up", 48.0, held=True)]
    assert friction_hint(by_name["down"], held, closing, weight) is None


def test_a_vertical_closing_axis_pushes_up_and_down_against_the_normal_forces():
    """Closing vertically, up and down are along the closing axis: no friction hint for them,
    and none from them."""
    closing, weight = np.array([0.0, 0.0, 1.0]), 0.5
    by_name = {d.name: d for d in directions(closing)}
    measured = [_strength("up", 30.0), _strength("down", 30.0)]
    assert friction_hint(by_name["down"], measured[:1], closing, weight) is None
    assert friction_hint(by_name["across"], measured, closing, weight) is None


def test_the_patches_friction_moment_sums_mu_n_r_about_each_pads_centre_of_pressure():
    """Pad 1: four points of 2 N at 5 mm from its centre (two of them 2 mm off the pad's plane:
    along the normal, no arm); pad 2: two points of 3 N at 4 mm either side of a 1 N point at
    its centre; mu 0.5: 0.5 (8 N x 5 mm + 6 N x 4 mm) = 0.032 N m. The ground's forces
    and each force's component along the pad's normal do not count."""
    normals = (np.array([1.0, 0.0, 0.0]), np.array([-1.0, 0.0, 0.0]))
    ring = [[0.0, 0.005, 0.0], [0.0, -0.005, 0.0], [0.0, 0.0, 0.005], [0.0, 0.0, -0.005]]
    points = np.array(
        [[-0.01 + 0.002 * (k % 2), *p[1:]] for k, p in enumerate(ring)]
        + [[0.01, 0.0, 0.004], [0.01, 0.0, -0.004], [0.01, 0.0, 0.0], [0.0, 0.0, -0.02]]
    )
    normal = np.array([[2.0, 0, 0]] * 4 + [[-3.0, 0, 0]] * 2 + [[-1.0, 0, 0], [0, 0, 9.0]])
    source = np.array([SOURCE_PAD1] * 4 + [SOURCE_PAD2] * 3 + [SOURCE_GROUND], dtype=np.int8)
    forces = ContactForces(points, normal, np.zeros_like(normal), source)
    assert patch_friction_moment(forces, normals, 0.5) == pytest.approx(0.032)


def test_only_the_torque_about_the_closing_axis_twists():
    closing = np.array([0.0, 0.6, 0.8])
    names = [d.name for d in directions(closing) if twists(d, closing)]
    assert names == ["twist"]
