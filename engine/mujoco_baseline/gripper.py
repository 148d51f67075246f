"""The parallel-jaw gripper the MuJoCo baseline closes: stroke, force limit, jaw mass.

The IPC simulator's gripper is the YuMi (engine.gripper, SimulationParams.open_width_m); this
module keeps the baseline's own description so it can follow gripper presets once the engine
has them. YuMi numbers: tooltips at x = -/+25 mm of the gripper frame (50 mm stroke,
yumi_metal_spline.yaml of the REACH data set), at most 20 N per jaw (ABB's datasheet, REACH's
closing force).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import ParameterError


@dataclass(frozen=True)
class GripperSpec:
    """What the baseline needs of a parallel-jaw gripper (SI units)."""

    name: str
    stroke_m: float  # widest opening between the pads' contact faces
    max_force_n: float  # largest force one jaw can press with
    jaw_mass_kg: float  # moving mass of one jaw (finger and pad)

    def check_force(self, force_n: float) -> float:
        """`force_n` if this gripper can press with it, else ParameterError."""
        if not 0.0 < force_n <= self.max_force_n * (1 + 1e-9):
            raise ParameterError(
                f"grip force {force_n:.3g} N is outside (0, {self.max_force_n:g}] N, the range "
                f"of the {self.name} gripper's jaws; lower --squeeze-force or --mj-grip-force"
            )
        return force_n


YUMI = GripperSpec(name="YuMi", stroke_m=0.050, max_force_n=20.0, jaw_mass_kg=0.05)
"""ABB YuMi smart gripper with the IPC-GraspSim silicone pads."""


def gripper_for(params: Any) -> GripperSpec:
    """The gripper of `params` (SimulationParams): its preset where the engine has presets
    (`params.preset`: stroke, force range, finger mass), else the YuMi."""
    preset = getattr(params, "preset", None)
    if preset is None:
        return YUMI
    return GripperSpec(
        name=str(preset.label),
        stroke_m=float(preset.stroke_m),
        max_force_n=float(preset.force_max_n),
        jaw_mass_kg=float(preset.finger_mass_kg),
    )
