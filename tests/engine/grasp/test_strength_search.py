"""The grip-strength test's search for the load at which the object leaves (engine.grasp.
disturbance), on a stand-in walk whose object leaves above a set load: the search from a hint
(_search_near) tries the loads of the ramp and its halvings (multiples of 1/16 of a step), so
wherever the object leaves and wherever the hint points, it ends in the ramp's bracket, one
grid step wide, and the better the hint, the fewer its tries; and which measured directions
give the hint (friction_hint)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.disturbance import (
    BISECTIONS,
    CAP_MULTIPLE,
    STEP_MULTIPLE,
    _ramp_up,
    _search_near,
    directions,
    friction_hint,
    normal_limit,
)
from engine.grasp.strength import Strength

SCALE = 16.0  # 2 mu F (N): the YuMi's 20 N at mu 0.4
GRID = STEP_MULTIPLE * SCALE / 2**BISECTIONS
CAP = CAP_MULTIPLE * SCALE


class _Threshold:
    """A walk whose object sticks at every load up to `onset` and leaves above it."""

    def __init__(self, onset: float) -> None:
        self.onset, self.load, self.steps = onset, 0.0, 0

    def try_load(self, load: float) -> bool:
        assert load > self.load  # every try is above the last load the object stuck at
        self.steps += 1
        if load > self.onset:
            return False
        self.load = load
        return True


def _ramp_bracket(onset: float) -> tuple[float, float | None, int]:
    """(stuck, left or None when held at the cap, tries) of the plain ramp and its halvings."""
    walk = _Threshold(onset)
    left = _ramp_up(walk, SCALE)  # type: ignore[arg-type]
    return walk.load, left, walk.steps


def _bound_bracket(onset: float, bound: float) -> tuple[float, float | None, int]:
    walk = _Threshold(onset)
    left = _ramp_up(walk, SCALE, bound)  # type: ignore[arg-type]
    return walk.load, left, walk.steps


def _near_bracket(onset: float, hint: float) -> tuple[float, float | None, int]:
    walk = _Threshold(onset)
    left = _search_near(walk, hint, SCALE)  # type: ignore[arg-type]
    return walk.load, left, walk.steps


@pytest.mark.parametrize("onset", [0.3, 1.0, 7.49, 8.0, 15.2, 16.0, 16.5, 31.99, 40.5, 47.5])
@pytest.mark.parametrize("hint", [0.0, 0.5, 7.0, 15.9, 16.0, 33.0, 40.0, 48.0, 100.0])
def test_a_hint_changes_the_tries_not_the_bracket(onset, hint):
    stuck, left, _ = _near_bracket(onset, hint)
    assert (stuck, left) == pytest.approx(_ramp_bracket(onset)[:2])
    assert left is not None
    assert stuck <= onset < left
    assert left - stuck == pytest.approx(GRID)


@pytest.mark.parametrize("hint", [0.0, 20.0, 47.9, 60.0])
def test_held_at_the_cap_with_any_hint(hint):
    stuck, left, _ = _near_bracket(CAP + 1.0, hint)
    assert left is None
    assert stuck == pytest.approx(CAP)


def test_a_hint_within_a_grid_step_takes_two_tries_and_a_poor_one_costs_a_few():
    onset = 9.3  # leaves in [9, 10]
    assert _near_bracket(onset, 9.6)[2] == 2
    assert _ramp_bracket(onset)[2] == 5
    off = [_near_bracket(onset, onset + n * GRID)[2] for n in (2, 4, 8)]
    assert off == sorted(off) and off[-1] <= 8  # about 2 log2(n) more


@pytest.mark.parametrize("onset", [0.3, 15.2, 16.5, 31.99, 33.4, 38.5, 40.0, 40.5, 41.7, 47.5, 60])
@pytest.mark.parametrize("bound", [5.0, 16.0, 20.0, 40.0, 40.5, 47.9])
def test_a_bound_changes_the_tries_not_the_bracket(onset, bound):
    assert _bound_bracket(onset, bound)[:2] == pytest.approx(_ramp_bracket(onset)[:2])


def test_a_grasp_that_leaves_at_the_bound_takes_two_tries_past_the_last_step():
    """A centred grasp pushed along the closing axis leaves just past 2 F (40.49 N at 20 N):
    after the steps at 16 and 32 N the ramp tries 40 and 41 N, not 48 N and four halvings."""
    assert _bound_bracket(40.49, 40.0)[2] == 4
    assert _ramp_bracket(40.49)[2] == 7
    assert _bound_bracket(33.4, 40.0)[2] <= _ramp_bracket(33.4)[2]  # turned out sooner


def test_the_normal_forces_bound_only_a_push_along_the_closing_axis():
    closing = np.array([1.0, 0.0, 0.0])
    by_name = {d.name: d for d in directions(closing)}
    assert normal_limit(by_name["along"], closing, 20.0) == pytest.approx(40.0)
    for name in ("across", "up", "down", "twist", "tilt", "turn"):
        assert normal_limit(by_name[name], closing, 20.0) is None


def _strength(direction: str, load: float, held: bool = False) -> Strength:
    return Strength(direction, load, 0.0, held, 1, 1)


def test_the_opposite_direction_gives_the_hint_shifted_by_twice_the_weight():
    """Up and down lie on one line: by Coulomb's law up leaves at the friction plus the weight,
    down at the friction less it."""
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    (down,) = [d for d in directions(closing) if d.name == "down"]
    measured = [_strength("along", 40.0), _strength("across", 14.5), _strength("up", 9.5)]
    assert friction_hint(down, measured, closing, weight) == pytest.approx(9.5 - 2 * weight)


def test_without_the_opposite_the_mean_friction_of_those_measured():
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    (up,) = [d for d in directions(closing) if d.name == "up"]
    measured = [_strength("along", 40.0), _strength("across", 14.5)]
    assert friction_hint(up, measured, closing, weight) == pytest.approx(14.5 + weight)


def test_no_hint_for_the_normal_forces_torques_held_directions_or_a_first_direction():
    closing, weight = np.array([1.0, 0.0, 0.0]), 0.5
    by_name = {d.name: d for d in directions(closing)}
    measured = [_strength("across", 14.5)]
    for name in ("along", "twist", "tilt", "turn"):
        assert friction_hint(by_name[name], measured, closing, weight) is None
    assert friction_hint(by_name["across"], [], closing, weight) is None
    held = [_strength("across", 48.0, held=True)]
    assert friction_hint(by_name["up"], held, closing, weight) is None


def test_a_vertical_closing_axis_pushes_up_and_down_against_the_normal_forces():
    """Closing vertically, up and down are along the closing axis: no friction hint for them,
    and none from them."""
    closing, weight = np.array([0.0, 0.0, 1.0]), 0.5
    by_name = {d.name: d for d in directions(closing)}
    measured = [_strength("up", 30.0), _strength("down", 30.0)]
    assert friction_hint(by_name["down"], measured[:1], closing, weight) is None
    assert friction_hint(by_name["across"], measured, closing, weight) is None
