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
searches from where that one says the friction gives way instead (friction_hint,
_search_near): among the same loads, so to a bracket as narrow, in fewer tries.

The steps are scaled to the grip: STEP_MULTIPLE of the grip's Coulomb capacity 2 mu F (F the
jaws' hold force) per time step, for torques 2 mu F times the pad's radius; a direction still
held at CAP_MULTIPLE of that is reported as held, with the load reached.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.constants import GRAVITY_M_S2
from engine.grasp.grip_measures import rotation_angle
from engine.grasp.lift import hold_command
from engine.grasp.strength import Strength
from engine.ipc.stepper import StepCommand

if TYPE_CHECKING:
    from engine.grasp.simulation import GraspSimulation
    from engine.ipc.stepper import StepState

STEP_MULTIPLE = 1.0
"""The load rises by this multiple of the grip's Coulomb capacity 2 mu F per time step (for
torques, 2 mu F times the pad's radius). The steps are quasi-static: the object's inertia over
a 10 ms step (m / h^2, 30 N/m for 3 g, 3,000 N/m for 300 g) is small beside the pads'
stiffness, so the state a step ends in is the load's equilibrium when the object sticks."""

BISECTIONS = 4
"""Once a load step leaves the grip, the step is halved this many times, each half tried from
the last state the object stuck in, leaving a bracket [stuck, left] of STEP_MULTIPLE / 2^4 =
1/16 of 2 mu F. The strength is its middle: within 1/32 of 2 mu F (3 %) of the load at which
the object leaves. (The lower end, a load seen held, would need a fifth halving for the same
bound: one more of the two to eight steps a direction takes.)"""

CAP_MULTIPLE = 3.0
"""A direction still held at this multiple of its step's scale ends as held."""

ONSET_FRACTION = 0.05
"""A step leaves the grip when the object has moved more than this fraction of the tolerances
(0.25 mm, 0.5 deg by default) since the held state: it has left the stick range, while the
load at which it had moved the whole tolerance would include the time it took to get there. A
load step whose Newton iterate has already moved past it stops there (Stepper.watched_step): a
sliding step costs 10-100 Newton iterations, and the rest of them only resolve the slide."""


@dataclass(frozen=True)
class Direction:
    """One disturbance: a unit force or a unit torque, world frame."""

    name: str
    force: np.ndarray  # (3,) unit, or zeros
    torque: np.ndarray  # (3,) unit, or zeros

    @property
    def is_torque(self) -> bool:
        """Whether it is a torque (N m) rather than a force (N)."""
        return bool(np.any(self.torque))


def directions(closing_axis: np.ndarray) -> list[Direction]:
    """Along and across the closing axis, up and down, and the torques about the closing axis,
    the across axis and the vertical (world frame; the across axis is horizontal)."""
    x = np.asarray(closing_axis, dtype=float)
    x = x / np.linalg.norm(x)
    up = np.array([0.0, 0.0, 1.0])
    across = np.cross(up, x)
    if np.linalg.norm(across) < 1e-9:  # a vertical closing axis
        across = np.array([1.0, 0.0, 0.0])
    across /= np.linalg.norm(across)
    zero = np.zeros(3)
    return [
        Direction("along", x, zero),
        Direction("across", across, zero),
        Direction("up", up, zero),
        Direction("down", -up, zero),
        Direction("twist", zero, x),
        Direction("tilt", zero, across),
        Direction("turn", zero, up),
    ]


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

    `hint`: where the object is expected to leave (friction_hint): the search starts there
    instead (_search_near), on the same grid of loads, so it ends in the same bracket.
    `bound`: where it leaves at the latest (normal_limit): the step that would pass it tries
    the bound first (_past_bound)."""
    walk = _Walk(sim, held, d, hold_force_n)
    if hint is not None and scale > 0.0:
        near = _search_near(walk, hint, scale)
        if near is None:
            return Strength(d.name, walk.load, walk.load / unit, True, walk.steps, walk.its)
        return _left(d, walk, near, unit)
    first = STEP_MULTIPLE * scale
    if limit is not None and 0.0 < first and limit <= first:
        left_at = _bisect(walk, first)
        if left_at < first or not walk.try_load(first):
            return _left(d, walk, left_at, unit)
    ramped = _ramp_up(walk, scale, bound)
    if ramped is None:
        return Strength(d.name, walk.load, walk.load / unit, True, walk.steps, walk.its)
    return _left(d, walk, ramped, unit)


def _ramp_up(walk: _Walk, scale: float, bound: float | None = None) -> float | None:
    """Steps of STEP_MULTIPLE x `scale` above the walk's load until one leaves, then its
    halvings (_bisect): the load the object left at, or None when the load reached
    CAP_MULTIPLE x `scale` held. With `bound`, the step that would pass it hands over to
    _past_bound."""
    step, cap = STEP_MULTIPLE * scale, CAP_MULTIPLE * scale
    k = round(walk.load / step) if step > 0.0 else 0
    while walk.load < cap:
        k += 1
        load = min(k * step, cap)
        if bound is not None and walk.load < bound < load:
            return _past_bound(walk, bound, scale)
        if not walk.try_load(load):
            return _bisect(walk, load)
    return None


def _bisect(walk: _Walk, left_at: float) -> float:
    """BISECTIONS halvings of [walk.load, left_at], each tried from the last state the object
    stuck in; the upper end of the last bracket."""
    for _ in range(BISECTIONS):
        middle = 0.5 * (walk.load + left_at)
        if not walk.try_load(middle):
            left_at = middle
    return left_at


def _search_near(walk: _Walk, hint: float, scale: float) -> float | None:
    """The load at which the object left, searched from `hint` on the grid the ramp and its
    halvings try (_Grid): the grid load at or below the hint, then away from it by 1, 2, 4...
    grid steps until the object's behaviour changes, then halvings to one grid step. A hint
    within a grid step of where the object leaves takes two tries (the ramp and its halvings:
    five to seven); one off by n grid steps about 2 log2(n) more. None: held at the cap."""
    g = _Grid(walk, scale)
    stuck = g.stuck()
    k = min(max(g.below(hint), stuck), g.top)
    if k > stuck and not g.holds(k):
        left, gap = k, 1
        while left - gap > stuck and not g.holds(left - gap):
            left, gap = left - gap, 2 * gap
        return g.halve(max(left - gap, stuck), left)
    return g.up_from(k)


def _past_bound(walk: _Walk, bound: float, scale: float) -> float | None:
    """The load at which the object left, searched from the last step below `bound`: the grid
    load at or below the bound first (where a centred grasp leaves), then halvings below it
    if it left (an off-centre grasp, which turns out sooner), or steps of 1, 2, 4... grid
    steps above it and halvings if it held (_Grid). None: held at the cap."""
    g = _Grid(walk, scale)
    stuck = g.stuck()
    k = min(max(g.below(bound), stuck + 1), g.top)
    return g.up_from(k) if g.holds(k) else g.halve(stuck, k)


class _Grid:
    """The loads the ramp and its halvings try, by index: multiples of STEP_MULTIPLE x scale /
    2^BISECTIONS up to the cap. Searches on it end in the bracket the ramp and its halvings
    reach, one grid step wide."""

    def __init__(self, walk: _Walk, scale: float) -> None:
        self.walk = walk
        self.step = STEP_MULTIPLE * scale / 2**BISECTIONS
        self.top = round(CAP_MULTIPLE * scale / self.step)

    def below(self, load: float) -> int:
        """The index of the grid load at or below `load` (a load on the grid, such as 2 F =
        40 grid steps at mu 0.4, is its own, whatever the round-off of the division)."""
        return math.floor(load / self.step * (1.0 + 1e-9))

    def stuck(self) -> int:
        """The index of the last load the object stuck at."""
        return round(self.walk.load / self.step)

    def holds(self, k: int) -> bool:
        """Whether the object sticks at the k-th load (walk.try_load)."""
        return self.walk.try_load(k * self.step)

    def up_from(self, stuck: int) -> float | None:
        """From the last stuck index, steps of 1, 2, 4... until the object leaves, then
        halvings to one grid step: the load it left at; None: held at the cap."""
        gap = 1
        while stuck < self.top:
            k = min(stuck + gap, self.top)
            if not self.holds(k):
                return self.halve(stuck, k)
            stuck, gap = k, 2 * gap
        return None

    def halve(self, stuck: int, left: int) -> float:
        """Halvings of [stuck, left] (indices) to one grid step: the load it left at."""
        while left - stuck > 1:
            k = (stuck + left) // 2
            if self.holds(k):
                stuck = k
            else:
                left = k
        return left * self.step


def friction_hint(
    d: Direction, measured: Sequence[Strength], closing_axis: np.ndarray, weight: float
) -> float | None:
    """Where a force mostly across the closing axis (less than half of it along the axis) is
    expected to leave the grip, from the forces of that kind already measured: the pads'
    friction resists them, and by Coulomb's law each one's strength is the friction plus the
    weight's share along it (coulomb_limit), so each measured one, less its weight share,
    estimates the friction the grip delivers. The opposite direction's estimate is taken when
    it was measured (a grasp off the centre of mass turns out below 2 mu F, by the same lever
    arm both ways along a line: up and down differ by 0-3 N on the REACH cube's grasps, across
    and up by up to 7 N), else the mean of those measured. None for other directions and
    before any such direction has left the grip."""
    kinds = {x.name: x for x in directions(closing_axis)}
    if not _mostly_across(d, closing_axis):
        return None
    seen = [
        (kinds[s.direction], s.load - weight * float(kinds[s.direction].force[2]))
        for s in measured
        if s.direction in kinds and _mostly_across(kinds[s.direction], closing_axis) and not s.held
    ]
    opposite = [v for x, v in seen if float(np.dot(x.force, d.force)) < -0.999]
    estimates = opposite or [v for _, v in seen]
    if not estimates:
        return None
    return float(np.mean(estimates)) + weight * float(d.force[2])


def _mostly_across(d: Direction, closing_axis: np.ndarray) -> bool:
    """A force less than half of which lies along the closing axis (unit)."""
    return not d.is_torque and abs(float(np.dot(d.force, closing_axis))) < 0.5


def _left(d: Direction, walk: _Walk, left_at: float, unit: float) -> Strength:
    """The strength of a direction that left in [walk.load, left_at]: the bracket's middle."""
    onset = 0.5 * (walk.load + left_at)
    return Strength(d.name, onset, onset / unit, False, walk.steps, walk.its)


def coulomb_limit(
    d: Direction, closing_axis: np.ndarray, capacity: float, weight: float
) -> float | None:
    """Coulomb's bound on a force across the closing axis (N): the pads' friction 2 mu F
    (`capacity`) less the weight's share along it (a pull down is helped by the weight, a pull
    up resisted). None for a force with a component along the closing axis (the pads' normal
    forces resist it) and for torques (about an axis off the pads' centres of pressure the
    friction gains a lever arm)."""
    if d.is_torque or abs(float(np.dot(d.force, closing_axis))) > 1e-9:
        return None
    return capacity + weight * float(d.force[2])


def normal_limit(d: Direction, closing_axis: np.ndarray, grip_n: float) -> float | None:
    """The pads' bound on a force along the closing axis (N): the near pad lets go of its
    whole force F at 2 F, the far pad then alone pressing (a grasp off the centre of mass
    turns out sooner). None for every other direction."""
    if d.is_torque or abs(float(np.dot(d.force, closing_axis))) < 1.0 - 1e-9:
        return None
    return 2.0 * max(grip_n, 0.0)


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
