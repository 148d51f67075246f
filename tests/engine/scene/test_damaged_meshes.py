"""Small damaged meshes cannot hang a command (issue 42, point 3).

A cube OBJ with one `v` line duplicated points its faces at the wrong corners: the surface
crosses itself and its centre of mass lies outside its convex hull, where trimesh's stable-pose
search looped for ever. Such meshes are refused at load with where they cross; the stable-pose
step refuses a centre of mass outside the hull and work over its budget, naming the fix.
"""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.errors import MeshError
from engine.scene import resting
from engine.scene.object_mesh import ObjectMesh, builtin_cube, load_object_mesh

CUBE_V = [(x, y, z) for x in (-0.015, 0.015) for y in (-0.015, 0.015) for z in (-0.015, 0.015)]
CUBE_F = ["1 2 4", "1 4 3", "5 7 8", "5 8 6", "1 5 6", "1 6 2",
          "3 4 8", "3 8 7", "1 3 7", "1 7 5", "2 6 8", "2 8 4"]  # fmt: skip


def _obj(path, vertices):
    lines = [f"v {x} {y} {z}" for x, y, z in vertices] + [f"f {f}" for f in CUBE_F]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("copied", [0, 4])
def test_a_duplicated_v_line_is_refused_with_where_it_crosses(tmp_path, copied):
    """Measured before the fix: both loaded (7 vertices, 10 faces) and stable_poses never
    returned."""
    vertices = CUBE_V[: copied + 1] + CUBE_V[copied:]
    path = _obj(tmp_path / "cube.obj", vertices)
    with pytest.raises(MeshError, match="intersects itself") as err:
        load_object_mesh(path)
    text = str(err.value)
    assert str(path) in text and " mm in the file's frame" in text and "Repair the mesh" in text


def test_the_clean_cube_file_still_loads(tmp_path):
    mesh = load_object_mesh(_obj(tmp_path / "cube.obj", CUBE_V))
    assert len(mesh.faces) == 12 and len(resting.stable_poses(mesh)) == 6


def _unchecked(vertices, faces) -> ObjectMesh:
    """A mesh that did not go through the loader (e.g. built by a caller)."""
    return ObjectMesh(
        np.asarray(vertices, float), np.asarray(faces, np.int64), "bad", "/x/bad.obj", None
    )


def test_a_centre_of_mass_outside_the_hull_is_refused_not_looped_on():
    """The loader's repair of the duplicated-line cube: trimesh's compute_stable_poses
    loops for ever on it (its rejection sampling never finds the centre of mass inside)."""
    vertices = CUBE_V[:1] + CUBE_V
    faces = [[int(i) - 1 for i in f.split()] for f in CUBE_F]
    with pytest.raises(MeshError, match="centre of mass lies outside its convex hull"):
        resting.stable_poses(_unchecked(vertices, faces))


def test_a_finely_tessellated_ball_rests_on_a_simplified_hull(monkeypatch, caplog):
    """A 20k-face ball took 33 s in trimesh (80k faces over 5 minutes): every one of its 20480
    hull faces is one it can rest on. Its poses come from its hull with the vertices merged on
    a grid until the analysis fits the budget (hull faces x resting faces <= MAX_POSE_WORK), a
    hull inside the ball within a grid cell; the log says so. With no grid coarse enough (a
    budget no hull meets) it is refused with the counts and the fix."""
    import logging

    ball = trimesh.creation.icosphere(subdivisions=5, radius=0.03)
    analysed = []
    original = resting.trimesh.poses.compute_stable_poses

    def spy(mesh, **kw):
        analysed.append(len(mesh.convex_hull.faces))
        return original(mesh, **kw)

    monkeypatch.setattr(resting.trimesh.poses, "compute_stable_poses", spy)
    with caplog.at_level(logging.INFO, logger="engine.scene.resting"):
        poses = resting.stable_poses(_unchecked(ball.vertices, ball.faces))
    assert analysed and analysed[0] ** 2 <= resting.MAX_POSE_WORK
    assert len(poses) > 100 and sum(p.probability for p in poses) == pytest.approx(1.0)
    assert "stable poses from its convex hull simplified to" in caplog.text
    monkeypatch.setattr(resting, "MAX_POSE_WORK", 10)
    with pytest.raises(MeshError, match="Simplify the mesh to about") as err:
        resting.stable_poses(_unchecked(ball.vertices, ball.faces))
    assert "convex hull has 20480 faces, 20480 of them faces it can rest on" in str(err.value)


def test_the_budget_keeps_real_objects(monkeypatch):
    """A cube:386 (386 hull faces x 6 x ~64 resting faces) is far inside the budget; with the
    budget just below its work it is refused."""
    mesh = builtin_cube(target_vertices=386)
    assert len(resting.stable_poses(mesh)) == 6
    monkeypatch.setattr(resting, "MAX_POSE_WORK", 10)
    with pytest.raises(MeshError, match="over this step's budget"):
        resting.stable_poses(mesh)


def test_a_ply_face_index_out_of_range_is_a_clear_error(tmp_path):
    """Issue 42 point 10: was an IndexError traceback from the repair."""
    path = tmp_path / "tet.ply"
    path.write_text(
        "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
        "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"
        "0 0 0\n0.03 0 0\n0 0.03 0\n0 0 0.03\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 99\n"
    )
    with pytest.raises(MeshError, match=r"face 3 uses vertex \[1, 2, 99\] but the mesh has 4"):
        load_object_mesh(path)


_TET_PLY_HEAD = (
    "ply\nformat ascii 1.0\nelement vertex {n}\nproperty float x\nproperty float y\n"
    "property float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"
)
_TET_DATA = "0 0 0\n0.03 0 0\n0 0.03 0\n0 0 0.03\n"
_TET_FACES = ["0 2 1", "0 1 3", "0 3 2", "1 2 3"]


@pytest.mark.parametrize(
    ("name", "text", "declared"),
    [
        ("tet.off", "OFF\n4 6 0\n" + _TET_DATA + "".join(f"3 {f}\n" for f in _TET_FACES),
         "4 vertices and 6 faces (10 lines) but 8 data lines follow"),
        ("tet.ply", _TET_PLY_HEAD.format(n=5) + _TET_DATA + "".join(f"3 {f}\n" for f in _TET_FACES),
         "5 vertices and 4 faces (with any other elements) (9 lines) but 8 data lines follow"),
    ],
)  # fmt: skip
def test_header_counts_that_disagree_with_the_data_are_refused(tmp_path, name, text, declared):
    """Before: the OFF loaded its 4 faces silently; the PLY was refused as 'not watertight'."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(MeshError, match="cut short or was edited") as err:
        load_object_mesh(path)
    assert declared in str(err.value)
    fixed = text.replace("4 6 0", "4 4 0").replace("vertex 5", "vertex 4")
    path.write_text(fixed)
    assert len(load_object_mesh(path).faces) == 4


def test_a_glb_face_index_out_of_range_is_a_clear_error(tmp_path):
    """Issue 42 point 10: was an IndexError traceback (the index buffer's last entry set to 99)."""
    import json
    import struct

    tet = trimesh.Trimesh(
        np.array([[0, 0, 0], [0.03, 0, 0], [0, 0.03, 0], [0, 0, 0.03]], float),
        [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        process=False,
    )
    data = bytearray(tet.export(file_type="glb"))
    (json_len,) = struct.unpack_from("<I", data, 12)
    gltf = json.loads(bytes(data[20 : 20 + json_len]))
    accessor = gltf["accessors"][gltf["meshes"][0]["primitives"][0]["indices"]]
    view = gltf["bufferViews"][accessor["bufferView"]]
    assert accessor["componentType"] == 5125  # uint32
    at = 20 + json_len + 8 + view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    struct.pack_into("<I", data, at + 4 * 11, 99)
    path = tmp_path / "tet.glb"
    path.write_bytes(bytes(data))
    with pytest.raises(MeshError, match=r"face 3 uses vertex \[1, 2, 99\] but the mesh has 4"):
        load_object_mesh(path)


def test_a_mesh_file_over_the_size_budget_is_refused_before_reading(tmp_path, monkeypatch):
    """A 1 TiB sparse file was read whole; the budget is checked on the file's size."""
    from engine.scene import object_mesh

    path = _obj(tmp_path / "cube.obj", CUBE_V)
    monkeypatch.setattr(object_mesh, "MAX_MESH_FILE_BYTES", path.stat().st_size - 1)
    monkeypatch.setattr(type(path), "read_bytes", lambda self: pytest.fail("read"))
    with pytest.raises(MeshError, match="MiB a mesh file may have: simplify the mesh"):
        load_object_mesh(path)
