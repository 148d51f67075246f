"""The grip's measured strength as plain data: the disturbance directions' names, one
direction's result, and how a trial result records them (engine.grasp.disturbance measures)."""

from __future__ import annotations

from dataclasses import dataclass

FORCE_DIRECTIONS = ("along", "across", "up", "down")
"""Forces at the centre of mass: along and across the closing axis (across is horizontal),
up and down (N)."""
TORQUE_DIRECTIONS = ("twist", "tilt", "turn")
"""Torques about the closing axis, the across axis and the vertical (N m)."""
DIRECTIONS = FORCE_DIRECTIONS + TORQUE_DIRECTIONS

OFF, ALL = "off", "all"
DISTURB_CHOICES = (OFF, ALL, *DIRECTIONS)
"""`--disturb`: off, every direction, or one of them."""


def disturb_directions(choice: str) -> tuple[str, ...]:
    """The directions a `--disturb` choice measures (none for "off")."""
    if choice == OFF:
        return ()
    return DIRECTIONS if choice == ALL else (choice,)


def unit_of(direction: str) -> str:
    """ "N" for a force direction, "N m" for a torque."""
    return "N m" if direction in TORQUE_DIRECTIONS else "N"


@dataclass(frozen=True)
class Strength:
    """The load (N, or N m for torques) at which the object left the grip in one direction."""

    direction: str
    load: float  # where it left: the middle of the last [stuck, left] bracket; `held`: the cap
    weight_multiple: float  # load / the object's weight (torques: / (weight x pad radius))
    held: bool  # still held at the cap: `load` is a lower bound
    steps: int
    newton_iterations: int


def measured_margin(weight_multiple_down: float) -> float:
    """The grip's margin in the analytic models' unit, from the pull down it resisted: the
    models' margin is the multiple of the object's weight the contacts hold against gravity,
    and a pull down of k weights slipped with the weight itself added: k + 1."""
    return weight_multiple_down + 1.0
