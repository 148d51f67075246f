"""The unknowns of a time step and how they move the full DOF vector: du = P dz.

- Position-driven plates (`closing=None`): z are the free DOFs; the glued pad vertices follow
  their plates exactly (Dirichlet), P selects the free DOFs.
- Force-driven plates: z = [free DOFs, s]. The two jaws are coupled (one actuator closes both,
  as in the YuMi, Franka and Robotiq grippers), so one coordinate s moves every glued vertex of
  jaw k by s n_k; P's last column is that closing direction. An actuator term then pushes s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.ipc.sparse_products import csr_times
from engine.ipc.system import GraspSystem


class Reduction:
    """du = P dz for the free DOFs and, with force-driven plates, the closing coordinate s."""

    def __init__(self, system: GraspSystem, closing: np.ndarray | None = None) -> None:
        self.system = system
        nf = len(system.free)
        index = -np.ones(system.ndof, dtype=np.int64)
        index[system.free] = np.arange(nf)
        weight = np.zeros(system.ndof)
        weight[system.free] = 1.0
        self.force_driven = closing is not None
        if closing is None:
            self.n = nf
            self.jacobian = system.jacobian_free
            self.closing = None
            self._ww = 1.0
        else:
            only_glued = np.zeros(system.ndof)
            only_glued[system.fixed] = np.asarray(closing, dtype=float)[system.fixed]
            closing = only_glued
            glued = system.fixed[closing[system.fixed] != 0.0]
            index[glued] = nf
            weight[glued] = closing[glued]
            self.n = nf + 1
            rows = np.concatenate([system.free, glued])
            cols = np.concatenate([np.arange(nf), np.full(len(glued), nf)])
            vals = np.concatenate([np.ones(nf), closing[glued]])
            p = sp.csr_matrix((vals, (rows, cols)), shape=(system.ndof, self.n))
            self.jacobian = (system.jacobian @ p).tocsr()
            self.closing = closing
            self._ww = float(closing @ closing)  # |w|^2: the number of glued vertices
        self.jacobian_t = self.jacobian.T.tocsr()  # for products on every Newton iteration
        self.index = index  # full DOF -> reduced index (-1: prescribed)
        self.weight = weight  # full DOF -> d u_i / d z_index(i)
        # The unknowns every object vertex moves (its 12 affine DOFs) and the closing coordinate
        # every glued vertex moves: upper_triplets sums their entries before listing them.
        hubs = index[system.obj_dof]
        if self.force_driven:
            hubs = np.append(hubs, self.n - 1)
        self.hub_slot = -np.ones(self.n, dtype=np.int64)
        self.hub_slot[hubs] = np.arange(len(hubs))
        self.hubs = hubs.astype(np.int64)

    @property
    def s_index(self) -> int:
        """Index of the closing coordinate in z (force-driven plates only)."""
        if not self.force_driven:
            raise ValueError("position-driven plates have no closing coordinate")
        return self.n - 1

    def upper_triplets(
        self, parts: Sequence[sp.csc_matrix | sp.csr_matrix]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The upper triangle of J^T h J (h symmetric, over the collision vertices' coordinates,
        the sum of `parts`) as triplets: (keys col * n + row with row <= col, values), keys
        repeating where contributions sum. A contact Hessian touches few vertices: this is a
        loop over its entries instead of two sparse products and a sparse sum.

        Entries in a row or column of a hub (the object's affine DOFs, the closing coordinate)
        are summed here: each object vertex's coordinate reaches four of the object's unknowns,
        so listing them one by one made 4.5x more triplets than keys (45k for 10k on the
        98-vertex Table V cube), which the factorization's key lookups and scatter then paid.

        The parts are summed first as scipy sums them (the same matrix to the bit, ~9 us against
        scipy's ~50 us on a REACH cube grip; parts not in canonical form go through scipy)."""
        hp, hi, hv = _summed_csc(parts)
        j = self.jacobian
        return _upper_triplets(
            hp, hi, hv, j.indptr, j.indices, j.data, self.n, self.hub_slot, self.hubs
        )

    def expand(self, dz: np.ndarray) -> np.ndarray:
        """The full-DOF increment of a reduced increment."""
        s = self.system
        full = np.zeros(s.ndof)
        full[s.free] = dz[: len(s.free)]
        if self.closing is not None:
            full += dz[-1] * self.closing
        return full

    def largest_move(self, dz: np.ndarray) -> float:
        """Largest displacement (m) a collision vertex (through the Jacobian) or a pad vertex
        (its full DOFs, expand's) makes under the reduced increment dz: Newton's step norm,
        from J dz (csr_times) and one pass instead of an expansion and two norms per step (the
        same float: the same products and sums in the same order)."""
        dz = np.ascontiguousarray(dz, dtype=np.float64)
        dx = csr_times(self.jacobian, dz)
        return float(_largest_move(dx, dz, self.index, self.weight, self.system.obj_dof.start))

    def restrict(self, g_full: np.ndarray) -> np.ndarray:
        """P^T g: a full-DOF gradient on the reduced unknowns."""
        g = g_full[self.system.free]
        if self.closing is None:
            return g
        return np.append(g, float(self.closing @ g_full))

    def closing_travel(self, u: np.ndarray, reference: np.ndarray) -> float:
        """s of u: how far each jaw has closed beyond `reference` (m)."""
        if self.closing is None:
            return 0.0
        return float((u - reference) @ self.closing) / self._ww


@njit(cache=True)
def _largest_move(
    dx: np.ndarray,
    dz: np.ndarray,
    index: np.ndarray,
    weight: np.ndarray,
    pad_dofs: int,
) -> float:
    # The collision vertices' moves dx (J dz), then the pads' DOFs as expand() sets them (weight
    # 1 for a free DOF, the closing direction's for a glued one, nothing for a prescribed one);
    # each vertex's squared length summed x, y, z, as numpy sums it.
    largest = 0.0
    for v in range(len(dx) // 3):
        sq = 0.0
        for k in range(3):
            d = dx[3 * v + k]
            sq += d * d
        largest = max(largest, np.sqrt(sq))
    for v in range(pad_dofs // 3):
        sq = 0.0
        for k in range(3):
            i = 3 * v + k
            d = dz[index[i]] * weight[i] if index[i] >= 0 else 0.0
            sq += d * d
        largest = max(largest, np.sqrt(sq))
    return largest


def _summed_csc(
    parts: Sequence[sp.csc_matrix | sp.csr_matrix],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of the CSC sum of `parts`, summed left to right: each sum the
    arrays of scipy's (canonical parts: rows sorted, each once; exact zeros dropped)."""
    cs = [h if isinstance(h, sp.csc_matrix) else h.tocsc() for h in parts]
    if len(cs) > 1 and not all(h.has_canonical_format for h in cs):
        total = cs[0]
        for h in cs[1:]:
            total = total + h
        cs = [total.tocsc()]
    hp, hi, hv = cs[0].indptr, cs[0].indices, cs[0].data
    for h in cs[1:]:
        size = len(hi) + len(h.indices)
        out = (np.empty_like(hp), np.empty(size, dtype=hi.dtype), np.empty(size))
        m = _csc_sum(hp, hi, hv, h.indptr, h.indices, h.data, *out)
        hp, hi, hv = out[0], out[1][:m], out[2][:m]
    return hp, hi, hv


@njit(cache=True)
def _csc_sum(
    ap: np.ndarray,
    ai: np.ndarray,
    ax: np.ndarray,
    bp: np.ndarray,
    bi: np.ndarray,
    bx: np.ndarray,
    cp: np.ndarray,
    ci: np.ndarray,
    cx: np.ndarray,
) -> int:
    # scipy's canonical a + b (sparsetools' csr_binop_csr_canonical, column by column): rows
    # merged in order, a shared entry's value ax + bx, an entry of one alone its value, zeros
    # (-0.0 too) dropped. Returns the entries written.
    m = 0
    cp[0] = 0
    for j in range(len(ap) - 1):
        p, pe, q, qe = ap[j], ap[j + 1], bp[j], bp[j + 1]
        while p < pe or q < qe:
            if q >= qe or (p < pe and ai[p] < bi[q]):
                i, v = ai[p], ax[p]
                p += 1
            elif p >= pe or bi[q] < ai[p]:
                i, v = bi[q], bx[q]
                q += 1
            else:
                i, v = ai[p], ax[p] + bx[q]
                p += 1
                q += 1
            if v != 0.0:
                ci[m] = i
                cx[m] = v
                m += 1
        cp[j + 1] = m
    return m


@njit(cache=True)
def _upper_triplets(
    hp: np.ndarray,
    hi: np.ndarray,
    hv: np.ndarray,
    jp: np.ndarray,
    ji: np.ndarray,
    jv: np.ndarray,
    n: int,
    hub_slot: np.ndarray,
    hubs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    # (J^T H J)[R, C] = sum over entries H[r, c] of J[r, R] H[r, c] J[c, C] (J in CSR, H in CSC).
    # Entries with a hub (hub_slot >= 0) at R or C are summed in dense arrays: hub-hub in
    # `both`, hub-other in `one[other, hub]` (for each such pair only one order has R <= C).
    nh = len(hubs)
    both = np.zeros((nh, nh))
    both_used = np.zeros((nh, nh), np.bool_)
    one = np.zeros((n, nh))
    one_used = np.zeros((n, nh), np.bool_)
    count = 0
    for c in range(len(hp) - 1):
        for k in range(hp[c], hp[c + 1]):
            count += (jp[hi[k] + 1] - jp[hi[k]]) * (jp[c + 1] - jp[c])
    keys = np.empty(count + nh * nh + n * nh, np.int64)
    values = np.empty(count + nh * nh + n * nh)
    m = 0
    for c in range(len(hp) - 1):
        for k in range(hp[c], hp[c + 1]):
            r = hi[k]
            for p in range(jp[r], jp[r + 1]):
                row = ji[p]
                w = jv[p] * hv[k]
                for q in range(jp[c], jp[c + 1]):
                    col = ji[q]
                    if row > col:
                        continue
                    a, b = hub_slot[row], hub_slot[col]
                    if a >= 0 and b >= 0:
                        both[a, b] += w * jv[q]
                        both_used[a, b] = True
                    elif a >= 0:
                        one[col, a] += w * jv[q]
                        one_used[col, a] = True
                    elif b >= 0:
                        one[row, b] += w * jv[q]
                        one_used[row, b] = True
                    else:
                        keys[m] = col * n + row
                        values[m] = w * jv[q]
                        m += 1
    for a in range(nh):
        for b in range(nh):
            if both_used[a, b]:
                keys[m] = hubs[b] * n + hubs[a]
                values[m] = both[a, b]
                m += 1
    for i in range(n):
        for a in range(nh):
            if one_used[i, a]:
                lo, hi_ = min(i, hubs[a]), max(i, hubs[a])
                keys[m] = hi_ * n + lo
                values[m] = one[i, a]
                m += 1
    return keys[:m], values[:m]
