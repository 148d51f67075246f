"""Object meshes: load a triangle mesh from a file (repairing it), or build the built-in cube.

Every mesh that leaves this module is watertight, outward-oriented, has positive volume and is
in metres, so the simulator never has to check again. What loading repaired is on the mesh
(`ObjectMesh.repair`) and goes into every result row and session through `mesh_columns`, the
one declaration of those columns.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import logging
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from engine.errors import MeshError, ParameterError, literal
from engine.scene.mesh_bodies import parse_body
from engine.scene.mesh_budget import check_face_budget, declared_faces
from engine.scene.mesh_headers import check_header_counts
from engine.scene.mesh_intersections import check_self_intersections
from engine.scene.mesh_repair import NO_REPAIR, MeshRepair, repair_mesh
from engine.scene.mesh_units import (
    MAX_DIAGONAL_M,
    MIN_DIAGONAL_M,
    UNIT_NAMES,
    UNIT_SCALE_M,
    unit_hint,
)
from engine.scene.scene_settings import body_setting, unit_setting

log = logging.getLogger(__name__)

BUILTIN_CUBE_MASS_KG = 0.003
"""Mass of the built-in cube: the 3 cm, 3 g cube of the reference benchmark."""

SUPPORTED_EXTENSIONS = (".obj", ".stl", ".ply", ".off", ".glb")

MAX_MESH_FILE_BYTES = 512 * 1024**2
"""Largest mesh file read (an OBJ of about 8 million triangles); checked before reading."""
# UNIT_SCALE_M, MIN_DIAGONAL_M and MAX_DIAGONAL_M are engine.scene.mesh_units' (other modules
# import them from here too).

_CUBE_SPEC = re.compile(r"cube(?::(.*))?")


@dataclass(frozen=True, eq=False)
class ObjectMesh:
    """A closed, outward-oriented triangle mesh in metres (arrays are read-only)."""

    vertices: np.ndarray  # (n, 3) float64, metres, in the file's own frame
    faces: np.ndarray  # (m, 3) int64, consistently outward-oriented
    name: str  # file stem or "cube"
    source: str  # absolute path or "builtin:cube"
    sha256: str | None  # hex sha256 of the file bytes (None for built-ins)
    repair: MeshRepair = NO_REPAIR  # what loading changed (engine.scene.mesh_repair)
    unit: str | None = None  # the file's unit it was read in (UNIT_SCALE_M); None: metres

    @property
    def scale_m(self) -> float:
        """Metres per file unit the file was read with (1 for metres and built-ins)."""
        return UNIT_SCALE_M[self.unit or "m"]

    def to_trimesh(self) -> trimesh.Trimesh:
        """A trimesh copy (process=False keeps vertex and face order)."""
        return trimesh.Trimesh(
            vertices=np.array(self.vertices), faces=np.array(self.faces), process=False
        )


MESH_COLUMNS = ("object_body", "object_repair")
"""Result-row columns that say which body of the file was used and what loading repaired."""


def mesh_columns(mesh: ObjectMesh) -> dict[str, object]:
    """The MESH_COLUMNS cells of `mesh` ('' when the file held one body / nothing changed)."""
    return {"object_body": mesh.repair.body, "object_repair": mesh.repair.summary()}


def _frozen(array: np.ndarray, dtype: type) -> np.ndarray:
    out: np.ndarray = np.ascontiguousarray(array, dtype=dtype).copy()
    out.flags.writeable = False
    return out


def _unit_scale(unit: str | None) -> float | None:
    if unit is None:
        return None
    key = str(unit).strip().lower()
    if key not in UNIT_SCALE_M:
        raise ParameterError(
            f"unknown mesh unit {unit!r}: use one of {', '.join(UNIT_SCALE_M)} (metres, "
            "centimetres, millimetres, inches)"
        )
    return UNIT_SCALE_M[key]


class ObjectSizeError(MeshError):
    """A mesh whose size (in the unit it was read in) no graspable object has: its front end
    offers the unit (the command line's --unit, the app's unit chooser)."""


def _check_size(extents_m: np.ndarray, where: str, unit: str | None) -> None:
    """Raise MeshError unless the bounding-box diagonal is a plausible graspable size."""
    diagonal_m = float(np.linalg.norm(extents_m))
    if MIN_DIAGONAL_M <= diagonal_m <= MAX_DIAGONAL_M:
        return
    size = f"{where} is {diagonal_m:.4g} m across (bounding-box diagonal)"
    if unit is not None:
        raise ObjectSizeError(
            f"{literal(size)} after applying {{0}}; expected {MIN_DIAGONAL_M * 1000:g} mm to "
            f"{MAX_DIAGONAL_M:g} m: check that the unit matches the file",
            settings=[unit_setting(unit)],
        )
    hint = unit_hint([float(e) for e in extents_m]) if diagonal_m > MAX_DIAGONAL_M else None
    if hint is not None:
        suggested, sizes = hint
        raise ObjectSizeError(
            f"{literal(size)} read as metres, which looks like {UNIT_NAMES[suggested]}: give the unit, {{0}} "
            f"({literal(sizes)})",
            settings=[unit_setting(suggested)],
        )
    if diagonal_m > MAX_DIAGONAL_M:
        raise ObjectSizeError(
            f"{literal(size)}, too large for a graspable object: give the file's unit (mm, cm, "
            "in or m), {0}, or rescale the mesh",
            settings=[unit_setting()],
        )
    raise ObjectSizeError(
        f"{literal(size)}, too small for a graspable object: maybe metres were exported as km; "
        "give the file's unit (m, cm, mm or in), {0}, or rescale the mesh",
        settings=[unit_setting()],
    )


def _read_trimesh(path: Path, data: bytes) -> trimesh.Trimesh:
    ext = path.suffix.lower()
    try:
        # Read from bytes we already hold so no file handle is left open; scenes (GLB, OBJ with
        # several objects) are merged into one mesh with their transforms applied.
        loaded = trimesh.load(
            file_obj=io.BytesIO(data),
            file_type=ext[1:],
            force="mesh",
            process=False,  # repair_mesh merges vertices itself and reports what it changed
            resolver=trimesh.resolvers.FilePathResolver(str(path)),
        )
    except Exception as exc:
        raise MeshError(
            f"could not read {path} as a mesh ({type(exc).__name__}: {exc}); is it a valid "
            "OBJ, STL, PLY, OFF or GLB file?"
        ) from exc
    if isinstance(loaded, list | tuple):
        meshes = [m for m in loaded if isinstance(m, trimesh.Trimesh)]
        loaded = trimesh.util.concatenate(meshes) if meshes else trimesh.Trimesh()
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise MeshError(
            f"{path} contains no triangles; is it a mesh file (OBJ, STL, PLY, OFF, GLB)?"
        )
    return loaded


def solid_from_arrays(
    vertices: np.ndarray,
    faces: np.ndarray,
    where: str,
    unit: str | None = None,
    body: str | int | None = None,
    indexed: bool = True,
) -> tuple[np.ndarray, np.ndarray, MeshRepair]:
    """The checks and repair every object mesh goes through, from a file or embedded in a
    session: x, y, z coordinates, finite, scaled by `unit`, a graspable size, repaired
    (engine.scene.mesh_repair) and not crossing itself (engine.scene.mesh_intersections).
    Returns the solid's vertices (metres) and faces and what the repair changed; MeshError
    names `where` and the fix."""
    scale = _unit_scale(unit)
    shape = np.shape(vertices)
    if len(shape) != 2 or shape[1] != 3:
        raise MeshError(
            f"{where} has no usable vertices (they have {shape[-1] if shape else 0} coordinates, "
            "not x, y, z): repair or re-export it"
        )
    points = np.array(vertices, dtype=np.float64)
    if not np.all(np.isfinite(points)):
        raise MeshError(f"{where} has NaN or infinite vertex coordinates: repair or re-export it")
    triangles = np.asarray(faces)
    if (
        triangles.ndim != 2
        or triangles.shape[1] != 3
        or len(triangles) == 0
        or triangles.dtype.kind not in "iu"
    ):
        raise MeshError(
            f"{where} has no usable triangles (faces of shape {triangles.shape}, type "
            f"{triangles.dtype}): repair or re-export it"
        )
    if triangles.min() < 0 or triangles.max() >= len(points):
        bad = int(np.flatnonzero(((triangles < 0) | (triangles >= len(points))).any(axis=1))[0])
        raise MeshError(
            f"{where}: face {bad} uses vertex {literal(str(triangles[bad].tolist()))} but the "
            f"mesh has {len(points)} vertices (0 to {len(points) - 1}): the file is damaged or "
            "cut short; re-export it"
        )
    if scale is not None:
        points *= scale
    _check_size(np.ptp(points[np.unique(triangles)], axis=0), where, unit)
    solid, triangles, repair = repair_mesh(
        points, triangles, where=where, body=body, indexed=indexed
    )
    check_self_intersections(solid, triangles, where)
    return solid, triangles, repair


def _read_mesh_file(path: str | os.PathLike) -> tuple[Path, bytes, trimesh.Trimesh]:
    """The resolved path, the file's bytes and its triangles as read (in the file's own units,
    not repaired), after the checks that bound what reading them may cost: a usable path, a
    supported extension, at most MAX_MESH_FILE_BYTES, header counts that match the data and at
    most MAX_MESH_FACES triangles (counted before they are read where the format allows)."""
    text = os.fspath(path)
    if "\0" in str(text) or len(str(text)) > 4096:
        raise MeshError(
            f"object mesh path {str(text)[:80]!r}{'...' if len(str(text)) > 80 else ''} is not "
            "a usable path (a NUL character, or over 4096 characters): check the path"
        )
    try:
        path = Path(path).expanduser().resolve()
        is_file = path.is_file()
    except (OSError, RuntimeError, ValueError) as exc:  # too long, symlink loop, bad ~user
        raise MeshError(f"object mesh path {str(text)[:200]!r} cannot be used ({exc})") from None
    if not is_file:
        what = "is a directory, not a file" if path.is_dir() else "not found"
        raise MeshError(f"object mesh file {path} {what}: check the path")
    ext = path.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise MeshError(
            f"unsupported mesh file extension {path.suffix or '(none)'!r} for {path}: "
            "use OBJ, STL, PLY, OFF or GLB (convert it e.g. in MeshLab or Blender)"
        )
    try:
        size = path.stat().st_size
        if size > MAX_MESH_FILE_BYTES:
            raise MeshError(
                f"{path} is {size / 1024**2:.0f} MiB, over the "
                f"{MAX_MESH_FILE_BYTES / 1024**2:.0f} MiB a mesh file may have: simplify the "
                "mesh (e.g. MeshLab's Quadric Edge Collapse Decimation) or export only the part "
                "to grasp"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise MeshError(f"cannot read {path} ({exc.strerror}): check its permissions") from exc
    check_header_counts(str(path), ext, data)
    declared = declared_faces(ext, data)
    if declared is not None:
        check_face_budget(str(path), *declared)
    mesh = _read_trimesh(path, data)
    check_face_budget(str(path), len(mesh.faces))
    return path, data, mesh


def mesh_file_extents(path: str | os.PathLike) -> tuple[float, float, float]:
    """The bounding-box size of a mesh file's triangles in the file's own units (what a front
    end shows when it asks for the unit), read under the same budgets as load_object_mesh.
    Raises MeshError when the file cannot be read."""
    path, _, mesh = _read_mesh_file(path)
    faces = np.asarray(mesh.faces)
    points = np.asarray(mesh.vertices, dtype=np.float64)
    if faces.size == 0 or faces.min() < 0 or faces.max() >= len(points):
        raise MeshError(f"{path} has no usable triangles: repair or re-export it")
    extents = np.ptp(points[np.unique(faces)], axis=0)
    if extents.shape != (3,) or not np.all(np.isfinite(extents)):
        raise MeshError(f"{path} has NaN or infinite vertex coordinates: repair or re-export it")
    return (float(extents[0]), float(extents[1]), float(extents[2]))


def load_object_mesh(
    path: str | os.PathLike, unit: str | None = None, body: str | int | None = None
) -> ObjectMesh:
    """Load an object mesh from OBJ/STL/PLY/OFF/GLB, convert it to metres and repair it.

    `unit` is the file's length unit ("m", "cm", "mm", "in"); without it the file is assumed to
    be in metres and a size outside 2 mm .. 1.5 m is rejected with a hint. The triangles are
    repaired as engine.scene.mesh_repair describes (the file is never changed) and the mesh's
    `repair` says what changed; `body` chooses among several real bodies (K, largest first, or
    "all"; None refuses them). Raises MeshError for files that cannot be used as a rigid object
    and ParameterError for an unknown unit or body.
    """
    _unit_scale(unit)
    parse_body(body)
    path, data, mesh = _read_mesh_file(path)
    vertices, faces, repair = solid_from_arrays(
        mesh.vertices, mesh.faces, str(path), unit, body, indexed=path.suffix.lower() != ".stl"
    )
    if repair.changed:
        log.info("%s: repaired on load: %s", path, repair.summary())
    return ObjectMesh(
        vertices=_frozen(vertices, np.float64),
        faces=_frozen(faces, np.int64),
        name=path.stem,
        source=str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        repair=repair,
        unit=None if unit is None else str(unit).strip().lower(),
    )


def _unit_cube(half: float) -> tuple[np.ndarray, np.ndarray]:
    """The 8-vertex, 12-triangle cube [-half, half]^3, outward winding."""
    corners = np.array(
        [[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)]
    )
    # Corner index = 4*ix + 2*iy + iz; two triangles per side, counter-clockwise from outside.
    faces = np.array(
        [
            [0, 1, 3], [0, 3, 2],  # x = -half
            [4, 6, 7], [4, 7, 5],  # x = +half
            [0, 4, 5], [0, 5, 1],  # y = -half
            [2, 3, 7], [2, 7, 6],  # y = +half
            [0, 2, 6], [0, 6, 4],  # z = -half
            [1, 5, 7], [1, 7, 3],  # z = +half
        ]
    )  # fmt: skip
    return corners, faces


def _bisect_edge(faces: np.ndarray, a: int, b: int, mid: int) -> tuple[np.ndarray, np.ndarray]:
    """Split both triangles that share edge (a, b) at vertex `mid`, keeping their winding.

    Returns the new faces and the third vertex of each split triangle.
    """
    # For each face holding the edge, k is where it starts: directed edge (k, k+1 mod 3).
    rolled = np.roll(faces, -1, axis=1)
    hit = ((faces == a) & (rolled == b)) | ((faces == b) & (rolled == a))
    touched = np.flatnonzero(hit.any(axis=1))
    k = hit[touched].argmax(axis=1)
    u = faces[touched, k]
    v = faces[touched, (k + 1) % 3]
    w = faces[touched, (k + 2) % 3]
    m = np.full_like(u, mid)
    # (u, v, w) -> (u, mid, w) + (mid, v, w): same winding, same plane.
    faces = faces.copy()
    faces[touched] = np.stack([u, m, w], axis=1)
    return np.vstack([faces, np.stack([m, v, w], axis=1)]), w


def _bisect_longest_edges(
    vertices: np.ndarray, faces: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bisect the longest edge `count` times; each split adds one vertex and two triangles.

    Ties (a subdivided cube has many equal edges) go to the lexicographically smallest
    (low index, high index) pair so the result is deterministic.
    """
    if count <= 0:
        return vertices, faces
    points: list[tuple[float, ...]] = [tuple(float(x) for x in v) for v in vertices]
    edges = np.unique(np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1), axis=0)
    scale = max(math.dist(points[i], points[j]) for i, j in edges)

    def entry(i: int, j: int) -> tuple[float, int, int]:
        i, j = min(i, j), max(i, j)
        # Rounded so that equal lengths compare equal despite floating-point noise.
        return (-round(math.dist(points[i], points[j]) / scale, 9), i, j)

    heap = [entry(int(i), int(j)) for i, j in edges]
    heapq.heapify(heap)
    live = {(e[1], e[2]) for e in heap}
    for _ in range(count):
        _, a, b = heapq.heappop(heap)
        while (a, b) not in live:
            _, a, b = heapq.heappop(heap)
        live.discard((a, b))
        mid = len(points)
        points.append(tuple(0.5 * (np.asarray(points[a]) + np.asarray(points[b]))))
        faces, opposite = _bisect_edge(faces, a, b, mid)
        for other in (a, b, *opposite.tolist()):
            new = entry(other, mid)
            live.add((new[1], new[2]))
            heapq.heappush(heap, new)
    return np.array(points, dtype=np.float64), faces


MAX_CUBE_VERTICES = 20_000
"""Largest `cube:N` (the exact-count edge bisection costs O(N^2); 20000 takes about 17 s)."""


def builtin_cube(size_m: float = 0.03, target_vertices: int | None = None) -> ObjectMesh:
    """A closed cube of side `size_m` centred at the origin, with exactly `target_vertices`.

    None or 8 gives the 12-triangle cube. Otherwise 1-to-4 midpoint subdivision (8, 26, 98, 386,
    1538, ... vertices) is applied while the next level stays within the target, then the
    longest edges are bisected one at a time until the count is exact (e.g. 399, 1698).
    """
    if not (isinstance(size_m, int | float) and math.isfinite(size_m) and size_m > 0):
        raise ParameterError(f"cube size must be a finite length > 0 in metres, got {size_m!r}")
    if target_vertices is None:
        target_vertices = 8
    if isinstance(target_vertices, bool) or not isinstance(target_vertices, int | np.integer):
        raise ParameterError(f"cube vertex count must be an integer, got {target_vertices!r}")
    if target_vertices < 8:
        raise ParameterError(f"a cube needs at least 8 vertices, got {target_vertices}")
    if target_vertices > MAX_CUBE_VERTICES:
        raise ParameterError(
            f"cube vertex count {target_vertices} is too large (max {MAX_CUBE_VERTICES}: finer "
            "cubes take minutes to build); export a finer cube as a mesh file instead"
        )

    vertices, faces = _unit_cube(0.5 * float(size_m))
    while True:
        n_edges = 3 * len(faces) // 2
        if len(vertices) + n_edges > target_vertices:
            break
        vertices, faces = trimesh.remesh.subdivide(vertices, faces)
    vertices, faces = _bisect_longest_edges(vertices, faces, target_vertices - len(vertices))
    return ObjectMesh(
        vertices=_frozen(vertices, np.float64),
        faces=_frozen(faces, np.int64),
        name="cube",
        source="builtin:cube",
        sha256=None,
    )


def object_from_spec(
    spec: str, unit: str | None = None, body: str | int | None = None
) -> ObjectMesh:
    """Resolve a CLI object spec: "cube", "cube:N" (N vertices) or a mesh file path.

    The built-in cube is always in metres, so a `unit` other than "m" is rejected for it;
    `body` (see load_object_mesh) is for files only.
    """
    match = _CUBE_SPEC.fullmatch(str(spec).strip())
    if match is None:
        return load_object_mesh(spec, unit, body)
    if parse_body(body) not in (None, 0, "all"):
        raise ParameterError(
            "{0} applies to mesh files; the built-in cube is one body",
            settings=[body_setting(body)],
        )
    scale = _unit_scale(unit)
    if scale not in (None, 1.0):
        raise ParameterError(
            f"unit={unit!r} applies to mesh files only; the built-in cube is defined in metres"
        )
    count = match.group(1)
    if count is None:
        return builtin_cube()
    if not (count.strip().isascii() and count.strip().isdigit()):
        raise ParameterError(
            f"object spec {spec!r}: expected 'cube' or 'cube:N' with N a vertex count (e.g. "
            "cube:399)"
        )
    return builtin_cube(target_vertices=int(count))
