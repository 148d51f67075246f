"""The implicit-Euler incremental potential of one time step, divided by h^2 so every term is in J.

E(u) = 1/(2h^2) |u - u_hat|_M^2 - f_g . u + Psi_pads(u) + E_ortho(q) + kappa B(X) + D(X - X^t)

with X = J u the collision vertices, B the ipctk log barrier and D the ipctk friction potential
lagged at the start of the step (normal forces and tangent bases from X^t). In this form the
barrier gradient is a force in newtons, which is what ipctk uses for the friction normal force.

`IncrementalPotential` sums the terms of engine.ipc.terms over the free DOFs (the glued pad
vertices are Dirichlet) and is the objective `engine.ipc.newton.newton_solve` minimises.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.reduction import Reduction
from engine.ipc.system import GraspSystem
from engine.ipc.terms import (
    ActuatorTerm,
    ContactTerm,
    FreeInternalLayout,
    InternalTerm,
)

# ipctk caps the barrier stiffness at 100x its mass-based minimum. A 20 N squeeze that ends on a
# few pad-edge contacts of a 3 g object needs more: at that cap a contact pair sat ~2e-11 m
# apart and Newton crept in 1 um full steps until its iteration limit (18 of the 125 REACH cube
# trials "solver failed"; with 1000x more headroom all 6 retried trials converged in 10-23 s).
# kappa still starts at ipctk's value and grows only when ipctk's update rule asks for it, so
# the cap binds only in such cases.
KAPPA_MAX_FACTOR = 1e3

# ipctk's heuristic scales kappa to the masses (the 3 g cube's weight), while a squeeze loads the
# contacts with the grip force, 700x that weight. With the mass-based kappa the 20 N grip sat at
# ~1e-3 dhat and Newton's iterates overshot to 2e-10 m gaps with 1e4 N barrier forces, climbing
# back for 100-200 iterations per squeeze step. kappa therefore starts no lower than the value at
# which one contact pair carrying the whole grip force sits at LOAD_GAP * dhat (n pairs sharing it
# sit about n times further apart): 30-50 % fewer Newton iterations on the REACH cube grasps.
LOAD_GAP = 1e-3


@dataclass(frozen=True)
class ReducedHessian:
    """The Newton matrix internal + J^T H_c J over the reduced unknowns, kept as its two parts
    (engine.ipc.newton.SummedMatrix): the internal terms' data in their fixed pattern and the
    contact Hessian over the collision vertices' coordinates (None without contact)."""

    internal_data: np.ndarray
    layout: FreeInternalLayout
    contact: sp.csc_matrix | sp.csr_matrix | None
    reduction: Reduction

    @property
    def shape(self) -> tuple[int, int]:
        """(n, n) with n the reduced unknowns."""
        return (self.reduction.n, self.reduction.n)

    def upper_parts(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The two parts' upper-triangle entries (keys col * n + row, values)."""
        parts = [(self.layout.upper_keys, self.internal_data[self.layout.upper_index])]
        if self.contact is not None:
            parts.append(self.reduction.upper_triplets(self.contact))
        return parts

    def tocsr(self) -> sp.csr_matrix:
        """The sum as one CSR matrix."""
        h = self.layout.with_data(self.internal_data)
        if self.contact is None:
            return h
        r = self.reduction
        return (h + r.jacobian_t @ (self.contact @ r.jacobian)).tocsr()


class IncrementalPotential:
    """The objective of one time step over the reduced unknowns: internal + contact (+ actuator)
    terms. Position-driven plates: the free DOFs; force-driven plates: also the closing
    coordinate, pushed by the actuator term (engine.ipc.reduction)."""

    def __init__(
        self,
        system: GraspSystem,
        u_prev: np.ndarray,
        v_prev: np.ndarray,
        h: float,
        kappa: float,
        kappa_max: float,
        dhat: float,
        mu: float,
        mu_ground: float,
        eps_v: float,
        collisions_prev: ipc.NormalCollisions | None = None,
        actuator: ActuatorTerm | None = None,
        cover_prev: CandidateCover | None = None,
    ) -> None:
        self.system = system
        self.h = h
        self.dhat = dhat
        self.actuator = actuator
        self._residual_scale: np.ndarray | None = None
        self.reduction = actuator.reduction if actuator is not None else Reduction(system)
        self.internal = InternalTerm(system, u_prev, v_prev, h, self.reduction)
        self.contact = ContactTerm(
            system, u_prev, h, kappa, kappa_max, dhat, mu, mu_ground, eps_v, collisions_prev,
            cover_prev,
        )  # fmt: skip

    # --- iterates ------------------------------------------------------------------------------
    def begin(self, u: np.ndarray) -> None:
        """Start a solve at u (intersection-free)."""
        self.contact.begin(u)

    def accept(self, u: np.ndarray) -> bool:
        """u (the last trial evaluated) becomes the iterate; True if the energy's form changed."""
        return self.contact.accept(u)

    def step(self, u: np.ndarray, du_free: np.ndarray, alpha: float) -> np.ndarray:
        """u moved by alpha times the reduced step."""
        if self.actuator is None:
            out = u.copy()
            out[self.system.free] += alpha * du_free
            return out
        return u + alpha * self.reduction.expand(du_free)

    def structure(self) -> tuple[int, bool, float, int]:
        """What a Newton matrix of this step shares with another's that may stand in for it
        (newton_solve's chord start): the unknowns, the time step (s) and the number of
        contact pairs at the current iterate (a pair gained or lost changes the matrix)."""
        r = self.reduction
        return (r.n, r.force_driven, self.h, len(self.contact.collisions))

    def residual(self, g: np.ndarray) -> float:
        """Largest force residual (N) in a reduced gradient (the potential is divided by h^2,
        so its gradient is a force): each pad vertex's components, the closing coordinate's, the
        object's translation, and its affine (torque-like, N m) components over its radius."""
        if self._residual_scale is None:
            s, r = self.system, self.reduction
            scale = np.ones(r.n)
            radius = float(np.linalg.norm(s.object.body_points, axis=1).max())
            affine = r.index[s.obj_dof.start + 3 : s.obj_dof.stop]
            scale[affine[affine >= 0]] = 1.0 / radius
            self._residual_scale = scale
        return float(np.abs(g * self._residual_scale).max())

    def step_norm(self, du_free: np.ndarray) -> float:
        """Largest displacement (m) any simulated vertex would make under the reduced step."""
        s = self.system
        dx = (self.reduction.jacobian @ du_free).reshape(-1, 3)
        pad_dx = self.reduction.expand(du_free)[: s.obj_dof.start].reshape(-1, 3)
        return float(max(np.sqrt((dx * dx).sum(1)).max(), np.sqrt((pad_dx * pad_dx).sum(1)).max()))

    def max_step(self, u: np.ndarray, du_free: np.ndarray) -> float:
        """Largest step fraction in [0, 1] that every term allows (CCD for contact)."""
        du = self.reduction.expand(du_free)
        alpha = 1.0
        if self.actuator is not None:
            # A jaw pressed by a force is a stiff contact only once it touches: from a light
            # touch, Newton's model would close it by centimetres and CCD would stop it deep in
            # the barrier. Closing at most half the barrier zone per iteration keeps it near.
            ds = abs(float(du_free[self.reduction.s_index]))
            if ds > 0.5 * self.dhat:
                alpha = 0.5 * self.dhat / ds
        return min(alpha, self.internal.max_step(u, du), self.contact.max_step(u, du))

    # --- energy and derivatives ---------------------------------------------------------------
    def energy(self, u: np.ndarray) -> float:
        """E(u) in J; inf when a pad element is inverted."""
        e = self.internal.value(u)
        if not np.isfinite(e):
            return np.inf
        if self.actuator is not None:
            e += self.actuator.value(u)
        return float(e + self.contact.value(u))

    def gradient(self, u: np.ndarray) -> np.ndarray:
        """Reduced gradient at the current iterate u."""
        r = self.reduction
        g = r.restrict(self.internal.gradient(u)) + r.jacobian_t @ self.contact.gradient(u)
        if self.actuator is not None:
            g[r.s_index] += self.actuator.reduced_gradient(u)
        return g

    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, ReducedHessian]:
        """Free-DOF gradient and Hessian at the current iterate u.

        The pads' element blocks and the contact blocks are PSD-projected only when `project`:
        the exact sum is usually still positive definite (the pads are held by their glued
        back faces, and the mass term helps), Newton converges faster on the exact Hessian,
        and skipping the projections (an SVD per tet, ipctk's per-pair eigen-projection) saves
        most of their cost. Newton projects when the exact matrix does not factorize.
        """
        r = self.reduction
        g_int, data = self.internal.gradient_hessian(u, project)
        g_c, h_c = self.contact.gradient_hessian(u, project)
        g = r.restrict(g_int) + r.jacobian_t @ g_c
        if self.actuator is not None:
            g[r.s_index] += self.actuator.reduced_gradient(u)
            # The closing coordinate's diagonal entry is in the internal pattern (the glued
            # vertices' mass, FreeInternalLayout): the actuator's curvature is added there.
            data[self.internal.layout.diagonal_slot(r.s_index)] += self.actuator.reduced_hessian(u)
        return g, ReducedHessian(data, self.internal.layout, h_c, r)

    @property
    def kappa(self) -> float:
        """The barrier stiffness in effect."""
        return self.contact.kappa

    @property
    def collisions(self) -> ipc.NormalCollisions:
        """The contact set at the current iterate."""
        return self.contact.collisions


def initial_kappa(
    system: GraspSystem,
    u: np.ndarray,
    h: float,
    dhat: float,
    average_mass: float,
    load_n: float = 0.0,
) -> tuple[float, float]:
    """(kappa, kappa_max) from ipctk's heuristic at u, in the divided-by-h^2 energy form, with
    the cap raised by KAPPA_MAX_FACTOR; kappa at least what carries `load_n` (the grip force)
    on one pair at LOAD_GAP * dhat."""
    internal = InternalTerm(system, u, np.zeros_like(u), h)
    contact = ContactTerm(system, u, h, 1.0, 1.0, dhat, 0.0, 0.0, 1e-3)
    g_e = internal.gradient(u)[system.free]
    g_b = system.jacobian_free.T @ contact.unit_barrier_gradient(u)
    kappa, kappa_max = ipc.initial_barrier_stiffness(
        system.bbox_diagonal, contact.barrier, dhat, average_mass / h**2, g_e, g_b
    )
    kappa_max *= KAPPA_MAX_FACTOR
    if load_n > 0:
        kappa = max(kappa, load_n / ipc.barrier_pair_force(LOAD_GAP * dhat, dhat, 1.0))
        kappa_max = max(kappa_max, KAPPA_MAX_FACTOR * kappa)
    return kappa, kappa_max
