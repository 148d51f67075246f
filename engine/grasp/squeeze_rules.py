"""The decisions of IPC-GraspSim's squeeze-lift procedure (Kim 2022, Sec. 3.2), as pure functions.

engine.grasp.simulation drives the physics and asks these when to roll a squeeze step back,
when the squeeze has reached its stop, whether the pads are balanced, and whether a lift
succeeded. They take numbers only, so they are tested (and mutation-tested) without simulating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.ipc.contact_metrics import ContactSummary

# A force stop of the force-limited squeeze is reached within this fraction of the force.
FORCE_STOP_TOL = 0.02

# The outcome of a squeeze whose jaws meet without holding the object (both simulators).
JAWS_CLOSED = "jaws closed on each other without gripping the object"
# ... after a pad had touched it: the object left the jaws sideways (squeezed out of a tapered
# or slippery pair of faces, or pushed off by the pad that reached it first).
PUSHED_OUT = "the object was pushed out of the jaws"
CLOSED_COMPLETELY = "jaws closed completely without reaching the squeeze threshold"


def closed_reason(closed: str, touched: bool, touching: bool) -> str:
    """Why jaws that closed (`closed`: JAWS_CLOSED or CLOSED_COMPLETELY) end the trial:
    PUSHED_OUT when a pad had touched the object and none touches it now."""
    return PUSHED_OUT if touched and not touching else closed


def stop_quantity(values: tuple[float, float], use_force: bool) -> float:
    """The quantity that ends the squeeze: the smaller of the two pads' values, since *both*
    pads must reach the threshold. Forces (N) count only when pressing (negative ones are 0);
    strain energies (J) are taken as they are."""
    if use_force:
        return min(max(values[0], 0.0), max(values[1], 0.0))
    return min(values)


def overshoot_limit(threshold: float, overshoot: float) -> float:
    """The largest stop quantity a squeeze step may reach: (1 + overshoot) threshold; a step
    beyond it is rolled back."""
    return threshold * (1.0 + overshoot)


def force_stop_reached(q: float, threshold: float, at_rest: bool, settled_steps: int) -> bool:
    """A force-limited servo step ends a force-stop squeeze: the jaws are at rest and the force
    is within FORCE_STOP_TOL of the threshold (or has stayed at rest for 10 steps), and at
    least half the threshold."""
    near = abs(q - threshold) <= FORCE_STOP_TOL * threshold
    return at_rest and (near or settled_steps >= 10) and q >= threshold * 0.5


def threshold_reached(q: float, threshold: float, servo: bool, force_drive: bool) -> bool:
    """A position-driven squeeze (or a Psi stop of a force-driven one) ends once the stop
    quantity reaches the threshold; a force-driven squeeze only on a servo step."""
    return q >= threshold and (servo or not force_drive)


def jaws_rest_on_each_other(
    pad_pad: int, at_rest: bool, reached: bool, grip_n: float, force_cap_n: float
) -> str:
    """What a squeeze step whose pads touch each other means.

    The object "takes little" when it takes at most FORCE_STOP_TOL of the gripper's force cap
    (the smaller pad's grip_n, N: the jaws closed on each other, the object at most dragged
    along by their edges).
    - Stop not reached, jaws at rest (a servo step): they press against each other and the
      squeeze can get no further: "closed" if the object takes little, else "holding" (the
      pads meet around it; the lift then shows whether that grip is enough).
    - Stop reached while the object takes little: "closed". Only a Psi stop gets there: the
      pads' strain energy then comes from pressing each other, not the object (IPC-GraspSim's
      energy stop cannot tell; its trial lifts and the object is left behind).
    - Otherwise "" (the pads do not touch each other, the jaws still move, or the stop is
      reached with a grip: the squeeze goes on or ends as usual).
    """
    if pad_pad == 0:
        return ""
    takes_little = grip_n <= FORCE_STOP_TOL * force_cap_n
    if reached:
        return "closed" if takes_little else ""
    if not at_rest:
        return ""
    return "closed" if takes_little else "holding"


def psi_balanced(psi: tuple[float, float], tol: float) -> bool:
    """IPC-GraspSim's balance: |Psi1 - Psi2| <= tol max(Psi1, Psi2)."""
    return abs(psi[0] - psi[1]) <= tol * max(psi)


def stop_accepted(balanced: bool, unbalanced: int, q: float, threshold: float) -> bool:
    """A reached stop ends the squeeze if the pads are balanced, or after 10 unbalanced
    stops, or once the stop quantity is beyond 4 thresholds."""
    return balanced or unbalanced >= 10 or q > threshold * 4


@dataclass(frozen=True)
class GripOutcome:
    """What the lift measured (engine.grasp.grip_measures): the largest slip along each pad (m)
    and rotation in the grip (rad) over the lift and hold, and whether the object's lowest point
    reached the lift height (within dhat) during the lift."""

    slip_m: tuple[float, float]
    rotation_rad: float
    reached_height: bool


@dataclass(frozen=True)
class Tolerances:
    """The success test's tolerances: slip along a pad (m) and rotation in the grip (rad)."""

    slip_m: float
    rotation_rad: float


def judge_lift(
    summary: ContactSummary,
    grip: GripOutcome,
    tolerances: Tolerances,
    dhat_m: float,
    plates_lift_m: float,
) -> tuple[bool, str]:
    """The success test at the end of the hold: (success, reason).

    Success iff the object's lowest point reached the lift height, both pads still touch it, it
    no longer touches the ground ("touch": closer than dhat), and over the lift and hold it
    slipped along neither pad by more than the slip tolerance nor turned in the grip by more
    than the rotation tolerance. A held object that sags a little (a long bar's far end, a
    compliant grip settling) is lifted; one that turns out of the pads or slides down is not.
    """
    held = summary.pad_object[0] > 0 and summary.pad_object[1] > 0
    off_ground = summary.object_ground == 0 and summary.object_min_z_m > dhat_m
    k = 0 if grip.slip_m[0] >= grip.slip_m[1] else 1
    slipped = grip.slip_m[k] > tolerances.slip_m
    turned = grip.rotation_rad > tolerances.rotation_rad
    if held and off_ground and grip.reached_height and not slipped and not turned:
        return True, "lifted"
    if slipped:
        return False, (
            f"object slipped {grip.slip_m[k] * 1e3:.2f} mm along pad {k + 1} "
            f"(tolerance {tolerances.slip_m * 1e3:g} mm)"
        )
    if turned:
        return False, (
            f"object turned {math.degrees(grip.rotation_rad):.1f} deg in the grip "
            f"(tolerance {math.degrees(tolerances.rotation_rad):g} deg)"
        )
    if not grip.reached_height:
        # Said with the grip measures, so a user tells a slide (slip near the lag) from a pivot
        # about the contact (little slip, a turn; the far end left on the ground).
        return False, (
            f"object slipped: its lowest point reached {summary.object_min_z_m * 1e3:.2f} mm "
            f"while the plates rose {plates_lift_m * 1e3:.1f} mm (it slid "
            f"{grip.slip_m[k] * 1e3:.2f} mm along the pads and turned "
            f"{math.degrees(grip.rotation_rad):.1f} deg in the grip)"
        )
    if not held:
        return False, "object lost contact with a pad during the lift"
    return False, "object still touches the ground"
