"""Parameters of the analytic grasp models (SI units) and the pad outlines they use.

Defaults follow the REACH configuration (area_contact_generator.yaml: mu 0.3, closing force
20 N, effective silicone depth 5.296 mm) and the YuMi gripper (50 mm opening, 10 mm finger
radius); the perturbation sigmas are IPC-GraspSim's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import ParameterError
from engine.gripper.pad_names import PAD_PRESETS
from engine.schema import check_fields, param, to_dict

if TYPE_CHECKING:  # numpy loads with the outlines, not with the flags (`ipcgrasp CMD --help`)
    from engine.gripper.pad_geometry import PadOutline

TORSION_MODELS = ("disc", "dexnet", "none")
ANALYTIC_PADS = (*PAD_PRESETS, "reach_hexagon")
# The 6dls model's variants (6DLS Table IV). Defined here, not in engine.analytic.sixdls, so
# validating parameters does not import cvxpy; engine.analytic.sixdls.variants uses this tuple.
SIXDLS_VARIANTS = (
    "6dls_ellipsoid",
    "6dls_quartic",
    "3dls_nonplanar_ellipsoid",
    "3dls_nonplanar_quartic",
    "3dls_planar_ellipsoid",
    "3dls_planar_quartic",
    "6dfw",
)

# REACH pad outline, area_contact_generator.yaml "geometry" in units of radius = 0.01 m, in the
# same (a, b) pad frame as pad_geometry (a towards the fingertip, b lateral), counter-clockwise.
_REACH_RADIUS_M = 0.01
_REACH_HEXAGON = (
    (-1.75, -1.0),
    (0.5, -1.0),
    (1.0, -0.5),
    (1.0, 0.5),
    (0.5, 1.0),
    (-1.75, 1.0),
)
_PAD_THICKNESS_M = 0.003


def reach_hexagon() -> PadOutline:
    """The REACH hexagonal approximation of the YuMi D-pad (525 mm^2)."""
    import numpy as np

    from engine.gripper.pad_geometry import PadOutline

    return PadOutline("reach_hexagon", np.array(_REACH_HEXAGON) * _REACH_RADIUS_M, _PAD_THICKNESS_M)


@dataclass(frozen=True)
class AnalyticParams:
    """Everything the analytic models need besides the object and the grasp (engine.schema
    declarations: unit, range, flag and help of each field)."""

    mu: float = param(
        0.3,
        unit="",
        help="pad-object Coulomb friction coefficient (REACH: 0.3; typical pads 0.3-1.0)",
        low=0.0,
        high=3.0,
        flag="--mu",
    )
    closing_force_n: float = param(
        20.0,
        unit="N",
        help="grip force per jaw (REACH: 20 N, the YuMi's maximum)",
        low=0.0,
        low_inclusive=False,
        high=10_000.0,
        flag="--closing-force",
    )
    pad: str = param(
        "rounded",
        unit="",
        help="pad outline (rounded: the YuMi D-pad; reach_hexagon: REACH's approximation)",
        choices=ANALYTIC_PADS,
        flag="--pad",
    )
    # 3 mm gives the simulator's pad and the real round_pad.obj (16 segments, 506.07 mm^2);
    # 1 mm gives 32 segments (506.83 mm^2).
    pad_edge_length_m: float = param(
        0.003,
        unit="m",
        help="chord length of the rounded pad's tip arc",
        low=0.0,
        low_inclusive=False,
        high=0.02,
        flag="--pad-edge",
    )
    element_size_m: float = param(
        0.002,
        unit="m",
        help="longest contact-element edge (coarse faces are bisected)",
        low=0.0,
        low_inclusive=False,
        high=0.05,
        flag="--element-size",
    )
    friction_cell_m: float = param(
        0.0015,
        unit="m",
        help="REACH and exact models solve friction per cell of this size (0: per element)",
        low=0.0,
        high=0.05,
        flag="--friction-cell",
    )
    silicone_depth_m: float = param(
        0.005296,
        unit="m",
        help="depth pressed into the pad over which pressure grows linearly (REACH's "
        "effective 5.296 mm; the physical layer is 3 mm)",
        low=0.0,
        low_inclusive=False,
        high=0.1,
        flag="--silicone-depth",
    )
    open_width_m: float = param(
        0.05,
        unit="m",
        help="jaw opening (YuMi: 50 mm)",
        low=0.0,
        low_inclusive=False,
        high=1.0,
        flag="--open-width",
    )
    cone_edges: int = param(
        8,
        unit="",
        help="edges of the linearised friction cone",
        low=3,
        high=64,
        flag="--cone-edges",
    )
    torsion_model: str = param(
        "disc",
        unit="",
        help="soft point torsion: disc (2/3) mu r F, dexnet pi r^2 mu, none (hard point)",
        choices=TORSION_MODELS,
        flag="--torsion-model",
    )
    finger_radius_m: float = param(
        0.01,
        unit="m",
        help="contact radius of the soft point model (YuMi finger: 10 mm)",
        low=0.0,
        low_inclusive=False,
        high=0.1,
        flag="--finger-radius",
    )
    translation_sigma_m: float = param(
        0.001,
        unit="m",
        help="standard deviation of the gripper-frame translation perturbation (IPC-GraspSim 1 mm)",
        low=0.0,
        high=0.05,
        flag="--translation-sigma",
    )
    rotation_sigma_rad: float = param(
        0.003,
        unit="rad",
        help="standard deviation of each gripper-frame rotation perturbation (IPC-GraspSim 0.003 rad)",
        low=0.0,
        high=0.5,
        flag="--rotation-sigma",
    )
    twist_samples: int = param(
        200,
        unit="",
        help="twist directions sampled by the REACH model (REACH num_dir_smpls)",
        low=12,
        high=100_000,
        flag="--twist-samples",
    )
    ellipsoid_resolution: int = param(
        1,
        unit="",
        help="6DFC hypercube rays: (2m+1)^6 - (2m-1)^6, 728 for m = 1",
        low=1,
        high=2,
        flag="--ellipsoid-resolution",
    )
    sixdls_variant: str = param(
        "6dls_ellipsoid",
        unit="",
        help="limit-surface model of the 6dls model (6DLS paper, Table IV)",
        choices=SIXDLS_VARIANTS,
        flag="--sixdls-variant",
    )

    def validate(self) -> AnalyticParams:
        """Raise ParameterError naming the first bad field and its valid range; return self."""
        check_fields(self)
        if self.silicone_depth_m >= self.open_width_m:
            raise ParameterError(
                f"silicone_depth_m must be > 0 and < open_width_m = {self.open_width_m} "
                f"(got {self.silicone_depth_m})"
            )
        return self

    def outline(self) -> PadOutline:
        """The pad outline in the (a, b) pad frame."""
        if self.pad == "reach_hexagon":
            return reach_hexagon()
        from engine.gripper.pad_geometry import pad_outline

        return pad_outline(self.pad, self.pad_edge_length_m)

    def torsion_coefficient_m(self) -> float:
        """Torsion per unit normal force (m) of a soft point contact."""
        r = self.finger_radius_m
        if self.torsion_model == "disc":
            return 2.0 / 3.0 * self.mu * r  # uniform pressure on a disc of radius r
        if self.torsion_model == "dexnet":
            return math.pi * r * r * self.mu  # Dex-Net's term (units m^2, kept for comparison)
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        """The parameters as a plain dict (field name -> value, SI units), for JSON."""
        return to_dict(self)


MAX_ROBUSTNESS_SAMPLES = 10_000
"""Most perturbed poses per analytic model and grasp (a REACH sample takes milliseconds to a
second: 10,000 are minutes to hours per grasp)."""


@dataclass(frozen=True)
class RobustnessSampling:
    """How many perturbed poses the analytic models evaluate per grasp (`--samples` of analyze
    and batch)."""

    samples: int = param(
        100,
        unit="",
        help="perturbation samples per analytic model",
        low=0,
        high=MAX_ROBUSTNESS_SAMPLES,
        flag="--samples",
    )
