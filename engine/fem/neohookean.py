"""Neo-Hookean elasticity of linear tets (the IPC form), with numba kernels.

psi(F) = mu/2 (tr(F^T F) - 3) - mu ln J + lam/2 (ln J)^2, J = det F, F = Ds Dm^-1.
The total energy is sum_e rest_volume_e * psi(F_e). Elements with J <= 0 have energy +inf:
the IPC line search relies on that to stay inversion-free.

DOF order everywhere is x0, y0, z0, x1, ... ; vec(F) is row-major (F_ij at 3 i + j).

This module is the Python interface (input checks, rest data, the assembled Hessian); the
kernels are in engine.fem.neohookean_density (one F), neohookean_elements (tets and meshes) and
matrix3 (3x3 linear algebra).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.errors import MeshError, ParameterError
from engine.fem.neohookean_density import dpdf_analytic, dpdf_eigh
from engine.fem.neohookean_elements import (
    energy_kernel,
    gradient_kernel,
    hessian_kernel,
    hessian_kernel_eigh,
)

Projection = Literal["analytic", "eigh"]


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
    return energy_kernel(xs, rest.tets, rest.dm_inv, rest.volumes, mu, lam)


def elastic_gradient(
    x: np.ndarray, rest: TetRest, mu: float, lam: float
) -> tuple[float, np.ndarray]:
    """(energy, gradient (3n,)). Inverted tets make the energy +inf and add nothing to the
    gradient."""
    xs = _positions(x, rest)
    mu, lam = _material(mu, lam)
    energy, grad = gradient_kernel(xs, rest.tets, rest.dm_inv, rest.volumes, mu, lam)
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
    kernel = hessian_kernel_eigh if projection == "eigh" else hessian_kernel
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
        dpdf_eigh(fm, mu, lam, bool(project_psd), out)
    elif projection == "analytic":
        dpdf_analytic(fm, mu, lam, bool(project_psd), out)
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


# --- assembly kernels -------------------------------------------------------------------------


@njit(cache=True)
def _scatter_kernel(
    hess: np.ndarray, pair_of: np.ndarray, base: np.ndarray, stride: np.ndarray, nnz: int
) -> np.ndarray:
    data = np.zeros(nnz)
    for e in range(hess.shape[0]):
        scatter_element(data, hess[e], pair_of[e], base, stride)
    return data


@njit(cache=True, inline="always")
def scatter_element(
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
