"""Projected Newton with a constrained backtracking line search (for IPC: no state ever
intersects, since each line search starts from the CCD-limited step)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Protocol, TypeAlias

import numpy as np

from engine.errors import NewtonNotConverged, SolverError
from engine.ipc.pattern_ldl import KeptFactor, NewtonMatrix, PatternFactor, PatternLdl, as_csr
from engine.ipc.pattern_ldl import upper_entries as upper_entries  # internal_term imports it here
from engine.ipc.sparse_factors import LdlFactor, SpdFactor, factor_spd

Factor: TypeAlias = PatternFactor | KeptFactor | SpdFactor | LdlFactor


@dataclass(frozen=True)
class NewtonResult:
    """The minimiser found, with the Newton iterations and line-search energy evaluations."""

    u: np.ndarray
    iterations: int
    line_search_evaluations: int
    stopped: bool = False  # `watch` stopped it at an unconverged iterate
    first_factor: Factor | None = None  # with keep_first: the first iterate's exact factor


@dataclass(frozen=True)
class Hints:
    """What a caller solving several objectives from one start knows (the grip-strength test's
    load steps, engine.grasp.disturbance).

    `watch`: the solve stops (`stopped`) at the first unconverged iterate for which watch(u)
    holds: the caller has learnt what it asked (an object already sliding away).
    `first_factor`: the factor of the Hessian at u_start, for an objective that differs from one
    already solved from the same start by a linear term only (another load): the first iterate
    uses it instead of assembling and factorizing. `keep_first`: the result carries the first
    iterate's factor (when it was exact, not a chord's).
    """

    watch: Callable[[np.ndarray], bool] | None = None
    first_factor: Factor | None = None
    keep_first: bool = False


NO_HINTS = Hints()


class Objective(Protocol):
    """What newton_solve minimises: an energy over free DOFs with a constrained step.

    `begin(u)` starts at an admissible u; `energy(v)` may be called at any trial v and then
    `accept(v)` makes that v the iterate (returning True when the energy's form changed, e.g. a
    new barrier stiffness); `gradient` and `gradient_hessian` are taken at the iterate;
    `max_step` is the largest admissible fraction of a step (CCD); `step_norm` measures a step
    in the units of the tolerance; `structure()` says which objectives' Newton matrices are
    alike enough for one's factor to give another's chord steps.
    """

    def begin(self, u: np.ndarray) -> None: ...
    def accept(self, u: np.ndarray) -> bool: ...
    def energy(self, u: np.ndarray) -> float: ...
    def gradient(self, u: np.ndarray) -> np.ndarray: ...
    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, NewtonMatrix]: ...
    def max_step(self, u: np.ndarray, du_free: np.ndarray) -> float: ...
    def step(self, u: np.ndarray, du_free: np.ndarray, alpha: float) -> np.ndarray: ...
    def step_norm(self, du_free: np.ndarray) -> float: ...
    def residual(self, g: np.ndarray) -> float: ...
    def structure(self) -> Hashable: ...


def _balanced(objective: Objective, g: np.ndarray, force_tol: float | None) -> bool:
    return force_tol is None or objective.residual(g) < force_tol


def _final_step(
    objective: Objective, u: np.ndarray, du: np.ndarray, energy: float
) -> tuple[np.ndarray, int, bool]:
    """u moved by the converged step du when that is admissible and does not raise the energy;
    the energy evaluations spent (0 or 1); and whether accepting it changed the energy's form
    (a grown barrier stiffness: u is then not converged for the new energy).

    The step is below the tolerance, but dropping it leaves an error of the order of the
    tolerance behind stiff directions (a contact's force, a slow slip that every time step
    would lose); taking it leaves an error second order in it.
    """
    if objective.max_step(u, du) < 1.0:
        return u, 0, False
    trial = objective.step(u, du, 1.0)
    if not objective.energy(trial) <= energy + 1e-14 * abs(energy):
        return u, 1, False
    return trial, 1, objective.accept(trial)


def _stop_with(
    objective: Objective,
    u: np.ndarray,
    du: np.ndarray,
    g: np.ndarray,
    energy: float,
    tol: float,
    force_tol: float | None,
    norm: float | None = None,
) -> tuple[np.ndarray, float, int, bool] | None:
    """None unless du (the step for gradient g at u; `norm`: its step_norm, when known) is
    converged: then u after the final step, its energy, the energy evaluations spent, and
    whether to stop (False when the final step grew the barrier stiffness: iterate on with the
    new energy)."""
    if norm is None:
        norm = objective.step_norm(du)
    if norm >= tol or not _balanced(objective, g, force_tol):
        return None
    u, n, changed = _final_step(objective, u, du, energy)
    if changed:
        energy = objective.energy(u)
    return u, energy, n, not changed


# A previous step's factor gives the first iterate's step (a chord) when that step's model
# decrease -g.du is at most this many times tol x force_tol (the energy of a converged step).
CHORD_ENERGY_FACTOR = 100.0

# The chord test after a full step (_chord_stop) is tried only when that step moved no vertex by
# more than this many times tol: it passes when the next step is below tol, and Newton does
# not shrink its steps a hundredfold in one iterate. Over 10 REACH trials at the default pad,
# the same with the 1 MPa pad at 1.5 mm, and the same with all seven disturbances, 0 of 1,991
# tests after a step above 100 tol passed (2 of 824 between 30 and 100 tol did); each one
# skipped saves a gradient and a solve (0.6-1.2 ms).
CHORD_TEST_MAX_STEP = 100.0


def _newton_matrix(
    objective: Objective, u: np.ndarray, ldl: PatternLdl | None
) -> tuple[np.ndarray, PatternFactor | SpdFactor | LdlFactor]:
    """The gradient at u and the factor of its Hessian: exact where that is positive definite.

    Every iterate tries the exact Hessian first: where it is indefinite it usually is so for
    one or two iterates only. Projecting for the rest of the time step after a failure made 70
    of 112 assemblies projected on the 98-vertex Table V cube (ipctk's per-pair
    eigen-projection is 3 ms of a 13 ms iteration there) for 9 failures; retrying costs 4 more
    failures and took 15 % less time, the same on the REACH grasps.
    """
    g, h = objective.gradient_hessian(u, project=False)
    factor = ldl.factor(h) if ldl is not None else factor_spd(as_csr(h), True)
    if factor is None:
        g, h = objective.gradient_hessian(u, project=True)
        factor = ldl.factor(h) if ldl is not None else factor_spd(as_csr(h))
    if factor is None:
        raise SolverError(
            "the Newton matrix is not positive definite even after projection; "
            "the time step or material stiffness is extreme"
        )
    return g, factor


def _step_direction(
    objective: Objective,
    u: np.ndarray,
    ldl: PatternLdl | None,
    prior: PatternFactor | None,
    tol: float,
    force_tol: float | None,
    exact: Factor | None = None,
) -> tuple[np.ndarray, Factor, np.ndarray, bool]:
    """(gradient at u, the factor used, the step, whether it is a chord step of `prior`);
    SolverError when the step is not finite. `exact`: the factor of the Hessian at u, known.

    A chord step steps along `prior`, the last factor the solver's `ldl` made (the previous
    solve's, if that converged in one iterate, with `chord_start`) instead of assembling and
    factorizing a Hessian, when the objective's `structure()` is the one that factor was made
    at and the chord's model moves little energy (a quasi-static step: the last step's matrix
    still holds); elsewhere a contact set that changed made it a poor direction and cost
    iterations (REACH: 9 of 58 chords, 3.9 iterations). Convergence is judged as for any
    iterate (the chord test): the force residual is exact, the step's norm is the chord's. A
    chord that is no descent falls back to the exact Hessian.
    """
    factor: Factor
    chord_iterate = False
    if exact is not None:
        g, factor = objective.gradient(u), exact
        return g, factor, _finite(factor.solve(-g)), False
    if prior is not None:
        g, factor = objective.gradient(u), prior
        du = factor.solve(-g)
        chord_iterate = -float(g @ du) <= CHORD_ENERGY_FACTOR * tol * (force_tol or 0.0)
    if not chord_iterate:
        g, factor = _newton_matrix(objective, u, ldl)
        du = factor.solve(-g)
    return g, factor, _finite(du), chord_iterate


def _finite(du: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(du)):
        raise SolverError("the Newton system produced NaN; the time step or stiffness is extreme")
    return du


def _line_search(
    objective: Objective,
    u: np.ndarray,
    du: np.ndarray,
    energy: float,
    slope: float,
    tol: float,
) -> tuple[np.ndarray, float, float, int, bool]:
    """Backtracking from the largest admissible step along du: (the trial, its energy, its
    step fraction alpha, the energy evaluations spent, whether it stalled: no decrease found
    before the step fell below a tenth of the tolerance)."""
    alpha = min(1.0, objective.max_step(u, du))
    evaluations = 0
    while True:
        trial = objective.step(u, du, alpha)
        e_trial = objective.energy(trial)
        evaluations += 1
        # Armijo with a tiny slope factor; the relative slack absorbs round-off near convergence.
        if e_trial <= energy + 1e-6 * alpha * slope + 1e-14 * abs(energy):
            return trial, e_trial, alpha, evaluations, False
        alpha *= 0.5
        if alpha * objective.step_norm(du) < 0.1 * tol:
            if np.isnan(e_trial):
                # Not round-off: the energy is undefined next to u, so u is no minimum.
                raise SolverError(
                    "the incremental potential is not a number next to the current state "
                    "(a contact without barrier stiffness or a degenerate pad element); "
                    "try a smaller time step or a larger pad edge length"
                )
            return trial, e_trial, alpha, evaluations, True


def _chord_stop(
    objective: Objective,
    u: np.ndarray,
    factor: Factor,
    energy: float,
    tol: float,
    force_tol: float | None,
    alpha: float,
    norm: float,
) -> tuple[np.ndarray, float, int, bool] | None:
    """Chord test after a full step (`alpha` 1) of at most CHORD_TEST_MAX_STEP x tol (`norm`:
    its step_norm): the factor applied to the new gradient approximates the next Newton step;
    if even that is below tolerance, skip the assembly and factorization (`_stop_with`'s
    answer for it). None after other steps."""
    if alpha != 1.0 or norm > CHORD_TEST_MAX_STEP * tol:
        return None
    g = objective.gradient(u)
    chord = factor.solve(-g)
    return _stop_with(objective, u, chord, g, energy, tol, force_tol)


def newton_solve(
    objective: Objective,
    u_start: np.ndarray,
    tol: float,
    max_iterations: int,
    ldl: PatternLdl | None = None,
    force_tol: float | None = None,
    chord_start: bool = False,
    hints: Hints = NO_HINTS,
) -> NewtonResult:
    """Minimise `objective` from an admissible u_start: projected Newton, constrained Armijo.

    Every iterate is admissible (for the incremental potential: intersection-free), because
    each line search starts from the objective's max_step. Converged when a Newton step moves
    no vertex by more than `tol` (m) and, with `force_tol`, no force residual exceeds it (N;
    behind a stiff contact a step far below `tol` can still hide newtons), or when no decrease
    is possible along the step (round-off).
    `ldl` (one per trial) reuses the symbolic factorization across the Newton matrices. With
    `chord_start`, the first iterate may be a chord step (_step_direction). `hints`: see Hints.
    """
    u = u_start.copy()
    objective.begin(u)
    energy = objective.energy(u)
    if not np.isfinite(energy):
        raise SolverError("the time step started from an invalid state (inverted pad element)")
    evaluations = 0
    # A chord iterate (the last factor of this structure, no assembly) may be tried first.
    prior = ldl.last_factor(objective.structure()) if ldl is not None and chord_start else None

    kept, exact, watch = None, hints.first_factor, hints.watch

    def done_at(it: int, stopped: bool = False) -> NewtonResult:
        # Only a solve converged in one iterate is quasi-static enough to pass its last factor
        # on: after harder steps (a squeeze building its grip) the chord cost more iterations.
        if ldl is not None:
            quasi_static = chord_start and it == 1 and not stopped
            ldl.label_last(objective.structure() if quasi_static else None)
        return NewtonResult(u, it, evaluations, stopped, kept)

    for it in range(1, max_iterations + 1):
        if watch is not None and it > 1 and watch(u):
            return done_at(it - 1, stopped=True)
        g, factor, du, chord_iterate = _step_direction(
            objective, u, ldl, prior, tol, force_tol, exact
        )
        if it == 1 and hints.keep_first and not chord_iterate:
            kept = factor.kept() if isinstance(factor, PatternFactor) else factor
        prior = exact = None
        norm = objective.step_norm(du)
        # A converged step ends the solve before any line search; after one, the chord test.
        stop = _stop_with(objective, u, du, g, energy, tol, force_tol, norm)
        if stop is None:
            slope = float(g @ du)
            if slope >= 0:  # cannot happen with an SPD matrix unless round-off dominates: done
                if chord_iterate:
                    continue
                return done_at(it)
            trial, e_trial, alpha, n, stalled = _line_search(objective, u, du, energy, slope, tol)
            evaluations += n
            if stalled:
                if chord_iterate:
                    continue  # an old matrix's direction: try the exact one
                # No decrease possible along du: u is converged to round-off.
                return done_at(it)
            u, energy = trial, e_trial
            if objective.accept(u):
                energy = objective.energy(u)
            stop = _chord_stop(objective, u, factor, energy, tol, force_tol, alpha, norm)
        if stop is not None:
            u, energy, n, done = stop
            evaluations += n
            if done:
                return done_at(it)
    if watch is not None and watch(u):
        return done_at(max_iterations, stopped=True)
    raise _not_converged(max_iterations, tol)


def _not_converged(max_iterations: int, tol: float) -> NewtonNotConverged:
    return NewtonNotConverged(
        f"Newton did not converge in {max_iterations} iterations (tolerance {tol:g} m); "
        "try a smaller time step or a larger newton tolerance",
        max_iterations,
    )
