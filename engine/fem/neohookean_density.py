"""The Neo-Hookean energy density at one deformation gradient F (numba kernels).

psi(F) = mu/2 (tr(F^T F) - 3) - mu ln J + lam/2 (ln J)^2, J = det F: `psi`, the first
Piola-Kirchhoff stress `first_piola` and d2psi/dF2 (9x9, row-major vec(F)) three ways: the
closed-form eigensystem (`analytic_eigensystem`, `dpdf_analytic`), the explicit formula
(`dpdf_explicit`) and its eigendecomposition (`dpdf_eigh`, the reference).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.fem.matrix3 import det3, mat3, positive_definite3, rotation_svd, sym_eig3

INV_SQRT2 = 1.0 / math.sqrt(2.0)


@njit(cache=True, inline="always")
def _z_minus_log1p(z: float) -> float:
    """z - ln(1 + z) without cancellation for small z."""
    if abs(z) < 1e-2:
        # Alternating series z^2/2 - z^3/3 + ...; 9 terms reach double precision at |z| < 1e-2.
        s = 0.0
        for k in range(10, 1, -1):
            s = s * z + (1.0 if k % 2 == 0 else -1.0) / k
        return s * z * z
    return z - math.log1p(z)


@njit(cache=True, inline="always")
def psi(f: np.ndarray, mu: float, lam: float) -> float:
    """Energy density; +inf for J <= 0. Written in H = F - I so small strains keep precision."""
    h00, h01, h02 = f[0, 0] - 1.0, f[0, 1], f[0, 2]
    h10, h11, h12 = f[1, 0], f[1, 1] - 1.0, f[1, 2]
    h20, h21, h22 = f[2, 0], f[2, 1], f[2, 2] - 1.0
    norm2 = (h00 * h00 + h01 * h01 + h02 * h02 + h10 * h10 + h11 * h11 + h12 * h12) + (
        h20 * h20 + h21 * h21 + h22 * h22
    )
    tr = h00 + h11 + h22
    minors = (h00 * h11 - h01 * h10) + (h00 * h22 - h02 * h20) + (h11 * h22 - h12 * h21)
    det_h = (
        h00 * (h11 * h22 - h12 * h21)
        - h01 * (h10 * h22 - h12 * h20)
        + h02 * (h10 * h21 - h11 * h20)
    )
    z = tr + minors + det_h  # J - 1
    if not z > -1.0:
        return np.inf
    ln_j = math.log1p(z)
    # mu/2 (|F|^2 - 3) - mu ln J = mu/2 |H|^2 + mu (tr H - ln J), tr H - ln J = (z - ln J) - ...
    return 0.5 * mu * norm2 + mu * (_z_minus_log1p(z) - minors - det_h) + 0.5 * lam * ln_j * ln_j


@njit(cache=True, inline="always")
def first_piola(f: np.ndarray, mu: float, lam: float, p: np.ndarray) -> float:
    """P = mu F + (lam ln J - mu) F^-T into p; returns J (p untouched if J <= 0)."""
    j = det3(f)
    if not j > 0.0:
        return j
    # Cofactor (r, c) = f[r1, c1] f[r2, c2] - f[r1, c2] f[r2, c1], r1, r2 = r + 1, r + 2 mod 3,
    # written out on scalars: the indexed loop ran the gradient kernels 1.3x slower.
    f00, f01, f02 = f[0, 0], f[0, 1], f[0, 2]
    f10, f11, f12 = f[1, 0], f[1, 1], f[1, 2]
    f20, f21, f22 = f[2, 0], f[2, 1], f[2, 2]
    s = (lam * math.log(j) - mu) / j  # F^-T = cofactor(F) / J
    p[0, 0] = mu * f00 + s * (f11 * f22 - f12 * f21)
    p[0, 1] = mu * f01 + s * (f12 * f20 - f10 * f22)
    p[0, 2] = mu * f02 + s * (f10 * f21 - f11 * f20)
    p[1, 0] = mu * f10 + s * (f21 * f02 - f22 * f01)
    p[1, 1] = mu * f11 + s * (f22 * f00 - f20 * f02)
    p[1, 2] = mu * f12 + s * (f20 * f01 - f21 * f00)
    p[2, 0] = mu * f20 + s * (f01 * f12 - f02 * f11)
    p[2, 1] = mu * f21 + s * (f02 * f10 - f00 * f12)
    p[2, 2] = mu * f22 + s * (f00 * f11 - f01 * f10)
    return j


@njit(cache=True)
def singular_pair(k: int) -> tuple[int, int]:
    """The two singular axes (a, b) that twist / flip mode k couples."""
    return (1, 2) if k == 0 else ((0, 2) if k == 1 else (0, 1))


@njit(cache=True)
def analytic_eigensystem(
    f: np.ndarray,
    mu: float,
    lam: float,
    project: bool,
    u: np.ndarray,
    v: np.ndarray,
    s: np.ndarray,
    twist_flip: np.ndarray,
    scale: np.ndarray,
    work: np.ndarray,
    q: np.ndarray,
    w: np.ndarray,
) -> None:
    """Closed-form eigensystem of d2psi/dF2 (Smith, de Goes, Kim 2019); needs det F > 0.

    For psi = mu/2 |F|^2 - mu ln J + lam/2 ln^2 J the Hessian is mu Id + f33 g g^T
    + f3 d2J/dF2 with g = dJ/dF, f3 = (lam ln J - mu)/J, f33 = (mu + lam (1 - ln J))/J^2.
    With F = U diag(s) V^T (rotations U, V, from rotation_svd):
    - twist / flip about singular axis k, coupling axes (a, b) = singular_pair(k):
      Q = (u_b v_a^T -/+ u_a v_b^T) / sqrt(2), eigenvalue mu +/- f3 s_k
      (twist_flip[2k], twist_flip[2k + 1]);
    - scaling: span of u_c v_c^T, where the Hessian is the 3x3 block
      scale = mu I + f33 g g^T + f3 [[0, s2, s1], [s2, 0, s0], [s1, s0, 0]],
      g = (s1 s2, s0 s2, s0 s1).
    With project, negative eigenvalues are clamped to 0 (the 3x3 block by Jacobi, only when it
    is not positive definite). work, q (3,3) and w (3,) are scratch.
    """
    rotation_svd(f, u, s, v, work, q, w)
    j = s[0] * s[1] * s[2]
    ln_j = math.log(j)
    f3 = (lam * ln_j - mu) / j
    f33 = (mu + lam * (1.0 - ln_j)) / (j * j)
    for k in range(3):
        twist_flip[2 * k] = mu + f3 * s[k]
        twist_flip[2 * k + 1] = mu - f3 * s[k]
        if project:
            twist_flip[2 * k] = max(twist_flip[2 * k], 0.0)
            twist_flip[2 * k + 1] = max(twist_flip[2 * k + 1], 0.0)
    g0, g1, g2 = s[1] * s[2], s[0] * s[2], s[0] * s[1]
    scale[0, 0] = mu + f33 * g0 * g0
    scale[1, 1] = mu + f33 * g1 * g1
    scale[2, 2] = mu + f33 * g2 * g2
    scale[0, 1] = scale[1, 0] = f33 * g0 * g1 + f3 * s[2]
    scale[0, 2] = scale[2, 0] = f33 * g0 * g2 + f3 * s[1]
    scale[1, 2] = scale[2, 1] = f33 * g1 * g2 + f3 * s[0]
    if project and not positive_definite3(scale):
        for r in range(3):
            for c in range(3):
                work[r, c] = scale[r, c]
        sym_eig3(work, w, q)
        for r in range(3):
            for c in range(3):
                acc = 0.0
                for n in range(3):
                    if w[n] > 0.0:
                        acc += w[n] * q[r, n] * q[c, n]
                scale[r, c] = acc
        for r in range(3):
            for c in range(r):
                scale[r, c] = scale[c, r]


@njit(cache=True)
def dpdf_analytic(f: np.ndarray, mu: float, lam: float, project: bool, out: np.ndarray) -> None:
    u, v, work, q, scale = mat3(), mat3(), mat3(), mat3(), mat3()
    s, w = np.empty(3), np.empty(3)
    tf = np.empty(6)
    analytic_eigensystem(f, mu, lam, project, u, v, s, tf, scale, work, q, w)
    out[:, :] = 0.0
    qv = np.empty(9)
    for k in range(3):
        a, b = singular_pair(k)
        for n in range(2):
            sign = -1.0 if n == 0 else 1.0
            for r in range(3):
                for c in range(3):
                    qv[3 * r + c] = INV_SQRT2 * (u[r, b] * v[c, a] + sign * u[r, a] * v[c, b])
            for i in range(9):
                for m in range(9):
                    out[i, m] += tf[2 * k + n] * qv[i] * qv[m]
    d = np.empty((3, 9))
    for c in range(3):
        for r in range(3):
            for cc in range(3):
                d[c, 3 * r + cc] = u[r, c] * v[cc, c]
    for a in range(3):
        for b in range(3):
            for i in range(9):
                for m in range(9):
                    out[i, m] += scale[a, b] * d[a, i] * d[b, m]


@njit(cache=True)
def dpdf_explicit(f: np.ndarray, mu: float, lam: float, out: np.ndarray) -> None:
    """d2psi/dF2 = mu Id + f33 g g^T + f3 d2J/dF2, d2J/dF_ij dF_kl = e_ikm e_jln F_mn."""
    dpdf_explicit_into(f, mu, lam, out, np.empty(9))


@njit(cache=True, inline="always")
def dpdf_explicit_into(
    f: np.ndarray, mu: float, lam: float, out: np.ndarray, g: np.ndarray
) -> None:
    """dpdf_explicit with g = dJ/dF (9,) scratch given (no allocation per tet)."""
    j = det3(f)
    ln_j = math.log(j)
    f3 = (lam * ln_j - mu) / j
    f33 = (mu + lam * (1.0 - ln_j)) / (j * j)
    for r in range(3):
        r1, r2 = (r + 1) % 3, (r + 2) % 3
        for c in range(3):
            c1, c2 = (c + 1) % 3, (c + 2) % 3
            g[3 * r + c] = f[r1, c1] * f[r2, c2] - f[r1, c2] * f[r2, c1]
    for a in range(9):
        for b in range(9):
            out[a, b] = f33 * g[a] * g[b]
        out[a, a] += mu
    for i in range(3):
        for k in range(3):
            if i == k:
                continue
            m = 3 - i - k
            e_ikm = 1.0 if (k - i) % 3 == 1 else -1.0
            for jj in range(3):
                for ll in range(3):
                    if jj == ll:
                        continue
                    n = 3 - jj - ll
                    e_jln = 1.0 if (ll - jj) % 3 == 1 else -1.0
                    out[3 * i + jj, 3 * k + ll] += f3 * e_ikm * e_jln * f[m, n]


@njit(cache=True)
def dpdf_eigh(f: np.ndarray, mu: float, lam: float, project: bool, out: np.ndarray) -> None:
    dpdf_explicit(f, mu, lam, out)
    if not project:
        return
    w, q = np.linalg.eigh(out)
    for i in range(9):
        for k in range(9):
            acc = 0.0
            for m in range(9):
                if w[m] > 0.0:
                    acc += w[m] * q[i, m] * q[k, m]
            out[i, k] = acc
    for i in range(9):
        for k in range(i):
            out[i, k] = out[k, i] = 0.5 * (out[i, k] + out[k, i])
