"""Shortcuts that must equal the full computation: GraspSystem.pair_collisions skips the
broad phase only where no pair can be within reach; a time step's internal layout derived from
another step's equals a fresh one; the approach's closest gap, searched first just beyond the
bodies' separation along the closing axis, equals the gap of a full-radius build.

Law: two point sets whose axis-aligned bounding boxes are more than r apart along an axis have
no two points (and so no primitives) closer than r; and no two are closer than their
projections onto any unit axis are apart. Checked against a full build while pad 0
approaches the cube from 2 mm to touching, across the reach r. A point further than r across
the axis from a body's extent is further than r from it, so gap_bound (the axial separation of
the faces in front of the pad only) is a lower bound too.
"""

from __future__ import annotations

import ipctk
import numpy as np
import pytest

from engine.grasp.simulation import GraspSimulation
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.internal_term import FreeInternalLayout
from engine.ipc.reduction import Reduction
from engine.ipc.system import OBJECT_OWNER
from tests.conftest import yumi_cube_simulation


@pytest.fixture(scope="module")
def sim() -> GraspSimulation:
    """The built-in cube in the YuMi at its default grasp, not yet simulated."""
    return yumi_cube_simulation()


def _pad0_facing_the_cube(sim):
    """(system, rest positions, pad 0-cube pair mesh and rows, pad 0's rows, its closing
    normal, how far its contact face is from the cube along that normal (m))."""
    s = sim.system
    x0 = s.collision_vertices(s.u_initial)
    mesh, rows = s.pair_mesh(0, OBJECT_OWNER)
    pad0 = s.collision_owner == 0
    normal = sim.normals[0]
    gap = float(np.min((x0[s.object_rows] - x0[pad0].max(axis=0)) @ normal))
    return s, x0, mesh, rows, pad0, normal, gap


def test_pair_sets_equal_full_builds_and_far_bodies_skip_the_build(sim, monkeypatch):
    s, x0, mesh, rows, pad0, normal, gap = _pad0_facing_the_cube(sim)
    builds = []
    real_build = ipc.collisions_within
    monkeypatch.setattr(ipc, "collisions_within", lambda *a: builds.append(1) or real_build(*a))
    radius = 1e-3
    skipped = 0
    for left in (2e-3, 1.2e-3, 1e-3 + 1e-6, 0.9e-3, 0.5e-3, 1e-4, 2e-5):
        x = x0.copy()
        x[pad0] += (gap - left) * normal
        builds.clear()
        _, _, got = s.pair_collisions(0, OBJECT_OWNER, x, radius)
        skipped += not builds
        full = real_build(mesh, x[rows], radius)
        assert len(got) == len(full)
        assert ipc.minimum_distance(got, mesh, x[rows]) == ipc.minimum_distance(full, mesh, x[rows])
        if left > radius:
            assert not len(full)
        if left < 0.5 * radius:
            assert len(full)  # the face is within reach: pairs found, not skipped
    assert skipped >= 2  # 2 mm and 1.2 mm away: no broad phase


def test_pair_sets_of_a_lifted_grip_equal_full_builds_with_one_broad_phase(sim, monkeypatch):
    """Pad 0 pressed within 0.3 radius of the cube, then both raised by 2 mm per frame (20
    radii, far outside the boxes) while the pad slides 0.2 radius towards the cube per frame:
    every set equals a full build (same pairs, same closest distance), and the broad phase
    runs once until the relative motion leaves the cover's margin (one radius)."""
    s, x0, mesh, rows, pad0, normal, gap = _pad0_facing_the_cube(sim)
    radius = 1e-4
    broad = []
    real_swept = ipc.swept_candidate_pairs  # a cover's broad phase
    monkeypatch.setattr(ipc, "swept_candidate_pairs", lambda *a: broad.append(1) or real_swept(*a))
    s.__dict__.pop("_pair_covers", None)
    up = np.array([0.0, 0.0, 2e-3])
    counts = []
    for frame in range(8):
        x = x0 + frame * up
        x[pad0] += (gap - 0.3 * radius + 0.2 * radius * frame * (frame < 5)) * normal
        _, _, got = s.pair_collisions(0, OBJECT_OWNER, x, radius)
        full = ipctk.NormalCollisions()  # ipctk's own build, its LBVH over the whole pair mesh
        full.build(mesh, x[rows], radius, 0.0, ipctk.LBVH())
        assert len(got) == len(full)
        # The same pairs; a closest point reached through another primitive pair (an edge-edge
        # pair instead of a face-vertex one) can differ in the last bits.
        assert ipc.minimum_distance(got, mesh, x[rows]) == pytest.approx(
            ipc.minimum_distance(full, mesh, x[rows]), rel=1e-12, abs=0
        )
        counts.append(len(broad))
    # Frames 0-4 move the pad 0.8 radius against the cube: inside the margin, one broad phase.
    # Frame 5 steps back to the start's gap (1 radius from frame 4): within the margin of the
    # cover's positions again. Every frame is 2 mm above the last.
    assert counts == [1] * 8, counts
    # The test can fail: a cover that ignored the translation would rebuild on every frame.
    x = x0 + 20 * up
    x[pad0] += (gap - 0.3 * radius + 1.5 * radius) * normal
    s.pair_collisions(0, OBJECT_OWNER, x, radius)
    assert len(broad) == 2  # 1.5 radii from the cover's positions: a new broad phase


@pytest.mark.parametrize(
    "tilt, offset", [(0.0, 0.0), (0.05, 0.0), (0.0, 1.0)], ids=["square", "tilted", "beside"]
)
def test_the_closest_gap_equals_the_full_radius_builds(sim, tilt, offset):
    s, x0, mesh, rows, pad0, normal, gap = _pad0_facing_the_cube(sim)
    # Tilted: pad 0's vertices shifted along the normal in proportion to one in-plane
    # coordinate. Beside: pad 0 moved sideways past the cube's edge plus 3 mm, so its
    # separation along the axis understates its distance and the first search finds nothing.
    side = np.cross(normal, [0.0, 0.0, 1.0])
    side /= np.linalg.norm(side)
    across = x0[pad0] @ side
    lean = tilt * (across - across.mean())
    sideways = offset * (np.ptp(x0[s.object_rows] @ side) / 2 + np.ptp(across) / 2 + 3e-3)
    radius = 8e-3
    for left in (6e-3, 3e-3, 1e-3, 2e-4, 5e-5):
        x = x0.copy()
        x[pad0] += np.outer(gap - left + lean - lean.max(), normal) + sideways * side
        full = ipc.minimum_distance(ipc.collisions_within(mesh, x[rows], radius), mesh, x[rows])
        # The closest pair's distance; reached through another primitive pair when the
        # candidates come from another broad phase, it can differ in the last bits.
        got = s.closest_gap(x, [(0, OBJECT_OWNER)], radius, sim.normals[0])
        assert got == pytest.approx(full, rel=1e-12, abs=0)
        assert full <= radius
        bound = s.gap_bound(x, 0, OBJECT_OWNER, sim.normals[0], radius)
        assert bound <= full * (1 + 1e-12)
        if offset and left < 2e-3:
            # 3 mm beside the cube no face is within 2 mm across the axis: the bound is that
            # reach, while the bodies' extents along the axis are only `left` apart.
            near = s.gap_bound(x, 0, OBJECT_OWNER, sim.normals[0], 2e-3)
            along = x @ sim.normals[0]
            apart = along[s.object_rows].min() - along[pad0].max()
            assert near == 2e-3 > apart + 1e-4


def test_a_layout_rescaled_to_another_time_step_equals_a_fresh_one(sim):
    """FreeInternalLayout.with_mass keeps the pattern and swaps M / h^2 (exactly)."""
    s = sim.system
    reduction = Reduction(s, sim.stepper.close_dir)
    base = FreeInternalLayout(s, s.mass / 0.01**2, reduction)
    for h in (0.02, 0.04, 0.005):
        fresh = FreeInternalLayout(s, s.mass / h**2, reduction)
        moved = base.with_mass(s.mass / h**2)
        assert np.array_equal(moved._indptr, fresh._indptr)
        assert np.array_equal(moved._indices, fresh._indices)
        assert np.array_equal(moved._mass_data, fresh._mass_data)
    assert not np.array_equal(base._mass_data, fresh._mass_data)  # base is unchanged


def test_the_approach_limit_skips_its_query_only_where_the_query_gives_the_whole_increment(
    sim, monkeypatch
):
    """Bodies at least delta + 0.9 dhat apart along the closing axis (2 delta with a pushing
    pad) leave room for the whole increment delta: GraspSimulation.approach_limit then returns
    delta without its closest-gap query, and everywhere it equals that query's answer."""
    s, x0, _, _, pad0, normal, gap = _pad0_facing_the_cube(sim)
    dhat = sim.params.dhat_m
    real_gap = s.closest_gap
    queries = []
    monkeypatch.setattr(s, "closest_gap", lambda *a: queries.append(1) or real_gap(*a))
    skipped = 0
    # 4.085 and 1.085 mm: within 0.05 dhat of where the shortcut starts for 4 and 1 mm.
    for left in (9e-3, 4.5e-3, 4.085e-3, 4e-3, 2e-3, 1.085e-3, 2e-4):
        x = x0.copy()
        x[pad0] += (gap - left) * normal
        monkeypatch.setattr(s, "collision_vertices", lambda u, x=x: x)
        for touching in [(False, False), (False, True)]:
            pairs = [(k, OBJECT_OWNER) for k in (0, 1) if not touching[k]]
            pairs += [] if any(touching) else [(0, 1)]
            share = 0.5 if any(touching) else 1.0
            for delta in (4e-3, 1e-3, 5e-5):
                room = real_gap(x, pairs, 2 * delta + dhat, sim.normals[0])
                expected = min(delta, share * (room - 0.9 * dhat))
                queries.clear()
                assert sim.approach_limit(delta, touching) == expected
                skipped += not queries
    assert skipped >= 5


def test_the_box_tests_kernels_equal_their_numpy_statements() -> None:
    # The same law in one pass (engine.ipc.collision_layout._boxes_apart) and with an early exit
    # (candidate_cover._inside): equal answers to the numpy formulas they replaced.
    from engine.ipc.candidate_cover import _inside
    from engine.ipc.collision_layout import _boxes_apart

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(2, 40))
        xs = rng.normal(size=(n, 3)) * rng.choice([1e-3, 1e-2])
        owners = rng.integers(0, 3, size=n)
        owners[:2] = (0, 1)  # both bodies present
        radius = float(rng.choice([0.0, 1e-4, 1e-3, 1e-2]))
        pa, pb = xs[owners == 0], xs[owners == 1]
        expected = bool(
            np.any(pa.min(axis=0) > pb.max(axis=0) + radius)
            or np.any(pb.min(axis=0) > pa.max(axis=0) + radius)
        )
        assert _boxes_apart(xs, owners, 0, 1, radius) == expected
        slack = float(rng.choice([1e-4, 1e-7]))  # some boxes hold every vertex, some do not
        lo = xs - rng.uniform(-slack, 1e-3, size=xs.shape)
        hi = xs + rng.uniform(-slack, 1e-3, size=xs.shape)
        assert _inside(xs, lo, hi) == bool(np.all(xs >= lo) and np.all(xs <= hi))
    assert not _inside(np.full((1, 3), np.nan), np.zeros((1, 3)), np.ones((1, 3)))


@pytest.mark.parametrize("side_mm", [0.0, 6.0, 30.0], ids=["facing", "off-centre", "beside"])
def test_a_pad_to_scan_distance_from_its_closest_faces_equals_the_whole_bodies(side_mm):
    """pair_distance hands ipctk only the face pairs near the closest point (engine.ipc.
    face_tree); on a 5120-face sphere (radius 40 mm) facing a 20 mm square pad it gives the
    whole bodies' minimum over every pair within the radius, bit for bit, from every gap and
    radius, with a few dozen of the 61,440 face pairs measured."""
    import trimesh

    from engine.ipc.collision_layout import CollisionLayout
    from engine.ipc.face_tree import close_face_pairs

    ball = trimesh.creation.icosphere(subdivisions=4, radius=0.04)
    pad = trimesh.creation.box(extents=(0.003, 0.02, 0.02))
    for gap in (5e-3, 1e-3, 2e-4, 3e-5):
        shift = np.array([0.04 + gap + 0.0015, side_mm * 1e-3, 0.05])
        up = np.array([0.0, 0.0, 0.05])
        x0 = np.vstack([np.asarray(pad.vertices) + shift, np.asarray(ball.vertices) + up])
        faces = np.vstack([pad.faces, np.asarray(ball.faces) + len(pad.vertices)])
        owner = np.r_[np.zeros(len(pad.vertices)), np.full(len(ball.vertices), OBJECT_OWNER)]
        layout = CollisionLayout(x0, faces, owner.astype(np.int32))
        mesh, rows = layout.pair_mesh(0, OBJECT_OWNER)
        for radius in (gap / 2, 2 * gap, 8e-3):
            full = ipc.minimum_distance(
                ipc.collisions_within(mesh, x0[rows], radius), mesh, x0[rows]
            )
            assert layout.pair_distance(0, OBJECT_OWNER, x0, radius) == full
        pair = layout._face_pair(0, OBJECT_OWNER)
        ia, _ = close_face_pairs(x0[rows], pair.tree_a, pair.tree_b, 8e-3)
        assert len(ia) <= 64
        assert (len(ia) > 0) == (full < 8e-3)  # beside the sphere, nothing within 8 mm
