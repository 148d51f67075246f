"""Per-tet and per-mesh Neo-Hookean kernels (numba): energy, gradient and 12x12 element
Hessians of a linear tet mesh, in the DOF order of each tet's four vertices.

F = Ds Dm^-1 of each tet from its rest data (engine.fem.neohookean.TetRest); an inverted tet
(J <= 0) has energy +inf and adds nothing to the gradient or the Hessian.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.fem.matrix3 import mat3
from engine.fem.neohookean_density import (
    INV_SQRT2,
    analytic_eigensystem,
    dpdf_explicit,
    dpdf_explicit_into,
    first_piola,
    psi,
    singular_pair,
)


@njit(cache=True, inline="always")
def _deformation_gradient(
    x: np.ndarray, tet: np.ndarray, dm_inv: np.ndarray, f: np.ndarray
) -> None:
    """F = Ds Dm^-1 into f (3,3)."""
    for i in range(3):
        x0 = x[tet[0], i]
        d1, d2, d3 = x[tet[1], i] - x0, x[tet[2], i] - x0, x[tet[3], i] - x0
        for j in range(3):
            f[i, j] = d1 * dm_inv[0, j] + d2 * dm_inv[1, j] + d3 * dm_inv[2, j]


@njit(cache=True, inline="always")
def _shape_gradients(dm_inv: np.ndarray, bm: np.ndarray) -> None:
    """bm[a, j] = dF_ij / dx_{a,i} for the 4 vertices (row 0 = minus the sum of the others)."""
    for j in range(3):
        bm[1, j] = dm_inv[0, j]
        bm[2, j] = dm_inv[1, j]
        bm[3, j] = dm_inv[2, j]
        bm[0, j] = -(dm_inv[0, j] + dm_inv[1, j] + dm_inv[2, j])


@njit(cache=True)
def energy_kernel(
    x: np.ndarray, tets: np.ndarray, dm_inv: np.ndarray, volumes: np.ndarray, mu: float, lam: float
) -> np.ndarray:
    out = np.empty(tets.shape[0])
    f = np.empty((3, 3))
    for e in range(tets.shape[0]):
        _deformation_gradient(x, tets[e], dm_inv[e], f)
        out[e] = volumes[e] * psi(f, mu, lam)
    return out


@njit(cache=True, inline="always")
def element_gradient(
    x: np.ndarray,
    tets: np.ndarray,
    dm_inv: np.ndarray,
    volumes: np.ndarray,
    e: int,
    mu: float,
    lam: float,
    f: np.ndarray,
    p: np.ndarray,
    bm: np.ndarray,
    grad: np.ndarray,
) -> tuple[float, bool]:
    """Add tet e's gradient into grad; returns (its energy, whether J > 0). Fills f and bm."""
    _deformation_gradient(x, tets[e], dm_inv[e], f)
    energy = volumes[e] * psi(f, mu, lam)
    if not first_piola(f, mu, lam, p) > 0.0:
        return energy, False
    _shape_gradients(dm_inv[e], bm)
    vol = volumes[e]
    # P and each shape gradient read into scalars before the stores into grad, which numba
    # cannot tell apart from p and bm (every store would reload them).
    p00, p01, p02 = p[0, 0], p[0, 1], p[0, 2]
    p10, p11, p12 = p[1, 0], p[1, 1], p[1, 2]
    p20, p21, p22 = p[2, 0], p[2, 1], p[2, 2]
    for a in range(4):
        b0, b1, b2 = bm[a, 0], bm[a, 1], bm[a, 2]
        base = 3 * tets[e, a]
        g0 = vol * (p00 * b0 + p01 * b1 + p02 * b2)
        g1 = vol * (p10 * b0 + p11 * b1 + p12 * b2)
        g2 = vol * (p20 * b0 + p21 * b1 + p22 * b2)
        grad[base] += g0
        grad[base + 1] += g1
        grad[base + 2] += g2
    return energy, True


@njit(cache=True, nogil=True)
def gradient_kernel(
    x: np.ndarray, tets: np.ndarray, dm_inv: np.ndarray, volumes: np.ndarray, mu: float, lam: float
) -> tuple[float, np.ndarray]:
    grad = np.zeros(3 * x.shape[0])
    f, p, bm = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3))
    energy = 0.0
    for e in range(tets.shape[0]):
        energy += element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)[0]
    return energy, grad


@njit(cache=True)
def analytic_scratch() -> tuple[np.ndarray, ...]:
    return (
        mat3(), mat3(), mat3(), mat3(), mat3(), np.empty((4, 3)), np.empty(3),
        np.empty(3), np.empty(6), np.empty(12), np.empty((3, 12)), np.empty((3, 12)),
    )  # fmt: skip


@njit(cache=True)
def element_hessian_analytic(
    f: np.ndarray,
    bm: np.ndarray,
    vol: float,
    mu: float,
    lam: float,
    project: bool,
    scratch: tuple[np.ndarray, ...],
    he: np.ndarray,
) -> None:
    """he = vol B^T d2psi/dF2 B (12x12, overwritten) via the analytic eigensystem; scratch
    from analytic_scratch."""
    u, v, work, q, scale, vb, s, w3, tf, w, ws, zs = scratch
    he[:, :] = 0.0
    analytic_eigensystem(f, mu, lam, project, u, v, s, tf, scale, work, q, w3)
    # vb[a, c] = v_c . bm[a]: mode Q = u_r v_c^T maps to (B^T Q)[3a + i] = u_r[i] vb[a, c].
    for a in range(4):
        for c in range(3):
            vb[a, c] = v[0, c] * bm[a, 0] + v[1, c] * bm[a, 1] + v[2, c] * bm[a, 2]
    for k in range(3):
        ka, kb = singular_pair(k)
        for n in range(2):
            lm = tf[2 * k + n]
            if lm == 0.0:
                continue
            sign = -1.0 if n == 0 else 1.0
            for a in range(4):
                for i in range(3):
                    w[3 * a + i] = INV_SQRT2 * (u[i, kb] * vb[a, ka] + sign * u[i, ka] * vb[a, kb])
            _add_rank1_upper(he, vol * lm, w)
    # Scaling block: H += vol W^T scale W with W rows (B^T u_c v_c^T).
    for c in range(3):
        for a in range(4):
            for i in range(3):
                ws[c, 3 * a + i] = u[i, c] * vb[a, c]
    for c in range(3):
        for r in range(12):
            zs[c, r] = vol * (
                scale[c, 0] * ws[0, r] + scale[c, 1] * ws[1, r] + scale[c, 2] * ws[2, r]
            )
    for r in range(12):
        w0, w1, w2 = ws[0, r], ws[1, r], ws[2, r]
        for k in range(r, 12):
            he[r, k] += w0 * zs[0, k] + w1 * zs[1, k] + w2 * zs[2, k]
    _mirror_upper(he)


@njit(cache=True, inline="always")
def element_hessian_explicit(
    f: np.ndarray,
    bm: np.ndarray,
    vol: float,
    mu: float,
    lam: float,
    dpdf: np.ndarray,
    t: np.ndarray,
    he: np.ndarray,
) -> None:
    """he = vol B^T d2psi/dF2 B (12x12) from the explicit 9x9 d2psi/dF2, not projected.

    No SVD: about three times cheaper than the analytic eigensystem. Only vertices 1-3's
    blocks are multiplied out: vertex 0's shape gradient is minus the sum of theirs, so its
    blocks are minus the sums of theirs. dpdf (9,9) and t (9,12) are scratch (t[:, :3] holds
    dJ/dF).
    """
    dpdf_explicit_into(f, mu, lam, dpdf, t[:, 0])
    # t[3i + j, 3b + k] = sum_l dpdf[3i + j, 3k + l] bm[b, l]  (d2psi/dF_ij dx_bk), b = 1..3
    for row in range(9):
        for b in range(1, 4):
            for k in range(3):
                t[row, 3 * b + k] = (
                    dpdf[row, 3 * k] * bm[b, 0]
                    + dpdf[row, 3 * k + 1] * bm[b, 1]
                    + dpdf[row, 3 * k + 2] * bm[b, 2]
                )
    for a in range(1, 4):
        for i in range(3):
            r = 3 * a + i
            for c in range(r, 12):
                he[r, c] = vol * (
                    bm[a, 0] * t[3 * i, c] + bm[a, 1] * t[3 * i + 1, c] + bm[a, 2] * t[3 * i + 2, c]
                )
    for r in range(3, 12):
        for c in range(3, r):
            he[r, c] = he[c, r]
    for i in range(3):
        for c in range(3, 12):
            he[i, c] = -(he[3 + i, c] + he[6 + i, c] + he[9 + i, c])
            he[c, i] = he[i, c]
    for i in range(3):
        for k in range(i, 3):
            he[i, k] = -(he[i, 3 + k] + he[i, 6 + k] + he[i, 9 + k])
            he[k, i] = he[i, k]


@njit(cache=True)
def hessian_kernel(
    x: np.ndarray,
    tets: np.ndarray,
    dm_inv: np.ndarray,
    volumes: np.ndarray,
    mu: float,
    lam: float,
    project: bool,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Energy, gradient and element Hessians via the analytic eigensystem."""
    nt = tets.shape[0]
    grad = np.zeros(3 * x.shape[0])
    hess = np.zeros((nt, 12, 12))
    f, p, bm = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3))
    scratch = analytic_scratch()
    energy = 0.0
    for e in range(nt):
        psi_e, ok = element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)
        energy += psi_e
        if ok:
            element_hessian_analytic(f, bm, volumes[e], mu, lam, project, scratch, hess[e])
    return energy, grad, hess


@njit(cache=True)
def hessian_kernel_eigh(
    x: np.ndarray,
    tets: np.ndarray,
    dm_inv: np.ndarray,
    volumes: np.ndarray,
    mu: float,
    lam: float,
    project: bool,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Reference path: eigendecomposition of the explicit 9x9 d2psi/dF2 of every tet."""
    nt = tets.shape[0]
    grad = np.zeros(3 * x.shape[0])
    hess = np.zeros((nt, 12, 12))
    f, p, bm = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3))
    dpdf = np.empty((9, 9))
    w = np.empty(12)
    energy = 0.0
    for e in range(nt):
        psi_e, ok = element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)
        energy += psi_e
        if not ok:
            continue
        dpdf_explicit(f, mu, lam, dpdf)
        lams, modes = np.linalg.eigh(dpdf)
        for m in range(9):
            if project and lams[m] <= 0.0:
                continue
            for a in range(4):  # (B^T q)[3a + i] = sum_j Q_ij bm[a, j]
                for i in range(3):
                    w[3 * a + i] = (
                        modes[3 * i, m] * bm[a, 0]
                        + modes[3 * i + 1, m] * bm[a, 1]
                        + modes[3 * i + 2, m] * bm[a, 2]
                    )
            _add_rank1_upper(hess[e], volumes[e] * lams[m], w)
        _mirror_upper(hess[e])
    return energy, grad, hess


@njit(cache=True)
def _mirror_upper(h: np.ndarray) -> None:
    # Exact symmetry (not just to rounding) keeps the assembled matrix exactly symmetric.
    for r in range(12):
        for k in range(r):
            h[r, k] = h[k, r]


@njit(cache=True)
def _add_rank1_upper(h: np.ndarray, c: float, w: np.ndarray) -> None:
    """Upper triangle of h += c w w^T."""
    for r in range(12):
        cr = c * w[r]
        for k in range(r, 12):
            h[r, k] += cr * w[k]
