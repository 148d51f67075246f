"""A trial simulates only the faces of a rigid object the pads can reach and the vertices the
ground can reach, and that cut changes nothing: contact happens only within dhat (plus a step's
motion, which CCD covers) of a pad or the ground, so faces further than the region's margin from
every pad and from the ground carry no force. Checked on a 240 x 20 x 20 mm bar meshed at 3 mm
(~10k faces):

- grasped at its centre, the trial on the cut equals the trial on the whole surface (outcome,
  frames, Newton iterations, grip forces and pose to round-off);
- the ground reaches the cut through the slab's vertices, kept without their faces;
- a 1 kg column of the same section standing, held 100 mm up with 2 x 0.5 x 5 N of friction
  against its 9.8 N weight, stays on the ground while the pads rise past it: once they have
  slid more than half the margin along it the step is retaken on the whole surface, and the
  outcome is the whole surface's;
- the checks themselves: a pad that moves more than half the margin against the object, or a
  left-out vertex that comes within half the ground slab of the ground, breaks the cut.
"""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

import engine.grasp.simulation as simulation
from engine.grasp.contact_region import GROUND_SLAB_M, REGION_MARGIN_M
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object, stable_poses

PARAMS = SimulationParams.from_values(squeeze_force_n=5.0, mu=0.5)


def _box_meshed_at_3mm(tmp_path_factory, name: str, extents: list[float]):
    """A box standing on z = 0 with faces of at most 3 mm, as loaded from a file."""
    box = trimesh.creation.box(extents=extents)
    vertices, faces = trimesh.remesh.subdivide_to_size(box.vertices, box.faces, 0.003)
    mesh = trimesh.Trimesh(vertices, faces)
    mesh.apply_translation([0.0, 0.0, 0.5 * extents[2]])
    path = tmp_path_factory.mktemp(name) / f"{name}.stl"
    mesh.export(path)
    return load_object_mesh(path)


@pytest.fixture(scope="module")
def bar(tmp_path_factory):
    mesh = _box_meshed_at_3mm(tmp_path_factory, "bar", [0.24, 0.02, 0.02])
    return rest_object(mesh, 0, mass_kg=0.1)


def _grasp(d: float) -> Grasp:
    return Grasp(center=[d, 0.0, 0.012], axis=[0.0, 1.0, 0.0])


def _trial(obj, d: float, whole: bool, monkeypatch):
    with monkeypatch.context() as m:
        if whole:
            m.setattr(simulation, "contact_region", lambda *a: None)
        (nominal,) = plan_trials(_grasp(d), TrialSpec(n_trials=1))
        poses = []
        result = run_trial(obj, nominal, PARAMS, on_frame=lambda f: poses.append(f.object_pose))
    return result, np.array(poses)


def test_the_cut_keeps_a_fraction_of_the_bar(bar):
    sim = GraspSimulation(bar, _grasp(0.0).pose(), PARAMS)
    assert sim.region is not None
    assert len(sim.region.faces) < 0.5 * len(bar.faces)
    assert len(sim.system.object_faces) == len(sim.region.faces)


def test_the_ground_touches_the_cut_through_vertices_alone(bar):
    """The ground is a plane: its pairs are plane-vertex pairs, so the cut keeps every vertex
    within the slab and none of the slab's faces outside the pads' reach (the bar's underside
    away from the grasp)."""
    sim = GraspSimulation(bar, _grasp(0.0).pose(), PARAMS)
    region = sim.region
    assert region is not None
    low = np.flatnonzero(bar.vertices[:, 2] < GROUND_SLAB_M)
    assert np.isin(low, region.vertex_ids).all()
    in_faces = np.unique(region.faces)
    faceless = np.setdiff1d(np.arange(len(region.vertex_ids)), in_faces)
    assert len(faceless) > 0.25 * len(low)  # the underside's far ends: vertices, no faces
    assert (bar.vertices[region.vertex_ids[faceless], 2] < GROUND_SLAB_M).all()


def test_a_centred_grasp_on_the_cut_equals_the_whole_surface(bar, monkeypatch):
    cut, cut_poses = _trial(bar, 0.0, whole=False, monkeypatch=monkeypatch)
    whole, whole_poses = _trial(bar, 0.0, whole=True, monkeypatch=monkeypatch)
    assert cut.success and whole.success
    assert (cut.reason, cut.frames, cut.newton_iterations) == (
        whole.reason,
        whole.frames,
        whole.newton_iterations,
    )
    assert cut.grip_force1_n == pytest.approx(whole.grip_force1_n, rel=1e-6)
    assert cut.grip_force2_n == pytest.approx(whole.grip_force2_n, rel=1e-6)
    assert cut.lift_height_m == pytest.approx(whole.lift_height_m, rel=1e-6)
    assert np.abs(cut_poses - whole_poses).max() < 1e-9


@pytest.fixture(scope="module")
def column(tmp_path_factory):
    loaded = _box_meshed_at_3mm(tmp_path_factory, "column", [0.02, 0.02, 0.12])
    poses = [rest_object(loaded, k, mass_kg=1.0) for k in range(len(stable_poses(loaded)))]
    return max(poses, key=lambda o: float(np.ptp(o.vertices[:, 2])))  # standing


def test_an_object_leaving_its_cut_goes_on_with_the_whole_surface(column, monkeypatch):
    switched = []
    real = simulation._WholeSurface.whole

    def whole(self):
        if self.region is not None:
            switched.append(1)
        return real(self)

    monkeypatch.setattr(simulation._WholeSurface, "whole", whole)
    grasp = Grasp(center=[0.0, 0.0, 0.1], axis=[0.0, 1.0, 0.0])
    (nominal,) = plan_trials(grasp, TrialSpec(n_trials=1))
    sim = GraspSimulation(column, grasp.pose(), PARAMS)
    assert sim.region is not None and len(sim.region.faces) < 0.7 * len(column.faces)
    cut = run_trial(column, nominal, PARAMS)
    assert switched, "the pads slid past the column's cut without leaving it"
    with monkeypatch.context() as m:
        m.setattr(simulation, "contact_region", lambda *a: None)
        full = run_trial(column, nominal, PARAMS)
    assert not cut.success and not full.success
    # Both pads slip alike (a symmetric grasp): which one the reason names is round-off.
    assert cut.reason.split(" along")[0] == full.reason.split(" along")[0]
    assert cut.slip1_m == pytest.approx(full.slip1_m, abs=1e-6)
    assert cut.slip2_m == pytest.approx(full.slip2_m, abs=1e-6)


def test_the_checks_break_when_a_pad_or_a_left_out_vertex_moves_too_far(bar):
    sim = GraspSimulation(bar, _grasp(0.0).pose(), PARAMS)
    region, s = sim.region, sim.system
    assert region is not None
    u = sim.stepper.state.u.copy()
    assert region.holds(s, u)
    q = s.object_state(u)
    # The object slides along the bar's length under the pads (the pads move against it).
    for shift, holds in ((0.45 * REGION_MARGIN_M, True), (0.55 * REGION_MARGIN_M, False)):
        moved = u.copy()
        moved[s.obj_dof] = q + np.r_[shift, 0.0, 0.0, np.zeros(9)]
        assert region.holds(s, moved) is holds
    # The object sinks until its left-out vertices (above the slab at rest) reach the guard.
    low = region.lowest_left_out_m(q)
    assert low >= GROUND_SLAB_M - 1e-9
    for drop, holds in ((low - 0.55 * GROUND_SLAB_M, True), (low - 0.45 * GROUND_SLAB_M, False)):
        moved = u.copy()
        moved[s.obj_dof] = q - np.r_[0.0, 0.0, drop, np.zeros(9)]
        assert region.holds(s, moved) is holds
