"""The element arrays every 6DLS computation uses, and the local contact frame of a patch.

An element is a point s_i with a unit normal n_i INTO the object (the direction the jaw pushes)
and a normal force F_i = p_i A_i >= 0 (paper Appendix B: centre, normal, pressure times area).
Quadrature nodes of a parametric surface are elements too, so parametric and meshed surfaces
share one code path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.errors import GraspError

# Offset of the merge grid in cells: regular meshes put points exactly on multiples of the
# cell size, where float noise would decide the cell.
_GRID_SHIFT = 0.381966


@dataclass(frozen=True, eq=False)
class PatchElements:
    """Points, inward unit normals and normal forces of one contact's elements."""

    positions: np.ndarray  # (n,3) m
    normals: np.ndarray  # (n,3) unit, into the object
    forces: np.ndarray  # (n,) N, p_i A_i

    def __len__(self) -> int:
        return len(self.forces)

    @property
    def total_force(self) -> float:
        """F = sum p_i A_i, the scalar sum of the local normal forces (not |f_perp|)."""
        return float(self.forces.sum())

    @property
    def pressure_center(self) -> np.ndarray:
        """o = sum s_i F_i / sum F_i (Eq. 3 / Eq. 22)."""
        return self.forces @ self.positions / self.forces.sum()

    def normal_wrench(self, point: np.ndarray | None = None) -> np.ndarray:
        """Wrench the pressure applies to the object, torque about `point` (Eq. 7).

        The paper writes -p n with an outward n; our normals point inward, so it is +F_i n_i.
        """
        ref = np.zeros(3) if point is None else np.asarray(point, dtype=float)
        f = self.forces[:, None] * self.normals
        tau = np.cross(self.positions - ref, f)
        return np.concatenate([f.sum(axis=0), tau.sum(axis=0)])

    def scaled(self, factor: float) -> PatchElements:
        """The same elements with every force multiplied by `factor`."""
        return PatchElements(self.positions, self.normals, self.forces * factor)

    def normalized(self) -> PatchElements:
        """Forces scaled so that sum F_i = 1 (the paper's normalised pressure p / F)."""
        return self.scaled(1.0 / self.total_force)

    def transformed(self, rotation: np.ndarray, origin: np.ndarray) -> PatchElements:
        """Coordinates in a frame with axes `rotation` (columns, in this frame) at `origin`."""
        return PatchElements(
            (self.positions - origin) @ rotation, self.normals @ rotation, self.forces
        )


def elements_from_patch(patch: ContactPatch) -> PatchElements:
    """A ContactPatch's elements: centres of pressure, inward normals, element normal forces.

    Elements with zero force are dropped (they carry no friction). Raises GraspError for a
    patch without positive force or with non-finite data.
    """
    pos = np.asarray(patch.centers_of_pressure, dtype=float).reshape(-1, 3)
    nrm = np.asarray(patch.normals, dtype=float).reshape(-1, 3)
    frc = np.asarray(patch.forces, dtype=float).reshape(-1)
    if not (len(pos) == len(nrm) == len(frc)):
        raise GraspError(
            f"degenerate contact patch on jaw {patch.jaw}: {len(pos)} centres, {len(nrm)} "
            f"normals and {len(frc)} forces; give one of each per element"
        )
    if not (np.isfinite(pos).all() and np.isfinite(nrm).all() and np.isfinite(frc).all()):
        raise GraspError(f"degenerate contact patch on jaw {patch.jaw}: non-finite element data")
    if (frc < 0).any():
        raise GraspError(
            f"degenerate contact patch on jaw {patch.jaw}: negative element forces "
            "(a jaw can only push)"
        )
    length = np.linalg.norm(nrm, axis=1)
    keep = (frc > 0) & (length > 0)
    if not keep.any() or frc[keep].sum() <= 0:
        raise GraspError(
            f"degenerate contact patch on jaw {patch.jaw}: no element carries normal force"
        )
    return PatchElements(pos[keep], nrm[keep] / length[keep, None], frc[keep])


@dataclass(frozen=True, eq=False)
class ContactFrame:
    """Local contact frame C of a patch (paper Appendix C): origin at the pressure centre."""

    origin: np.ndarray  # (3,) pressure centre o, in the parent frame
    rotation: np.ndarray  # (3,3) columns = C's x, y, z axes in the parent frame
    extents: np.ndarray  # (3,) bounding-box side lengths of the element points in C, m

    @property
    def size(self) -> float:
        """Characteristic length: the largest bounding-box side (l_s of Appendix D)."""
        return float(max(self.extents.max(), 1e-12))

    def wrench_to_parent(self, w: np.ndarray, point: np.ndarray) -> np.ndarray:
        """Wrenches (..,6) in C about o, expressed in the parent frame about `point` (Eq. 17)."""
        w = np.asarray(w, dtype=float)
        f = w[..., :3] @ self.rotation.T
        tau = w[..., 3:] @ self.rotation.T + np.cross(self.origin - point, f)
        return np.concatenate([f, tau], axis=-1)


def contact_frame(
    elements: PatchElements, fallback_normal: np.ndarray | None = None
) -> ContactFrame:
    """Frame at the pressure centre with z along the net normal force, x along the patch's long side.

    z = direction of sum F_i n_i (the net push, = the closing direction for a symmetric patch;
    `fallback_normal` when the normals cancel). x, y = principal axes of the force-weighted
    spread of the points in the plane normal to z, x the wider one. Normalising each wrench component by its maximum
    (Eq. 9) happens in this frame, so the fitted limit surface does not depend on the object
    frame's orientation.
    """
    o = elements.pressure_center
    net = elements.forces @ elements.normals
    total = elements.total_force
    if np.linalg.norm(net) > 1e-9 * total:
        z = net / np.linalg.norm(net)
    elif fallback_normal is not None and np.linalg.norm(fallback_normal) > 0:
        z = np.asarray(fallback_normal, dtype=float) / np.linalg.norm(fallback_normal)
    else:
        z = np.array([0.0, 0.0, 1.0])
    d = elements.positions - o
    d_plane = d - np.outer(d @ z, z)
    cov = (elements.forces[:, None] * d_plane).T @ d_plane
    # Remove the z direction so the two largest eigenvectors span the plane.
    cov += -np.outer(z, z) * (np.trace(cov) + 1.0)
    _, vecs = np.linalg.eigh(cov)
    x = vecs[:, 2]
    if np.linalg.norm(x - (x @ z) * z) < 0.5:  # numerically degenerate spread: any in-plane axis
        helper = np.eye(3)[int(np.argmin(np.abs(z)))]
        x = helper - (helper @ z) * z
    x = x - (x @ z) * z
    x /= np.linalg.norm(x)
    # Sign: towards the patch's heavier tail (third moment), so posing the object differently
    # gives the same frame; symmetric patches fall back to the parent frame's axes.
    skew = float(elements.forces @ (d_plane @ x) ** 3)
    scale = float(elements.forces @ np.abs(d_plane @ x) ** 3)
    if abs(skew) > 1e-6 * scale:
        x = x if skew > 0 else -x
    elif x[int(np.argmax(np.abs(x)))] < 0:
        x = -x
    y = np.cross(z, x)
    rot = np.column_stack([x, y, z])
    local = d @ rot
    extents = local.max(axis=0) - local.min(axis=0) if len(local) else np.zeros(3)
    return ContactFrame(o, rot, extents)


def coarsen_elements(
    elements: PatchElements, max_elements: int, frame: ContactFrame | None = None
) -> PatchElements:
    """At most `max_elements` elements by merging those in the same cube of a 3-D grid.

    The grid is aligned with `frame` (default the parent frame's axes at the origin), so with
    the patch's contact frame the merge does not depend on how the object is posed.

    A merged element keeps the summed force (the friction capacity), the force-weighted mean
    position (so the pressure centre is unchanged) and the normalised force-weighted mean
    normal. The cube size is found by bisection. Used only to bound the cost of the frictional
    wrench sampling; normal wrenches use the original elements.
    """
    n = len(elements)
    if max_elements <= 0 or n <= max_elements:
        return elements
    pos = (
        elements.positions
        if frame is None
        else (elements.positions - frame.origin) @ frame.rotation
    )
    span = float(np.ptp(pos, axis=0).max())
    if span <= 0:
        return PatchElements(
            elements.pressure_center[None, :],
            _unit(elements.forces @ elements.normals)[None, :],
            np.array([elements.total_force]),
        )
    lo, hi = span * 1e-6, span * 2.0
    best = None
    for _ in range(40):
        h = 0.5 * (lo + hi)
        _, inverse = np.unique(
            np.floor(pos / h + _GRID_SHIFT).astype(np.int64), axis=0, return_inverse=True
        )
        count = int(inverse.max()) + 1
        if count <= max_elements:
            best, hi = inverse.reshape(-1), h
        else:
            lo = h
        if best is not None and hi - lo < 1e-3 * hi:
            break
    if best is None:
        _, best = np.unique(
            np.floor(pos / hi + _GRID_SHIFT).astype(np.int64), axis=0, return_inverse=True
        )
        best = best.reshape(-1)
    m = int(best.max()) + 1
    f = np.bincount(best, weights=elements.forces, minlength=m)
    p = np.stack(
        [
            np.bincount(best, weights=elements.forces * elements.positions[:, k], minlength=m)
            for k in range(3)
        ],
        axis=1,
    )
    nn = np.stack(
        [
            np.bincount(best, weights=elements.forces * elements.normals[:, k], minlength=m)
            for k in range(3)
        ],
        axis=1,
    )
    keep = f > 0
    return PatchElements(p[keep] / f[keep, None], _unit(nn[keep]), f[keep])


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norm > 0, norm, 1.0)
