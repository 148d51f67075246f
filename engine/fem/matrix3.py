"""3x3 matrix kernels (numba) of the Neo-Hookean Hessian: determinant, positive definiteness,
symmetric eigendecomposition by cyclic Jacobi, and the SVD of a deformation gradient into two
rotations (engine.fem.neohookean_density runs them per tet).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def mat3() -> np.ndarray:
    return np.empty((3, 3))


@njit(cache=True, inline="always")
def det3(f: np.ndarray) -> float:
    return (
        f[0, 0] * (f[1, 1] * f[2, 2] - f[1, 2] * f[2, 1])
        - f[0, 1] * (f[1, 0] * f[2, 2] - f[1, 2] * f[2, 0])
        + f[0, 2] * (f[1, 0] * f[2, 1] - f[1, 1] * f[2, 0])
    )


@njit(cache=True)
def _jacobi_angle(app: float, aqq: float, apq: float) -> tuple[float, float, float]:
    """(t, c, s) of the Jacobi rotation that zeroes apq (Numerical Recipes 11.1)."""
    theta = (aqq - app) / (2.0 * apq)
    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
    if theta < 0.0:
        t = -t
    c = 1.0 / math.sqrt(t * t + 1.0)
    return t, c, t * c


@njit(cache=True)
def sym_eig3(a: np.ndarray, w: np.ndarray, v: np.ndarray) -> None:
    """Symmetric 3x3 eigen-decomposition a = v diag(w) v^T by cyclic Jacobi (a is read only).

    Scalar locals instead of array updates: this runs twice per tet in the Hessian.
    """
    a00, a11, a22, a01, a02, a12 = a[0, 0], a[1, 1], a[2, 2], a[0, 1], a[0, 2], a[1, 2]
    v00, v01, v02, v10, v11, v12, v20, v21, v22 = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
    for _ in range(50):
        off = a01 * a01 + a02 * a02 + a12 * a12
        if off == 0.0 or off <= 1e-34 * (a00 * a00 + a11 * a11 + a22 * a22):
            break
        if a01 != 0.0:  # (p, q) = (0, 1)
            t, c, s = _jacobi_angle(a00, a11, a01)
            a00, a11, a01 = a00 - t * a01, a11 + t * a01, 0.0
            a02, a12 = c * a02 - s * a12, s * a02 + c * a12
            v00, v01 = c * v00 - s * v01, s * v00 + c * v01
            v10, v11 = c * v10 - s * v11, s * v10 + c * v11
            v20, v21 = c * v20 - s * v21, s * v20 + c * v21
        if a02 != 0.0:  # (0, 2)
            t, c, s = _jacobi_angle(a00, a22, a02)
            a00, a22, a02 = a00 - t * a02, a22 + t * a02, 0.0
            a01, a12 = c * a01 - s * a12, s * a01 + c * a12
            v00, v02 = c * v00 - s * v02, s * v00 + c * v02
            v10, v12 = c * v10 - s * v12, s * v10 + c * v12
            v20, v22 = c * v20 - s * v22, s * v20 + c * v22
        if a12 != 0.0:  # (1, 2)
            t, c, s = _jacobi_angle(a11, a22, a12)
            a11, a22, a12 = a11 - t * a12, a22 + t * a12, 0.0
            a01, a02 = c * a01 - s * a02, s * a01 + c * a02
            v01, v02 = c * v01 - s * v02, s * v01 + c * v02
            v11, v12 = c * v11 - s * v12, s * v11 + c * v12
            v21, v22 = c * v21 - s * v22, s * v21 + c * v22
    w[0], w[1], w[2] = a00, a11, a22
    v[0, 0], v[0, 1], v[0, 2] = v00, v01, v02
    v[1, 0], v[1, 1], v[1, 2] = v10, v11, v12
    v[2, 0], v[2, 1], v[2, 2] = v20, v21, v22


@njit(cache=True)
def rotation_svd(
    f: np.ndarray,
    u: np.ndarray,
    s: np.ndarray,
    v: np.ndarray,
    work: np.ndarray,
    vv: np.ndarray,
    w: np.ndarray,
) -> None:
    """F = U diag(s) V^T with U, V rotations, s sorted descending (s[2] < 0 iff det F < 0).

    V from Jacobi on F^T F; U by Gram-Schmidt on the columns of F V (largest first), which
    stays accurate when singular values are close, as near rest. work, vv (3,3), w (3,) are
    scratch.
    """
    for i in range(3):
        for j in range(3):
            work[i, j] = f[0, i] * f[0, j] + f[1, i] * f[1, j] + f[2, i] * f[2, j]
    sym_eig3(work, w, vv)
    i0, i1, i2 = 0, 1, 2
    if w[i0] < w[i1]:
        i0, i1 = i1, i0
    if w[i1] < w[i2]:
        i1, i2 = i2, i1
    if w[i0] < w[i1]:
        i0, i1 = i1, i0
    for i in range(3):
        v[i, 0], v[i, 1], v[i, 2] = vv[i, i0], vv[i, i1], vv[i, i2]
    if det3(v) < 0.0:
        for i in range(3):
            v[i, 2] = -v[i, 2]
    for j in range(3):  # b_j = F v_j
        for i in range(3):
            work[i, j] = f[i, 0] * v[0, j] + f[i, 1] * v[1, j] + f[i, 2] * v[2, j]
    n0 = math.sqrt(work[0, 0] ** 2 + work[1, 0] ** 2 + work[2, 0] ** 2)
    for i in range(3):
        u[i, 0] = work[i, 0] / n0
    d = u[0, 0] * work[0, 1] + u[1, 0] * work[1, 1] + u[2, 0] * work[2, 1]
    for i in range(3):
        u[i, 1] = work[i, 1] - d * u[i, 0]
    n1 = math.sqrt(u[0, 1] ** 2 + u[1, 1] ** 2 + u[2, 1] ** 2)
    for i in range(3):
        u[i, 1] /= n1
    u[0, 2] = u[1, 0] * u[2, 1] - u[2, 0] * u[1, 1]
    u[1, 2] = u[2, 0] * u[0, 1] - u[0, 0] * u[2, 1]
    u[2, 2] = u[0, 0] * u[1, 1] - u[1, 0] * u[0, 1]
    s[0] = n0
    s[1] = n1
    s[2] = u[0, 2] * work[0, 2] + u[1, 2] * work[1, 2] + u[2, 2] * work[2, 2]


@njit(cache=True)
def positive_definite3(a: np.ndarray) -> bool:
    """Sylvester's criterion on a symmetric 3x3."""
    m2 = a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    return a[0, 0] > 0.0 and m2 > 0.0 and det3(a) > 0.0
