"""Linearising a fitted limit surface by hypercube ray casting (Eq. 15-16), and fit errors (Eq. 14)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

import numpy as np


class LimitSurface(Protocol):
    """A fitted limit surface f(x) = 1 in normalised wrench coordinates."""

    def value(self, x: np.ndarray) -> np.ndarray:
        """f at the rows of x (k, d); 1 on the surface."""

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """(k, d) gradient of f at the rows of x, the twist direction there."""

    def ray_points(self, directions: np.ndarray) -> np.ndarray:
        """(k, d) points where the rays from 0 along `directions` cross f = 1."""


def hypercube_directions(dim: int, resolution: int = 1) -> np.ndarray:
    """Points on the boundary of [-1, 1]^dim on a grid of step 1/resolution.

    (2m+1)^d - (2m-1)^d points for resolution m: 3^6 - 1 = 728 in 6-D at m = 1, 26 in 3-D.
    """
    m = int(resolution)
    grid = np.array(list(itertools.product(range(-m, m + 1), repeat=dim)), dtype=float) / m
    return grid[np.abs(grid).max(axis=1) == 1.0]


def linearize(surface: LimitSurface, dim: int, resolution: int = 1) -> np.ndarray:
    """(M,dim) vertices s_hat_m on f = 1 along the hypercube rays (Eq. 15), NaN rows dropped.

    Both models are homogeneous (degree 2 and 4), so the ray parameter has a closed form and
    the paper's Newton iteration is not needed.
    """
    pts = surface.ray_points(hypercube_directions(dim, resolution))
    return pts[np.isfinite(pts).all(axis=1)]


def denormalize(points: np.ndarray, w_max: np.ndarray, active: np.ndarray) -> np.ndarray:
    """(M,6) physical wrenches s_m = s_hat_m o w_max, zero in the inactive components (Eq. 16)."""
    out = np.zeros((len(points), 6))
    out[:, active] = points * w_max[active]
    return out


@dataclass(frozen=True)
class FitErrors:
    """How well a limit surface matches the sampled wrenches (normalised units)."""

    wrench_error: float  # Eq. 14: mean |f(w_hat_i) - 1|
    wrench_error_max: float
    twist_angle_deg: float  # mean angle between grad f and the sampled twist normal
    samples: int

    def as_dict(self) -> dict:
        """The errors as a plain dict (normalised units, degrees), for JSON."""
        return {
            "wrench_error": self.wrench_error,
            "wrench_error_max": self.wrench_error_max,
            "twist_angle_deg": self.twist_angle_deg,
            "samples": self.samples,
        }


def fitting_errors(surface: LimitSurface, wrenches: np.ndarray, normals: np.ndarray) -> FitErrors:
    """Eq. 14 and the twist-direction error over all samples (rows of the normalised wrenches)."""
    w = np.atleast_2d(wrenches)
    err = np.abs(surface.value(w) - 1.0)
    g = surface.gradient(w)
    gn = np.linalg.norm(g, axis=1) * np.linalg.norm(normals, axis=1)
    ok = gn > 0
    cosine = np.clip(np.sum(g[ok] * normals[ok], axis=1) / gn[ok], -1.0, 1.0)
    angle = float(np.degrees(np.arccos(cosine)).mean()) if ok.any() else float("nan")
    return FitErrors(float(err.mean()), float(err.max()), angle, len(w))
