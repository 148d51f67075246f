"""The squeeze of IPC-GraspSim's procedure: close the jaws until the stop quantity (both pads'
strain energy Psi, or their contact force) lies in [th, (1 + overshoot) th].

The plates close at the gripper's speed in free flight (longer steps until a pad nears the
object), more slowly while one pad pushes the object alone, and in contact by increments chosen
by a secant on log(stop quantity) against the plate travel; a step that overshoots is rolled
back. A force-controlled gripper (hold="force") closes on position until both pads touch, then
as a force-limited servo, so its force can never exceed its cap. The decisions themselves are
pure functions in engine.grasp.squeeze_rules.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import SolverError
from engine.grasp.frames import Frame
from engine.grasp.pad_force_limit import PadForceLimit
from engine.grasp.squeeze_rules import (
    CLOSED_COMPLETELY,
    FORCE_STOP_TOL,
    JAWS_CLOSED,
    closed_reason,
    force_stop_reached,
    jaws_rest_on_each_other,
    overshoot_limit,
    psi_balanced,
    stop_accepted,
    stop_quantity,
    threshold_reached,
)
from engine.ipc.actuator_term import SERVO_LAG_M
from engine.ipc.contact_metrics import ContactSummary
from engine.ipc.stepper import StepBlocked, StepCommand, StepState

if TYPE_CHECKING:
    from engine.grasp.simulation import GraspSimulation

log = logging.getLogger(__name__)

# A free-flight closing step (no pad near the object) spans at most this many time steps.
FREE_FLIGHT_STEPS = 8
# A step in which one pad pushes the object alone spans at most this many time steps.
PUSH_STEPS = 2
# Where the squeeze goes after a frame: on (None), or end with the last summary, or end without.
_GO_ON = "go on"
# A pad pushing the object alone whose jaws stand still at the gripper's force for this many
# steps has pinned it (against the ground, braced on an edge): the gripper stalls there.
STALL_STEPS = 10
# A squeeze ends within the time the jaws take to close their whole opening, plus this long to
# settle (s). In contact the squeeze closes at most half the barrier zone per time step (5 mm/s
# at the defaults), slower than a real gripper, so the opening is timed at the slower speed.
SQUEEZE_SETTLE_S = 1.0
ONE_PAD_STALLED = "only one pad reached the object"
SQUEEZE_TIMED_OUT = "the squeeze did not reach its stop in time"


@dataclass(frozen=True)
class _Reading:
    """A squeeze step's pad forces (N), its stop quantity and whether both pads grip."""

    forces: tuple[float, float]
    q_free: float  # the stop quantity as measured
    gripping: bool  # both pads touch the object

    @property
    def q(self) -> float:
        """The stop quantity that counts: 0 until both pads grip (before that, the pads' strain
        is their own: weight, motion)."""
        return self.q_free if self.gripping else 0.0


class Squeeze:
    """One squeeze of `sim`; `run()` yields its frames and returns the last contact summary
    (None when the trial ends in the squeeze, with the reason in sim.result)."""

    def __init__(self, sim: GraspSimulation) -> None:
        self.sim = sim
        p = self.p = sim.params
        stop, self.threshold = p.squeeze_stop()
        self.use_force = stop == "force"
        self.upper = overshoot_limit(self.threshold, p.threshold_overshoot)
        self.target = self.threshold * math.sqrt(1.0 + p.threshold_overshoot)
        self.delta_max = p.closing_speed_m_s * p.time_step_s
        self.delta_min = p.newton_tol_m  # plate increments below the Newton tolerance are noise
        self.first_contact = p.dhat_m / 8.0
        self.max_travel = 0.5 * sim.open_width_m
        self.contact_cap = 0.5 * p.dhat_m  # in contact, never move more than half the zone
        self.delta = self.delta_max
        self.q_prev = 0.0  # stop quantity of the previous frame, 0 until both pads touch
        self.unbalanced = 0
        self.touching = (False, False)
        self.touched = False  # a pad has touched the object in this squeeze
        # A force-controlled gripper (hold="force") closes as a force-limited servo: the jaws
        # follow the closing increments but each pad pushes with at most force_cap (the force
        # stop, or the gripper's maximum for a Psi stop), as the coupled fingers of a
        # current-limited gripper do, so no pad ever presses harder than the gripper can, even
        # one that pins the object against the ground before the other arrives. Until both pads
        # touch, a step on position presses with the same force whenever that force stays below
        # the cap (a pad pushing an object along the ground: the same states, fewer Newton
        # iterations); a step that would press harder is taken again force-limited, and so are
        # all after it. The paper's position-driven jaws (hold="position") keep closing on
        # position throughout.
        self.force_drive = p.hold == "force"
        self.force_cap = p.squeeze_force_cap_n
        self.settled_steps = 0
        self.stalled_steps = 0
        self.servo_push = False  # force-limited before both pads touch (see above)
        # The servo's force per jaw with both pads on the object: lowered while the ground
        # takes a share of the grip, so no pad pushes harder than the gripper's force.
        self.limit = PadForceLimit.of(self.force_cap)
        self.eased = False  # this step is taken again with the servo's force lowered
        self.blocked_before = False
        slowest = min(p.closing_speed_m_s, self.contact_cap / p.time_step_s)
        self.time_limit_s = self.max_travel / slowest + SQUEEZE_SETTLE_S

    def run(self) -> Generator[Frame, None, ContactSummary | None]:
        """Close until the stop; returns the last summary (None: the trial ended here)."""
        sim, p = self.sim, self.p
        for _ in range(p.max_steps):
            st = sim.stepper.state
            if st.time_s > self.time_limit_s:
                self._timed_out()
                return None
            h = self._size_step(st)
            if h is None:
                sim.result.reason = closed_reason(
                    CLOSED_COMPLETELY, self.touched, any(self.touching)
                )
                return None
            servo = self.force_drive and (all(self.touching) or self.servo_push)
            try:
                new, its = sim.stepper.step(self._command(servo, h))
            except StepBlocked as blocked:
                self.delta = max(0.5 * blocked.alpha * self.delta, self.delta_min)
                self.blocked_before = True  # the next step is an ordinary one, not a longer retry
                continue
            self.blocked_before = False
            grip = sim.grip(new)
            forces, pairs, _ = grip
            energies = forces if self.use_force else sim.system.pad_energies(new.u)
            reading = _Reading(forces, stop_quantity(energies, self.use_force), min(pairs) > 0)
            if self._over_the_cap(servo, reading):
                self.servo_push = True  # the same step again, force-limited
                continue
            if reading.q > self.upper and self.delta > self.delta_min:
                self._roll_back(reading.q)
                continue
            if servo and self.limit.over(forces) and (reading.gripping or not self.eased):
                # A pad pushing above the gripper's force on a braced object: the same step
                # again (once) with the servo's force lowered, so no frame shows that push.
                # The limit follows the pushes while both pads grip.
                lowered = self.limit.lowers(sim.pad_pushes(new))
                if lowered and not self.eased:
                    self.eased = True
                    continue
            self.eased = False
            sim.stepper.state = new
            frame, summary = sim.frame(new, "squeeze", its, grip)
            yield frame
            self.touching = (summary.pad_object[0] > 0, summary.pad_object[1] > 0)
            self.touched = self.touched or any(self.touching)
            decision = self._after_frame(st, new, frame, summary, reading, servo)
            if decision != _GO_ON:
                return summary if decision == "stop" else None
        raise SolverError(f"the squeeze did not finish within {p.max_steps} steps")

    # --- before a step ------------------------------------------------------------------------
    def _size_step(self, st: StepState) -> float | None:
        """Set this step's plate increment (self.delta) and return its length h (s); None when
        the jaws have closed completely."""
        p, touching = self.p, self.touching
        if st.travel_m + self.delta > self.max_travel:
            self.delta = self.max_travel - st.travel_m
            if self.delta <= self.delta_min:
                return None
        h = p.time_step_s
        if all(touching):
            self.delta = min(self.delta, self.contact_cap)
        elif self.delta >= self.delta_max and not self.blocked_before:
            step = self._long_step(st)
            if step > self.delta_max:
                self.delta, h = step, step / p.closing_speed_m_s
            else:
                self.delta = max(step, self.first_contact)
        else:
            room = self.sim.approach_limit(self.delta, touching)
            self.delta = min(self.delta, max(room, self.first_contact))
        return h

    def _long_step(self, st: StepState) -> float:
        """The closing of a step that may span several time steps: free flight, or one pad
        pushing the object."""
        p, touching = self.p, self.touching
        if not any(touching):
            # Free flight: nothing moves but the plates (at the closing speed) until a pad comes
            # within the barrier zone, so one longer step covers what several would. Additive
            # CCD stops a motion at a fraction of the starting gap (its conservative rescaling),
            # so a free step closes at most 80 % of the gap.
            longest = FREE_FLIGHT_STEPS * self.delta_max
            room = self.sim.approach_limit(2.0 * longest, touching)
            return min(longest, 0.8 * (room + 0.9 * p.dhat_m), self.max_travel - st.travel_m)
        # One pad pushes the object along the ground at the closing speed, a slow quasi-static
        # slide: a step spans PUSH_STEPS time steps while the other pad is far (the pushed object
        # turns by the same 4.4 deg in REACH grasp 2 as with single steps).
        return self.sim.approach_limit(PUSH_STEPS * self.delta_max, touching)

    def _over_the_cap(self, servo: bool, reading: _Reading) -> bool:
        """Whether a position step pressed a pad harder than the gripper's force (a
        force-controlled gripper cannot): before both pads grip, or in the step where they
        both arrive (the stop quantity, the smaller pad's force, misses the larger one)."""
        if not self.force_drive or servo:
            return False
        return max(reading.forces) > self.force_cap * (1.0 + FORCE_STOP_TOL)

    def _command(self, servo: bool, h: float) -> StepCommand:
        if servo and all(self.touching):
            return StepCommand(hold_force_n=self.limit.servo_n, servo_travel_m=self.delta)
        # A pad that pushes the object alone carries it along in the initial guess.
        shift = np.zeros(3)
        if self.touching[0] != self.touching[1]:
            shift = self.delta * self.sim.normals[0 if self.touching[0] else 1]
        if servo:
            # The actuator's force acts on both fingers' common closing coordinate: with one
            # pad on the object that pad takes all of it, so half the cap per jaw (the
            # ActuatorTerm's force is per jaw) presses it with at most force_cap.
            return StepCommand(
                hold_force_n=0.5 * self.force_cap,
                servo_travel_m=self.delta,
                object_shift=shift,
                h_s=h,
            )
        return StepCommand(travel_m=self.delta, object_shift=shift, h_s=h)

    def _roll_back(self, q: float) -> None:
        """The step overshot the window: retry a shorter one (a secant towards the target)."""
        self.sim.result.rollbacks += 1
        if self.q_prev > 0.0 and q > self.q_prev:
            ratio = math.log(self.target / self.q_prev) / math.log(q / self.q_prev)
            self.delta *= min(max(ratio, 0.05), 0.5)
        else:
            self.delta *= 0.25

    # --- after a frame ------------------------------------------------------------------------
    def _after_frame(
        self,
        st: StepState,
        new: StepState,
        frame: Frame,
        summary: ContactSummary,
        reading: _Reading,
        servo: bool,
    ) -> str:
        """ "stop" (the squeeze is done), "end" (the trial ends here, reason set) or _GO_ON."""
        p, r = self.p, self.sim.result
        q, gripping, forces = reading.q, reading.gripping, reading.forces
        if summary.pad_pad > 0 and min(summary.pad_object) == 0:
            r.reason = closed_reason(JAWS_CLOSED, self.touched, max(summary.pad_object) > 0)
            return "end"
        if not gripping and reading.q_free >= self.threshold:
            self._threshold_before_gripping(frame)
            return "end"
        # A servo step presses with at most force_cap: a force stop is reached when the contact
        # force has come within FORCE_STOP_TOL of it and the jaws have stopped (closing slower
        # than 1 % of the gripper's speed).
        at_rest = servo and abs(new.closing_speed_m_s) < 0.01 * p.closing_speed_m_s
        if servo and not gripping:
            return self._pushing(st, new)
        if servo and self.use_force:
            # The fingers' and pads' momentum can press the contact above the servo's force for
            # a few steps after impact: wait until it has settled within the tolerance (or has
            # stayed at rest for 10 steps).
            self.settled_steps = self.settled_steps + 1 if at_rest else 0
            reached = force_stop_reached(q, self.threshold, at_rest, self.settled_steps)
        else:
            # A force-driven squeeze ends on a servo step only: a position step in which both
            # pads meet the object at once (a flat pad on a faceted cylinder: 67 pairs) can press
            # past the force, and the servo then eases it to the force it applies.
            reached = threshold_reached(q, self.threshold, servo, self.force_drive)
        ended = self._jaws_at_rest(summary, forces, at_rest, reached)
        if ended is None:
            ended = self._saturated(st, new, q, at_rest, reached, servo)
        if ended is None and servo and not reached:
            ended = self._stalled_short(st, new, forces)
        if ended is not None:
            return ended
        if reached:
            balanced = psi_balanced(frame.psi_j, p.psi_balance_tol)
            r.squeeze_balanced = bool(balanced or self.use_force)
            if stop_accepted(r.squeeze_balanced, self.unbalanced, q, self.threshold):
                return "stop"
            self.unbalanced += 1
        else:
            self._next_increment(q, gripping)
        self.q_prev = q
        return _GO_ON

    def _pushing(self, st: StepState, new: StepState) -> str:
        """One pad pushes the object with at most the gripper's force until the other pad
        arrives; "end" once the jaws have stood still at that force for STALL_STEPS steps."""
        if self._stalled(st, new):
            self._one_pad_stalled()
            return "end"
        self._next_increment(0.0, gripping=False)
        self.q_prev = 0.0
        return _GO_ON

    def _held_back(self, st: StepState, new: StepState) -> bool:
        """The object held the jaws back from the commanded increment (by more than the
        servo's lag): they press with the servo's full force."""
        return self.delta - (new.travel_m - st.travel_m) > SERVO_LAG_M

    def _stalled(self, st: StepState, new: StepState) -> bool:
        """Counts the steps the jaws have stood still, held back, and says whether there have
        been STALL_STEPS of them. Still: closing slower than the friction's stick speed eps_v
        (smoothed friction lets a pinned object creep below it, at a speed that grows with the
        load) or 1 % of the gripper's speed, whichever is larger."""
        p = self.p
        still = abs(new.closing_speed_m_s) < max(p.eps_v_m_s, 0.01 * p.closing_speed_m_s)
        held = still and self._held_back(st, new)
        self.stalled_steps = self.stalled_steps + 1 if held else 0
        return self.stalled_steps >= STALL_STEPS

    def _one_pad_stalled(self) -> None:
        k = 1 if self.touching[0] else 2
        r = self.sim.result
        r.reason = ONE_PAD_STALLED
        r.error = (
            f"pad {k} pressed the object with the {self.p.preset.label}'s "
            f"{self.force_cap:g} N and the jaws stopped before pad {3 - k} reached it: the "
            "object is braced against the ground or the pad meets it too far off its centre; "
            "move the grasp so both pads meet the object, or grasp it along another axis"
        )

    def _timed_out(self) -> None:
        if self.touching[0] != self.touching[1]:
            self._one_pad_stalled()
            return
        r = self.sim.result
        r.reason = SQUEEZE_TIMED_OUT
        r.error = (
            f"the squeeze had not reached its stop after {self.time_limit_s:.2f} s of simulated "
            "time (the jaws' whole opening at the squeeze's slowest closing speed, plus "
            f"{SQUEEZE_SETTLE_S:g} s)"
        )

    def _threshold_before_gripping(self, frame: Frame) -> None:
        # IPC-GraspSim's rule (A): Psi_th must lie above the strain energy that other forces
        # (gravity) give the pads, or the squeeze cannot tell when it grips.
        p, r = self.p, self.sim.result
        psi = frame.psi_j
        r.reason = "squeeze threshold reached before gripping"
        r.error = (
            f"both pads' strain energy ({psi[0]:.3g}, {psi[1]:.3g} J) reached Psi_th = "
            f"{self.threshold:.3g} J before they gripped the object: at E = "
            f"{p.youngs_modulus_pa:.3g} Pa the pads' own weight and motion strain them "
            "that much; raise Psi_th well above it (or stop the squeeze on a force)"
        )

    def _jaws_at_rest(
        self, summary: ContactSummary, forces: tuple[float, float], at_rest: bool, reached: bool
    ) -> str | None:
        """Jaws at rest against each other: the squeeze can get no further (without this a
        force stop waited for a force it could not reach until max_steps, "solver failed"), and
        a Psi stop they reach by pressing each other grips nothing (the trial lifted and ended
        "object slipped")."""
        grip_n = stop_quantity(forces, True)
        rest = jaws_rest_on_each_other(summary.pad_pad, at_rest, reached, grip_n, self.force_cap)
        if rest == "closed":
            self.sim.result.reason = JAWS_CLOSED
            return "end"
        if rest == "holding":
            log.info(
                "squeeze: the jaws rest against each other around the object, holding it "
                "with %.3g N per jaw",
                grip_n,
            )
            return "stop"
        return None

    def _saturated(
        self, st: StepState, new: StepState, q: float, at_rest: bool, reached: bool, servo: bool
    ) -> str | None:
        """The object held the jaws back from the commanded increment, so they press with
        force_cap; with a Psi stop not reached, the gripper stops there as the real one would."""
        saturated = servo and self._held_back(st, new)
        if saturated and at_rest and not self.use_force and not reached:
            log.info(
                "squeeze: the gripper's %.3g N per jaw reach Psi = %.3g J < Psi_th = %.3g J;"
                " holding at that force",
                self.force_cap,
                q,
                self.threshold,
            )
            return "stop"
        return None

    def _stalled_short(
        self, st: StepState, new: StepState, forces: tuple[float, float]
    ) -> str | None:
        """Both pads on the object, the jaws still and held back while the stop is not reached
        (the weaker pad of an object braced against the ground is short of it): they stall
        there, as a real gripper's do when its force is reached, and the lift shows whether
        that grip holds ("stop" after STALL_STEPS such steps)."""
        if not self._stalled(st, new):
            return None
        log.info(
            "squeeze: the jaws stalled with %.3g and %.3g N on an object braced against the "
            "ground; holding there",
            *forces,
        )
        return "stop"

    def _next_increment(self, q: float, gripping: bool) -> None:
        """The next plate increment while the stop is not reached."""
        if not gripping:
            self.delta = self.delta_max  # the approach limit sizes the next step
        elif self.q_prev == 0.0:
            self.delta = self.first_contact
        elif q > self.q_prev * (1.0 + 1e-6):
            # Secant on log(q) against plate travel towards the middle of the window; a step
            # that overshoots is rolled back, so growth may be bold and shrinking mild.
            ratio = math.log(self.target / q) / math.log(q / self.q_prev)
            self.delta = min(self.delta * min(max(ratio, 0.5), 4.0), self.delta_max)
        else:
            # q did not grow: the object yields (slides, rolls on an edge); close faster.
            self.delta = min(2.0 * self.delta, self.delta_max)
