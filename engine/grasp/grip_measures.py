"""How far a lifted object moved in the grip: its slip along each pad and its rotation.

From the start of the lift, the material point of the object at each pad's contact centre is
followed with the object's rigid motion and compared with that pad's plate (which only rises
and closes): its displacement relative to the plate, in the pad's plane, is the object's slip
on that pad. The object's rotation in the grip is the angle of its rotation since the lift
began (the gripper does not turn). The success test (engine.grasp.squeeze_rules.judge_lift)
decides on these measures with the tolerances of SimulationParams.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def rotation_angle(r_from: np.ndarray, r_to: np.ndarray) -> float:
    """The angle (rad) of the rotation taking orientation r_from to r_to (3x3 each).

    The rigid object is an affine body: its 3x3 part holds a small strain besides the rotation
    (1e-5 under a 20 N grip). acos((trace - 1) / 2) turns a strain e into an angle of about
    sqrt(2 e) (0.4 deg for a still cube), so the angle is taken from the skew part (which the
    symmetric strain leaves alone) and the trace together, as atan2(|axial|, cos)."""
    r = np.asarray(r_to, dtype=float) @ np.asarray(r_from, dtype=float).T
    axial = 0.5 * np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    c = 0.5 * (float(np.trace(r)) - 1.0)
    return math.atan2(float(np.linalg.norm(axial)), c)


@dataclass
class GripTracker:
    """The object's slip on each pad (m) and rotation (rad) since the start of the lift.

    `start` takes the object's pose (4x4, world <- body), each pad's contact centre (world, m;
    None for a pad without contact) and closing direction, and the plates' travel and lift;
    `update` takes the same for a later state and returns the measures there, keeping their
    largest values in `max_slip_m` and `max_rotation_rad`.
    """

    pose: np.ndarray = field(default_factory=lambda: np.eye(4))
    points_body: list[np.ndarray | None] = field(default_factory=list)
    normals: list[np.ndarray] = field(default_factory=list)
    travel_m: float = 0.0
    lift_m: float = 0.0
    max_slip_m: list[float] = field(default_factory=lambda: [0.0, 0.0])
    max_rotation_rad: float = 0.0
    reached_height: bool = False  # the lowest point reached the lift height (set by the lift)

    def start(
        self,
        pose: np.ndarray,
        centres: tuple[np.ndarray | None, np.ndarray | None],
        normals: tuple[np.ndarray, np.ndarray],
        travel_m: float,
        lift_m: float,
    ) -> None:
        """Begin at the state where the lift starts."""
        self.pose = np.asarray(pose, dtype=float).copy()
        inverse = np.linalg.inv(self.pose)
        self.points_body = [
            None if c is None else (inverse @ np.append(np.asarray(c, dtype=float), 1.0))[:3]
            for c in centres
        ]
        self.normals = [np.asarray(n, dtype=float) / np.linalg.norm(n) for n in normals]
        self.travel_m, self.lift_m = float(travel_m), float(lift_m)
        self.max_slip_m = [0.0, 0.0]
        self.max_rotation_rad = 0.0
        self.reached_height = False

    def update(
        self, pose: np.ndarray, travel_m: float, lift_m: float
    ) -> tuple[tuple[float, float], float]:
        """((slip on pad 1, slip on pad 2) in m, rotation in rad) at this state."""
        pose = np.asarray(pose, dtype=float)
        slips = []
        for k, p_body in enumerate(self.points_body):
            if p_body is None:
                slips.append(0.0)
                continue
            before = (self.pose @ np.append(p_body, 1.0))[:3]
            after = (pose @ np.append(p_body, 1.0))[:3]
            n = self.normals[k]
            plate = (lift_m - self.lift_m) * np.array([0.0, 0.0, 1.0]) + (
                travel_m - self.travel_m
            ) * n
            moved = after - before - plate
            tangential = moved - (moved @ n) * n
            slips.append(float(np.linalg.norm(tangential)))
        rotation = rotation_angle(self.pose[:3, :3], pose[:3, :3])
        self.max_slip_m = [max(a, b) for a, b in zip(self.max_slip_m, slips, strict=True)]
        self.max_rotation_rad = max(self.max_rotation_rad, rotation)
        return (slips[0], slips[1]), rotation
