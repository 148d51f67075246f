"""Plain data a simulation streams (frames) and returns (trial results)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from engine.grasp.strength import Strength

if TYPE_CHECKING:
    from engine.grasp.push import Push, PushOutcome

PUSH_KEYS = ("fx", "fy", "fz", "x", "y", "z", "held", "moved", "turned", "weights")
PHASES = ("squeeze", "lift", "hold", "push")
"""A trial's phases in order; "push" only after a push (engine.grasp.push)."""


@dataclass(frozen=True)
class Frame:
    """The state after one accepted time step."""

    index: int
    time_s: float
    phase: str
    pad_vertices: tuple[np.ndarray, np.ndarray]  # (n,3) world positions of every pad vertex
    object_pose: np.ndarray  # 4x4 world <- object resting frame
    plate_travel_m: float  # how far each plate has closed from the open position
    plate_lift_m: float  # how far the plates have risen
    psi_j: tuple[float, float]  # pad strain energies Psi1, Psi2
    grip_force_n: tuple[float, float]  # contact force on each pad along its closing direction
    contacts: dict[str, int]
    min_distance_m: float
    object_min_z_m: float
    newton_iterations: int
    intersection_free: bool
    # The contact forces on the object (engine.ipc.contact_metrics.object_contact_forces), one
    # row per contact point: world position (m), normal and friction force (N), and who pushes
    # (0 pad 1, 1 pad 2, 2 the ground). Empty when not recorded (older frame files).
    contact_points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    contact_normal_n: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    contact_friction_n: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    contact_source: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))


@dataclass
class TrialResult:
    """Outcome of one squeeze-lift trial."""

    trial: int
    success: bool
    reason: str
    psi1_j: float = float("nan")  # at the end of the squeeze
    psi2_j: float = float("nan")
    grip_force1_n: float = float("nan")
    grip_force2_n: float = float("nan")
    squeeze_balanced: bool = False
    lift_height_m: float = float("nan")  # object lowest point above the ground at the end
    # How the object moved in the grip over the lift and hold (engine.grasp.grip_measures):
    # its largest slip along each pad (m), its largest rotation (rad), and the lowest grip
    # force of the weaker pad (N).
    slip1_m: float = float("nan")
    slip2_m: float = float("nan")
    rotation_rad: float = float("nan")
    min_lift_grip_n: float = float("nan")
    frames: int = 0
    newton_iterations: int = 0
    rollbacks: int = 0
    wall_time_s: float = 0.0  # set-up (GraspSimulation construction) and all frames
    min_distance_m: float = float("inf")
    intersection_free: bool = True
    perturbation: dict[str, float] = field(default_factory=dict)
    error: str = ""  # set when the trial ended with an exception (solver, bad input)
    # The grip's strength per disturbance direction measured after the hold (`--disturb`,
    # engine.grasp.disturbance): the load it left the grip at (N, torques N m), as multiples of
    # the weight (torques: of weight x pad radius), and the directions still held at the
    # ramp's cap (their load is a lower bound), joined by ";".
    strength: dict[str, float] = field(default_factory=dict)
    strength_weights: dict[str, float] = field(default_factory=dict)
    strength_held: str = ""
    # A push after the hold (engine.grasp.push): PUSH_KEYS -> its force (N, world), point (m,
    # the object's resting frame), whether the grip held it (1 or 0), how far the object moved
    # (m) and turned (rad), and |F| in weights. Empty without a push.
    push: dict[str, float] = field(default_factory=dict)

    @property
    def grip_force_n(self) -> float:
        """Mean of the two pads' grip forces (N)."""
        return 0.5 * (self.grip_force1_n + self.grip_force2_n)

    def as_json(self) -> dict:
        """The result as JSON-ready data (short keys, one `perturbation_<k>` per offset)."""
        return {
            "trial": self.trial,
            "success": self.success,
            "reason": self.reason,
            "psi1": self.psi1_j,
            "psi2": self.psi2_j,
            "grip_force": self.grip_force_n,
            "grip_force_1": self.grip_force1_n,
            "grip_force_2": self.grip_force2_n,
            "squeeze_balanced": self.squeeze_balanced,
            "lift_height": self.lift_height_m,
            "slip_1": self.slip1_m,
            "slip_2": self.slip2_m,
            "rotation": self.rotation_rad,
            "min_lift_grip": self.min_lift_grip_n,
            "frames": self.frames,
            "newton_iterations": self.newton_iterations,
            "rollbacks": self.rollbacks,
            "wall_time_s": self.wall_time_s,
            "min_distance": self.min_distance_m,
            "intersection_free": self.intersection_free,
            "error": self.error,
            **{f"perturbation_{k}": v for k, v in self.perturbation.items()},
            **{f"strength_{k}": v for k, v in self.strength.items()},
            **{f"strength_{k}_weights": v for k, v in self.strength_weights.items()},
            **({"strength_held": self.strength_held} if self.strength else {}),
            **{f"push_{k}": v for k, v in self.push.items()},
        }

    def record_strength(self, measured: Sequence[Strength]) -> None:
        """Keep the strengths measured by engine.grasp.disturbance.measure_strength."""
        self.strength = {m.direction: m.load for m in measured}
        self.strength_weights = {m.direction: m.weight_multiple for m in measured}
        self.strength_held = ";".join(m.direction for m in measured if m.held)

    def record_push(self, push: Push, outcome: PushOutcome) -> None:
        """Keep a push and what it did (engine.grasp.push.apply_push)."""
        fx, fy, fz = push.force_n
        x, y, z = push.point_m
        self.push = dict(
            fx=fx, fy=fy, fz=fz, x=x, y=y, z=z, held=float(outcome.held),
            moved=outcome.moved_m, turned=outcome.turned_rad, weights=outcome.weight_multiple,
        )  # fmt: skip
