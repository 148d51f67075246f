"""Grasp wrench space test of Algorithm 2 (Eq. 17-19) as one LP; the GWS is never built.

Each contact n contributes the set conv({0} u {c_n,m}) with c_n,m = Ad_n (s_n,m + w_perp,n)
(Eq. 17: friction vertex plus normal wrench, moved from the contact frame to the object frame
about the centre of mass). The zero wrench lets a jaw push with any force up to its own; the
grasp wrench space is the Minkowski sum of the contact sets (Eq. 18). Instead of forming the
sum and its hull (729^2 points in 6-D for two jaws), test membership of s * (-w_ext) with an LP
over convex weights per contact: maximise s subject to sum_n sum_m lambda_n,m c_n,m = -s w_ext,
sum_m lambda_n,m <= 1, lambda >= 0. The margin s* >= 1 iff -w_ext is in the GWS (Eq. 19).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.optimize as so
import scipy.sparse as sp

from engine.errors import SolverError


@dataclass(frozen=True)
class MarginResult:
    """Largest multiple s* of the external load the grasp wrench space can cancel."""

    margin: float
    status: str
    time_s: float
    weights: tuple[np.ndarray, ...] = ()  # lambda per contact at the optimum


def gws_margin(contact_vertices: list[np.ndarray], w_ext: np.ndarray) -> MarginResult:
    """s* = max { s : -s w_ext in sum_n conv({0} u C_n) } with C_n the (M_n,6) vertex rows.

    inf when w_ext = 0. Torque rows are divided by a characteristic arm (max |tau| / max |f|
    over the vertices) so HiGHS sees rows of one scale; this does not change the solution.
    """
    start = time.perf_counter()
    w = np.asarray(w_ext, dtype=float).reshape(6)
    if not np.any(w):
        return MarginResult(float("inf"), "zero load", time.perf_counter() - start)
    blocks = [np.asarray(v, dtype=float).reshape(-1, 6) for v in contact_vertices]
    cols = np.concatenate(blocks) if blocks else np.zeros((0, 6))
    f_scale = max(float(np.abs(cols[:, :3]).max(initial=0.0)), float(np.abs(w[:3]).max()))
    t_scale = max(float(np.abs(cols[:, 3:]).max(initial=0.0)), float(np.abs(w[3:]).max()))
    arm = t_scale / f_scale if f_scale > 0 and t_scale > 0 else 1.0
    row = np.array([1.0, 1.0, 1.0, 1 / arm, 1 / arm, 1 / arm])
    n = len(cols)
    a_eq = np.hstack([(cols * row).T, (w * row)[:, None]])
    sizes = [len(b) for b in blocks]
    jaw_of = np.repeat(np.arange(len(blocks)), sizes)
    a_ub = sp.csr_matrix((np.ones(n), (jaw_of, np.arange(n))), shape=(len(blocks), n + 1))
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    res = so.linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.ones(len(blocks)),
        A_eq=a_eq,
        b_eq=np.zeros(6),
        bounds=(0, None),
        method="highs",
    )
    elapsed = time.perf_counter() - start
    if res.status == 3:
        return MarginResult(float("inf"), "unbounded", elapsed)
    if res.status != 0 or res.x is None:
        raise SolverError(f"grasp wrench space LP failed: {res.message}")
    lam = np.split(res.x[:-1], np.cumsum(sizes)[:-1]) if sizes else []
    return MarginResult(float(res.x[-1]), "optimal", elapsed, tuple(lam))


def gws_contains(contact_vertices: list[np.ndarray], wrench: np.ndarray, tol: float = 1e-9) -> bool:
    """Eq. 19: is `wrench` in the grasp wrench space (the Minkowski sum of the contact sets)?"""
    result = gws_margin(contact_vertices, -np.asarray(wrench, dtype=float))
    return result.margin >= 1.0 - tol
