"""The implicit-Euler incremental potential of one time step, divided by h^2 so every term is in J.

E(u) = 1/(2h^2) |u - u_hat|_M^2 - f_g . u + Psi_pads(u) + E_ortho(q) + kappa B(X) + D(X - X^t)

with X = J u the collision vertices, B the ipctk log barrier and D the ipctk friction potential
lagged at the start of the step (normal forces and tangent bases from X^t). In this form the
barrier gradient is a force in newtons, which is what ipctk uses for the friction normal force.

`IncrementalPotential` sums the terms of engine.ipc.terms over the free DOFs (the glued pad
vertices are Dirichlet) and is the objective `engine.ipc.newton.newton_solve` minimises.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_term import ContactTerm
from engine.ipc.internal_term import FreeInternalLayout, InternalHessian, InternalTerm
from engine.ipc.pattern_ldl import Part
from engine.ipc.reduction import Reduction
from engine.ipc.system import GraspSystem
from engine.ipc.terms import Assembly, Term

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
    (engine.ipc.pattern_ldl.SummedMatrix): the internal terms' Hessian in their fixed pattern
    and the contact Hessian over the collision vertices' coordinates, as the parts that sum to
    it (none without contact)."""

    internal: InternalHessian
    contact: tuple[sp.csc_matrix | sp.csr_matrix, ...]
    reduction: Reduction

    @property
    def layout(self) -> FreeInternalLayout:
        """The internal terms' fixed pattern."""
        return self.internal.layout

    @property
    def internal_data(self) -> np.ndarray:
        """The internal terms' data in `layout`'s pattern (gathered on each call)."""
        return self.internal.values()

    @property
    def shape(self) -> tuple[int, int]:
        """(n, n) with n the reduced unknowns."""
        return (self.reduction.n, self.reduction.n)

    @property
    def hubs(self) -> np.ndarray:
        """The object's affine unknowns and the closing coordinate (Reduction.hubs)."""
        return self.reduction.hubs

    def upper_parts(self) -> list[Part]:
        """The two parts' upper-triangle entries: the internal Hessian scatters its own (a
        ScatteredPart), the contact part as (keys col * n + row, values)."""
        parts: list[Part] = [self.internal]
        if self.contact:
            parts.append(self.reduction.upper_triplets(self.contact))
        return parts

    def tocsr(self) -> sp.csr_matrix:
        """The sum as one CSR matrix."""
        h = self.layout.with_data(self.internal_data)
        if not self.contact:
            return h
        r = self.reduction
        contact = self.contact[0]
        for part in self.contact[1:]:
            contact = contact + part
        return (h + r.jacobian_t @ (contact @ r.jacobian)).tocsr()


class IncrementalPotential:
    """The objective of one time step over the reduced unknowns: the sum of its terms
    (engine.ipc.terms), the internal term first. Position-driven plates: the free DOFs;
    force-driven plates: also the closing coordinate (engine.ipc.reduction)."""

    def __init__(
        self,
        system: GraspSystem,
        reduction: Reduction,
        terms: Sequence[Term],
        h: float,
        contact: ContactTerm | None = None,
    ) -> None:
        """`contact`: the term among `terms` whose barrier stiffness and contact set the step
        reports (kappa, collisions)."""
        self.system = system
        self.reduction = reduction
        self.terms = list(terms)
        self.h = h
        self.contact = contact
        self._residual_scale: np.ndarray | None = None

    # --- iterates ------------------------------------------------------------------------------
    def begin(self, u: np.ndarray) -> None:
        """Start a solve at u (intersection-free)."""
        for term in self.terms:
            term.begin(u)

    def accept(self, u: np.ndarray) -> bool:
        """u (the last trial evaluated) becomes the iterate; True if the energy's form changed."""
        changed = False
        for term in self.terms:
            changed = term.accept(u) or changed
        return changed

    def step(self, u: np.ndarray, du_free: np.ndarray, alpha: float) -> np.ndarray:
        """u moved by alpha times the reduced step."""
        if not self.reduction.force_driven:
            out = u.copy()
            out[self.system.free] += alpha * du_free
            return out
        return u + alpha * self.reduction.expand(du_free)

    def structure(self) -> tuple[Hashable, ...]:
        """What a Newton matrix of this step shares with another's that may stand in for it
        (newton_solve's chord start): the unknowns, the time step (s) and what each term's
        pattern depends on (the number of contact pairs at the current iterate)."""
        r = self.reduction
        return (r.n, r.force_driven, self.h, *(t.structure() for t in self.terms))

    def residual(self, g: np.ndarray) -> float:
        """Largest force residual (N) in a reduced gradient (the potential is divided by h^2,
        so its gradient is a force): each pad vertex's components, the closing coordinate's, the
        object's translation, and its affine (torque-like, N m) components over its radius."""
        if self._residual_scale is None:
            s, r = self.system, self.reduction
            scale = np.ones(r.n)
            radius = s.object_radius_m
            affine = r.index[s.obj_dof.start + 3 : s.obj_dof.stop]
            scale[affine[affine >= 0]] = 1.0 / radius
            self._residual_scale = scale
        return float(np.abs(g * self._residual_scale).max())

    def step_norm(self, du_free: np.ndarray) -> float:
        """Largest displacement (m) any simulated vertex would make under the reduced step."""
        return self.reduction.largest_move(du_free)

    def max_step(self, u: np.ndarray, du_free: np.ndarray) -> float:
        """Largest step fraction in [0, 1] that every term allows (CCD for contact)."""
        du = self.reduction.expand(du_free)
        return min(1.0, *(t.max_step(u, du_free, du) for t in self.terms))

    # --- energy and derivatives ---------------------------------------------------------------
    def energy(self, u: np.ndarray) -> float:
        """E(u) in J: inf where a term is not admissible (an inverted pad element), and the
        terms after it are not evaluated (the contact term's value builds a contact set); NaN
        where a term is undefined (a barrier of stiffness 0 at a contact), which Newton reports
        instead of taking it for a minimum."""
        e = 0.0
        for term in self.terms:
            e += term.value(u)
            if e == np.inf:
                return np.inf
        return float(e)

    def gradient(self, u: np.ndarray) -> np.ndarray:
        """Reduced gradient at the current iterate u."""
        out = Assembly(self.reduction)
        for term in self.terms:
            term.add_gradient(u, out)
        if out.gradient is None:
            raise ValueError("a potential needs at least one term")
        return out.gradient

    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, ReducedHessian]:
        """Reduced gradient and Hessian at the current iterate u.

        The pads' element blocks and the contact blocks are PSD-projected only when `project`:
        the exact sum is usually still positive definite (the pads are held by their glued
        back faces, and the mass term helps), Newton converges faster on the exact Hessian,
        and skipping the projections (an SVD per tet, ipctk's per-pair eigen-projection) saves
        most of their cost. Newton projects when the exact matrix does not factorize.
        """
        out = Assembly(self.reduction)
        for term in self.terms:
            term.add_gradient_hessian(u, project, out)
        if out.gradient is None or out.internal is None:
            raise ValueError("a potential's first term must be its InternalTerm")
        hessian = ReducedHessian(out.internal, tuple(out.collision_hessians), self.reduction)
        return out.gradient, hessian

    @property
    def kappa(self) -> float:
        """The barrier stiffness in effect."""
        return self.contact.kappa if self.contact is not None else 0.0

    @property
    def collisions(self) -> ipc.NormalCollisions:
        """The contact set at the current iterate."""
        return self.contact.collisions if self.contact is not None else ipc.NormalCollisions()


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
