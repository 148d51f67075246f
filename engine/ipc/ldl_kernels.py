"""Sparse LDL^T kernels (numba): the symbolic analysis, the split between threads and the solve.

The elimination tree and L's pattern follow QDLDL (Stellato, Banjac, Goulart et al., the OSQP
project), written against arrays kept across factorizations, so a Newton matrix whose pattern
repeats costs only the numeric pass (engine.ipc.supernodal_ldl). L's row indices and each
row's work come from the rows' patterns (row_patterns), once per pattern, and so does the
split of the rows into independent subtrees that two threads can factor at once (split_rows).
The input is the upper triangle of the symmetrically permuted matrix, CSC, with every diagonal
entry stored."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def elimination_tree(n: int, ap: np.ndarray, ai: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(etree, column counts of L) of an upper-triangular CSC pattern; etree[i] = -1 at roots."""
    work = np.zeros(n, dtype=np.int64)
    lnz = np.zeros(n, dtype=np.int64)
    etree = np.full(n, -1, dtype=np.int64)
    for j in range(n):
        work[j] = j
        for p in range(ap[j], ap[j + 1]):
            i = ai[p]
            while work[i] != j:
                if etree[i] == -1:
                    etree[i] = j
                lnz[i] += 1
                work[i] = j
                i = etree[i]
    return etree, lnz


@njit(cache=True)
def row_patterns(
    n: int, ap: np.ndarray, ai: np.ndarray, lp: np.ndarray, etree: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row k of L's pattern, once per pattern: the columns c of its entries in
    elimination order (rcol[rptr[k]:rptr[k + 1]]) and where L(k, c) sits in lx (rslot), plus
    L's row indices li (each column's rows ascending).

    Row k's pattern is the set of nodes met walking the elimination tree up from each
    off-diagonal entry of A's column k.
    """
    nnz = lp[n]
    rptr = np.zeros(n + 1, dtype=np.uint64)
    rcol = np.empty(nnz, dtype=np.uint32)
    rslot = np.empty(nnz, dtype=np.uint64)
    li = np.empty(nnz, dtype=np.uint32)
    used = np.zeros(n, dtype=np.bool_)
    y_idx = np.empty(n, dtype=np.uint32)
    elim = np.empty(n, dtype=np.uint32)
    next_space = lp[:n].copy()
    out = 0
    for k in range(n):
        nnz_y = 0
        for p in range(ap[k], ap[k + 1]):
            b = ai[p]
            if b == k or used[b]:
                continue
            used[b] = True
            elim[0] = b
            n_e = 1
            nxt = etree[b]
            while nxt != -1 and nxt < k:
                if used[nxt]:
                    break
                used[nxt] = True
                elim[n_e] = nxt
                n_e += 1
                nxt = etree[nxt]
            while n_e > 0:
                n_e -= 1
                y_idx[nnz_y] = elim[n_e]
                nnz_y += 1
        for t in range(nnz_y - 1, -1, -1):
            c = y_idx[t]
            end = next_space[c]
            rcol[out] = c
            rslot[out] = end
            li[end] = k
            next_space[c] = end + np.uint64(1)
            used[c] = False
            out += 1
        rptr[k + 1] = out
    return rptr, rcol, rslot, li


@njit(cache=True)
def row_work(
    n: int, lp: np.ndarray, rptr: np.ndarray, rcol: np.ndarray, rslot: np.ndarray
) -> np.ndarray:
    """Multiply-adds each row of L costs on this pattern (the same in total as the supernodal
    pass, engine.ipc.supernodal_ldl): row k's entry in column c costs the entries of c above
    it."""
    work = np.zeros(n, dtype=np.int64)
    for k in range(n):
        w = 0
        for t in range(rptr[k], rptr[k + 1]):
            w += 1 + int(rslot[t]) - int(lp[rcol[t]])
        work[k] = w
    return work


# split_rows stops splitting subtrees after this many (each scans the open ones).
MAX_SPLITS = 512


@njit(cache=True)
def split_rows(n: int, etree: np.ndarray, work: np.ndarray, parts: int) -> np.ndarray:
    """Each row's group: 0..parts - 1 for `parts` independent groups, `parts` for the rest,
    which depends on them.

    Row k of L uses only the rows of its own subtree of the elimination tree, so disjoint
    subtrees factor independently (the two pads of a grasp, joined only through the object's
    few columns near the root). The heaviest open subtree is split at its root (which joins the
    rest) while it holds more than its share of the open work, and the number of splits kept is
    the one with the least estimated time; the open subtrees are then dealt to the groups
    heaviest first, each to the lightest group.
    """
    sub = work.astype(np.float64) + 0.0
    for j in range(n):
        if etree[j] >= 0:
            sub[etree[j]] += sub[j]
    child_start, children = _children(n, etree)
    is_open = etree < 0
    # Split greedily, remembering after how many splits the estimated time (the rest, then the
    # heavier group, at best the open work's share) was least; then redo that many.
    split = np.empty(MAX_SPLITS, dtype=np.int64)
    n_split = 0
    best, best_time = 0, float(work.sum())
    rest = 0.0
    while n_split < MAX_SPLITS:
        heaviest = -1
        open_work = 0.0
        for j in range(n):
            if is_open[j]:
                open_work += sub[j]
                if heaviest < 0 or sub[j] > sub[heaviest]:
                    heaviest = j
        if heaviest < 0:
            break
        estimate = rest + max(sub[heaviest], open_work / parts)
        if estimate < best_time:
            best, best_time = n_split, estimate
        if sub[heaviest] * parts <= open_work * 1.05:
            break
        is_open[heaviest] = False
        rest += work[heaviest]
        for c in range(child_start[heaviest], child_start[heaviest + 1]):
            is_open[children[c]] = True
        split[n_split] = heaviest
        n_split += 1
    for t in range(n_split - 1, best - 1, -1):  # undo the splits after the best
        node = split[t]
        for c in range(child_start[node], child_start[node + 1]):
            is_open[children[c]] = False
        is_open[node] = True
    # Deal the open subtrees to the groups, heaviest first, each to the lightest group.
    roots = np.flatnonzero(is_open)
    roots = roots[np.argsort(-sub[roots], kind="mergesort")]
    group = np.full(n, parts, dtype=np.int64)  # the rest: every row above the open roots
    load = np.zeros(parts)
    for r in roots:
        lightest = np.argmin(load)
        group[r] = lightest
        load[lightest] += sub[r]
    for j in range(n - 1, -1, -1):  # parents first: a row below an open root joins its group
        if not is_open[j] and etree[j] >= 0 and group[etree[j]] < parts:
            group[j] = group[etree[j]]
    return group


@njit(cache=True)
def _children(n: int, etree: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each node's children in the elimination tree: children[start[j]:start[j + 1]]."""
    count = np.zeros(n + 1, dtype=np.int64)
    for j in range(n):
        if etree[j] >= 0:
            count[etree[j] + 1] += 1
    start = np.cumsum(count)
    children = np.empty(max(n - 1, 1), dtype=np.int64)
    fill = start[:n].copy()
    for j in range(n):
        if etree[j] >= 0:
            children[fill[etree[j]]] = j
            fill[etree[j]] += 1
    return start, children


@njit(cache=True)
def ldl_solve(
    lp: np.ndarray,
    li: np.ndarray,
    lx: np.ndarray,
    dinv: np.ndarray,
    perm: np.ndarray,
    rhs: np.ndarray,
) -> np.ndarray:
    """x with A x = rhs, A = P (I + L) D (I + L)^T P^T and (P^T v)[j] = v[perm[j]]."""
    n = len(perm)
    x = np.empty(n)
    for j in range(n):
        x[j] = rhs[perm[j]]
    for i in range(n):
        xi = x[i]
        for j in range(lp[i], lp[i + 1]):
            x[li[j]] -= lx[j] * xi
    for i in range(n):
        x[i] *= dinv[i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(lp[i], lp[i + 1]):
            s -= lx[j] * x[li[j]]
        x[i] = s
    out = np.empty(n)
    for j in range(n):
        out[perm[j]] = x[j]
    return out


@njit(cache=True)
def scatter_sum(out: np.ndarray, slots: np.ndarray, values: np.ndarray) -> None:
    """out[slots[i]] += values[i] (slots may repeat)."""
    for i in range(len(slots)):
        out[slots[i]] += values[i]


@njit(cache=True)
def key_positions(
    union: np.ndarray, column_start: np.ndarray, n: int, keys: np.ndarray, to_csc: np.ndarray
) -> np.ndarray:
    """Each key's position in the permuted pattern's data (to_csc of its index in the sorted
    union), or an empty array when a key is missing from the union.

    Keys are col * n + row, so a key is searched only among its column's entries
    (union[column_start[col]:column_start[col + 1]], a few dozen): one cache-friendly binary
    search per key instead of one over the whole union.
    """
    out = np.empty(len(keys), np.int64)
    for i in range(len(keys)):
        key = keys[i]
        col = key // n
        lo = column_start[col]
        end = column_start[col + 1]
        hi = end
        while lo < hi:
            mid = (lo + hi) >> 1
            if union[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo == end or union[lo] != key:
            return np.empty(0, np.int64)
        out[i] = to_csc[lo]
    return out


@njit(cache=True)
def permuted_upper_pattern(
    union: np.ndarray, n: int, inv: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The upper-triangular CSC pattern of P^T A P for the sorted keys `union` (col * n + row,
    row <= col) of A, with inv[i] the position of row i in the order: (to_csc: each union
    entry's position in the permuted data, ap, ai).

    Entries sorted by (permuted column, permuted row), as numpy's lexsort would, by two stable
    counting sorts (rows, then columns): O(entries + n). The indices are unsigned (ai uint32,
    ap uint64), as the kernels want them.
    """
    m = len(union)
    lo = np.empty(m, np.int64)
    hi = np.empty(m, np.int64)
    for k in range(m):
        col = union[k] // n
        a = inv[union[k] - col * n]
        b = inv[col]
        if a <= b:
            lo[k], hi[k] = a, b
        else:
            lo[k], hi[k] = b, a
    start = np.zeros(n + 1, np.int64)
    for k in range(m):
        start[lo[k] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    by_row = np.empty(m, np.int64)
    for k in range(m):
        by_row[start[lo[k]]] = k
        start[lo[k]] += 1
    ap = np.zeros(n + 1, np.uint64)
    for k in range(m):
        ap[hi[k] + 1] += 1
    for i in range(n):
        ap[i + 1] += ap[i]
    fill = ap[:n].astype(np.int64)
    to_csc = np.empty(m, np.int64)
    ai = np.empty(m, np.uint32)
    for j in range(m):
        k = by_row[j]
        p = fill[hi[k]]
        fill[hi[k]] += 1
        to_csc[k] = p
        ai[p] = lo[k]
    return to_csc, ap, ai
