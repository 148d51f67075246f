"""Projected Newton with a CCD-limited backtracking line search (no state ever intersects)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from dataclasses import dataclass

import cholespy
import ipctk
import numpy as np
import scipy.sparse as sp

from engine.errors import SolverError
from engine.ipc.potential import IncrementalPotential, build_collisions

_BROAD_PHASE = ipctk.LBVH()
# ipctk caps the barrier stiffness at 100x its mass-based minimum. A 20 N squeeze that ends on a
# few pad-edge contacts of a 3 g object needs more: at that cap a contact pair sat ~2e-11 m
# apart and Newton crept in 1 um full steps until its iteration limit (18 of the 125 REACH cube
# trials "solver failed"; with 1000x more headroom all 6 retried trials converged in 10-23 s).
# kappa still starts at ipctk's value and grows only when ipctk's update rule asks for it, so
# the cap binds only in such cases.
KAPPA_MAX_FACTOR = 1e3
_LIBC = ctypes.CDLL(None)


@dataclass(frozen=True)
class NewtonResult:
    u: np.ndarray
    iterations: int
    line_search_evaluations: int
    kappa: float
    collisions: ipctk.NormalCollisions  # contact set at u (built with 2 dhat)


class SpdFactor:
    """Sparse Cholesky (CHOLMOD via cholespy) of a symmetric matrix given by its lower triangle."""

    def __init__(self, h: sp.csr_matrix) -> None:
        low = sp.tril(h, format="coo")
        self._solver = cholespy.CholeskySolverD(
            h.shape[0],
            low.row.astype(np.int32),
            low.col.astype(np.int32),
            low.data.astype(np.float64),
            cholespy.MatrixType.COO,
        )

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        x = np.zeros_like(rhs)
        self._solver.solve(np.ascontiguousarray(rhs), x)
        return x


@contextlib.contextmanager
def _c_output_silenced():
    """CHOLMOD prints 'not positive definite' with C stdio (stdout); that case is expected here.

    Redirects file descriptors 1 and 2 so the message cannot corrupt `--json` output.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
            yield
    finally:
        _LIBC.fflush(None)  # C stdio may still hold the message in its buffer
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def factor_spd(h: sp.csr_matrix, expect_failure: bool = False) -> SpdFactor | None:
    """The Cholesky factor of h, or None when h is not positive definite."""
    try:
        if expect_failure:
            with _c_output_silenced():
                return SpdFactor(h)
        return SpdFactor(h)
    except (RuntimeError, ValueError):
        return None


def max_vertex_step(potential: IncrementalPotential, du_free: np.ndarray) -> float:
    """Largest displacement (m) any simulated vertex would make under the free-DOF step."""
    s = potential.system
    dx = (s.jacobian_free @ du_free).reshape(-1, 3)
    full = np.zeros(s.ndof)
    full[s.free] = du_free
    pad_dx = full[: s.obj_dof.start].reshape(-1, 3)
    return float(max(np.sqrt((dx * dx).sum(1)).max(), np.sqrt((pad_dx * pad_dx).sum(1)).max()))


def newton_solve(
    potential: IncrementalPotential,
    u_start: np.ndarray,
    kappa_max: float,
    tol_m: float,
    max_iterations: int,
) -> NewtonResult:
    """Minimise the incremental potential over the free DOFs starting from an intersection-free u."""
    s = potential.system
    u = u_start.copy()
    x = s.collision_vertices(u)
    collisions = build_collisions(s, x, potential.dhat)
    energy = potential.energy(u, collisions)
    if not np.isfinite(energy):
        raise SolverError("the time step started from an invalid state (inverted pad element)")
    prev_d2 = (
        collisions.compute_minimum_distance(s.collision_mesh, x) if len(collisions) else np.inf
    )
    evaluations = 0
    for it in range(1, max_iterations + 1):
        g_int, h_int = potential.internal_gradient_hessian_free(u)
        g, h = potential.with_contact(u, collisions, g_int, h_int, project_contact=False)
        factor = factor_spd(h, expect_failure=True)
        if factor is None:  # the unprojected contact Hessian made it indefinite: project
            g, h = potential.with_contact(u, collisions, g_int, h_int, project_contact=True)
            factor = factor_spd(h)
        if factor is None:
            raise SolverError(
                "the Newton matrix is not positive definite even after projection; "
                "the time step or material stiffness is extreme"
            )
        du = factor.solve(-g)
        if not np.all(np.isfinite(du)):
            raise SolverError(
                "the Newton system produced NaN; the time step or stiffness is extreme"
            )
        if max_vertex_step(potential, du) < tol_m:
            return NewtonResult(u, it, evaluations, potential.kappa, collisions)
        slope = float(g @ du)
        if slope >= 0:  # cannot happen with an SPD matrix unless round-off dominates: done
            return NewtonResult(u, it, evaluations, potential.kappa, collisions)
        dx = (s.jacobian_free @ du).reshape(-1, 3)
        alpha = ipctk.compute_collision_free_stepsize(
            s.collision_mesh, x, x + dx, 0.0, _BROAD_PHASE
        )
        alpha = min(1.0, float(alpha))
        while True:
            trial = u.copy()
            trial[s.free] += alpha * du
            x_trial = s.collision_vertices(trial)
            c_trial = build_collisions(s, x_trial, potential.dhat)
            e_trial = potential.energy(trial, c_trial)
            evaluations += 1
            # Armijo with a tiny slope factor; the relative slack absorbs round-off near convergence.
            if e_trial <= energy + 1e-6 * alpha * slope + 1e-14 * abs(energy):
                break
            alpha *= 0.5
            if alpha * max_vertex_step(potential, du) < 0.1 * tol_m:
                if np.isnan(e_trial):
                    # Not round-off: the energy is undefined next to u, so u is no minimum.
                    raise SolverError(
                        "the incremental potential is not a number next to the current state "
                        "(a contact without barrier stiffness or a degenerate pad element); "
                        "try a smaller time step or a larger pad edge length"
                    )
                # No decrease possible along du: u is converged to round-off.
                return NewtonResult(u, it, evaluations, potential.kappa, collisions)
        u, x, collisions, energy = trial, x_trial, c_trial, e_trial
        full_step = alpha == 1.0
        d2 = collisions.compute_minimum_distance(s.collision_mesh, x) if len(collisions) else np.inf
        if np.isfinite(d2) and np.isfinite(prev_d2):
            kappa = ipctk.update_barrier_stiffness(
                prev_d2, d2, kappa_max, potential.kappa, s.bbox_diagonal
            )
            if kappa != potential.kappa:
                potential.set_kappa(kappa)
                energy = potential.energy(u, collisions)
        prev_d2 = d2
        if full_step:
            # Chord test: the old factor applied to the new gradient approximates the next
            # Newton step; if even that is below tolerance, skip the assembly and factorization.
            chord = factor.solve(-potential.free_gradient(u, collisions))
            if max_vertex_step(potential, chord) < tol_m:
                return NewtonResult(u, it, evaluations, potential.kappa, collisions)
    raise SolverError(
        f"Newton did not converge in {max_iterations} iterations (tolerance {tol_m:g} m); "
        "try a smaller time step or a larger newton tolerance"
    )


def initial_kappa(
    potential: IncrementalPotential, u: np.ndarray, average_mass: float
) -> tuple[float, float]:
    """(kappa, kappa_max) from ipctk's heuristic, in the divided-by-h^2 energy form, with the
    cap raised by KAPPA_MAX_FACTOR."""
    s = potential.system
    x = s.collision_vertices(u)
    collisions = build_collisions(s, x, potential.dhat)
    g_e, g_b = potential.free_internal_and_barrier_gradients(u, collisions)
    kappa, kappa_max = ipctk.initial_barrier_stiffness(
        s.bbox_diagonal,
        potential.barrier.barrier,
        potential.dhat,
        average_mass / potential.h**2,
        g_e,
        g_b,
    )
    return float(kappa), float(kappa_max) * KAPPA_MAX_FACTOR
