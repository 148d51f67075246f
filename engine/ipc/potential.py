"""The implicit-Euler incremental potential of one time step, divided by h^2 so every term is in J.

E(u) = 1/(2h^2) |u - u_hat|_M^2 - f_g . u + Psi_pads(u) + E_ortho(q) + kappa B(X) + D(X - X^t)

with X = J u the collision vertices, B the ipctk log barrier and D the ipctk friction potential
lagged at the start of the step (normal forces and tangent bases from X^t). In this form the
barrier gradient is a force in newtons, which is what ipctk uses for the friction normal force.
"""

from __future__ import annotations

import ipctk
import numpy as np
import scipy.sparse as sp

from engine.fem.neohookean import elastic_energy, elastic_gradient, elastic_hessian
from engine.ipc.affine_body import orthogonality_energy, orthogonality_gradient_hessian
from engine.ipc.system import GraspSystem

_BROAD_PHASE = ipctk.LBVH()
_CLAMP = ipctk.PSDProjectionMethod.CLAMP
_NO_PROJECTION = ipctk.PSDProjectionMethod.NONE


def build_collisions(system: GraspSystem, x: np.ndarray, dhat: float) -> ipctk.NormalCollisions:
    """Active contact set at collision positions x.

    Built with 2*dhat because ipctk 1.6.1 activates plane-vertex pairs only below dhat/2;
    pairs beyond dhat contribute exactly zero, so the energy stays continuous.
    """
    c = ipctk.NormalCollisions()
    c.build(system.collision_mesh, x, 2.0 * dhat, 0.0, _BROAD_PHASE)
    return c


class FreeInternalLayout:
    """Fixed CSR pattern of the internal (inertia + elastic + orthogonality) Hessian on free DOFs.

    The pads' element assembly has a fixed pattern, so the free-DOF matrix is a gather of the
    assembled data: one bincount per Newton iteration instead of sparse slicing and sums.
    """

    def __init__(self, system: GraspSystem, mass_h2: sp.csr_matrix) -> None:
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
        free_index = -np.ones(system.ndof, dtype=np.int64)
        free_index[system.free] = np.arange(len(system.free))
        nf = len(system.free)
        rr, cc = free_index[np.concatenate(rows)], free_index[np.concatenate(cols)]
        keep = (rr >= 0) & (cc >= 0)
        keys, target = np.unique(rr[keep] * nf + cc[keep], return_inverse=True)
        self.n_free = nf
        self.nnz = len(keys)
        self._indices = (keys % nf).astype(np.int32)
        self._indptr = np.searchsorted(keys // nf, np.arange(nf + 1)).astype(np.int32)
        self._keep_var = keep[:n_var]
        self._target_var = target[: int(self._keep_var.sum())]
        self._mass_data = np.bincount(
            target[int(self._keep_var.sum()) :], weights=mass.data[keep[n_var:]], minlength=self.nnz
        )

    def matrix(self, pad_data: list[np.ndarray], object_block: np.ndarray) -> sp.csr_matrix:
        data = np.concatenate([*pad_data, object_block.ravel()])[self._keep_var]
        values = np.bincount(self._target_var, weights=data, minlength=self.nnz) + self._mass_data
        return sp.csr_matrix(
            (values, self._indices, self._indptr), shape=(self.n_free, self.n_free), copy=False
        )


class IncrementalPotential:
    """Energy, gradient and PSD-projected Hessian over the free DOFs for one time step."""

    def __init__(
        self,
        system: GraspSystem,
        u_prev: np.ndarray,
        v_prev: np.ndarray,
        h: float,
        kappa: float,
        dhat: float,
        mu: float,
        mu_ground: float,
        eps_v: float,
        collisions_prev: ipctk.NormalCollisions | None = None,
    ) -> None:
        self.system = system
        self.h = h
        self.dhat = dhat
        self.u_hat = u_prev + h * v_prev
        self.mass_h2 = system.mass / (h * h)
        cache = system.__dict__.setdefault("_free_layouts", {})
        if h not in cache:
            cache[h] = FreeInternalLayout(system, self.mass_h2)
        self.layout: FreeInternalLayout = cache[h]
        self.k_ortho_volume = system.object.stiffness_pa * system.object.volume_m3
        self.x_prev = system.collision_vertices(u_prev)
        self.set_kappa(kappa)
        # Lagged friction: normal forces and tangent bases from the start of the step.
        c_prev = collisions_prev
        if c_prev is None:
            c_prev = build_collisions(system, self.x_prev, dhat)
        self.tangential = ipctk.TangentialCollisions()
        if mu > 0 or mu_ground > 0:
            self.tangential.build(system.collision_mesh, self.x_prev, c_prev, self.barrier, mu)
            if mu_ground != mu:
                for tc in self.tangential:
                    if isinstance(tc, ipctk.PlaneVertexTangentialCollision):
                        tc.mu_s = mu_ground
                        tc.mu_k = mu_ground
        self.friction = ipctk.FrictionPotential(eps_v * h)

    def set_kappa(self, kappa: float) -> None:
        # ipctk 1.6.1 BarrierPotential has no stiffness setter: recreate it.
        self.kappa = float(kappa)
        self.barrier = ipctk.BarrierPotential(self.dhat, self.kappa)

    # --- energy -------------------------------------------------------------------------------
    def internal_energy(self, u: np.ndarray) -> float:
        """Everything but contact: inertia, gravity, pad elasticity, object orthogonality."""
        s = self.system
        du = u - self.u_hat
        e = 0.5 * float(du @ (self.mass_h2 @ du)) - float(s.gravity_force @ u)
        for k, blk in enumerate(s.pads):
            e += elastic_energy(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
        e += orthogonality_energy(s.object_state(u), self.k_ortho_volume)
        return e

    def energy(self, u: np.ndarray, collisions: ipctk.NormalCollisions | None = None) -> float:
        s = self.system
        x = s.collision_vertices(u)
        if collisions is None:
            collisions = build_collisions(s, x, self.dhat)
        e = self.internal_energy(u)
        if not np.isfinite(e):
            return np.inf
        e += self.barrier(collisions, s.collision_mesh, x)
        if len(self.tangential):
            e += self.friction(self.tangential, s.collision_mesh, x - self.x_prev)
        return float(e)

    # --- derivatives --------------------------------------------------------------------------
    def internal_gradient(self, u: np.ndarray) -> np.ndarray:
        s = self.system
        g = self.mass_h2 @ (u - self.u_hat) - s.gravity_force
        for k, blk in enumerate(s.pads):
            _, ge = elastic_gradient(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
            g[blk.dof] += ge
        _, go, _ = orthogonality_gradient_hessian(s.object_state(u), self.k_ortho_volume)
        g[s.obj_dof] += go
        return g

    def contact_gradient(self, u: np.ndarray, collisions: ipctk.NormalCollisions) -> np.ndarray:
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        if len(collisions):
            g += self.barrier.gradient(collisions, s.collision_mesh, x)
        if len(self.tangential):
            g += self.friction.gradient(self.tangential, s.collision_mesh, x - self.x_prev)
        return g

    def free_gradient(self, u: np.ndarray, collisions: ipctk.NormalCollisions) -> np.ndarray:
        s = self.system
        return self.internal_gradient(u)[s.free] + s.jacobian_free.T @ self.contact_gradient(
            u, collisions
        )

    def contact_gradient_hessian(
        self, u: np.ndarray, collisions: ipctk.NormalCollisions, project: bool = True
    ) -> tuple[np.ndarray, sp.csr_matrix | None]:
        """Collision-space gradient (3 nc,) and Hessian of barrier + friction, or None if no contact."""
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        h = None
        method = _CLAMP if project else _NO_PROJECTION
        if len(collisions):
            g += self.barrier.gradient(collisions, s.collision_mesh, x)
            h = self.barrier.hessian(collisions, s.collision_mesh, x, method)
        if len(self.tangential):
            dx = x - self.x_prev
            g += self.friction.gradient(self.tangential, s.collision_mesh, dx)
            hf = self.friction.hessian(self.tangential, s.collision_mesh, dx, method)
            h = hf if h is None else h + hf
        return g, h

    def internal_gradient_hessian_free(self, u: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
        """Full-DOF gradient and free-DOF PSD Hessian of inertia, gravity, pads and object."""
        s = self.system
        g = self.mass_h2 @ (u - self.u_hat) - s.gravity_force
        pad_data = []
        for k, blk in enumerate(s.pads):
            _, ge, he = elastic_hessian(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
            g[blk.dof] += ge
            pad_data.append(blk.assembler.assemble(he).data)
        _, go, ho = orthogonality_gradient_hessian(s.object_state(u), self.k_ortho_volume)
        g[s.obj_dof] += go
        return g, self.layout.matrix(pad_data, ho)

    def with_contact(
        self,
        u: np.ndarray,
        collisions: ipctk.NormalCollisions,
        g_internal: np.ndarray,
        h_internal: sp.csr_matrix,
        project_contact: bool,
    ) -> tuple[np.ndarray, sp.csr_matrix]:
        """Add barrier and friction to the internal terms, on the free DOFs.

        The contact blocks are PSD-projected only when `project_contact` (the unprojected sum
        is usually still positive definite thanks to the mass term, and skipping ipctk's
        per-pair eigen-projection saves most of its cost).
        """
        s = self.system
        g_c, h_c = self.contact_gradient_hessian(u, collisions, project_contact)
        jf = s.jacobian_free
        g = g_internal[s.free] + jf.T @ g_c
        h = h_internal
        if h_c is not None:
            h = h + (jf.T @ (h_c @ jf))
        return g, h.tocsr()

    def free_internal_and_barrier_gradients(
        self, u: np.ndarray, collisions: ipctk.NormalCollisions
    ) -> tuple[np.ndarray, np.ndarray]:
        """Free-DOF gradients of the non-barrier energy and of the unit-stiffness barrier."""
        s = self.system
        g_int = self.internal_gradient(u)
        x = s.collision_vertices(u)
        unit = ipctk.BarrierPotential(self.dhat, 1.0)
        g_b = unit.gradient(collisions, s.collision_mesh, x) if len(collisions) else 0.0
        return g_int[s.free], s.jacobian_free.T @ np.broadcast_to(g_b, (3 * s.n_collision,))
