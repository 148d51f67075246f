"""SOS-convex homogeneous quartic limit surface f2(x) = c^T m(x) = 1 (Eq. 11-13)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from engine.analytic.sixdls.conic import solve_with_clarabel, solved_value
from engine.analytic.sixdls.polynomials import (
    gradient_map,
    monomial_exponents,
    monomial_gradients,
    monomials,
    sos_convexity_maps,
)

_EVAL_CHUNK = 4096  # rows per monomial evaluation: bounds the (rows, L, d) temporary


@dataclass(frozen=True, eq=False)
class QuarticLS:
    """Quartic in normalised wrench coordinates with its SOS-convexity certificate."""

    coefficients: np.ndarray  # (L,) one per monomial_exponents(d) row
    gram: np.ndarray  # (d^2, d^2) PSD M with z^T Hess f z = (x kron z)^T M (x kron z)
    status: str = ""
    solve_time_s: float = 0.0

    @property
    def dim(self) -> int:
        """Dimension d of the normalised wrench space (gram is d^2 x d^2)."""
        return math.isqrt(len(self.gram))

    @property
    def exponents(self) -> np.ndarray:
        """(L, d) exponents of the quartic monomials, one row per coefficient."""
        return monomial_exponents(self.dim)

    def value(self, x: np.ndarray) -> np.ndarray:
        """f2 at the rows of x."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        out = np.empty(len(x))
        for s in range(0, len(x), _EVAL_CHUNK):
            out[s : s + _EVAL_CHUNK] = (
                monomials(x[s : s + _EVAL_CHUNK], self.exponents) @ self.coefficients
            )
        return out

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """grad f2 at the rows of x (the predicted twist direction)."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        d = x.shape[1]
        coef = gradient_map(d) @ self.coefficients  # (d, L3): grad f = m3(x) @ coef^T
        e3 = monomial_exponents(d, 3)
        out = np.empty(x.shape)
        for s in range(0, len(x), _EVAL_CHUNK):
            out[s : s + _EVAL_CHUNK] = monomials(x[s : s + _EVAL_CHUNK], e3) @ coef.T
        return out

    def hessian(self, x: np.ndarray) -> np.ndarray:
        """(d,d) Hessian at one point, from the Gram matrix: H_be = sum_ac x_a x_c M[(a,b),(c,e)]."""
        d = self.dim
        m4 = self.gram.reshape(d, d, d, d)  # [a, b, c, e]
        return np.einsum("a,abce,c->be", x, m4, x)

    def ray_points(self, directions: np.ndarray) -> np.ndarray:
        """Where rays from 0 meet f2 = 1: f2 is 4-homogeneous, so w = x f2(x)^(-1/4) (Eq. 15).

        Rays with f2 <= 0 (none for a strictly SOS-convex fit) are returned as NaN.
        """
        d = np.atleast_2d(np.asarray(directions, dtype=float))
        f = self.value(d)
        scale = np.full(len(d), np.nan)
        np.power(f, -0.25, out=scale, where=f > 0)
        return d * scale[:, None]


def fit_quartic(
    wrenches: np.ndarray,
    normals: np.ndarray | None = None,
    twist_weight: float = 0.0,
    regularization: float = 1e-4,
    min_eigenvalue: float = 1e-6,
) -> QuarticLS:
    """Fit c to normalised wrenches (K,d): minimise sum (c^T m(w_i) - 1)^2 (Eq. 13).

    Subject to V1 vec(M) = V2 c and M >= eps I (36 x 36 for d = 6), so f2 is SOS-convex and,
    with eps > 0, strictly positive away from 0 (f2(x) >= eps |x|^4 / 12). Optional extras as
    in fit_ellipsoid (`regularization` * ||c||_2).
    """
    w = np.asarray(wrenches, dtype=float)
    d = w.shape[1]
    exps = monomial_exponents(d)
    v1, v2 = sos_convexity_maps(d)
    c = cp.Variable(len(exps))
    gram = cp.Variable((d * d, d * d), symmetric=True)
    objective = cp.sum_squares(monomials(w, exps) @ c - 1.0)
    if regularization > 0:
        objective = objective + regularization * cp.norm(c, 2)
    if twist_weight > 0 and normals is not None:
        grads = monomial_gradients(w, exps)  # (K,d,L)
        s = cp.Variable(len(w), nonneg=True)
        g = cp.vstack([grads[:, j, :] @ c for j in range(d)]).T  # (K,d)
        gap = g - cp.multiply(cp.reshape(s, (len(w), 1), order="F"), np.asarray(normals))
        objective = objective + twist_weight * cp.sum(cp.norm(gap, 2, axis=1))
    constraints = [
        v1 @ cp.vec(gram, order="F") == v2 @ c,
        gram >> min_eigenvalue * np.eye(d * d),
    ]
    what = "quartic limit-surface fit"
    status, seconds = solve_with_clarabel(cp.Problem(cp.Minimize(objective), constraints), what)
    gram_value = solved_value(gram, what)
    return QuarticLS(solved_value(c, what), 0.5 * (gram_value + gram_value.T), status, seconds)
