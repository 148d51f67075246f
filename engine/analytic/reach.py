"""REACH-style area contact model (design note 3): sampled twists on per-element Coulomb discs.

Each contact element i (normal force F_i at its centre of pressure r_i, inward normal n_i) can
transmit a tangential force of at most mu F_i. For a unit twist xi = (v, omega) of the object
the element slips with v_i = v + omega x r_i; friction opposes the tangential part u_i of v_i,
so the jaw transmits w(xi) = w_N + sum_i [-mu F_i u_i; r_i x (-mu F_i u_i)], a point on the
boundary of the jaw's wrench set. The jaw's set is approximated by conv({w(xi_m)} u {0}) over
M = num_dir_smpls twists and the margin comes from the shared LP (never the Minkowski sum).
Friction is evaluated per cell of elements (contact_profile.friction_cells) so the cost does
not grow with the mesh resolution.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.contact_profile import friction_cells
from engine.analytic.params import AnalyticParams
from engine.analytic.resistance_lp import Margin, max_load_scale, torque_scale
from engine.analytic.wrench import wrench_columns

_TWIST_SEED = 20190524  # any fixed value: the twist set must not change between runs


@lru_cache(maxsize=8)
def unit_twists(count: int) -> np.ndarray:
    """(count, 6) deterministic unit twists: the 12 axis twists +-e_k, then fixed random ones.

    The axis twists are pure translations and pure rotations about the centre of mass, so the
    vertices that resist a pure force or a pure torque are always in the set.
    """
    axes = np.vstack([np.eye(6), -np.eye(6)])
    rest = np.random.default_rng(_TWIST_SEED).standard_normal((max(count - 12, 0), 6))
    rest /= np.linalg.norm(rest, axis=1, keepdims=True)
    out = np.vstack([axes, rest])[:count]
    out.flags.writeable = False
    return out


def jaw_vertices(
    patch: ContactPatch,
    com: np.ndarray,
    mu: float,
    twists: np.ndarray,
    length_m: float,
    cell_m: float = 0.0,
) -> np.ndarray:
    """(6, M) wrenches on the object of one jaw at full closing force, one per twist.

    The normal wrench is summed over the patch's elements; friction over its cells.
    """
    w_normal = wrench_columns(
        patch.centers_of_pressure, patch.forces[:, None] * patch.normals, com
    ).sum(axis=0)
    cells = friction_cells(patch, cell_m)
    n, f = cells.normals, cells.forces
    # Twists are taken about the jaw's pressure centre, so the axis twists include the patch's
    # pure sliding and pure torsion (about the centre of mass they would mix the two).
    r = cells.positions - f @ cells.positions / f.sum()
    # Tangential slip velocity of element i is linear in the twist: P_i [I, -[r_i]x / L] xi
    # (rotations measured per length_m so translations and rotations are sampled evenly).
    proj = np.eye(3)[None] - n[:, :, None] * n[:, None, :]  # (N, 3, 3)
    skew = np.cross(r[:, None, :], np.eye(3)[None])  # row k: r_i x e_k (column k of [r_i]x)
    jac = np.concatenate([proj, -proj @ np.swapaxes(skew, 1, 2) / length_m], axis=2)
    tang = (twists @ jac.transpose(2, 0, 1).reshape(6, -1)).reshape(len(twists), len(r), 3)
    speed = np.sqrt(np.einsum("mni,mni->mn", tang, tang))[:, :, None]
    u = tang / np.maximum(speed, 1e-12)  # an element that does not slip has no friction
    # Element n's friction -mu F_n u adds wrench_columns(r_n, -mu F_n e_k) per component u_k,
    # so all twists' friction wrenches are one matrix product.
    basis = -mu * f[:, None, None] * np.eye(3)[None]  # (N, 3, 3)
    per_unit = wrench_columns(cells.positions[:, None, :], basis, com)  # (N, 3, 6)
    friction = u.reshape(len(twists), -1) @ per_unit.reshape(-1, 6)  # (M, 6)
    return (friction + w_normal).T


def evaluate(
    patches: tuple[ContactPatch, ContactPatch],
    w_ext: np.ndarray,
    com: np.ndarray,
    params: AnalyticParams,
) -> Margin:
    """Margin s* of the REACH grasp wrench space test."""
    twists = unit_twists(params.twist_samples)
    length = torque_scale(np.vstack([p.centers_of_pressure for p in patches]), com)
    verts = [
        jaw_vertices(p, com, params.mu, twists, length, params.friction_cell_m) for p in patches
    ]
    s, alphas = max_load_scale(verts, [1.0, 1.0], w_ext, length)
    return Margin(
        s,
        {
            "twists": len(twists),
            "elements": [len(p) for p in patches],
            "contact_area_m2": [p.area_m2 for p in patches],
            "normal_scale": [float(a.sum()) for a in alphas],
        },
    )
