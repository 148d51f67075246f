"""The squeeze's decisions (engine.grasp.squeeze_rules) at their boundaries, without simulating.

IPC-GraspSim (Kim 2022, Sec. 3.2): the squeeze ends when *both* pads' strain energies reach
Psi_th, so the smaller energy decides; a stop is balanced when |Psi1 - Psi2| <= 0.3 max; a step
that takes the stop quantity past 1.25 Psi_th (overshoot 0.25) is rolled back. This project's
force stop: the force-limited servo's contact force within 2 % of the force (or at rest for 10
steps, and at least half the force); an unbalanced stop is retried up to 10 times and accepted
beyond 4 Psi_th. Every expected value is a literal or a closed form computed here; the boundary
cases use numbers whose products are exact in binary floating point (0.3 x 10 = 3.0,
0.02 x 50 = 1.0), so `<=` and `<` give different answers on them.
"""

from __future__ import annotations

import pytest

from engine.grasp.squeeze_rules import (
    force_stop_reached,
    jaws_rest_on_each_other,
    overshoot_limit,
    psi_balanced,
    stop_accepted,
    stop_quantity,
    threshold_reached,
)

BALANCE = 0.3  # IPC-GraspSim
OVERSHOOT = 0.25  # IPC-GraspSim: accepted window [Psi_th, 1.25 Psi_th]


def test_the_smaller_pad_energy_is_the_stop_quantity():
    assert stop_quantity((3e-8, 1e-8), use_force=False) == 1e-8
    assert stop_quantity((1e-8, 3e-8), use_force=False) == 1e-8


def test_a_pad_force_counts_only_while_it_presses():
    assert stop_quantity((5.0, 3.0), use_force=True) == 3.0
    assert stop_quantity((0.5, 0.7), use_force=True) == 0.5
    assert stop_quantity((0.7, 0.5), use_force=True) == 0.5
    # A pad pulled away from the object (negative force along its closing direction) grips
    # with nothing: the stop quantity is 0, not the other pad's force nor a negative one.
    assert stop_quantity((2.0, -0.5), use_force=True) == 0.0
    assert stop_quantity((-0.5, 2.0), use_force=True) == 0.0
    # Energies are never clipped: a (numerically) negative energy is taken as it is.
    assert stop_quantity((-1e-12, 2e-8), use_force=False) == -1e-12


def test_the_rollback_limit_is_the_published_overshoot_window():
    assert overshoot_limit(1e-8, OVERSHOOT) == pytest.approx(1.25e-8, rel=1e-15)
    assert overshoot_limit(20.0, 0.05) == pytest.approx(21.0, rel=1e-15)


@pytest.mark.parametrize(
    ("q", "at_rest", "settled", "reached"),
    [
        (50.0, True, 0, True),
        (51.0, True, 0, True),  # 2 % above: 0.02 x 50 = 1.0 exactly, inclusive
        (49.0, True, 0, True),  # 2 % below, inclusive
        (51.5, True, 0, False),  # 3 % above, not settled yet
        (48.5, True, 0, False),
        (50.0, False, 0, False),  # the jaws still move
        (50.0, False, 20, False),
        (40.0, True, 9, False),  # 20 % short, 9 steps at rest
        (40.0, True, 10, True),  # ... 10 steps at rest end it
        (25.0, True, 10, True),  # half the force, inclusive
        (24.9, True, 10, False),  # below half the force never ends it
        (24.9, True, 50, False),
    ],
)
def test_force_stop_within_two_percent_or_settled(q, at_rest, settled, reached):
    assert force_stop_reached(q, 50.0, at_rest, settled) is reached


@pytest.mark.parametrize(
    ("q", "servo", "force_drive", "reached"),
    [
        (1e-8, False, False, True),  # position-driven jaws: Psi_th reached, inclusive
        (0.999e-8, False, False, False),
        (2e-8, False, True, False),  # force-driven jaws end on a servo step only
        (2e-8, True, True, True),
        (0.999e-8, True, True, False),
        (1e-8, True, False, True),
    ],
)
def test_threshold_reached(q, servo, force_drive, reached):
    assert threshold_reached(q, 1e-8, servo, force_drive) is reached


@pytest.mark.parametrize(
    ("psi", "balanced"),
    [
        ((10.0, 10.0), True),
        ((10.0, 7.0), True),  # |10 - 7| = 3.0 = 0.3 x 10: on the boundary, inclusive
        ((7.0, 10.0), True),
        ((10.0, 6.9), False),
        ((6.9, 10.0), False),
        ((1e-8, 0.5e-8), False),
    ],
)
def test_psi_balance_is_the_published_thirty_percent_of_the_larger(psi, balanced):
    assert psi_balanced(psi, BALANCE) is balanced


@pytest.mark.parametrize(
    ("balanced", "unbalanced", "q", "accepted"),
    [
        (True, 0, 1e-8, True),
        (False, 0, 1e-8, False),
        (False, 9, 1e-8, False),
        (False, 10, 1e-8, True),  # the 11th unbalanced stop is accepted
        (False, 0, 4e-8, False),  # exactly 4 Psi_th: not beyond
        (False, 0, 4.0001e-8, True),
    ],
)
def test_an_unbalanced_stop_is_accepted_after_ten_tries_or_beyond_four_thresholds(
    balanced, unbalanced, q, accepted
):
    assert stop_accepted(balanced, unbalanced, q, 1e-8) is accepted


@pytest.mark.parametrize(
    ("pad_pad", "at_rest", "reached", "grip", "outcome"),
    [
        (0, True, False, 0.0, ""),  # the pads do not touch each other: squeeze on
        (12, False, False, 0.0, ""),  # they touch but the jaws still move
        (12, True, True, 5.0, ""),  # the stop is reached with a grip: it ends as usual
        (12, False, True, 0.41, ""),
        # A (Psi) stop reached by the pads' pressing each other, the object barely touched.
        (12, True, True, 0.0, "closed"),
        (12, False, True, 0.4, "closed"),
        (0, True, True, 0.0, ""),  # the pads apart: a stop reached on the object
        (12, True, False, 0.0, "closed"),
        (12, True, False, 0.4, "closed"),  # 2 % of the 20 N cap, inclusive
        (12, True, False, 0.41, "holding"),  # the pads meet around a gripped object
        (12, True, False, 5.0, "holding"),
    ],
)
def test_jaws_at_rest_against_each_other_end_the_squeeze(pad_pad, at_rest, reached, grip, outcome):
    """Jaws pressed against each other cannot squeeze further: a force stop below its force
    would wait for it forever (max_steps: "solver failed" after 2,000 frames), and a Psi stop
    they reach by pressing each other says nothing about the object."""
    assert jaws_rest_on_each_other(pad_pad, at_rest, reached, grip, 20.0) == outcome
