"""conic.solved_value: a variable cvxpy left unsolved is a SolverError, not a None later."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from engine.analytic.sixdls.conic import solved_value
from engine.errors import SolverError


def test_unsolved_variable_raises_solver_error():
    with pytest.raises(SolverError, match="no solution"):
        solved_value(cp.Variable(2), "test fit")


def test_solved_variable_is_a_float_array():
    x = cp.Variable(2)
    cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, 2.0])))).solve(solver=cp.CLARABEL)
    value = solved_value(x, "test fit")
    assert value.dtype == np.float64
    np.testing.assert_allclose(value, [1.0, 2.0], atol=1e-6)
