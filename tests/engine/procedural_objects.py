"""Procedurally generated test objects with the difficulties of real parts (never stored files).

Every generator returns a closed, outward-oriented trimesh in metres with a few hundred to a
few thousand faces: an L-bracket and a flanged spool wider than the YuMi's 50 mm stroke, a mug
with a handle (one genus-2 surface: the handle is stitched into the wall, not overlapping it),
a bar clamp, a figurine-like stack of spheres, and more for the README's table. `damaged_*`
add what exported meshes get wrong. `write_all(folder)` writes the README table's set.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import trimesh


def _finish(vertices: np.ndarray, faces: np.ndarray) -> trimesh.Trimesh:
    mesh = trimesh.Trimesh(np.asarray(vertices, float), np.asarray(faces, np.int64), process=False)
    trimesh.repair.fix_winding(mesh)
    if mesh.volume < 0:
        mesh.invert()
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    return mesh


def _ear_clip(poly: np.ndarray) -> np.ndarray:
    """Triangles of a simple counter-clockwise polygon (k, 2) by ear clipping."""
    idx = list(range(len(poly)))
    tris = []

    def cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    guard = 0
    while len(idx) > 3 and guard < 10_000:
        guard += 1
        for k in range(len(idx)):
            i, j, m = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            a, b, c = poly[i], poly[j], poly[m]
            if cross(a, b, c) <= 1e-15:
                continue  # reflex or flat corner
            inside = False
            for o in idx:
                if o in (i, j, m):
                    continue
                p = poly[o]
                if cross(a, b, p) >= 0 and cross(b, c, p) >= 0 and cross(c, a, p) >= 0:
                    inside = True
                    break
            if not inside:
                tris.append([i, j, m])
                idx.pop(k)
                break
    tris.append(idx)
    return np.asarray(tris)


def extrude(polygon: list[tuple[float, float]], height: float) -> trimesh.Trimesh:
    """A prism: the simple polygon (x, y in m, any orientation) extruded along z."""
    poly = np.asarray(polygon, dtype=float)
    area = 0.5 * float(
        np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1])
    )
    if area < 0:
        poly = poly[::-1]
    mesh = trimesh.creation.extrude_triangulation(poly, _ear_clip(poly), height)
    return _finish(mesh.vertices, mesh.faces)


def revolve(profile: list[tuple[float, float]], sections: int = 24) -> trimesh.Trimesh:
    """A solid of revolution about z from a (radius, z) profile that starts and ends on the axis."""
    mesh = trimesh.creation.revolve(np.asarray(profile, dtype=float), sections=sections)
    mesh.merge_vertices()
    return _finish(mesh.vertices, mesh.faces)


# --- the issue's five difficulties ---------------------------------------------------------------
def l_bracket(base: float = 0.07, leg: float = 0.04, thickness: float = 0.006,
              depth: float = 0.06) -> trimesh.Trimesh:  # fmt: skip
    """An angle bracket: a 70 x 60 mm base and a 40 mm upright, 6 mm thick (wider than 50 mm
    both ways when it rests on its base, its most probable pose)."""
    t = thickness
    return extrude([(0, 0), (base, 0), (base, t), (t, t), (t, leg), (0, leg)], depth)


def spool(flange_r: float = 0.035, core_r: float = 0.012, height: float = 0.06,
          flange_t: float = 0.006) -> trimesh.Trimesh:  # fmt: skip
    """A flanged cylinder: a 24 mm core between two 70 mm flanges (wider than the stroke)."""
    h, f = height, flange_t
    return revolve(
        [
            (0, 0),
            (flange_r, 0),
            (flange_r, f),
            (core_r, f),
            (core_r, h - f),
            (flange_r, h - f),
            (flange_r, h),
            (0, h),
        ]
    )


def mug(radius: float = 0.04, height: float = 0.09, wall: float = 0.005, sections: int = 24,
        handle_out: float = 0.03, handle_t: float = 0.008) -> trimesh.Trimesh:  # fmt: skip
    """An 80 mm cup with a C-shaped handle stitched into its wall (one genus-2 surface)."""
    z1, z2 = 0.02, height - 0.02 - handle_t  # where the handle's arms meet the wall
    outer = [0.0, z1, z1 + handle_t, z2, z2 + handle_t, height]
    r_in, bottom = radius - wall, wall
    profile = [(radius, z) for z in outer] + [(r_in, height), (r_in, bottom)]
    angles = 2.0 * np.pi * np.arange(sections) / sections
    ring = len(profile)
    vertices = [[r * math.cos(a), r * math.sin(a), z] for a in angles for r, z in profile]
    bottom_centre, inner_centre = len(vertices), len(vertices) + 1
    vertices += [[0.0, 0.0, 0.0], [0.0, 0.0, bottom]]

    def vid(s: int, k: int) -> int:
        return (s % sections) * ring + k

    faces = []
    skip = {(0, 1), (0, 3)}  # wall quads of segment 0 replaced by the handle's ends
    for s in range(sections):
        for k in range(ring - 1):
            if (s, k) in skip:
                continue
            a, b, c, d = vid(s, k), vid(s + 1, k), vid(s + 1, k + 1), vid(s, k + 1)
            faces += [[a, b, c], [a, c, d]]
        faces.append([bottom_centre, vid(s + 1, 0), vid(s, 0)])
        faces.append([inner_centre, vid(s, ring - 1), vid(s + 1, ring - 1)])
    # The handle: a rectangular tube along a C path in the plane of segment 0's middle.
    mid = angles[1] / 2.0
    radial = np.array([math.cos(mid), math.sin(mid), 0.0])
    r_wall = radius * math.cos(mid)
    half_w = radius * math.sin(mid)
    tangent = np.array([-math.sin(mid), math.cos(mid), 0.0])
    reach = r_wall + handle_out

    def section(points: list[tuple[float, float]]) -> list[int]:
        ids = []
        for side in (-1.0, 1.0):
            for r, z in points:
                vertices.append(list(r * radial + side * half_w * tangent + [0, 0, z]))
                ids.append(len(vertices) - 1)
        return ids  # [-side p0, -side p1, +side p0, +side p1]

    t = handle_t
    low = [vid(0, 1), vid(0, 2), vid(1, 1), vid(1, 2)]
    corner1 = section([(reach + t / 2, z1), (reach - t / 2, z1 + t)])
    corner2 = section([(reach + t / 2, z2 + t), (reach - t / 2, z2)])
    high = [vid(0, 4), vid(0, 3), vid(1, 4), vid(1, 3)]
    chain = [low, corner1, corner2, high]
    for u, v in itertools.pairwise(chain):
        # Sides of the tube: (p0, p1) on each side, and the two faces joining the sides.
        for i, j in ((0, 1), (2, 3), (0, 2), (1, 3)):
            faces += [[u[i], v[i], v[j]], [u[i], v[j], u[j]]]
    return _finish(np.asarray(vertices), np.asarray(faces))


def bar_clamp(length: float = 0.12, bar: float = 0.012, reach: float = 0.06,
              jaw: float = 0.014, thickness: float = 0.01) -> trimesh.Trimesh:  # fmt: skip
    """An F-clamp lying flat: a 120 mm bar with a fixed and a sliding jaw, 10 mm thick."""
    slide = 0.075
    poly = [
        (0, 0), (length, 0), (length, bar), (slide + jaw, bar), (slide + jaw, reach),
        (slide, reach), (slide, bar), (jaw, bar), (jaw, reach), (0, reach),
    ]  # fmt: skip
    return extrude(poly, thickness)


def sphere_stack(radii: tuple[float, ...] = (0.03, 0.021, 0.014), sections: int = 24,
                 rings: int = 8) -> trimesh.Trimesh:  # fmt: skip
    """A figurine-like stack of overlapping spheres (a snowman), as one surface of revolution."""
    centres = []
    z = 0.0
    for k, r in enumerate(radii):
        z = r if k == 0 else z + radii[k - 1] * 0.75 + r * 0.75
        centres.append(z)
    top = centres[-1] + radii[-1]
    zs = np.linspace(0.0, top, rings * len(radii) + 1)
    profile = [(0.0, 0.0)]
    for zv in zs[1:-1]:
        r = max(
            math.sqrt(max(0.0, rr * rr - (zv - c) ** 2))
            for rr, c in zip(radii, centres, strict=True)
        )
        profile.append((r, float(zv)))
    profile.append((0.0, float(top)))
    return revolve(profile, sections)


# --- more objects for the README table -------------------------------------------------------------
def ring(major: float = 0.03, minor: float = 0.006) -> trimesh.Trimesh:
    """A 72 mm ring lying flat (wider than the stroke, grasped by its rim)."""
    mesh = trimesh.creation.torus(major_radius=major, minor_radius=minor, major_sections=32,
                                  minor_sections=12)  # fmt: skip
    return _finish(mesh.vertices, mesh.faces)


def t_beam(width: float = 0.06, height: float = 0.05, web: float = 0.008, flange: float = 0.008,
           length: float = 0.07) -> trimesh.Trimesh:  # fmt: skip
    """A 60 x 50 mm T profile, 70 mm long."""
    w, h = width, height
    poly = [(-w / 2, h - flange), (-web / 2, h - flange), (-web / 2, 0), (web / 2, 0),
            (web / 2, h - flange), (w / 2, h - flange), (w / 2, h), (-w / 2, h)]  # fmt: skip
    return extrude(poly, length)


def vase(sections: int = 24) -> trimesh.Trimesh:
    """A solid 100 mm vase: 60 mm belly, 28 mm neck, 44 mm lip."""
    profile = [(0, 0), (0.022, 0), (0.030, 0.03), (0.026, 0.06), (0.014, 0.08), (0.016, 0.09),
               (0.022, 0.1), (0, 0.1)]  # fmt: skip
    return revolve(profile, sections)


def flat_plate() -> trimesh.Trimesh:
    """An 80 x 60 x 8 mm plate lying flat: nothing fits a 50 mm opening."""
    return _finish(*_box_arrays((0.08, 0.06, 0.008)))


def _box_arrays(extents: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    box = trimesh.creation.box(extents=extents)
    return np.asarray(box.vertices), np.asarray(box.faces)


def damaged(mesh: trimesh.Trimesh, seed: int = 0, slivers: int = 3, flipped: int = 4,
            hole: bool = True) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """`mesh` as a careless export: detached 1-4-face slivers beside it, a few flipped faces,
    a small hole (the faces around one vertex removed) and duplicated vertices."""
    rng = np.random.default_rng(seed)
    vertices = np.asarray(mesh.vertices, float)
    faces = np.asarray(mesh.faces, np.int64).copy()
    if hole:
        degree = np.bincount(faces.ravel(), minlength=len(vertices))
        v = int(np.argmax(degree == np.median(degree)))
        faces = faces[~np.any(faces == v, axis=1)]
    flip = rng.choice(len(faces), size=flipped, replace=False)
    faces[flip] = faces[flip][:, ::-1]
    extra_v, extra_f = [], []
    n = len(vertices)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    for k in range(slivers):
        base = lo + rng.random(3) * (hi - lo) + np.array([0, 0, (hi - lo)[2] * 0.6])
        pts = base + rng.normal(0.0, 5e-4, (4, 3))
        tri = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]][: 1 + k % 4])
        extra_v.append(pts)
        extra_f.append(tri + n)
        n += 4
    # Duplicate the corners of ten faces: an exporter that splits vertices.
    dup = faces[:10].copy()
    dup_v = vertices[dup.ravel()]
    faces[:10] = np.arange(n, n + 30).reshape(10, 3)
    vertices = np.vstack([vertices, *extra_v, dup_v])
    faces = np.vstack([faces, *extra_f])
    return vertices, faces


def two_boxes() -> trimesh.Trimesh:
    """Two separate boxes in one mesh (40 x 30 x 30 mm and 30 x 20 x 20 mm, 70 mm apart): two
    real bodies that must be refused or chosen, never merged."""
    return trimesh.util.concatenate(
        [trimesh.creation.box(extents=[0.04, 0.03, 0.03]),
         trimesh.creation.box(extents=[0.03, 0.02, 0.02]).apply_translation([0.07, 0, 0])]
    )  # fmt: skip


def write_obj(vertices: np.ndarray, faces: np.ndarray, path: Path) -> Path:
    """Write an OBJ exactly as given (an exporter would merge and reorder)."""
    lines = [f"v {x:.9f} {y:.9f} {z:.9f}" for x, y, z in vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return path


ISSUE_OBJECTS: dict[str, Callable[[], trimesh.Trimesh]] = {
    "l_bracket": l_bracket,
    "spool": spool,
    "mug": mug,
    "bar_clamp": bar_clamp,
    "sphere_stack": sphere_stack,
}
"""The issue's five shapes: each must open, get a default grasp and simulate."""


def write_all(folder: Path) -> dict[str, Path]:
    """The README table's objects as files in `folder` (name -> path)."""
    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    for name, make in {**ISSUE_OBJECTS, "ring": ring, "t_beam": t_beam, "vase": vase,
                       "flat_plate": flat_plate}.items():  # fmt: skip
        m = make()
        out[name] = write_obj(np.asarray(m.vertices), np.asarray(m.faces), folder / f"{name}.obj")
    v, f = damaged(trimesh.creation.icosphere(subdivisions=4, radius=0.022), seed=1)
    out["damaged_ball"] = write_obj(v, f, folder / "damaged_ball.obj")
    v, f = damaged(l_bracket(), seed=2, hole=False)
    out["damaged_bracket"] = write_obj(v, f, folder / "damaged_bracket.obj")
    two = two_boxes()
    out["two_parts"] = write_obj(
        np.asarray(two.vertices), np.asarray(two.faces), folder / "two_parts.obj"
    )
    return out
