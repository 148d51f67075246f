"""6DFC-style model (design note 4): per-jaw ellipsoidal 6-D limit surface, linearised.

Per jaw, in a contact frame at the friction centre c = sum F_i x_i / sum F_i (z the mean inward
normal, x and y the principal axes of the patch), the maximal frictional wrench along axis k per
unit normal force is the exact support value

    w_max,k = mu sum_i F_i |P_i g_k,i| / sum_i F_i,   P_i = I - n_i n_i^T,

with g = e_k for forces and g = e_k x (x_i - c) for torques. The limit surface is approximated by
the ellipsoid sum_k (w_k / w_max,k)^2 = 1, sampled on the 728 hypercube rays x in {-1,0,1}^6 \\ 0
(degenerate axes are not sampled), giving a 6-D friction cone u_m = w_N + l_m per unit normal
force whose weights share the jaw's closing-force budget.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.contact_profile import FrictionCells, friction_cells
from engine.analytic.params import AnalyticParams
from engine.analytic.resistance_lp import Margin, max_load_scale, torque_scale
from engine.analytic.wrench import wrench_columns

# An ellipsoid axis below this fraction of the largest is degenerate (not sampled).
_DEGENERATE = 1e-10


@lru_cache(maxsize=4)
def hypercube_rays(resolution: int = 1) -> np.ndarray:
    """Boundary points of the grid {-m..m}^6 / m: (2m+1)^6 - (2m-1)^6 ray directions."""
    steps = np.arange(-resolution, resolution + 1) / resolution
    grid = np.array(list(itertools.product(steps, repeat=6)))
    out = grid[np.abs(grid).max(axis=1) == 1.0]
    out.flags.writeable = False
    return out


def contact_frame(patch: ContactPatch) -> tuple[np.ndarray, np.ndarray]:
    """(friction centre c, rotation R with columns x, y, z) of a patch."""
    f = patch.forces
    x = patch.centers_of_pressure
    c = f @ x / f.sum()
    z = f @ patch.normals
    z /= np.linalg.norm(z)
    d = x - c
    d -= np.outer(d @ z, z)
    cov = (f[:, None] * d).T @ d
    # Put the normal last: its eigenvalue becomes the smallest after the shift.
    _, vecs = np.linalg.eigh(cov - np.outer(z, z) * (np.trace(cov) + 1.0))
    ex = vecs[:, 2] - (vecs[:, 2] @ z) * z
    ex /= np.linalg.norm(ex)
    return c, np.column_stack([ex, np.cross(z, ex), z])


@lru_cache(maxsize=128)
def _live_rays(resolution: int, live: tuple[bool, ...]) -> np.ndarray:
    """The distinct non-zero hypercube rays with the degenerate axes zeroed."""
    x = np.unique(hypercube_rays(resolution) * np.array(live), axis=0)
    x = x[np.abs(x).max(axis=1) > 0]
    x.flags.writeable = False
    return x


def max_friction_wrench(
    cells: FrictionCells | ContactPatch, c: np.ndarray, rot: np.ndarray, mu: float
) -> np.ndarray:
    """(6,) w_max,k per unit normal force in the contact frame (forces, torques about c)."""
    if isinstance(cells, ContactPatch):
        cells = FrictionCells(cells.centers_of_pressure, cells.normals, cells.forces)
    n, f = cells.normals, cells.forces
    r = cells.positions - c
    axes = rot.T  # (3, 3) rows e_k
    g = np.concatenate(
        [np.broadcast_to(axes[None], (len(r), 3, 3)), np.cross(axes[None], r[:, None, :])], axis=1
    )  # (N, 6, 3)
    along_n = np.einsum("nki,ni->nk", g, n)
    tangential = np.sqrt(np.maximum(np.sum(g * g, axis=2) - along_n**2, 0.0))
    return mu * (f @ tangential) / f.sum()


def jaw_generators(
    patch: ContactPatch, com: np.ndarray, mu: float, resolution: int, cell_m: float = 0.0
) -> tuple[np.ndarray, dict]:
    """(6, m) cone generators of one jaw per unit normal force, and drawing details.

    w_max is summed over the patch's friction cells (contact_profile.friction_cells).
    """
    c, rot = contact_frame(patch)
    cells = friction_cells(patch, cell_m)
    a = max_friction_wrench(cells, c, rot, mu)
    live = a > _DEGENERATE * max(float(a.max()), 1e-300)
    x = _live_rays(resolution, tuple(bool(v) for v in live))
    # Scale each ray onto the ellipsoid: l(x) = x / sqrt(sum_k (x_k / a_k)^2).
    safe = np.where(live, a, 1.0)
    ell = x / np.sqrt(np.sum((x / safe) ** 2, axis=1, keepdims=True))
    force = ell[:, :3] @ rot.T
    torque = ell[:, 3:] @ rot.T + np.cross(c - com, force)  # move from c to the centre of mass
    w_n = wrench_columns(patch.centers_of_pressure, patch.normals * patch.forces[:, None], com)
    unit_normal = w_n.sum(axis=0) / patch.forces.sum()
    gens = np.hstack([force, torque]) + unit_normal
    return gens.T, {"friction_centre": c, "contact_frame": rot, "w_max_per_n": a}


def evaluate(
    patches: tuple[ContactPatch, ContactPatch],
    w_ext: np.ndarray,
    com: np.ndarray,
    params: AnalyticParams,
) -> Margin:
    """Margin s* of the 6DFC-style wrench resistance LP."""
    out = [
        jaw_generators(p, com, params.mu, params.ellipsoid_resolution, params.friction_cell_m)
        for p in patches
    ]
    length = torque_scale(np.vstack([p.centers_of_pressure for p in patches]), com)
    budgets = [p.total_force_n for p in patches]
    s, _ = max_load_scale([g for g, _ in out], budgets, w_ext, length)
    return Margin(
        s,
        {
            "w_max_n": [
                (d["w_max_per_n"] * b).tolist() for (_, d), b in zip(out, budgets, strict=True)
            ],
            "friction_centre_m": [d["friction_centre"].tolist() for _, d in out],
            "contact_frame": [d["contact_frame"].tolist() for _, d in out],
            "generators": [g.shape[1] for g, _ in out],
        },
    )
