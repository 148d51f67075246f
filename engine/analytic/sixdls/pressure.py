"""Contact pressure distributions: uniform, Hertzian (design note 5.1) and power law (Eq. 20).

Each is a callable giving the pressure (Pa) at points (..,3); normalisation to a total force
(the paper's p_hat with int p_hat dS = 1) is applied by whoever integrates it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UniformPressure:
    """p = value everywhere."""

    value: float = 1.0

    def __call__(self, points: np.ndarray) -> np.ndarray:
        return np.full(np.shape(points)[:-1], float(self.value))


@dataclass(frozen=True, eq=False)
class HertzPressure:
    """p = p0 sqrt(1 - d^2 / R^2), d the distance to `center` (to the line along `axis` if given).

    The 6DLS parametric surfaces use R = 1.8 max(radii) and the geometric centre of the surface
    (for a cylinder, its axis line through that centre), so p stays positive on the surface.
    """

    center: np.ndarray
    radius: float
    axis: np.ndarray | None = None
    p0: float = 1.0

    def __call__(self, points: np.ndarray) -> np.ndarray:
        d = np.asarray(points, dtype=float) - self.center
        if self.axis is not None:
            d = d - (d @ self.axis)[..., None] * self.axis
        return self.p0 * np.sqrt(np.clip(1.0 - np.sum(d * d, axis=-1) / self.radius**2, 0.0, None))


@dataclass(frozen=True, eq=False)
class PowerLawPressure:
    """Eq. 20: p = p0 [1 - (r / r_max)^k]^(1/k), r = |(x - center) . direction|.

    r is the distance from the object's centre along one direction across the contact (the
    y direction of the paper's Fig. 12); p vanishes at r_max and k -> inf is uniform.
    """

    center: np.ndarray
    direction: np.ndarray  # unit
    r_max: float
    k: float
    p0: float = 1.0

    def __call__(self, points: np.ndarray) -> np.ndarray:
        r = np.abs((np.asarray(points, dtype=float) - self.center) @ self.direction)
        ratio = np.clip(r / self.r_max, 0.0, 1.0)
        # (1 - t^k)^(1/k) in log form so k = 1e6 (near uniform) does not overflow.
        with np.errstate(divide="ignore"):
            inner = np.log1p(
                -np.minimum(np.exp(self.k * np.log(np.where(ratio > 0, ratio, 1.0))), 1.0)
            )
        inner = np.where(ratio > 0, inner, 0.0)
        return self.p0 * np.exp(inner / self.k)
