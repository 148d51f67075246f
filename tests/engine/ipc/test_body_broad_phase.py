"""The broad phase between bodies (engine.ipc.body_broad_phase) finds ipctk's candidates.

Its candidates for a move are ipctk's (`Candidates.build` with the LBVH) with two kinds of pair
left out, each checked here to be only that:
- pairs whose boxes, swept and inflated in double precision, do not overlap: the LBVH stores
  its boxes in single precision, rounded outward, and finds pairs up to a float's spacing
  apart; such a pair is further apart than twice the radius over the whole move;
- vertex-vertex pairs of codimensional vertices (in no edge, like the cut object's ground
  slab) of one body: ipctk 1.6.1 filters those pairs with their rows in the list of codim
  vertices instead of their vertex ids, so a rigid object's own vertices made contacts.
"""

from __future__ import annotations

import ipctk
import numpy as np
import pytest

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.body_broad_phase import BodyBroadPhase
from engine.ipc.system import OBJECT_OWNER
from tests.conftest import yumi_cube_simulation

DHAT = 1e-4
FLOAT32_SLACK_M = 1e-8  # beyond a float's spacing at these coordinates (~2e-9 m at 0.03 m)


def _lbvh(mesh: ipc.CollisionMesh, x0: np.ndarray, x1: np.ndarray, r: float) -> ipctk.Candidates:
    c = ipctk.Candidates()
    c.build(mesh, x0, x1, r, ipctk.LBVH())
    return c


def _sets(c: ipctk.Candidates) -> tuple[set, set, set, set]:
    return (
        {tuple(sorted((p.edge0_id, p.edge1_id))) for p in c.ee_candidates},
        {(p.face_id, p.vertex_id) for p in c.fv_candidates},
        {tuple(sorted((p.vertex0_id, p.vertex1_id))) for p in c.vv_candidates},
        {p.vertex_id for p in c.pv_candidates},
    )


def _box_gap(bp: BodyBroadPhase, lo: np.ndarray, hi: np.ndarray, kind: int, pair) -> float:
    """How far apart (m) the double-precision boxes of a candidate pair are (0: overlap)."""
    if kind == 0:
        a, b = bp.edges[pair[0]], bp.edges[pair[1]]
    elif kind == 1:
        a, b = bp.faces[pair[0]], np.array([pair[1]])
    else:
        a, b = np.array([pair[0]]), np.array([pair[1]])
    gap = np.maximum(lo[a].min(0) - hi[b].max(0), lo[b].min(0) - hi[a].max(0))
    return max(0.0, float(gap.max()))


def _assert_ipctk_candidates(mesh: ipc.CollisionMesh, x0: np.ndarray, x1: np.ndarray, r: float):
    """The body broad phase's candidates are ipctk's, less the two kinds the docstring names;
    returns how many of each kind were left out."""
    bp = ipc.bodies_of(mesh)
    assert bp is not None
    ee, fv, vv, pv = bp.pairs(x0, x1, r)
    ours = (
        {tuple(sorted(p)) for p in ee.tolist()},
        {tuple(p) for p in fv.tolist()},
        {tuple(sorted(p)) for p in vv.tolist()},
        {v for _, v in pv.tolist()},
    )
    theirs = _sets(_lbvh(mesh, x0, x1, r))
    lo, hi = np.minimum(x0, x1) - r, np.maximum(x0, x1) + r
    slack = same_body = 0
    for kind in range(3):
        assert ours[kind] <= theirs[kind], "a pair ipctk's broad phase does not find"
        for pair in theirs[kind] - ours[kind]:
            if kind == 2 and bp.owner[pair[0]] == bp.owner[pair[1]]:
                same_body += 1
                continue
            assert 0.0 < _box_gap(bp, lo, hi, kind, pair) < FLOAT32_SLACK_M, (kind, pair)
            slack += 1
    assert ours[3] == theirs[3]
    for a, b in ours[2]:
        assert bp.owner[a] != bp.owner[b]
    return slack, same_body


def _cube_mesh_with_a_ground_slab():
    """The YuMi's pads half a dhat from the built-in cube, and the cube with codim vertices
    (in no face, like the cut object's ground slab, engine.grasp.contact_region) just above
    its bottom, near the ground."""
    sim = yumi_cube_simulation()
    s = sim.stepper.system
    x = s.collision_vertices(sim.stepper.state.u)
    faces = np.asarray(s.collision_mesh.faces)
    owner = np.asarray(s.collision_owner)
    on_object = x[owner == OBJECT_OWNER]
    for k, n in enumerate(sim.stepper.normals):  # each pad half a dhat from the cube
        gap = (on_object @ n).min() - (x[owner == k] @ n).max()
        x[owner == k] += (gap - 0.5 * DHAT) * n
    # As many slab points as the pads have vertices (ipctk's defect pairs codim vertices whose
    # rows in the codim list fall on different bodies' vertex ids), in pairs 2 um apart.
    n = int(np.sum(owner != OBJECT_OWNER))
    lo, hi = on_object.min(0), on_object.max(0)
    u = np.random.default_rng(7).uniform(size=(n, 2))
    slab = np.c_[lo[:2] + u * (hi[:2] - lo[:2]), np.full(n, lo[2] + 5e-5)]
    x = np.vstack([x, slab, slab + np.array([0.0, 0.0, 2e-6])])
    owner = np.r_[owner, np.full(2 * n, OBJECT_OWNER)].astype(np.int32)
    return ipc.collision_mesh(x, faces, owner, ground=True), x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_candidates_of_random_moves_are_ipctks(seed):
    mesh, x0 = _cube_mesh_with_a_ground_slab()
    assert len(ipc.bodies_of(mesh).codim) > 0
    rng = np.random.default_rng(seed)
    left_out = np.zeros(2, dtype=int)
    for scale in (1e-5, 2e-4, 3e-3):
        x1 = x0 + rng.normal(0.0, scale, size=x0.shape)
        for r in (0.0, DHAT, 3 * DHAT):
            left_out += _assert_ipctk_candidates(mesh, x0, x1, r)
            left_out += _assert_ipctk_candidates(mesh, x1, x1, r)
    # The slab's doubled vertices are within a radius of each other: ipctk pairs them.
    assert left_out[1] > 0


def test_a_grasps_contact_sets_are_ipctks_without_the_objects_own_vertex_pairs():
    """Built with the body broad phase, the contact set at a closed grip has ipctk's pairs
    within dhat, the ground's included (the barrier's energy and gradient equal a build with
    ipctk's LBVH over the whole mesh at 2 dhat, which its broad phase needs for the plane's
    pairs: workaround 1), except the object's own codim vertex pairs, which ipctk's build
    makes."""
    mesh, x = _cube_mesh_with_a_ground_slab()
    ours = ipc.active_collisions(mesh, x, DHAT)
    theirs = ipctk.NormalCollisions()
    theirs.build(mesh, x, 2 * DHAT, 0.0, ipctk.LBVH())
    owner = ipc.bodies_of(mesh).owner
    barrier = ipc.barrier(DHAT, 1.0)
    # Pairs are read while `theirs` lives: ipctk hands out references into its list.
    own_pairs, own, beyond = 0, 0.0, 0
    for c in theirs:
        ids = c.vertex_ids(mesh.edges, mesh.faces)
        dof = c.dof(x, mesh.edges, mesh.faces)
        if isinstance(c, ipctk.VertexVertexNormalCollision) and owner[ids[0]] == owner[ids[1]]:
            own_pairs += 1
            own += barrier(c, dof)
        elif c.compute_distance(dof) >= DHAT**2:  # squared: between dhat and 2 dhat
            beyond += 1
            assert barrier(c, dof) == 0.0
    assert own_pairs, "the slab's vertices, 2 um apart, make ipctk pairs"
    assert own > 0
    assert beyond > 0, "the 2 dhat build lists pairs the barrier does not reach"
    assert len(ours) == len(theirs) - own_pairs - beyond
    assert sum(ipc.is_plane_vertex(c) for c in ours) > 0, "the slab rests on the ground"
    # The pads' and the ground's pairs are the same: ipctk's energy less its own pairs'.
    assert barrier(ours, mesh, x) == pytest.approx(barrier(theirs, mesh, x) - own, rel=1e-12)
    assert sum(not ipc.is_plane_vertex(c) for c in ours) > 0, "the pads touch the cube"


def test_the_intersection_test_is_ipctks():
    """Pads pushed into the cube by up to 2 mm, tilted, or held apart: whether an edge of one
    body crosses a face of another is ipctk's has_intersections answer in every case."""
    mesh, x0 = _cube_mesh_with_a_ground_slab()
    bp = ipc.bodies_of(mesh)
    assert bp is not None
    owner = bp.owner
    rng = np.random.default_rng(3)
    answers = []
    for depth in (-1e-3, -DHAT, 0.0, 1e-6, 2e-4, 2e-3):
        for _ in range(4):
            x = x0.copy()
            for k in (0, 1):
                # each pad pushed `depth` further than touching (negative: held apart), jittered
                centre = x[owner == k].mean(axis=0)
                turn = rng.normal(0.0, 0.05, size=3)
                x[owner == k] = (
                    centre + (x[owner == k] - centre) + np.cross(turn, x[owner == k] - centre)
                )
                x[owner == k] += (0.5 * DHAT + depth) * _closing(x, owner, k)
            theirs = ipctk.has_intersections(mesh, x, ipctk.LBVH())
            assert bp.has_intersections(x) == theirs
            answers.append(theirs)
    assert any(answers) and not all(answers)


def _closing(x: np.ndarray, owner: np.ndarray, k: int) -> np.ndarray:
    """The unit direction from pad k's centre towards the object's centre."""
    d = x[owner == OBJECT_OWNER].mean(axis=0) - x[owner == k].mean(axis=0)
    d[2] = 0.0
    return d / np.linalg.norm(d)


def test_the_orientation_filter_keeps_every_sign_round_off_could_flip():
    """Where _orient3d_sign gives a sign, it is the exact one (rational arithmetic), on points
    from well off the plane to within a few ulps of it; coplanar points give 0."""
    from fractions import Fraction

    from engine.ipc.body_broad_phase import _orient3d_sign

    rng = np.random.default_rng(5)
    signed = 0
    for scale in (1e-2, 1e-9, 1e-15, 1e-18, 0.0):
        for _ in range(200):
            a, b, c = rng.uniform(-0.03, 0.03, size=(3, 3))
            n = np.cross(b - a, c - a)
            d = a + rng.uniform(0, 1) * (b - a) + rng.uniform(0, 1) * (c - a) + scale * n
            got = _orient3d_sign(a, b, c, d)
            m = [
                [Fraction(float(p[i])) - Fraction(float(d[i])) for i in range(3)] for p in (a, b, c)
            ]
            det = (
                m[0][2] * (m[1][0] * m[2][1] - m[2][0] * m[1][1])
                + m[1][2] * (m[2][0] * m[0][1] - m[0][0] * m[2][1])
                + m[2][2] * (m[0][0] * m[1][1] - m[1][0] * m[0][1])
            )
            exact = (det > 0) - (det < 0)
            assert got in (0, exact)
            signed += got != 0
    assert 0 < signed < 1000  # the bound decides most, not the nearly coplanar ones


@pytest.mark.parametrize("limit", [1e9, 0.0], ids=["handed over", "ipctk's LBVH"])
def test_the_gateways_candidates_hold_no_pairs_of_one_body(monkeypatch, limit):
    """swept_candidates hands over the body broad phase's candidates, or, beyond
    CANDIDATES_PER_PRIMITIVE, ipctk's LBVH's with one body's own vertex pairs dropped: either
    way ipctk's candidates less those pairs (and float32 slack)."""
    from engine.ipc import body_broad_phase

    monkeypatch.setattr(body_broad_phase, "CANDIDATES_PER_PRIMITIVE", limit)
    mesh, x0 = _cube_mesh_with_a_ground_slab()
    bp = ipc.bodies_of(mesh)
    assert bp is not None
    x1 = x0 + np.random.default_rng(4).normal(0.0, 2e-4, size=x0.shape)
    got = _sets(ipc.swept_candidates(mesh, x0, x1, DHAT))
    theirs = _sets(_lbvh(mesh, x0, x1, DHAT))
    assert any(bp.owner[a] == bp.owner[b] for a, b in theirs[2])
    assert not any(bp.owner[a] == bp.owner[b] for a, b in got[2])
    assert got[2] == {(a, b) for a, b in theirs[2] if bp.owner[a] != bp.owner[b]}
    assert got[3] == theirs[3] and got[1] <= theirs[1] and got[0] <= theirs[0]
    assert len(got[0]) > 0.99 * len(theirs[0]) and len(got[1]) > 0.99 * len(theirs[1])


def test_the_contact_set_holds_exactly_the_pairs_within_dhat_the_grounds_too():
    """Workaround 1: a vertex 0.75 dhat above the ground is a pair (ipctk's own broad phase
    lists it only below dhat / 2, where the barrier's energy would jump), one 1.25 dhat above
    is not; a vertex 0.75 dhat over another body's face is a pair, one 1.5 dhat over it is not
    (a build at 2 dhat listed it, with zero energy)."""
    h = DHAT
    tri = np.array([[0, 1, 2]], dtype=np.int32)
    x = np.array([[0.0, 0.0, 0.75 * h], [0.01, 0.0, 1.25 * h], [0.0, 0.01, 0.01]])
    mesh = ipc.collision_mesh(x, tri, np.zeros(3, dtype=np.int32), ground=True)
    pairs = ipc.active_collisions(mesh, x, DHAT)
    assert [c.vertex_ids(mesh.edges, mesh.faces)[0] for c in pairs] == [0]
    assert all(ipc.is_plane_vertex(c) for c in pairs)

    faces = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.int32)
    owner = np.array([0, 0, 0, 1, 1, 1], dtype=np.int32)
    for gap, expected in ((0.75 * h, 1), (1.5 * h, 0)):
        x = np.array(
            [
                [0.0, 0.0, 0.01], [0.01, 0.0, 0.01], [0.0, 0.01, 0.01],
                [0.002, 0.002, 0.01 + gap], [0.002, 0.008, 0.02], [0.008, 0.002, 0.02],
            ]
        )  # fmt: skip
        mesh = ipc.collision_mesh(x, faces, owner, ground=True)
        assert len(ipc.active_collisions(mesh, x, DHAT)) == expected, gap
        wide = ipctk.NormalCollisions()
        wide.build(mesh, x, 2 * DHAT, 0.0, ipctk.LBVH())
        assert len(wide) == 1  # the pair a 2 dhat build lists either way


@pytest.mark.parametrize("seed", [0, 1])
def test_a_plane_radius_of_its_own_changes_only_the_planes_pairs(seed):
    """Boxes inflated by r pair primitives within 2 r, a vertex's box reaches a plane only
    within r: the pairs within dhat take r = dhat / 2 and the plane dhat. With a plane radius
    of its own, the primitives' pairs are the ones of the radius and the plane's pairs those
    of the plane radius."""
    mesh, x0 = _cube_mesh_with_a_ground_slab()
    bp = ipc.bodies_of(mesh)
    assert bp is not None
    x1 = x0 + np.random.default_rng(seed).normal(0.0, 2e-4, size=x0.shape)
    split = bp.pairs(x0, x1, 0.5 * DHAT, DHAT)
    small, large = bp.pairs(x0, x1, 0.5 * DHAT), bp.pairs(x0, x1, DHAT)
    for kind in range(3):
        np.testing.assert_array_equal(split[kind], small[kind])
    np.testing.assert_array_equal(split[3], large[3])
    assert len(large[3]) > len(small[3])  # vertices between dhat / 2 and dhat of the ground


@pytest.mark.parametrize("seed", [0, 1])
def test_the_ground_meshs_candidates_are_ipctks(seed):
    """The ground mesh (vertices and the plane z = 0, ipctk_gateway.ground_mesh) has its own
    broad phase: its plane-vertex candidates are those of ipctk's LBVH over every vertex, for
    vertices on, near and far from the ground, at rest and moving, and ipctk's vertex-vertex
    pairs among them are all of one body (the ground mesh's vertices are one patch)."""
    rng = np.random.default_rng(seed)
    x0 = np.c_[rng.uniform(-0.02, 0.02, (400, 2)), rng.uniform(0.0, 4.0 * DHAT, 400)]
    x0[:40, 2] = rng.uniform(0.0, 1e-7, 40)  # resting: the barrier's equilibrium gaps
    mesh = ipc.ground_mesh(x0)
    near = 0
    for scale in (0.0, 1e-5, 2e-4):
        x1 = x0 + rng.normal(0.0, scale, size=x0.shape)
        x1[:, 2] = np.abs(x1[:, 2])
        for r in (0.0, 0.5 * DHAT, DHAT):
            _assert_ipctk_candidates(mesh, x0, x1, r)
            near += len(ipc.bodies_of(mesh).pairs(x0, x1, r)[3])
    assert near > 0


def test_pooled_candidates_list_the_broad_phases_pairs_in_order(monkeypatch):
    """The candidates handed to ipctk (one pooled object per id pair, engine.ipc.body_broad_phase
    _CandidatePool) are the broad phase's pairs of every kind, in its order: on a first build,
    on later builds that meet the same pairs again, and after a pool starts afresh."""
    from engine.ipc import body_broad_phase

    mesh, x0 = _cube_mesh_with_a_ground_slab()
    bp = ipc.bodies_of(mesh)
    assert bp is not None
    rng = np.random.default_rng(11)

    def listed(c: ipctk.Candidates) -> tuple[list, list, list, list]:
        return (
            [(p.edge0_id, p.edge1_id) for p in c.ee_candidates],
            [(p.face_id, p.vertex_id) for p in c.fv_candidates],
            [(p.vertex0_id, p.vertex1_id) for p in c.vv_candidates],
            [(p.vertex_id, tuple(p.plane.normal())) for p in c.pv_candidates],
        )

    kinds = np.zeros(3, dtype=int)
    for step, pool_max in enumerate([10**9, 10**9, 10**9, 5]):
        monkeypatch.setattr(body_broad_phase, "POOL_MAX", pool_max)
        x1 = x0 + rng.normal(0.0, 2e-4 * (step % 2), size=x0.shape)
        ee, fv, vv, pv = bp.pairs(x0, x1, DHAT)
        got = listed(bp.candidates_of(ee, fv, vv, pv))
        assert got[0] == [tuple(p) for p in ee.tolist()]
        assert got[1] == [tuple(p) for p in fv.tolist()]
        assert got[2] == [tuple(p) for p in vv.tolist()]
        assert got[3] == [(v, (0.0, 0.0, 1.0)) for _, v in pv.tolist()]
        kinds += [len(ee) > 0, len(fv) > 0, len(pv) > 0]
    assert kinds.min() > 0  # (vertex-vertex pairs need codim vertices on two bodies: none here)
