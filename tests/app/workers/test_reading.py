"""The reading worker's body (app.workers.reading) without a process: what each read job
answers (issue 42: the app reads files in a worker, never on its GUI thread)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import trimesh

from app.workers.messages import ReadDataSetJob, ReadObjectJob, ReadSessionJob
from app.workers.reading import read
from engine.scene.mesh_bodies import SeveralBodiesError
from engine.scene.object_mesh import ObjectSizeError
from tests.app.test_session_consent import session_with_outside_mesh


def _box(path: Path, extents_mm=(40.0, 30.0, 20.0), scale=1e-3) -> Path:
    trimesh.creation.box(extents=np.asarray(extents_mm) * scale).export(path)
    return path


def test_a_mesh_read_carries_the_repaired_mesh_and_its_stable_poses(tmp_path):
    answer = read(ReadObjectJob(7, str(_box(tmp_path / "box.obj"))))
    assert answer.request == 7 and answer.error is None
    mesh, poses = answer.value
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), [0.04, 0.03, 0.02], atol=1e-12)
    # A box rests on its 6 faces: 3 distinct poses up to a turn, each on two opposite faces.
    assert len(poses) == 6 and abs(sum(p.probability for p in poses) - 1.0) < 1e-9
    pickle.loads(pickle.dumps(answer))  # it crosses the process boundary


def test_a_size_refusal_carries_the_size_in_the_files_own_units(tmp_path):
    """A box saved in millimetres is 50 m across read in metres: the answer holds the
    engine's ObjectSizeError and the file's extents, from which the app offers the units."""
    path = _box(tmp_path / "box_mm.stl", scale=1.0)
    answer = read(ReadObjectJob(1, str(path)))
    assert isinstance(answer.error, ObjectSizeError) and answer.value is None
    np.testing.assert_allclose(answer.extents, (40.0, 30.0, 20.0))
    assert read(ReadObjectJob(2, str(path), extents_only=True)).extents == answer.extents
    in_mm = read(ReadObjectJob(3, str(path), unit="mm"))
    assert in_mm.error is None and len(in_mm.value[1]) == 6


def test_several_bodies_come_back_with_their_descriptions(tmp_path):
    a = trimesh.creation.box(extents=(0.04, 0.04, 0.04))
    b = trimesh.creation.icosphere(radius=0.015).apply_translation((0.1, 0, 0))
    path = tmp_path / "two.obj"
    trimesh.util.concatenate([a, b]).export(path)
    answer = read(ReadObjectJob(1, str(path)))
    assert isinstance(answer.error, SeveralBodiesError)
    assert [d.split(":")[0] for d in answer.error.bodies[:2]] == ["body 0", "body 1"]
    mesh, _ = read(ReadObjectJob(2, str(path), body="1")).value
    assert np.ptp(mesh.vertices, axis=0).max() < 0.031  # the ball alone


def test_a_session_names_an_outside_file_before_reading_it(tmp_path):
    """A session's object file outside its folder is not read until the user answered."""
    json_path, mesh_path = session_with_outside_mesh(tmp_path)
    asked = read(ReadSessionJob(1, str(json_path)))
    assert asked.ask_outside == str(mesh_path.resolve()) and asked.value is None
    allowed = read(ReadSessionJob(2, str(json_path), allowed=frozenset({asked.ask_outside})))
    _, read_mesh, note, poses = allowed.value
    assert note == "" and read_mesh.source == str(mesh_path.resolve()) and poses
    refused = read(ReadSessionJob(3, str(json_path), refused=frozenset({asked.ask_outside})))
    assert "copy embedded in the session" in refused.value[2]


def test_a_damaged_data_set_is_an_error_answer_not_an_exception(tmp_path):
    bad = tmp_path / "grasps.csv"
    bad.write_text("object,center_x\ncube,not-a-number\n")
    answer = read(ReadDataSetJob(4, str(bad)))
    assert answer.value is None and answer.error is not None and answer.request == 4
