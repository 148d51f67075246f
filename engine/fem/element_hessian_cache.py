"""Assembled Neo-Hookean Hessians that recompute only the tets whose deformation changed.

Between Newton iterates most of a gripper pad does not deform: in REACH cube trials an
assembly finds 1.2 % of the pads' tets (12.6 % at E = 1e6 Pa) with a deformation gradient more
than 1e-3 away from the one their block was computed at. The other blocks differ from the exact
ones by about that fraction of the element's stiffness, which only perturbs the Newton
direction: the energy and gradient stay exact, so a converged iterate satisfies the same
tolerance. Each tet keeps the F and the block of its last computation; an assembly recomputes
the tets whose F moved more than `tol` (max abs entry) from theirs and adds the difference into
the kept assembled data.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.errors import ParameterError
from engine.fem.neohookean import (
    HessianAssembler,
    TetRest,
    _material,
    _positions,
    scatter_element,
)
from engine.fem.neohookean_elements import (
    analytic_scratch,
    element_gradient,
    element_hessian_analytic,
    element_hessian_explicit,
)

# Largest change (max abs entry of F - F_kept, dimensionless) for which a tet's kept block is
# reused. d2psi/dF2 holds F^-T (x) F^-T terms, so a kept block is off by about 2 tol of the
# element's stiffness.
REUSE_TOL = 1e-3


class ElementHessianCache:
    """The assembled Hessian data of one tet mesh with one material, kept between calls.

    One cache per mesh, material and assembler (the pads of one simulated system); the exact
    and the PSD-projected Hessians keep separate blocks.
    """

    def __init__(
        self,
        rest: TetRest,
        mu: float,
        lam: float,
        assembler: HessianAssembler,
        tol: float = REUSE_TOL,
    ) -> None:
        if not (np.isfinite(tol) and tol >= 0.0):
            raise ParameterError(f"the Hessian reuse tolerance must be finite and >= 0, got {tol}")
        self.rest = rest
        self.mu, self.lam = _material(mu, lam)
        self.assembler = assembler
        self.tol = float(tol)
        # Per mode (False: exact, True: projected), made at its first use: the kept F (NaN:
        # none), blocks (1.15 kB per tet) and assembled data.
        self._kept: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.recomputed = 0  # tets recomputed over all calls (diagnostics)

    def energy_gradient_data(
        self, x: np.ndarray, project_psd: bool
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """(energy (J), gradient (3n,), the assembled Hessian's data (a copy)) at positions x,
        the data being assembler.assemble_data(elastic_hessian(...)[2]) up to the reuse
        tolerance."""
        xs = _positions(x, self.rest)
        a, r = self.assembler, self.rest
        mode = bool(project_psd)
        if mode not in self._kept:
            nt = len(r.tets)
            self._kept[mode] = (
                np.full((nt, 3, 3), np.nan),
                np.zeros((nt, 12, 12)),
                np.zeros(a.nnz),
            )
        f_kept, he_kept, data = self._kept[mode]
        energy, grad, n = _cached_hessian_data_kernel(
            xs, r.tets, r.dm_inv, r.volumes, self.mu, self.lam, mode,
            a._pair_of, a._base, a._stride, f_kept, he_kept, data, self.tol,
        )  # fmt: skip
        self.recomputed += n
        return float(energy), grad, data.copy()


@njit(cache=True, nogil=True)
def _cached_hessian_data_kernel(
    x: np.ndarray,
    tets: np.ndarray,
    dm_inv: np.ndarray,
    volumes: np.ndarray,
    mu: float,
    lam: float,
    project: bool,
    pair_of: np.ndarray,
    base: np.ndarray,
    stride: np.ndarray,
    f_kept: np.ndarray,
    he_kept: np.ndarray,
    data: np.ndarray,
    tol: float,
) -> tuple[float, np.ndarray, int]:
    """Energy, gradient and the number of recomputed tets; updates f_kept, he_kept and data
    (the sum of the kept blocks) in place."""
    nt = tets.shape[0]
    grad = np.zeros(3 * x.shape[0])
    f, p, bm = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3))
    scratch = analytic_scratch()
    dpdf, t = np.empty((9, 9)), np.empty((9, 12))
    he, diff = np.empty((12, 12)), np.empty((12, 12))
    energy = 0.0
    recomputed = 0
    for e in range(nt):
        psi_e, ok = element_gradient(x, tets, dm_inv, volumes, e, mu, lam, f, p, bm, grad)
        energy += psi_e
        if ok:
            change = 0.0
            for i in range(3):
                for j in range(3):
                    change = max(change, abs(f[i, j] - f_kept[e, i, j]))
            if change <= tol and not np.isnan(f_kept[e, 0, 0]):  # NaN: nothing kept yet
                continue
            if project:
                element_hessian_analytic(f, bm, volumes[e], mu, lam, True, scratch, he)
            else:
                element_hessian_explicit(f, bm, volumes[e], mu, lam, dpdf, t, he)
            f_kept[e] = f
            recomputed += 1
        else:
            # Inverted (infinite energy): its block is zero, as in elastic_hessian.
            he[:, :] = 0.0
            f_kept[e] = np.nan
        for i in range(12):
            for j in range(12):
                diff[i, j] = he[i, j] - he_kept[e, i, j]
                he_kept[e, i, j] = he[i, j]
        scatter_element(data, diff, pair_of[e], base, stride)
    return energy, grad, recomputed
