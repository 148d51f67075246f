"""Products of scipy CSR matrices with vectors, as scipy computes them, without its per-call
checks and dispatch (~10 us: a Newton iteration makes about ten such products on matrices of
a few thousand entries), and the collision vertices' J u from J's structure, the same floats."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit


def csr_times(m: sp.csr_matrix, v: np.ndarray) -> np.ndarray:
    """m @ v for a CSR matrix m and a vector v: the same floats as scipy's product (each row's
    products summed from 0 in stored order, as sparsetools' csr_matvec sums them)."""
    return _csr_matvec(m.indptr, m.indices, m.data, np.ascontiguousarray(v, dtype=np.float64))


@njit(cache=True)
def _csr_matvec(mp: np.ndarray, mi: np.ndarray, mv: np.ndarray, v: np.ndarray) -> np.ndarray:
    out = np.empty(len(mp) - 1)
    for r in range(len(mp) - 1):
        d = 0.0
        for p in range(mp[r], mp[r + 1]):
            d += mv[p] * v[mi[p]]
        out[r] = d
    return out


@njit(cache=True)
def stacked_positions(
    u: np.ndarray, pad_columns: np.ndarray, object_start: int, body_points: np.ndarray
) -> np.ndarray:
    """(n, 3) positions J u of the collision vertices of engine.ipc.system: each pad row of J picks
    u[pad_columns[r]] with weight 1, then each object point X has rows [1, X0, X1, X2] on the
    affine DOFs [p, a0, a1, a2] from `object_start`. The same floats as csr_times(J, u): each
    row summed from 0 in J's column order (0.0 + 1.0 * -0.0 is 0.0). A CSR product reads J's
    indices for every entry: 13 us against 4 us on the REACH cube's J, which an iterate asks
    for about seven times."""
    n_pad = len(pad_columns)
    out = np.empty(n_pad + 3 * len(body_points))
    for r in range(n_pad):
        out[r] = 0.0 + 1.0 * u[pad_columns[r]]
    s = object_start
    for i in range(len(body_points)):
        x0, x1, x2 = body_points[i, 0], body_points[i, 1], body_points[i, 2]
        for k in range(3):
            d = 0.0
            d += 1.0 * u[s + k]
            d += x0 * u[s + 3 + k]
            d += x1 * u[s + 6 + k]
            d += x2 * u[s + 9 + k]
            out[n_pad + 3 * i + k] = d
    return out.reshape(-1, 3)
