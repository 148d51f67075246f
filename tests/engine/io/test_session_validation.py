"""Sessions are validated when read: every damaged or hostile file is a SessionError that names
the file and the field, never a ValueError/TypeError/BadZipFile/MemoryError, never a hang."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io import npz_read
from engine.io.frames_npz import CONTACT_COLUMNS
from engine.io.session import (
    Session,
    SessionError,
    TrialRecord,
    load_session,
    save_session,
    session_paths,
)
from engine.scene.object_mesh import builtin_cube


def _frame(i: int) -> Frame:
    pad = np.zeros((4, 3), dtype=np.float32) + i
    return Frame(
        index=i, time_s=0.01 * i, phase="squeeze", pad_vertices=(pad, pad + 1.0),
        object_pose=np.eye(4), plate_travel_m=0.0, plate_lift_m=0.0, psi_j=(0.0, 0.0),
        grip_force_n=(0.0, 0.0), contacts=dict.fromkeys(CONTACT_COLUMNS, 0),
        min_distance_m=1.0, object_min_z_m=0.0, newton_iterations=1, intersection_free=True,
    )  # fmt: skip


def make_session() -> Session:
    """A small but complete session: embedded mesh, one trial with frames and energy."""
    grasp = Grasp(np.array([0.0, 0.0, 0.015]), np.array([1.0, 0.0, 0.0]), 0.0)
    frames = [_frame(i) for i in range(3)]
    energy = [(np.zeros(4, np.float32), np.ones(4, np.float32)) for _ in frames]
    rec = TrialRecord(0, grasp.pose(), "cancelled", frames, energy, None)
    return Session(
        "builtin:cube", None, None, 0, 1000.0, grasp, SimulationParams(), TrialSpec(1, 0),
        [rec, TrialRecord(1, grasp.pose(), "queued")], mesh=builtin_cube(), object_name="cube",
    )  # fmt: skip


@pytest.fixture
def saved(tmp_path):
    json_path, npz_path = save_session(tmp_path / "s", make_session())
    return json_path, npz_path


def edit_json(json_path, change) -> None:
    doc = json.loads(json_path.read_text())
    change(doc)
    json_path.write_text(json.dumps(doc))


def rewrite_npz(json_path, npz_path, change, keep_hash=False) -> None:
    """Rewrite the arrays file through `change(arrays)`, then fix the JSON's hash."""
    with np.load(npz_path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    with open(npz_path, "wb") as f:
        np.savez_compressed(f, **arrays)
    if not keep_hash:
        edit_json(json_path, lambda d: d.update(frames_sha256=""))


def test_a_valid_session_round_trips(saved):
    s = load_session(saved[0])
    assert len(s.trials[0].frames) == 3 and len(s.trials[0].energy_density) == 3
    assert s.mesh is not None and s.mesh.faces.dtype == np.int64


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.update(version="1"), "'version' must be a positive integer"),
        (lambda d: d.update(version=0), "'version' must be a positive integer"),
        (lambda d: d.update(version=True), "'version' must be a positive integer"),
        (lambda d: d.update(version=2), "newer ipcgrasp"),
        (lambda d: d.update(version=1e400), "'version'"),
        (lambda d: d["trials"].update(n_trials=-5), "bad parameter: n_trials"),
        (lambda d: d["trials"].update(seed="abc"), "bad parameter: seed"),
        (lambda d: d["params"].update(youngs_modulus_pa=-1), "bad parameter: youngs_modulus_pa"),
        (lambda d: d.update(params=[1, 2]), "'params' must be an object"),
        (lambda d: d["grasp"].update(center=[0, 0, "NaN"]), "grasp.center"),
        (lambda d: d["grasp"].update(axis=[0, 0, 0]), "zero vector"),
        (lambda d: d["grasp"].update(center=[0, 0]), "grasp.center"),
        (lambda d: d["object"].update(stable_pose="x"), "stable_pose"),
        (lambda d: d["object"].update(density_kg_m3=-3), "density_kg_m3"),
        (lambda d: d["object"].update(unit="furlong"), "object.unit"),
        (lambda d: d["object"].update(sha256=5), "object.sha256"),
        (lambda d: d["object"].update(source=None), "object.source"),
        (lambda d: d["object"].update(source="builtin:/etc/passwd"), "not a built-in object"),
        (lambda d: d["results"][0].update(gripper_pose=[[1e400] * 4] * 4), "gripper_pose"),
        (lambda d: d["results"][0].update(gripper_pose=[[0] * 3] * 4), "gripper_pose"),
        (lambda d: d["results"][0].update(status=5), "unknown trial status"),
        (lambda d: d["results"][0].update(trial=-1), "'trial' must be >= 0"),
        (lambda d: d["results"][0].update(trial="0"), "'trial' must be an integer"),
        (lambda d: d["results"].append(d["results"][0]), "appears twice"),
        (
            lambda d: d["results"][0].update(result={"trial": 0, "success": "no", "reason": ""}),
            "'success' must be true or false",
        ),
        (lambda d: d["results"][0].update(result={"trial": 0, "success": True}), "'reason'"),
        (
            lambda d: d["results"][0].update(
                result={"trial": 0, "success": True, "reason": "", "psi1_j": "big"}
            ),
            "'psi1_j' must be a number",
        ),
        (lambda d: d["results"][0].update(result=[1]), "'result' must be an object"),
        (lambda d: d.update(results={"a": 1}), "'results' must be a list"),
        (lambda d: d.update(extras=[1]), "'extras'"),
        (lambda d: d.update(frames_file="../elsewhere.npz"), "'frames_file' must be a file name"),
        (lambda d: d.update(frames_file="/etc/passwd"), "'frames_file' must be a file name"),
        (lambda d: d.update(frames_file=7), "'frames_file'"),
        (lambda d: d.update(frames_sha256="0" * 64), "does not match its session"),
        (lambda d: d.update(frames_sha256="abc"), "frames_sha256"),
    ],
)
def test_bad_json_fields_name_the_field(saved, change, match):
    edit_json(saved[0], change)
    with pytest.raises(SessionError, match=match) as info:
        load_session(saved[0])
    assert str(saved[0].parent) in str(info.value) or "arrays file" in str(info.value)


def test_deeply_nested_json_is_a_session_error(tmp_path):
    p = tmp_path / "d.ipcgrasp.json"
    p.write_text('{"format": "ipcgrasp-session", "extras": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(SessionError, match="not a readable session"):
        load_session(p)


def test_a_symlinked_arrays_file_outside_the_folder_is_refused(saved, tmp_path):
    json_path, npz_path = saved
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "x.npz"
    npz_path.rename(target)
    npz_path.symlink_to(target)
    with pytest.raises(SessionError, match="outside the session's folder"):
        load_session(json_path)


def test_truncated_and_foreign_arrays_files(saved):
    json_path, npz_path = saved
    data = npz_path.read_bytes()
    npz_path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SessionError, match="does not match its session"):
        load_session(json_path)  # the hash catches it first
    edit_json(json_path, lambda d: d.update(frames_sha256=""))
    with pytest.raises(SessionError, match="not a complete NumPy arrays file"):
        load_session(json_path)
    npz_path.write_text("just text")
    with pytest.raises(SessionError, match="NumPy arrays file"):
        load_session(json_path)
    npz_path.unlink()
    with pytest.raises(SessionError, match="is missing"):
        load_session(json_path)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda a: a.pop("t0/psi"), "t0/psi is missing"),
        (lambda a: a.update({"t0/time_s": np.zeros(2)}), "has 3 entries for 2 frames"),
        (lambda a: a.update({"t0/phase": np.array([0, 1, 9], np.int8)}), "phase holds values"),
        (lambda a: a.update({"t0/pad1": np.full((3, 4, 3), np.nan, np.float32)}), "NaN"),
        (lambda a: a.update({"t0/object_pose": np.zeros((3, 3, 3))}), "object_pose has shape"),
        (lambda a: a.update({"t0/time_s": np.array(["a", "b", "c"])}), "expected numbers"),
        (lambda a: a.update({"t0/energy1": np.zeros((2, 4), np.float32)}), "energy1 must be"),
        (lambda a: a.pop("object_faces"), "only one of object_vertices and object_faces"),
        (lambda a: a.update(object_vertices=np.zeros((8, 2))), "object_vertices has shape"),
        (lambda a: a.update(object_vertices=np.full((8, 3), np.nan)), "NaN"),
        (lambda a: a.update(object_faces=a["object_faces"].astype(str)), "object_faces has shape"),
        (lambda a: a.update(object_faces=a["object_faces"] + 100), "index vertices outside"),
        (lambda a: a.update(object_faces=a["object_faces"] - 100), "index vertices outside"),
        (lambda a: a.update(object_faces=a["object_faces"].astype(float)), "integers"),
    ],
)
def test_bad_arrays_name_the_array(saved, change, match):
    rewrite_npz(*saved, change)
    with pytest.raises(SessionError, match=match):
        load_session(saved[0])


def _npy_header(descr: str, shape: tuple) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def test_a_header_declaring_a_huge_array_is_refused_before_allocating(saved):
    json_path, npz_path = saved
    with zipfile.ZipFile(npz_path, "w") as zf:
        zf.writestr("object_vertices.npy", _npy_header("<f8", (10**12, 3)) + b"\0" * 64)
    edit_json(json_path, lambda d: d.update(frames_sha256=""))
    with pytest.raises(SessionError, match=r"declares shape \(1000000000000, 3\)"):
        load_session(json_path)


def test_object_arrays_are_never_unpickled(saved):
    json_path, npz_path = saved
    with zipfile.ZipFile(npz_path, "w") as zf:
        zf.writestr("object_vertices.npy", _npy_header("|O", (1,)) + b"\x80\x04N.")
    edit_json(json_path, lambda d: d.update(frames_sha256=""))
    with pytest.raises(SessionError, match="Python objects"):
        load_session(json_path)


def test_a_zip_bomb_is_refused_before_it_is_inflated(saved, monkeypatch):
    json_path, npz_path = saved
    monkeypatch.setattr(npz_read, "MAX_TOTAL_BYTES", 1024**2)  # 1 MiB for the test
    with zipfile.ZipFile(npz_path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("object_vertices.npy", _npy_header("<f8", (2**18, 3)) + bytes(6 * 2**20))
    assert npz_path.stat().st_size < 64 * 1024
    edit_json(json_path, lambda d: d.update(frames_sha256=""))
    with pytest.raises(SessionError, match="zip bomb"):
        load_session(json_path)


def test_an_embedded_mesh_over_the_mesh_budget_is_refused_before_it_is_inflated(saved, monkeypatch):
    """Within the arrays file's caps (here 1.5 GiB inflated), an embedded mesh could still
    inflate from 1.7 MB to 66.7M vertices (3.5 GB): its arrays are capped by the mesh budget
    (triangles, and three vertices per triangle), read from their headers first."""
    from engine.scene import mesh_budget

    json_path, npz_path = saved
    monkeypatch.setattr(mesh_budget, "MAX_MESH_FACES", 1000)
    with zipfile.ZipFile(npz_path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("object_vertices.npy", _npy_header("<f8", (3001, 3)) + bytes(8 * 9003))
        zf.writestr("object_faces.npy", _npy_header("<i8", (10, 3)) + bytes(8 * 30))
    edit_json(json_path, lambda d: d.update(frames_sha256=""))
    with pytest.raises(SessionError, match=r"'object_vertices' declares shape \(3001, 3\)"):
        load_session(json_path)
    monkeypatch.setattr(mesh_budget, "MAX_MESH_FACES", 1001)  # 9009 elements allowed
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    assert "declares shape" not in str(err.value)


def test_sessions_without_hash_or_frames_still_open(saved):
    json_path, npz_path = saved
    edit_json(json_path, lambda d: d.pop("frames_sha256"))
    assert len(load_session(json_path).trials) == 2
    edit_json(json_path, lambda d: d.update(frames_file=None))
    npz_path.unlink()
    s = load_session(json_path)
    assert s.mesh is None and s.trials[0].frames == []
    assert session_paths(json_path)[0] == json_path
