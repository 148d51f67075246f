"""Object meshes: load a closed triangle mesh from a file, or build the built-in cube.

Every mesh that leaves this module is watertight, outward-oriented, has positive volume and is
in metres, so the simulator never has to check again.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from engine.errors import MeshError, ParameterError

BUILTIN_CUBE_MASS_KG = 0.003
"""Mass of the built-in cube: the 3 cm, 3 g cube of the reference benchmark."""

SUPPORTED_EXTENSIONS = (".obj", ".stl", ".ply", ".off", ".glb")
UNIT_SCALE_M = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}
"""Metres per file unit, for the `unit` argument."""

# Plausible size of a graspable object: bounding-box diagonal in metres.
MIN_DIAGONAL_M = 0.002
MAX_DIAGONAL_M = 1.5
# A file in millimetres of an object between 5 mm and 1.5 m reads as 5 m .. 1500 m.
_MM_PLAUSIBLE_M = (0.005, 1.5)

_CUBE_SPEC = re.compile(r"cube(?::(.*))?")


@dataclass(frozen=True, eq=False)
class ObjectMesh:
    """A closed, outward-oriented triangle mesh in metres (arrays are read-only)."""

    vertices: np.ndarray  # (n, 3) float64, metres, in the file's own frame
    faces: np.ndarray  # (m, 3) int64, consistently outward-oriented
    name: str  # file stem or "cube"
    source: str  # absolute path or "builtin:cube"
    sha256: str | None  # hex sha256 of the file bytes (None for built-ins)

    def to_trimesh(self) -> trimesh.Trimesh:
        """A trimesh copy (process=False keeps vertex and face order)."""
        return trimesh.Trimesh(
            vertices=np.array(self.vertices), faces=np.array(self.faces), process=False
        )


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


def _check_size(diagonal_m: float, where: str, unit: str | None) -> None:
    """Raise MeshError unless the bounding-box diagonal is a plausible graspable size."""
    if MIN_DIAGONAL_M <= diagonal_m <= MAX_DIAGONAL_M:
        return
    size = f"{where} is {diagonal_m:.4g} m across (bounding-box diagonal)"
    if unit is not None:
        raise MeshError(
            f"{size} after applying unit={unit!r}; expected {MIN_DIAGONAL_M * 1000:g} mm to "
            f"{MAX_DIAGONAL_M:g} m: check that the unit matches the file"
        )
    if diagonal_m > MAX_DIAGONAL_M:
        lo, hi = _MM_PLAUSIBLE_M
        if lo <= diagonal_m / 1000.0 <= hi:
            raise MeshError(
                f"{size}, which looks like millimetres: pass unit='mm' (CLI: --unit mm)"
            )
        raise MeshError(
            f"{size}, too large for a graspable object: pass the file's unit "
            "(unit='mm', 'cm', 'in' or 'm'; CLI: --unit) or rescale the mesh"
        )
    raise MeshError(
        f"{size}, too small for a graspable object: maybe metres were exported as km; "
        "pass the file's unit (unit='m', 'cm', 'mm' or 'in'; CLI: --unit) or rescale the mesh"
    )


def _edge_use_counts(faces: np.ndarray) -> np.ndarray:
    """How many faces use each distinct undirected edge."""
    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    return counts


def _is_closed_manifold(faces: np.ndarray) -> bool:
    return len(faces) > 0 and bool(np.all(_edge_use_counts(faces) == 2))


def _drop_degenerate_faces(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """Remove zero-area faces, but only if the mesh stays watertight without them."""
    faces = mesh.faces
    repeated = (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2])
    repeated |= faces[:, 2] == faces[:, 0]
    scale = float(np.linalg.norm(mesh.extents))
    tiny_area = mesh.area_faces <= (1e-12 * scale) ** 2
    degenerate = repeated | tiny_area
    if not degenerate.any():
        return mesh
    kept = faces[~degenerate]
    if not _is_closed_manifold(kept):
        return mesh  # keep them; the watertight check decides
    cleaned = trimesh.Trimesh(vertices=mesh.vertices, faces=kept, process=False)
    cleaned.remove_unreferenced_vertices()
    return cleaned


MAX_BODIES = 1000
"""Most separate closed surfaces a mesh may consist of."""


def _check_one_body(mesh: trimesh.Trimesh, path: Path) -> None:
    """Refuse overlapping bodies and inner shells (MeshError with the counts and the fix).

    Separate bodies that do not touch are one rigid object whose volume and mass are the sums
    (a GLB scene of parts). Overlapping bodies would count the overlap twice (two overlapping
    3 cm cubes read as 54 cm^3 instead of 46) and an inner shell (a cavity or a nested part)
    adds its volume instead of removing it (a cube with a 1 cm shell inside: 28 cm^3, not 26).
    """
    labels = trimesh.graph.connected_component_labels(
        mesh.face_adjacency, node_count=len(mesh.faces)
    )
    count = int(labels.max()) + 1 if len(labels) else 0
    if count <= 1:
        return
    if count > MAX_BODIES:
        raise MeshError(
            f"{path} is made of {count} separate closed surfaces (at most {MAX_BODIES}): merge "
            "them into one solid (a boolean union) or export only the part to grasp"
        )
    parts = [
        trimesh.Trimesh(mesh.vertices, mesh.faces[labels == k], process=False) for k in range(count)
    ]
    for part in parts:
        part.remove_unreferenced_vertices()
        with np.errstate(divide="ignore", invalid="ignore"):
            if part.volume < 0:
                part.invert()  # orientation of a cavity shell: contains() wants outward normals
    nested = overlapping = 0
    for k, part in enumerate(parts):
        lo, hi = part.bounds
        for j, other in enumerate(parts):
            if j == k:
                continue
            olo, ohi = other.bounds
            if np.any(hi < olo) or np.any(ohi < lo):
                continue  # bounding boxes apart: cannot touch
            # Vertices and face centres (coplanar overlaps put vertices on the other's faces).
            corners = part.vertices[:: max(1, len(part.vertices) // 200)]
            centres = part.triangles_center[:: max(1, len(part.faces) // 200)]
            inside = other.contains(np.vstack([corners, centres]))
            if inside.all():
                nested += 1
                break
            if inside.any():
                overlapping += 1
                break
    if not nested and not overlapping:
        return
    what = []
    if overlapping:
        what.append(f"{overlapping} overlap another")
    if nested:
        what.append(f"{nested} inside another (an inner shell or nested part)")
    raise MeshError(
        f"{path} is made of {count} separate closed surfaces, {' and '.join(what)}: its volume "
        "and mass would be wrong (overlaps counted twice, inner shells added). Merge the "
        "bodies into one solid with a boolean union (e.g. Blender's Boolean modifier or "
        "MeshLab), delete inner shells, or export only the part to grasp"
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


def load_object_mesh(path: str | os.PathLike, unit: str | None = None) -> ObjectMesh:
    """Load a closed object mesh from OBJ/STL/PLY/OFF/GLB and convert it to metres.

    `unit` is the file's length unit ("m", "cm", "mm", "in"); without it the file is assumed to
    be in metres and a size outside 2 mm .. 1.5 m is rejected with a hint. Raises MeshError for
    files that cannot be used as a rigid object and ParameterError for an unknown unit.
    """
    scale = _unit_scale(unit)
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
        data = path.read_bytes()
    except OSError as exc:
        raise MeshError(f"cannot read {path} ({exc.strerror}): check its permissions") from exc
    mesh = _read_trimesh(path, data)

    if not np.all(np.isfinite(mesh.vertices)):
        raise MeshError(f"{path} has NaN or infinite vertex coordinates: repair or re-export it")
    if scale is not None:
        mesh.apply_scale(scale)
    _check_size(float(np.linalg.norm(mesh.extents)), str(path), unit)

    mesh = _drop_degenerate_faces(mesh)
    counts = _edge_use_counts(mesh.faces)
    boundary = int(np.sum(counts == 1))
    non_manifold = int(np.sum(counts > 2))
    if boundary or non_manifold:
        raise MeshError(
            f"{path} is not watertight ({boundary} boundary edges, {non_manifold} non-manifold "
            "edges): the object must be a closed surface; repair it e.g. in MeshLab or Blender, "
            "or with trimesh.repair.fill_holes"
        )

    _check_one_body(mesh, path)

    # Inverted or mixed normals give a negative or wrong volume: try to fix the orientation.
    # A flat mesh has zero volume and trimesh then divides by it for the centre of mass.
    with np.errstate(divide="ignore", invalid="ignore"):
        if not mesh.is_winding_consistent or mesh.volume <= 0:
            trimesh.repair.fix_normals(mesh)
        volume = float(mesh.volume)
    diagonal = float(np.linalg.norm(mesh.extents))
    if not mesh.is_winding_consistent or not volume > 1e-9 * diagonal**3:
        raise MeshError(
            f"{path} encloses zero or negative volume ({volume:.3g} m^3) even after fixing the "
            "face orientation: it is flat or inside-out; export a solid, closed object"
        )
    return ObjectMesh(
        vertices=_frozen(mesh.vertices, np.float64),
        faces=_frozen(mesh.faces, np.int64),
        name=path.stem,
        source=str(path),
        sha256=hashlib.sha256(data).hexdigest(),
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


def object_from_spec(spec: str, unit: str | None = None) -> ObjectMesh:
    """Resolve a CLI object spec: "cube", "cube:N" (N vertices) or a mesh file path.

    The built-in cube is always in metres, so a `unit` other than "m" is rejected for it.
    """
    match = _CUBE_SPEC.fullmatch(str(spec).strip())
    if match is None:
        return load_object_mesh(spec, unit)
    scale = _unit_scale(unit)
    if scale not in (None, 1.0):
        raise ParameterError(
            f"unit={unit!r} applies to mesh files only; the built-in cube is defined in metres"
        )
    count = match.group(1)
    if count is None:
        return builtin_cube()
    if not count.strip().isdigit():
        raise ParameterError(
            f"object spec {spec!r}: expected 'cube' or 'cube:N' with N a vertex count (e.g. "
            "cube:399)"
        )
    return builtin_cube(target_vertices=int(count))
