"""The time stepping's plain data (engine.ipc.stepper): its settings, one step's command to the
plates, and the state after an accepted step."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_term import ContactTerm


@dataclass(frozen=True)
class StepperSettings:
    """What the time stepping needs (SI units): the time step, contact and friction, Newton's
    tolerances, the fingers' mass, and the grip force the barrier stiffness must carry."""

    time_step_s: float
    dhat_m: float
    mu: float
    ground_mu: float
    eps_v_m_s: float
    newton_tol_m: float
    max_newton_iterations: int
    newton_force_tol_n: float | None
    finger_mass_kg: float
    grip_load_n: float  # the barrier stiffness starts where one pair carries this force


@dataclass(frozen=True)
class StepCommand:
    """One step's command to the plates.

    Position-driven: `travel_m` of closing and `lift_m` of rise; `object_shift` (m) is a guess
    of the object's motion (a pad pushing it). Force-driven (`hold_force_n` set, `travel_m` 0):
    the actuator presses each jaw with that force, following `servo_travel_m` of commanded
    closing as a force-limited servo when given. `h_s`: the step's length (default the time
    step)."""

    travel_m: float = 0.0
    lift_m: float = 0.0
    object_shift: np.ndarray | None = None
    hold_force_n: float | None = None
    servo_travel_m: float | None = None
    h_s: float | None = None
    # An external load on the object over the step (engine.ipc.load_term): (force N, torque
    # N m), world frame; None: none.
    object_load: tuple[np.ndarray, np.ndarray] | None = None

    def halved(self, h_s: float) -> StepCommand:
        """Half of this step (of length h_s): half the motion, the same force."""
        shift = None if self.object_shift is None else 0.5 * self.object_shift
        servo = None if self.servo_travel_m is None else 0.5 * self.servo_travel_m
        return replace(
            self,
            travel_m=0.5 * self.travel_m,
            lift_m=0.5 * self.lift_m,
            object_shift=shift,
            servo_travel_m=servo,
            h_s=0.5 * h_s,
        )


@dataclass
class StepState:
    """The system's state after an accepted step."""

    u: np.ndarray
    v: np.ndarray
    time_s: float
    travel_m: float
    lift_m: float
    kappa: float
    collisions: ipc.NormalCollisions | None = None  # contact set at u, when known
    closing_speed_m_s: float = 0.0  # each plate's closing speed over the last step
    contact: ContactTerm | None = None  # the last step's contact term (its lagged friction)
    lift_speed_m_s: float = 0.0  # the plates' lift speed over the last step
