"""How strong is the grip: a disturbance raised on the held object until it leaves the grip.

After the hold, an external force at the object's centre of mass (or a torque) rises in load
steps along one direction of the grasp frame while the jaws keep their force, until the
object has moved relative to the plates by more than ONSET_FRACTION of the success test's slip
tolerance, or turned by more than that fraction of its rotation tolerance (0.25 mm, 0.5 deg by
default): it has left the stick range and slides or turns on. The last step that left is then
bisected, each half tried from the last state the object stuck in, and the middle of the last
bracket [stuck, left] is the grip's strength in that direction. Each direction is its own
continuation from the held state (the squeeze and lift are not run again). A force mostly
across the closing axis measured after another of its kind (up after across, down after up)
searches from where that one says the friction gives way instead, the twist from the patches'
friction moment, a push along the closing axis past the pads' bound 2 F
(engine.grasp.strength_estimates): among the same loads (engine.grasp.strength_search), so to a
bracket as narrow, in fewer tries.

The steps are scaled to the grip: STEP_MULTIPLE of the grip's Coulomb capacity 2 mu F (F the
jaws' hold force) per time step, for torques 2 mu F times the pad's radius; a direction still
held at CAP_MULTIPLE of that is reported as held, with the load reached.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from engine.constants import GRAVITY_M_S2
from engine.grasp.grip_measures import rotation_angle
from engine.grasp.lift import hold_command
from engine.grasp.strength import Strength
from engine.grasp.strength_estimates import (
    Direction,
    coulomb_limit,
    directions,
    friction_hint,
    normal_limit,
    patch_friction_moment,
    twists,
)
from engine.grasp.strength_search import STEP_MULTIPLE, bisect, ramp_up, search_near
from engine.ipc.contact_metrics import object_contact_forces
from engine.ipc.stepper import StepCommand

if TYPE_CHECKING:
    from engine.grasp.simulation import GraspSimulation
    from engine.ipc.stepper import StepState

ONSET_FRACTION = 0.05
"""A step leaves the grip when the object has moved more than this fraction of the tolerances
(0.25 mm, 0.5 deg by default) since the held state: it has left the stick range, while the
load at which it had moved the whole tolerance would include the time it took to get there. A
load step whose Newton iterate has already moved past it stops there (Stepper.watched_step): a
sliding step costs 10-100 Newton iterations, and the rest of them only resolve the slide."""


def measure_strength(
    sim: GraspSimulation, hold_force_n: float | None, only: Sequence[str] | None = None
) -> list[Strength]:
    """Each direction's strength (`only`: those named), continuing from the simulation's
    current (held) state, which is restored afterwards. The jaws keep pressing with
    `hold_force_n` (None: they keep their separation, `--hold position`)."""
    p, stepper = sim.params, sim.stepper
    held = stepper.state
    weight = sim.obj.mass_kg * GRAVITY_M_S2
    radius = pad_radius_m(sim)
    grip_n = hold_force_n if hold_force_n is not None else sim.result.grip_force_n
    capacity = 2.0 * p.mu * max(grip_n, 0.0)
    out: list[Strength] = []
    closing = sim.gripper_pose[:3, 0]  # the pose rotation's first column, as directions() takes it
    try:
        for d in directions(closing):
            if only is not None and d.name not in only:
                continue
            scale = capacity * (radius if d.is_torque else 1.0)
            unit = weight * (radius if d.is_torque else 1.0)
            limit = coulomb_limit(d, closing, capacity, weight)
            hint = friction_hint(d, out, closing, weight)
            if twists(d, closing) and held.contact is not None:
                x = sim.system.collision_vertices(held.u)
                forces = object_contact_forces(sim.system, held.contact, x)
                hint = patch_friction_moment(forces, sim.normals, p.mu)
            bound = normal_limit(d, closing, grip_n)
            out.append(_ramp(sim, held, d, scale, unit, hold_force_n, limit, hint, bound))
            stepper.state = held
    finally:
        stepper.state = held
        stepper.drop_load_starts()
    return out


def pad_radius_m(sim: GraspSimulation) -> float:
    """The radius (m) of a disc with the pad's contact area: the arm of torque scales."""
    outline = np.asarray(sim.pad.outline.polygon, dtype=float)
    x, y = outline[:, 0], outline[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))
    return math.sqrt(area / math.pi)


def _ramp(
    sim: GraspSimulation,
    held: StepState,
    d: Direction,
    scale: float,
    unit: float,
    hold_force_n: float | None,
    limit: float | None = None,
    hint: float | None = None,
    bound: float | None = None,
) -> Strength:
    """Load steps of STEP_MULTIPLE x `scale` from the held state, each continuing from the
    last state the object stuck in, until it leaves the grip or the load reaches the cap; then
    BISECTIONS halvings of the last step, each from the last state it stuck in.

    `limit`: Coulomb's bound on the load (coulomb_limit). At or below the first step, that step
    would leave, so the halvings below it come first and the step itself is tried only if every
    half held: the same tries minus the first (a step stopped as the object slides, 2-3 Newton
    iterations), and the same bracket wherever the object leaves below it.

    `hint`: where the object is expected to leave (friction_hint, patch_friction_moment): the
    search starts there instead (strength_search.search_near), on the same grid of loads, so it
    ends in the same bracket.
    `bound`: where it leaves at the latest (normal_limit): the step that would pass it tries
    the bound first (strength_search.past_bound)."""
    walk = _Walk(sim, held, d, hold_force_n)
    if hint is not None and scale > 0.0:
        near = search_near(walk, hint, scale)
        if near is None:
            return _held(d, walk, unit)
        return _left(d, walk, near, unit)
    first = STEP_MULTIPLE * scale
    if limit is not None and 0.0 < first and limit <= first:
        left_at = bisect(walk, first)
        if left_at < first or not walk.try_load(first):
            return _left(d, walk, left_at, unit)
    ramped = ramp_up(walk, scale, bound)
    if ramped is None:
        return _held(d, walk, unit)
    return _left(d, walk, ramped, unit)


def _held(d: Direction, walk: _Walk, unit: float) -> Strength:
    """The strength of a direction still held at the cap: the load reached, a lower bound."""
    return Strength(d.name, walk.load, walk.load / unit, True, walk.steps, walk.its)


def _left(d: Direction, walk: _Walk, left_at: float, unit: float) -> Strength:
    """The strength of a direction that left in [walk.load, left_at]: the bracket's middle."""
    onset = 0.5 * (walk.load + left_at)
    return Strength(d.name, onset, onset / unit, False, walk.steps, walk.its)


class _Walk:
    """Load steps along one direction; `load` and `state`: the last load the object stuck at
    and the state it stuck in (the held state at no load)."""

    def __init__(
        self, sim: GraspSimulation, held: StepState, d: Direction, hold_force_n: float | None
    ) -> None:
        self.sim, self.held, self.d, self.hold_force_n = sim, held, d, hold_force_n
        self.pose0 = sim.object_pose(held)
        self.load, self.state = 0.0, held
        self.steps = self.its = 0

    def try_load(self, load: float) -> bool:
        """One time step at `load` from the last stuck state: whether the object still
        sticks (then it is the new last stuck state)."""
        p, stepper = self.sim.params, self.sim.stepper
        cmd = StepCommand(
            hold_force_n=self.hold_force_n,
            servo_travel_m=hold_command(p, self.hold_force_n, p.time_step_s),
            object_load=(load * self.d.force, load * self.d.torque),
        )
        stepper.state = self.state
        self.steps += 1
        try:
            new, its = stepper.watched_step(cmd, lambda u: self._left(u, self.state.lift_m))
        finally:
            stepper.state = self.state
        self.its += its
        if new is None or self._left(new.u, new.lift_m):
            return False
        self.load, self.state = load, new
        return True

    def _left(self, u: np.ndarray, lift_m: float) -> bool:
        p = self.sim.params
        moved, turned = _motion(self.sim, self.pose0, self.held, u, lift_m)
        return moved > ONSET_FRACTION * p.slip_tolerance_m or (
            turned > ONSET_FRACTION * p.rotation_tolerance_rad
        )


def motion_since(
    sim: GraspSimulation, pose0: np.ndarray, held: StepState, st: StepState
) -> tuple[float, float]:
    """(How far the object's centre of mass moved relative to the plates (m), how far it
    turned (rad)) since the held state."""
    return _motion(sim, pose0, held, st.u, st.lift_m)


def _motion(
    sim: GraspSimulation, pose0: np.ndarray, held: StepState, u: np.ndarray, lift_m: float
) -> tuple[float, float]:
    pose = sim.object_pose_at(u)
    plates = (lift_m - held.lift_m) * np.array([0.0, 0.0, 1.0])
    moved = pose[:3, 3] - pose0[:3, 3] - plates
    return float(np.linalg.norm(moved)), rotation_angle(pose0[:3, :3], pose[:3, :3])
