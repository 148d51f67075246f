"""The wrench-resistance LP shared by the Soft Point, REACH and 6DFC models.

Each jaw j contributes a convex set of wrenches {G_j alpha_j : alpha_j >= 0, 1^T alpha_j <= b_j}
(a friction cone with a force budget, or the convex hull of vertices and 0 with b_j = 1). The
margin is the largest s with -s w_ext in the Minkowski sum of the sets:

    maximise s  s.t.  sum_j G_j alpha_j + s w_ext = 0,  alpha_j >= 0,  1^T alpha_j <= b_j.

The sum is never formed: one LP over the stacked generators decides it (design note 4.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

from engine.errors import SolverError


@dataclass(frozen=True)
class Margin:
    """One model's verdict on one pose: the load multiple s* the contacts can hold."""

    margin: float
    details: dict = field(default_factory=dict)


def torque_scale(points: np.ndarray, com: np.ndarray) -> float:
    """A length (m) that makes torque rows comparable to force rows (RMS moment arm)."""
    r = np.asarray(points, dtype=float).reshape(-1, 3) - com
    return max(float(np.sqrt(np.mean(np.sum(r * r, axis=1)))), 1e-6)


def max_load_scale(
    generators: list[np.ndarray], budgets: list[float], w_ext: np.ndarray, length_m: float
) -> tuple[float, list[np.ndarray]]:
    """The margin s* and the generator weights alpha_j of the LP in the module docstring.

    generators: per jaw (6, m_j) wrench columns [f; tau] (tau about the centre of mass).
    length_m: torque rows are divided by it (conditioning only; the answer does not change).
    """
    w = np.asarray(w_ext, dtype=float)
    w_norm = float(np.linalg.norm(w))
    if not (math.isfinite(w_norm) and w_norm > 0):
        raise SolverError(f"external wrench must be finite and non-zero (got {w.tolist()})")
    row = np.array([1.0, 1.0, 1.0, 1.0 / length_m, 1.0 / length_m, 1.0 / length_m])
    # alpha_j = b_j beta_j puts every weight in [0, 1]; s = s_n / |w| makes the load unit size.
    cols = [
        np.asarray(g, dtype=float) * b * row[:, None]
        for g, b in zip(generators, budgets, strict=True)
    ]
    sizes = [c.shape[1] for c in cols]
    a_eq = np.hstack([*cols, (w * row / w_norm)[:, None]])
    scale = max(float(np.abs(a_eq).max()), 1e-300)
    n = a_eq.shape[1]
    # Budget rows: one per jaw over its own columns (dense: the LP is tiny).
    a_ub = np.zeros((len(sizes), n))
    a_ub[np.repeat(np.arange(len(sizes)), sizes), np.arange(n - 1)] = 1.0
    cost = np.zeros(n)
    cost[-1] = -1.0
    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.ones(len(sizes)),
        A_eq=a_eq / scale,
        b_eq=np.zeros(6),
        bounds=(0, None),
        method="highs",
        # Six rows and a few hundred columns: presolve costs more than it saves (2x here).
        options={"presolve": False},
    )
    if res.status == 3:
        return math.inf, [np.full(m, math.nan) for m in sizes]
    if res.status != 0 or res.x is None:
        raise SolverError(f"HiGHS did not solve the resistance LP: {res.message}")
    x = res.x
    alphas, start = [], 0
    for m, b in zip(sizes, budgets, strict=True):
        alphas.append(x[start : start + m] * b)
        start += m
    return float(x[-1]) / w_norm, alphas
