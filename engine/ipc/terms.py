"""The energy terms of one implicit-Euler time step, each with value, gradient, Hessian, max step.

All terms are divided by h^2 so they are in J and the barrier gradient is a force in N:

- `InternalTerm`: inertia 1/(2h^2) |u - u_hat|_M^2, gravity -f_g . u, the pads' Neo-Hookean
  energy and the object's affine orthogonality energy. Smooth, unconstrained (max step 1).
- `ContactTerm`: kappa B(X) + D(X - X^t), the ipctk log barrier and the friction potential
  lagged at the start of the step (X = J u, the collision vertices). It owns its contact set
  (rebuilt at every iterate) and its barrier stiffness kappa (adapted after each accepted
  iterate), and limits every step by continuous collision detection.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.fem.neohookean import elastic_energy, elastic_gradient
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.affine_body import (
    orthogonality_energy,
    orthogonality_gradient,
    orthogonality_gradient_hessian,
)
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.newton import upper_entries
from engine.ipc.reduction import Reduction
from engine.ipc.system import GraspSystem


class FreeInternalLayout:
    """Fixed CSR pattern of the internal (inertia + elastic + orthogonality) Hessian on the
    reduced unknowns (engine.ipc.reduction): H_z = P^T H P.

    The pads' element assembly has a fixed pattern, so the reduced matrix is a gather of the
    assembled data: one bincount per Newton iteration instead of sparse slicing and sums. Each
    full DOF maps to one unknown with a weight (1 for a free DOF, the closing direction for a
    glued vertex of force-driven plates) or to none (prescribed).
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
        self._mass_data = self._mass_data_of(mass_h2)
        # The upper triangle's entries of the pattern, for engine.ipc.newton.PatternLdl.
        self.upper_index, self.upper_keys = upper_entries(self._indptr, self._indices, nz)

    def _mass_data_of(self, mass_h2: sp.csr_matrix) -> np.ndarray:
        mass_w = mass_h2.tocoo().data[self._mass_keep] * self._mass_w
        return np.bincount(self._mass_target, weights=mass_w, minlength=self.nnz)

    def with_mass(self, mass_h2: sp.csr_matrix) -> FreeInternalLayout:
        """This layout for another time step: the same pattern, mass_h2 (M / h^2, of the same
        structure) in place of its mass term. A longer lift or free-flight step needs no new
        pattern (a new layout costs ~4 ms)."""
        other = copy.copy(self)
        other._mass_data = self._mass_data_of(mass_h2)
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
        self.mass_h2 = system.mass / (h * h)
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
        """The energy (J); inf or NaN when a pad element is inverted."""
        s = self.system
        du = u - self.u_hat
        e = 0.5 * float(du @ (self.mass_h2 @ du)) - float(s.gravity_force @ u)
        for k, blk in enumerate(s.pads):
            e += elastic_energy(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
        e += orthogonality_energy(s.object_state(u), self.k_ortho_volume)
        return e

    def gradient(self, u: np.ndarray) -> np.ndarray:
        """Gradient over all DOFs (N, or N m for the object's affine DOFs)."""
        s = self.system
        g = self.mass_h2 @ (u - self.u_hat) - s.gravity_force
        for k, blk in enumerate(s.pads):
            _, ge = elastic_gradient(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
            g[blk.dof] += ge
        g[s.obj_dof] += orthogonality_gradient(s.object_state(u), self.k_ortho_volume)
        return g

    def gradient_hessian(
        self, u: np.ndarray, project: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """Gradient over all DOFs and the Hessian over the reduced unknowns as its data in
        `self.layout`'s pattern; with `project` each pad element's block and the object's
        orthogonality block are PSD-projected, else exact. A pad tet whose deformation moved by
        at most 1e-3 since its block was computed keeps that block
        (engine.fem.element_hessian_cache); the gradient is always exact."""
        s = self.system
        g = self.mass_h2 @ (u - self.u_hat) - s.gravity_force
        pad_data = []
        for k, blk in enumerate(s.pads):
            _, ge, data = blk.hessians.energy_gradient_data(s.pad_positions(u, k), project)
            g[blk.dof] += ge
            pad_data.append(data)
        _, go, ho = orthogonality_gradient_hessian(s.object_state(u), self.k_ortho_volume, project)
        g[s.obj_dof] += go
        return g, self.layout.data(pad_data, ho)

    def max_step(self, u: np.ndarray, du: np.ndarray) -> float:
        """No constraint: the full step is allowed (inversions show up as infinite energy)."""
        return 1.0


# How far (in dhat) the vertices may leave a Newton step's move and still use its broad phase.
COVER_MARGIN = 1.0


class ContactTerm:
    """Barrier + lagged friction over the collision vertices; owns contact set and stiffness.

    `value(u)` builds the contact set at u (a line-search trial; from the broad phase of the
    CandidateCover `max_step` last built when it covers u); `accept(u)` makes the last evaluated u the
    current iterate, adopting its contact set without rebuilding and adapting kappa (ipctk's
    rule: grow it while the closest pair keeps approaching, up to kappa_max).
    """

    def __init__(
        self,
        system: GraspSystem,
        u_prev: np.ndarray,
        h: float,
        kappa: float,
        kappa_max: float,
        dhat: float,
        mu: float,
        mu_ground: float,
        eps_v: float,
        collisions_prev: ipc.NormalCollisions | None = None,
        cover_prev: CandidateCover | None = None,
    ) -> None:
        self.system = system
        self.dhat = dhat
        self.kappa_max = kappa_max
        self.x_prev = system.collision_vertices(u_prev)
        self._set_kappa(kappa)
        # Lagged friction: normal forces and tangent bases from the start of the step.
        c_prev = collisions_prev
        if c_prev is None:
            c_prev = ipc.active_collisions(system.collision_mesh, self.x_prev, dhat)
        self.tangential = ipc.lagged_friction(
            system.collision_mesh, self.x_prev, c_prev, self.barrier, mu, mu_ground
        )
        self.friction = ipc.friction(eps_v * h)
        self._friction_setup = (mu, mu_ground, self.barrier)  # what `tangential` was built with
        self.collisions: ipc.NormalCollisions = c_prev
        self._current: np.ndarray | None = None
        self._min_d2 = np.inf
        self._evaluated: tuple[np.ndarray, np.ndarray, ipc.NormalCollisions] | None = None
        # The last step's cover: its boxes still hold every pair within 2 dhat of positions
        # inside them, so the first contact set of this step needs no broad phase when the
        # initial guess lies inside (it moves by about one step's motion).
        self._cover: CandidateCover | None = cover_prev

    @property
    def cover(self) -> CandidateCover | None:
        """The broad-phase cover this term used last (None before any)."""
        return self._cover

    def _set_kappa(self, kappa: float) -> None:
        self.kappa = float(kappa)
        self.barrier = ipc.barrier(self.dhat, self.kappa)

    # --- iterates ------------------------------------------------------------------------------
    def begin(self, u: np.ndarray) -> None:
        """Make u the current iterate (the start of a solve): build its contact set."""
        x = self.system.collision_vertices(u)
        cover = self._cover
        if cover is not None and cover.covers(x):
            self.collisions = ipc.active_collisions_among(
                cover.candidates, self.system.collision_mesh, x, self.dhat
            )
        else:
            self.collisions = ipc.active_collisions(self.system.collision_mesh, x, self.dhat)
        self._current = u
        self._min_d2 = ipc.minimum_squared_distance(self.collisions, self.system.collision_mesh, x)
        self._evaluated = None

    def accept(self, u: np.ndarray) -> bool:
        """Make u (the last value() argument) the current iterate; True if kappa changed."""
        if self._evaluated is not None and self._evaluated[0] is u:
            _, x, collisions = self._evaluated
        else:
            x = self.system.collision_vertices(u)
            collisions = ipc.active_collisions(self.system.collision_mesh, x, self.dhat)
        self.collisions, self._current, self._evaluated = collisions, u, None
        d2 = ipc.minimum_squared_distance(collisions, self.system.collision_mesh, x)
        changed = False
        if np.isfinite(d2) and np.isfinite(self._min_d2):
            kappa = ipc.update_barrier_stiffness(
                self._min_d2, d2, self.kappa_max, self.kappa, self.system.bbox_diagonal
            )
            if kappa != self.kappa:
                self._set_kappa(kappa)
                changed = True
        self._min_d2 = d2
        return changed

    def _collisions_at(self, u: np.ndarray) -> tuple[np.ndarray, ipc.NormalCollisions]:
        s = self.system
        x = s.collision_vertices(u)
        if u is self._current:
            return x, self.collisions
        cover = self._cover
        if cover is not None and cover.covers(x):
            collisions = ipc.active_collisions_among(
                cover.candidates, s.collision_mesh, x, self.dhat
            )
        else:
            collisions = ipc.active_collisions(s.collision_mesh, x, self.dhat)
        self._evaluated = (u, x, collisions)
        return x, collisions

    # --- the term ------------------------------------------------------------------------------
    def value(self, u: np.ndarray) -> float:
        """kappa B + D at u (J), with the contact set of u."""
        s = self.system
        x, collisions = self._collisions_at(u)
        e = self.barrier(collisions, s.collision_mesh, x)
        if len(self.tangential):
            e += self.friction(self.tangential, s.collision_mesh, x - self.x_prev)
        return float(e)

    def gradient(self, u: np.ndarray) -> np.ndarray:
        """Collision-space gradient (3 n_collision,) at the current iterate's contact set."""
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        if len(self.collisions):
            g += self.barrier.gradient(self.collisions, s.collision_mesh, x)
        if len(self.tangential):
            g += self.friction.gradient(self.tangential, s.collision_mesh, x - self.x_prev)
        return g

    def gradient_hessian(
        self, u: np.ndarray, project: bool = True
    ) -> tuple[np.ndarray, sp.csr_matrix | None]:
        """Collision-space gradient and Hessian (None without contact), optionally PSD-projected."""
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        h = None
        method = ipc.PSD_CLAMP if project else ipc.PSD_NONE
        if len(self.collisions):
            g += self.barrier.gradient(self.collisions, s.collision_mesh, x)
            h = self.barrier.hessian(self.collisions, s.collision_mesh, x, method)
        if len(self.tangential):
            dx = x - self.x_prev
            g += self.friction.gradient(self.tangential, s.collision_mesh, dx)
            hf = self.friction.hessian(self.tangential, s.collision_mesh, dx, method)
            h = hf if h is None else h + hf
        return g, h

    def max_step(self, u: np.ndarray, du: np.ndarray) -> float:
        """Largest fraction of the full-DOF step du that keeps every state intersection-free.

        The CCD and the line search's contact sets take their pairs from a CandidateCover of
        the move, built here unless the last one still covers it.
        """
        s = self.system
        x = s.collision_vertices(u)
        dx = (s.jacobian @ du).reshape(-1, 3)
        x1 = x + dx
        cover = self._cover = CandidateCover.holding(
            self._cover, s.collision_mesh, x, x1, self.dhat, COVER_MARGIN * self.dhat
        )
        if u is self._current and self.step_is_free(dx):
            return 1.0
        return ipc.candidates_stepsize(cover.candidates, s.collision_mesh, x, x1)

    def covered_stepsize(self, x0: np.ndarray, x1: np.ndarray) -> float | None:
        """collision_free_stepsize of the move x0 -> x1 (n, 3) from this term's last
        CandidateCover (no broad phase), or None when the cover does not hold both ends.
        The next time step's initial guesses move the last iterate by about one step's
        motion, well inside the cover's margin."""
        cover = self._cover
        if cover is None or not cover.holds(x0, x1):
            return None
        return ipc.candidates_stepsize(cover.candidates, self.system.collision_mesh, x0, x1)

    def step_is_free(self, dx: np.ndarray) -> bool:
        """Whether moving the current iterate's collision vertices by dx (n, 3) m cannot bring
        any pair of primitives within half its distance: then CCD would allow the whole step.

        Every pair closer than dhat is in the current contact set (mesh pairs up to 2 dhat, the
        ground's up to dhat), so no pair is closer than d = min(its smallest distance, dhat); a
        pair's distance changes by at most the sum of its vertices' moves. Additive CCD stops a
        pair at 10 % of its start distance, so a step moving no vertex by more than d / 4 is
        whole. Near convergence Newton's steps are far
        below that, and the CCD query (broad and narrow phase, ~2-4 ms) is skipped.
        """
        if not len(dx):
            return True
        d = min(float(np.sqrt(self._min_d2)), self.dhat)
        longest = float(np.sqrt((dx * dx).sum(1).max()))
        return bool(np.isfinite(longest) and 2.0 * longest <= 0.5 * d)

    def ground_gradients(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n_collision, 3) gradients at collision positions x (the current iterate's) of the
        barrier and of the lagged friction over the vertex-ground pairs alone: their share of
        the term's gradients, in one call each (on GraspSystem.ground_mesh, whose contact sets
        hold the same vertex-ground pairs as the full mesh's: the same build radius, the same
        positions, and for friction the same lagged normal forces and coefficients)."""
        s = self.system
        mesh = s.ground_mesh
        barrier = np.zeros(3 * s.n_collision)
        friction = np.zeros(3 * s.n_collision)
        pairs = ipc.active_collisions(mesh, x, self.dhat)
        if len(pairs):
            barrier = self.barrier.gradient(pairs, mesh, x)
        mu, mu_ground, lag_barrier = self._friction_setup
        pairs_prev = ipc.active_collisions(mesh, self.x_prev, self.dhat)
        if len(pairs_prev):
            lagged = ipc.lagged_friction(mesh, self.x_prev, pairs_prev, lag_barrier, mu, mu_ground)
            if len(lagged):
                friction = self.friction.gradient(lagged, mesh, x - self.x_prev)
        return barrier.reshape(-1, 3), friction.reshape(-1, 3)

    def unit_barrier_gradient(self, u: np.ndarray) -> np.ndarray:
        """Collision-space gradient of the barrier with kappa = 1 (for the initial kappa)."""
        s = self.system
        x = s.collision_vertices(u)
        collisions = ipc.active_collisions(s.collision_mesh, x, self.dhat)
        if not len(collisions):
            return np.zeros(3 * s.n_collision)
        return ipc.barrier(self.dhat, 1.0).gradient(collisions, s.collision_mesh, x)


# The force-limited servo's lag at full force (m): its position spring is force / SERVO_LAG_M
# stiff (2e7 N/m at 20 N, like 3 mm of pad at E = 1e8 Pa).
SERVO_LAG_M = 1e-6


class ActuatorTerm:
    """The gripper's force-controlled closing: each jaw pushed with up to `force_n` along its normal.

    With s the closing travel of each jaw beyond the step's reference (engine.ipc.reduction):
    - a force hold (`command_m` None): E = -2 F s, the work of the actuator on both jaws;
    - a force-limited position servo (`command_m` = c, the travel commanded this step):
      E = 2 H(s - c) with H the Huber function of slope F: the jaw follows the command like a
      stiff spring (F per `servo_error_m` of lag) until it pushes with F, then with F only, as
      a current-limited gripper motor closing at its speed does;
    plus the inertia of the two fingers (mass m_f each) against the closing speed of the
    previous step, m_f (s - s_hat)^2 / h^2 with s_hat = h v_closing.
    """

    def __init__(
        self,
        reduction: Reduction,
        reference: np.ndarray,
        force_n: float,
        finger_mass_kg: float,
        closing_speed_m_s: float,
        h: float,
        command_m: float | None = None,
        servo_error_m: float = SERVO_LAG_M,
    ) -> None:
        if reduction.closing is None:
            raise ValueError("an actuator needs force-driven plates (a closing coordinate)")
        self.reduction = reduction
        self.reference = reference
        self.force_n = float(force_n)
        self.k = 2.0 * finger_mass_kg / (h * h)  # d^2E/ds^2 of the fingers' inertia
        self.s_hat = closing_speed_m_s * h
        self.command_m = command_m
        self.e0 = float(servo_error_m)

    def travel(self, u: np.ndarray) -> float:
        """s: each jaw's closing travel beyond the reference (m)."""
        return self.reduction.closing_travel(u, self.reference)

    def value(self, u: np.ndarray) -> float:
        """Actuator work and finger inertia (J)."""
        s = self.travel(u)
        inertia = 0.5 * self.k * (s - self.s_hat) ** 2
        if self.command_m is None:
            return -2.0 * self.force_n * s + inertia
        e = abs(s - self.command_m)
        f = self.force_n
        servo = 0.5 * f / self.e0 * e * e if e <= self.e0 else f * (e - 0.5 * self.e0)
        return 2.0 * servo + inertia

    def reduced_gradient(self, u: np.ndarray) -> float:
        """dE/ds (N)."""
        s = self.travel(u)
        inertia = self.k * (s - self.s_hat)
        if self.command_m is None:
            return -2.0 * self.force_n + inertia
        e = s - self.command_m
        f = self.force_n
        servo = f / self.e0 * e if abs(e) <= self.e0 else f * np.sign(e)
        return 2.0 * float(servo) + inertia

    def reduced_hessian(self, u: np.ndarray) -> float:
        """d^2E/ds^2 (N/m)."""
        if self.command_m is None:
            return self.k
        stiff = abs(self.travel(u) - self.command_m) <= self.e0
        return self.k + (2.0 * self.force_n / self.e0 if stiff else 0.0)
