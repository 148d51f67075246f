"""Parameters of the MuJoCo baseline (SI units), declared with engine.schema like SimulationParams.

Everything the baseline shares with the IPC simulator (E, mu, ground mu, pad, opening, closing
and lift speeds, lift height, hold time, slip tolerance, squeeze force or Psi_th) is read from
`SimulationParams`; only what MuJoCo adds is declared here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.schema import check_fields, param, to_dict

CONTACT_MODELS = ("mujoco", "pad")
MUJOCO_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
"""MuJoCo's default solimp (its documentation's default impedance curve)."""


@dataclass(frozen=True)
class MujocoParams:
    """MuJoCo's own settings (the contact stiffness itself is derived, not set)."""

    time_step_s: float = param(
        1e-3,
        unit="s",
        help="MuJoCo time step; the contact time constant is twice it (MuJoCo's stability floor), "
        "so a smaller step reaches stiffer pads (MuJoCo's contact at 1 ms, a 2 ms time "
        "constant: 22 of the REACH cube's 25 grasps agree with the robot; 20 at 0.5 ms, 13 at "
        "2 ms)",
        low=1e-5,
        high=0.01,
        flag="--mj-time-step",
        widget="none",
        group="mujoco",
    )
    damping_ratio: float = param(
        1.0,
        unit="",
        help="damping ratio of the pad-object contact (1: critical)",
        low=0.1,
        high=10.0,
        flag="--mj-damping-ratio",
        widget="none",
        group="mujoco",
    )
    contact_model: str = param(
        "mujoco",
        unit="",
        help="pad-object contact: 'pad', the impedance derived from the pad's E A / t "
        "(engine/mujoco_baseline/contact.py); 'mujoco', MuJoCo's own soft contact (impedance "
        "0.9-0.95, time constant twice the step), as a MuJoCo user builds it",
        choices=CONTACT_MODELS,
        flag="--mj-contact",
        widget="none",
        group="mujoco",
    )
    grip_force_n: float | None = param(
        None,
        unit="N",
        help="force each jaw presses with (unset: --squeeze-force, else the force at which a "
        "linear pad of stiffness E A / t stores Psi_th, F = sqrt(2 k Psi_th))",
        low=0.0,
        low_inclusive=False,
        high=1000.0,
        flag="--mj-grip-force",
        widget="none",
        group="mujoco",
        none_means="from the squeeze stop",
    )
    frame_interval_s: float = param(
        0.01,
        unit="s",
        help="simulated time between streamed frames (the IPC simulator's time step)",
        low=1e-4,
        high=1.0,
        flag="--mj-frame-interval",
        widget="none",
        group="mujoco",
    )

    def validate(self) -> MujocoParams:
        """Raise ParameterError naming the first bad field; return self."""
        check_fields(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        """Every field by name (SI units)."""
        return to_dict(self)
