"""A session's arrays file is read only from the session's own folder, by a plain file name; its
embedded object mesh needs at least a tetrahedron (4 vertices, 4 faces) of finite numbers and
faces that index those vertices. Refusals name the field or array and say what was found."""

from __future__ import annotations

import numpy as np
import pytest

from engine.io.session import SessionError, load_session
from tests.engine.io.test_session_validation import edit_json, rewrite_npz, saved  # noqa: F401

TETRA_V = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) * 0.03
TETRA_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def _refusal(json_path) -> str:
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    return str(err.value)


@pytest.mark.parametrize("name", ["sub/x.npz", "a\\b.npz", ".", "..", "x\0.npz", 5, ["x.npz"]])
def test_the_arrays_file_must_be_a_plain_name(saved, name):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, lambda d: d.update(frames_file=name))
    assert _refusal(json_path) == (
        f"{json_path}: field 'frames_file' must be a file name in the session's folder "
        f"(got {name!r:.80}); the arrays file is always saved next to the session"
    )


def test_an_empty_arrays_name_means_no_arrays(saved):  # noqa: F811
    json_path, npz_path = saved
    edit_json(json_path, lambda d: d.update(frames_file=""))
    npz_path.unlink()
    s = load_session(json_path)
    assert s.mesh is None and s.trials[0].frames == []


def test_a_pose_must_be_a_list_of_four_rows(saved):  # noqa: F811
    json_path, _ = saved
    pose = {"r0": [1, 0, 0, 0], "r1": [0, 1, 0, 0], "r2": [0, 0, 1, 0], "r3": [0, 0, 0, 1]}
    edit_json(json_path, lambda d: d["results"][0].update(gripper_pose=pose))
    assert _refusal(json_path) == (
        f"{json_path}: results[0] field 'gripper_pose' must be a 4x4 matrix of finite numbers"
    )
    edit_json(json_path, lambda d: d["results"][0].update(gripper_pose=[[1, 0, 0, 0]] * 3))
    assert _refusal(json_path).endswith("must be a 4x4 matrix of finite numbers")


def test_a_tetrahedron_is_the_smallest_embedded_mesh(saved):  # noqa: F811
    json_path, npz_path = saved

    def tetra(a):
        a.update(object_vertices=TETRA_V.astype(np.float32), object_faces=TETRA_F)

    rewrite_npz(json_path, npz_path, tetra)
    mesh = load_session(json_path).mesh
    assert mesh is not None and mesh.vertices.shape == (4, 3) and mesh.faces.shape == (4, 3)
    assert mesh.vertices.dtype == np.float64 and not mesh.vertices.flags.writeable


@pytest.mark.parametrize(
    ("vertices", "faces", "problem"),
    [
        (TETRA_V[:3], TETRA_F, "object_vertices has shape (3, 3) and type float64; expected (v, 3) numbers with v >= 4"),
        (TETRA_V.astype(bool), TETRA_F, "object_vertices has shape (4, 3) and type bool; expected (v, 3) numbers with v >= 4"),
        (TETRA_V, TETRA_F[:3], "object_faces has shape (3, 3) and type int64; expected (m, 3) integers with m >= 4"),
        (TETRA_V, TETRA_F.astype(float), "object_faces has shape (4, 3) and type float64; expected (m, 3) integers with m >= 4"),
        (TETRA_V, TETRA_F + 1, "object_faces index vertices outside 0..3; the file is damaged"),
        (TETRA_V, TETRA_F - 1, "object_faces index vertices outside 0..3; the file is damaged"),
    ],
)  # fmt: skip
def test_a_damaged_embedded_mesh_is_refused(saved, vertices, faces, problem):  # noqa: F811
    json_path, npz_path = saved
    rewrite_npz(
        json_path, npz_path, lambda a: a.update(object_vertices=vertices, object_faces=faces)
    )
    assert _refusal(json_path) == f"{json_path.name}'s arrays file: {problem}"


def test_the_arrays_hash_must_be_text_of_64_hex_digits(saved):  # noqa: F811
    json_path, _ = saved
    for bad in (5, "ab" * 31 + "a", "g" * 64):
        edit_json(json_path, lambda d, bad=bad: d.update(frames_sha256=bad))
        assert _refusal(json_path) == f"{json_path}: field 'frames_sha256' must be 64 hex digits"


def test_the_arrays_file_size_cap_is_inclusive(saved, monkeypatch):  # noqa: F811
    from engine.io.session import arrays as session_module

    json_path, npz_path = saved
    size = npz_path.stat().st_size
    monkeypatch.setattr(session_module, "MAX_FILE_BYTES", size)
    assert len(load_session(json_path).trials) == 2
    monkeypatch.setattr(session_module, "MAX_FILE_BYTES", size - 1)
    assert _refusal(json_path) == (
        f"{npz_path} is {size / 1024**2:.0f} MiB, over the {(size - 1) / 1024**2:.0f} MiB a "
        "session's arrays file may have"
    )


def test_faces_of_one_dimension_are_refused(saved):  # noqa: F811
    json_path, npz_path = saved
    rewrite_npz(json_path, npz_path, lambda a: a.update(object_faces=np.arange(12)))
    assert _refusal(json_path) == (
        f"{json_path.name}'s arrays file: object_faces has shape (12,) and type int64; "
        "expected (m, 3) integers with m >= 4"
    )


def test_the_embedded_mesh_keeps_the_sessions_object_identity(saved):  # noqa: F811
    json_path, _ = saved
    s = load_session(json_path)
    assert s.mesh is not None
    assert (s.mesh.name, s.mesh.source, s.mesh.sha256) == ("cube", s.object_source, s.object_sha256)
    assert s.mesh.repair == s.object_repair
    edit_json(json_path, lambda d: d["object"].pop("name"))
    assert load_session(json_path).mesh.name == "object"


def test_a_trial_without_its_energy_arrays_is_refused(saved):  # noqa: F811
    json_path, npz_path = saved
    rewrite_npz(json_path, npz_path, lambda a: a.pop("t0/energy1"))
    assert _refusal(json_path) == (
        f"{json_path.name}'s arrays file: t0/energy1 must be (3, 4) finite floats (got nothing)"
    )
    rewrite_npz(json_path, npz_path, lambda a: a.update({"t0/energy1": np.zeros((3, 4), np.int32)}))
    assert _refusal(json_path) == (
        f"{json_path.name}'s arrays file: t0/energy1 must be (3, 4) finite floats (got (3, 4) int32)"
    )
