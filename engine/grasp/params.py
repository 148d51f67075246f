"""Simulation parameters (SI units) and their validation."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from engine.errors import ParameterError

GRAVITY_M_S2 = 9.81


@dataclass(frozen=True)
class SimulationParams:
    """Everything that defines one squeeze-lift simulation besides the scene and the grasp.

    Squeeze stop: both pad strain energies reach `psi_th_j` (J) and agree within
    `psi_balance_tol`, unless `squeeze_force_n` is set, in which case both pads' contact
    normal forces reach that value (N) instead.
    """

    youngs_modulus_pa: float = 1e8
    poisson_ratio: float = 0.45
    pad_density_kg_m3: float = 1000.0
    mu: float = 0.4  # pad-object (and pad-pad) friction coefficient
    mu_ground: float | None = None  # object-ground friction; None: same as mu
    psi_th_j: float = 1e-9
    squeeze_force_n: float | None = None
    psi_balance_tol: float = 0.3  # |Psi1 - Psi2| <= tol * max(Psi1, Psi2)
    threshold_overshoot: float = (
        0.25  # accept the squeeze when the stop quantity is in [th, (1+x) th]
    )
    pad: str = "rounded"
    pad_edge_length_m: float = 0.003
    pad_layers: int | None = None
    open_width_m: float = 0.050
    auto_open_m: float = (
        0.0  # if > 0, open up to this much wider to clear the object (IPC-GraspSim)
    )
    time_step_s: float = 0.01
    closing_speed_m_s: float = 0.1
    lift_speed_m_s: float = 0.1
    lift_ramp_s: float = 0.05  # the lift accelerates to lift_speed over this time (2 m/s^2)
    lift_height_m: float = 0.02
    slip_tolerance_m: float = 0.005  # plates may rise this much more than the object
    hold_time_s: float = 0.05
    dhat_m: float = 1e-4  # barrier activation distance
    eps_v_m_s: float = 1e-3  # friction static-to-dynamic velocity threshold
    object_stiffness_pa: float | None = None  # orthogonality stiffness; None: max(1e9, 100 E)
    newton_tol_m: float = 1e-9  # stop when the Newton step moves no vertex by more than this
    max_newton_iterations: int = 200
    max_steps: int = 2000

    def validate(self) -> SimulationParams:
        """Raise ParameterError naming the first bad field and its valid range; return self."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):
                raise ParameterError(f"{f.name} is {value}; give a finite number")

        def positive(name: str) -> None:
            if getattr(self, name) <= 0:
                raise ParameterError(f"{name} must be > 0 (got {getattr(self, name)})")

        for name in (
            "youngs_modulus_pa",
            "pad_density_kg_m3",
            "psi_th_j",
            "pad_edge_length_m",
            "open_width_m",
            "time_step_s",
            "closing_speed_m_s",
            "lift_speed_m_s",
            "lift_height_m",
            "slip_tolerance_m",
            "dhat_m",
            "eps_v_m_s",
            "newton_tol_m",
        ):
            positive(name)
        if self.youngs_modulus_pa <= 0:
            raise ParameterError("E must be > 0 Pa (silicone pads: 1e6-1e8 Pa)")
        if not -1.0 < self.poisson_ratio < 0.5:
            raise ParameterError(
                f"poisson_ratio must be in (-1, 0.5) (got {self.poisson_ratio}); rubber is ~0.45-0.49"
            )
        if self.mu < 0:
            raise ParameterError(f"mu must be >= 0 (got {self.mu}); typical pads are 0.3-1.0")
        if self.mu_ground is not None and (not math.isfinite(self.mu_ground) or self.mu_ground < 0):
            raise ParameterError(f"mu_ground must be a finite number >= 0 (got {self.mu_ground})")
        if self.squeeze_force_n is not None and (
            not math.isfinite(self.squeeze_force_n) or self.squeeze_force_n <= 0
        ):
            raise ParameterError(
                f"squeeze force must be a finite number > 0 N (got {self.squeeze_force_n})"
            )
        if self.psi_balance_tol <= 0 or self.threshold_overshoot <= 0:
            raise ParameterError("psi_balance_tol and threshold_overshoot must be > 0")
        if self.hold_time_s < 0 or self.lift_ramp_s < 0 or self.auto_open_m < 0:
            raise ParameterError("hold_time_s, lift_ramp_s and auto_open_m must be >= 0")
        if self.object_stiffness_pa is not None and not (
            math.isfinite(self.object_stiffness_pa) and self.object_stiffness_pa > 0
        ):
            raise ParameterError("object_stiffness_pa must be a finite number > 0")
        if self.max_newton_iterations < 1 or self.max_steps < 1:
            raise ParameterError("max_newton_iterations and max_steps must be >= 1")
        if self.dhat_m > 0.05 * self.open_width_m:
            raise ParameterError(
                f"dhat_m={self.dhat_m} m is too large for a {self.open_width_m} m opening; use ~1e-4 m"
            )
        return self

    @property
    def ground_mu(self) -> float:
        return self.mu if self.mu_ground is None else self.mu_ground

    @property
    def effective_object_stiffness_pa(self) -> float:
        if self.object_stiffness_pa is not None:
            return self.object_stiffness_pa
        return max(1e9, 100.0 * self.youngs_modulus_pa)

    def to_dict(self) -> dict:
        return asdict(self)
