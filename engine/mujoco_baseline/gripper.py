"""The parallel-jaw gripper the MuJoCo baseline closes: stroke, force limit, jaw mass.

The numbers come from the simulation parameters' gripper preset (engine/gripper/presets.py),
so the baseline closes the same hardware as the IPC simulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import schema
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.mujoco_baseline.params import MujocoParams


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
                f"of the {self.name} gripper's jaws; lower {{0}} or {{1}}",
                settings=[
                    schema.setting(SimulationParams, "squeeze_force_n"),
                    schema.setting(MujocoParams, "grip_force_n"),
                ],
            )
        return force_n


def gripper_for(params: SimulationParams) -> GripperSpec:
    """The gripper of `params`: its preset's stroke, force limit and finger mass."""
    preset = params.preset
    return GripperSpec(
        name=str(preset.label),
        stroke_m=float(preset.stroke_m),
        max_force_n=float(preset.force_max_n),
        jaw_mass_kg=float(preset.finger_mass_kg),
    )
