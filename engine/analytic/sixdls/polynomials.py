"""Homogeneous quartic polynomials in d variables and their SOS-convexity constraints (Eq. 11-12).

f(x) = sum_k c_k x^alpha_k over the L = C(d+3, 4) degree-4 monomials (126 for d = 6).
SOS-convexity: z^T Hess f(x) z = y^T M y with y = x (kron) z and M PSD (d^2 x d^2, 36 x 36).
Both sides are polynomials in (x, z) of degree 2 in each; matching the coefficient of every
monomial x^beta z^gamma (|beta| = |gamma| = 2) gives the linear equalities V1 vec(M) = V2 c,
(d(d+1)/2)^2 of them (441 for d = 6). Exact coefficient matching, not random-point identities:
the latter left Clarabel unable to converge (design note 5.3).
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import scipy.sparse as sp


@cache
def monomial_exponents(d: int, degree: int = 4) -> np.ndarray:
    """(L,d) exponents of the degree-`degree` monomials in d variables: x1^4, x1^3 x2, ..."""
    rows = [
        np.bincount(np.asarray(combo, dtype=int), minlength=d)
        for combo in itertools.combinations_with_replacement(range(d), degree)
    ]
    out = np.array(rows, dtype=np.int64) if rows else np.zeros((0, d), dtype=np.int64)
    out.flags.writeable = False
    return out


def _powers(x: np.ndarray, degree: int) -> np.ndarray:
    """(K,d,degree+1) x_j^p for p = 0..degree."""
    p = np.ones((*x.shape, degree + 1))
    for k in range(1, degree + 1):
        p[..., k] = p[..., k - 1] * x
    return p


def monomials(x: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """(K,L) values of the monomials at the rows of x (K,d)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    pw = _powers(x, int(exponents.max(initial=0)))
    cols = np.arange(x.shape[1])
    return np.prod(pw[:, cols[None, :], exponents], axis=2)


@cache
def gradient_map(d: int) -> np.ndarray:
    """(d, L3, L4) D with d m4_l / d x_j = sum_k D[j, k, l] m3_k (m3: the degree-3 monomials).

    Lets grad f = m3(x) @ (D @ c) cost one small product instead of d monomial evaluations.
    """
    e4, e3 = monomial_exponents(d, 4), monomial_exponents(d, 3)
    index3 = {tuple(int(t) for t in row): k for k, row in enumerate(e3)}
    out = np.zeros((d, len(e3), len(e4)))
    for col, alpha in enumerate(e4):
        for j in np.flatnonzero(alpha):
            lowered = alpha.copy()
            lowered[j] -= 1
            out[j, index3[tuple(int(t) for t in lowered)], col] = alpha[j]
    out.flags.writeable = False
    return out


def monomial_gradients(x: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """(K,d,L): d m_l / d x_j at the rows of x, for the degree-4 exponents of monomial_exponents."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    d = x.shape[1]
    m3 = monomials(x, monomial_exponents(d, 3))
    return np.einsum("kp,jpl->kjl", m3, gradient_map(d))


def _pair_index(d: int) -> dict[tuple[int, int], int]:
    return {pair: i for i, pair in enumerate(itertools.combinations_with_replacement(range(d), 2))}


@cache
def sos_convexity_maps(d: int) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(V1, V2) with V1 vec(M) = V2 c  <=>  z^T Hess f(x) z == y^T M y identically (Eq. 12).

    vec is column-major (M[i, j] at i + j d^2). Rows are the monomials x^beta z^gamma.
    """
    pairs = _pair_index(d)
    n2 = len(pairs)

    def key(a: int, c: int, b: int, e: int) -> int:
        return pairs[(min(a, c), max(a, c))] * n2 + pairs[(min(b, e), max(b, e))]

    dd = d * d
    rows, cols = [], []
    for a, b, c, e in itertools.product(range(d), repeat=4):
        rows.append(key(a, c, b, e))  # M[(a,b),(c,e)] multiplies x_a x_c z_b z_e
        cols.append((a * d + b) + (c * d + e) * dd)
    v1 = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n2 * n2, dd * dd))

    exps = monomial_exponents(d)
    rows2, cols2, vals2 = [], [], []
    for k, alpha in enumerate(exps):
        for b, e in itertools.product(range(d), repeat=2):
            coef = alpha[b] * (alpha[e] - (1 if b == e else 0))
            if coef <= 0:
                continue
            beta = alpha.copy()
            beta[b] -= 1
            beta[e] -= 1
            idx = np.repeat(np.arange(d), beta)  # the two x-variables left, a <= c
            rows2.append(key(int(idx[0]), int(idx[1]), b, e))
            cols2.append(k)
            vals2.append(float(coef))
    v2 = sp.csr_matrix((vals2, (rows2, cols2)), shape=(n2 * n2, len(exps)))
    return v1, v2
