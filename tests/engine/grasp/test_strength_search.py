"""The grip-strength test's search for the load at which the object leaves (engine.grasp.
strength_search), on a stand-in walk whose object leaves above a set load: the search from a hint
(_search_near) tries the loads of the ramp and its halvings (multiples of 1/16 of a step), so
wherever the object leaves and wherever the hint points, it ends in the ramp's bracket, one
grid step wide, and the better the hint, the fewer its tries."""

from __future__ import annotations

import pytest

from engine.grasp.strength_search import (
    BISECTIONS,
    CAP_MULTIPLE,
    STEP_MULTIPLE,
    ramp_up,
    search_near,
)

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
    left = ramp_up(walk, SCALE)
    return walk.load, left, walk.steps


def _bound_bracket(onset: float, bound: float) -> tuple[float, float | None, int]:
    walk = _Threshold(onset)
    left = ramp_up(walk, SCALE, bound)
    return walk.load, left, walk.steps


def _near_bracket(onset: float, hint: float) -> tuple[float, float | None, int]:
    walk = _Threshold(onset)
    left = search_near(walk, hint, SCALE)
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
