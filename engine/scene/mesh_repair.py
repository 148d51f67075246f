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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import trimesh
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import ConvexHull, QhullError

from engine.errors import MeshError, ParameterError, Setting, literal
from engine.scene.scene_settings import body_setting

FRAGMENT_VOLUME_FRACTION = 0.01
"""A detached piece enclosing less than this fraction of the largest piece's volume is removed."""

MAX_HOLE_FRACTION = 0.1
"""Largest hole filled: its boundary loop spans at most this fraction of the body's diagonal."""

MAX_PIECES = 10_000
"""Most separate pieces a mesh may consist of (fragments included)."""

MAX_BODIES = 1000
"""Most real bodies kept together with body="all"."""

MAX_LISTED_BODIES = 50
"""Most bodies described one by one for a chooser (SeveralBodiesError.bodies)."""

_MERGE_TOLERANCE = 1e-9
"""Vertices closer than this fraction of the bounding-box diagonal are one vertex."""


@dataclass(frozen=True)
class MeshRepair:
    """What loading changed in a mesh: one line per kind of change, and the body kept.

    `body` is "" when the file holds one body, "all" when separate bodies are kept as one rigid
    object, or "K of N" when body K of N was chosen.
    """

    changes: tuple[str, ...] = ()
    body: str = ""

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
        return {"changes": list(self.changes), "body": self.body}

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
        return cls(tuple(changes), body)


NO_REPAIR = MeshRepair()


class SeveralBodiesError(MeshError):
    """A file holds several real bodies and none was chosen; `bodies` describes each (largest
    first: "body 0: 36 cm^3, 12 faces, 40 x 30 x 30 mm at (0, 0, 0) mm")."""

    def __init__(
        self, message: str, bodies: tuple[str, ...], *, settings: Sequence[Setting] = ()
    ) -> None:
        super().__init__(message, settings=settings)
        self.bodies = bodies


def parse_body(body: str | int | None) -> int | str | None:
    """`body` as None (refuse several bodies), "all" or a body index >= 0."""
    if body is None:
        return None
    if isinstance(body, bool):
        raise ParameterError(
            f"{{0}} must be a body number or 'all', got {literal(repr(body))}",
            settings=[body_setting()],
        )
    if isinstance(body, int | np.integer):
        value = int(body)
    else:
        text = str(body).strip().lower()
        if text == "":
            return None
        if text == "all":
            return "all"
        if not text.isdigit():
            raise ParameterError(
                f"{{0}} must be a body number (0 = the largest) or 'all', got {literal(repr(body))}",
                settings=[body_setting()],
            )
        value = int(text)
    if value < 0:
        raise ParameterError(
            f"{{0}} must be a body number >= 0 (0 = the largest), got {value}",
            settings=[body_setting()],
        )
    return value


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _mm(length_m: float) -> str:
    return f"{length_m * 1e3:.3g} mm"


def _cm3(volume_m3: float) -> str:
    return f"{volume_m3 * 1e6:.3g} cm^3"


def _signed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    tri = vertices[faces]
    return float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0)


def _undirected_edges(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face corner edge (3 per face): its unique-edge index, plus the unique edges and their
    use counts."""
    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    unique, inverse, counts = np.unique(edges, axis=0, return_inverse=True, return_counts=True)
    return inverse.reshape(-1), unique, counts


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
        changes.append(f"merged {_plural(duplicates, 'duplicate vertex', 'duplicate vertices')}")
    if unused:
        changes.append(f"dropped {_plural(unused, 'unused vertex', 'unused vertices')}")
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
        _, _, before = _undirected_edges(faces)
        _, _, after = _undirected_edges(faces[~flat])
        if np.sum(after == 1) <= np.sum(before == 1):
            faces = faces[~flat]
            dropped_flat = int(flat.sum())
    degenerate = int(repeated.sum()) + dropped_flat
    if degenerate:
        changes.append(f"dropped {_plural(degenerate, 'degenerate (zero-area) face')}")
    if duplicate:
        changes.append(f"dropped {_plural(duplicate, 'duplicate face')}")
    return faces


def _pieces(faces: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected pieces of the surface through edges used by exactly two faces."""
    corner_edge, _, counts = _undirected_edges(faces)
    face_of = np.repeat(np.arange(len(faces)), 3)
    manifold = counts[corner_edge] == 2
    order = np.argsort(corner_edge[manifold], kind="stable")
    pairs = face_of[manifold][order].reshape(-1, 2)
    n = len(faces)
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    return int(count), labels


def _is_closed(faces: np.ndarray) -> bool:
    _, _, counts = _undirected_edges(faces)
    return len(faces) > 0 and bool(np.all(counts == 2))


def _enclosed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """A closed piece's volume; an open piece's convex hull volume (0 if flat)."""
    if _is_closed(faces):
        mesh = trimesh.Trimesh(vertices, faces, process=False)
        if not mesh.is_winding_consistent:
            trimesh.repair.fix_winding(mesh)
        return abs(_signed_volume(np.asarray(mesh.vertices), np.asarray(mesh.faces)))
    points = vertices[np.unique(faces)]
    if len(points) < 4:
        return 0.0
    try:
        return float(ConvexHull(points).volume)
    except (QhullError, ValueError):
        return 0.0


@dataclass(frozen=True)
class _Body:
    faces: np.ndarray  # into the shared vertex array
    volume_m3: float
    closed: bool


def _check_bodies_apart(vertices: np.ndarray, bodies: list[_Body], where: str) -> None:
    """Refuse overlapping and nested bodies (MeshError with the counts and the fix).

    Overlapping bodies would count the overlap twice (two overlapping 3 cm cubes read as
    54 cm^3 instead of 46) and an inner shell (a cavity or a nested part) adds its volume
    instead of removing it (a cube with a 1 cm shell inside: 28 cm^3, not 26).
    """
    parts = []
    for b in bodies:
        part = trimesh.Trimesh(vertices, b.faces, process=False)
        part.remove_unreferenced_vertices()
        if b.closed:
            trimesh.repair.fix_winding(part)
            if _signed_volume(np.asarray(part.vertices), np.asarray(part.faces)) < 0:
                part.invert()  # contains() wants outward normals
        parts.append(part)
    nested = overlapping = 0
    for k, part in enumerate(parts):
        lo, hi = part.bounds
        for j, other in enumerate(parts):
            if j == k or not bodies[j].closed:
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
        f"{literal(where)} is made of {len(bodies)} separate closed surfaces, "
        f"{' and '.join(what)}: its volume and mass would be wrong (overlaps counted twice, "
        "inner shells added). Merge the bodies into one solid with a boolean union (e.g. "
        "Blender's Boolean modifier or MeshLab), delete inner shells, or choose one body ({0})",
        settings=[body_setting("K")],
    )


def _describe_bodies(vertices: np.ndarray, bodies: list[_Body], limit: int = 6) -> str:
    return "; ".join(_body_lines(vertices, bodies, limit))


def _body_lines(vertices: np.ndarray, bodies: list[_Body], limit: int) -> list[str]:
    out = []
    for k, b in enumerate(bodies[:limit]):
        pts = vertices[np.unique(b.faces)]
        centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0)) * 1e3
        size = np.ptp(pts, axis=0) * 1e3
        out.append(
            f"body {k}: {_cm3(b.volume_m3)}, {_plural(len(b.faces), 'face')}, "
            f"{size[0]:.0f} x {size[1]:.0f} x {size[2]:.0f} mm at "
            f"({centre[0]:.0f}, {centre[1]:.0f}, {centre[2]:.0f}) mm"
        )
    if len(bodies) > limit:
        out.append(f"and {len(bodies) - limit} more")
    return out


def _choose_bodies(
    vertices: np.ndarray,
    faces: np.ndarray,
    body: int | str | None,
    where: str,
    changes: list[str],
) -> tuple[np.ndarray, str]:
    count, labels = _pieces(faces)
    if count > MAX_PIECES:
        raise MeshError(
            f"{where} is made of {count} separate pieces (at most {MAX_PIECES}): export only the "
            "part to grasp, or merge its pieces into one solid (a boolean union)"
        )
    order = np.argsort(labels, kind="stable")
    splits = np.cumsum(np.bincount(labels, minlength=count))[:-1]
    groups = np.split(order, splits)
    pieces = [
        _Body(faces[g], _enclosed_volume(vertices, faces[g]), _is_closed(faces[g])) for g in groups
    ]
    largest = max(p.volume_m3 for p in pieces)
    if not largest > 0:
        # Nothing encloses volume: leave it to the final volume check.
        return faces, ""
    threshold = FRAGMENT_VOLUME_FRACTION * largest
    fragments = [p for p in pieces if p.volume_m3 < threshold]
    # Largest first; equal volumes (to 6 digits) by the position of their lowest corner.
    bodies = sorted(
        (p for p in pieces if p.volume_m3 >= threshold),
        key=lambda p: (
            -float(f"{p.volume_m3:.6g}"),
            *vertices[np.unique(p.faces)].min(axis=0).round(9).tolist(),
        ),
    )
    if fragments:
        n_faces = sum(len(p.faces) for p in fragments)
        extent = max(
            float(np.linalg.norm(np.ptp(vertices[np.unique(p.faces)], axis=0))) for p in fragments
        )
        changes.append(
            f"removed {_plural(len(fragments), 'detached fragment')} of "
            f"{_plural(n_faces, 'face')} (each encloses less than "
            f"{FRAGMENT_VOLUME_FRACTION:.0%} of the main body's volume; the largest is "
            f"{_mm(extent)} across)"
        )
    chosen = ""
    if len(bodies) > 1:
        if body is None:
            _check_bodies_apart(vertices, bodies, where)
            raise SeveralBodiesError(
                f"{literal(where)} holds {len(bodies)} separate bodies "
                f"({literal(_describe_bodies(vertices, bodies))}): they would be simulated as one "
                "rigid object although nothing joins them. Choose the body to grasp ({0}), or keep "
                "them as one rigid object ({1})",
                tuple(_body_lines(vertices, bodies, MAX_LISTED_BODIES)),
                settings=[
                    body_setting("K", f"0 to {len(bodies) - 1}, largest first"),
                    body_setting("all"),
                ],
            )
        if body == "all":
            if len(bodies) > MAX_BODIES:
                raise MeshError(
                    f"{literal(where)} holds {len(bodies)} separate bodies (at most {MAX_BODIES} "
                    "with {0}): merge them into one solid or export only the part to grasp",
                    settings=[body_setting("all")],
                )
            _check_bodies_apart(vertices, bodies, where)
            chosen = "all"
            changes.append(f"kept all {len(bodies)} bodies as one rigid object (--body all)")
        else:
            assert isinstance(body, int)
            if body >= len(bodies):
                raise MeshError(
                    f"{{0}} is out of range: {literal(where)} holds {len(bodies)} bodies "
                    f"({literal(_describe_bodies(vertices, bodies))}); choose 0 to {len(bodies) - 1}",
                    settings=[body_setting(body)],
                )
            chosen = f"{body} of {len(bodies)}"
            changes.append(
                f"kept body {body} of {len(bodies)} ({_cm3(bodies[body].volume_m3)}; --body "
                f"{body}), dropped the others"
            )
            bodies = [bodies[body]]
    elif isinstance(body, int) and body > 0:
        raise MeshError(
            f"{{0}} is out of range: {literal(where)} holds one body ({{1}}, or leave it out)",
            settings=[body_setting(body), body_setting(0)],
        )
    return np.vstack([b.faces for b in bodies]), chosen


def _boundary_loops(faces: np.ndarray) -> list[list[int]] | None:
    """Boundary loops as vertex lists, or None if a vertex has two boundary edges leaving it."""
    corner_edge, _, counts = _undirected_edges(faces)
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
    vertices: np.ndarray, faces: np.ndarray, where: str, changes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    _, _, counts = _undirected_edges(faces)
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
    if max(spans) > limit:
        raise MeshError(
            f"{where} is not watertight ({boundary} boundary edges, 0 non-manifold edges): "
            f"{_plural(len(loops), 'hole')}, the largest {_mm(max(spans))} across, more than "
            f"{MAX_HOLE_FRACTION:.0%} of the object's {_mm(diagonal)} (holes up to {_mm(limit)} "
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
        f"filled {_plural(len(loops), 'hole')} of {_plural(boundary, 'edge')} (up to "
        f"{_mm(max(spans))} across)"
    )
    return np.vstack(new_vertices), np.vstack(new_faces)


def _orient(
    vertices: np.ndarray, faces: np.ndarray, changes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    mesh = trimesh.Trimesh(vertices, faces.copy(), process=False)
    before = np.asarray(mesh.faces).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        if not mesh.is_winding_consistent:
            trimesh.repair.fix_winding(mesh)
        if mesh.body_count > 1:
            trimesh.repair.fix_inversion(mesh, multibody=True)
        elif _signed_volume(np.asarray(mesh.vertices), np.asarray(mesh.faces)) < 0:
            mesh.invert()
    after = np.asarray(mesh.faces)
    flipped = int(np.sum(np.any(after != before, axis=1)))
    if flipped == len(before):
        changes.append("turned every face outwards (the mesh was inside-out)")
    elif flipped:
        changes.append(f"flipped {_plural(flipped, 'face')} to a consistent outward winding")
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
    v, f = _merge_vertices(v, f, indexed, changes)
    f = _drop_bad_faces(v, f, changes)
    if len(f) == 0:
        raise MeshError(f"{where} has only degenerate (zero-area) faces: export a solid object")
    f, chosen = _choose_bodies(v, f, choice, where, changes)
    # Compact to the kept faces' vertices.
    ids, compact = np.unique(f, return_inverse=True)
    v, f = v[ids], compact.reshape(-1, 3)
    v, f = _fill_holes(v, f, where, changes)
    v, f = _orient(v, f, changes)
    volume = _signed_volume(v, f)
    diagonal = float(np.linalg.norm(np.ptp(v, axis=0)))
    if not (math.isfinite(volume) and volume > 1e-9 * diagonal**3) or not _is_closed(f):
        raise MeshError(
            f"{where} encloses zero or negative volume ({volume:.3g} m^3) even after fixing the "
            "face orientation: it is flat or inside-out; export a solid, closed object"
        )
    return v, f, MeshRepair(tuple(changes), chosen)
