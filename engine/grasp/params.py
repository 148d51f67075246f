"""Simulation parameters (SI units), each declared once with its unit, range, flag and widget.

See engine.schema for what is generated from the declarations (validation, CLI flags, the app's
parameter dock, CSV columns, session I/O).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from engine.constants import GRAVITY_M_S2 as GRAVITY_M_S2  # re-exported for old imports
from engine.errors import ParameterError
from engine.grasp.strength import DISTURB_CHOICES, OFF
from engine.gripper.pad_names import PAD_PRESETS
from engine.gripper.presets import (
    DEFAULT_GRIPPER,
    GRIPPER_FLAG,
    GRIPPERS,
    GripperPreset,
    gripper_preset,
)
from engine.schema import ParamSpec, check_fields, field_spec, param, to_dict

HOLD_MODES = ("force", "position")

OBJECT_STIFFNESS_PA = 1e8
"""Default orthogonality stiffness k of the object's affine body (Pa): Lan et al. 2022."""


class _GrippersValue:
    """The default of the fields a gripper preset sets (PRESET_FIELDS): the constructor puts the
    preset's value there (`__post_init__`); help texts show it as "the gripper's"."""

    def __repr__(self) -> str:
        return "the gripper's"

    __str__ = __repr__


GRIPPERS_VALUE: Any = _GrippersValue()
PRESET_FIELDS = {
    "open_width_m": "stroke_m",
    "closing_speed_m_s": "closing_speed_m_s",
    "pad": "pad",
    "finger_mass_kg": "finger_mass_kg",
}
"""The fields a gripper preset sets -> the GripperPreset attribute they take."""

_ADV = ParamSpec(unit="", help="", group="advanced")
_SOLVER = ParamSpec(unit="", help="", group="solver", widget="none")


@dataclass(frozen=True)
class SimulationParams:
    """Everything that defines one squeeze-lift simulation besides the scene and the grasp.

    Squeeze stop (`squeeze_stop()`): both pads' contact normal forces reach `squeeze_force_n`
    (N) if it is set; else both pad strain energies reach `psi_th_j` (J) and agree within
    `psi_balance_tol`, if it is set; else the forces reach the gripper's grip force. After the
    squeeze the jaws keep pressing with the force reached (`hold="force"`) or keep their
    separation (`hold="position"`, IPC-GraspSim).

    `SimulationParams()` is the default gripper (the YuMi); `SimulationParams(gripper=name)`
    another: the fields its preset sets (PRESET_FIELDS: opening, closing speed, pad, finger mass)
    take the preset's values unless given, so `SimulationParams(gripper="franka_hand")` opens
    80 mm and `SimulationParams(gripper="franka_hand", open_width_m=0.05)` 50 mm.
    `for_gripper(name, ...)` is the same, validated.
    """

    gripper: str = param(
        DEFAULT_GRIPPER,
        unit="",
        help="gripper hardware (engine/gripper/presets.py): sets the opening, closing speed, "
        "pad, finger mass and the grip force the squeeze stops at unless --psi-th or "
        "--squeeze-force is given; flags given explicitly win",
        choices=tuple(GRIPPERS),
        flag=GRIPPER_FLAG,
        label="Gripper",
        widget="combo",
        group="gripper",
    )
    hold: str = param(
        "force",
        unit="",
        help="after the squeeze: 'force' keeps pressing with the grip force reached, as "
        "force-controlled grippers do; 'position' freezes the plates' separation (IPC-GraspSim)",
        choices=HOLD_MODES,
        flag="--hold",
        label="Hold",
        widget="combo",
        group="gripper",
    )
    finger_mass_kg: float = param(
        GRIPPERS_VALUE,
        unit="kg",
        help="moving mass of each finger: the inertia of the force-controlled closing",
        low=1e-4,
        high=10.0,
        flag="--finger-mass",
        label="Finger mass",
        display_unit="g",
        display_scale=1e-3,
        step=5.0,
        decimals=0,
    )
    youngs_modulus_pa: float = param(
        1e8,
        unit="Pa",
        help="Young's modulus E of the pads (silicone 1e6-1e8 Pa; IPC-GraspSim uses 1e8 Pa)",
        low=1e4,
        high=1e12,
        flag="--E",
        label="E",
        widget="log",
        group="material",
    )
    poisson_ratio: float = param(
        0.45,
        _ADV,
        help="Poisson ratio of the pads (silicone rubber 0.45-0.49)",
        low=0.0,
        high=0.5,
        high_inclusive=False,
        flag="--nu",
        label="Poisson ratio ν",
        step=0.01,
    )
    pad_density_kg_m3: float = param(
        1000.0,
        _ADV,
        unit="kg/m^3",
        help="mass density of the pads (silicone about 1000-1200 kg/m^3)",
        low=10.0,
        high=25000.0,
        flag="--pad-density",
        label="Pad density",
        display_unit="kg/m³",
        step=50.0,
        decimals=0,
    )
    mu: float = param(
        0.4,
        unit="",
        help="Coulomb friction coefficient between pads and object (typical pads 0.3-1.0)",
        low=0.0,
        high=3.0,
        flag="--mu",
        label="Friction μ",
        group="material",
        step=0.05,
    )
    mu_ground: float | None = param(
        None,
        _ADV,
        help="Coulomb friction coefficient between the object and the ground",
        low=0.0,
        high=3.0,
        flag="--mu-ground",
        label="Ground μ",
        widget="optional",
        none_means="same as μ",
        step=0.05,
    )
    psi_th_j: float | None = param(
        None,
        unit="J",
        help="squeeze stop: strain energy of each pad that ends the squeeze (IPC-GraspSim's Psi_th)",
        low=1e-15,
        high=1.0,
        flag="--psi-th",
        label="Ψ_th",
        widget="log",
        group="stop",
        none_means="stop at the gripper's grip force (the Psi reached is reported)",
    )
    squeeze_force_n: float | None = param(
        None,
        unit="N",
        help="squeeze stop on this contact force per pad instead of Psi_th",
        low=0.0,
        low_inclusive=False,
        high=1000.0,
        flag="--squeeze-force",
        label="Closing force",
        group="stop",
        widget="optional",
        none_means="Psi_th if given, else the gripper's grip force",
        step=0.1,
    )
    psi_balance_tol: float = param(
        0.3,
        _SOLVER,
        help="squeeze balance: stop only when |Psi1 - Psi2| <= tol * max(Psi1, Psi2) (IPC-GraspSim 0.3)",
        low=0.0,
        low_inclusive=False,
        high=1.0,
        flag="--psi-balance-tol",
    )
    threshold_overshoot: float = param(
        0.25,
        _SOLVER,
        help="accept the squeeze when the stop quantity is in [th, (1 + x) th] (IPC-GraspSim 0.25)",
        low=0.0,
        low_inclusive=False,
        high=10.0,
        flag="--threshold-overshoot",
    )
    pad: str = param(
        GRIPPERS_VALUE,
        unit="",
        help="pad outline: the YuMi D-shaped 'rounded' pad or a 27.5 x 20 mm rectangle, 3 mm thick",
        choices=tuple(PAD_PRESETS),
        flag="--pad",
        label="Preset",
        widget="combo",
        group="pad",
    )
    pad_edge_length_m: float = param(
        0.003,
        unit="m",
        help="target tet edge length of the pad mesh (resolution); smaller is finer and slower",
        low=0.0005,
        high=0.02,
        flag="--pad-edge",
        label="Resolution",
        group="pad",
        display_unit="mm",
        display_scale=1e-3,
        step=0.5,
        decimals=2,
    )
    pad_layers: int | None = param(
        None,
        _SOLVER,
        help="tet layers through the pad thickness",
        low=1,
        high=20,
        flag="--pad-layers",
        none_means="from the edge length",
    )
    open_width_m: float = param(
        GRIPPERS_VALUE,
        _SOLVER,
        unit="m",
        help="distance between the pads' contact faces when open (the gripper's stroke; YuMi 50 mm)",
        low=0.0,
        low_inclusive=False,
        high=0.5,
        flag="--open-width",
    )
    auto_open_m: float = param(
        0.0,
        _SOLVER,
        unit="m",
        help="if the open jaws touch the object, open up to this much wider in 1 mm steps until "
        "they clear it by 1 mm, as IPC-GraspSim does (0: such a trial fails)",
        low=0.0,
        high=0.2,
        flag="--auto-open",
    )
    time_step_s: float = param(
        0.01,
        _ADV,
        unit="s",
        help="implicit Euler time step; smaller is more accurate and slower",
        low=1e-6,  # 1 us: a trial's 2000 steps would cover 2 ms; smaller underflows the physics
        high=0.1,
        flag="--time-step",
        label="Time step h",
        display_unit="ms",
        display_scale=1e-3,
        step=1.0,
        decimals=1,
    )
    closing_speed_m_s: float = param(
        GRIPPERS_VALUE,
        _ADV,
        unit="m/s",
        help="maximum speed of each plate while closing (YuMi: 25 mm/s)",
        low=0.0,
        low_inclusive=False,
        high=1.0,
        flag="--closing-speed",
        label="Closing speed",
        display_unit="mm/s",
        display_scale=1e-3,
        step=10.0,
        decimals=0,
    )
    lift_speed_m_s: float = param(
        0.1,
        _ADV,
        unit="m/s",
        help="speed of the plates while lifting",
        low=0.0,
        low_inclusive=False,
        high=1.0,
        flag="--lift-speed",
        label="Lift speed",
        display_unit="mm/s",
        display_scale=1e-3,
        step=10.0,
        decimals=0,
    )
    lift_ramp_s: float = param(
        0.05,
        _SOLVER,
        unit="s",
        help="the lift accelerates to the lift speed over this time (0.05 s to 0.1 m/s: 2 m/s^2)",
        low=0.0,
        high=1.0,
        flag="--lift-ramp",
    )
    lift_height_m: float = param(
        0.02,
        _ADV,
        unit="m",
        help="how high the object's lowest point must rise for success (IPC-GraspSim: 20 mm)",
        low=0.0,
        low_inclusive=False,
        high=0.5,
        flag="--lift-height",
        label="Lift height",
        display_unit="mm",
        display_scale=1e-3,
        step=1.0,
        decimals=1,
    )
    slip_tolerance_m: float = param(
        0.005,
        _ADV,
        unit="m",
        help="success test: the most the object may slip along either pad over the lift and "
        "hold and still count as held (the lift ends early beyond it)",
        low=0.0,
        low_inclusive=False,
        high=0.1,
        flag="--slip-tolerance",
        label="Slip tolerance",
        display_unit="mm",
        display_scale=1e-3,
        step=0.5,
        decimals=1,
    )
    rotation_tolerance_rad: float = param(
        math.radians(10.0),
        _ADV,
        unit="rad",
        help="success test: the most the object may turn in the grip over the lift and hold "
        "and still count as held (the lift ends early beyond it; 0.1745 rad is 10 deg)",
        low=0.0,
        low_inclusive=False,
        high=math.pi,
        flag="--rotation-tolerance",
        label="Turn tolerance",
        display_unit="°",
        display_scale=math.pi / 180.0,
        step=1.0,
        decimals=1,
    )
    disturb: str = param(
        OFF,
        _ADV,
        help="after the hold, raise a force (or torque) on the object's centre of mass in load "
        "steps until it leaves the grip, per direction of the grasp frame ('all': along, "
        "across, up, down, twist, tilt, turn; engine.grasp.disturbance); each direction costs "
        "2-8 time steps",
        choices=DISTURB_CHOICES,
        flag="--disturb",
        label="Disturbance",
        widget="combo",
    )
    hold_time_s: float = param(
        0.05,
        _SOLVER,
        unit="s",
        help="hold at the lift height for this long before success is judged",
        low=0.0,
        high=10.0,
        flag="--hold-time",
    )
    dhat_m: float = param(
        1e-4,
        _SOLVER,
        unit="m",
        help="barrier activation distance d-hat: closer than this counts as touching",
        low=1e-8,  # 10 nm: ipctk works with squared distances, and pads deform by ~0.1 um
        high=0.005,
        flag="--dhat",
    )
    eps_v_m_s: float = param(
        1e-3,
        _SOLVER,
        unit="m/s",
        help="friction's static-to-dynamic velocity threshold (IPC's eps_v)",
        low=0.0,
        low_inclusive=False,
        high=1.0,
        flag="--eps-v",
    )
    object_stiffness_pa: float | None = param(
        None,
        _SOLVER,
        unit="Pa",
        help="orthogonality stiffness of the rigid object's affine body",
        low=0.0,
        low_inclusive=False,
        high=1e16,
        flag="--object-stiffness",
        none_means=f"{OBJECT_STIFFNESS_PA:g} Pa (the affine body dynamics paper's), whatever the pads' E",
    )
    newton_tol_m: float = param(
        1e-7,
        _SOLVER,
        unit="m",
        help="Newton stops when its step moves no vertex by more than this (and no force "
        "residual exceeds the force tolerance)",
        low=0.0,
        low_inclusive=False,
        high=1e-3,
        flag="--newton-tol",
    )
    newton_force_tol_n: float = param(
        1e-3,
        _SOLVER,
        unit="N",
        help="Newton also needs every force residual (per pad vertex component, per object "
        "DOF) below this: behind a stiff contact a tiny step can hide newtons",
        low=0.0,
        low_inclusive=False,
        high=1e3,
        flag="--newton-force-tol",
    )
    max_newton_iterations: int = param(
        200,
        _SOLVER,
        help="Newton iterations per time step before the step counts as failed",
        low=1,
        high=100_000,
        flag="--max-newton-iterations",
    )
    max_steps: int = param(
        2000,
        _SOLVER,
        help="time steps per trial before it is stopped",
        low=1,
        high=10_000_000,
        flag="--max-steps",
    )

    def __post_init__(self) -> None:
        """The fields left to the gripper (PRESET_FIELDS) take its preset's values (an unknown
        gripper: the default one's, and `validate` names the gripper)."""
        known = isinstance(self.gripper, str) and self.gripper in GRIPPERS
        preset = GRIPPERS[self.gripper if known else DEFAULT_GRIPPER]
        for name, attribute in PRESET_FIELDS.items():
            if getattr(self, name) is GRIPPERS_VALUE:
                object.__setattr__(self, name, getattr(preset, attribute))

    @classmethod
    def for_gripper(cls, gripper: str = DEFAULT_GRIPPER, **given: Any) -> SimulationParams:
        """The parameters of a gripper preset, with `given` fields winning (validated)."""
        return cls(gripper=gripper_preset(gripper).name, **given).validate()

    @classmethod
    def from_values(cls, **given: Any) -> SimulationParams:
        """Parameters from explicitly given values: the gripper's preset fills the rest."""
        return cls.for_gripper(given.pop("gripper", DEFAULT_GRIPPER), **given)

    def with_gripper(self, gripper: str) -> SimulationParams:
        """These parameters on another gripper: its stroke, speed, pad and finger mass; a force
        stop outside its range falls back to its grip force."""
        preset = gripper_preset(gripper)
        force = self.squeeze_force_n
        if force is not None and not preset.force_min_n <= force <= preset.force_max_n:
            force = None
        values = {name: getattr(preset, attribute) for name, attribute in PRESET_FIELDS.items()}
        return replace(self, gripper=preset.name, squeeze_force_n=force, **values).validate()

    @property
    def preset(self) -> GripperPreset:
        """The gripper hardware these parameters simulate."""
        return gripper_preset(self.gripper)

    def squeeze_stop(self) -> tuple[str, float]:
        """("force", N per pad) or ("psi", J): what ends the squeeze.

        A force given wins; else Psi_th if given; else the gripper's grip force.
        """
        if self.squeeze_force_n is not None:
            return "force", self.squeeze_force_n
        if self.psi_th_j is not None:
            return "psi", self.psi_th_j
        return "force", self.preset.force_max_n

    @property
    def squeeze_force_cap_n(self) -> float:
        """The most a force-controlled squeeze presses with per jaw (N): its force stop, or for
        a Psi stop the gripper's maximum force."""
        stop, threshold = self.squeeze_stop()
        return threshold if stop == "force" else self.preset.force_max_n

    def validate(self) -> SimulationParams:
        """Raise ParameterError naming the first bad field and its valid range; return self."""
        check_fields(self)
        if self.squeeze_force_n is not None:
            self.preset.check_force(self.squeeze_force_n)
        if self.dhat_m > 0.05 * self.open_width_m:
            raise ParameterError(
                f"dhat_m={self.dhat_m} m is too large for a {self.open_width_m} m opening; use ~1e-4 m"
            )
        _check_reach(self, "closing_speed_m_s", 0.5 * self.open_width_m, "close the jaws")
        _check_reach(self, "lift_speed_m_s", self.lift_height_m, "lift the object")
        return self

    @property
    def ground_mu(self) -> float:
        """The object-ground friction coefficient in effect."""
        return self.mu if self.mu_ground is None else self.mu_ground

    @property
    def effective_object_stiffness_pa(self) -> float:
        """The affine body's orthogonality stiffness in effect (Pa)."""
        if self.object_stiffness_pa is not None:
            return self.object_stiffness_pa
        # The affine body dynamics paper's 1e8 Pa (Lan et al. 2022): its energy k V |A^T A - I|^2
        # resists a uniaxial strain like a modulus of 8 k, so a 20 N grip compresses the 3 cm
        # cube by under 1 um (strain 3e-5) and the YuMi's pads decide the contact. It is the
        # object's rigidity, so it does not follow the pads' E: max(1e8, E) made stiff pads slow
        # (E = 1e11, REACH grasps 0/2/12/17: 1833 Newton iterations against 813, the same
        # outcomes, grip forces and lift heights), and 1e10 (the former 100 E) made Newton crawl
        # while a gripped object rotates.
        return OBJECT_STIFFNESS_PA

    def to_dict(self) -> dict:
        """Every field by name (SI units)."""
        return to_dict(self)


def _check_reach(p: SimulationParams, name: str, distance_m: float, what: str) -> None:
    """A speed that cannot cover `distance_m` within max_steps time steps is refused with
    the speeds that can (each plate travels half the opening; the lift its height)."""
    speed = getattr(p, name)
    slowest = distance_m / (p.max_steps * p.time_step_s)
    if speed >= slowest:
        return
    d = field_spec(SimulationParams, name)
    steps = field_spec(SimulationParams, "max_steps").spec.flag
    raise ParameterError(
        f"{name} ({d.spec.flag}) = {speed:g} m/s cannot {what} within the trial's step "
        f"limit: {distance_m * 1e3:g} mm at {speed:g} m/s takes {distance_m / speed:.3g} s, "
        f"and {p.max_steps} steps of {p.time_step_s:g} s are "
        f"{p.max_steps * p.time_step_s:g} s. Give a speed in [{slowest:.3g}, "
        f"{d.spec.high:g}] m/s, or more steps ({steps})"
    )
