"""What the laws of contact expect of the grip-strength test's directions (engine.grasp.
disturbance): the directions of the grasp frame, Coulomb's and the pads' bounds on a force,
and estimates of where a direction leaves the grip, from which its search starts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.grasp.strength import Strength
from engine.ipc.contact_metrics import SOURCE_PAD1, SOURCE_PAD2, ContactForces


@dataclass(frozen=True)
class Direction:
    """One disturbance: a unit force or a unit torque, world frame."""

    name: str
    force: np.ndarray  # (3,) unit, or zeros
    torque: np.ndarray  # (3,) unit, or zeros

    @property
    def is_torque(self) -> bool:
        """Whether it is a torque (N m) rather than a force (N)."""
        return bool(np.any(self.torque))


def directions(closing_axis: np.ndarray) -> list[Direction]:
    """Along and across the closing axis, up and down, and the torques about the closing axis,
    the across axis and the vertical (world frame; the across axis is horizontal)."""
    x = np.asarray(closing_axis, dtype=float)
    x = x / np.linalg.norm(x)
    up = np.array([0.0, 0.0, 1.0])
    across = np.cross(up, x)
    if np.linalg.norm(across) < 1e-9:  # a vertical closing axis
        across = np.array([1.0, 0.0, 0.0])
    across /= np.linalg.norm(across)
    zero = np.zeros(3)
    return [
        Direction("along", x, zero),
        Direction("across", across, zero),
        Direction("up", up, zero),
        Direction("down", -up, zero),
        Direction("twist", zero, x),
        Direction("tilt", zero, across),
        Direction("turn", zero, up),
    ]


def friction_hint(
    d: Direction, measured: Sequence[Strength], closing_axis: np.ndarray, weight: float
) -> float | None:
    """Where a force mostly across the closing axis (less than half of it along the axis) is
    expected to leave the grip, from the opposite direction's strength when it was measured
    and left: the pads' friction resists both, and by Coulomb's law each leaves at the friction
    plus the weight's share along it (coulomb_limit); a grasp off the centre of mass turns out
    below that, by the same lever arm both ways along the line. Down after up: they differ by
    0-3 N on the REACH cube's grasps (across and up by up to 7 N, on the banana by up to 14 N:
    a pull across and a vertical one have different arms, so one does not estimate the other).
    None for other directions and without the opposite one."""
    if not _mostly_across(d, closing_axis):
        return None
    kinds = {x.name: x for x in directions(closing_axis)}
    for s in measured:
        other = kinds.get(s.direction)
        if other is not None and not s.held and float(np.dot(other.force, d.force)) < -0.999:
            return s.load + weight * float(d.force[2] - other.force[2])
    return None


def _mostly_across(d: Direction, closing_axis: np.ndarray) -> bool:
    """A force less than half of which lies along the closing axis (unit)."""
    return not d.is_torque and abs(float(np.dot(d.force, closing_axis))) < 0.5


def coulomb_limit(
    d: Direction, closing_axis: np.ndarray, capacity: float, weight: float
) -> float | None:
    """Coulomb's bound on a force across the closing axis (N): the pads' friction 2 mu F
    (`capacity`) less the weight's share along it (a pull down is helped by the weight, a pull
    up resisted). None for a force with a component along the closing axis (the pads' normal
    forces resist it) and for torques (about an axis off the pads' centres of pressure the
    friction gains a lever arm)."""
    if d.is_torque or abs(float(np.dot(d.force, closing_axis))) > 1e-9:
        return None
    return capacity + weight * float(d.force[2])


def normal_limit(d: Direction, closing_axis: np.ndarray, grip_n: float) -> float | None:
    """The pads' bound on a force along the closing axis (N): the near pad lets go of its
    whole force F at 2 F, the far pad then alone pressing (a grasp off the centre of mass
    turns out sooner). None for every other direction."""
    if d.is_torque or abs(float(np.dot(d.force, closing_axis))) < 1.0 - 1e-9:
        return None
    return 2.0 * max(grip_n, 0.0)


def twists(d: Direction, closing_axis: np.ndarray) -> bool:
    """Whether `d` is a torque about the closing axis (unit)."""
    return d.is_torque and abs(float(np.dot(d.torque, closing_axis))) > 1.0 - 1e-9


def patch_friction_moment(
    forces: ContactForces, normals: tuple[np.ndarray, np.ndarray], mu: float
) -> float:
    """Where a twist about the closing axis is expected to turn the object out (N m): the
    patches' friction moment, over each pad's contact points sum mu N_i r_i (r_i: the point's
    distance from the axis through its pad's centre of pressure along the pad's normal), from
    the held state's contact forces. On the REACH cube's 24 grasps it is within 1.7 grid steps
    (1/16 of 2 mu F times the pad's radius) of the measured twist, on the centred cube 0.152
    against 0.146 N m."""
    moment = 0.0
    for source, normal in zip((SOURCE_PAD1, SOURCE_PAD2), normals, strict=True):
        mine = forces.source == source
        n_i = np.linalg.norm(forces.normal_n[mine], axis=1)
        if n_i.sum() <= 0.0:
            continue
        centre = (forces.points[mine] * n_i[:, None]).sum(axis=0) / n_i.sum()
        arm = np.linalg.norm(np.cross(forces.points[mine] - centre, normal), axis=1)
        moment += mu * float((n_i * arm).sum())
    return moment
