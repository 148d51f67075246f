"""Mesh repair on load: what printed and scanned parts' meshes get wrong is repaired and reported
in one line per change, the file is left untouched, and what cannot be repaired safely (large
holes, several real bodies) is refused with the reason and the fix.

Every mesh is generated here (never stored)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import trimesh

from engine.errors import MeshError, ParameterError
from engine.scene.mesh_bodies import FRAGMENT_VOLUME_FRACTION, SeveralBodiesError, parse_body
from engine.scene.mesh_repair import MeshRepair, repair_mesh
from engine.scene.object_mesh import load_object_mesh, mesh_columns
from engine.scene.resting import rest_object


def _sphere(radius: float = 0.02, subdivisions: int = 3) -> trimesh.Trimesh:
    return trimesh.creation.icosphere(subdivisions=subdivisions, radius=radius)


def _write(mesh: trimesh.Trimesh, path):
    mesh.export(path)
    return path


def _raw(vertices: np.ndarray, faces: np.ndarray, path):
    """Write an OBJ exactly as given (no merging or reordering by an exporter)."""
    lines = [f"v {x:.9f} {y:.9f} {z:.9f}" for x, y, z in vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return path


def _slivers(count: int, near: np.ndarray, faces_each: int, rng: np.random.Generator):
    """`count` detached slivers of 1-4 tiny faces each (the 3D-printing export artefact)."""
    vertices, faces = [], []
    n = 0
    for _ in range(count):
        base = near + rng.normal(0, 0.002, 3)
        pts = base + rng.normal(0, 2e-4, (4, 3))
        tri = [[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]][:faces_each]
        vertices.append(pts)
        faces.append(np.asarray(tri) + n)
        n += 4
    return np.vstack(vertices), np.vstack(faces)


def test_detached_slivers_are_removed_and_reported(tmp_path):
    body = _sphere()
    rng = np.random.default_rng(1)
    sv, sf = _slivers(3, np.array([0.03, 0.0, 0.0]), 1, rng)
    tv, tf = _slivers(2, np.array([0.0, 0.03, 0.0]), 4, rng)  # closed tetrahedra: 2 more bodies
    vertices = np.vstack([body.vertices, sv, tv])
    faces = np.vstack([body.faces, sf + len(body.vertices), tf + len(body.vertices) + len(sv)])
    path = _raw(vertices, faces, tmp_path / "slivers.obj")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    mesh = load_object_mesh(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # the file is untouched
    assert len(mesh.faces) == len(body.faces)
    assert mesh.to_trimesh().volume == pytest.approx(body.volume, rel=1e-6)
    assert mesh.repair.changes == (
        "removed 5 detached fragments of 11 faces (each encloses less than 1% of the main "
        f"body's volume; the largest is {mesh.repair.changes[0].split('largest is ')[1]}",
    )
    assert mesh_columns(mesh)["object_repair"].startswith("removed 5 detached fragments")
    # The mass is that of the repaired solid (1000 kg/m^3 by default).
    obj = rest_object(mesh)
    assert obj.volume_m3 == pytest.approx(body.volume, rel=1e-6)
    assert obj.mass_kg == pytest.approx(1000.0 * body.volume, rel=1e-6)


def test_a_sliver_glued_by_a_non_manifold_edge_is_a_fragment(tmp_path):
    body = _sphere(subdivisions=2)
    a, b = body.edges_unique[0]
    # A zero-thickness two-faced flap on an edge of the body: that edge is used four times.
    tip = len(body.vertices)
    vertices = np.vstack([body.vertices, [[0.03, 0.03, 0.03]]])
    faces = np.vstack([body.faces, [[a, b, tip], [b, a, tip]]])
    mesh = load_object_mesh(_raw(vertices, faces, tmp_path / "flap.obj"))
    assert len(mesh.faces) == len(body.faces)
    assert mesh.repair.summary().startswith("removed 1 detached fragment of 2 faces")


def test_duplicate_vertices_are_merged_and_reported(tmp_path):
    body = trimesh.creation.box(extents=[0.03, 0.02, 0.01])
    # Every face gets its own three corners, as a careless exporter writes them: 36 vertices.
    vertices = body.vertices[body.faces].reshape(-1, 3)
    faces = np.arange(len(vertices)).reshape(-1, 3)
    mesh = load_object_mesh(_raw(vertices, faces, tmp_path / "soup.obj"))
    assert len(mesh.vertices) == 8
    assert mesh.repair.changes == ("merged 28 duplicate vertices",)
    # An STL always stores corners apart: joining them is not a repair to report.
    stl = load_object_mesh(_write(body, tmp_path / "box.stl"))
    assert stl.repair.changes == ()
    assert mesh_columns(stl) == {"object_body": "", "object_repair": ""}


def test_flipped_faces_are_turned_consistent_and_reported(tmp_path):
    body = _sphere(subdivisions=2)
    faces = body.faces.copy()
    flip = np.array([3, 17, 40, 41, 99])
    faces[flip] = faces[flip][:, ::-1]
    mesh = load_object_mesh(_raw(body.vertices, faces, tmp_path / "flipped.obj"))
    assert mesh.repair.changes == ("flipped 5 faces to a consistent outward winding",)
    assert mesh.to_trimesh().is_winding_consistent
    assert mesh.to_trimesh().volume == pytest.approx(body.volume, rel=1e-6)
    inside_out = load_object_mesh(_raw(body.vertices, body.faces[:, ::-1], tmp_path / "inv.obj"))
    assert inside_out.repair.changes == ("turned every face outwards (the mesh was inside-out)",)


def test_a_small_hole_is_filled_and_reported(tmp_path):
    body = _sphere(subdivisions=4)
    # Remove the faces around one vertex: a hole of about 4 mm in a 40 mm sphere.
    hole = np.flatnonzero(np.any(body.faces == 0, axis=1))
    faces = np.delete(body.faces, hole, axis=0)
    mesh = load_object_mesh(_raw(body.vertices, faces, tmp_path / "hole.obj"))
    assert mesh.repair.summary().startswith(f"filled 1 hole of {len(hole)} edges (up to ")
    tm = mesh.to_trimesh()
    assert tm.is_watertight and tm.is_winding_consistent
    assert tm.volume == pytest.approx(body.volume, rel=1e-3)


def test_several_kinds_of_damage_give_one_line_each(tmp_path):
    body = _sphere(subdivisions=4)
    rng = np.random.default_rng(4)
    faces = np.delete(body.faces, np.flatnonzero(np.any(body.faces == 5, axis=1)), axis=0)
    faces[[10, 11]] = faces[[10, 11]][:, ::-1]
    sv, sf = _slivers(2, np.array([0.0, 0.0, 0.03]), 2, rng)
    # A copy of the last face on three duplicated corners: 3 vertices to merge, 1 face twice.
    last = faces[-1]
    n = len(body.vertices)
    vertices = np.vstack([body.vertices, body.vertices[last], sv])
    faces = np.vstack([faces, [[n, n + 1, n + 2]], sf + n + 3])
    mesh = load_object_mesh(_raw(vertices, faces, tmp_path / "damaged.obj"))
    lines = mesh.repair.changes
    assert lines[:2] == ("merged 3 duplicate vertices", "dropped 1 duplicate face")
    assert lines[2].startswith("removed 2 detached fragments of 4 faces")
    assert lines[3].startswith("filled 1 hole of 5 edges")
    assert lines[4] == "flipped 2 faces to a consistent outward winding"
    assert len(lines) == 5
    assert mesh.to_trimesh().is_watertight
    assert mesh.to_trimesh().volume == pytest.approx(body.volume, rel=2e-3)


def test_a_large_hole_is_refused_with_its_size_and_the_fix(tmp_path):
    body = _sphere(subdivisions=3)
    top = np.flatnonzero(body.triangles_center[:, 2] > 0.012)
    path = _raw(body.vertices, np.delete(body.faces, top, axis=0), tmp_path / "bowl.obj")
    with pytest.raises(
        MeshError, match=r"not watertight \(\d+ boundary edges.*more than 10% .*MeshLab or Blender"
    ):
        load_object_mesh(path)


def test_two_real_bodies_are_refused_or_chosen(tmp_path):
    big = trimesh.creation.box(extents=[0.04, 0.02, 0.02])
    small = _sphere(0.008).apply_translation([0.06, 0, 0])
    path = _write(trimesh.util.concatenate([small, big]), tmp_path / "two.obj")
    with pytest.raises(
        SeveralBodiesError, match=r"holds 2 separate bodies \(body 0: 16 cm\^3"
    ) as err:
        load_object_mesh(path)
    assert "--body K (0 to 1, largest first" in str(err.value)
    assert [b.split(":")[0] for b in err.value.bodies] == ["body 0", "body 1"]  # for a chooser
    box_only = load_object_mesh(path, body=0)
    assert box_only.to_trimesh().volume == pytest.approx(16e-6)
    assert box_only.repair.changes[-1].startswith("kept body 0 of 2 (16 cm^3), as chosen; dropped")
    ball = load_object_mesh(path, body="1")
    assert ball.to_trimesh().volume == pytest.approx(small.volume, rel=1e-6)
    assert mesh_columns(ball)["object_body"] == "1 of 2"


def test_a_piece_just_above_the_fragment_fraction_is_a_real_body(tmp_path):
    big = trimesh.creation.box(extents=[0.03, 0.03, 0.03])
    side = (2.0 * FRAGMENT_VOLUME_FRACTION * big.volume) ** (1 / 3)
    small = trimesh.creation.box(extents=[side] * 3).apply_translation([0.05, 0, 0])
    path = _write(trimesh.util.concatenate([big, small]), tmp_path / "pair.ply")
    with pytest.raises(MeshError, match="holds 2 separate bodies"):
        load_object_mesh(path)
    tiny = trimesh.creation.box(extents=[side / 2] * 3).apply_translation([0.05, 0, 0])
    path = _write(trimesh.util.concatenate([big, tiny]), tmp_path / "pair2.ply")
    assert load_object_mesh(path).repair.summary().startswith("removed 1 detached fragment")


@pytest.mark.parametrize("bad", ["-1", "two", "1.5", True])
def test_bad_body_choices_name_the_flag(bad):
    with pytest.raises(ParameterError, match="--body"):
        parse_body(bad)


def test_repair_record_round_trips_and_rejects_bad_data():
    record = MeshRepair(("merged 3 duplicate vertices",), "1 of 2")
    assert MeshRepair.from_dict(record.to_dict()) == record
    with pytest.raises(ParameterError):
        MeshRepair.from_dict({"changes": "text"})


def test_repair_is_deterministic():
    body = _sphere(subdivisions=2)
    faces = body.faces.copy()
    faces[[1, 2]] = faces[[1, 2]][:, ::-1]
    a = repair_mesh(body.vertices, faces, where="x")
    b = repair_mesh(body.vertices, faces, where="x")
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]
