"""How strong is the grip: a disturbance ramped on the held object until it leaves the grip.

After the hold, an external force at the object's centre of mass (or a torque) grows linearly
in time along one direction of the grasp frame while the jaws keep their force, until the
object has moved relative to the plates by more than ONSET_FRACTION of the success test's slip
tolerance, or turned by more than that fraction of its rotation tolerance (0.25 mm, 0.5 deg by
default): it has left the stick range and slides or turns on. The load at the last state
still within that range is the grip's strength in that direction. Each direction is its own
continuation from the held state (the squeeze and lift are not run again).

The ramp is scaled to the grip: forces reach the grip's Coulomb capacity 2 mu F (F the jaws'
hold force) in RAMP_S, torques 2 mu F times the pad's radius; a direction still held at
CAP_MULTIPLE of that is reported as held, with the load reached.
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

RAMP_S = 0.1
"""Simulated time in which a force ramp reaches the grip's Coulomb capacity 2 mu F."""

REFINE = 4.0
"""From the last state the object stuck, the ramp is run again this many times slower."""

CAP_MULTIPLE = 3.0
"""A direction still held at this multiple of its ramp's scale ends as held."""

ONSET_FRACTION = 0.05
"""The strength is the load at the last state whose motion was within this fraction of the
tolerances (0.25 mm, 0.5 deg by default): the object then stuck, while the load at which it
had moved the whole tolerance includes the time it took to get there (and sliding steps cost
10-100 Newton iterations each)."""


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
    out = []
    try:
        for d in directions(sim.gripper_pose[:3, 0]):
            if only is not None and d.name not in only:
                continue
            scale = capacity * (radius if d.is_torque else 1.0)
            unit = weight * (radius if d.is_torque else 1.0)
            out.append(_ramp(sim, held, d, scale, unit, hold_force_n))
            stepper.state = held
    finally:
        stepper.state = held
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
) -> Strength:
    """A coarse ramp from the held state to the object's leaving the grip, then a ramp REFINE
    times slower from the last state it stuck, to the leaving again."""
    rate = scale / RAMP_S
    coarse = _run(sim, held, held, d, 0.0, rate, CAP_MULTIPLE * scale, hold_force_n)
    if not coarse.left:
        return Strength(d.name, coarse.load, coarse.load / unit, True, coarse.steps, coarse.its)
    fine = _run(
        sim, held, coarse.onset_state, d, coarse.onset, rate / REFINE, coarse.load, hold_force_n
    )
    # Not left by the coarse ramp's leaving load: the slower ramp leaves later (less inertia);
    # the last load it held is still a lower bound within one coarse step.
    onset = fine.onset if fine.left else fine.load
    steps, its = coarse.steps + fine.steps, coarse.its + fine.its
    return Strength(d.name, onset, onset / unit, False, steps, its)


@dataclass
class _Run:
    onset: float  # the last load at which the object stuck
    onset_state: StepState
    load: float  # the last load applied
    left: bool  # the object left the grip
    steps: int = 0
    its: int = 0


def _run(
    sim: GraspSimulation,
    held: StepState,
    start: StepState,
    d: Direction,
    start_load: float,
    rate: float,
    limit: float,
    hold_force_n: float | None,
) -> _Run:
    """Ramp the load from `start_load` at `rate` (per second) from state `start` until the
    object has left the grip (motion measured from `held`) or the load passed `limit`."""
    p, stepper = sim.params, sim.stepper
    h = p.time_step_s
    pose0 = sim.object_pose(held)
    stepper.state = start
    run = _Run(start_load, start, start_load, False)
    while run.load < limit:
        run.load = start_load + rate * h * (run.steps + 1)
        cmd = StepCommand(
            hold_force_n=hold_force_n,
            servo_travel_m=hold_command(p, hold_force_n, h),
            object_load=(run.load * d.force, run.load * d.torque),
        )
        new, its = stepper.step(cmd)
        stepper.state = new
        run.steps += 1
        run.its += its
        moved, turned = motion_since(sim, pose0, held, new)
        if moved > ONSET_FRACTION * p.slip_tolerance_m or turned > (
            ONSET_FRACTION * p.rotation_tolerance_rad
        ):
            # Past the stick range it slides or turns on: the rest of the way to the success
            # test's tolerance costs Newton iterations (a sliding step takes 10-100) and tells
            # nothing more about the load it stuck at.
            run.left = True
            break
        run.onset, run.onset_state = run.load, new  # still in the elastic and stick range
    return run


def motion_since(
    sim: GraspSimulation, pose0: np.ndarray, held: StepState, st: StepState
) -> tuple[float, float]:
    """(How far the object's centre of mass moved relative to the plates (m), how far it
    turned (rad)) since the held state."""
    pose = sim.object_pose(st)
    plates = (st.lift_m - held.lift_m) * np.array([0.0, 0.0, 1.0])
    moved = pose[:3, 3] - pose0[:3, 3] - plates
    return float(np.linalg.norm(moved)), rotation_angle(pose0[:3, :3], pose[:3, :3])
