"""Which bodies of a mesh are kept: its surface split into pieces along manifold edges, detached
fragments removed, and several real bodies refused unless one is chosen (`body=K`) or all are
kept as one rigid object (`body="all"`, refused if they overlap or nest)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import trimesh
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from engine.errors import MeshError, ParameterError, Setting, literal
from engine.scene.mesh_rays import points_inside
from engine.scene.mesh_surface import (
    cm3,
    enclosed_volume,
    is_closed,
    mm,
    plural,
    signed_volume,
    undirected_edges,
)
from engine.scene.scene_settings import body_setting

FRAGMENT_VOLUME_FRACTION = 0.01
"""A detached piece enclosing less than this fraction of the largest piece's volume is removed."""

MAX_PIECES = 10_000
"""Most separate pieces a mesh may consist of (fragments included)."""

MAX_BODIES = 1000
"""Most real bodies kept together with body="all"."""

MAX_LISTED_BODIES = 50
"""Most bodies described one by one for a chooser (SeveralBodiesError.bodies)."""


Closer = Callable[[np.ndarray, np.ndarray, bool], tuple[np.ndarray, np.ndarray]]
"""Fills a body's holes: (vertices, the body's faces, whether every rim lies inside another
body) -> (vertices, its closed faces)."""


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
        if not (text.isascii() and text.isdigit()):
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


def _pieces(faces: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected pieces of the surface through edges used by exactly two faces."""
    corner_edge, _, counts = undirected_edges(faces)
    face_of = np.repeat(np.arange(len(faces)), 3)
    manifold = counts[corner_edge] == 2
    order = np.argsort(corner_edge[manifold], kind="stable")
    pairs = face_of[manifold][order].reshape(-1, 2)
    n = len(faces)
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    return int(count), labels


@dataclass(frozen=True)
class _Body:
    faces: np.ndarray  # into the shared vertex array
    volume_m3: float
    closed: bool


def _overlaps(vertices: np.ndarray, bodies: list[_Body]) -> tuple[int, int]:
    """(bodies inside another, bodies overlapping another): an inside-test of each body's
    vertices and face centres against every other closed body whose box meets its box."""
    parts = []
    for b in bodies:
        part = trimesh.Trimesh(vertices, b.faces, process=False)
        part.remove_unreferenced_vertices()
        parts.append(part)  # the inside test counts crossings: no winding needed
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
            inside = points_inside(np.vstack([corners, centres]), other.vertices, other.faces)
            if inside.all():
                nested += 1
                break
            if inside.any():
                overlapping += 1
                break
    return nested, overlapping


def _rims_inside_others(vertices: np.ndarray, bodies: list[_Body], k: int) -> bool:
    """Whether every boundary (hole rim) vertex of body k lies inside another closed body."""
    _, edges, counts = undirected_edges(bodies[k].faces)
    rims = np.unique(edges[counts == 1])
    if not len(rims):
        return False
    inside = np.zeros(len(rims), dtype=bool)
    for j, other in enumerate(bodies):
        if j != k and other.closed:
            inside |= points_inside(vertices[rims], vertices, other.faces)
    return bool(inside.all())


def _refuse_overlaps(bodies: list[_Body], nested: int, overlapping: int, where: str) -> None:
    """MeshError for nested bodies (an inner shell's volume would be added, not removed: a cube
    with a 1 cm shell inside read 28 cm^3, not 26), and for overlapping bodies that cannot be
    merged (not closed)."""
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


TOUCH_FRACTION = 1e-4
"""Solids closer than this share of the object's size touch: a convex decomposition's pieces
share faces, which a union leaves as separate solids (pybullet's teddy: 15 pieces, 4 solids
1e-6 to 1e-5 of its size apart)."""

MAX_TOUCH_FACES = 200_000
"""Most faces whose solids are tested for touching (the test builds a search tree of each)."""


def _touching(solids: list[trimesh.Trimesh]) -> bool:
    """Whether the solids form one group, each touching another within TOUCH_FRACTION of their
    overall size."""
    if sum(len(s.faces) for s in solids) > MAX_TOUCH_FACES:
        return False
    lo = np.min([s.bounds[0] for s in solids], axis=0)
    hi = np.max([s.bounds[1] for s in solids], axis=0)
    tol = TOUCH_FRACTION * float(np.linalg.norm(hi - lo))
    group = list(range(len(solids)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, a in enumerate(solids):
        for j in range(i + 1, len(solids)):
            b = solids[j]
            if np.any(a.bounds[1] + tol < b.bounds[0]) or np.any(b.bounds[1] + tol < a.bounds[0]):
                continue
            small, large = (a, b) if len(a.vertices) <= len(b.vertices) else (b, a)
            _, distance, _ = trimesh.proximity.closest_point(large, small.vertices)
            if float(distance.min()) <= tol:
                group[root(j)] = root(i)
    return len({root(i) for i in range(len(solids))}) == 1


def _union(vertices: np.ndarray, bodies: list[_Body]) -> trimesh.Trimesh:
    """The boolean union of closed bodies (manifold3d through trimesh), each oriented outward
    first: overlapping bodies of one object (a CAD cup and its handle, a convex decomposition's
    pieces) become one solid whose volume counts the overlap once."""
    parts = []
    for b in bodies:
        faces = b.faces if signed_volume(vertices, b.faces) >= 0 else b.faces[:, ::-1]
        part = trimesh.Trimesh(vertices, faces, process=False)
        part.remove_unreferenced_vertices()
        parts.append(part)
    return trimesh.boolean.union(parts, engine="manifold", check_volume=False)


def _describe_bodies(vertices: np.ndarray, bodies: list[_Body], limit: int = 6) -> str:
    return "; ".join(_body_lines(vertices, bodies, limit))


def _body_lines(vertices: np.ndarray, bodies: list[_Body], limit: int) -> list[str]:
    out = []
    for k, b in enumerate(bodies[:limit]):
        pts = vertices[np.unique(b.faces)]
        centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0)) * 1e3
        size = np.ptp(pts, axis=0) * 1e3
        out.append(
            f"body {k}: {cm3(b.volume_m3)}, {plural(len(b.faces), 'face')}, "
            f"{size[0]:.0f} x {size[1]:.0f} x {size[2]:.0f} mm at "
            f"({centre[0]:.0f}, {centre[1]:.0f}, {centre[2]:.0f}) mm"
        )
    if len(bodies) > limit:
        out.append(f"and {len(bodies) - limit} more")
    return out


def choose_bodies(
    vertices: np.ndarray,
    faces: np.ndarray,
    body: int | str | None,
    where: str,
    changes: list[str],
    close: Closer | None = None,
    listed: list[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, str]:
    """The vertices and faces of the bodies kept, and which were kept ("", "all", "K of N" or
    "merged N"); each change (fragments removed, bodies merged, a body chosen) is added to
    `changes`. `close(vertices, faces)` fills an open body's holes (returning the vertices with
    any added and the body's closed faces) before a union needs it closed. When bodies are
    merged, `listed` gets their descriptions (what `body` K would choose instead)."""
    pieces = _split(vertices, faces, where)
    largest = max(p.volume_m3 for p in pieces)
    if not largest > 0:
        # Nothing encloses volume: leave it to the final volume check.
        return vertices, faces, ""
    bodies = _without_fragments(vertices, pieces, largest, changes)
    if len(bodies) > 1 and not isinstance(body, int):
        lines = _body_lines(vertices, bodies, MAX_LISTED_BODIES)
        merged = _merged(vertices, bodies, body, where, changes, close)
        if merged is not None:
            if listed is not None:
                listed[:] = lines
            return merged
    chosen = ""
    if len(bodies) > 1:
        bodies, chosen = _chosen(vertices, bodies, body, where, changes)
    elif isinstance(body, int) and body > 0:
        raise MeshError(
            f"{{0}} is out of range: {literal(where)} holds one body ({{1}}, or leave it out)",
            settings=[body_setting(body), body_setting(0)],
        )
    return vertices, np.vstack([b.faces for b in bodies]), chosen


def _merged(
    vertices: np.ndarray,
    bodies: list[_Body],
    body: str | None,
    where: str,
    changes: list[str],
    close: Closer | None,
) -> tuple[np.ndarray, np.ndarray, str] | None:
    """Several bodies of which some overlap, merged by a boolean union when the union is one
    solid (no body chosen) or all are kept ("all"); None when nothing overlaps or the union
    leaves separate solids and none was chosen (then the caller lists the bodies). Nested
    bodies, and overlapping ones that are not closed, are refused."""
    nested, overlapping = _overlaps(vertices, bodies)
    if nested or (overlapping and close is None and not all(b.closed for b in bodies)):
        _refuse_overlaps(bodies, nested, overlapping, where)
    if not overlapping:
        return None
    if close is not None:
        for k, b in enumerate(bodies):
            if not b.closed:  # an open body's holes filled first (the repair's own rule)
                buried = _rims_inside_others(vertices, bodies, k)
                vertices, faces = close(vertices, b.faces, buried)
                bodies[k] = _Body(faces, enclosed_volume(vertices, faces), True)
    union = _union(vertices, bodies)
    solids = union.split(only_watertight=False)
    joined = len(solids) == 1 or _touching(solids)
    if not joined and body != "all":
        return None
    summed = sum(b.volume_m3 for b in bodies)
    if len(solids) == 1:
        into = "one solid"
    elif joined:
        into = f"{len(solids)} solids that touch, kept as one rigid object"
    else:
        into = f"{len(solids)} solids kept as one rigid object"
    changes.append(
        f"merged {len(bodies)} overlapping bodies into {into} by a boolean union "
        f"({cm3(float(union.volume))}; their volumes summed to {cm3(summed)})"
    )
    chosen = f"merged {len(bodies)}" if body is None else "all"
    return np.asarray(union.vertices, dtype=np.float64), np.asarray(union.faces), chosen


def _split(vertices: np.ndarray, faces: np.ndarray, where: str) -> list[_Body]:
    """The surface's pieces (at most MAX_PIECES) with their enclosed volumes."""
    count, labels = _pieces(faces)
    if count > MAX_PIECES:
        raise MeshError(
            f"{where} is made of {count} separate pieces (at most {MAX_PIECES}): export only the "
            "part to grasp, or merge its pieces into one solid (a boolean union)"
        )
    order = np.argsort(labels, kind="stable")
    splits = np.cumsum(np.bincount(labels, minlength=count))[:-1]
    groups = np.split(order, splits)
    return [
        _Body(faces[g], enclosed_volume(vertices, faces[g]), is_closed(faces[g])) for g in groups
    ]


def _without_fragments(
    vertices: np.ndarray, pieces: list[_Body], largest: float, changes: list[str]
) -> list[_Body]:
    """The real bodies, largest first, with the detached fragments removed (and said)."""
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
            f"removed {plural(len(fragments), 'detached fragment')} of "
            f"{plural(n_faces, 'face')} (each encloses less than "
            f"{FRAGMENT_VOLUME_FRACTION:.0%} of the main body's volume; the largest is "
            f"{mm(extent)} across)"
        )
    return bodies


def _chosen(
    vertices: np.ndarray,
    bodies: list[_Body],
    body: int | str | None,
    where: str,
    changes: list[str],
) -> tuple[list[_Body], str]:
    """Of several real bodies, the one `body` chooses or all of them ("all"); none chosen is
    refused with the list of bodies (SeveralBodiesError)."""
    if body is None:
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
        # Repair reports are read by every front end: the choice, not the command line's flag.
        changes.append(f"kept all {len(bodies)} bodies as one rigid object, as chosen")
        return bodies, "all"
    assert isinstance(body, int)
    if body >= len(bodies):
        raise MeshError(
            f"{{0}} is out of range: {literal(where)} holds {len(bodies)} bodies "
            f"({literal(_describe_bodies(vertices, bodies))}); choose 0 to {len(bodies) - 1}",
            settings=[body_setting(body)],
        )
    changes.append(
        f"kept body {body} of {len(bodies)} ({cm3(bodies[body].volume_m3)}), as chosen; "
        "dropped the others"
    )
    return [bodies[body]], f"{body} of {len(bodies)}"
