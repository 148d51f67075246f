"""Soft Point contact model (Dex-Net style), with the LP margin of design note 2.2.

Each jaw touches the object at one point. Its wrenches are a k-edge polygonal friction cone
inscribed in the Coulomb cone, e_m = n + mu (cos th_m t1 + sin th_m t2), plus two torsion
columns [0; +-gamma n] (gamma = (2/3) mu r_f for a uniform disc, pi r_f^2 mu for Dex-Net's term,
none for a hard point). As in Dex-Net, the cone edges and the torsion columns of a finger share
its force budget F: sum alpha <= F.
"""

from __future__ import annotations

import math

import numpy as np

from engine.analytic.contact_patch import ContactPoint
from engine.analytic.contact_points import ContactFailure
from engine.analytic.params import AnalyticParams
from engine.analytic.resistance_lp import Margin, max_load_scale, torque_scale
from engine.analytic.wrench import tangent_basis, wrench_columns


def check_slip(points: tuple[ContactPoint, ...], closing: list[np.ndarray], mu: float) -> None:
    """Raise "slip at a contact" if a closing direction lies outside its friction cone."""
    for p, d in zip(points, closing, strict=True):
        cos = float(np.dot(p.normal, d) / np.linalg.norm(d))
        # Inside the cone iff the angle to the inward normal is at most atan(mu).
        if cos < 1.0 / math.sqrt(1.0 + mu * mu) - 1e-12:
            angle = math.degrees(math.acos(max(-1.0, min(1.0, cos))))
            raise ContactFailure(
                "slip at a contact",
                f"jaw {p.jaw} pushes {angle:.1f} deg off the surface normal, beyond the "
                f"friction angle atan({mu:g}) = {math.degrees(math.atan(mu)):.1f} deg",
            )


def contact_generators(
    point: ContactPoint, com: np.ndarray, params: AnalyticParams, load_dir: np.ndarray
) -> np.ndarray:
    """(6, k [+2]) wrench columns of one soft point contact, per unit finger force."""
    n = np.asarray(point.normal, dtype=float)
    basis = tangent_basis(n[None], load_dir)[0]  # first edge along the load when possible
    theta = 2.0 * np.pi * np.arange(params.cone_edges) / params.cone_edges
    edges = n + params.mu * (
        np.cos(theta)[:, None] * basis[:, 0] + np.sin(theta)[:, None] * basis[:, 1]
    )
    cols = wrench_columns(np.broadcast_to(point.position, edges.shape), edges, com)
    gamma = params.torsion_coefficient_m()
    if gamma > 0:
        torsion = np.zeros((2, 6))
        torsion[0, 3:], torsion[1, 3:] = gamma * n, -gamma * n
        cols = np.vstack([cols, torsion])
    return cols.T


def evaluate(
    points: tuple[ContactPoint, ContactPoint],
    closing: list[np.ndarray],
    w_ext: np.ndarray,
    com: np.ndarray,
    params: AnalyticParams,
) -> Margin:
    """Margin s* of a two-finger soft point grasp against the load w_ext."""
    check_slip(points, closing, params.mu)
    load_dir = -np.asarray(w_ext[:3], dtype=float)
    gens = [contact_generators(p, com, params, load_dir) for p in points]
    length = torque_scale(np.array([p.position for p in points]), com)
    f = params.closing_force_n
    s, alphas = max_load_scale(gens, [f, f], w_ext, length)
    k = params.cone_edges
    return Margin(
        s,
        {
            "normal_force_n": [float(a[:k].sum()) for a in alphas],
            "torsion_n_m": [
                float((a[k] - a[k + 1]) * params.torsion_coefficient_m()) if len(a) > k else 0.0
                for a in alphas
            ],
            "torsion_model": params.torsion_model,
            "cone_edges": k,
        },
    )
