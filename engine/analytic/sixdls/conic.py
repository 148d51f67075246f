"""Solving the limit-surface fits with cvxpy + Clarabel, with failures as SolverError."""

from __future__ import annotations

import time
import warnings

import cvxpy as cp
import numpy as np

from engine.errors import SolverError


def solve_with_clarabel(problem: cp.Problem, what: str) -> tuple[str, float]:
    """Solve `problem`; return (status, wall seconds). Raises SolverError when it fails.

    cvxpy's "solution may be inaccurate" warning is folded into the returned status so a
    batch run is not stopped by it (the tests turn warnings into errors).
    """
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            problem.solve(solver=cp.CLARABEL)
        except cp.error.SolverError as exc:
            raise SolverError(
                f"{what}: Clarabel failed ({exc}); try another fine level or fewer samples"
            ) from exc
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise SolverError(
            f"{what}: Clarabel returned {problem.status}; try another fine level or fewer samples"
        )
    return str(problem.status), time.perf_counter() - start


def solved_value(variable: cp.Variable, what: str) -> np.ndarray:
    """The value of `variable` after a successful solve, as a float array.

    cvxpy leaves it None when the problem was not solved; that is a SolverError here, not an
    AttributeError later.
    """
    value = variable.value
    if value is None:
        raise SolverError(
            f"{what}: Clarabel returned no solution; try another fine level or fewer samples"
        )
    return np.asarray(value, dtype=float)
