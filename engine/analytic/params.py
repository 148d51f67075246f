"""Parameters of the analytic grasp models (SI units) and the pad outlines they use.

Defaults follow the REACH configuration (area_contact_generator.yaml: mu 0.3, closing force
20 N, effective silicone depth 5.296 mm) and the YuMi gripper (50 mm opening, 10 mm finger
radius); the perturbation sigmas are IPC-GraspSim's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from engine.errors import ParameterError
from engine.gripper.pad_geometry import PAD_PRESETS, PadOutline, pad_outline

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
_REACH_HEXAGON = np.array(
    [[-1.75, -1.0], [0.5, -1.0], [1.0, -0.5], [1.0, 0.5], [0.5, 1.0], [-1.75, 1.0]]
)
_PAD_THICKNESS_M = 0.003


def reach_hexagon() -> PadOutline:
    """The REACH hexagonal approximation of the YuMi D-pad (525 mm^2)."""
    return PadOutline("reach_hexagon", _REACH_HEXAGON * _REACH_RADIUS_M, _PAD_THICKNESS_M)


@dataclass(frozen=True)
class AnalyticParams:
    """Everything the analytic models need besides the object and the grasp."""

    mu: float = 0.3
    closing_force_n: float = 20.0  # per jaw
    pad: str = "rounded"
    # Chord length of the rounded pad's tip arc. 3 mm gives the simulator's pad and the real
    # round_pad.obj (16 segments, 506.07 mm^2); 1 mm gives 32 segments (506.83 mm^2).
    pad_edge_length_m: float = 0.003
    element_size_m: float = 0.002  # longest contact-element edge (coarse faces are bisected)
    friction_cell_m: float = 0.0015  # REACH / exact solve per cell of elements; 0: per element
    silicone_depth_m: float = 0.005296  # REACH's effective depth (the physical layer is 3 mm)
    open_width_m: float = 0.05
    cone_edges: int = 8
    torsion_model: str = "disc"  # disc: (2/3) mu r_f F; dexnet: pi r_f^2 mu; none: hard point
    finger_radius_m: float = 0.01
    translation_sigma_m: float = 0.001
    rotation_sigma_rad: float = 0.003
    twist_samples: int = 200  # REACH num_dir_smpls
    ellipsoid_resolution: int = 1  # 6DFC hypercube rays: (2m+1)^6 - (2m-1)^6 = 728 for m = 1
    sixdls_variant: str = "6dls_ellipsoid"  # the 6dls model's limit surface (Table IV)

    def validate(self) -> AnalyticParams:
        """Raise ParameterError naming the first bad field and its valid range; return self."""
        for name, value in asdict(self).items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ParameterError(f"{name} is {value}; give a finite number")
        _check(self.mu >= 0, "mu", self.mu, ">= 0 (typical 0.3-1.0)")
        for name in (
            "closing_force_n",
            "pad_edge_length_m",
            "silicone_depth_m",
            "open_width_m",
            "finger_radius_m",
            "element_size_m",
        ):
            _check(getattr(self, name) > 0, name, getattr(self, name), "> 0")
        for name in ("translation_sigma_m", "rotation_sigma_rad", "friction_cell_m"):
            _check(getattr(self, name) >= 0, name, getattr(self, name), ">= 0")
        _check(self.open_width_m <= 1.0, "open_width_m", self.open_width_m, "in (0, 1] m")
        _check(
            self.silicone_depth_m < self.open_width_m,
            "silicone_depth_m",
            self.silicone_depth_m,
            f"> 0 and < open_width_m = {self.open_width_m}",
        )
        _check_int(self.cone_edges, "cone_edges", 3, 64)
        _check_int(self.twist_samples, "twist_samples", 12, 100_000)
        _check_int(self.ellipsoid_resolution, "ellipsoid_resolution", 1, 2)
        if self.torsion_model not in TORSION_MODELS:
            raise ParameterError(
                f"torsion_model must be one of {', '.join(TORSION_MODELS)} "
                f"(got {self.torsion_model!r})"
            )
        if self.sixdls_variant not in SIXDLS_VARIANTS:
            raise ParameterError(
                f"sixdls_variant must be one of {', '.join(SIXDLS_VARIANTS)} "
                f"(got {self.sixdls_variant!r})"
            )
        if self.pad not in ANALYTIC_PADS:
            raise ParameterError(
                f"pad must be one of {', '.join(ANALYTIC_PADS)} (got {self.pad!r})"
            )
        return self

    def outline(self) -> PadOutline:
        """The pad outline in the (a, b) pad frame."""
        if self.pad == "reach_hexagon":
            return reach_hexagon()
        return pad_outline(self.pad, self.pad_edge_length_m)

    def torsion_coefficient_m(self) -> float:
        """Torsion per unit normal force (m) of a soft point contact."""
        r = self.finger_radius_m
        if self.torsion_model == "disc":
            return 2.0 / 3.0 * self.mu * r  # uniform pressure on a disc of radius r
        if self.torsion_model == "dexnet":
            return math.pi * r * r * self.mu  # Dex-Net's term (units m^2, kept for comparison)
        return 0.0

    def to_dict(self) -> dict:
        """The parameters as a plain dict (field name -> value, SI units), for JSON."""
        return asdict(self)


def _check(ok: bool, name: str, value: object, valid: str) -> None:
    if not ok:
        raise ParameterError(f"{name} must be {valid} (got {value})")


def _check_int(value: object, name: str, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= value <= hi:
        raise ParameterError(f"{name} must be an integer in [{lo}, {hi}] (got {value!r})")
