"""Ellipsoidal limit surface f1(x) = x^T A x = 1 with A positive definite (Eq. 8-10)."""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from engine.analytic.sixdls.conic import solve_with_clarabel, solved_value


@dataclass(frozen=True, eq=False)
class EllipsoidLS:
    """Zero-centred ellipsoid in normalised wrench coordinates (d = number of active components)."""

    matrix: np.ndarray  # (d,d) symmetric positive definite
    status: str = ""
    solve_time_s: float = 0.0

    @property
    def dim(self) -> int:
        """Dimension d of the normalised wrench space (matrix is d x d)."""
        return len(self.matrix)

    def value(self, x: np.ndarray) -> np.ndarray:
        """f1 at the rows of x."""
        x = np.atleast_2d(x)
        return np.einsum("ki,ij,kj->k", x, self.matrix, x)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """grad f1 = 2 A x at the rows of x (the predicted twist direction)."""
        return 2.0 * np.atleast_2d(x) @ self.matrix

    def ray_points(self, directions: np.ndarray) -> np.ndarray:
        """Where the rays from 0 along `directions` meet f1 = 1 (closed form of Eq. 15)."""
        d = np.atleast_2d(directions)
        return d / np.sqrt(self.value(d))[:, None]


def fit_ellipsoid(
    wrenches: np.ndarray,
    normals: np.ndarray | None = None,
    twist_weight: float = 0.0,
    regularization: float = 1e-4,
    min_eigenvalue: float = 1e-6,
) -> EllipsoidLS:
    """Fit A to normalised wrenches (K,d): minimise sum (w_i^T A w_i - 1)^2 s.t. A >= eps I (Eq. 10).

    Optional extras: `twist_weight` * sum of || A w_i - s_i n_i || (s_i >= 0; off by default,
    as in Eq. 10) aligns the predicted twist with the sampled one (the normal n_i of the limit
    surface). `regularization` * ||A||_F (tiny by default) picks one minimiser when the samples
    do not determine all entries of A (coarse fine levels).
    """
    w = np.asarray(wrenches, dtype=float)
    d = w.shape[1]
    a = cp.Variable((d, d), symmetric=True)
    quad = np.einsum("ki,kj->kij", w, w).reshape(len(w), d * d, order="F")
    residual = quad @ cp.vec(a, order="F") - 1.0
    objective = cp.sum_squares(residual)
    if regularization > 0:
        objective = objective + regularization * cp.norm(a, "fro")
    if twist_weight > 0 and normals is not None:
        s = cp.Variable(len(w), nonneg=True)
        gap = w @ a - cp.multiply(cp.reshape(s, (len(w), 1), order="F"), np.asarray(normals))
        objective = objective + twist_weight * cp.sum(cp.norm(gap, 2, axis=1))
    problem = cp.Problem(cp.Minimize(objective), [a >> min_eigenvalue * np.eye(d)])
    what = "ellipsoid limit-surface fit"
    status, seconds = solve_with_clarabel(problem, what)
    a_value = solved_value(a, what)
    mat = 0.5 * (a_value + a_value.T)
    # Clarabel's tolerance can leave an eigenvalue a hair below eps; clip so A stays PD.
    vals, vecs = np.linalg.eigh(mat)
    mat = (vecs * np.maximum(vals, min_eigenvalue)) @ vecs.T
    return EllipsoidLS(mat, status, seconds)
