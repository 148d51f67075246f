"""The closest faces of two bodies (engine.ipc.face_tree) and the pair distance built on them
(CollisionLayout.pair_distance): the distance between two triangle meshes that do not
intersect is the smallest vertex-face or edge-edge distance, and the pair distance must be
ipctk's minimum over every contact pair within the radius, to the bit."""

from __future__ import annotations

import ipctk
import numpy as np
import pytest
import trimesh

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.collision_layout import OBJECT_OWNER, CollisionLayout
from engine.ipc.face_tree import CLOSE_REL, FaceTree, _face_pair_d2, close_face_pairs


def _ipctk_face_pair_d2(x: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> float:
    """The smallest of ipctk's vertex-face and edge-edge squared distances of two faces."""
    d = [ipctk.point_triangle_distance(x[v], *x[fb]) for v in fa]
    d += [ipctk.point_triangle_distance(x[v], *x[fa]) for v in fb]
    for i in range(3):
        for j in range(3):
            ea = x[[fa[i], fa[(i + 1) % 3]]]
            eb = x[[fb[j], fb[(j + 1) % 3]]]
            d.append(ipctk.edge_edge_distance(*ea, *eb))
    return min(d)


def test_a_face_pairs_distance_is_ipctks_smallest_vertex_face_or_edge_edge_distance():
    rng = np.random.default_rng(7)
    fa, fb = np.array([0, 1, 2]), np.array([3, 4, 5])
    kinds = {"general": 0, "parallel edges": 0, "coplanar": 0, "degenerate": 0}
    for k in range(3000):
        x = rng.normal(size=(6, 3)) * rng.choice([1e-3, 1e-2])
        kind = list(kinds)[k % 4]
        if kind == "parallel edges":  # edge 3-4 parallel to edge 0-1, offset
            x[4] = x[3] + (x[1] - x[0]) * rng.uniform(-2, 2)
        elif kind == "coplanar":
            x[:, 2] = 0.0
            x[3:, 0] += 3e-3
        elif kind == "degenerate":  # a face collapsed to a segment
            x[2] = x[0] + 0.5 * (x[1] - x[0])
        kinds[kind] += 1
        got = _face_pair_d2(x, fa, fb)
        want = _ipctk_face_pair_d2(x, fa, fb)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-24), (kind, k)
    assert min(kinds.values()) >= 700


def _sphere_and_box(gap: float, side: float, turn: float):
    ball = trimesh.creation.icosphere(subdivisions=3, radius=0.02)
    box = trimesh.creation.box(extents=(0.003, 0.012, 0.012)).subdivide()
    rot = trimesh.transformations.rotation_matrix(turn, [1.0, 1.0, 0.0])[:3, :3]
    pad = np.asarray(box.vertices) @ rot.T
    pad += [0.02 + gap - pad[:, 0].min(), side, 0.0]
    x = np.vstack([pad, np.asarray(ball.vertices)])
    return x, np.asarray(box.faces), np.asarray(ball.faces) + len(pad)


@pytest.mark.parametrize("gap", [2e-2, 3e-3, 2e-4, 1e-6])
def test_the_search_returns_the_closest_face_pairs_of_a_brute_force_search(gap):
    rng = np.random.default_rng(int(gap * 1e7))
    for side, turn in [(0.0, 0.0), (4e-3, 0.3), (-1.5e-2, 1.0), (rng.uniform(-0.02, 0.02), 2.0)]:
        x, fa, fb = _sphere_and_box(gap, side, turn)
        all_d2 = np.array([[_face_pair_d2(x, f, g) for g in fb] for f in fa])
        closest = float(all_d2.min())
        ta, tb = FaceTree.of(fa, x), FaceTree.of(fb, x)
        ia, ib = close_face_pairs(x, ta, tb, radius=0.05)
        assert len(ia)
        got = all_d2[ia, ib]
        assert got.min() == closest  # the closest pair is among them
        assert got.max() <= closest * (1 + CLOSE_REL) ** 2
        # Every face pair within the margin, none missing.
        within = set(zip(*np.nonzero(all_d2 <= closest * (1 + CLOSE_REL) ** 2), strict=True))
        assert within == set(zip(ia.tolist(), ib.tolist(), strict=True))
        # Nothing within a radius below the closest distance.
        none = close_face_pairs(x, ta, tb, radius=0.5 * np.sqrt(closest))
        assert not len(none[0])


def _layout(pad_x, pad_faces, obj_x, obj_faces) -> CollisionLayout:
    x0 = np.vstack([pad_x, obj_x])
    faces = np.vstack([pad_faces, np.asarray(obj_faces) + len(pad_x)])
    owner = np.r_[np.zeros(len(pad_x)), np.full(len(obj_x), OBJECT_OWNER)].astype(np.int32)
    return CollisionLayout(x0, faces, owner)


def _full(layout: CollisionLayout, x: np.ndarray, radius: float) -> float:
    """ipctk's minimum over every pad-object contact pair within radius (its whole broad phase)."""
    mesh, rows = layout.pair_mesh(0, OBJECT_OWNER)
    return ipc.minimum_distance(ipc.collisions_within(mesh, x[rows], radius), mesh, x[rows])


def test_crossed_edges_closest_pair_distance_equals_ipctks_full_search():
    """A box turned 45 deg about two axes above another: the closest pair is an edge-edge pair
    (no vertex faces a face), and the pair distance is ipctk's minimum over all pairs."""
    box = trimesh.creation.box(extents=(0.01, 0.01, 0.01))
    turn = trimesh.transformations.euler_matrix(np.pi / 4, 0.0, np.pi / 4)[:3, :3]
    upper = np.asarray(box.vertices) @ turn.T
    for gap in (5e-3, 4e-4, 3e-6):
        upper_x = upper + np.array([0.0, 0.0, 0.005 + gap - upper[:, 2].min()])
        lower_x = np.asarray(box.vertices)
        layout = _layout(upper_x, box.faces, lower_x, box.faces)
        x = layout.x_initial
        for radius in (2 * gap, 1e-2):
            got = layout.pair_distance(0, OBJECT_OWNER, x, radius)
            assert got == _full(layout, x, radius)
            assert got == pytest.approx(gap, rel=1e-9)
        assert layout.pair_distance(0, OBJECT_OWNER, x, 0.5 * gap) == np.inf


def test_a_vertex_on_no_face_counts():
    """A collision mesh may hold vertices on no face (the cut object's ground slab): one of
    them closest to the pad gives the distance, as in ipctk's full search."""
    pad = trimesh.creation.box(extents=(0.003, 0.01, 0.01))
    pad_x = np.asarray(pad.vertices) + np.array([0.0, 0.0, 0.02])
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.005)
    loose = np.array([[0.0, 0.0, 0.02 - 0.005 - 1e-3]])  # 1 mm below the pad, on no face
    obj_x = np.vstack([np.asarray(ball.vertices), loose])
    layout = _layout(pad_x, pad.faces, obj_x, ball.faces)
    x = layout.x_initial
    got = layout.pair_distance(0, OBJECT_OWNER, x, 1e-2)
    assert got == _full(layout, x, 1e-2)
    assert got == pytest.approx(1e-3, rel=1e-9)
