"""A surface's undirected edges: each corner's edge, the edges in order and their use counts,
as np.unique gives them over the sorted vertex pairs (what the closed-surface test and the
body split count on)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.scene.mesh_surface import is_closed, undirected_edges


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
