"""Products of scipy CSR matrices with vectors, as scipy computes them, without its per-call
checks and dispatch (~10 us: a Newton iteration makes about ten such products on matrices of
a few thousand entries)."""

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
