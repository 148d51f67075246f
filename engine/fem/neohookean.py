"""Neo-Hookean elasticity of linear tets (the IPC form), with numba kernels.

psi(F) = mu/2 (tr(F^T F) - 3) - mu ln J + lam/2 (ln J)^2, J = det F, F = Ds Dm^-1.
The total energy is sum_e rest_volume_e * psi(F_e). Elements with J <= 0 have energy +inf:
the IPC line search relies on that to stay inversion-free.

DOF order everywhere is x0, y0, z0, x1, ... ; vec(F) is row-major (F_ij at 3 i + j).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.errors import MeshError, ParameterError

Projection = Literal["analytic", "eigh"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)


def lame_parameters(youngs_modulus_pa: float, poisson_ratio: float) -> tuple[float, float]:
    """(mu, lam) in Pa from Young's modulus and Poisson's ratio."""
    e, nu = float(youngs_modulus_pa), float(poisson_ratio)
    if not (math.isfinite(e) and e > 0):
        raise ParameterError(f"Young's modulus must be finite and > 0 Pa, got {youngs_modulus_pa}")
    if not (math.isfinite(nu) and -1.0 < nu < 0.5):
        raise ParameterError(f"Poisson's ratio must be in (-1, 0.5), got {poisson_ratio}")
    return e / (2.0 * (1.0 + nu)), e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))


@dataclass(frozen=True, eq=False)
class TetRest:
    """Rest-state data of a tet mesh: inverse rest edge matrices and volumes."""

    tets: np.ndarray  # (t,4) int64
    dm_inv: np.ndarray  # (t,3,3) inverse of Dm = [X1-X0, X2-X0, X3-X0]
    volumes: np.ndarray  # (t,) > 0, m^3
    n_vertices: int


def tet_rest(vertices: np.ndarray, tets: np.ndarray) -> TetRest:
    """Rest data for positively oriented tets over (n,3) rest vertices."""
    x = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(tets)
    if x.ndim != 2 or x.shape[1] != 3 or not np.isfinite(x).all():
        raise MeshError(f"rest vertices must be a finite (n,3) array, got shape {x.shape}")
    if t.ndim != 2 or t.shape[1] != 4 or len(t) == 0 or not np.issubdtype(t.dtype, np.integer):
        raise MeshError(f"tets must be a non-empty (t,4) integer array, got {t.shape} {t.dtype}")
    if t.min() < 0 or t.max() >= len(x):
        raise MeshError(f"tet vertex ids must be in [0, {len(x)}), got [{t.min()}, {t.max()}]")
    t = np.ascontiguousarray(t, dtype=np.int64)
    dm = np.transpose(x[t[:, 1:]] - x[t[:, :1]], (0, 2, 1))  # columns are edges
    volumes = np.linalg.det(dm) / 6.0
    bad = np.flatnonzero(~(volumes > 0))
    if bad.size:
        raise MeshError(
            f"{bad.size} tets have non-positive rest volume (first: tet {bad[0]}, "
            f"{volumes[bad[0]]:.3g} m^3); orient tets positively and remove degenerate ones"
        )
    return TetRest(
        tets=_frozen(t),
        dm_inv=_frozen(np.linalg.inv(dm)),
        volumes=_frozen(volumes),
        n_vertices=len(x),
    )


def elastic_energy(x: np.ndarray, rest: TetRest, mu: float, lam: float) -> float:
    """Total elastic energy (J) at deformed positions x (n,3); +inf if any tet is inverted."""
    return float(np.sum(elastic_energy_per_tet(x, rest, mu, lam)))


def elastic_energy_per_tet(x: np.ndarray, rest: TetRest, mu: float, lam: float) -> np.ndarray:
    """(t,) energy of each tet (J, not density); +inf where inverted."""
    xs = _positions(x, rest)
    mu, lam = _material(mu, lam)
    return _energy_kernel(xs, rest.tets, rest.dm_inv, rest.volumes, mu, lam)


def elastic_gradient(
    x: np.ndarray, rest: TetRest, mu: float, lam: float
) -> tuple[float, np.ndarray]:
    """(energy, gradient (3n,)). Inverted tets make the energy +inf and add nothing to the
    gradient."""
    xs = _positions(x, rest)
    mu, lam = _material(mu, lam)
    energy, grad = _gradient_kernel(xs, rest.tets, rest.dm_inv, rest.volumes, mu, lam)
    return float(energy), grad


def elastic_hessian(
    x: np.ndarray,
    rest: TetRest,
    mu: float,
    lam: float,
    project_psd: bool = True,
    projection: Projection = "analytic",
) -> tuple[float, np.ndarray, np.ndarray]:
    """(energy, gradient (3n,), element Hessians (t,12,12)) in the dof order of tets[e].

    With project_psd, d2psi/dF2 of each tet is clamped to its PSD part before mapping to the
    12 vertex dofs, so every element block is PSD. projection="analytic" uses the closed-form
    eigensystem (Smith, de Goes, Kim 2019); "eigh" eigendecomposes the 9x9 (slower, reference).
    Inverted tets make the energy +inf and get zero gradient and Hessian blocks.
    """
    if projection not in ("analytic", "eigh"):
        raise ParameterError(f"projection must be 'analytic' or 'eigh', got {projection!r}")
    xs = _positions(x, rest)
    mu, lam = _material(mu, lam)
    kernel = _hessian_kernel_eigh if projection == "eigh" else _hessian_kernel
    project = bool(project_psd)
    energy, grad, hess = kernel(xs, rest.tets, rest.dm_inv, rest.volumes, mu, lam, project)
    return float(energy), grad, hess


def stress_hessian(
    f: np.ndarray,
    mu: float,
    lam: float,
    project_psd: bool = True,
    projection: Projection = "analytic",
) -> np.ndarray:
    """d2psi/dF2 (9,9) at one deformation gradient F (3,3), row-major vec(F); needs det F > 0."""
    fm = np.ascontiguousarray(f, dtype=np.float64)
    if fm.shape != (3, 3) or not np.isfinite(fm).all() or not np.linalg.det(fm) > 0:
        raise ParameterError("F must be a finite (3,3) matrix with det F > 0")
    mu, lam = _material(mu, lam)
    out = np.zeros((9, 9))
    if projection == "eigh":
        _dpdf_eigh(fm, mu, lam, bool(project_psd), out)
    elif projection == "analytic":
        _dpdf_analytic(fm, mu, lam, bool(project_psd), out)
    else:
        raise ParameterError(f"projection must be 'analytic' or 'eigh', got {projection!r}")
    return out


class HessianAssembler:
    """Sums element Hessians into a (3n,3n) CSR matrix with a sparsity pattern fixed at init."""

    def __init__(self, rest: TetRest) -> None:
        tets, n = rest.tets, rest.n_vertices
        a, b = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
        keys = tets[:, a.ravel()] * n + tets[:, b.ravel()]  # (t,16) vertex pairs (row, col)
        pairs, pair_of = np.unique(keys, return_inverse=True)
        row_v, col_v = pairs // n, pairs % n
        degree = np.bincount(row_v, minlength=n)  # neighbours (incl. self) of each vertex
        first = np.concatenate([[0], np.cumsum(degree)])  # first pair of each row vertex
        # Dof row 3 v + k holds the 3 deg(v) columns 3 w + l of v's neighbours w, in order.
        self._pair_of = np.ascontiguousarray(pair_of.reshape(tets.shape[0], 16), dtype=np.int64)
        self._base = 9 * first[row_v] + 3 * (np.arange(len(pairs)) - first[row_v])
        self._stride = 3 * degree[row_v]
        # Data slot of (pair, i, k) is base + i * stride + k; its column is 3 col + k.
        slots = self._base[:, None, None] + self._stride[:, None, None] * np.arange(3)[:, None]
        slots = slots + np.arange(3)
        self._indices = np.empty(9 * len(pairs), dtype=np.int64)
        self._indices[slots.ravel()] = np.broadcast_to(
            3 * col_v[:, None, None] + np.arange(3), slots.shape
        ).ravel()
        self._indptr = np.concatenate([[0], np.cumsum(np.repeat(3 * degree, 3))])
        self.shape = (3 * n, 3 * n)
        self.nnz = 9 * len(pairs)

    def assemble_data(self, element_hessians: np.ndarray) -> np.ndarray:
        """The (nnz,) data array of `assemble`'s matrix, in its fixed pattern's order (no
        matrix built: scipy's construction and format checks cost more than the scatter)."""
        h = np.ascontiguousarray(element_hessians, dtype=np.float64)
        if h.shape != (self._pair_of.shape[0], 12, 12):
            raise ParameterError(
                f"element Hessians must be ({self._pair_of.shape[0]},12,12), got {h.shape}"
            )
        data: np.ndarray = _scatter_kernel(h, self._pair_of, self._base, self._stride, self.nnz)
        return data

    def assemble(self, element_hessians: np.ndarray) -> sp.csr_matrix:
        """(3n,3n) symmetric CSR matrix from (t,12,12) element blocks."""
        data = self.assemble_data(element_hessians)
        # Copies: in-place scipy ops on the result (eliminate_zeros, ...) must not edit the pattern.
        m = sp.csr_matrix(
            (data, self._indices.copy(), self._indptr.copy()), shape=self.shape, copy=False
        )
        m.has_sorted_indices = True
        return m


# --- input checks -------------------------------------------------------------------------------


def _positions(x: np.ndarray, rest: TetRest) -> np.ndarray:
    xs = np.ascontiguousarray(x, dtype=np.float64)
    if not xs.flags.writeable:
        xs = xs.copy()  # numba compiles read-only arrays separately; keep one specialisation
    if xs.shape != (rest.n_vertices, 3):
        raise ParameterError(f"positions must be ({rest.n_vertices},3), got {xs.shape}")
    return xs


def _material(mu: float, lam: float) -> tuple[float, float]:
    mu, lam = float(mu), float(lam)
    if not (math.isfinite(mu) and mu > 0 and math.isfinite(lam)):
        raise ParameterError(f"Lame parameters must be finite with mu > 0, got mu={mu}, lam={lam}")
    return mu, lam


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


# --- per-element kernels ------------------------------------------------------------------------


@njit(cache=True)
def _deformation_gradient(
    x: np.ndarray, tet: np.ndarray, dm_inv: np.ndarray, f: np.ndarray
) -> None:
    """F = Ds Dm^-1 into f (3,3)."""
    for i in range(3):
        x0 = x[tet[0], i]
        d1, d2, d3 = x[tet[1], i] - x0, x[tet[2], i] - x0, x[tet[3], i] - x0
        for j in range(3):
            f[i, j] = d1 * dm_inv[0, j] + d2 * dm_inv[1, j] + d3 * dm_inv[2, j]


@njit(cache=True)
def _shape_gradients(dm_inv: np.ndarray, bm: np.ndarray) -> None:
    """bm[a, j] = dF_ij / dx_{a,i} for the 4 vertices (row 0 = minus the sum of the others)."""
    for j in range(3):
        bm[1, j] = dm_inv[0, j]
        bm[2, j] = dm_inv[1, j]
        bm[3, j] = dm_inv[2, j]
        bm[0, j] = -(dm_inv[0, j] + dm_inv[1, j] + dm_inv[2, j])


@njit(cache=True)
def _det3(f: np.ndarray) -> float:
    return (
        f[0, 0] * (f[1, 1] * f[2, 2] - f[1, 2] * f[2, 1])
        - f[0, 1] * (f[1, 0] * f[2, 2] - f[1, 2] * f[2, 0])
        + f[0, 2] * (f[1, 0] * f[2, 1] - f[1, 1] * f[2, 0])
    )


@njit(cache=True)
def _z_minus_log1p(z: float) -> float:
    """z - ln(1 + z) without cancellation for small z."""
    if abs(z) < 1e-2:
        # Alternating series z^2/2 - z^3/3 + ...; 9 terms reach double precision at |z| < 1e-2.
        s = 0.0
        for k in range(10, 1, -1):
            s = s * z + (1.0 if k % 2 == 0 else -1.0) / k
        return s * z * z
    return z - math.log1p(z)


@njit(cache=True)
def _psi(f: np.ndarray, mu: float, lam: float) -> float:
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


@njit(cache=True)
def _first_piola(f: np.ndarray, mu: float, lam: float, p: np.ndarray) -> float:
    """P = mu F + (lam ln J - mu) F^-T into p; returns J (p untouched if J <= 0)."""
    j = _det3(f)
    if not j > 0.0:
        return j
    s = (lam * math.log(j) - mu) / j  # F^-T = cofactor(F) / J
    for r in range(3):
        r1, r2 = (r + 1) % 3, (r + 2) % 3
        for c in range(3):
            c1, c2 = (c + 1) % 3, (c + 2) % 3
            p[r, c] = mu * f[r, c] + s * (f[r1, c1] * f[r2, c2] - f[r1, c2] * f[r2, c1])
    return j


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
def _sym_eig3(a: np.ndarray, w: np.ndarray, v: np.ndarray) -> None:
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
def _rotation_svd(
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
    _sym_eig3(work, w, vv)
    i0, i1, i2 = 0, 1, 2
    if w[i0] < w[i1]:
        i0, i1 = i1, i0
    if w[i1] < w[i2]:
        i1, i2 = i2, i1
    if w[i0] < w[i1]:
        i0, i1 = i1, i0
    for i in range(3):
        v[i, 0], v[i, 1], v[i, 2] = vv[i, i0], vv[i, i1], vv[i, i2]
    if _det3(v) < 0.0:
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
def _positive_definite3(a: np.ndarray) -> bool:
    """Sylvester's criterion on a symmetric 3x3."""
    m2 = a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    return a[0, 0] > 0.0 and m2 > 0.0 and _det3(a) > 0.0


@njit(cache=True)
def _singular_pair(k: int) -> tuple[int, int]:
    """The two singular axes (a, b) that twist / flip mode k couples."""
    return (1, 2) if k == 0 else ((0, 2) if k == 1 else (0, 1))


@njit(cache=True)
def _analytic_eigensystem(
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
    With F = U diag(s) V^T (rotations U, V, from _rotation_svd):
    - twist / flip about singular axis k, coupling axes (a, b) = _singular_pair(k):
      Q = (u_b v_a^T -/+ u_a v_b^T) / sqrt(2), eigenvalue mu +/- f3 s_k
      (twist_flip[2k], twist_flip[2k + 1]);
    - scaling: span of u_c v_c^T, where the Hessian is the 3x3 block
      scale = mu I + f33 g g^T + f3 [[0, s2, s1], [s2, 0, s0], [s1, s0, 0]],
      g = (s1 s2, s0 s2, s0 s1).
    With project, negative eigenvalues are clamped to 0 (the 3x3 block by Jacobi, only when it
    is not positive definite). work, q (3,3) and w (3,) are scratch.
    """
    _rotation_svd(f, u, s, v, work, q, w)
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
    if project and not _positive_definite3(scale):
        for r in range(3):
            for c in range(3):
                work[r, c] = scale[r, c]
        _sym_eig3(work, w, q)
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
def _mat3() -> np.ndarray:
    return np.empty((3, 3))


@njit(cache=True)
def _dpdf_analytic(f: np.ndarray, mu: float, lam: float, project: bool, out: np.ndarray) -> None:
    u, v, work, q, scale = _mat3(), _mat3(), _mat3(), _mat3(), _mat3()
    s, w = np.empty(3), np.empty(3)
    tf = np.empty(6)
    _analytic_eigensystem(f, mu, lam, project, u, v, s, tf, scale, work, q, w)
    out[:, :] = 0.0
    qv = np.empty(9)
    for k in range(3):
        a, b = _singular_pair(k)
        for n in range(2):
            sign = -1.0 if n == 0 else 1.0
            for r in range(3):
                for c in range(3):
                    qv[3 * r + c] = _INV_SQRT2 * (u[r, b] * v[c, a] + sign * u[r, a] * v[c, b])
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
def _dpdf_explicit(f: np.ndarray, mu: float, lam: float, out: np.ndarray) -> None:
    """d2psi/dF2 = mu Id + f33 g g^T + f3 d2J/dF2, d2J/dF_ij dF_kl = e_ikm e_jln F_mn."""
    _dpdf_explicit_into(f, mu, lam, out, np.empty(9))


@njit(cache=True)
def _dpdf_explicit_into(
    f: np.ndarray, mu: float, lam: float, out: np.ndarray, g: np.ndarray
) -> None:
    """_dpdf_explicit with g = dJ/dF (9,) scratch given (no allocation per tet)."""
    j = _det3(f)
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
def _dpdf_eigh(f: np.ndarray, mu: float, lam: float, project: bool, out: np.ndarray) -> None:
    _dpdf_explicit(f, mu, lam, out)
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


# --- mesh kernels -------------------------------------------------------------------------------


@njit(cache=True)
def _energy_kernel(
    x: np.ndarray, tets: np.ndarray, dm_inv: np.ndarray, volumes: np.ndarray, mu: float, lam: float
) -> np.ndarray:
    out = np.empty(tets.shape[0])
    f = np.empty((3, 3))
    for e in range(tets.shape[0]):
        _deformation_gradient(x, tets[e], dm_inv[e], f)
        out[e] = volumes[e] * _psi(f, mu, lam)
    return out


@njit(cache=True)
def _element_gradient(
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
    energy = volumes[e] * _psi(f, mu, lam)
    if not _first_piola(f, mu, lam, p) > 0.0:
        return energy, False
    _shape_gradients(dm_inv[e], bm)
    vol = volumes[e]
    for a in range(4):
        base = 3 * tets[e, a]
        for i in range(3):
            grad[base + i] += vol * (p[i, 0] * bm[a, 0] + p[i, 1] * bm[a, 1] + p[i, 2] * bm[a, 2])
    return energy, True


@njit(cache=True)
def _gradient_kernel(
    x: np.ndarray, tets: np.ndarray, dm_inv: np.ndarray, volumes: np.ndarray, mu: float, lam: float
) -> tuple[float, np.ndarray]:
    grad = np.zeros(3 * x.shape[0])
    f, p, bm = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3))
    energy = 0.0
    for e in range(tets.shape[0]):
        energy += _element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)[0]
    return energy, grad


@njit(cache=True)
def _analytic_scratch() -> tuple[np.ndarray, ...]:
    return (
        _mat3(), _mat3(), _mat3(), _mat3(), _mat3(), np.empty((4, 3)), np.empty(3),
        np.empty(3), np.empty(6), np.empty(12), np.empty((3, 12)), np.empty((3, 12)),
    )  # fmt: skip


@njit(cache=True)
def _element_hessian_analytic(
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
    from _analytic_scratch."""
    u, v, work, q, scale, vb, s, w3, tf, w, ws, zs = scratch
    he[:, :] = 0.0
    _analytic_eigensystem(f, mu, lam, project, u, v, s, tf, scale, work, q, w3)
    # vb[a, c] = v_c . bm[a]: mode Q = u_r v_c^T maps to (B^T Q)[3a + i] = u_r[i] vb[a, c].
    for a in range(4):
        for c in range(3):
            vb[a, c] = v[0, c] * bm[a, 0] + v[1, c] * bm[a, 1] + v[2, c] * bm[a, 2]
    for k in range(3):
        ka, kb = _singular_pair(k)
        for n in range(2):
            lm = tf[2 * k + n]
            if lm == 0.0:
                continue
            sign = -1.0 if n == 0 else 1.0
            for a in range(4):
                for i in range(3):
                    w[3 * a + i] = _INV_SQRT2 * (u[i, kb] * vb[a, ka] + sign * u[i, ka] * vb[a, kb])
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


@njit(cache=True)
def _element_hessian_explicit(
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
    _dpdf_explicit_into(f, mu, lam, dpdf, t[:, 0])
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
def _hessian_kernel(
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
    scratch = _analytic_scratch()
    energy = 0.0
    for e in range(nt):
        psi_e, ok = _element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)
        energy += psi_e
        if ok:
            _element_hessian_analytic(f, bm, volumes[e], mu, lam, project, scratch, hess[e])
    return energy, grad, hess


@njit(cache=True)
def _hessian_kernel_eigh(
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
        psi_e, ok = _element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)
        energy += psi_e
        if not ok:
            continue
        _dpdf_explicit(f, mu, lam, dpdf)
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


@njit(cache=True)
def _scatter_kernel(
    hess: np.ndarray, pair_of: np.ndarray, base: np.ndarray, stride: np.ndarray, nnz: int
) -> np.ndarray:
    data = np.zeros(nnz)
    for e in range(hess.shape[0]):
        _scatter_element(data, hess[e], pair_of[e], base, stride)
    return data


@njit(cache=True)
def _scatter_element(
    data: np.ndarray, he: np.ndarray, pairs: np.ndarray, base: np.ndarray, stride: np.ndarray
) -> None:
    # Adds one tet's 12x12 block into the assembled data (slot of (pair, i, k) = base + i stride + k).
    for a in range(4):
        for b in range(4):
            pr = pairs[4 * a + b]
            b0 = base[pr]
            st = stride[pr]
            for i in range(3):
                for k in range(3):
                    data[b0 + i * st + k] += he[3 * a + i, 3 * b + k]
