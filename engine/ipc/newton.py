"""Projected Newton with a constrained backtracking line search (for IPC: no state ever
intersects, since each line search starts from the CCD-limited step)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

import cholespy
import numpy as np
import qdldl
import scipy.sparse as sp

from engine.errors import NewtonNotConverged, SolverError
from engine.ipc.ldl_kernels import (
    elimination_tree,
    key_positions,
    ldl_factor,
    ldl_solve,
    permuted_upper_pattern,
    row_patterns,
    scatter_sum,
)

_LIBC = ctypes.CDLL(None)


@dataclass(frozen=True)
class NewtonResult:
    """The minimiser found, with the Newton iterations and line-search energy evaluations."""

    u: np.ndarray
    iterations: int
    line_search_evaluations: int


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
        """x with H x = rhs."""
        x = np.zeros_like(rhs)
        self._solver.solve(np.ascontiguousarray(rhs), x)
        return x


@contextlib.contextmanager
def _c_output_silenced() -> Iterator[None]:
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


class LdlFactor:
    """Sparse LDL^T (QDLDL) of a symmetric matrix that may be indefinite (then not `definite`).

    For the factorisation that may fail: cholespy's constructor throws when CHOLMOD finds the
    matrix not positive definite and so never frees CHOLMOD's workspace, matrix copy and factor
    (~1 MB each time; a trial with a hundred indefinite Newton matrices grew by 135 MB).
    """

    def __init__(self, solver: qdldl.Solver) -> None:
        self._solver = solver
        self.definite = bool(np.all(solver.factors()[1] > 0))

    @classmethod
    def of(cls, h: sp.csr_matrix) -> LdlFactor:
        """A fresh factorisation of h (symbolic and numeric)."""
        return cls(qdldl.Solver(sp.triu(h, format="csc"), upper=True))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with H x = rhs."""
        return np.asarray(self._solver.solve(np.ascontiguousarray(rhs, dtype=np.float64)))


class SummedMatrix(Protocol):
    """A symmetric matrix kept as a sum of parts, each given by its upper-triangle entries."""

    @property
    def shape(self) -> tuple[int, int]: ...
    def upper_parts(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """[(keys col * n + row with row <= col, values)] per part; keys may repeat (summed)."""
        ...

    def tocsr(self) -> sp.csr_matrix: ...


NewtonMatrix: TypeAlias = "sp.csr_matrix | SummedMatrix"


def upper_entries(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions in the data, keys col * n + row) of the upper-triangle entries (row <= col)
    of an n x n CSR structure: the keys SummedMatrix parts and PatternLdl use."""
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    upper = np.flatnonzero(indices >= rows)
    return upper, indices[upper].astype(np.int64) * n + rows[upper]


def _slots(union: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each key's slot in the sorted union, and whether the union holds it there."""
    slots = np.minimum(np.searchsorted(union, keys), len(union) - 1)
    return slots, union[slots] == keys


def as_csr(h: NewtonMatrix) -> sp.csr_matrix:
    """h as one CSR matrix."""
    return h.tocsr() if not isinstance(h, sp.csr_matrix) else h


def _with_diagonal(union: np.ndarray, n: int) -> np.ndarray:
    """The sorted keys `union` (col * n + row) with every diagonal key of an n x n matrix
    inserted where missing: np.union1d's result without its sort (3 ms on n = 1069)."""
    diagonal = np.arange(n, dtype=np.int64) * (n + 1)
    at = np.searchsorted(union, diagonal)
    present = np.zeros(n, dtype=bool)
    if len(union):
        present = union[np.minimum(at, len(union) - 1)] == diagonal
    return np.insert(union.astype(np.int64, copy=False), at[~present], diagonal[~present])


@dataclass
class _Symbolic:
    """One symbolic analysis: a union of upper-triangle keys, its fill-reducing order, the
    permuted upper-triangular CSC pattern, and the arrays every numeric pass reuses."""

    union: np.ndarray  # sorted keys col * n + row (row <= col) in the matrix's own indices
    to_csc: np.ndarray  # union index -> position in the permuted CSC's data
    perm: np.ndarray  # (P^T v)[j] = v[perm[j]]
    ap: np.ndarray
    ai: np.ndarray
    ax: np.ndarray
    etree: np.ndarray
    lp: np.ndarray
    lx: np.ndarray
    d: np.ndarray
    dinv: np.ndarray
    fresh_fill: float  # nonzeros of L under the last fresh AMD order of this matrix size
    # L's row indices and each row's (column, slot) sequence (ldl_kernels.row_patterns), built
    # by with_rows() once the order is chosen.
    li: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    rptr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    rcol: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    rslot: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    # Where each column's keys start in `union` (n + 1 entries), for key_positions.
    column_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def with_rows(self) -> _Symbolic:
        """This analysis with L's row patterns (0.3 ms on the REACH cube's n = 1069) and the
        union's column starts."""
        n = len(self.d)
        self.rptr, self.rcol, self.rslot, self.li = row_patterns(
            n, self.ap, self.ai, self.lp, self.etree
        )
        self.column_start = np.searchsorted(self.union, np.arange(n + 1, dtype=np.int64) * n)
        return self

    @classmethod
    def of(cls, union: np.ndarray, n: int, old: _Symbolic | None = None) -> _Symbolic:
        """The analysis of the keys `union` of an n x n matrix: elimination tree and L's
        pattern in a fill-reducing order. A union widened from `old` keeps its order (its new
        keys couple a few more pad vertices to the object, and a fresh order costs a QDLDL
        factorization) until L has REORDER_FILL times the fill of the last fresh order; a fresh
        order is QDLDL's AMD, taken from a diagonally dominant matrix of the same pattern (its
        diagonal added where the union lacks one)."""
        if old is not None:
            kept = cls._in_order(union, n, old.perm, old.fresh_fill)
            if kept.lp[-1] <= REORDER_FILL * old.fresh_fill:
                return kept.with_rows()
        keys = _with_diagonal(union, n)
        cols = keys // n
        rows = keys - cols * n
        dominant = np.where(rows != cols, 1e-3, float(n))
        col_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols, minlength=n), out=col_ptr[1:])
        template = sp.csc_matrix((dominant, rows.astype(np.int32), col_ptr), shape=(n, n))
        perm = np.asarray(qdldl.Solver(template, upper=True).factors()[2], dtype=np.int64)
        fresh = cls._in_order(union, n, perm, 0.0)
        fresh.fresh_fill = float(fresh.lp[-1])
        return fresh.with_rows()

    @classmethod
    def _in_order(cls, union: np.ndarray, n: int, perm: np.ndarray, fresh_fill: float) -> _Symbolic:
        inv = np.empty(n, dtype=np.int64)
        inv[perm] = np.arange(n)
        to_csc, ap, ai = permuted_upper_pattern(np.ascontiguousarray(union, np.int64), n, inv)
        etree, lnz = elimination_tree(n, ap, ai)
        lp = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(lnz, out=lp[1:], dtype=np.uint64)
        nnz_l = int(lp[-1])
        return cls(
            union, to_csc, perm, ap, ai, np.zeros(len(union)), etree, lp,
            np.zeros(nnz_l), np.zeros(n), np.zeros(n), fresh_fill,
        )  # fmt: skip


class PatternFactor:
    """The LDL^T factor PatternLdl computed last (valid until its next factorization)."""

    def __init__(self, sym: _Symbolic) -> None:
        self._sym = sym

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with H x = rhs."""
        s = self._sym
        return ldl_solve(s.lp, s.li, s.lx, s.dinv, s.perm, np.ascontiguousarray(rhs, np.float64))


# A widened pattern is reordered once its L has this much more fill than under its last AMD order.
REORDER_FILL = 1.1


class PatternLdl:
    """LDL^T factorizations that share one symbolic analysis per matrix size.

    The Newton matrices of a trial differ in their contact blocks only, so their patterns stay
    within a union that stops growing after a few steps: each matrix is scattered into that
    union's permuted pattern and only refactorized numerically (QDLDL's up-looking algorithm
    in numba with each row's pattern precomputed, engine.ipc.ldl_kernels: about 0.8 ms on the
    REACH cube's n = 1069, and D tells definiteness). A matrix with an entry outside the union
    widens it and pays one symbolic analysis (_Symbolic.of).

    A matrix may come as a sum of parts (SummedMatrix: the internal terms in their fixed
    pattern, the contact blocks as triplets): each part's slots are remembered while its keys
    repeat, so a Newton matrix costs one scatter per part, not a sparse sum.
    """

    def __init__(self) -> None:
        self._by_n: dict[int, _Symbolic] = {}
        # The last positive definite factor, and the key of the solve that made it (label_last).
        self._last: PatternFactor | None = None
        self._last_key: Hashable = None
        # Per part position: (its last keys, the analysis they were placed in, their slots).
        self._part_slots: dict[int, tuple[np.ndarray, _Symbolic, np.ndarray]] = {}
        # The last CSR structure seen: (indptr, indices, upper-triangle entries, their keys).
        self._csr: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = (
            np.empty(0),
            np.empty(0),
            np.empty(0, dtype=np.int64),
            np.empty(0, dtype=np.int64),
        )

    def factor(self, h: NewtonMatrix) -> PatternFactor | None:
        """The factor of h, or None when h is not positive definite.

        A CSR h may have unsorted or duplicate entries (sums of sparse products do): entries
        are summed into their slots, so no canonical copy is made.
        """
        n = h.shape[0]
        if isinstance(h, sp.csr_matrix):
            parts = [self._csr_upper(h)]
        else:
            parts = h.upper_parts()
        sym = self._by_n.get(n)
        slots = None if sym is None else self._all_slots(parts, sym)
        if sym is None or slots is None:
            keys = np.concatenate([keys for keys, _ in parts])
            if sym is None:
                union = np.unique(keys)
            else:
                # Widen the union by the missing keys only (union1d would re-sort ~50k keys).
                extra = np.unique(keys[~_slots(sym.union, keys)[1]])
                union = np.insert(sym.union, np.searchsorted(sym.union, extra), extra)
            sym = self._by_n[n] = _Symbolic.of(union, n, sym)
            slots = self._all_slots(parts, sym)
            assert slots is not None  # the union holds every key now
        sym.ax[:] = 0.0
        for sl, (_, values) in zip(slots, parts, strict=True):
            scatter_sum(sym.ax, sl, np.ascontiguousarray(values, dtype=np.float64))
        definite = ldl_factor(
            n, sym.ap, sym.ai, sym.ax, sym.lp, sym.li, sym.lx, sym.d, sym.dinv,
            sym.rptr, sym.rcol, sym.rslot,
        )  # fmt: skip
        # A failed factorization overwrote part of sym's L and D: no last factor then.
        self._last = PatternFactor(sym) if definite == n else None
        self._last_key = None
        return self._last

    def label_last(self, key: Hashable) -> None:
        """Tag the last factor with the key of the objective it was computed for."""
        self._last_key = key

    def last_factor(self, key: Hashable) -> PatternFactor | None:
        """The last factor if it is positive definite and tagged with `key`."""
        if self._last is None or key is None or self._last_key != key:
            return None
        return self._last

    def _all_slots(
        self, parts: list[tuple[np.ndarray, np.ndarray]], sym: _Symbolic
    ) -> list[np.ndarray] | None:
        """Every part's slots in sym's data, None if a key is missing from its union."""
        out = []
        for k, (keys, _) in enumerate(parts):
            slots = self._slots_in(k, keys, sym)
            if slots is None:
                return None
            out.append(slots)
        return out

    def _slots_in(self, k: int, keys: np.ndarray, sym: _Symbolic) -> np.ndarray | None:
        """Positions of part k's keys in the permuted pattern's data (remembered while they
        repeat), None if one is missing from the union."""
        cached = self._part_slots.get(k)
        if cached is not None and cached[1] is sym:
            if cached[0] is keys or np.array_equal(cached[0], keys):
                return cached[2]
        positions = key_positions(
            sym.union, sym.column_start, len(sym.d), np.ascontiguousarray(keys, np.int64),
            sym.to_csc,
        )  # fmt: skip
        if len(positions) != len(keys):
            return None
        self._part_slots[k] = (keys, sym, positions)
        return positions

    def _csr_upper(self, h: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
        """(keys, values) of a CSR matrix's upper triangle; the same keys object while its
        structure repeats (Newton matrices of one step mostly share one)."""
        indptr, indices, upper, keys = self._csr
        if not (np.array_equal(indptr, h.indptr) and np.array_equal(indices, h.indices)):
            upper, keys = upper_entries(h.indptr, h.indices, h.shape[0])
            self._csr = (h.indptr.copy(), h.indices.copy(), upper, keys)
        return keys, h.data[upper]


def _definite(factor: LdlFactor) -> LdlFactor | None:
    return factor if factor.definite else None


def factor_spd(h: sp.csr_matrix, expect_failure: bool = False) -> SpdFactor | LdlFactor | None:
    """The Cholesky factor of h, or None when h is not positive definite.

    `expect_failure`: h is often indefinite; factor it with LDL^T, which fails without leaking.
    """
    try:
        if expect_failure:
            with _c_output_silenced():
                return _definite(LdlFactor.of(h))
        return SpdFactor(h)
    except (RuntimeError, ValueError):
        return None


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
) -> tuple[np.ndarray, float, int, bool] | None:
    """None unless du (the step for gradient g at u) is converged: then u after the final step,
    its energy, the energy evaluations spent, and whether to stop (False when the final step
    grew the barrier stiffness: iterate on with the new energy)."""
    if objective.step_norm(du) >= tol or not _balanced(objective, g, force_tol):
        return None
    u, n, changed = _final_step(objective, u, du, energy)
    if changed:
        energy = objective.energy(u)
    return u, energy, n, not changed


# A previous step's factor gives the first iterate's step (a chord) when that step's model
# decrease -g.du is at most this many times tol x force_tol (the energy of a converged step).
CHORD_ENERGY_FACTOR = 100.0


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


def newton_solve(
    objective: Objective,
    u_start: np.ndarray,
    tol: float,
    max_iterations: int,
    ldl: PatternLdl | None = None,
    force_tol: float | None = None,
    chord_start: bool = False,
) -> NewtonResult:
    """Minimise `objective` from an admissible u_start: projected Newton, constrained Armijo.

    Every iterate is admissible (for the incremental potential: intersection-free), because
    each line search starts from the objective's max_step. Converged when a Newton step moves
    no vertex by more than `tol` (m) and, with `force_tol`, no force residual exceeds it (N;
    behind a stiff contact a step far below `tol` can still hide newtons), or when no decrease
    is possible along the step (round-off).
    `ldl` (one per trial) reuses the symbolic factorization across the Newton matrices.

    With `chord_start`, the first iterate may step along the last factor `ldl` made (the
    previous solve's, if that converged in one iterate) instead of assembling and factorizing
    a Hessian: a chord step, taken when the objective's `structure()` is the one that factor
    was made at and the chord's model moves little energy. Convergence is judged as for any
    iterate (the chord test below): the force residual is exact, the step's norm is the
    chord's. A chord that is no descent falls back to the exact Hessian.
    """
    u = u_start.copy()
    objective.begin(u)
    energy = objective.energy(u)
    if not np.isfinite(energy):
        raise SolverError("the time step started from an invalid state (inverted pad element)")
    evaluations = 0
    # A chord iterate (the last factor of this structure, no assembly) may be tried first.
    prior = ldl.last_factor(objective.structure()) if ldl is not None and chord_start else None

    def done_at(it: int) -> NewtonResult:
        # Only a solve converged in one iterate is quasi-static enough to pass its last factor
        # on: after harder steps (a squeeze building its grip) the chord cost more iterations.
        if ldl is not None:
            ldl.label_last(objective.structure() if chord_start and it == 1 else None)
        return NewtonResult(u, it, evaluations)

    factor: PatternFactor | SpdFactor | LdlFactor
    for it in range(1, max_iterations + 1):
        chord_iterate = False
        if prior is not None:
            g, factor = objective.gradient(u), prior
            du = factor.solve(-g)
            prior = None
            # The chord is taken only when its model moves little energy (a quasi-static step:
            # the last step's matrix still holds); elsewhere a contact set that changed made
            # it a poor direction and cost iterations (REACH: 9 of 58 chords, 3.9 iterations).
            chord_iterate = -float(g @ du) <= CHORD_ENERGY_FACTOR * tol * (force_tol or 0.0)
        if not chord_iterate:
            g, factor = _newton_matrix(objective, u, ldl)
            du = factor.solve(-g)
        if not np.all(np.isfinite(du)):
            raise SolverError(
                "the Newton system produced NaN; the time step or stiffness is extreme"
            )
        stop = _stop_with(objective, u, du, g, energy, tol, force_tol)
        if stop is not None:
            u, energy, n, done = stop
            evaluations += n
            if done:
                return done_at(it)
            continue
        slope = float(g @ du)
        if slope >= 0:  # cannot happen with an SPD matrix unless round-off dominates: done
            if chord_iterate:
                continue
            return done_at(it)
        alpha = min(1.0, objective.max_step(u, du))
        stalled = False
        while True:
            trial = objective.step(u, du, alpha)
            e_trial = objective.energy(trial)
            evaluations += 1
            # Armijo with a tiny slope factor; the relative slack absorbs round-off near convergence.
            if e_trial <= energy + 1e-6 * alpha * slope + 1e-14 * abs(energy):
                break
            alpha *= 0.5
            if alpha * objective.step_norm(du) < 0.1 * tol:
                if np.isnan(e_trial):
                    # Not round-off: the energy is undefined next to u, so u is no minimum.
                    raise SolverError(
                        "the incremental potential is not a number next to the current state "
                        "(a contact without barrier stiffness or a degenerate pad element); "
                        "try a smaller time step or a larger pad edge length"
                    )
                stalled = True
                break
        if stalled:
            if chord_iterate:
                continue  # an old matrix's direction: try the exact one
            # No decrease possible along du: u is converged to round-off.
            return done_at(it)
        u, energy = trial, e_trial
        if objective.accept(u):
            energy = objective.energy(u)
        if alpha == 1.0:
            # Chord test: the factor applied to the new gradient approximates the next Newton
            # step; if even that is below tolerance, skip the assembly and factorization.
            g = objective.gradient(u)
            chord = factor.solve(-g)
            stop = _stop_with(objective, u, chord, g, energy, tol, force_tol)
            if stop is not None:
                u, energy, n, done = stop
                evaluations += n
                if done:
                    return done_at(it)
    raise NewtonNotConverged(
        f"Newton did not converge in {max_iterations} iterations (tolerance {tol:g} m); "
        "try a smaller time step or a larger newton tolerance",
        max_iterations,
    )
