"""The lift and hold of IPC-GraspSim's procedure: the plates rise at `lift_speed_m_s` (after a
linear ramp over `lift_ramp_s`) with the jaws holding, until the object's lowest point is
`lift_height_m` above the ground, then hold still for `hold_time_s`. The lift ends early when
the object lags the plates by more than `slip_tolerance_m` (it can no longer reach the height
before the plates' maximum rise of lift_height + slip_tolerance).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import SolverError
from engine.grasp.frames import Frame
from engine.grasp.grip_measures import GripTracker
from engine.grasp.pad_force_limit import PadForceLimit
from engine.grasp.params import SimulationParams
from engine.ipc.contact_metrics import ContactSummary
from engine.ipc.stepper import StepBlocked, StepCommand

if TYPE_CHECKING:
    from engine.grasp.simulation import GraspSimulation

# A lift step at the steady lift speed spans up to this many time steps (fewer for the last
# one, so the lift ends within one time step's rise of its height, as with single steps).
STEADY_LIFT_STEPS = 4
# A lift step that took at most this many Newton iterations left the grip settled.
CALM_ITERATIONS = 10


def lift(
    sim: GraspSimulation,
    hold_force_n: float | None,
    grip: GripTracker,
    limit: PadForceLimit | None = None,
) -> Generator[Frame, None, ContactSummary]:
    """Lift, then hold; yields the frames and returns the last contact summary. `hold_force_n`:
    the force-controlled jaws' force (None: they keep their separation); `grip` has been
    started at the lift's first state and follows the object's slip and rotation in the grip;
    `limit`: the per-pad force limit (the squeeze's on an object the ground braces), which
    then sets the jaws' force at every step instead; a step in which a pad pushes above the
    gripper's force (the ground letting go of the object at the lift's start) is taken again
    with the force lowered."""
    p, stepper = sim.params, sim.stepper
    if hold_force_n is not None and limit is not None:
        hold_force_n = limit.servo_n
    max_lift = p.lift_height_m + p.slip_tolerance_m
    t_start = stepper.state.time_s
    summary = sim.summary(stepper.state)
    z0 = summary.object_min_z_m
    phase = "lift"
    hold_steps = round(p.hold_time_s / p.time_step_s)
    calm, eased = True, False
    for _ in range(p.max_steps):
        st = stepper.state
        if phase == "lift":
            elapsed = st.time_s - t_start
            # Once the plates rise at a steady speed, nothing changes from step to step but
            # the height: longer steps cover the same lift. Not while the grip is still
            # changing (the last step took more than CALM_ITERATIONS Newton iterations): an
            # object squeezed out of the jaws moves centimetres per long step, and its swept
            # contact queries cost minutes on a 16k-face scan.
            steady = (p.lift_ramp_s <= 0 or elapsed >= p.lift_ramp_s - 1e-9) and calm
            h = p.time_step_s * (steady_lift_steps(p, summary.object_min_z_m) if steady else 1)
            d = min(lift_increment(p, elapsed, h), max_lift - st.lift_m)
            servo = hold_command(p, hold_force_n, h)
            cmd = StepCommand(
                lift_m=d,
                object_shift=np.array([0.0, 0.0, d]),
                hold_force_n=hold_force_n,
                servo_travel_m=servo,
                h_s=h,
            )
            try:
                new, its = stepper.step(cmd)
            except StepBlocked as blocked:
                # Rare: the rigid guess touches something; take a shorter step this once.
                d = max(0.5 * blocked.alpha * d, 1e-6)
                new, its = stepper.step(
                    StepCommand(lift_m=d, hold_force_n=hold_force_n, servo_travel_m=servo, h_s=h)
                )
        else:
            servo = hold_command(p, hold_force_n, p.time_step_s)
            new, its = stepper.step(StepCommand(hold_force_n=hold_force_n, servo_travel_m=servo))
        if hold_force_n is not None and limit is not None:
            eased = limit.lowers(sim.pad_pushes(new)) and not eased
            hold_force_n = limit.servo_n
            if eased:
                continue  # the same step again with the lowered force
        stepper.state = new
        calm = its <= CALM_ITERATIONS
        frame, summary = sim.frame(new, phase, its)
        yield frame
        slips, turned = grip.update(frame.object_pose, new.travel_m, new.lift_m)
        r = sim.result
        r.min_lift_grip_n = min(r.min_lift_grip_n, min(frame.grip_force_n))
        out_of_grip = max(slips) > p.slip_tolerance_m or turned > p.rotation_tolerance_rad
        if phase == "lift":
            lag = new.lift_m - (summary.object_min_z_m - z0)
            if summary.object_min_z_m >= p.lift_height_m:
                phase = "hold"
                grip.reached_height = True
            elif lag > p.slip_tolerance_m or out_of_grip or new.lift_m >= max_lift - 1e-12:
                return summary
        else:
            hold_steps -= 1
        if phase == "hold" and hold_steps <= 0:
            return summary
    raise SolverError(f"the lift did not finish within {p.max_steps} steps")


def lift_increment(p: SimulationParams, elapsed_s: float, h: float) -> float:
    """Plate rise over the next step of h seconds: the speed ramps up linearly over
    lift_ramp_s.

    Jerking a held object to full speed in one step would add an inertial load of m v / h (as
    large as the weight of the 3 g cube at 0.1 m/s and h = 0.01 s), so the grip would be tested
    against more than gravity.
    """
    if p.lift_ramp_s <= 0:
        return p.lift_speed_m_s * h
    t0, t1 = elapsed_s, elapsed_s + h
    ramp = p.lift_ramp_s

    # Integral of v(t) = v_max min(1, t / ramp) over [t0, t1].
    def dist(t: float) -> float:
        return 0.5 * t * t / ramp if t <= ramp else 0.5 * ramp + (t - ramp)

    return p.lift_speed_m_s * (dist(t1) - dist(t0))


def hold_command(p: SimulationParams, force_n: float | None, h: float) -> float | None:
    """The force hold's servo command for a step of h seconds: the jaws press with the force,
    but close at most at the gripper's closing speed, as a real gripper's fingers do when the
    object gives way (a pure force would fling them shut in one step: the fingers' inertia is
    all that resists, and Newton then fails on centimetre steps)."""
    return None if force_n is None else p.closing_speed_m_s * h


def steady_lift_steps(p: SimulationParams, height_m: float) -> int:
    """Time steps one steady-speed lift step spans: STEADY_LIFT_STEPS, or as few as bring the
    object from `height_m` to the lift height (a longer step would overshoot it)."""
    rise = p.lift_speed_m_s * p.time_step_s
    needed = math.ceil((p.lift_height_m - height_m) / rise - 1e-9)
    return max(1, min(STEADY_LIFT_STEPS, needed))
