"""IPC-GraspSim's success test (Kim 2022, Sec. 3.2) at its boundaries: lifted 2 cm (within the
0.1 mm barrier distance), both pads still touching the object, the object off the ground."""

from __future__ import annotations

import pytest

from engine.grasp.squeeze_rules import judge_lift
from engine.ipc.contact_metrics import ContactSummary

LIFT = 0.02  # m, the paper's lift height
DHAT = 1e-4  # m, contact = closer than the barrier distance


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


@pytest.mark.parametrize(
    ("z", "pads", "ground", "success", "reason"),
    [
        (0.02, (5, 5), 0, True, "lifted"),
        (0.02, (1, 1), 0, True, "lifted"),  # one contact pair per pad is a touch
        (0.02 - 0.99 * DHAT, (5, 5), 0, True, "lifted"),  # within dhat of 2 cm
        (0.02 - 1.01 * DHAT, (5, 5), 0, False, "object slipped"),  # held, off the ground, short
        (0.012, (5, 5), 0, False, "object slipped"),
        (0.02, (0, 5), 0, False, "object lost contact with a pad"),
        (0.02, (5, 0), 0, False, "object lost contact with a pad"),
        (0.02, (5, 5), 3, False, "object still touches the ground"),
    ],
)
def test_success_needs_height_both_pads_and_no_ground(z, pads, ground, success, reason):
    ok, why = judge_lift(_summary(z, pads, ground), LIFT, DHAT, plates_lift_m=0.021)
    assert ok is success
    assert why.startswith(reason)


def test_the_height_and_ground_boundaries_are_exact():
    # Exactly dhat short of the lift height still counts as lifted (within dhat, inclusive).
    ok, _ = judge_lift(_summary(LIFT - DHAT), LIFT, DHAT, plates_lift_m=0.021)
    assert ok is True
    # Lowest point exactly dhat above the ground: it still touches it (closer than dhat
    # counts as touching; a 2-dhat lift height makes the height condition hold there).
    ok, why = judge_lift(_summary(DHAT), 2 * DHAT, DHAT, plates_lift_m=0.021)
    assert (ok, why) == (False, "object still touches the ground")


def test_a_slip_reports_both_heights_in_mm():
    ok, why = judge_lift(_summary(0.012), LIFT, DHAT, plates_lift_m=0.021)
    assert (ok, why) == (
        False,
        "object slipped: its lowest point reached 12.00 mm while the plates rose 21.0 mm",
    )
    _, why = judge_lift(_summary(0.0125), LIFT, DHAT, plates_lift_m=0.09)
    assert why == "object slipped: its lowest point reached 12.50 mm while the plates rose 90.0 mm"
