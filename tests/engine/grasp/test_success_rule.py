"""The success test at its boundaries: the object's lowest point reached the 2 cm lift height
(IPC-GraspSim, Kim 2022, Sec. 3.2), both pads still touch it, it is off the ground, and over the
lift and hold it slipped along neither pad and turned in the grip by no more than the stated
tolerances (a held object that sags is lifted, one that turns out of the pads is not)."""

from __future__ import annotations

import math

import pytest

from engine.grasp.squeeze_rules import GripOutcome, Tolerances, judge_lift
from engine.ipc.contact_metrics import ContactSummary

LIFT = 0.02  # m, the paper's lift height
DHAT = 1e-4  # m, contact = closer than the barrier distance
TOL = Tolerances(slip_m=0.005, rotation_rad=math.radians(10.0))
HELD = GripOutcome((0.0, 0.0), 0.0, reached_height=True)


def _summary(z: float, pads: tuple[int, int] = (5, 5), ground: int = 0) -> ContactSummary:
    return ContactSummary(
        pad_object=pads,
        object_ground=ground,
        pad_ground=0,
        pad_pad=0,
        grip_force_n=(1.0, 1.0),
        min_distance_m=1e-5,
        object_min_z_m=z,
        intersection_free=True,
    )


def _judge(z, pads=(5, 5), ground=0, grip=HELD, plates=0.021):
    return judge_lift(_summary(z, pads, ground), grip, TOL, DHAT, plates_lift_m=plates)


@pytest.mark.parametrize(
    ("z", "pads", "ground", "success", "reason"),
    [
        (0.02, (5, 5), 0, True, "lifted"),
        (0.02, (1, 1), 0, True, "lifted"),  # one contact pair per pad is a touch
        # A held object that sags after reaching the height (a long bar's far end) is lifted.
        (0.02 - 2 * DHAT, (5, 5), 0, True, "lifted"),
        (0.02, (0, 5), 0, False, "object lost contact with a pad"),
        (0.02, (5, 0), 0, False, "object lost contact with a pad"),
        (0.02, (5, 5), 3, False, "object still touches the ground"),
    ],
)
def test_success_needs_both_pads_and_no_ground(z, pads, ground, success, reason):
    ok, why = _judge(z, pads, ground)
    assert ok is success
    assert why.startswith(reason)


def test_the_height_must_be_reached_during_the_lift():
    short = GripOutcome((0.0, 0.0012), math.radians(3.0), reached_height=False)
    assert _judge(0.012, grip=short) == (
        False,
        "object slipped: its lowest point reached 12.00 mm while the plates rose 21.0 mm (it "
        "slid 1.20 mm along the pads and turned 3.0 deg in the grip)",
    )
    _, why = _judge(0.0125, grip=short, plates=0.09)
    assert why.startswith(
        "object slipped: its lowest point reached 12.50 mm while the plates rose 90.0 mm"
    )


def test_the_slip_and_rotation_tolerances_are_inclusive_and_named():
    at = GripOutcome((TOL.slip_m, 0.0), TOL.rotation_rad, reached_height=True)
    assert _judge(0.02, grip=at) == (True, "lifted")
    over = GripOutcome((0.001, TOL.slip_m * 1.01), 0.0, reached_height=True)
    assert _judge(0.02, grip=over) == (
        False,
        "object slipped 5.05 mm along pad 2 (tolerance 5 mm)",
    )
    turned = GripOutcome((0.0, 0.0), math.radians(10.5), reached_height=True)
    assert _judge(0.02, grip=turned) == (
        False,
        "object turned 10.5 deg in the grip (tolerance 10 deg)",
    )


def test_the_ground_boundary_is_exact():
    # Lowest point exactly dhat above the ground: it still touches it (closer than dhat counts
    # as touching).
    ok, why = judge_lift(_summary(DHAT), HELD, TOL, DHAT, plates_lift_m=0.021)
    assert (ok, why) == (False, "object still touches the ground")
