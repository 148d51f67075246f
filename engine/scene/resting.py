"""Put an object mesh at rest on the table: stable poses, resting frame and mass properties.

The resting frame has z up, the table at z = 0 (the lowest vertex exactly on it) and the
centre of mass on the z axis, which is where the grasp planner expects the object.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
import trimesh

from engine.errors import MeshError, ParameterError, literal
from engine.scene.object_facts import check_density
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, ObjectMesh

log = logging.getLogger(__name__)

DEFAULT_DENSITY_KG_M3 = 1000.0
"""Density used when neither mass nor density is given (water; most plastics are close)."""


@dataclass(frozen=True, eq=False)
class StablePose:
    """One way the object can rest on a plane, with its quasi-static drop probability."""

    transform: np.ndarray  # 4x4, mesh frame -> resting frame (before recentering)
    probability: float


@dataclass(frozen=True, eq=False)
class RestingObject:
    """An object resting on the table at z = 0, with uniform-density mass properties."""

    vertices: np.ndarray  # (n, 3) resting frame: z up, min z == 0, centre of mass at x = y = 0
    faces: np.ndarray  # (m, 3) int64, outward
    mass_kg: float
    density_kg_m3: float
    volume_m3: float
    center_of_mass: np.ndarray  # (3,) resting frame, x = y = 0
    # (3, 3) kg m^2: integral of rho (X - c)(X - c)^T dV about the centre of mass, resting
    # frame. Not the inertia tensor: I = tr(S) Id - S.
    second_moment: np.ndarray
    stable_pose_index: int
    stable_pose_probability: float
    mesh: ObjectMesh  # what it came from
    pose_transform: np.ndarray  # 4x4 mesh frame -> resting frame (including the recentering)


def _frozen(array: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    out: np.ndarray = np.array(array, dtype=dtype)
    out.flags.writeable = False
    return out


MAX_HULL_FACES = 20_000
"""Most convex-hull faces the stable-pose analysis takes (its graph costs ~0.2 ms a face)."""

MAX_POSE_WORK = 10_000_000
"""Most hull faces x faces the object can rest on (trimesh places each resting face's hull:
about 0.4 us per product, so 4 s; a 3840-face UV sphere is 7.6e6, 2.9 s; a 20k-face ball 4.2e8).
The real meshes of docs/real_meshes.md stay below 1.6e5."""


def stable_poses(mesh: ObjectMesh) -> list[StablePose]:
    """Stable resting poses of `mesh` on a plane, most probable first (probabilities sum to 1).

    Uses trimesh's toppling analysis on the convex hull with the exact centre of mass
    (sigma=0, one sample), so the result is deterministic. MeshError when the centre of mass is
    not inside the hull (trimesh would loop for ever) or the analysis would exceed its budget
    (MAX_HULL_FACES, MAX_POSE_WORK), naming the fix.
    """
    tm = mesh.to_trimesh()
    center = np.asarray(tm.center_mass, dtype=np.float64)
    hull = tm.convex_hull
    where = mesh.source if not mesh.source.startswith("builtin:") else mesh.name
    inside = np.einsum("ij,ij->i", center - hull.triangles_center, hull.face_normals) < 0
    if not (np.all(np.isfinite(center)) and np.all(inside)):
        raise MeshError(
            f"{literal(where)}: its centre of mass lies outside its convex hull, so its surface "
            "crosses itself or its faces disagree about inside and outside; no pose can rest it "
            "on a table. Repair the mesh (e.g. MeshLab: Filters > Cleaning and Repairing) or "
            "re-export it"
        )
    hull, cell = _pose_hull(hull, center)
    resting = _resting_faces(hull, center)
    hull_faces = len(hull.faces)
    if hull_faces > MAX_HULL_FACES or hull_faces * resting > MAX_POSE_WORK:
        target = round(min(MAX_HULL_FACES, math.sqrt(MAX_POSE_WORK)), -2)
        raise MeshError(
            f"{literal(where)}: its convex hull has {hull_faces} faces, {resting} of them faces "
            f"it can rest on (a finely tessellated, nearly round object); finding its stable "
            f"poses would take about {_pose_seconds(hull_faces, resting):.0f} s, over this "
            f"step's budget (at most {MAX_HULL_FACES} hull faces and {MAX_POSE_WORK:.0e} hull "
            "faces x resting faces). Simplify the mesh to about "
            f"{target:.0f} faces (e.g. MeshLab: Filters > Remeshing > Quadric Edge Collapse "
            "Decimation) and load it again"
        )
    if cell > 0.0:
        log.info(
            "%s: stable poses from its convex hull simplified to %d faces (hull vertices "
            "merged within %.2g mm)", where, hull_faces, cell * 1e3,
        )  # fmt: skip
        tm = hull
    transforms, probabilities = trimesh.poses.compute_stable_poses(
        tm, center_mass=center, sigma=0.0, n_samples=1, seed=0
    )
    order = np.argsort(-np.asarray(probabilities), kind="stable")
    return [
        StablePose(transform=_frozen(transforms[i]), probability=float(probabilities[i]))
        for i in order
    ]


HULL_CELLS = (200, 100, 50, 32, 20, 12)
"""Grids (cells along the hull's longest extent) on which an over-budget hull's vertices are
merged, finest first, until the stable-pose analysis fits its budget."""


def _pose_hull(hull: trimesh.Trimesh, center: np.ndarray) -> tuple[trimesh.Trimesh, float]:
    """The hull the stable poses are found on, and the grid cell (m) its vertices were merged
    on (0: the hull itself). A finely tessellated round object (a scanned fruit or ball) has
    thousands of hull faces it can rest on, each nearly as likely as the next; keeping one hull
    vertex per grid cell gives a hull inside the original, within a cell of it, with far fewer
    faces and the same poses up to that resolution."""
    if _within_budget(hull, center):
        return hull, 0.0
    points = np.asarray(hull.vertices, dtype=np.float64)
    lo = points.min(axis=0)
    for cells in HULL_CELLS:
        cell = float(np.ptp(points, axis=0).max()) / cells
        _, first = np.unique(np.floor((points - lo) / cell), axis=0, return_index=True)
        coarse = trimesh.convex.convex_hull(points[np.sort(first)])
        inside = np.einsum(
            "ij,ij->i", center - coarse.triangles_center, coarse.face_normals
        )  # fmt: skip
        if np.all(inside < 0) and _within_budget(coarse, center):
            return coarse, cell
    return hull, 0.0  # the caller refuses it with the counts


def _within_budget(hull: trimesh.Trimesh, center: np.ndarray) -> bool:
    faces = len(hull.faces)
    return faces <= MAX_HULL_FACES and faces * _resting_faces(hull, center) <= MAX_POSE_WORK


def _resting_faces(hull: trimesh.Trimesh, center: np.ndarray) -> int:
    """How many hull faces the centre of mass projects into (trimesh's stable faces)."""
    normals = np.asarray(hull.face_normals)
    triangles = np.asarray(hull.triangles)
    depth = np.einsum("ij,ij->i", normals, center - triangles[:, 0])
    projected = center - depth[:, None] * normals
    bary = trimesh.triangles.points_to_barycentric(triangles, projected)
    return int(np.count_nonzero(~np.any(bary < 0, axis=1)))


def _pose_seconds(hull_faces: int, resting: int) -> float:
    """Measured cost of trimesh's analysis on this machine's kind (2 cores, no load)."""
    return 2e-4 * hull_faces + 4e-7 * hull_faces * resting


def _check_mass_inputs(mass_kg: float | None, density_kg_m3: float | None) -> None:
    """At most one of mass and density, each positive when given."""
    _check_positive("mass_kg", mass_kg)
    _check_positive("density_kg_m3", density_kg_m3)
    if mass_kg is not None and density_kg_m3 is not None:
        raise ParameterError(
            "give either mass_kg or density_kg_m3, not both (one determines the other)"
        )


def _check_positive(name: str, value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be finite and > 0, got {value!r}")


def rest_object(
    mesh: ObjectMesh,
    stable_pose: int = 0,
    mass_kg: float | None = None,
    density_kg_m3: float | None = None,
    *,
    poses: list[StablePose] | None = None,
) -> RestingObject:
    """Place `mesh` in stable pose number `stable_pose` (0 = most probable) on the table.

    Give at most one of `mass_kg` and `density_kg_m3`; with neither, the built-in cube weighs
    BUILTIN_CUBE_MASS_KG and any other mesh gets DEFAULT_DENSITY_KG_M3. A density no object has
    (engine.scene.object_facts: below 10 or above 25,000 kg/m^3) raises ParameterError. `poses`: the mesh's
    `stable_poses` when the caller has them already (the toppling analysis is the slow part).
    """
    _check_mass_inputs(mass_kg, density_kg_m3)
    poses = stable_poses(mesh) if poses is None else poses
    if isinstance(stable_pose, bool) or not isinstance(stable_pose, int | np.integer):
        raise ParameterError(f"stable_pose must be an integer index, got {stable_pose!r}")
    if not 0 <= stable_pose < len(poses):
        raise ParameterError(
            f"stable_pose {stable_pose} is out of range: this object has {len(poses)} stable "
            f"poses (0 to {len(poses) - 1}, most probable first)"
        )
    pose = poses[int(stable_pose)]
    return _place(
        mesh,
        np.asarray(pose.transform, dtype=np.float64),
        mass_kg,
        density_kg_m3,
        stable_pose_index=int(stable_pose),
        stable_pose_probability=pose.probability,
    )


def _place(
    mesh: ObjectMesh,
    transform: np.ndarray,
    mass_kg: float | None,
    density_kg_m3: float | None,
    stable_pose_index: int,
    stable_pose_probability: float,
) -> RestingObject:
    """Apply `transform` (4x4, mesh -> world), then put the lowest vertex at z = 0 and the
    centre of mass on the z axis; mass properties from the mass or density given."""
    posed = trimesh.transform_points(np.asarray(mesh.vertices), transform)
    faces = np.asarray(mesh.faces, dtype=np.int64)
    # Uniform density: the centre of mass does not depend on the density value.
    com = trimesh.triangles.mass_properties(posed[faces], density=1.0).center_mass
    # z - min(z) is exactly 0 for the lowest vertex, so the object touches z = 0 exactly.
    translation = np.array([-com[0], -com[1], -posed[:, 2].min()])
    vertices = posed + translation

    volume = float(trimesh.triangles.mass_properties(vertices[faces], density=1.0).volume)
    if mass_kg is not None:
        mass = float(mass_kg)
    elif density_kg_m3 is not None:
        mass = float(density_kg_m3) * volume
    elif mesh.source == "builtin:cube":
        mass = BUILTIN_CUBE_MASS_KG
    else:
        mass = DEFAULT_DENSITY_KG_M3 * volume
    check_density(mass, volume, mesh, "density" if density_kg_m3 is not None else "mass")
    density = float(density_kg_m3) if density_kg_m3 is not None else mass / volume
    props = trimesh.triangles.mass_properties(vertices[faces], density=density)
    inertia = np.asarray(props.inertia)  # about the centre of mass
    # I = tr(S) Id - S  =>  tr(I) = 2 tr(S)  =>  S = tr(I)/2 Id - I.
    second_moment = 0.5 * np.trace(inertia) * np.eye(3) - inertia
    center = np.array(props.center_mass, dtype=np.float64)
    center[:2] = 0.0  # zero by construction; drop the round-off

    recenter = np.eye(4)
    recenter[:3, 3] = translation
    return RestingObject(
        vertices=_frozen(vertices),
        faces=_frozen(faces, np.int64),
        mass_kg=mass,
        density_kg_m3=density,
        volume_m3=volume,
        center_of_mass=_frozen(center),
        second_moment=_frozen(0.5 * (second_moment + second_moment.T)),
        stable_pose_index=stable_pose_index,
        stable_pose_probability=stable_pose_probability,
        mesh=mesh,
        pose_transform=_frozen(recenter @ transform),
    )


def _nearest_rotation(rotation: np.ndarray, tolerance: float = 0.05) -> np.ndarray:
    """The proper rotation closest to `rotation` (SVD); ParameterError if it is far from one.

    Recorded poses (e.g. REACH JSON files) carry a few 1e-2 of round-off, so they are projected
    rather than rejected; anything further from orthonormal than `tolerance` is a mistake.
    """
    r = np.asarray(rotation, dtype=np.float64)
    if r.shape != (3, 3) or not np.all(np.isfinite(r)):
        raise ParameterError(f"object rotation must be a finite 3x3 matrix, got {r.tolist()}")
    u, _, vt = np.linalg.svd(r)
    nearest = u @ vt
    if np.linalg.det(nearest) < 0:
        raise ParameterError(
            "object rotation is a reflection (determinant < 0); give a proper rotation matrix"
        )
    if float(np.abs(nearest - r).max()) > tolerance:
        raise ParameterError(
            f"object rotation is not a rotation matrix (entries off by up to "
            f"{float(np.abs(nearest - r).max()):.3g}; R R^T must be the identity)"
        )
    return nearest


def _snap_to_support(vertices: np.ndarray, max_tilt_deg: float) -> np.ndarray:
    """Rotation that lays the convex-hull face closest to facing down flat on the table.

    Identity when that face is tilted by more than `max_tilt_deg` (then the pose is kept).
    """
    hull = trimesh.convex.convex_hull(vertices)
    normals = np.asarray(hull.face_normals)
    n = normals[int(np.argmin(normals[:, 2]))]
    tilt = math.acos(min(1.0, max(-1.0, -float(n[2]))))
    axis = np.cross(n, [0.0, 0.0, -1.0])
    norm = float(np.linalg.norm(axis))
    # A face down to round-off (a recorded pose that only turns about the vertical: its normal
    # can be (0, 0, -0.9999999999999999), a tilt of 1.5e-8 rad about no axis) is flat already.
    if tilt == 0.0 or norm < 1e-12 or tilt > math.radians(max_tilt_deg):
        return np.eye(3)
    return trimesh.transformations.rotation_matrix(tilt, axis / norm)[:3, :3]


def rest_object_from_rotation(
    mesh: ObjectMesh,
    rotation: np.ndarray,
    mass_kg: float | None = None,
    density_kg_m3: float | None = None,
    snap_to_support_deg: float = 0.0,
) -> RestingObject:
    """Place `mesh` rotated by `rotation` (3x3, mesh frame -> world, z up) on the table.

    For recorded object poses (REACH JSON `pose`): the rotation is kept as given (projected to
    the nearest proper rotation), the lowest vertex is put at z = 0 and the centre of mass on
    the z axis, as `rest_object` does for a stable pose. stable_pose_index is -1 and the
    probability NaN (the pose need not be one of the computed stable poses).
    `snap_to_support_deg` > 0: if the face the object would rest on is tilted by at most this
    angle, tilt the object so it lies flat (recorded poses carry measurement noise; a cube
    tilted by 0.3 degrees would otherwise start balanced on one edge).
    Mass as in `rest_object`: at most one of `mass_kg` and `density_kg_m3`.
    """
    _check_mass_inputs(mass_kg, density_kg_m3)
    rot = _nearest_rotation(rotation)
    if snap_to_support_deg > 0:
        rot = _snap_to_support(np.asarray(mesh.vertices) @ rot.T, snap_to_support_deg) @ rot
    transform = np.eye(4)
    transform[:3, :3] = rot
    return _place(mesh, transform, mass_kg, density_kg_m3, -1, math.nan)
