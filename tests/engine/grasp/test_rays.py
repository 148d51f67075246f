"""engine.scene.mesh_rays.any_ray_hits against trimesh's ray queries (all hits, then filtered by
distance): the same answer for parallel rays shot at meshes from every side, near and far.

Law: a ray o + t d meets a triangle where the barycentric coordinates of the meeting point are
in the unit simplex; the jaws touch the object iff some ray meets it at 0 <= t <= reach.
"""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.scene.mesh_rays import any_ray_hits, points_inside
from engine.scene.object_mesh import builtin_cube


def _trimesh_answer(mesh, origins, d, reach):
    locations, index_ray, _ = mesh.ray.intersects_location(origins, np.tile(d, (len(origins), 1)))
    if not len(index_ray):
        return False
    return bool(np.any((locations - origins[index_ray]) @ d <= reach))


@pytest.mark.parametrize(
    "mesh",
    [
        trimesh.Trimesh(builtin_cube(target_vertices=98).vertices, builtin_cube(98).faces),
        trimesh.creation.icosphere(subdivisions=2, radius=0.02),
        trimesh.creation.cylinder(radius=0.015, height=0.05, sections=24),
    ],
    ids=["cube", "ball", "cylinder"],
)
def test_any_ray_hits_agrees_with_trimesh(mesh):
    rng = np.random.default_rng(3)
    agree, hits = 0, 0
    for _ in range(120):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        # A 4 x 3 grid of ray origins on a plane across d, 15-45 mm behind the mesh's centre,
        # shifted sideways up to 30 mm (so some grids pass beside the mesh).
        side = np.cross(d, rng.normal(size=3))
        side /= np.linalg.norm(side)
        up = np.cross(d, side)
        a, b = np.meshgrid(np.linspace(-4e-3, 4e-3, 4), np.linspace(-3e-3, 3e-3, 3))
        centre = (
            mesh.centroid
            - rng.uniform(0.015, 0.045) * d
            + rng.uniform(-0.03, 0.03, 2)
            @ [
                side,
                up,
            ]
        )
        origins = centre + np.outer(a.ravel(), side) + np.outer(b.ravel(), up)
        reach = rng.uniform(0.0, 0.05)
        expected = _trimesh_answer(mesh, origins, d, reach)
        got = any_ray_hits(origins, d, mesh.vertices, mesh.faces, reach)
        agree += got == expected
        hits += expected
    assert agree == 120
    assert 20 <= hits <= 100  # both answers are exercised


def test_a_ray_along_an_axis_hits_a_cube_face_at_its_distance():
    cube = builtin_cube(target_vertices=8)
    lo = cube.vertices.min(axis=0)
    origin = np.array([[lo[0] - 0.01, 0.5 * (lo[1] + cube.vertices[:, 1].max()), 0.01]])
    d = np.array([1.0, 0.0, 0.0])
    assert any_ray_hits(origin, d, cube.vertices, cube.faces, 0.0101)
    assert not any_ray_hits(origin, d, cube.vertices, cube.faces, 0.0099)
    assert not any_ray_hits(origin, -d, cube.vertices, cube.faces, 1.0)  # behind the origin


@pytest.mark.parametrize(
    "mesh",
    [
        trimesh.creation.box(extents=[0.03, 0.02, 0.01]),
        trimesh.creation.icosphere(subdivisions=3, radius=0.02),
        trimesh.creation.torus(major_radius=0.03, minor_radius=0.01),
        trimesh.creation.annulus(r_min=0.01, r_max=0.02, height=0.01),
    ],
    ids=["box", "sphere", "torus", "annulus"],
)
def test_points_inside_agrees_with_the_exact_solids(mesh):
    """Parity of a ray's crossings: a point inside a closed surface crosses it an odd number
    of times. Checked against each solid's exact inside (signed distance of the primitive,
    points further than 0.2 mm from the faceted surface), including the torus's and the
    annulus's holes, and points lying on grid planes and symmetry axes."""
    rng = np.random.default_rng(0)
    lo, hi = mesh.bounds
    points = np.vstack(
        [
            rng.uniform(lo - 0.005, hi + 0.005, (3000, 3)),
            np.zeros((1, 3)),  # the centre: inside the box and sphere, in the holes
            np.array([[0.0, 0.0, z] for z in np.linspace(lo[2], hi[2], 7)]),
        ]
    )
    signed = trimesh.proximity.signed_distance(mesh, points)  # > 0 inside
    clear = np.abs(signed) > 2e-4
    got = points_inside(points[clear], mesh.vertices, mesh.faces)
    assert np.array_equal(got, signed[clear] > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_hits_meets_the_same_triangles_as_every_triangle_tested(seed):
    """first_hits tests only the triangles within the parallel rays' reach (a pad's sweep over
    a part of the surface), each against the rays binned in the cells its shadow covers: each
    ray's first hit, distance and triangle (the first of equals), is the one the intersection
    test finds on every ray and triangle of the whole mesh. A sphere of 1280 faces, rays from a
    20 mm patch in a random direction, some of which miss it, a few through its vertices."""
    from engine.scene.mesh_rays import _distance, _triangle, first_hits

    sphere = trimesh.creation.icosphere(subdivisions=3, radius=0.03)
    rng = np.random.default_rng(seed)
    d = rng.normal(size=3)
    d /= np.linalg.norm(d)
    across = np.linalg.svd(d[None, :])[2][1:]  # two directions perpendicular to d
    origins = -0.06 * d + rng.uniform(-0.035, 0.035, size=(200, 2)) @ across
    front = np.asarray(sphere.vertices)[np.asarray(sphere.vertices) @ d < 0][:20]
    origins = np.vstack([origins, front - 0.03 * d])  # rays through vertices
    dist, tri = first_hits(origins, d, sphere.vertices, sphere.faces, 0.09)
    tris = np.ascontiguousarray(np.asarray(sphere.vertices)[sphere.faces])
    all_dist = np.full(len(origins), np.inf)
    all_tri = np.full(len(origins), -1)
    for k, t3 in enumerate(tris):
        a, e1, e2, p, inv = _triangle(t3, d)
        if inv == 0.0:
            continue
        for i, o in enumerate(origins):
            t = _distance(o, d, a, e1, e2, p, inv)
            if 0.0 <= t <= 0.09 and t < all_dist[i]:
                all_dist[i], all_tri[i] = t, k
    assert np.isfinite(dist).sum() > 50 and np.isinf(dist).sum() > 10  # hits and misses
    assert np.array_equal(dist, all_dist) and np.array_equal(tri, all_tri)


@pytest.mark.parametrize("seed", [0, 1])
def test_binned_crossings_count_what_every_pair_counts(seed):
    """points_inside tries each triangle only against the points binned in the cells its
    shadow covers: the crossing counts are those of the intersection test on every pair, also
    for points on vertices and edges (where the test's rounding decides) and for a triangle
    nearly parallel to the rays. A noisy 320-face ball, points around and on it, each of the
    three parity directions."""
    from engine.scene.mesh_rays import (
        _PARITY_DIRECTIONS,
        _distance,
        _ray_hits,
        _triangle,
        perpendicular_pair,
    )

    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.02)
    rng = np.random.default_rng(seed)
    v = ball.vertices * (1 + 0.05 * rng.random((len(ball.vertices), 1)))
    tris = np.ascontiguousarray(v[ball.faces])
    d0 = _PARITY_DIRECTIONS[0] / np.linalg.norm(_PARITY_DIRECTIONS[0])
    u0, u1 = perpendicular_pair(d0)
    # In a plane 1e-4 rad off the rays: |e1| |e2| / |det| = 1e4, its shadow a sliver.
    sliver = np.array([-0.01 * u1, 0.02 * (d0 + 1e-4 * u0) - 0.01 * u1, 0.01 * u1])
    tris = np.ascontiguousarray(np.vstack([tris, sliver[None]]))
    points = np.vstack(
        [
            rng.uniform(-0.025, 0.025, (300, 3)),
            v[:40],  # on vertices
            0.5 * (v[ball.faces[:40, 0]] + v[ball.faces[:40, 1]]),  # on edges
        ]
    )
    scale = float(np.linalg.norm(np.ptp(np.vstack([v, points]), axis=0))) + 0.06
    for d in _PARITY_DIRECTIONS:
        unit = d / np.linalg.norm(d)
        # And points whose rays pass exactly through a vertex or an edge's middle ahead: on
        # the edge of those triangles' shadows.
        grazing = np.vstack([points, v[:40] - 0.03 * unit, points[-40:] - 0.03 * unit])
        binned = _ray_hits(grazing, unit, tris, 0.0, perpendicular_pair(unit), scale)[0]
        every = np.zeros(len(grazing), dtype=np.int64)
        for tri in tris:
            a, e1, e2, p, inv = _triangle(tri, unit)
            if inv == 0.0:
                continue
            for i, o in enumerate(grazing):
                every[i] += _distance(o, unit, a, e1, e2, p, inv) > 0.0
        assert np.array_equal(binned, every)
        assert every.max() >= 2  # rays cross the ball's both sides
    tested = _triangle(sliver, d0)[4]
    assert tested != 0.0 and abs(tested) * 0.02 * 0.02 > 1e3  # the sliver is tried
