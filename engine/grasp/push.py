"""A push on the held object: a force at a point of it, applied after the hold, and whether the
grip holds it.

The app's push (a drag on the object during the hold) and `ipcgrasp simulate --push` run this
after a trial that lifted: from the held state the force rises linearly over RISE_S, acts for
the rest of `duration_s`, and is then released for SETTLE_S while the jaws keep their force.
A force F at the point p is the load (F, (p - c) x F) at the centre of mass c (the same external
load the disturbance test ramps, engine.grasp.disturbance). The grip held when, after the
release, the object has moved relative to the plates by at most the success test's slip
tolerance and turned by at most its rotation tolerance (5 mm and 10 deg by default): it is
still held as the lift's success test counts held.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.constants import GRAVITY_M_S2
from engine.errors import ParameterError
from engine.grasp.disturbance import motion_since
from engine.grasp.lift import hold_command
from engine.ipc.stepper import StepCommand

if TYPE_CHECKING:
    from engine.grasp.frames import Frame
    from engine.grasp.simulation import GraspSimulation

PUSH_S = 0.2
"""Simulated seconds a push acts, its rise included."""

RISE_S = 0.05
"""The push's force rises linearly over this long (a jump would add an impulse)."""

SETTLE_S = 0.1
"""After the release the hold goes on this long before the grip is judged."""

AWAY_TOLERANCES = 3.0
"""An object moved this many slip tolerances (15 mm by default) has left the grip: the push
ends there (a falling object's steps cost much and tell nothing more)."""


@dataclass(frozen=True)
class Push:
    """A force (N, world frame) at a point of the object (m, its resting frame: the mesh's own
    coordinates as it rests, the frame the app picks in)."""

    force_n: tuple[float, float, float]
    point_m: tuple[float, float, float]
    duration_s: float = PUSH_S

    def validate(self) -> None:
        """Raise ParameterError for a push that cannot be applied."""
        f, p = np.asarray(self.force_n, dtype=float), np.asarray(self.point_m, dtype=float)
        if (
            f.shape != (3,)
            or p.shape != (3,)
            or not (np.isfinite(f).all() and np.isfinite(p).all())
        ):
            raise ParameterError(
                "a push needs a finite force FX,FY,FZ (N) and point X,Y,Z (m), "
                f"got force {self.force_n} at {self.point_m}"
            )
        if not RISE_S <= self.duration_s <= 10.0:
            raise ParameterError(
                f"a push's duration must be between {RISE_S:g} s (its rise) and 10 s, "
                f"got {self.duration_s:g} s"
            )

    @property
    def magnitude_n(self) -> float:
        """|F| (N)."""
        return float(np.linalg.norm(self.force_n))


@dataclass(frozen=True)
class PushOutcome:
    """What a push did: held (the object stayed within the tolerances), how far the object
    moved relative to the plates (m) and turned (rad) at the end (its frames and Newton
    iterations count in the trial's, through GraspSimulation.frame)."""

    held: bool
    moved_m: float
    turned_rad: float
    weight_multiple: float  # |F| / the object's weight


def apply_push(
    sim: GraspSimulation, push: Push, hold_force_n: float | None
) -> Generator[Frame, None, PushOutcome]:
    """Push the held object from the simulation's current state, yielding a frame (phase
    "push") per step; returns the outcome. The jaws keep pressing with `hold_force_n` (None:
    they keep their separation, `--hold position`)."""
    push.validate()
    p, stepper = sim.params, sim.stepper
    h = p.time_step_s
    held = stepper.state
    pose0 = sim.object_pose(held)
    force = np.asarray(push.force_n, dtype=float)
    point = np.asarray(push.point_m, dtype=float)
    com = np.asarray(sim.obj.center_of_mass, dtype=float)
    pushing = round(push.duration_s / h)
    total = pushing + round(SETTLE_S / h)
    moved, turned = 0.0, 0.0
    steps = 0
    while steps < total:
        t = (steps + 1) * h
        share = min(t / RISE_S, 1.0) if steps < pushing else 0.0
        load = None
        if share > 0.0:
            pose = sim.object_pose(stepper.state)
            arm = pose[:3, :3] @ (point - com)  # the point from the centre of mass, world
            load = (share * force, share * np.cross(arm, force))
        cmd = StepCommand(
            hold_force_n=hold_force_n,
            servo_travel_m=hold_command(p, hold_force_n, h),
            object_load=load,
        )
        new, its = stepper.step(cmd)
        stepper.state = new
        steps += 1
        frame, _ = sim.frame(new, "push", its)
        yield frame
        moved, turned = motion_since(sim, pose0, held, new)
        if moved > AWAY_TOLERANCES * p.slip_tolerance_m:
            break
    weight = sim.obj.mass_kg * GRAVITY_M_S2
    ok = moved <= p.slip_tolerance_m and turned <= p.rotation_tolerance_rad
    return PushOutcome(ok, moved, turned, push.magnitude_n / weight)


def parse_push(text: str, center_of_mass: np.ndarray) -> Push:
    """`--push FX,FY,FZ[@X,Y,Z]`: a force (N, world frame) at a point (m, the object's resting
    frame; default its centre of mass)."""
    force_text, _, point_text = text.partition("@")

    def vector(part: str, what: str) -> tuple[float, float, float]:
        try:
            values = [float(v) for v in part.split(",")]
        except ValueError:
            values = []
        if len(values) != 3:
            raise ParameterError(
                f"--push {text!r}: the {what} must be three numbers separated by commas "
                "(e.g. --push 0,0,-5 or --push 0,0,-5@0.01,0,0.015)"
            )
        return (values[0], values[1], values[2])

    force = vector(force_text, "force FX,FY,FZ (N)")
    point = vector(point_text, "point X,Y,Z (m)") if point_text else tuple(center_of_mass)
    push = Push(force, (float(point[0]), float(point[1]), float(point[2])))
    push.validate()
    return push
