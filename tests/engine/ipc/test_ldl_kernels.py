"""PatternLdl's numba LDL^T (engine.ipc.ldl_kernels) against scipy's direct solver.

Laws checked: H x = b is solved to round-off for symmetric positive definite H; a matrix with a
negative eigenvalue is reported not positive definite (Sylvester: LDL^T has as many negative
pivots as H has negative eigenvalues); patterns that grow from matrix to matrix (a contact block
appearing) are solved right whether the widened pattern keeps its order or is reordered; a
refactorization that recomputes only the supernodes a change of values reaches gives the full
factorization's factor to the bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from engine.ipc import pattern_ldl, supernodal_ldl
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


def _column_groups(sym: pattern_ldl._Symbolic) -> np.ndarray:
    """Each column's group (0, 1: the two threads' groups, 2: the rest)."""
    group = np.empty(len(sym.d), dtype=np.int64)
    for g in range(3):
        for t in range(sym.sbounds[g], sym.sbounds[g + 1]):
            s = sym.sorder[t]
            group[sym.start[s] : sym.start[s + 1]] = g
    return group


def test_the_split_groups_are_independent_subtrees_and_the_rest_follows_them() -> None:
    """Column j of L has entries only in rows of j's ancestors in the elimination tree, so a
    supernode is updated only by supernodes of its own subtree and the two groups may factor at
    once: no supernode of one group updates one of the other, every supernode comes after those
    that update it, and the hubs (declared by the matrix) come last."""
    rng = np.random.default_rng(11)
    h = _two_pads(rng)
    ldl = PatternLdl()
    assert ldl.factor(h) is not None
    n = h.shape[0]
    sym = ldl._by_n[n]
    assert set(sym.perm[-6:].tolist()) == set(h.hubs.tolist())
    group = _column_groups(sym)
    assert sorted(sym.sorder.tolist()) == list(range(len(sym.start) - 1))
    assert min(np.sum(group == 0), np.sum(group == 1)) > 0.3 * n  # two pads: two real groups
    assert np.sum(group == 2) < 0.1 * n
    uptr, ud = sym.plan[0], sym.plan[1]
    place = np.empty(len(sym.sorder), dtype=np.int64)
    place[sym.sorder] = np.arange(len(sym.sorder))
    for s in range(len(sym.start) - 1):
        below = ud[uptr[s] : uptr[s + 1]]
        assert np.all(place[below] < place[s])
        g = group[sym.start[s]]
        if g < 2:
            assert np.all(group[sym.start[below]] == g)
    # L's own pattern says the same: a column of group 0 or 1 has rows only in its group or
    # the rest.
    for j in range(n):
        rows = sym.li[sym.lp[j] : sym.lp[j + 1]].astype(np.int64)
        if group[j] < 2:
            assert np.all((group[rows] == group[j]) | (group[rows] == 2))


def test_supernodes_share_one_structure() -> None:
    """A supernode's columns f, f + 1, ... each have the structure of the one before less its
    first row, the property the packed dense blocks rely on."""
    rng = np.random.default_rng(13)
    for h in (_two_pads(rng).h, _mesh_like(150, rng, extra=40)):
        ldl = PatternLdl()
        assert ldl.factor(h) is not None
        sym = ldl._by_n[h.shape[0]]
        assert np.mean(np.diff(sym.start)) > 2.0  # 3x3 node blocks: at least the node's three
        for s in range(len(sym.start) - 1):
            for j in range(sym.start[s] + 1, sym.start[s + 1]):
                before = sym.li[sym.lp[j - 1] : sym.lp[j]]
                assert before[0] == j
                np.testing.assert_array_equal(before[1:], sym.li[sym.lp[j] : sym.lp[j + 1]])


@pytest.mark.parametrize("size", [1, 3, 4, 5, 9, 50])
def test_dense_matrices_are_one_supernode_and_solved_to_round_off(size: int) -> None:
    """A dense SPD matrix is one supernode: its columns are combined four at a time and the
    rest one by one (sizes around multiples of four); a negative pivot at its last column is
    found."""
    rng = np.random.default_rng(size)
    g = rng.standard_normal((size, size))
    h = sp.csr_matrix(g @ g.T + size * np.eye(size))
    ldl = PatternLdl()
    _check_solve(ldl, h, rng)
    assert len(ldl._by_n[size].start) == 2
    lam = np.linalg.eigvalsh(h.toarray())
    shifted = sp.csr_matrix(h.toarray() - (lam[0] + 1e-6 * lam[-1]) * np.eye(size))
    assert ldl.factor(shifted) is None


def test_the_factor_is_the_same_to_the_bit_on_one_thread_or_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A supernode's arithmetic does not depend on the supernodes beside it: the split
    factorization (forced onto two threads whatever its size) gives the one-thread factor bit
    for bit, it solves H x = b, and an indefinite matrix whose first negative pivot lies in
    either group or the rest is refused."""
    from engine.ipc import ipctk_gateway

    rng = np.random.default_rng(12)
    h = _two_pads(rng)
    n = h.shape[0]
    monkeypatch.setattr(pattern_ldl, "THREAD_MIN_WORK", 0)
    ldl = PatternLdl()
    monkeypatch.setattr(ipctk_gateway, "_query_threads", 1)
    one = ldl.factor(h)
    assert one is not None
    sym = ldl._by_n[n]
    assert sym.split
    lx, d = sym.lx.copy(), sym.d.copy()
    b = rng.standard_normal(n)
    x1 = one.solve(b)
    monkeypatch.setattr(ipctk_gateway, "_query_threads", 2)
    # A fresh analysis: the same matrix again would recompute nothing (_redo_order).
    two = PatternLdl().factor(h)
    assert two is not None
    np.testing.assert_array_equal(two._sym.lx, lx)
    np.testing.assert_array_equal(two._sym.d, d)
    np.testing.assert_array_equal(two.solve(b), x1)
    expected = spla.spsolve(h.h.tocsc(), b)
    assert np.max(np.abs(x1 - expected)) <= 1e-10 * np.max(np.abs(expected))
    group = _column_groups(sym)
    for g in range(3):
        row = int(sym.perm[np.flatnonzero(group == g)[0]])  # a row of group g, h's indices
        broken = h.h.tolil()
        broken[row, row] = -10.0
        assert ldl.factor(_Summed(broken.tocsr(), h.hubs)) is None
    # A failed pass overwrote part of L and D: the next one recomputes everything.
    assert ldl.factor(h) is not None
    np.testing.assert_array_equal(sym.lx, lx)
    np.testing.assert_array_equal(sym.d, d)


def _with_changed_entries(h: _Summed, rows: np.ndarray, scale: float) -> _Summed:
    """h with its diagonal at `rows` scaled (the pattern unchanged)."""
    changed = h.h.tolil()
    for r in rows:
        changed[r, r] = changed[r, r] * scale
    return _Summed(changed.tocsr(), h.hubs)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_refactorization_after_a_few_changed_entries_is_the_full_factor_to_the_bit(
    monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """Column j of L depends only on A's entries in column j and on the columns of j's
    descendants: after a change of a few diagonal entries of one pad, the numeric pass
    recomputes their supernodes and those supernodes' ancestors only (not the other pad's), and
    its factor equals a full pass's over the new values bit for bit, on one thread or two."""
    from engine.ipc import ipctk_gateway

    monkeypatch.setattr(pattern_ldl, "THREAD_MIN_WORK", 0)
    monkeypatch.setattr(ipctk_gateway, "_query_threads", threads)
    rng = np.random.default_rng(21)
    h = _two_pads(rng)
    n = h.shape[0]
    ldl = PatternLdl()
    assert ldl.factor(h) is not None
    sym = ldl._by_n[n]
    group = _column_groups(sym)
    pad0 = sym.perm[np.flatnonzero(group == 0)]  # unknowns (h's indices) of group 0
    changed = _with_changed_entries(h, rng.choice(pad0, 3, replace=False), 1.5)
    decided: list[np.ndarray] = []  # what the next pass recomputes, as it decides it

    def recorded(*args: np.ndarray) -> np.ndarray:
        decided.append(supernodal_ldl.supernodes_to_redo(*args))
        return decided[-1]

    monkeypatch.setattr(pattern_ldl, "supernodes_to_redo", recorded)
    partial = ldl.factor(changed)
    (redo,) = decided
    group_of = group[sym.start[:-1]]
    assert 0 < redo.sum() < len(redo)
    assert not redo[group_of == 1].any()  # the other pad's supernodes are kept
    assert redo[group_of == 2].all()  # the hubs' columns are every pad column's ancestors
    full = PatternLdl().factor(changed)
    assert partial is not None and full is not None
    np.testing.assert_array_equal(sym.lx, full._sym.lx)
    np.testing.assert_array_equal(sym.d, full._sym.d)
    np.testing.assert_array_equal(sym.dinv, full._sym.dinv)
    b = rng.standard_normal(n)
    expected = spla.spsolve(changed.h.tocsc(), b)
    assert np.max(np.abs(partial.solve(b) - expected)) <= 1e-10 * np.max(np.abs(expected))


def test_a_change_of_bits_alone_marks_a_supernode_and_its_ancestors() -> None:
    """supernodes_to_redo compares bit patterns (0.0 and -0.0 differ, as a pass would carry
    the sign into L) and marks a changed supernode's whole path to its root, nothing else."""
    # Supernodes 0 -> 2 -> 3 (root), 1 -> 3; one entry each.
    sptr = np.arange(5, dtype=np.int64)
    src = np.arange(4, dtype=np.int64)
    parent = np.array([2, 3, 3, -1], dtype=np.int64)
    kept = np.array([1.0, 0.0, 2.0, 3.0])
    same = supernodal_ldl.supernodes_to_redo(
        kept.view(np.int64), kept.view(np.int64).copy(), sptr, src, parent
    )
    assert not same.any()
    signed = kept.copy()
    signed[1] = -0.0
    np.testing.assert_array_equal(
        supernodal_ldl.supernodes_to_redo(
            signed.view(np.int64), kept.view(np.int64), sptr, src, parent
        ),
        [False, True, False, True],
    )
    leaf = kept.copy()
    leaf[0] = 1.5
    np.testing.assert_array_equal(
        supernodal_ldl.supernodes_to_redo(
            leaf.view(np.int64), kept.view(np.int64), sptr, src, parent
        ),
        [True, False, True, True],
    )


def test_the_supernodes_to_recompute_keep_the_passs_order_and_groups():
    """in_order_of lists the marked supernodes in the pass's order and counts them per group
    bound, as masking sorder and a cumulative sum do, empty groups and masks included."""
    from engine.ipc.supernodal_ldl import in_order_of

    rng = np.random.default_rng(4)
    for ns in (1, 2, 7, 40):
        sorder = rng.permutation(ns).astype(np.int64)
        for cuts in ([0, 0, 0], [0, ns, ns], [*sorted(rng.integers(0, ns + 1, 2)), ns]):
            sbounds = np.array([0, *cuts], dtype=np.int64)
            for density in (0.0, 0.3, 1.0):
                redo = rng.random(ns) < density
                keep = redo[sorder]
                counts = np.concatenate([[0], np.cumsum(keep)])
                order, got = in_order_of(redo, sorder, sbounds)
                np.testing.assert_array_equal(order, sorder[keep])
                np.testing.assert_array_equal(got, counts[sbounds])


def test_a_first_analysis_of_the_same_union_is_kept_for_the_next_factorization_and_is_exact(
    monkeypatch,
) -> None:
    """A trial's first matrix of a size reuses the last trial's first analysis when its union
    is the same (its pattern arrays shared, its numbers its own), and factors to the same bits
    as a fresh analysis; another union of that size gets a fresh one."""
    rng = np.random.default_rng(11)
    h = _two_pads(rng)
    monkeypatch.setattr(pattern_ldl, "_FIRST", {})
    fresh = PatternLdl()
    b = rng.standard_normal(h.shape[0])
    x_fresh = fresh.factor(h).solve(b)  # analysed afresh, and kept
    again = PatternLdl()
    x_again = again.factor(h).solve(b)
    n = h.shape[0]
    assert again._by_n[n].li is fresh._by_n[n].li  # the kept pattern
    assert again._by_n[n].lx is not fresh._by_n[n].lx  # its own numbers
    np.testing.assert_array_equal(x_again.view(np.int64), x_fresh.view(np.int64))
    # Factoring another matrix on `again` leaves `fresh`'s factor as it was.
    again.factor(_Summed((h.h * 2.0).tocsr(), h.hubs))
    np.testing.assert_array_equal(fresh._last.solve(b).view(np.int64), x_fresh.view(np.int64))
    # One more coupling, the same size and hubs: another union, a fresh analysis.
    own = np.setdiff1d(np.arange(n), h.hubs)
    i, j = own[0], own[-1]
    assert h.h[i, j] == 0.0
    coupled = h.h.tolil()
    coupled[i, j] = coupled[j, i] = 0.01
    third = PatternLdl()
    third.factor(_Summed(coupled.tocsr(), h.hubs))
    assert third._by_n[n].li is not fresh._by_n[n].li
    assert len(third._by_n[n].union) == len(fresh._by_n[n].union) + 1
