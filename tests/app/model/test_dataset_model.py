"""The data-set browser's Qt-free model (app.model.dataset): what each kind of file gives, and
that a grasp shown on the window's object is the grasp the batch simulated."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.model import AppModel, Document
from app.model.dataset import (
    FALSE_NEGATIVE,
    FALSE_POSITIVE,
    RESULTS,
    DataSetGrasp,
    SimTrial,
)
from app.model.dataset_placement import (
    placement,
    recorded_trial,
)
from app.model.dataset_reading import (
    grasp_poses,
    load_data_set,
)
from engine.batch.grasp_table import build_scene, read_grasp_table
from engine.cli.main import main
from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.io.frames_npz import CONTACT_COLUMNS, save_frames
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object
from tests.conftest import REACH_JSON


def test_grasp_poses_are_grasp_pose_for_many_at_once():
    # To round-off, not bit for bit: numpy's vectorised norm and trigonometry may differ from the
    # scalar path in the last bit (numpy 2.4.6 does, by 2.2e-16).
    rng = np.random.default_rng(3)
    centers, axes = rng.normal(size=(60, 3)), rng.normal(size=(60, 3))
    axes[:10] = [0.0, 0.001, 2.0]  # near-vertical axes take the other reference direction
    angles = rng.uniform(-math.pi, math.pi, 60)
    poses = grasp_poses(centers, axes, angles)
    for c, a, t, pose in zip(centers, axes, angles, poses, strict=True):
        np.testing.assert_allclose(pose, Grasp(c, a, t).pose(), rtol=0.0, atol=1e-12)


def test_reach_grasps_shown_on_a_stable_pose_are_the_batch_grasps_turned_about_the_vertical():
    """Each REACH record rests the cube on one face (snapped flat, as the batch does); shown on
    the stable pose resting on that face, the gripper sits on the cube exactly where the batch
    put it: the same pose in the cube's mesh frame, and the same height and tilt."""
    if not REACH_JSON.is_file():
        pytest.skip("REACH reference data not found (../shared/data)")
    ds = load_data_set(REACH_JSON)
    assert ds.kind == "reach" and len(ds.grasps) == 25 and ds.has_physical
    assert [g.physical_rate for g in ds.grasps][:3] == [1.0, 0.8, 0.2]
    table = read_grasp_table(REACH_JSON)
    obj = next(iter(ds.objects.values()))
    doc = Document.open_object(obj.spec_text, mesh=obj.mesh, find_default=False)
    for g, spec in zip(ds.grasps, table.grasps, strict=True):
        batch_obj, _mesh, batch_grasp = build_scene(spec)  # what `ipcgrasp batch` simulates
        p = placement(obj, g, doc)
        assert p.same_support
        shown = rest_object(obj.mesh, p.pose_index)
        mine = np.linalg.solve(shown.pose_transform, p.grasp.pose())
        theirs = np.linalg.solve(batch_obj.pose_transform, batch_grasp.pose())
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
        assert p.grasp.center[2] == pytest.approx(batch_grasp.center[2], abs=1e-12)
        assert p.grasp.axis[2] == pytest.approx(batch_grasp.axis[2], abs=1e-12)
        # The 3 g cube: its density is set so the shown object weighs what the batch's did.
        assert p.density_kg_m3 is None or p.density_kg_m3 * shown.volume_m3 == pytest.approx(
            batch_obj.mass_kg
        )


def _grasp(q: float, physical: tuple[bool, ...]) -> DataSetGrasp:
    g = DataSetGrasp(0, "g", "", ("pose", 0), None, physical=physical)
    g.robustness["ipc"] = q
    return g


def test_marks_compare_each_model_with_the_physical_rate_at_one_half():
    assert _grasp(1.0, (True, False, False, False, False)).mark("ipc") == FALSE_POSITIVE
    assert _grasp(0.4, (True, True, True, False, False)).mark("ipc") == FALSE_NEGATIVE
    assert _grasp(0.5, (True, True, True, False, False)).mark("ipc") == ""  # both >= 0.5
    assert _grasp(0.2, (False,) * 5).mark("ipc") == ""
    assert _grasp(1.0, ()).mark("ipc") == ""  # no physical outcome: no mark
    assert _grasp(math.nan, (True,)).mark("ipc") == ""


def test_a_results_csv_gives_each_models_robustness_and_its_grasps(tmp_path):
    """A batch on a grasp table of the built-in cube (stable poses 0 and 2): the browser reads
    the batch's rows back into grasps (with their resting pose) and each model's robustness,
    as `ipcgrasp evaluate` reduces them."""
    grasps = tmp_path / "grasps.csv"
    grasps.write_text(
        "grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z,stable_pose\n"
        "a,cube,0,0,0.015,1,0,0,0\n"
        "b,cube,0,0.003,0.012,0,1,0,2\n"
        "bad,cube,0,0,0.015,0,0,0,0\n"
    )
    out = tmp_path / "results.csv"
    code = main(["batch", str(grasps), "--out", str(out), "--models", "soft_point", "--samples",
                 "4", "--workers", "0", "--quiet"])  # fmt: skip
    assert code == 1  # the error row of "bad" (a zero axis)
    ds = load_data_set(out)
    assert ds.kind == RESULTS and ds.models == ["soft_point"] and not ds.has_physical
    assert ds.frames_dir is None and ds.frames_count == 0
    by_id = {g.grasp_id: g for g in ds.grasps}
    assert by_id["bad"].mesh_pose is None and "zero vector" in by_id["bad"].error
    for gid, pose, center in (("a", 0, [0, 0, 0.015]), ("b", 2, [0, 0.003, 0.012])):
        g = by_id[gid]
        assert g.rest == ("pose", pose) and 0.0 <= g.robustness["soft_point"] <= 1.0
        np.testing.assert_allclose(g.geometry[0], center)
        doc = Document.open_object("cube", find_default=False)
        p = placement(ds.objects[g.object_key], g, doc)
        assert p.pose_index == pose and p.grasp.center.tolist() == center
    assert ds.matches(by_id["a"], "A") and not ds.matches(by_id["a"], "b")
    assert ds.matches(by_id["bad"], show="errors") and not ds.matches(by_id["a"], show="frames")


def _frame(pad: np.ndarray, pose: np.ndarray) -> Frame:
    return Frame(
        index=0, time_s=0.0, phase="lift", pad_vertices=(pad, pad + 0.01), object_pose=pose,
        plate_travel_m=0.0, plate_lift_m=0.0, psi_j=(0.0, 0.0), grip_force_n=(1.0, 1.0),
        contacts=dict.fromkeys(CONTACT_COLUMNS, 1), min_distance_m=1e-4, object_min_z_m=0.001,
        newton_iterations=3, intersection_free=True,
    )  # fmt: skip


def test_a_recorded_trial_is_moved_onto_the_object_as_the_window_rests_it(tmp_path):
    """A frames file stores the batch's resting frame; shown on the same object turned about
    the vertical, the pads and the object's pose are turned with it (rigidly)."""
    cube = builtin_cube()
    batch_rest = rest_object(cube, 0)
    turn = np.eye(4)
    c, s = math.cos(0.7), math.sin(0.7)
    turn[:2, :2] = [[c, -s], [s, c]]
    target = batch_rest.vertices @ turn[:3, :3].T  # the window's resting vertices
    pad = np.array([[0.02, 0.0, 0.01], [0.02, 0.01, 0.01], [0.02, 0.0, 0.02]])
    lifted = np.eye(4)
    lifted[2, 3] = 0.001
    path = save_frames(
        tmp_path / "k.npz", {3: [_frame(pad, lifted)]}, np.array([[0, 1, 2, 0]]),
        np.array([[0, 1, 2]]), batch_rest.vertices, batch_rest.faces,
        extra_meta={"gripper_pose": np.eye(4).tolist()},
    )  # fmt: skip
    row = {"trial": "3", "success": "True", "reason": "lifted", "frames": "1", "psi1": "1e-4"}
    trial = SimTrial("ipc", 3, "ok", True, "lifted", 1, "k", path, row)
    rec, params = recorded_trial(trial, target)
    assert rec.trial == 3 and rec.result is not None and rec.result.success
    assert rec.result.psi1_j == pytest.approx(1e-4) and params is None  # no param_* cells
    f = rec.frames[0]
    np.testing.assert_allclose(f.pad_vertices[0], pad @ turn[:3, :3].T, atol=1e-12)
    np.testing.assert_allclose(rec.gripper_pose, turn, atol=1e-12)
    # The object drawn from the window's vertices lands where the batch's object was, turned.
    moved = target @ f.object_pose[:3, :3].T + f.object_pose[:3, 3]
    np.testing.assert_allclose(
        moved, (batch_rest.vertices + np.array([0, 0, 0.001])) @ turn[:3, :3].T, atol=1e-12
    )
    # The model refuses frames of pads other than the current parameters' pads.
    model = AppModel()
    model.set_document(Document.open_object("cube", find_default=False))
    with pytest.raises(Exception, match="pads have 3 vertices"):
        model.load_recorded_trial(trial)
