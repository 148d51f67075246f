"""A batch worker loads each object file once for all its grasps (engine.batch.task_run): the
mesh (read, repaired, checked) and its stable poses are kept while the file keeps its size and
modification time, so the grasps of one 16k-face scan do not each pay seconds of set-up; the
scenes are the ones build_scene gives from scratch, and a changed file is read again."""

from __future__ import annotations

import os

import numpy as np
import trimesh

from engine.batch import task_run
from engine.batch.grasp_scene import build_scene
from engine.batch.grasp_spec import GraspSpec


def _spec(path, k: int) -> GraspSpec:
    return GraspSpec(
        grasp_id=f"g{k}",
        source_row=f"line {k + 2}",
        object=str(path),
        center=np.array([0.0, 0.0, 0.01 + 0.001 * k]),
        axis=np.array([1.0, 0.0, 0.0]),
    )


def test_the_grasps_of_one_object_load_it_once_and_see_the_same_scene(tmp_path, monkeypatch):
    path = tmp_path / "box.stl"
    trimesh.creation.box(extents=(0.03, 0.02, 0.04)).export(path)
    loads, poses = [], []
    real_load, real_poses = task_run.object_from_spec, task_run.stable_poses
    monkeypatch.setattr(
        task_run, "object_from_spec", lambda *a, **k: loads.append(1) or real_load(*a, **k)
    )
    monkeypatch.setattr(task_run, "stable_poses", lambda m: poses.append(1) or real_poses(m))
    monkeypatch.setattr(task_run, "_SCENES", {})
    monkeypatch.setattr(task_run, "_OBJECTS", {})
    scenes = [task_run._scene(_spec(path, k)) for k in range(3)]
    assert len(loads) == 1 and len(poses) == 1
    for k, (obj, _, grasp) in enumerate(scenes):
        fresh, _, fresh_grasp = build_scene(_spec(path, k))
        np.testing.assert_array_equal(obj.vertices, fresh.vertices)
        assert obj.mass_kg == fresh.mass_kg and obj.stable_pose_index == fresh.stable_pose_index
        np.testing.assert_array_equal(grasp.center, fresh_grasp.center)
    # The file changes (another size): read again.
    trimesh.creation.box(extents=(0.03, 0.02, 0.05)).export(path)
    os.utime(path, ns=(1, 1))
    obj, _, _ = task_run._scene(_spec(path, 9))
    assert len(loads) == 2
    assert np.ptp(obj.vertices[:, 2]) == np.float64(
        np.ptp(build_scene(_spec(path, 9))[0].vertices[:, 2])
    )
