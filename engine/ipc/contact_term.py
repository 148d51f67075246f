"""The contact energy of one time step: kappa B(X) + D(X - X^t), the ipctk log barrier and the
friction potential lagged at the start of the step (X = J u, the collision vertices; J, divided
by h^2 so the barrier gradient is a force in N). It owns its contact set (rebuilt at every
iterate) and its barrier stiffness kappa (adapted after each accepted iterate), and limits every
step by continuous collision detection.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.sparse_products import csr_times
from engine.ipc.system import GraspSystem
from engine.ipc.terms import Assembly

# How far (in dhat) the vertices may leave a Newton step's move and still use its broad phase.
COVER_MARGIN = 1.0
# The longest vertex move (m) CCD first looks along. Newton directions at a first touch can
# move vertices by centimetres to metres (along the pads the object has only its inertia)
# while CCD lets a fraction of a percent through; sweeping the whole move boxes in up to a
# million candidate pairs on a 16k-face scan (0.5 s each). The probe finds the same stop from
# a short prefix of the move and only sweeps further when that prefix is free.
CCD_PROBE_M = 2e-3
# How much longer each further probe looks.
CCD_PROBE_GROWTH = 4.0


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
        # The last step's cover: its boxes still hold every pair within dhat of positions
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
                cover.within(x, self.dhat), self.system.collision_mesh, x, self.dhat
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
                cover.within(x, self.dhat), s.collision_mesh, x, self.dhat
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

    def gradient_hessians(
        self, u: np.ndarray, project: bool = True
    ) -> tuple[np.ndarray, list[sp.csc_matrix]]:
        """Collision-space gradient and the Hessian's parts (the barrier's, then the friction's;
        none without contact; their sum is the Hessian), optionally PSD-projected."""
        s = self.system
        x = s.collision_vertices(u)
        g = np.zeros(3 * s.n_collision)
        parts = []
        method = ipc.PSD_CLAMP if project else ipc.PSD_NONE
        if len(self.collisions):
            g += self.barrier.gradient(self.collisions, s.collision_mesh, x)
            parts.append(self.barrier.hessian(self.collisions, s.collision_mesh, x, method))
        if len(self.tangential):
            dx = x - self.x_prev
            g += self.friction.gradient(self.tangential, s.collision_mesh, dx)
            parts.append(self.friction.hessian(self.tangential, s.collision_mesh, dx, method))
        return g, parts

    # --- the Term protocol (engine.ipc.terms) ------------------------------------------------
    def add_gradient(self, u: np.ndarray, out: Assembly) -> None:
        """Add the gradient at the current iterate u to `out`."""
        out.add_collision_gradient(self.gradient(u))

    def add_gradient_hessian(self, u: np.ndarray, project: bool, out: Assembly) -> None:
        """Add the gradient and Hessian at the current iterate u to `out`."""
        g, parts = self.gradient_hessians(u, project)
        out.add_collision_gradient(g)
        for h in parts:  # summed where they are mapped to the unknowns (Reduction.upper_triplets)
            out.add_collision_hessian(h)

    def structure(self) -> int:
        """The number of contact pairs at the current iterate (a pair gained or lost changes
        the Newton matrix)."""
        return len(self.collisions)

    def max_step(self, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        """Largest fraction of the full-DOF step du that keeps every state intersection-free.

        The CCD and the line search's contact sets take their pairs from a CandidateCover of
        the move, built here unless the last one still covers it.
        """
        s = self.system
        x = s.collision_vertices(u)
        dx = csr_times(s.jacobian, du).reshape(-1, 3)
        reach = float(np.abs(dx).max(initial=0.0))
        fraction = CCD_PROBE_M / reach if reach > CCD_PROBE_M else 1.0
        while fraction < 1.0:
            # A probe along the first `fraction` of the move: a stop there is the move's stop.
            x1 = x + fraction * dx
            cover = self._cover = CandidateCover.holding(
                self._cover, s.collision_mesh, x, x1, self.dhat, COVER_MARGIN * self.dhat
            )
            alpha = ipc.candidates_stepsize(cover.ccd_candidates(x, x1), s.collision_mesh, x, x1)
            if alpha < 1.0:
                return fraction * alpha
            fraction *= CCD_PROBE_GROWTH
        x1 = x + dx
        cover = self._cover = CandidateCover.holding(
            self._cover, s.collision_mesh, x, x1, self.dhat, COVER_MARGIN * self.dhat
        )
        if u is self._current and self.step_is_free(dx):
            return 1.0
        return ipc.candidates_stepsize(cover.ccd_candidates(x, x1), s.collision_mesh, x, x1)

    def covered_stepsize(self, x0: np.ndarray, x1: np.ndarray) -> float | None:
        """collision_free_stepsize of the move x0 -> x1 (n, 3) from this term's last
        CandidateCover (no broad phase), or None when the cover does not hold both ends.
        The next time step's initial guesses move the last iterate by about one step's
        motion, well inside the cover's margin."""
        cover = self._cover
        if cover is None or not cover.holds(x0, x1):
            return None
        mesh = self.system.collision_mesh
        return ipc.candidates_stepsize(cover.ccd_candidates(x0, x1), mesh, x0, x1)

    def step_is_free(self, dx: np.ndarray) -> bool:
        """Whether moving the current iterate's collision vertices by dx (n, 3) m cannot bring
        any pair of primitives within half its distance: then CCD would allow the whole step.

        Every pair closer than dhat, the ground's included, is in the current contact set, so
        no pair is closer than d = min(its smallest distance, dhat); a
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
