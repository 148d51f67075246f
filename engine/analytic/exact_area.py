"""Exact area-contact resistance (design note 7.1): one second-order cone program.

Variables: the load multiple s, a normal scale lambda_j in [0, 1] per jaw, and a tangential
force t_i (2-D, in the tangent basis B_i) per friction cell (contact_profile.friction_cells;
the normal wrench w_N,j is summed over the patch's elements):

    maximise s
    s.t.  sum_j lambda_j w_N,j + sum_i [B_i t_i; r_i x B_i t_i] + s w_ext = 0
          ||t_i|| <= mu lambda_j(i) F_i,   0 <= lambda_j <= 1.

Its feasible wrenches are exactly the contact's limit-surface set, so there is no fitting or
linearisation loss. Solved with Clarabel directly (cvxpy's compile step costs more than the
solve at this size).
"""

from __future__ import annotations

import clarabel
import numpy as np
from scipy import sparse

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.contact_profile import friction_cells
from engine.analytic.params import AnalyticParams
from engine.analytic.resistance_lp import Margin, torque_scale
from engine.analytic.wrench import tangent_basis, wrench_columns
from engine.errors import SolverError

_OK = {"Solved", "AlmostSolved"}


def _settings() -> clarabel.DefaultSettings:
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.presolve_enable = False  # the structure is fixed and dense rows are few
    return s


def evaluate(
    patches: tuple[ContactPatch, ...],
    w_ext: np.ndarray,
    com: np.ndarray,
    params: AnalyticParams,
) -> Margin:
    """Margin s* of the exact SOCP for any number of jaws."""
    w = np.asarray(w_ext, dtype=float)
    w_norm = float(np.linalg.norm(w))
    if not (np.isfinite(w_norm) and w_norm > 0):
        raise SolverError(f"external wrench must be finite and non-zero (got {w.tolist()})")
    jaws = len(patches)
    cells = [friction_cells(p, params.friction_cell_m) for p in patches]
    pos = np.vstack([c.positions for c in cells])
    normals = np.vstack([c.normals for c in cells])
    forces = np.concatenate([c.forces for c in cells])
    jaw_of = np.repeat(np.arange(jaws), [len(c) for c in cells])
    n_el = len(forces)
    length = torque_scale(pos, com)
    f_scale = max(float(forces.sum()), 1e-300)
    # Rows in units of f_scale (forces) and f_scale * length (torques); variables are O(1):
    # s = s_n f_scale / |w|, lambda_j, and tau_i = t_i / f_scale.
    row = np.array([1.0, 1.0, 1.0, 1.0 / length, 1.0 / length, 1.0 / length])

    n_var = 1 + jaws + 2 * n_el
    basis = tangent_basis(normals)  # (N, 3, 2)
    t_cols = wrench_columns(pos[:, None, :], np.swapaxes(basis, 1, 2), com)  # (N, 2, 6)
    t_cols = t_cols.reshape(-1, 6).T * row[:, None]  # (6, 2N)
    w_normal = np.array(
        [
            wrench_columns(p.centers_of_pressure, p.normals * p.forces[:, None], com).sum(axis=0)
            for p in patches
        ]
    ).T * (row[:, None] / f_scale)  # (6, J)
    a_eq = np.hstack([(w * row / w_norm)[:, None], w_normal, t_cols])

    # Cones: zero (6 balance rows), nonnegative (0 <= lambda_j <= 1), then one SOC(3) per
    # element: slack = b - A x = (mu F_i lambda_j / f_scale, tau_i).
    lam = 1 + np.arange(jaws)
    nonneg = sparse.coo_matrix(
        (np.r_[-np.ones(jaws), np.ones(jaws)], (np.arange(2 * jaws), np.r_[lam, lam])),
        shape=(2 * jaws, n_var),
    )
    el = np.arange(n_el)
    soc_rows = np.concatenate([3 * el, 3 * el + 1, 3 * el + 2])
    soc_cols = np.concatenate([1 + jaw_of, 1 + jaws + 2 * el, 2 + jaws + 2 * el])
    soc_vals = np.concatenate([-params.mu * forces / f_scale, -np.ones(2 * n_el)])
    soc = sparse.coo_matrix((soc_vals, (soc_rows, soc_cols)), shape=(3 * n_el, n_var))
    a_mat = sparse.vstack([sparse.csc_matrix(a_eq), nonneg, soc], format="csc")
    b = np.concatenate([np.zeros(6), np.zeros(jaws), np.ones(jaws), np.zeros(3 * n_el)])
    q = np.zeros(n_var)
    q[0] = -1.0
    cones = [clarabel.ZeroConeT(6), clarabel.NonnegativeConeT(2 * jaws)]
    cones += [clarabel.SecondOrderConeT(3)] * n_el
    solver = clarabel.DefaultSolver(
        sparse.csc_matrix((n_var, n_var)), q, a_mat, b, cones, _settings()
    )
    sol = solver.solve()
    status = str(sol.status)
    if status not in _OK:
        raise SolverError(f"Clarabel did not solve the area-contact SOCP (status {status})")
    x = np.asarray(sol.x)
    return Margin(
        float(x[0]) * f_scale / w_norm,
        {
            "normal_scale": x[1 : 1 + jaws].tolist(),
            "elements": [len(p) for p in patches],
            "friction_cells": [len(c) for c in cells],
            "iterations": int(sol.iterations),
            "solve_time_s": float(sol.solve_time),
        },
    )
