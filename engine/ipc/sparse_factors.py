"""Sparse factorizations of one symmetric matrix: Cholesky (CHOLMOD via cholespy) where it is
positive definite, LDL^T (QDLDL) where it may not be (`factor_spd`)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator

import cholespy
import numpy as np
import qdldl
import scipy.sparse as sp

_LIBC = ctypes.CDLL(None)


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
