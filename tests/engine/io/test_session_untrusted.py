"""Sessions as untrusted input (issue 42, point 7): the embedded mesh goes through the loader's
checks and repair; an object file outside the session's folder is read only with consent, and
never a special file or one over the size budget."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.io.session import SessionError, load_session, object_file, resolve_object, save_session
from engine.scene.mesh_surface import signed_volume
from engine.scene.object_mesh import builtin_cube, load_object_mesh
from tests.engine.io.test_session_validation import make_session, rewrite_npz
from tests.engine.scene.test_damaged_meshes import CUBE_F, CUBE_V


def _saved_with_file(tmp_path: Path, mesh_dir: Path):
    """A session in tmp_path/session whose object is the cube file in `mesh_dir`."""
    mesh_dir.mkdir(parents=True, exist_ok=True)
    mesh_path = mesh_dir / "box.obj"
    builtin_cube().to_trimesh().export(mesh_path)
    mesh = load_object_mesh(mesh_path)
    session = dataclasses.replace(
        make_session(), object_source=mesh.source, object_sha256=mesh.sha256, mesh=mesh,
        object_name="box",
    )  # fmt: skip
    folder = tmp_path / "session"
    folder.mkdir(exist_ok=True)
    json_path, npz_path = save_session(folder / "s", session)
    return json_path, npz_path, mesh_path


def test_a_self_crossing_embedded_mesh_is_refused(tmp_path):
    """Before: it loaded, and opening the session hung in the stable-pose step."""
    json_path, npz_path = save_session(tmp_path / "s", make_session())
    vertices = np.array(CUBE_V[:1] + CUBE_V)
    faces = np.array([[int(i) - 1 for i in f.split()] for f in CUBE_F])
    rewrite_npz(
        json_path, npz_path, lambda a: a.update(object_vertices=vertices, object_faces=faces)
    )
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    assert str(err.value).startswith(
        "the mesh embedded in s.ipcgrasp.json's arrays file intersects itself"
    )


def test_an_inside_out_embedded_mesh_is_turned_outwards(tmp_path):
    """Before: taken as it was, with a negative volume (a mass of -0.75 g at 1000 kg/m^3)."""
    json_path, npz_path = save_session(tmp_path / "s", make_session())
    cube = builtin_cube()
    rewrite_npz(
        json_path,
        npz_path,
        lambda a: a.update(object_vertices=cube.vertices, object_faces=cube.faces[:, ::-1]),
    )
    mesh = load_session(json_path).mesh
    assert mesh is not None and signed_volume(mesh.vertices, mesh.faces) > 0
    assert "turned every face outwards" in mesh.repair.summary()


def test_a_file_outside_the_session_folder_is_read_only_with_consent(tmp_path, monkeypatch):
    json_path, _, mesh_path = _saved_with_file(tmp_path, tmp_path / "elsewhere")
    session = load_session(json_path)
    read = []
    monkeypatch.setattr(object_file, "file_sha256", lambda p: read.append(p) or "0" * 64)
    mesh, note = resolve_object(session, json_path)
    assert read == [] and "outside the session's folder" in note and "embedded" in note
    asked = []
    mesh, note = resolve_object(session, json_path, allow_outside=lambda p: asked.append(p))
    assert asked == [mesh_path.resolve()] and read == []
    monkeypatch.undo()
    mesh, note = resolve_object(session, json_path, allow_outside=True)
    assert note == "" and mesh.source == str(mesh_path.resolve())


def test_a_file_inside_the_session_folder_needs_no_consent(tmp_path):
    json_path, _, mesh_path = _saved_with_file(tmp_path, tmp_path / "session" / "meshes")
    mesh, note = resolve_object(load_session(json_path), json_path)
    assert note == "" and mesh.source == str(mesh_path.resolve())


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs /proc")
def test_a_special_file_is_never_read(tmp_path):
    """Before: /proc/self/mem raised an uncaught OSError from the hash."""
    json_path, _, _ = _saved_with_file(tmp_path, tmp_path / "m")
    session = dataclasses.replace(load_session(json_path), object_source="/proc/self/mem")
    session.extras["_relative_path"] = None
    _, note = resolve_object(session, json_path, allow_outside=True)
    assert "/mem is empty (or a special file" in note and "embedded" in note
    session = dataclasses.replace(session, object_source="/dev/zero")
    _, note = resolve_object(session, json_path, allow_outside=True)
    assert "/dev/zero is not a regular file" in note


def test_a_file_over_the_size_budget_is_not_hashed(tmp_path, monkeypatch):
    """Before: a 1 TiB sparse file was hashed for minutes."""
    json_path, _, mesh_path = _saved_with_file(tmp_path, tmp_path / "session" / "m")
    monkeypatch.setattr(object_file, "MAX_MESH_FILE_BYTES", mesh_path.stat().st_size - 1)
    monkeypatch.setattr(object_file, "file_sha256", lambda p: pytest.fail("hashed"))
    _, note = resolve_object(load_session(json_path), json_path)
    assert "MiB a mesh file may have" in note and "embedded" in note
