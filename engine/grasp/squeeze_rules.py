"""The decisions of IPC-GraspSim's squeeze-lift procedure (Kim 2022, Sec. 3.2), as pure functions.

engine.grasp.simulation drives the physics and asks these when to roll a squeeze step back,
when the squeeze has reached its stop, whether the pads are balanced, and whether a lift
succeeded. They take numbers only, so they are tested (and mutation-tested) without simulating.
"""

from __future__ import annotations

from engine.ipc.contact_metrics import ContactSummary

# A force stop of the force-limited squeeze is reached within this fraction of the force.
FORCE_STOP_TOL = 0.02

# The outcome of a squeeze whose jaws meet without holding the object (both simulators).
JAWS_CLOSED = "jaws closed on each other without gripping the object"


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


def judge_lift(
    summary: ContactSummary, lift_height_m: float, dhat_m: float, plates_lift_m: float
) -> tuple[bool, str]:
    """IPC-GraspSim's success test at the end of the hold: (success, reason).

    Success iff the object's lowest point reached the lift height (within the barrier distance
    dhat), both pads still touch it and it no longer touches the ground ("touch": closer
    than dhat).
    """
    lifted = summary.object_min_z_m >= lift_height_m - dhat_m
    held = summary.pad_object[0] > 0 and summary.pad_object[1] > 0
    off_ground = summary.object_ground == 0 and summary.object_min_z_m > dhat_m
    if lifted and held and off_ground:
        return True, "lifted"
    if not lifted:
        return False, (
            f"object slipped: its lowest point reached {summary.object_min_z_m * 1e3:.2f} mm "
            f"while the plates rose {plates_lift_m * 1e3:.1f} mm"
        )
    if not held:
        return False, "object lost contact with a pad during the lift"
    return False, "object still touches the ground"
