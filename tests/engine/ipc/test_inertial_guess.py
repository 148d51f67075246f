"""The servo step's initial guess extrapolates motion at constant velocity: each pad vertex keeps
its velocity relative to its plate and the object its velocity relative to the plates' lift, so a
state that moves uniformly is predicted exactly, and a held object speeds up and stops with the
plates (the lift's ramp, the hold); pads that moved rigidly give no extrapolation (None)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.simulation import GraspSimulation
from engine.ipc.stepper import StepState
from tests.conftest import yumi_cube_simulation


@pytest.fixture(scope="module")
def sim() -> GraspSimulation:
    return yumi_cube_simulation()


def test_constant_velocities_are_extrapolated_exactly(sim):
    s = sim.system
    h, travel, lift = 0.01, 2e-3, 1e-3
    u = s.u_initial.copy()
    u[s.fixed] = sim.stepper._dirichlet(travel, lift)
    rng = np.random.default_rng(3)
    v_close, v_lift = 0.02, 0.05  # m/s of the plates
    v = v_close * sim.stepper.close_dir + v_lift * sim.stepper.lift_dir
    relative = 1e-4 * rng.standard_normal(s.ndof)  # pads deforming, object drifting (m/s)
    relative[s.fixed] = 0.0
    v = v + relative
    st = StepState(u, v, 0.0, travel, lift, 1.0, closing_speed_m_s=v_close, lift_speed_m_s=v_lift)
    closing = h * v_close * sim.stepper.close_dir
    guess = sim.stepper._inertial_guess(st, h, 0.0, h * v_lift, closing)
    expected = u + h * v
    np.testing.assert_allclose(guess, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "v_before, v_now", [(0.0, 0.02), (0.02, 0.05), (0.05, 0.0)], ids=["lift starts", "ramp", "hold"]
)
def test_a_held_object_keeps_its_velocity_relative_to_the_rising_plates(sim, v_before, v_now):
    s = sim.system
    h, travel, lift = 0.01, 2e-3, 1e-3
    u = s.u_initial.copy()
    u[s.fixed] = sim.stepper._dirichlet(travel, lift)
    rng = np.random.default_rng(4)
    relative = 1e-4 * rng.standard_normal(s.ndof)  # pads deforming (m/s)
    relative[s.fixed] = 0.0
    obj = s.obj_dof
    relative[obj] = 0.0
    v = v_before * sim.stepper.lift_dir + relative
    v[obj.start + 2] = v_before  # the object rose with the plates
    st = StepState(u, v, 0.0, travel, lift, 1.0, lift_speed_m_s=v_before)
    guess = sim.stepper._inertial_guess(st, h, 0.0, h * v_now, np.zeros(s.ndof))
    # The object rises as far as the plates do in this step, not as far as it did last step.
    assert guess[obj.start + 2] - u[obj.start + 2] == pytest.approx(h * v_now, abs=1e-15)
    np.testing.assert_array_equal(guess[obj.start + 3 : obj.stop], u[obj.start + 3 : obj.stop])


def test_rigidly_moving_pads_give_no_extrapolation(sim):
    s = sim.system
    u = s.u_initial.copy()
    v = 0.02 * sim.stepper.close_dir
    st = StepState(u, v, 0.0, 0.0, 0.0, 1.0, closing_speed_m_s=0.02)
    assert sim.stepper._inertial_guess(st, 0.01, 0.0, 0.0, 0.01 * v) is None
