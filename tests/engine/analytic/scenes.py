"""Test scenes for the analytic models: resting objects and synthetic contact patches."""

from __future__ import annotations

import numpy as np
import trimesh

from engine.analytic.contact_patch import ContactPatch
from engine.constants import GRAVITY_M_S2
from engine.gripper.pad_geometry import triangulate_outline
from engine.scene.object_mesh import ObjectMesh, builtin_cube
from engine.scene.resting import RestingObject, rest_object

G = GRAVITY_M_S2


def resting(mesh: trimesh.Trimesh, mass_kg: float) -> RestingObject:
    """A trimesh resting as given: lowest point at z = 0, centre of mass on the z axis."""
    com = np.array(mesh.center_mass)
    v = np.array(mesh.vertices) - [com[0], com[1], mesh.vertices[:, 2].min()]
    f = np.array(mesh.faces, dtype=np.int64)
    source = ObjectMesh(v, f, "test", "test", None)
    return RestingObject(
        vertices=v,
        faces=f,
        mass_kg=mass_kg,
        density_kg_m3=mass_kg / mesh.volume,
        volume_m3=float(mesh.volume),
        center_of_mass=np.array([0.0, 0.0, com[2] - mesh.vertices[:, 2].min()]),
        second_moment=np.eye(3),
        stable_pose_index=0,
        stable_pose_probability=1.0,
        mesh=source,
        pose_transform=np.eye(4),
    )


def cube(size_m: float = 0.03, mass_kg: float = 0.02, vertices: int | None = None):
    return rest_object(builtin_cube(size_m, vertices), mass_kg=mass_kg)


def cylinder(radius_m: float, height_m: float, mass_kg: float, sections: int = 512):
    return resting(trimesh.creation.cylinder(radius_m, height_m, sections=sections), mass_kg)


def disc_polygon(radius_m: float, segments: int = 256) -> np.ndarray:
    t = 2 * np.pi * np.arange(segments) / segments
    return radius_m * np.column_stack([np.cos(t), np.sin(t)])


def flat_patch(
    polygon: np.ndarray,
    x_m: float,
    force_n: float,
    jaw: int,
    edge_m: float = 0.0005,
    centre: np.ndarray | None = None,
    gradient: float = 0.0,
) -> ContactPatch:
    """A flat patch in the plane x = x_m, (a, b) of the polygon -> (y, z) + centre.

    The inward normal points towards x = 0. Pressure is uniform, or linear in y with
    relative slope `gradient` per metre (force at each centroid, so elements must be fine).
    """
    centre = np.zeros(3) if centre is None else np.asarray(centre, dtype=float)
    pts, tris = triangulate_outline(np.asarray(polygon, dtype=float), edge_m)
    p3 = np.column_stack([np.full(len(pts), x_m), pts[:, 0], pts[:, 1]]) + centre
    tri = p3[tris]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    cen = tri.mean(axis=1)
    weight = area * (1.0 + gradient * (cen[:, 1] - centre[1]))
    normal = np.array([-np.sign(x_m), 0.0, 0.0])
    return ContactPatch(
        jaw=jaw,
        triangles=tri,
        centroids=cen,
        normals=np.tile(normal, (len(tri), 1)),
        areas=area,
        forces=force_n * weight / weight.sum(),
        centers_of_pressure=cen,
        closing_direction=normal,
    )


def mirrored(patch: ContactPatch, jaw: int) -> ContactPatch:
    """The patch reflected through the plane x = 0: the opposite jaw of a symmetric grasp."""
    flip = np.array([-1.0, 1.0, 1.0])
    return ContactPatch(
        jaw=jaw,
        triangles=patch.triangles * flip,
        centroids=patch.centroids * flip,
        normals=patch.normals * flip,
        areas=patch.areas,
        forces=patch.forces,
        centers_of_pressure=patch.centers_of_pressure * flip,
        closing_direction=patch.closing_direction * flip,
    )


def mean_distance_to_centroid(polygon: np.ndarray, n: int = 800) -> float:
    """rho-bar of a uniformly loaded flat pad, by a fine midpoint grid (design note O9)."""
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    a, b = np.meshgrid(
        np.linspace(lo[0], hi[0], n, endpoint=False) + (hi[0] - lo[0]) / (2 * n),
        np.linspace(lo[1], hi[1], n, endpoint=False) + (hi[1] - lo[1]) / (2 * n),
    )
    pts = np.column_stack([a.ravel(), b.ravel()])
    inside = np.ones(len(pts), dtype=bool)
    for p, q in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):  # convex, CCW
        inside &= (q[0] - p[0]) * (pts[:, 1] - p[1]) - (q[1] - p[1]) * (pts[:, 0] - p[0]) >= 0
    pts = pts[inside]
    c = pts.mean(axis=0)
    return float(np.linalg.norm(pts - c, axis=1).mean())
