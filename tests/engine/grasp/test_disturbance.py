"""The grip's strength measured by a disturbance ramped on the held object (engine.grasp.
disturbance), against closed forms. A 300 g, 3 cm cube held through its centre by the YuMi's
20 N jaws (F per jaw, mu = 0.4):

- pulled down, it slips when the pull and its weight together reach the friction of both
  pads: pull = 2 mu F - m g (13.05 N; pushed up: 2 mu F + m g, 18.94 N);
- pushed along the closing axis, friction does not resist it: the pads' normal forces do, until
  the near pad has let go of its whole force, at 2 F (40 N, 2.5 times the friction's 16 N);
- twisted about the closing axis, it turns when the torque reaches the patches' friction
  moment, sum over each pad's contact points of mu N_i r_i (r_i: the point's distance from the
  axis through the pad's centre of pressure), from the held state's own contact forces.

Forces are within 5 % (the load steps are bisected to a bracket of 1/16 of 2 mu F, whose middle
is within 3 % of where the object left; measured: 13.50, 19.50 and 40.49 N); the twist within 15
% (0.146 against 0.152 N m: the patch's friction saturates point by point while the pads shear).
Each fails on a planted bug: the load's sign flipped (the pull down becomes a push up: 19.2 N),
the torque's generalized force doubled (the twist turns at half the moment); without the weight
the pull would be 2 mu F, 23 % off.
"""

from __future__ import annotations

import numpy as np
import pytest

import engine.ipc.stepper as stepper_module
from engine.constants import GRAVITY_M_S2
from engine.grasp.disturbance import _ramp, measure_strength, pad_radius_m
from engine.grasp.grasp import Grasp
from engine.grasp.lift import hold_command
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation
from engine.grasp.strength_estimates import coulomb_limit, directions, normal_limit
from engine.grasp.strength_search import BISECTIONS
from engine.ipc.contact_metrics import SOURCE_PAD1, SOURCE_PAD2, object_contact_forces
from engine.ipc.step_start import StepStart
from engine.ipc.step_types import StepCommand
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

pytestmark = pytest.mark.slow

MASS_KG = 0.3


@pytest.fixture(scope="module")
def held() -> tuple[GraspSimulation, float]:
    """The cube lifted and held; the jaws' hold force (N per jaw)."""
    obj = rest_object(builtin_cube(0.03), mass_kg=MASS_KG)
    sim = GraspSimulation(
        obj, Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0).pose(), SimulationParams()
    )
    for _ in sim.frames():
        pass
    r = sim.result
    assert r.success, r.reason
    return sim, 0.5 * (r.grip_force1_n + r.grip_force2_n)


def test_a_pull_down_slips_at_the_pads_friction_less_the_weight(held):
    sim, force = held
    (down,) = measure_strength(sim, force, ["down"])
    law = 2 * sim.params.mu * force - MASS_KG * GRAVITY_M_S2
    assert law == pytest.approx(13.05, abs=0.05)
    assert not down.held
    assert down.load == pytest.approx(law, rel=0.05)
    assert down.weight_multiple == pytest.approx(down.load / (MASS_KG * GRAVITY_M_S2))


def test_a_push_along_the_closing_axis_is_resisted_by_the_normal_forces(held):
    sim, force = held
    (along,) = measure_strength(sim, force, ["along"])
    assert along.load == pytest.approx(2 * force, rel=0.05)
    assert along.load > 2 * 2 * sim.params.mu * force  # far beyond what friction holds


def test_a_twist_about_the_closing_axis_turns_at_the_patches_friction_moment(held):
    sim, force = held
    st, s = sim.stepper.state, sim.system
    f = object_contact_forces(s, st.contact, s.collision_vertices(st.u))
    law = 0.0
    for source, normal in zip((SOURCE_PAD1, SOURCE_PAD2), sim.normals, strict=True):
        mine = f.source == source
        n_i = np.linalg.norm(f.normal_n[mine], axis=1)
        centre = (f.points[mine] * n_i[:, None]).sum(axis=0) / n_i.sum()
        arm = np.linalg.norm(np.cross(f.points[mine] - centre, normal), axis=1)
        law += sim.params.mu * float((n_i * arm).sum())
    (twist,) = measure_strength(sim, force, ["twist"])
    assert not twist.held
    assert twist.load == pytest.approx(law, rel=0.15)


def _down(sim: GraspSimulation, force: float, load_n: float) -> StepCommand:
    """A load step pulling the held cube down by load_n (N) while the jaws keep `force`."""
    p = sim.params
    return StepCommand(
        hold_force_n=force,
        servo_travel_m=hold_command(p, force, p.time_step_s),
        object_load=(np.array([0.0, 0.0, -load_n]), np.zeros(3)),
    )


def _spy_first_factors(monkeypatch) -> list[bool]:
    """Whether each later Newton solve of a step was handed a kept first factor."""
    reused: list[bool] = []
    solve = stepper_module.newton_solve

    def spy(*args, **kwargs):
        reused.append(kwargs["hints"].first_factor is not None)
        return solve(*args, **kwargs)

    monkeypatch.setattr(stepper_module, "newton_solve", spy)
    return reused


def _load_step(sim: GraspSimulation, force: float, state, load_n: float):
    """(The state after a pull of load_n from `state`, its Newton iterations); the stepper's
    state is left as it was."""
    stepper = sim.stepper
    before = stepper.state
    stepper.state = state
    try:
        return stepper.watched_step(_down(sim, force, load_n), lambda u: False)
    finally:
        stepper.state = before


def test_load_steps_from_one_state_share_its_first_newton_matrix_exactly(held, monkeypatch):
    """The test's load steps restart from the last state the object stuck in with another load:
    a linear term (engine.ipc.load_term), so the first Newton matrix is the one already
    factorized. Reusing it must give the step a fresh assembly gives, to round-off (the contact
    pairs may be summed in another order)."""
    sim, force = held
    start = sim.stepper.state
    sim.stepper.drop_load_starts()
    reused = _spy_first_factors(monkeypatch)
    _load_step(sim, force, start, 4.0)
    second, its = _load_step(sim, force, start, 8.0)
    assert reused == [False, True]
    monkeypatch.setattr(StepStart, "serves", lambda self, st, cmd: False)
    fresh, fresh_its = _load_step(sim, force, start, 8.0)
    assert reused[-1] is False
    assert second is not None and fresh is not None
    assert its == fresh_its
    np.testing.assert_allclose(second.u, fresh.u, rtol=0, atol=1e-12)  # m


def test_the_held_states_start_serves_every_direction(held, monkeypatch):
    """Every direction of the test starts from the held state, after steps from other states:
    the held state's start (the first load step's since the hold) is kept beside the latest,
    so a later direction's first step takes its factor instead of assembling it again."""
    sim, force = held
    start = sim.stepper.state
    sim.stepper.drop_load_starts()
    reused = _spy_first_factors(monkeypatch)
    stuck, _ = _load_step(sim, force, start, 2.0)
    assert stuck is not None
    _load_step(sim, force, stuck, 4.0)
    again, _ = _load_step(sim, force, start, 2.0)
    assert reused == [False, False, True]
    assert again is not None
    np.testing.assert_allclose(again.u, stuck.u, rtol=0, atol=1e-12)  # m


def _ramps(sim: GraspSimulation, force: float, name: str, limit: float) -> tuple:
    """The strength along `name` found by the plain ramp and by the ramp given `limit`, each
    from the held state."""
    stepper = sim.stepper
    start = stepper.state
    closing = sim.gripper_pose[:3, 0]
    (d,) = [x for x in directions(closing) if x.name == name]
    capacity = 2 * sim.params.mu * force
    weight = MASS_KG * GRAVITY_M_S2
    out = []
    for bound in (None, limit):
        stepper.drop_load_starts()
        try:
            out.append(_ramp(sim, start, d, capacity, weight, force, bound))
        finally:
            stepper.state = start
    return tuple(out)


def test_coulombs_bound_on_a_pull_orders_the_tries_not_the_result(held):
    """Coulomb's law bounds a force across the closing axis by the pads' friction 2 mu F less
    the weight's share (a pull down: 2 mu F - m g, below the first load step of 2 mu F): the
    halvings below that step come first and the step itself is tried only if every half held.
    The bracket is the plain ramp's, one try fewer."""
    sim, force = held
    capacity = 2 * sim.params.mu * force
    weight = MASS_KG * GRAVITY_M_S2
    closing = sim.gripper_pose[:3, 0]
    limits = {d.name: coulomb_limit(d, closing, capacity, weight) for d in directions(closing)}
    assert limits["down"] == pytest.approx(capacity - weight)
    assert limits["up"] == pytest.approx(capacity + weight)
    assert limits["across"] == pytest.approx(capacity)
    assert limits["along"] is None and limits["twist"] is None
    plain, bounded = _ramps(sim, force, "down", limits["down"])
    assert bounded.load == plain.load
    assert bounded.steps == plain.steps - 1


def test_a_wrong_bound_costs_tries_not_the_strength(held):
    """Pushed up, the 300 g cube holds beyond 2 mu F (18.94 N by Coulomb's law): given 2 mu F
    as its bound, the ramp tries the halvings below it, finds them all held, tries 2 mu F, and
    ramps on from there as the plain ramp does, to a bracket as narrow."""
    sim, force = held
    capacity = 2 * sim.params.mu * force
    plain, bounded = _ramps(sim, force, "up", capacity)
    assert not plain.held and not bounded.held
    assert plain.load > capacity and bounded.load > capacity
    assert bounded.load == pytest.approx(plain.load, abs=capacity / 2**BISECTIONS)
    assert bounded.steps > plain.steps


def test_down_searched_from_up_finds_coulombs_law_in_fewer_tries(held):
    """Measured after the push up (19.50 N: Coulomb's 2 mu F + m g, 18.94 N), the pull down
    starts its search at that friction less twice the weight (Coulomb: down leaves at
    2 mu F - m g, 13.05 N) instead of halving below 2 mu F: the same grid of loads, so the same
    bracket up to the load path's history (a grid step, 1/16 of 2 mu F), in fewer tries."""
    sim, force = held
    capacity = 2 * sim.params.mu * force
    (plain,) = measure_strength(sim, force, ["down"])
    up, hinted = measure_strength(sim, force, ["up", "down"])
    assert up.direction == "up" and hinted.direction == "down"
    assert hinted.load == pytest.approx(plain.load, abs=capacity / 2**BISECTIONS + 1e-9)
    assert hinted.load == pytest.approx(capacity - MASS_KG * GRAVITY_M_S2, rel=0.05)
    assert hinted.steps < plain.steps


def test_the_twist_searched_from_the_patches_friction_moment_in_fewer_tries(held):
    """The twist starts its search at the held state's patch friction moment (0.152 N m) and
    leaves at the ramp's bracket (0.146 N m) in fewer tries than the ramp's five."""
    sim, force = held
    closing = sim.gripper_pose[:3, 0]
    (d,) = [x for x in directions(closing) if x.name == "twist"]
    capacity = 2 * sim.params.mu * force
    scale = capacity * pad_radius_m(sim)
    stepper, start = sim.stepper, sim.stepper.state
    (hinted,) = measure_strength(sim, force, ["twist"])
    stepper.drop_load_starts()
    try:
        plain = _ramp(sim, start, d, scale, MASS_KG * GRAVITY_M_S2, force)
    finally:
        stepper.state = start
    assert hinted.load == pytest.approx(plain.load, abs=scale / 2**BISECTIONS + 1e-9)
    assert hinted.steps < plain.steps


def test_the_push_along_tries_the_pads_bound_before_stepping_past_it(held):
    """Pushed along the closing axis the centred cube leaves just past 2 F: with that bound the
    ramp's steps at 1 and 2 times 2 mu F are followed by 2 F and one grid step above it
    (four tries) instead of the step to 3 times 2 mu F and four halvings (seven), to the same
    bracket."""
    sim, force = held
    capacity = 2 * sim.params.mu * force
    closing = sim.gripper_pose[:3, 0]
    (d,) = [x for x in directions(closing) if x.name == "along"]
    stepper, start = sim.stepper, sim.stepper.state
    runs = []
    for bound in (None, normal_limit(d, closing, force)):
        stepper.drop_load_starts()
        try:
            runs.append(_ramp(sim, start, d, capacity, MASS_KG * GRAVITY_M_S2, force, bound=bound))
        finally:
            stepper.state = start
    plain, bounded = runs
    assert bounded.load == pytest.approx(plain.load, abs=capacity / 2**BISECTIONS + 1e-9)
    assert bounded.load == pytest.approx(2 * force, rel=0.05)
    assert (plain.steps, bounded.steps) == (7, 4)
