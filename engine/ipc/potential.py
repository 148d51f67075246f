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

from engine.fem.neohookean import elastic_energy, elastic_hessian
from engine.ipc.affine_body import orthogonality_energy, orthogonality_gradient_hessian
from engine.ipc.system import GraspSystem

_BROAD_PHASE = ipctk.LBVH()
_CLAMP = ipctk.PSDProjectionMethod.CLAMP


def build_collisions(system: GraspSystem, x: np.ndarray, dhat: float) -> ipctk.NormalCollisions:
    """Active contact set at collision positions x.

    Built with 2*dhat because ipctk 1.6.1 activates plane-vertex pairs only below dhat/2;
    pairs beyond dhat contribute exactly zero, so the energy stays continuous.
    """
    c = ipctk.NormalCollisions()
    c.build(system.collision_mesh, x, 2.0 * dhat, 0.0, _BROAD_PHASE)
    return c


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
    ) -> None:
        self.system = system
        self.h = h
        self.dhat = dhat
        self.u_hat = u_prev + h * v_prev
        self.mass_h2 = system.mass / (h * h)
        self.k_ortho_volume = system.object.stiffness_pa * system.object.volume_m3
        self.x_prev = system.collision_vertices(u_prev)
        self.set_kappa(kappa)
        # Lagged friction: normal forces and tangent bases from the start of the step.
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
    def internal_gradient_hessian(self, u: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
        """Full-DOF gradient and projected Hessian of the internal (non-contact) terms."""
        s = self.system
        du = u - self.u_hat
        g = self.mass_h2 @ du - s.gravity_force
        blocks = []
        for k, blk in enumerate(s.pads):
            _, ge, he = elastic_hessian(s.pad_positions(u, k), blk.rest, s.mu_lame, s.lambda_lame)
            g[blk.dof] += ge
            blocks.append(blk.assembler.assemble(he))
        _, go, ho = orthogonality_gradient_hessian(s.object_state(u), self.k_ortho_volume)
        g[s.obj_dof] += go
        blocks.append(sp.csr_matrix(ho))
        h = sp.block_diag(blocks, format="csr") + self.mass_h2
        return g, h

    def contact_gradient_hessian(
        self, u: np.ndarray, collisions: ipctk.NormalCollisions
    ) -> tuple[np.ndarray, sp.csr_matrix | None]:
        """Collision-space gradient (3 nc,) and Hessian of barrier + friction, or None if no contact."""
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        h = None
        if len(collisions):
            g += self.barrier.gradient(collisions, s.collision_mesh, x)
            h = self.barrier.hessian(collisions, s.collision_mesh, x, _CLAMP)
        if len(self.tangential):
            dx = x - self.x_prev
            g += self.friction.gradient(self.tangential, s.collision_mesh, dx)
            hf = self.friction.hessian(self.tangential, s.collision_mesh, dx, _CLAMP)
            h = hf if h is None else h + hf
        return g, h

    def free_gradient_hessian(
        self, u: np.ndarray, collisions: ipctk.NormalCollisions
    ) -> tuple[np.ndarray, sp.csr_matrix]:
        """Gradient and PSD Hessian restricted to the free DOFs."""
        s = self.system
        g_int, h_int = self.internal_gradient_hessian(u)
        g_c, h_c = self.contact_gradient_hessian(u, collisions)
        jf = s.jacobian_free
        g = g_int[s.free] + jf.T @ g_c
        h = h_int[s.free][:, s.free]
        if h_c is not None:
            h = h + (jf.T @ (h_c @ jf))
        return g, h.tocsr()

    def free_internal_and_barrier_gradients(
        self, u: np.ndarray, collisions: ipctk.NormalCollisions
    ) -> tuple[np.ndarray, np.ndarray]:
        """Free-DOF gradients of the non-barrier energy and of the unit-stiffness barrier."""
        s = self.system
        g_int, _ = self.internal_gradient_hessian(u)
        x = s.collision_vertices(u)
        unit = ipctk.BarrierPotential(self.dhat, 1.0)
        g_b = unit.gradient(collisions, s.collision_mesh, x) if len(collisions) else 0.0
        return g_int[s.free], s.jacobian_free.T @ np.broadcast_to(g_b, (3 * s.n_collision,))
