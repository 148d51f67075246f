"""LDL^T factorizations of a trial's Newton matrices that share one symbolic analysis
(`PatternLdl`), and the matrices they take: CSR, or a sum of parts given by their
upper-triangle entries (`SummedMatrix`)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeAlias

import numpy as np
import qdldl
import scipy.sparse as sp

from engine.ipc.helper_thread import in_pair, two_threads
from engine.ipc.ldl_kernels import (
    elimination_tree,
    key_positions,
    ldl_solve,
    permuted_upper_pattern,
    row_patterns,
    row_work,
    scatter_sum,
    split_rows,
)
from engine.ipc.supernodal_ldl import (
    SupernodalPlan,
    in_order_of,
    supernodal_factor,
    supernodal_pattern,
    supernodes,
    supernodes_to_redo,
)


class ScatteredPart(Protocol):
    """A part that adds its upper-triangle values into a factorization's data itself (from
    data it keeps in another layout, without a gathered copy)."""

    @property
    def keys(self) -> np.ndarray:
        """Its upper-triangle keys col * n + row (row <= col), each once."""
        ...

    def scatter_into(self, out: np.ndarray, slots: np.ndarray) -> None:
        """Add the value of keys[k] into out[slots[k]] for every k."""
        ...


# A part of a SummedMatrix: (keys col * n + row with row <= col, values), keys may repeat
# (summed), or a ScatteredPart.
Part: TypeAlias = "tuple[np.ndarray, np.ndarray] | ScatteredPart"


def part_keys(part: Part) -> np.ndarray:
    """A part's upper-triangle keys."""
    return part[0] if isinstance(part, tuple) else part.keys


class SummedMatrix(Protocol):
    """A symmetric matrix kept as a sum of parts, each given by its upper-triangle entries."""

    @property
    def shape(self) -> tuple[int, int]: ...
    def upper_parts(self) -> list[Part]:
        """Its parts (Part), summed in this order."""
        ...

    @property
    def hubs(self) -> np.ndarray:
        """The unknowns coupled to many others, which the factorization orders last."""
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
    # L's row indices (ldl_kernels.row_patterns), built by with_rows() once the order is chosen.
    li: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    # Where each column's keys start in `union` (n + 1 entries), for key_positions.
    column_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # The supernodes' first columns and the numeric pass's plan (engine.ipc.supernodal_ldl);
    # the supernodes in two independent groups and the rest (sorder[sbounds[g]:sbounds[g + 1]]),
    # and whether the lighter group is worth a second thread (THREAD_MIN_WORK).
    start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    plan: SupernodalPlan = field(
        default_factory=lambda: SupernodalPlan(*(np.zeros(0, dtype=np.int64),) * 8)
    )
    sorder: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sbounds: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    split: bool = False
    # The values whose factor L and D hold (when `factored`): the next numeric pass
    # recomputes only what changed since (_redo_order).
    ax_factored: np.ndarray = field(default_factory=lambda: np.zeros(0))
    factored: bool = False

    def with_rows(self) -> _Symbolic:
        """This analysis with L's row indices, the union's column starts, the supernodes and
        their split between two threads (ldl_kernels.split_rows: each pad its own group)."""
        n = len(self.d)
        rptr, rcol, rslot, self.li = row_patterns(n, self.ap, self.ai, self.lp, self.etree)
        self.column_start = np.searchsorted(self.union, np.arange(n + 1, dtype=np.int64) * n)
        work = row_work(n, self.lp, rptr, rcol, rslot)
        group = split_rows(n, self.etree, work, 2)
        self.split = bool(min(work[group == g].sum() for g in (0, 1)) >= THREAD_MIN_WORK)
        self.start = supernodes(n, self.lp, self.etree, group)
        self.plan = SupernodalPlan(
            *supernodal_pattern(n, self.ap, self.ai, self.lp, self.li, self.start, self.etree)
        )
        # Within a group, supernodes by first column: each after its descendants.
        first_group = group[self.start[:-1]]
        self.sorder = np.argsort(first_group, kind="stable").astype(np.int64)
        self.sbounds = np.zeros(4, dtype=np.int64)
        np.cumsum(np.bincount(first_group, minlength=3), out=self.sbounds[1:])
        self.ax_factored = np.zeros_like(self.ax)
        self.factored = False
        return self

    def unfactored_copy(self) -> _Symbolic:
        """This analysis with its own numeric arrays (nothing factored yet), sharing the pattern
        arrays, which no pass writes."""
        return replace(
            self,
            ax=np.zeros_like(self.ax),
            lx=np.zeros_like(self.lx),
            d=np.zeros_like(self.d),
            dinv=np.zeros_like(self.dinv),
            ax_factored=np.zeros_like(self.ax),
            factored=False,
        )

    def factor_numeric(self) -> bool:
        """LDL^T of the values in ax into lx, d, dinv; whether every pivot is positive.

        When L and D hold the factor of earlier values, only the supernodes whose entries
        changed and their ancestors are recomputed (REACH cube trials: 36 % of the supernodes,
        the numeric pass in 0.6-0.7 of the time on the 3 mm pads, 0.8-0.9 on the 1.5 mm ones,
        whose separators at the top of the tree change every time); the factor is the same to
        the bit as a full pass. Where the split is worth it and the process may use two threads,
        the second group runs on the helper thread beside the first (engine.ipc.helper_thread),
        then the rest; the factor is the same to the bit either way.
        """
        order, (first, second, every) = self._redo_order()
        if not (self.split and two_threads()):
            ok = self._factor_supernodes(order, 0, every)
        else:
            pair = in_pair(
                lambda: self._factor_supernodes(order, 0, first),
                lambda: self._factor_supernodes(order, first, second),
            )
            ok = pair[0] and pair[1] and self._factor_supernodes(order, second, every)
        # A failed pass left part of L and D overwritten: the next one starts afresh.
        self.factored = ok
        if ok:
            self.ax_factored[:] = self.ax
        return ok

    def _redo_order(self) -> tuple[np.ndarray, tuple[int, int, int]]:
        """The supernodes this numeric pass computes, in sorder's order, and the bounds of its
        three groups among them."""
        bounds = self.sbounds
        if not self.factored:
            return self.sorder, (int(bounds[1]), int(bounds[2]), int(bounds[3]))
        p = self.plan
        redo = supernodes_to_redo(
            self.ax.view(np.int64), self.ax_factored.view(np.int64), p.sptr, p.src, p.parent
        )
        order, counts = in_order_of(redo, self.sorder, bounds)
        return order, (int(counts[1]), int(counts[2]), int(counts[3]))

    def _factor_supernodes(self, order: np.ndarray, first: int, stop: int) -> bool:
        """The numeric pass over the supernodes order[first:stop]; whether all pivots are
        positive."""
        p = self.plan
        status = supernodal_factor(
            self.ax, self.lp, self.li, self.lx, self.d, self.dinv, self.start,
            p.uptr, p.ud, p.up1, p.up2, p.sptr, p.src, p.dst, order, first, stop,
        )  # fmt: skip
        return bool(status == 0)

    @classmethod
    def of(
        cls, union: np.ndarray, n: int, hubs: np.ndarray, old: _Symbolic | None = None
    ) -> _Symbolic:
        """The analysis of the keys `union` of an n x n matrix: elimination tree and L's
        pattern in a fill-reducing order. A union widened from `old` keeps its order (its new
        keys couple a few more pad vertices to the object, and a fresh order costs a QDLDL
        factorization) until L has REORDER_FILL times the fill of the last fresh order; a fresh
        order puts the unknowns `hubs` last and AMD's order of the rest before them
        (fresh_order)."""
        if old is not None:
            kept = cls._in_order(union, n, old.perm, old.fresh_fill)
            if kept.lp[-1] <= REORDER_FILL * old.fresh_fill:
                return kept.with_rows()
        fresh = cls._in_order(union, n, fresh_order(union, n, hubs), 0.0)
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


def fresh_order(union: np.ndarray, n: int, hubs: np.ndarray) -> np.ndarray:
    """A fill-reducing order of the keys `union` of an n x n matrix (perm, (P^T v)[j] =
    v[perm[j]]): the unknowns `hubs` last, QDLDL's AMD on the rest.

    The hubs are the few unknowns that couple many others (a rigid object's, tied to every pad
    vertex touching it; the closing coordinate, tied to both jaws' glued vertices). Ordered
    last, they leave the rest in independent blocks (each pad), which AMD keeps in disjoint
    subtrees of the elimination tree, so the numeric pass can factor them on two threads
    (ldl_kernels.split_rows); AMD over all of them may order a hub early and chain both pads
    into one path. AMD runs on a diagonally dominant matrix of the rest's pattern (its diagonal
    added where the union lacks one).
    """
    keys = _with_diagonal(union, n)
    cols = keys // n
    rows = keys - cols * n
    hub = np.zeros(n, dtype=bool)
    hub[hubs] = True
    rest = np.flatnonzero(~hub)
    index = np.full(n, -1, dtype=np.int64)
    index[rest] = np.arange(len(rest))
    keep = ~hub[rows] & ~hub[cols]
    r, c = index[rows[keep]], index[cols[keep]]
    m = len(rest)
    dominant = np.where(r != c, 1e-3, float(m))
    col_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(c, minlength=m), out=col_ptr[1:])
    template = sp.csc_matrix((dominant, r.astype(np.int32), col_ptr), shape=(m, m))
    amd = np.asarray(qdldl.Solver(template, upper=True).factors()[2], dtype=np.int64)
    return np.concatenate([rest[amd], np.flatnonzero(hub)])


# The first analyses of recent matrix sizes: (n, hubs) -> (union, analysis). A trial's first
# position-driven matrix has the internal terms' pattern alone (the ground touches only the
# object's own block), the same in every trial with the same pads and object layout: its fresh
# AMD order (QDLDL factorizes to get it) and analysis are ~7 ms of a REACH trial, ~45 ms of one
# with the 1 MPa pad at 1.5 mm. An analysis depends on its union, size and hubs alone, so the
# copy is the same to the bit.
_FIRST: dict[tuple[int, bytes], tuple[np.ndarray, _Symbolic]] = {}
# Matrix sizes it keeps (most recent last; ~1-8 MB each).
FIRST_KEPT = 4


def _first_analysis(union: np.ndarray, n: int, hubs: np.ndarray) -> _Symbolic:
    """The analysis of `union` (_Symbolic.of with no earlier one), from _FIRST when its last
    first analysis of this size had the same union."""
    key = (n, np.ascontiguousarray(hubs, dtype=np.int64).tobytes())
    kept = _FIRST.pop(key, None)
    if kept is None or not np.array_equal(kept[0], union):
        kept = (union, _Symbolic.of(union, n, hubs, None))
    _FIRST[key] = kept
    while len(_FIRST) > FIRST_KEPT:
        _FIRST.pop(next(iter(_FIRST)))
    return kept[1].unfactored_copy()


class PatternFactor:
    """The LDL^T factor PatternLdl computed last (valid until its next factorization)."""

    def __init__(self, sym: _Symbolic) -> None:
        self._sym = sym

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with H x = rhs."""
        s = self._sym
        return ldl_solve(s.lp, s.li, s.lx, s.dinv, s.perm, np.ascontiguousarray(rhs, np.float64))

    def kept(self) -> KeptFactor:
        """A copy that stays valid after the next factorization."""
        s = self._sym
        return KeptFactor(s.lp, s.li, s.lx.copy(), s.dinv.copy(), s.perm)


@dataclass(frozen=True)
class KeptFactor:
    """A PatternFactor's numbers, kept past the next factorization (PatternFactor.kept). The
    pattern arrays are not copied: an analysis never changes them (a wider union gets a new
    _Symbolic)."""

    lp: np.ndarray
    li: np.ndarray
    lx: np.ndarray
    dinv: np.ndarray
    perm: np.ndarray

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with H x = rhs."""
        return ldl_solve(
            self.lp, self.li, self.lx, self.dinv, self.perm, np.ascontiguousarray(rhs, np.float64)
        )


# A widened pattern is reordered once its L has this much more fill than under its last AMD order.
REORDER_FILL = 1.1
# Multiply-adds the lighter of the two row groups needs before it goes to a second thread. A
# hand-off costs about 0.2 ms (the helper's wake-up and the GIL), the supernodal kernel does some
# 3-4 multiply-adds per nanosecond: the REACH cube's 3 mm pads (0.48M per pad, 0.13 ms) stay on
# one thread; the 1.5 mm pads (5.2M per pad) factorize in 2.0-3.0 ms in trials on two, against
# 3.4 ms on one for the whole matrix standalone.
THREAD_MIN_WORK = 1_000_000


class PatternLdl:
    """LDL^T factorizations that share one symbolic analysis per matrix size.

    The Newton matrices of a trial differ in their contact blocks only, so their patterns stay
    within a union that stops growing after a few steps: each matrix is scattered into that
    union's permuted pattern and only refactorized numerically (a supernodal LDL^T in numba,
    engine.ipc.supernodal_ldl: about 0.5 ms on the REACH cube's n = 1069, 3.4 ms on one
    thread for the 1.5 mm pads' n = 3517, and D tells definiteness). A matrix with an entry
    outside the union widens it and pays one symbolic analysis (_Symbolic.of). The order puts
    the hubs (the object's and the closing coordinate's unknowns) last, so each pad is its own
    subtree; large enough pads (the 1.5 mm ones) are factorized on two threads, one pad each.

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
        parts: list[Part]
        if isinstance(h, sp.csr_matrix):
            parts, hubs = [self._csr_upper(h)], np.zeros(0, dtype=np.int64)
        else:
            parts, hubs = h.upper_parts(), h.hubs
        sym = self._by_n.get(n)
        slots = None if sym is None else self._all_slots(parts, sym)
        if sym is None or slots is None:
            sym = self._by_n[n] = self._analysis(parts, n, hubs, sym)
            slots = self._all_slots(parts, sym)
            assert slots is not None  # the union holds every key now
        sym.ax[:] = 0.0
        for sl, part in zip(slots, parts, strict=True):
            if isinstance(part, tuple):
                scatter_sum(sym.ax, sl, np.ascontiguousarray(part[1], dtype=np.float64))
            else:
                part.scatter_into(sym.ax, sl)
        definite = sym.factor_numeric()
        # A failed factorization overwrote part of sym's L and D: no last factor then.
        self._last = PatternFactor(sym) if definite else None
        self._last_key = None
        return self._last

    def _analysis(
        self, parts: list[Part], n: int, hubs: np.ndarray, sym: _Symbolic | None
    ) -> _Symbolic:
        """A symbolic analysis holding every key of `parts`: the first of a matrix size (from
        the last trial's first one when its union is the same), or `sym` widened."""
        if sym is None:
            union = np.unique(np.concatenate([part_keys(part) for part in parts]))
            return _first_analysis(union, n, hubs)
        # Widen the union by the missing keys only (union1d would re-sort ~50k keys), looked
        # for among the parts not already placed in it (the internal part's keys, most of the
        # matrix's, always are).
        keys = np.concatenate(
            [part_keys(p) for k, p in enumerate(parts) if not self._placed(k, part_keys(p), sym)]
        )
        extra = np.unique(keys[~_slots(sym.union, keys)[1]])
        union = np.insert(sym.union, np.searchsorted(sym.union, extra), extra)
        return _Symbolic.of(union, n, hubs, sym)

    def label_last(self, key: Hashable) -> None:
        """Tag the last factor with the key of the objective it was computed for."""
        self._last_key = key

    def last_factor(self, key: Hashable) -> PatternFactor | None:
        """The last factor if it is positive definite and tagged with `key`."""
        if self._last is None or key is None or self._last_key != key:
            return None
        return self._last

    def _all_slots(self, parts: list[Part], sym: _Symbolic) -> list[np.ndarray] | None:
        """Every part's slots in sym's data, None if a key is missing from its union."""
        out = []
        for k, part in enumerate(parts):
            slots = self._slots_in(k, part_keys(part), sym)
            if slots is None:
                return None
            out.append(slots)
        return out

    def _placed(self, k: int, keys: np.ndarray, sym: _Symbolic) -> bool:
        """Whether part k's `keys` are the ones last placed in sym (so sym's union holds them)."""
        cached = self._part_slots.get(k)
        if cached is None or cached[1] is not sym:
            return False
        return cached[0] is keys or bool(np.array_equal(cached[0], keys))

    def _slots_in(self, k: int, keys: np.ndarray, sym: _Symbolic) -> np.ndarray | None:
        """Positions of part k's keys in the permuted pattern's data (remembered while they
        repeat), None if one is missing from the union."""
        if self._placed(k, keys, sym):
            return self._part_slots[k][2]
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
