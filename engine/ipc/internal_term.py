"""The internal energy of one implicit-Euler time step: inertia 1/(2h^2) |u - u_hat|_M^2, gravity
-f_g . u, the pads' Neo-Hookean energy and the object's affine orthogonality energy (J, divided
by h^2). Smooth and unconstrained (max step 1); its Hessian has a fixed pattern on the reduced
unknowns (FreeInternalLayout), the base every other term's Hessian is added to.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.fem.neohookean import elastic_energy, elastic_gradient
from engine.ipc.affine_body import (
    orthogonality_energy,
    orthogonality_gradient,
    orthogonality_gradient_hessian,
)
from engine.ipc.helper_thread import in_pair, two_threads
from engine.ipc.ldl_kernels import scatter_sum
from engine.ipc.newton import upper_entries
from engine.ipc.reduction import Reduction
from engine.ipc.sparse_products import csr_times
from engine.ipc.system import GraspSystem
from engine.ipc.terms import Assembly

T = TypeVar("T")

# Tets per pad from which the two pads' elastic gradients and Hessians run on two threads: a
# 1.5 mm pad's 3,200-3,500 tets take about 0.7 ms per Hessian and 0.4 ms per gradient, a
# 3 mm pad's 830-890 about a quarter of that, near the 0.1-0.2 ms a hand-off costs.
THREAD_MIN_TETS = 2000


class FreeInternalLayout:
    """Fixed CSR pattern of the internal (inertia + elastic + orthogonality) Hessian on the
    reduced unknowns (engine.ipc.reduction): H_z = P^T H P.

    The pads' element assembly has a fixed pattern, so the reduced matrix is a gather of the
    assembled data instead of sparse slicing and sums (`data`), and the factorization takes its
    upper triangle scattered from the element data straight into its own (`scatter_upper`).
    Each full DOF maps to one unknown with a weight (1 for a free DOF, the closing direction
    for a glued vertex of force-driven plates) or to none (prescribed).
    """

    def __init__(self, system: GraspSystem, mass_h2: sp.csr_matrix, reduction: Reduction) -> None:
        rows, cols = [], []
        for blk in system.pads:
            m = blk.assembler.assemble(np.zeros((len(blk.rest.tets), 12, 12))).tocoo()
            rows.append(m.row + blk.dof.start)
            cols.append(m.col + blk.dof.start)
        r, c = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
        rows.append(r.ravel() + system.obj_dof.start)
        cols.append(c.ravel() + system.obj_dof.start)
        mass = mass_h2.tocoo()
        rows.append(mass.row)
        cols.append(mass.col)
        n_var = sum(len(x) for x in rows[:-1])
        index, weight = reduction.index, reduction.weight
        nz = reduction.n
        all_rows, all_cols = np.concatenate(rows), np.concatenate(cols)
        rr, cc = index[all_rows], index[all_cols]
        keep = (rr >= 0) & (cc >= 0)
        keys, target = np.unique(rr[keep] * nz + cc[keep], return_inverse=True)
        self.n_free = nz
        self.nnz = len(keys)
        self._indices = (keys % nz).astype(np.int32)
        self._indptr = np.searchsorted(keys // nz, np.arange(nz + 1)).astype(np.int32)
        keep_var = keep[:n_var]
        n_kept_var = int(keep_var.sum())
        w = (weight[all_rows] * weight[all_cols])[keep]
        # Per variable entry (pads' data, then the object's 12x12): its slot (-1: dropped) and
        # weight (1 for free DOFs; the closing direction's for glued vertices).
        self._target_var = np.full(n_var, -1, dtype=np.int64)
        self._target_var[keep_var] = target[:n_kept_var]
        self._weight_var = np.zeros(n_var)
        self._weight_var[keep_var] = w[:n_kept_var]
        # The mass term's entries: which of mass_h2's COO entries are kept, their slots and
        # weights (with_mass rescales the layout to another time step from them).
        self._mass_keep, self._mass_target, self._mass_w = (
            keep[n_var:],
            target[n_kept_var:],
            w[n_kept_var:],
        )
        # The upper triangle's entries of the pattern, for engine.ipc.newton.PatternLdl, and
        # where each pattern entry and each variable entry lands among them (-1: below the
        # diagonal, or dropped): the factorization's data is scattered from the pads' data
        # straight into its slots (InternalHessian.scatter_into).
        self.upper_index, self.upper_keys = upper_entries(self._indptr, self._indices, nz)
        self._upper_of = np.full(self.nnz, -1, dtype=np.int64)
        self._upper_of[self.upper_index] = np.arange(len(self.upper_index))
        target = self._target_var
        self._upper_var = np.where(target >= 0, self._upper_of[np.maximum(target, 0)], -1)
        self._mass_data = self._mass_data_of(mass_h2)
        self._upper_mass = self._mass_data[self.upper_index]
        # (the factorization's slots of the upper entries, _source_slots of them)
        self._var_slots: (
            tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] | None
        ) = None

    def _mass_data_of(self, mass_h2: sp.csr_matrix) -> np.ndarray:
        mass_w = mass_h2.tocoo().data[self._mass_keep] * self._mass_w
        return np.bincount(self._mass_target, weights=mass_w, minlength=self.nnz)

    def with_mass(self, mass_h2: sp.csr_matrix) -> FreeInternalLayout:
        """This layout for another time step: the same pattern, mass_h2 (M / h^2, of the same
        structure) in place of its mass term. A longer lift or free-flight step needs no new
        pattern (a new layout costs ~4 ms)."""
        other = copy.copy(self)
        other._mass_data = self._mass_data_of(mass_h2)
        other._upper_mass = other._mass_data[self.upper_index]
        return other

    def data(self, pad_data: list[np.ndarray], object_block: np.ndarray) -> np.ndarray:
        """The reduced Hessian's data in this pattern (`with_data` makes it a matrix) from the
        pads' assembled data and the object's 12x12 block."""
        values = np.zeros(self.nnz)
        offset = 0
        for data in (*pad_data, object_block.ravel()):
            _gather_add(values, data, self._target_var, self._weight_var, offset)
            offset += len(data)
        values += self._mass_data
        return values

    def scatter_upper(
        self,
        out: np.ndarray,
        slots: np.ndarray,
        pad_data: list[np.ndarray],
        object_block: np.ndarray,
        diagonal: list[tuple[int, float]],
    ) -> None:
        """Add the upper triangle of `data(pad_data, object_block)` plus `diagonal` ((unknown,
        value) pairs) into out[slots] (slots: one per upper entry), each entry summed in the
        order `data` sums it, so the result is the same to the bit."""
        sources = (*pad_data, object_block.ravel())
        cached = self._var_slots
        if cached is None or cached[0] is not slots:
            cached = self._var_slots = (slots, self._source_slots(slots, sources))
        for data, (index, slot, weight) in zip(sources, cached[1], strict=True):
            _scatter_add(out, slot, data, index, weight)
        scatter_sum(out, slots, self._upper_mass)
        for k, value in diagonal:
            out[slots[self._upper_of[self.diagonal_slot(k)]]] += value

    def _source_slots(
        self, slots: np.ndarray, sources: tuple[np.ndarray, ...]
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per source (each pad's data, the object's block): which of its entries land in the
        upper triangle, their slots in the factorization's data and their weights. Looked up
        once per analysis (the factorization passes the same slots while it holds), not per
        matrix; about half of the entries lie below the diagonal and are skipped."""
        out, offset = [], 0
        for data in sources:
            upper = self._upper_var[offset : offset + len(data)]
            index = np.flatnonzero(upper >= 0)
            weight = self._weight_var[offset : offset + len(data)][index]
            out.append((index.astype(np.int32), slots[upper[index]].astype(np.int32), weight))
            offset += len(data)
        return out

    def with_data(self, values: np.ndarray) -> sp.csr_matrix:
        """The CSR matrix of this pattern holding `values` (not copied)."""
        return sp.csr_matrix(
            (values, self._indices, self._indptr), shape=(self.n_free, self.n_free), copy=False
        )

    def diagonal_slot(self, k: int) -> int:
        """Index in the pattern's data of the diagonal entry (k, k); every unknown has one
        (its mass, or the glued vertices' mass for the closing coordinate)."""
        lo, hi = self._indptr[k], self._indptr[k + 1]
        slot = lo + int(np.searchsorted(self._indices[lo:hi], k))
        if not (slot < hi and self._indices[slot] == k):
            raise ValueError(f"unknown {k} has no diagonal entry in the internal pattern")
        return slot


@njit(cache=True)
def _gather_add(
    out: np.ndarray, data: np.ndarray, target: np.ndarray, weight: np.ndarray, offset: int
) -> None:
    # out[target[offset + i]] += weight[offset + i] data[i], in order (as a bincount sums).
    for i in range(len(data)):
        t = target[offset + i]
        if t >= 0:
            out[t] += data[i] * weight[offset + i]


@njit(cache=True)
def _scatter_add(
    out: np.ndarray, slots: np.ndarray, data: np.ndarray, index: np.ndarray, weight: np.ndarray
) -> None:
    # out[slots[k]] += data[index[k]] weight[k], in order (index increasing).
    for k in range(len(index)):
        out[slots[k]] += data[index[k]] * weight[k]


@dataclass
class InternalHessian:
    """The internal terms' Hessian over the reduced unknowns, kept as the pads' assembled data,
    the object's 12x12 block and later diagonal additions (the closing coordinate's
    curvature): the factorization scatters its upper triangle straight into its own data
    (engine.ipc.pattern_ldl's ScatteredPart) without the gathered copy `values` makes."""

    layout: FreeInternalLayout
    pad_data: list[np.ndarray]
    object_block: np.ndarray
    diagonal: list[tuple[int, float]] = field(default_factory=list)

    @property
    def keys(self) -> np.ndarray:
        """The upper triangle's keys col * n + row (the layout's, one object per layout)."""
        return self.layout.upper_keys

    def add_diagonal(self, k: int, value: float) -> None:
        """Add `value` to the diagonal entry of unknown k."""
        self.diagonal.append((k, value))

    def values(self) -> np.ndarray:
        """The data in the layout's pattern (`layout.with_data` makes it a matrix)."""
        values = self.layout.data(self.pad_data, self.object_block)
        for k, value in self.diagonal:
            values[self.layout.diagonal_slot(k)] += value
        return values

    def scatter_into(self, out: np.ndarray, slots: np.ndarray) -> None:
        """Add the upper triangle into out[slots] (slots: one per key)."""
        self.layout.scatter_upper(out, slots, self.pad_data, self.object_block, self.diagonal)


class InternalTerm:
    """Inertia, gravity, pad elasticity and object orthogonality of one step (J, divided by h^2)."""

    def __init__(
        self,
        system: GraspSystem,
        u_prev: np.ndarray,
        v_prev: np.ndarray,
        h: float,
        reduction: Reduction | None = None,
    ) -> None:
        self.system = system
        self.h = h
        self.u_hat = u_prev + h * v_prev
        # M / h^2 per step length, kept on the system like the layouts (0.4 % of a trial).
        masses = system.__dict__.setdefault("_masses_h2", {})
        if h not in masses:
            masses[h] = system.mass / (h * h)
        self.mass_h2: sp.csr_matrix = masses[h]
        self.reduction = reduction if reduction is not None else Reduction(system)
        cache = system.__dict__.setdefault("_free_layouts", {})
        key = (h, self.reduction.force_driven)
        if key not in cache:
            same = [v for (_, driven), v in cache.items() if driven == key[1]]
            cache[key] = (
                same[0].with_mass(self.mass_h2)
                if same
                else FreeInternalLayout(system, self.mass_h2, self.reduction)
            )
        self.layout: FreeInternalLayout = cache[key]
        self.k_ortho_volume = system.object.stiffness_pa * system.object.volume_m3

    def value(self, u: np.ndarray) -> float:
        """The energy (J); inf when a pad element is inverted."""
        s = self.system
        du = u - self.u_hat
        e = 0.5 * float(du @ csr_times(self.mass_h2, du)) - float(s.gravity_force @ u)
        for k, blk in enumerate(s.pads):
            e += elastic_energy(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
        e += orthogonality_energy(s.object_state(u), self.k_ortho_volume)
        # An inverted element's energy is inf or NaN: either way the state is inadmissible.
        return e if np.isfinite(e) else np.inf

    def gradient(self, u: np.ndarray) -> np.ndarray:
        """Gradient over all DOFs (N, or N m for the object's affine DOFs)."""
        s = self.system

        def pad_gradient(k: int) -> np.ndarray:
            x = s.pad_positions(u, k)
            return elastic_gradient(x, s.pads[k].rest, s.mu_lame, s.lambda_lame)[1]

        g = csr_times(self.mass_h2, u - self.u_hat) - s.gravity_force
        for blk, ge in zip(s.pads, self._per_pad(pad_gradient), strict=True):
            g[blk.dof] += ge
        g[s.obj_dof] += orthogonality_gradient(s.object_state(u), self.k_ortho_volume)
        return g

    def gradient_hessian(
        self, u: np.ndarray, project: bool = True
    ) -> tuple[np.ndarray, InternalHessian]:
        """Gradient over all DOFs and the Hessian over the reduced unknowns (in
        `self.layout`'s pattern); with `project` each pad element's block and the object's
        orthogonality block are PSD-projected, else exact. A pad tet whose deformation moved by
        at most 1e-3 since its block was computed keeps that block
        (engine.fem.element_hessian_cache); the gradient is always exact."""
        s = self.system

        def pad_terms(k: int) -> tuple[float, np.ndarray, np.ndarray]:
            return s.pads[k].hessians.energy_gradient_data(s.pad_positions(u, k), project)

        g = csr_times(self.mass_h2, u - self.u_hat) - s.gravity_force
        pad_data = []
        for blk, (_, ge, data) in zip(s.pads, self._per_pad(pad_terms), strict=True):
            g[blk.dof] += ge
            pad_data.append(data)
        _, go, ho = orthogonality_gradient_hessian(s.object_state(u), self.k_ortho_volume, project)
        g[s.obj_dof] += go
        return g, InternalHessian(self.layout, pad_data, ho)

    def _per_pad(self, of_pad: Callable[[int], T]) -> list[T]:
        """[of_pad(k) for each pad k]: the two pads on two threads when each has at least
        THREAD_MIN_TETS tets and the process may use two (engine.ipc.helper_thread); the same
        numbers either way."""
        pads = self.system.pads
        large = len(pads) == 2 and min(len(b.rest.tets) for b in pads) >= THREAD_MIN_TETS
        if large and two_threads():
            return list(in_pair(lambda: of_pad(0), lambda: of_pad(1)))
        return [of_pad(k) for k in range(len(pads))]

    # --- the Term protocol (engine.ipc.terms) ------------------------------------------------
    def add_gradient(self, u: np.ndarray, out: Assembly) -> None:
        """Add the gradient at u to `out`."""
        out.add_full_gradient(self.gradient(u))

    def add_gradient_hessian(self, u: np.ndarray, project: bool, out: Assembly) -> None:
        """Add the gradient at u and set the Hessian's fixed pattern and data in `out`."""
        g, hessian = self.gradient_hessian(u, project)
        out.add_full_gradient(g)
        out.set_internal(hessian)

    def max_step(self, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        """No constraint: the full step is allowed (inversions show up as infinite energy)."""
        return 1.0

    def begin(self, u: np.ndarray) -> None:
        """Nothing to prepare: the term has no state that depends on the iterate."""

    def accept(self, u: np.ndarray) -> bool:
        """Its form never changes."""
        return False

    def structure(self) -> None:
        """A fixed pattern."""
        return None
