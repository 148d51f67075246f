"""Parallel-jaw grippers as real hardware: stroke, closing speed, force range, pads.

A preset is a named set of values of the simulation's parameters (engine.grasp.params): picking
`--gripper franka_hand` sets the opening, the closing speed, the squeeze force and the pad, and
any flag given explicitly still wins. Each number states where it comes from; numbers that are
not published are marked as estimates.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import ParameterError, Setting

GRIPPER_FLAG = "--gripper"


def gripper_setting(name: str | None = None, note: str = "") -> Setting:
    """The gripper preset an error points to (engine.errors.Setting)."""
    return Setting("gripper", GRIPPER_FLAG, name, note)


@dataclass(frozen=True)
class GripperPreset:
    """One gripper model (SI units). `force_*_n` is the grip force per jaw."""

    name: str
    label: str
    stroke_m: float  # largest opening between the jaws' contact faces
    closing_speed_m_s: float  # speed of each jaw while closing
    force_min_n: float  # smallest force the controller can hold
    force_max_n: float  # largest continuous grip force
    pad: str  # pad outline preset (engine.gripper.pad_geometry.PAD_PRESETS)
    finger_mass_kg: float  # moving mass of one finger (its closing inertia)
    sources: str  # where the numbers come from

    def check_force(self, force_n: float) -> None:
        """Raise ParameterError if the gripper cannot apply `force_n` per jaw."""
        if not self.force_min_n <= force_n <= self.force_max_n:
            raise ParameterError(
                f"a squeeze force of {force_n:g} N is outside the {self.label}'s range "
                f"{self.force_min_n:g}-{self.force_max_n:g} N per jaw; choose a force in that "
                "range or another gripper ({0})",
                settings=[gripper_setting()],
            )

    def check_width(self, object_width_m: float) -> None:
        """Raise ParameterError if an object of this width cannot fit between the open jaws."""
        if object_width_m >= self.stroke_m:
            wider = [g for g in GRIPPERS.values() if g.stroke_m > object_width_m]
            hint = "; no preset gripper opens that wide"
            if wider:
                hint = (
                    f" or choose a gripper with a larger stroke ({', '.join(['{}'] * len(wider))})"
                )
            raise ParameterError(
                f"the object is {object_width_m * 1e3:.1f} mm wide along the closing axis, but the "
                f"{self.label} opens only {self.stroke_m * 1e3:.0f} mm; grasp it along a narrower "
                f"axis{hint}",
                settings=[gripper_setting(g.name, f"{g.stroke_m * 1e3:.0f} mm") for g in wider],
            )


GRIPPERS: dict[str, GripperPreset] = {
    p.name: p
    for p in (
        GripperPreset(
            name="yumi",
            label="ABB YuMi smart gripper",
            stroke_m=0.050,
            closing_speed_m_s=0.025,
            force_min_n=0.01,
            force_max_n=20.0,
            pad="rounded",
            finger_mass_kg=0.02,
            sources=(
                "ABB IRB 14000 smart gripper product specification: 0-50 mm stroke (25 mm per "
                "finger), 20 N maximum grip force, 25 mm/s (its smallest settable force is not "
                "published: 0.01 N assumed); D-shaped silicone pads of the REACH "
                "data set (../shared/data/reach_cube/round_pad.obj); finger mass estimated"
            ),
        ),
        GripperPreset(
            name="franka_hand",
            label="Franka Hand",
            stroke_m=0.080,
            closing_speed_m_s=0.05,
            force_min_n=1.0,
            force_max_n=70.0,
            pad="rectangular",
            finger_mass_kg=0.03,
            sources=(
                "Franka Emika Hand datasheet: 80 mm stroke, 70 N continuous (140 N peak) grip "
                "force, 50 mm/s per finger; fingertip pad approximated by the 27.5 x 20 mm "
                "rectangular pad; finger mass estimated"
            ),
        ),
        GripperPreset(
            name="robotiq_2f85",
            label="Robotiq 2F-85",
            stroke_m=0.085,
            closing_speed_m_s=0.15,
            force_min_n=20.0,
            force_max_n=235.0,
            pad="rectangular",
            finger_mass_kg=0.05,
            sources=(
                "Robotiq 2F-85 instruction manual: 85 mm stroke, 20-235 N grip force, "
                "20-150 mm/s; parallel-mode fingertip pads approximated by the rectangular pad; "
                "finger mass estimated"
            ),
        ),
    )
}
"""The gripper presets by name."""

DEFAULT_GRIPPER = "yumi"


def gripper_preset(name: str) -> GripperPreset:
    """The preset called `name`; ParameterError lists the known ones."""
    try:
        return GRIPPERS[name]
    except KeyError:
        raise ParameterError(
            f"unknown gripper {name!r}; choose one of {', '.join(GRIPPERS)}"
        ) from None
