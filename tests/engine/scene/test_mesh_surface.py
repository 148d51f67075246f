"""A surface's undirected edges: each corner's edge, the edges in order and their use counts,
as np.unique gives them over the sorted vertex pairs (what the closed-surface test and the
body split count on); and one winding for its faces: neighbours traverse their shared edge in
opposite directions, as trimesh's fix_winding makes them."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.scene.mesh_surface import consistent_winding, is_closed, undirected_edges


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("n_faces", [0, 1, 7, 2000])
def test_the_edges_are_numpys_unique_rows(dtype, n_faces):
    rng = np.random.default_rng(n_faces)
    faces = rng.integers(0, 3 * n_faces // 5 + 3, (n_faces, 3)).astype(dtype)
    pairs = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    rows, inverse, counts = np.unique(pairs, axis=0, return_inverse=True, return_counts=True)
    got_inverse, got_rows, got_counts = undirected_edges(faces)
    assert got_rows.dtype == rows.dtype and np.array_equal(got_rows, rows)
    assert np.array_equal(got_inverse, inverse.reshape(-1))
    assert np.array_equal(got_counts, counts)


def test_a_tetrahedron_is_closed_and_without_a_face_it_is_not():
    tet = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
    assert is_closed(tet) and not is_closed(tet[:3])


def _opposed(faces: np.ndarray) -> bool:
    """Whether every edge of exactly two faces is traversed once each way (a directed edge
    (u, v) of one face meets (v, u) of the other)."""
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    _, _, counts = undirected_edges(faces)
    inverse = undirected_edges(faces)[0]
    two = counts[inverse] == 2
    forward = directed[two, 0] < directed[two, 1]
    # Per shared edge: one forward and one backward use.
    return bool(np.all(np.bincount(inverse[two], weights=forward)[np.unique(inverse[two])] == 1))


def _scrambled(mesh: trimesh.Trimesh, share: float, seed: int) -> np.ndarray:
    faces = np.asarray(mesh.faces).copy()
    flip = np.random.default_rng(seed).random(len(faces)) < share
    faces[flip] = faces[flip][:, ::-1]
    return faces


@pytest.mark.parametrize(
    "mesh",
    [trimesh.creation.icosphere(3), trimesh.creation.torus(1.0, 0.3), trimesh.creation.box()],
    ids=["sphere", "torus", "box"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_scrambled_surface_gets_trimeshs_winding(mesh, seed):
    faces = _scrambled(mesh, 0.3, seed)
    assert not _opposed(faces)
    reference = trimesh.Trimesh(mesh.vertices, faces.copy(), process=False)
    trimesh.repair.fix_winding(reference)
    wound = consistent_winding(faces)
    assert _opposed(wound)
    # trimesh keeps the winding of the first face its search meets, this that of face 0: the
    # same up to turning the whole (single) component.
    reference_faces = np.asarray(reference.faces)
    assert np.array_equal(wound, reference_faces) or np.array_equal(wound, reference_faces[:, ::-1])
    assert np.array_equal(wound[0], faces[0])
    # Each row is the face itself or reversed, (a, b, c) -> (c, b, a).
    assert np.all((wound == faces).all(axis=1) | (wound == faces[:, ::-1]).all(axis=1))


def test_each_component_keeps_its_lowest_faces_winding_and_loose_faces_stay():
    a, b = trimesh.creation.icosphere(2), trimesh.creation.icosphere(1)
    faces = np.vstack([a.faces, b.faces + len(a.vertices)])
    loose = np.array([[0, 1, 500]])  # shares no edge of exactly two faces... a third use
    faces = np.vstack([faces, loose])
    scrambled = _scrambled(trimesh.Trimesh(np.zeros((600, 3)), faces, process=False), 0.4, 3)
    wound = consistent_winding(scrambled)
    n_a = len(a.faces)
    assert _opposed(wound[:n_a]) and _opposed(wound[n_a:-1])
    for lowest in (0, n_a):
        assert np.array_equal(wound[lowest], scrambled[lowest])
    assert np.array_equal(wound[-1], scrambled[-1])


def test_an_already_wound_surface_is_returned_unchanged():
    faces = np.asarray(trimesh.creation.icosphere(3).faces)
    assert np.array_equal(consistent_winding(faces), faces)
    assert consistent_winding(np.zeros((0, 3), dtype=np.int64)).shape == (0, 3)


def test_a_moebius_band_gets_a_winding_without_an_error():
    # A strip of 12 quads closed with a half twist: no winding can oppose every shared edge.
    n = 12
    top, bottom = np.arange(n), np.arange(n, 2 * n)
    nxt_top = np.append(top[1:], bottom[0])  # the twist: the last quad joins top to bottom
    nxt_bottom = np.append(bottom[1:], top[0])
    faces = np.vstack(
        [np.column_stack([top, bottom, nxt_top]), np.column_stack([bottom, nxt_bottom, nxt_top])]
    )
    wound = consistent_winding(faces)
    assert np.all((wound == faces).all(axis=1) | (wound == faces[:, ::-1]).all(axis=1))
    assert not _opposed(wound)
