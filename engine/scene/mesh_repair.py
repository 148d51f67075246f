"""Repair what scanned, printed and exported meshes routinely get wrong, and say what changed.

`repair_mesh` takes the triangles a file holds (in metres) and returns one closed,
outward-oriented solid plus a `MeshRepair` report with one line per kind of change, e.g.
"removed 2 detached fragments of 4 faces; merged 12 duplicate vertices". The file itself is
never touched. In order:

1. duplicate vertices (same position within 1e-9 of the size) are merged and unused ones
   dropped; faces that repeat a vertex or another face are dropped; zero-area faces are dropped
   when that opens no edge;
2. the surface is split into pieces along its edges used by exactly two faces, so a sliver
   glued to the body by one non-manifold edge is a piece of its own; a piece that encloses less
   than FRAGMENT_VOLUME_FRACTION of the largest piece's volume (a closed piece: its volume; an
   open one: its convex hull's) is a detached fragment and is removed;
3. what remains are the real bodies. Several real bodies (two parts in one file) are refused
   with a list of them unless `body` chooses one (`body=K`, K = 0 the largest) or keeps them as
   one rigid object (`body="all"`, refused if they overlap or nest: the volume would be wrong);
4. holes whose boundary loop spans at most MAX_HOLE_FRACTION of the body's size are filled by a
   fan around the loop's centroid; larger holes and edges shared by three or more faces cannot
   be repaired safely and are refused with the counts and the fix;
5. the winding is made consistent and outward (positive volume).

Steps 2 and 3 are engine.scene.mesh_bodies; the surface measures all steps share are
engine.scene.mesh_surface.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import trimesh

from engine.errors import MeshError, ParameterError
from engine.scene.mesh_bodies import SeveralBodiesError as SeveralBodiesError  # the app's import
from engine.scene.mesh_bodies import choose_bodies, parse_body
from engine.scene.mesh_surface import (
    consistent_winding,
    is_closed,
    mm,
    plural,
    signed_volume,
    undirected_edges,
)

MAX_HOLE_FRACTION = 0.1
"""Largest hole filled: its boundary loop spans at most this fraction of the body's diagonal."""

_MERGE_TOLERANCE = 1e-9
"""Vertices closer than this fraction of the bounding-box diagonal are one vertex."""


@dataclass(frozen=True)
class MeshRepair:
    """What loading changed in a mesh: one line per kind of change, and the body kept.

    `body` is "" when the file holds one body, "all" when separate bodies are kept as one rigid
    object, "merged N" when N overlapping bodies were merged into one, or "K of N" when body K
    of N was chosen. `bodies` describes the file's bodies when they were merged (largest
    first, "body 0: 36 cm^3, ..."), so a front end can offer one of them instead.
    """

    changes: tuple[str, ...] = ()
    body: str = ""
    bodies: tuple[str, ...] = ()

    @property
    def body_option(self) -> str:
        """The `body` argument that loads the same body again ("" = the file's only body)."""
        return self.body.split(" ")[0]

    @property
    def changed(self) -> bool:
        """Whether the loaded solid differs from the file's triangles."""
        return bool(self.changes)

    def summary(self) -> str:
        """The changes in one line ("" when nothing was changed)."""
        return "; ".join(self.changes)

    def to_dict(self) -> dict[str, object]:
        """Plain data for sessions."""
        data: dict[str, object] = {"changes": list(self.changes), "body": self.body}
        if self.bodies:
            data["bodies"] = list(self.bodies)
        return data

    @classmethod
    def from_dict(cls, data: object) -> MeshRepair:
        """Inverse of `to_dict` (ParameterError for anything else)."""
        if not isinstance(data, dict):
            raise ParameterError(f"a mesh repair record must be an object, got {data!r}")
        changes = data.get("changes", [])
        body = data.get("body", "")
        if not isinstance(changes, list) or not all(isinstance(c, str) for c in changes):
            raise ParameterError("a mesh repair record's 'changes' must be a list of text")
        if not isinstance(body, str):
            raise ParameterError("a mesh repair record's 'body' must be text")
        bodies = data.get("bodies", [])
        if not isinstance(bodies, list) or not all(isinstance(b, str) for b in bodies):
            raise ParameterError("a mesh repair record's 'bodies' must be a list of text")
        return cls(tuple(changes), body, tuple(bodies))


NO_REPAIR = MeshRepair()


def _merge_vertices(
    vertices: np.ndarray, faces: np.ndarray, indexed: bool, changes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    diagonal = float(np.linalg.norm(np.ptp(vertices, axis=0))) or 1.0
    keys = np.round(vertices / (_MERGE_TOLERANCE * diagonal)).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    used = np.unique(faces)
    merged = len(np.unique(inverse[used]))
    duplicates = len(used) - merged
    unused = len(vertices) - len(used)
    faces = inverse[faces]
    # Keep only the vertices the faces use, in first-use order of the merged ids.
    ids, faces_compact = np.unique(faces, return_inverse=True)
    vertices = vertices[first[ids]]
    faces = faces_compact.reshape(-1, 3)
    if duplicates and indexed:  # an STL stores every triangle's corners apart: not a defect
        changes.append(f"merged {plural(duplicates, 'duplicate vertex', 'duplicate vertices')}")
    if unused:
        changes.append(f"dropped {plural(unused, 'unused vertex', 'unused vertices')}")
    return vertices, faces


def _drop_bad_faces(vertices: np.ndarray, faces: np.ndarray, changes: list[str]) -> np.ndarray:
    repeated = (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2])
    repeated |= faces[:, 2] == faces[:, 0]
    faces = faces[~repeated]
    # The same face twice (same orientation: the same cyclic order) is one face.
    start = np.argmin(faces, axis=1)
    cols = (start[:, None] + np.arange(3)[None, :]) % 3
    rolled = np.take_along_axis(faces, cols, axis=1)
    _, keep = np.unique(rolled, axis=0, return_index=True)
    duplicate = len(faces) - len(keep)
    faces = faces[np.sort(keep)]
    # Zero-area faces with distinct corners: dropped only when that opens no edge.
    tri = vertices[faces]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    diagonal = float(np.linalg.norm(np.ptp(vertices, axis=0)))
    flat = area <= (1e-12 * diagonal) ** 2
    dropped_flat = 0
    if flat.any():
        _, _, before = undirected_edges(faces)
        _, _, after = undirected_edges(faces[~flat])
        if np.sum(after == 1) <= np.sum(before == 1):
            faces = faces[~flat]
            dropped_flat = int(flat.sum())
    degenerate = int(repeated.sum()) + dropped_flat
    if degenerate:
        changes.append(f"dropped {plural(degenerate, 'degenerate (zero-area) face')}")
    if duplicate:
        changes.append(f"dropped {plural(duplicate, 'duplicate face')}")
    return faces


def _boundary_loops(faces: np.ndarray) -> list[list[int]] | None:
    """Boundary loops as vertex lists, or None if a vertex has two boundary edges leaving it."""
    corner_edge, _, counts = undirected_edges(faces)
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    boundary = directed[counts[corner_edge] == 1]
    nxt: dict[int, int] = {}
    for u, v in boundary.tolist():
        if u in nxt:
            return None
        nxt[u] = v
    loops = []
    seen: set[int] = set()
    for start in list(nxt):
        if start in seen:
            continue
        loop = [start]
        seen.add(start)
        v = nxt[start]
        while v != start:
            if v in seen or v not in nxt:
                return None
            loop.append(v)
            seen.add(v)
            v = nxt[v]
        loops.append(loop)
    return loops


def _fill_holes(
    vertices: np.ndarray,
    faces: np.ndarray,
    where: str,
    changes: list[str],
    buried: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Close the surface's holes with fans about each loop's centre (said in `changes`): holes
    up to MAX_HOLE_FRACTION of the size, or any size when `buried` (every hole's rim lies inside
    another body, which a union then covers: a handle's open ends sunk into a cup's wall)."""
    _, _, counts = undirected_edges(faces)
    boundary = int(np.sum(counts == 1))
    non_manifold = int(np.sum(counts > 2))
    if non_manifold:
        raise MeshError(
            f"{where} is not watertight ({boundary} boundary edges, {non_manifold} non-manifold "
            "edges shared by three or more faces of the body): which faces belong to the surface "
            "is ambiguous, so it cannot be repaired safely; repair it e.g. in MeshLab (Cleaning: "
            "Repair non-manifold edges) or Blender (3D-Print toolbox)"
        )
    if boundary == 0:
        return vertices, faces
    loops = _boundary_loops(faces)
    diagonal = float(np.linalg.norm(np.ptp(vertices[np.unique(faces)], axis=0)))
    limit = MAX_HOLE_FRACTION * diagonal
    if loops is None:
        raise MeshError(
            f"{where} is not watertight ({boundary} boundary edges, 0 non-manifold edges) and "
            "its holes touch at a vertex, so they cannot be filled safely: the object must be a "
            "closed surface; repair it e.g. in MeshLab or Blender, or with "
            "trimesh.repair.fill_holes"
        )
    spans = [float(np.linalg.norm(np.ptp(vertices[loop], axis=0))) for loop in loops]
    if max(spans) > limit and not buried:
        raise MeshError(
            f"{where} is not watertight ({boundary} boundary edges, 0 non-manifold edges): "
            f"{plural(len(loops), 'hole')}, the largest {mm(max(spans))} across, more than "
            f"{MAX_HOLE_FRACTION:.0%} of the object's {mm(diagonal)} (holes up to {mm(limit)} "
            "are filled on load), too large to fill without guessing the shape. The object must "
            "be a closed surface; repair it e.g. in MeshLab or Blender, or with "
            "trimesh.repair.fill_holes"
        )
    new_vertices = [vertices]
    new_faces = [faces]
    n = len(vertices)
    for loop in loops:
        ring = np.asarray(loop)
        new_vertices.append(vertices[ring].mean(axis=0, keepdims=True))
        # The loop runs along the faces' directed boundary edges u -> v; the filling faces use
        # v -> u, so the winding continues across.
        new_faces.append(np.column_stack([np.roll(ring, -1), ring, np.full(len(ring), n)]))
        n += 1
    changes.append(
        f"filled {plural(len(loops), 'hole')} of {plural(boundary, 'edge')} (up to "
        f"{mm(max(spans))} across)"
    )
    return np.vstack(new_vertices), np.vstack(new_faces)


def _orient(
    vertices: np.ndarray, faces: np.ndarray, changes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    mesh = trimesh.Trimesh(vertices, faces.copy(), process=False)
    before = np.asarray(mesh.faces).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        if not mesh.is_winding_consistent:
            mesh.faces = consistent_winding(before)
        if mesh.body_count > 1:
            trimesh.repair.fix_inversion(mesh, multibody=True)
        elif signed_volume(np.asarray(mesh.vertices), np.asarray(mesh.faces)) < 0:
            mesh.invert()
    after = np.asarray(mesh.faces)
    flipped = int(np.sum(np.any(after != before, axis=1)))
    if flipped == len(before):
        changes.append("turned every face outwards (the mesh was inside-out)")
    elif flipped:
        changes.append(f"flipped {plural(flipped, 'face')} to a consistent outward winding")
    return np.asarray(mesh.vertices), after


def repair_mesh(
    vertices: np.ndarray,
    faces: np.ndarray,
    *,
    where: str,
    body: str | int | None = None,
    indexed: bool = True,
) -> tuple[np.ndarray, np.ndarray, MeshRepair]:
    """One closed, outward solid from a file's triangles (metres), and what was changed.

    `where` names the file in messages; `body` chooses among several real bodies (None: refuse
    them, "all": one rigid object, K: body K, largest first); `indexed` is False for formats
    that store every triangle's corners apart (STL), whose merged vertices are not reported.
    Raises MeshError with the reason and the fix for what cannot be repaired safely.
    """
    choice = parse_body(body)
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces, dtype=np.int64)
    if f.ndim != 2 or f.shape[1] != 3 or len(f) == 0:
        raise MeshError(
            f"{where} contains no triangles; is it a mesh file (OBJ, STL, PLY, OFF, GLB)?"
        )
    if f.min() < 0 or f.max() >= len(v):
        raise MeshError(f"{where} has faces that index missing vertices: the file is damaged")
    changes: list[str] = []
    listed: list[str] = []
    v, f = _merge_vertices(v, f, indexed, changes)
    f = _drop_bad_faces(v, f, changes)
    if len(f) == 0:
        raise MeshError(f"{where} has only degenerate (zero-area) faces: export a solid object")
    v, f, chosen = choose_bodies(
        v,
        f,
        choice,
        where,
        changes,
        close=lambda v, f, buried: _fill_holes(v, f, where, changes, buried),
        listed=listed,
    )
    # Compact to the kept faces' vertices.
    ids, compact = np.unique(f, return_inverse=True)
    v, f = v[ids], compact.reshape(-1, 3)
    v, f = _fill_holes(v, f, where, changes)
    v, f = _orient(v, f, changes)
    volume = signed_volume(v, f)
    diagonal = float(np.linalg.norm(np.ptp(v, axis=0)))
    if not (math.isfinite(volume) and volume > 1e-9 * diagonal**3) or not is_closed(f):
        raise MeshError(
            f"{where} encloses zero or negative volume ({volume:.3g} m^3) even after fixing the "
            "face orientation: it is flat or inside-out; export a solid, closed object"
        )
    return v, f, MeshRepair(tuple(changes), chosen, tuple(listed))
