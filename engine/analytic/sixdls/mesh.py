"""Meshed versions of parametric surfaces: ContactPatches of triangles (Appendix B, Fig. 7)."""

from __future__ import annotations

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.sixdls.surfaces import ParametricSurface, Pressure


def _grid_shape(surface: ParametricSurface, n_triangles: int) -> tuple[int, int]:
    """(nu, nv) cells with 2 nu nv ~ n_triangles and roughly square cells in 3-D."""
    (u0, u1), (v0, v1) = surface.u_range, surface.v_range
    uu, vv = np.meshgrid(np.linspace(u0, u1, 9), np.linspace(v0, v1, 9), indexing="ij")
    len_u = float(np.linalg.norm(surface.sigma_u(uu, vv), axis=-1).mean() * (u1 - u0))
    len_v = float(np.linalg.norm(surface.sigma_v(uu, vv), axis=-1).mean() * (v1 - v0))
    cells = max(n_triangles / 2.0, 1.0)
    nu = max(1, round(np.sqrt(cells * len_u / max(len_v, 1e-300))))
    nv = max(1, round(cells / nu))
    return nu, nv


def mesh_patch(
    surface: ParametricSurface,
    pressure: Pressure,
    n_triangles: int,
    total_force: float | None = 1.0,
    jaw: int = 0,
) -> ContactPatch:
    """Triangulate the (u, v) rectangle into ~n_triangles triangles mapped by sigma.

    Per triangle: centroid of its 3-D corners, unit normal into the object, flat area, and
    force = p(centroid) * area; the pressure centre of an element is its centroid. With
    `total_force` the forces are rescaled so their scalar sum equals it (1 gives the paper's
    meshed normalisation sum p A = 1). Zero-area triangles (at a sphere's poles) are dropped.
    """
    nu, nv = _grid_shape(surface, n_triangles)
    (u0, u1), (v0, v1) = surface.u_range, surface.v_range
    uu, vv = np.meshgrid(np.linspace(u0, u1, nu + 1), np.linspace(v0, v1, nv + 1), indexing="ij")
    verts = surface.sigma(uu, vv).reshape(-1, 3)
    idx = np.arange((nu + 1) * (nv + 1)).reshape(nu + 1, nv + 1)
    a, b = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel()
    c, d = idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    tris = np.concatenate(
        [np.stack([a, b, c], 1), np.stack([a, c, d], 1)]
    )  # (u, v) counter-clockwise
    corners = verts[tris]
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area2 = np.linalg.norm(cross, axis=1)
    keep = area2 > 1e-12 * area2.max()
    corners, cross, area2 = corners[keep], cross[keep], area2[keep]
    # (u, v) counter-clockwise maps to sigma_u x sigma_v, so the inward normal is its negative
    # times the surface's outward sign.
    normals = -surface.outward_sign * cross / area2[:, None]
    areas = 0.5 * area2
    centroids = corners.mean(axis=1)
    forces = pressure(centroids) * areas
    if total_force is not None:
        forces = forces * (total_force / forces.sum())
    net = forces @ normals
    closing = net / np.linalg.norm(net) if np.linalg.norm(net) > 0 else np.array([0.0, 0.0, 1.0])
    return ContactPatch(
        jaw=jaw,
        triangles=corners,
        centroids=centroids,
        normals=normals,
        areas=areas,
        forces=forces,
        centers_of_pressure=centroids.copy(),
        closing_direction=closing,
    )


def transformed_patch(
    patch: ContactPatch, rotation: np.ndarray, translation: np.ndarray, jaw: int | None = None
) -> ContactPatch:
    """The patch moved rigidly: x -> R x + t (normals and closing direction rotated)."""
    r = np.asarray(rotation, dtype=float)
    t = np.asarray(translation, dtype=float)
    return ContactPatch(
        jaw=patch.jaw if jaw is None else jaw,
        triangles=patch.triangles @ r.T + t,
        centroids=patch.centroids @ r.T + t,
        normals=patch.normals @ r.T,
        areas=patch.areas.copy(),
        forces=patch.forces.copy(),
        centers_of_pressure=patch.centers_of_pressure @ r.T + t,
        closing_direction=r @ patch.closing_direction,
    )
