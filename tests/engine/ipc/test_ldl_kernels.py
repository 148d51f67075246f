"""PatternLdl's numba LDL^T (engine.ipc.ldl_kernels) against scipy's direct solver.

Laws checked: H x = b is solved to round-off for symmetric positive definite H; a matrix with a
negative eigenvalue is reported not positive definite (Sylvester: LDL^T has as many negative
pivots as H has negative eigenvalues); patterns that grow from matrix to matrix (a contact block
appearing) are solved right whether the widened pattern keeps its order or is reordered.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from engine.ipc import pattern_ldl
from engine.ipc.pattern_ldl import PatternLdl


def _mesh_like(n_nodes: int, rng: np.random.Generator, extra: int = 0) -> sp.csr_matrix:
    """SPD matrix with 3x3 blocks on a random sparse node graph (like a tet mesh's stiffness
    plus mass), `extra` more random node couplings."""
    pairs = [(i, i + 1) for i in range(n_nodes - 1)] + [(i, i + 7) for i in range(n_nodes - 7)]
    pairs += [tuple(rng.choice(n_nodes, 2, replace=False)) for _ in range(extra)]
    rows, cols = [], []
    for a, b in pairs:
        rows += [a, b]
        cols += [b, a]
    g = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_nodes, n_nodes)).tocsr()
    g.data[:] = 1.0
    block = rng.standard_normal((3, 3))
    h = sp.kron(g, block @ block.T * 0.1).tocsr()
    degree = np.asarray(abs(h).sum(axis=1)).ravel()
    return (h + sp.diags(degree + 1.0)).tocsr()  # diagonally dominant: SPD


def _check_solve(ldl: PatternLdl, h: sp.csr_matrix, rng: np.random.Generator) -> None:
    factor = ldl.factor(h)
    assert factor is not None
    b = rng.standard_normal(h.shape[0])
    x = factor.solve(b)
    expected = spla.spsolve(h.tocsc(), b)
    assert np.max(np.abs(x - expected)) <= 1e-10 * np.max(np.abs(expected))


def test_spd_matrices_are_solved_to_round_off() -> None:
    rng = np.random.default_rng(0)
    ldl = PatternLdl()
    for _ in range(3):  # the same pattern: numeric refactorizations only
        _check_solve(ldl, _mesh_like(120, rng), rng)


def test_a_matrix_with_a_negative_eigenvalue_is_not_definite() -> None:
    rng = np.random.default_rng(1)
    h = _mesh_like(60, rng)
    lam_min = spla.eigsh(h, k=1, which="SA", return_eigenvectors=False)[0]
    shifted = (h - sp.identity(h.shape[0]) * (lam_min + 1e-3)).tocsr()
    ldl = PatternLdl()
    assert ldl.factor(h) is not None
    assert ldl.factor(shifted) is None
    assert ldl.factor(h) is not None  # the next matrix of the same pattern factorizes again


@pytest.mark.parametrize("reorder_fill", [1.0, 1e9])
def test_growing_patterns_are_solved_with_kept_and_fresh_orders(
    monkeypatch: pytest.MonkeyPatch, reorder_fill: float
) -> None:
    """1.0: every widened pattern gets a fresh AMD order; 1e9: every one keeps its first."""
    monkeypatch.setattr(pattern_ldl, "REORDER_FILL", reorder_fill)
    rng = np.random.default_rng(2)
    ldl = PatternLdl()
    base = _mesh_like(100, rng)
    for grown in range(1, 5):
        coupling = _mesh_like(100, np.random.default_rng(10 + grown), extra=15 * grown)
        h = (base + coupling).tocsr()
        _check_solve(ldl, h, rng)
        _check_solve(ldl, base, rng)  # a matrix within the widened pattern still solves


def test_summed_parts_with_repeated_keys_are_added() -> None:
    """A SummedMatrix's parts may repeat keys (the contact triplets do): they add up."""
    rng = np.random.default_rng(3)
    h = _mesh_like(40, rng)
    n = h.shape[0]
    upper = sp.triu(h).tocoo()
    keys = upper.col.astype(np.int64) * n + upper.row

    class Halves:
        shape = (n, n)
        hubs = np.zeros(0, dtype=np.int64)

        def upper_parts(self) -> list[tuple[np.ndarray, np.ndarray]]:
            half = 0.5 * upper.data
            return [(keys, half), (np.concatenate([keys, keys]), np.concatenate([half, 0 * half]))]

        def tocsr(self) -> sp.csr_matrix:
            return h

    factor = PatternLdl().factor(Halves())
    assert factor is not None
    b = rng.standard_normal(n)
    assert np.allclose(h @ factor.solve(b), b, rtol=0, atol=1e-10 * np.abs(b).max())


def test_a_matrix_without_some_diagonal_entries_is_refused_not_raised() -> None:
    """A zero diagonal entry (absent from the pattern) in a symmetric matrix with a nonzero
    coupling makes it indefinite: the factorization says so instead of failing its analysis."""
    n = 6
    h = sp.lil_matrix((n, n))
    for i in range(2, n):
        h[i, i] = 2.0
    h[0, 1] = h[1, 0] = 1.0  # rows 0 and 1: no diagonal entry at all
    assert PatternLdl().factor(h.tocsr()) is None


def test_key_positions_finds_each_key_in_its_column_and_refuses_a_missing_one() -> None:
    from engine.ipc.ldl_kernels import key_positions

    rng = np.random.default_rng(3)
    n = 50
    union = np.unique(rng.integers(0, n * n, 600))
    column_start = np.searchsorted(union, np.arange(n + 1) * n)
    to_csc = rng.permutation(len(union))
    keys = union[rng.integers(0, len(union), 2000)]  # repeats, in no order
    np.testing.assert_array_equal(
        key_positions(union, column_start, n, keys, to_csc),
        to_csc[np.searchsorted(union, keys)],
    )
    missing = np.setdiff1d(np.arange(n * n), union)
    for key in (missing[0], missing[len(missing) // 2], missing[-1]):
        with_missing = np.append(keys, key)
        assert len(key_positions(union, column_start, n, with_missing, to_csc)) == 0


def test_the_permuted_pattern_is_the_lexsorted_one() -> None:
    """permuted_upper_pattern's counting sorts give numpy's lexsort by (column, row) of the
    permuted upper triangle, entry for entry."""
    from engine.ipc.ldl_kernels import permuted_upper_pattern

    rng = np.random.default_rng(5)
    for n in (1, 7, 60):
        rows, cols = np.triu_indices(n)
        pick = rng.random(len(rows)) < 0.3
        pick[np.flatnonzero(rows == cols)] = True  # the diagonal, as every Newton matrix has
        union = np.sort(cols[pick].astype(np.int64) * n + rows[pick])
        perm = rng.permutation(n)
        inv = np.empty(n, dtype=np.int64)
        inv[perm] = np.arange(n)
        c, r = np.divmod(union, n)
        lo, hi = np.minimum(inv[r], inv[c]), np.maximum(inv[r], inv[c])
        order = np.lexsort((lo, hi))
        to_csc, ap, ai = permuted_upper_pattern(union, n, inv)
        expected = np.empty(len(union), dtype=np.int64)
        expected[order] = np.arange(len(union))
        np.testing.assert_array_equal(to_csc, expected)
        np.testing.assert_array_equal(ai, lo[order])
        np.testing.assert_array_equal(
            ap, np.concatenate([[0], np.cumsum(np.bincount(hi, minlength=n))])
        )


def test_the_fresh_orders_template_holds_the_union_and_every_diagonal_key() -> None:
    # The AMD template's keys are the set union of the matrix's keys and the diagonal's
    # (pattern_ldl._with_diagonal inserts instead of sorting); the order depends on nothing else.
    rng = np.random.default_rng(7)
    for n in (1, 2, 9, 200):
        for size in (0, 1, n, 5 * n):
            union = np.unique(rng.integers(0, n * n, size=size)).astype(np.int64)
            expected = np.union1d(union, np.arange(n, dtype=np.int64) * (n + 1))
            got = pattern_ldl._with_diagonal(union, n)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected)


class _Summed:
    """A CSR matrix as one SummedMatrix part, with declared hubs."""

    def __init__(self, h: sp.csr_matrix, hubs: np.ndarray) -> None:
        self.h, self.hubs, self.shape = h, hubs, h.shape

    def upper_parts(self) -> list[tuple[np.ndarray, np.ndarray]]:
        upper = sp.triu(self.h).tocoo()
        return [(upper.col.astype(np.int64) * self.shape[0] + upper.row, upper.data)]

    def tocsr(self) -> sp.csr_matrix:
        return self.h


def _two_pads(rng: np.random.Generator, nodes: int = 150) -> _Summed:
    """Two mesh-like blocks coupled only through six 'object' unknowns (the hubs), which are
    placed among the pads' (not at the end): the shape of a grasp's Newton matrix, two pads
    touching one rigid object."""
    pads = sp.block_diag([_mesh_like(nodes, rng), _mesh_like(nodes, rng)]).tocsr()
    m = pads.shape[0]
    hubs = np.sort(rng.choice(m + 6, 6, replace=False))
    own = np.setdiff1d(np.arange(m + 6), hubs)
    n = m + 6
    h = sp.lil_matrix((n, n))
    pads = pads.tocoo()
    for i, j, v in zip(own[pads.row], own[pads.col], pads.data, strict=True):
        h[i, j] = v
    for touching in own[rng.choice(m, 40, replace=False)]:
        for o in hubs:
            h[touching, o] = h[o, touching] = 0.05 * rng.standard_normal()
    for o in hubs:
        h[o, o] = 3.0
    return _Summed((h.tocsr() + sp.diags(np.full(n, 3.0))).tocsr(), hubs)


def test_the_split_groups_are_independent_subtrees_and_the_rest_follows_them() -> None:
    """Row k of L has entries only in columns of k's subtree of the elimination tree, so the two
    groups may factor at once: no row of one group has an entry in a column of the other, and
    every row comes after its descendants."""
    rng = np.random.default_rng(11)
    h = _two_pads(rng)
    ldl = PatternLdl()
    assert ldl.factor(h) is not None
    n = h.shape[0]
    sym = ldl._by_n[n]
    assert set(sym.perm[-6:].tolist()) == set(h.hubs.tolist())  # the hubs last
    order, bounds = sym.order.astype(np.int64), sym.bounds
    assert sorted(order.tolist()) == list(range(n))
    group = np.empty(n, dtype=np.int64)
    for g in range(3):
        group[order[bounds[g] : bounds[g + 1]]] = g
    assert min(bounds[1], bounds[2] - bounds[1]) > 0.3 * n  # two pads: two real groups
    assert bounds[3] - bounds[2] < 0.1 * n
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    for k in range(n):
        cols = sym.rcol[sym.rptr[k] : sym.rptr[k + 1]].astype(np.int64)
        assert np.all(position[cols] < position[k])
        if group[k] < 2:
            assert np.all(group[cols] == group[k])


@pytest.mark.parametrize("threads", [1, 2])
def test_the_factor_is_the_same_to_the_bit_on_one_thread_or_two(
    monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """A row's arithmetic does not depend on the rows beside it: the split factorization (forced
    onto two threads whatever its size) gives the unsplit factor bit for bit, and an indefinite
    matrix whose first negative pivot lies in either group is refused."""
    from engine.ipc import ipctk_gateway

    rng = np.random.default_rng(12)
    h = _two_pads(rng)
    n = h.shape[0]
    reference = PatternLdl()
    ref = reference.factor(h)
    assert ref is not None
    ref_sym = reference._by_n[n]
    unsplit = ldl_kernels_factor_all(ref_sym)
    monkeypatch.setattr(pattern_ldl, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(ipctk_gateway, "_query_threads", threads)
    ldl = PatternLdl()
    factor = ldl.factor(h)
    assert factor is not None
    sym = ldl._by_n[n]
    assert sym.split
    np.testing.assert_array_equal(sym.lx, unsplit[0])
    np.testing.assert_array_equal(sym.d, unsplit[1])
    b = rng.standard_normal(n)
    np.testing.assert_array_equal(factor.solve(b), ref.solve(b))
    for g in range(3):
        row = int(sym.perm[sym.order[sym.bounds[g]]])  # a row of group g, in h's own indices
        broken = h.h.tolil()
        broken[row, row] = -10.0
        assert ldl.factor(_Summed(broken.tocsr(), h.hubs)) is None
    assert ldl.factor(h) is not None


def ldl_kernels_factor_all(sym: pattern_ldl._Symbolic) -> tuple[np.ndarray, np.ndarray]:
    """L and D of sym's values by the kernel over all rows in natural order (no split)."""
    from engine.ipc.ldl_kernels import ldl_factor

    n = len(sym.d)
    lx, d, dinv = np.zeros_like(sym.lx), np.zeros(n), np.zeros(n)
    natural = np.arange(n, dtype=np.uint32)
    assert ldl_factor(
        n, sym.ap, sym.ai, sym.ax, sym.lp, sym.li, lx, d, dinv,
        sym.rptr, sym.rcol, sym.rslot, natural, 0, n,
    ) == n  # fmt: skip
    return lx, d
