"""The unknowns of a time step and how they move the full DOF vector: du = P dz.

- Position-driven plates (`closing=None`): z are the free DOFs; the glued pad vertices follow
  their plates exactly (Dirichlet), P selects the free DOFs.
- Force-driven plates: z = [free DOFs, s]. The two jaws are coupled (one actuator closes both,
  as in the YuMi, Franka and Robotiq grippers), so one coordinate s moves every glued vertex of
  jaw k by s n_k; P's last column is that closing direction. An actuator term then pushes s.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.ipc.system import GraspSystem


class Reduction:
    """du = P dz for the free DOFs and, with force-driven plates, the closing coordinate s."""

    def __init__(self, system: GraspSystem, closing: np.ndarray | None = None) -> None:
        self.system = system
        nf = len(system.free)
        index = -np.ones(system.ndof, dtype=np.int64)
        index[system.free] = np.arange(nf)
        weight = np.zeros(system.ndof)
        weight[system.free] = 1.0
        self.force_driven = closing is not None
        if closing is None:
            self.n = nf
            self.jacobian = system.jacobian_free
            self.closing = None
            self._ww = 1.0
        else:
            only_glued = np.zeros(system.ndof)
            only_glued[system.fixed] = np.asarray(closing, dtype=float)[system.fixed]
            closing = only_glued
            glued = system.fixed[closing[system.fixed] != 0.0]
            index[glued] = nf
            weight[glued] = closing[glued]
            self.n = nf + 1
            rows = np.concatenate([system.free, glued])
            cols = np.concatenate([np.arange(nf), np.full(len(glued), nf)])
            vals = np.concatenate([np.ones(nf), closing[glued]])
            p = sp.csr_matrix((vals, (rows, cols)), shape=(system.ndof, self.n))
            self.jacobian = (system.jacobian @ p).tocsr()
            self.closing = closing
            self._ww = float(closing @ closing)  # |w|^2: the number of glued vertices
        self.jacobian_t = self.jacobian.T.tocsr()  # for products on every Newton iteration
        self.index = index  # full DOF -> reduced index (-1: prescribed)
        self.weight = weight  # full DOF -> d u_i / d z_index(i)

    @property
    def s_index(self) -> int:
        """Index of the closing coordinate in z (force-driven plates only)."""
        if not self.force_driven:
            raise ValueError("position-driven plates have no closing coordinate")
        return self.n - 1

    def upper_triplets(self, h: sp.csc_matrix | sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
        """The upper triangle of J^T h J (h symmetric, over the collision vertices' coordinates)
        as triplets: (keys col * n + row with row <= col, values), keys repeating where
        contributions sum. A contact Hessian touches few vertices: this is a loop over its
        entries instead of two sparse products and a sparse sum."""
        h = h.tocsc() if not isinstance(h, sp.csc_matrix) else h
        j = self.jacobian
        return _upper_triplets(h.indptr, h.indices, h.data, j.indptr, j.indices, j.data, self.n)

    def expand(self, dz: np.ndarray) -> np.ndarray:
        """The full-DOF increment of a reduced increment."""
        s = self.system
        full = np.zeros(s.ndof)
        full[s.free] = dz[: len(s.free)]
        if self.closing is not None:
            full += dz[-1] * self.closing
        return full

    def restrict(self, g_full: np.ndarray) -> np.ndarray:
        """P^T g: a full-DOF gradient on the reduced unknowns."""
        g = g_full[self.system.free]
        if self.closing is None:
            return g
        return np.append(g, float(self.closing @ g_full))

    def closing_travel(self, u: np.ndarray, reference: np.ndarray) -> float:
        """s of u: how far each jaw has closed beyond `reference` (m)."""
        if self.closing is None:
            return 0.0
        return float((u - reference) @ self.closing) / self._ww


@njit(cache=True)
def _upper_triplets(
    hp: np.ndarray,
    hi: np.ndarray,
    hv: np.ndarray,
    jp: np.ndarray,
    ji: np.ndarray,
    jv: np.ndarray,
    n: int,
) -> tuple[np.ndarray, np.ndarray]:
    # (J^T H J)[R, C] = sum over entries H[r, c] of J[r, R] H[r, c] J[c, C] (J in CSR, H in CSC).
    count = 0
    for c in range(len(hp) - 1):
        for k in range(hp[c], hp[c + 1]):
            count += (jp[hi[k] + 1] - jp[hi[k]]) * (jp[c + 1] - jp[c])
    keys = np.empty(count, np.int64)
    values = np.empty(count)
    m = 0
    for c in range(len(hp) - 1):
        for k in range(hp[c], hp[c + 1]):
            r = hi[k]
            for p in range(jp[r], jp[r + 1]):
                row = ji[p]
                w = jv[p] * hv[k]
                for q in range(jp[c], jp[c + 1]):
                    col = ji[q]
                    if row <= col:
                        keys[m] = col * n + row
                        values[m] = w * jv[q]
                        m += 1
    return keys[:m], values[:m]
