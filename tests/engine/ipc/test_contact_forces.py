"""The contact forces a frame reports on the object obey the laws of mechanics.

- Newton's third law: what pad k pushes the object with is what the object pushes pad k back
  with. The pad side is the frame's grip force (grip_forces: the barrier gradient summed over
  the pad's vertices, along its closing normal); the object side is the barrier gradient at
  the object's own collision vertices. The arrows a frame carries (placed at the pad's contact
  vertices) have the object side's resultant and moment.
- Newton's second law for the rigid object: the contact forces of the pads and the ground
  (normal and friction) plus its weight m g equal m a, with a the implicit-Euler acceleration of
  its centre of mass between frames. While it is held still, they balance its weight.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.constants import GRAVITY_M_S2
from engine.grasp.default_grasp import default_grasp
from engine.grasp.frames import Frame
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.io.frames_npz import (
    CONTACT_COLUMNS,
    FramesError,
    frames_from_arrays,
    load_frames,
    save_frames,
)
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_metrics import SOURCE_GROUND
from engine.ipc.system import OBJECT_OWNER
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object


@pytest.fixture(scope="module")
def run():
    """The built-in 3 cm, 3 g cube in the YuMi (20 N force-limited squeeze, force hold):
    (simulation, [(frame, the simulation's state at that frame)])."""
    obj = rest_object(builtin_cube(), 0)
    params = SimulationParams.for_gripper("yumi")
    pad = build_pad(params)
    sim = GraspSimulation(obj, default_grasp(obj, pad.outline).pose(), params, pad=pad)
    out = [(frame, sim.stepper.state) for frame in sim.frames()]
    assert sim.result.success, sim.result.reason
    return sim, out


def _squeezed(run):
    sim, frames = run
    frame, state = [fs for fs in frames if fs[0].phase == "squeeze"][-1]
    assert min(frame.grip_force_n) > 19.0  # the YuMi's 20 N reached
    return sim, frame, state


def _object_side_normal_force(sim: GraspSimulation, state, k: int):
    """Resultant (N) and moment about the origin (N m) of pad k's barrier forces on the object's
    own collision vertices, from a contact set built afresh on the pad-object pair."""
    s = sim.system
    mesh, rows = s.pair_mesh(k, OBJECT_OWNER)
    x = s.collision_vertices(state.u)[rows]
    c = ipc.collisions_within(mesh, x, sim.params.dhat_m)
    g = ipc.barrier(sim.params.dhat_m, state.kappa).gradient(c, mesh, x).reshape(-1, 3)
    on_object = s.collision_owner[rows] == OBJECT_OWNER
    force = -g[on_object]
    return force.sum(axis=0), np.cross(x[on_object], force).sum(axis=0)


@pytest.mark.slow
def test_third_law_between_each_pad_and_the_object(run):
    sim, frame, state = _squeezed(run)
    for k in (0, 1):
        resultant, moment = _object_side_normal_force(sim, state, k)
        grip = frame.grip_force_n[k]
        # The object is pushed along pad k's closing normal with the force pad k feels.
        assert resultant @ sim.normals[k] == pytest.approx(grip, rel=1e-9)
        mine = frame.contact_source == k
        assert mine.sum() > 20  # the pad's pressed patch, not a few corners
        arrows = frame.contact_normal_n[mine]
        assert arrows.sum(axis=0) @ sim.normals[k] == pytest.approx(grip, rel=1e-9)
        np.testing.assert_allclose(arrows.sum(axis=0), resultant, rtol=0, atol=1e-9 * grip)
        # Same moment about the origin: the arrows at the pad's vertices are equivalent to the
        # object's nodal forces (each pair's barrier is invariant under rigid motions).
        arrow_moment = np.cross(frame.contact_points[mine], arrows).sum(axis=0)
        size = float(np.abs(frame.contact_points).max())
        np.testing.assert_allclose(arrow_moment, moment, rtol=0, atol=1e-9 * grip * size)
        # The arrows sit on the pressed patch: within a pad edge of the object's surface.
        s = sim.system
        surface = trimesh.Trimesh(
            s.collision_vertices(state.u)[s.object_rows], sim.obj.faces, process=False
        )
        _, distance, _ = trimesh.proximity.closest_point(surface, frame.contact_points[mine])
        assert distance.max() <= sim.params.pad_edge_length_m


@pytest.mark.slow
def test_resting_object_is_carried_by_the_ground(run):
    """Before the pads touch, the ground's normal forces carry exactly the weight, at the
    object's lowest vertices, pointing up; there is no friction on a resting object."""
    sim, frames = run
    frame = frames[2][0]  # two steps in: the object has settled into the barrier
    assert frame.phase == "squeeze" and max(frame.grip_force_n) == 0.0
    weight = sim.obj.mass_kg * GRAVITY_M_S2
    assert np.all(frame.contact_source == SOURCE_GROUND)
    assert len(frame.contact_points) == 4  # the cube's four bottom corners
    assert np.all(frame.contact_points[:, 2] < sim.params.dhat_m)
    assert frame.contact_normal_n[:, 2].sum() == pytest.approx(weight, rel=1e-5)
    assert np.all(frame.contact_normal_n[:, 2] > 0)
    assert np.abs(frame.contact_normal_n[:, :2]).max() < 1e-12
    assert np.abs(frame.contact_friction_n).max() < 1e-12


def _com(sim: GraspSimulation, frame: Frame) -> np.ndarray:
    pose = frame.object_pose
    return pose[:3, :3] @ np.asarray(sim.obj.center_of_mass) + pose[:3, 3]


@pytest.mark.slow
def test_held_object_contact_forces_balance_its_weight(run):
    """Newton's second law over the hold: F_contact + m g = m a.

    Tolerance from Newton's stopping rule: a step ends only when every force residual is below
    newton_force_tol (1e-3 N per object translation DOF; the potential divided by h^2 has
    forces as its gradient), so the object's net force residual is at most sqrt(3) x 1e-3 N,
    6 % of the cube's 0.029 N weight; the last step is taken too, which leaves less (measured
    1.4e-7 N at 1e-8 m before the force criterion; 2e-5 N at 1e-9 m when the last step was
    dropped).
    """
    sim, frames = run
    p = sim.params
    m = sim.obj.mass_kg
    weight = np.array([0.0, 0.0, -m * GRAVITY_M_S2])
    hold = [i for i, (f, _) in enumerate(frames) if f.phase == "hold"]
    assert len(hold) >= 4
    for i in hold:
        f0, f1, f2 = (frames[j][0] for j in (i - 2, i - 1, i))
        h1, h2 = f1.time_s - f0.time_s, f2.time_s - f1.time_s
        c0, c1, c2 = (_com(sim, f) for f in (f0, f1, f2))
        accel = ((c2 - c1) / h2 - (c1 - c0) / h1) / h2
        contact = f2.contact_normal_n.sum(axis=0) + f2.contact_friction_n.sum(axis=0)
        assert np.all(f2.contact_source != SOURCE_GROUND)  # lifted: pads only
        tol = math.sqrt(3.0) * p.newton_force_tol_n
        residual = contact + weight - m * accel
        assert np.linalg.norm(residual) <= tol, (i, residual, tol)
        # Both kinds of force are needed: friction carries the weight (with the barrier forces'
        # vertical part where the pads bulge round the cube's top edge).
        normal_only = f2.contact_normal_n.sum(axis=0) + weight - m * accel
        assert abs(normal_only[2]) > 0.5 * m * GRAVITY_M_S2  # not balanced without friction
    # After the stop at the lift height, the object is still: contact forces = - weight.
    last = frames[hold[-1]][0]
    total = last.contact_normal_n.sum(axis=0) + last.contact_friction_n.sum(axis=0)
    np.testing.assert_allclose(total, -weight, rtol=0, atol=1e-3 * m * GRAVITY_M_S2)


def _bare_frame(**forces) -> Frame:
    return Frame(
        index=0,
        time_s=0.0,
        phase="squeeze",
        pad_vertices=(np.zeros((1, 3)), np.zeros((1, 3))),
        object_pose=np.eye(4),
        plate_travel_m=0.0,
        plate_lift_m=0.0,
        psi_j=(0.0, 0.0),
        grip_force_n=(0.0, 0.0),
        contacts={c: 0 for c in CONTACT_COLUMNS},
        min_distance_m=1.0,
        object_min_z_m=0.0,
        newton_iterations=0,
        intersection_free=True,
        **forces,
    )


def test_frames_without_forces_are_empty():
    """Frames built without the forces (older files, other simulators) carry none."""
    frame = _bare_frame()
    assert frame.contact_points.shape == (0, 3)
    assert frame.contact_normal_n.shape == frame.contact_friction_n.shape == (0, 3)
    assert frame.contact_source.shape == (0,)


def _save(tmp_path, frames):
    mesh = np.zeros((1, 3), dtype=np.int32)
    return save_frames(tmp_path / "f.npz", {0: frames}, np.zeros((1, 4)), mesh, np.eye(3), mesh)


def test_frames_file_round_trip_and_older_files(tmp_path):
    rng = np.random.default_rng(0)
    with_forces = _bare_frame(
        contact_points=rng.normal(size=(5, 3)),
        contact_normal_n=rng.normal(size=(5, 3)),
        contact_friction_n=rng.normal(size=(5, 3)),
        contact_source=np.array([0, 0, 1, 1, 2], dtype=np.int8),
    )
    frames = [with_forces, _bare_frame(), with_forces]
    _, arrays = load_frames(_save(tmp_path, frames))
    back = frames_from_arrays(arrays, "t0/")
    for a, b in zip(frames, back, strict=True):
        for name in ("contact_points", "contact_normal_n", "contact_friction_n"):
            # float32 in the file: 6 significant digits are plenty for drawing and reading.
            np.testing.assert_allclose(getattr(b, name), getattr(a, name), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(b.contact_source, a.contact_source)
    # A file written before the forces were kept: its frames load, with no forces.
    older = {k: v for k, v in arrays.items() if "/contact_" not in k}
    assert all(len(f.contact_source) == 0 for f in frames_from_arrays(older, "t0/"))
    # Rows that do not add up to the counts are refused with the array's name.
    broken = dict(arrays)
    broken["t0/contact_count"] = np.array([5, 1, 5], dtype=np.int32)
    with pytest.raises(FramesError, match="contact_points"):
        frames_from_arrays(broken, "t0/")
    partial = {k: v for k, v in arrays.items() if k != "t0/contact_source"}
    with pytest.raises(FramesError, match="contact_source"):
        frames_from_arrays(partial, "t0/")


@pytest.mark.slow
def test_simulated_forces_survive_the_frames_file(run, tmp_path):
    _, frames = run
    frames = [f for f, _ in frames]
    _, arrays = load_frames(_save(tmp_path, frames))
    back = frames_from_arrays(arrays, "t0/")
    for a, b in zip(frames, back, strict=True):
        np.testing.assert_array_equal(b.contact_source, a.contact_source)
        total = a.contact_normal_n.sum(axis=0) if len(a.contact_source) else np.zeros(3)
        np.testing.assert_allclose(
            b.contact_normal_n.sum(axis=0) if len(b.contact_source) else np.zeros(3),
            total,
            rtol=0,
            atol=1e-5 * max(1.0, float(np.abs(total).max())),
        )


@pytest.mark.slow
def test_ground_pairs_gradients_in_one_call_equal_the_pairs_one_by_one(run):
    """ContactTerm.ground_gradients (the vertex-ground pairs rebuilt on a mesh of vertices and
    the ground alone) equals the step's own vertex-ground pairs evaluated one by one: the same
    pairs, barrier forces and lagged friction, on every frame where the cube stands on the ground."""
    sim, frames = run
    s = sim.system
    checked = 0
    for _, state in frames:
        contact = state.contact
        if contact is None:
            continue
        x = s.collision_vertices(state.u)
        dx = x - contact.x_prev
        barrier, friction = np.zeros((s.n_collision, 3)), np.zeros((s.n_collision, 3))
        plane_pairs = 0
        for pairs, potential, at, out in (
            (contact.collisions, contact.barrier, x, barrier),
            (contact.tangential, contact.friction, dx, friction),
        ):
            for pair in pairs:
                if ipc.is_plane_vertex(pair):
                    ids, g = ipc.pair_gradient(potential, pair, s.collision_mesh, at)
                    np.add.at(out, ids, g)
                    plane_pairs += 1
        got_barrier, got_friction = contact.ground_gradients(x)
        np.testing.assert_allclose(got_barrier, barrier, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got_friction, friction, rtol=1e-12, atol=1e-15)
        checked += plane_pairs > 0 and np.abs(friction).max() > 0
    assert checked >= 5  # frames with the cube on the ground, its friction at work


def test_the_ground_mesh_pairs_each_vertex_with_the_ground_only():
    """Two vertices 10 um apart, 50 um above the ground (a pad's vertex at the cube's corner):
    the ground mesh's contact set holds their two vertex-ground pairs and not the vertex-vertex
    pair between them, whose barrier would be counted as the ground's force."""
    x = np.array([[0.0, 0.0, 5e-5], [1e-5, 0.0, 5e-5], [0.01, 0.0, 0.01]])
    mesh = ipc.ground_mesh(x)
    pairs = ipc.active_collisions(mesh, x, 1e-4)
    assert len(pairs) == 2 and all(ipc.is_plane_vertex(p) for p in pairs)
    g = ipc.barrier(1e-4, 1.0).gradient(pairs, mesh, x).reshape(-1, 3)
    assert np.all(g[:2, :2] == 0.0) and np.all(g[:2, 2] < 0.0)  # straight up, off the ground
    assert np.all(g[2] == 0.0)


def test_a_trial_nobody_watches_skips_the_arrows_and_ends_the_same(run, monkeypatch):
    # The arrows are a reading of the state, not part of the dynamics: without them a trial
    # takes the same iterates (engine.grasp.trials.run_trial skips them without on_frame).
    import engine.grasp.trials as trials

    sim, frames = run
    built: list[GraspSimulation] = []

    class Spy(GraspSimulation):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(trials, "GraspSimulation", Spy)
    (nominal,) = trials.plan_trials(
        default_grasp(sim.obj, sim.pad.outline), trials.TrialSpec(n_trials=1)
    )
    result = trials.run_trial(sim.obj, nominal, sim.params, pad=sim.pad)
    assert not built[0].contact_forces
    assert (result.success, result.frames, result.newton_iterations) == (
        sim.result.success,
        sim.result.frames,
        sim.result.newton_iterations,
    )
    assert result.grip_force1_n == sim.result.grip_force1_n
    assert result.lift_height_m == sim.result.lift_height_m
    assert any(len(f.contact_points) for f, _ in frames)  # the watched run has its arrows

    seen: list[Frame] = []
    trials.run_trial(sim.obj, nominal, sim.params, pad=sim.pad, on_frame=seen.append)
    assert built[1].contact_forces and any(len(f.contact_points) for f in seen)
