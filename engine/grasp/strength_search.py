"""The grip-strength test's search for the load at which the object leaves the grip, over a
walk of load steps (engine.grasp.disturbance): steps of STEP_MULTIPLE x a scale until one
leaves, then halvings, all on one grid of loads, so that searches started elsewhere (from an
estimate of where it leaves, search_near, or from a bound, past_bound) end in the same
bracket, one grid step wide."""

from __future__ import annotations

import math
from typing import Protocol


class Walk(Protocol):
    """Load steps along one direction: `load`, the last load the object stuck at."""

    load: float

    def try_load(self, load: float) -> bool:
        """One step at `load` (above `load`'s last value) from the last stuck state: whether
        the object still sticks (then `load` becomes it)."""
        ...


STEP_MULTIPLE = 1.0
"""The load rises by this multiple of the grip's Coulomb capacity 2 mu F per time step (for
torques, 2 mu F times the pad's radius). The steps are quasi-static: the object's inertia over
a 10 ms step (m / h^2, 30 N/m for 3 g, 3,000 N/m for 300 g) is small beside the pads'
stiffness, so the state a step ends in is the load's equilibrium when the object sticks."""

BISECTIONS = 4
"""Once a load step leaves the grip, the step is halved this many times, each half tried from
the last state the object stuck in, leaving a bracket [stuck, left] of STEP_MULTIPLE / 2^4 =
1/16 of 2 mu F. The strength is its middle: within 1/32 of 2 mu F (3 %) of the load at which
the object leaves. (The lower end, a load seen held, would need a fifth halving for the same
bound: one more of the two to eight steps a direction takes.)"""

CAP_MULTIPLE = 3.0
"""A direction still held at this multiple of its step's scale ends as held."""


def ramp_up(walk: Walk, scale: float, bound: float | None = None) -> float | None:
    """Steps of STEP_MULTIPLE x `scale` above the walk's load until one leaves, then its
    halvings (bisect): the load the object left at, or None when the load reached
    CAP_MULTIPLE x `scale` held. With `bound`, the step that would pass it hands over to
    past_bound."""
    step, cap = STEP_MULTIPLE * scale, CAP_MULTIPLE * scale
    k = round(walk.load / step) if step > 0.0 else 0
    while walk.load < cap:
        k += 1
        load = min(k * step, cap)
        if bound is not None and walk.load < bound < load:
            return past_bound(walk, bound, scale)
        if not walk.try_load(load):
            return bisect(walk, load)
    return None


def bisect(walk: Walk, left_at: float) -> float:
    """BISECTIONS halvings of [walk.load, left_at], each tried from the last state the object
    stuck in; the upper end of the last bracket."""
    for _ in range(BISECTIONS):
        middle = 0.5 * (walk.load + left_at)
        if not walk.try_load(middle):
            left_at = middle
    return left_at


def search_near(walk: Walk, hint: float, scale: float) -> float | None:
    """The load at which the object left, searched from `hint` on the grid the ramp and its
    halvings try (LoadGrid): the grid load at or below the hint, then away from it by 1, 2, 4...
    grid steps until the object's behaviour changes, then halvings to one grid step. A hint
    within a grid step of where the object leaves takes two tries (the ramp and its halvings:
    five to seven); one off by n grid steps about 2 log2(n) more. None: held at the cap."""
    g = LoadGrid(walk, scale)
    stuck = g.stuck()
    k = min(max(g.below(hint), stuck), g.top)
    if k > stuck and not g.holds(k):
        left, gap = k, 1
        while left - gap > stuck and not g.holds(left - gap):
            left, gap = left - gap, 2 * gap
        return g.halve(max(left - gap, stuck), left)
    return g.up_from(k)


def past_bound(walk: Walk, bound: float, scale: float) -> float | None:
    """The load at which the object left, searched from the last step below `bound`: the grid
    load at or below the bound first (where a centred grasp leaves), then halvings below it
    if it left (an off-centre grasp, which turns out sooner), or steps of 1, 2, 4... grid
    steps above it and halvings if it held (LoadGrid). None: held at the cap."""
    g = LoadGrid(walk, scale)
    stuck = g.stuck()
    k = min(max(g.below(bound), stuck + 1), g.top)
    return g.up_from(k) if g.holds(k) else g.halve(stuck, k)


class LoadGrid:
    """The loads the ramp and its halvings try, by index: multiples of STEP_MULTIPLE x scale /
    2^BISECTIONS up to the cap. Searches on it end in the bracket the ramp and its halvings
    reach, one grid step wide."""

    def __init__(self, walk: Walk, scale: float) -> None:
        self.walk = walk
        self.step = STEP_MULTIPLE * scale / 2**BISECTIONS
        self.top = round(CAP_MULTIPLE * scale / self.step)

    def below(self, load: float) -> int:
        """The index of the grid load at or below `load` (a load on the grid, such as 2 F =
        40 grid steps at mu 0.4, is its own, whatever the round-off of the division)."""
        return math.floor(load / self.step * (1.0 + 1e-9))

    def stuck(self) -> int:
        """The index of the last load the object stuck at."""
        return round(self.walk.load / self.step)

    def holds(self, k: int) -> bool:
        """Whether the object sticks at the k-th load (walk.try_load)."""
        return self.walk.try_load(k * self.step)

    def up_from(self, stuck: int) -> float | None:
        """From the last stuck index, steps of 1, 2, 4... until the object leaves, then
        halvings to one grid step: the load it left at; None: held at the cap."""
        gap = 1
        while stuck < self.top:
            k = min(stuck + gap, self.top)
            if not self.holds(k):
                return self.halve(stuck, k)
            stuck, gap = k, 2 * gap
        return None

    def halve(self, stuck: int, left: int) -> float:
        """Halvings of [stuck, left] (indices) to one grid step: the load it left at."""
        while left - stuck > 1:
            k = (stuck + left) // 2
            if self.holds(k):
                stuck = k
            else:
                left = k
        return left * self.step
