"""Silent acceptances the reader fuzz suite's oracles found (test_fuzz_readers.py,
fuzz_oracles.py), each now refused with the file's field, array, or row and column: absurd
values in a session, result cells the data-set browser coerced, and frames files that do not
match their checksum or whose shared meshes index missing vertices, an OBJ face naming
vertex 0."""

from __future__ import annotations

import json

import numpy as np
import pytest
import trimesh

from engine.errors import MeshError, ParameterError
from engine.io.frames_npz import FramesError, arrays_digest, frames_file_damage, load_frames
from engine.io.results_csv import trial_result_from_row
from engine.io.session import SessionError, load_session, save_session
from engine.scene.object_mesh import load_object_mesh
from tests.engine.io.test_safe_write import _save_frames
from tests.engine.io.test_session_validation import make_session


@pytest.fixture
def session_doc(tmp_path):
    json_path, _ = save_session(tmp_path / "s", make_session())
    return json_path, json.loads(json_path.read_text())


@pytest.mark.parametrize("density", [3.8e16, 3, 0.5, 1e300, 25_001])
def test_a_session_density_no_object_has_is_refused(session_doc, density):
    """Found: densities of 3.8e16, 3 and 0.5 kg/m^3 loaded (only > 0 was checked)."""
    json_path, doc = session_doc
    doc["object"]["density_kg_m3"] = density
    json_path.write_text(json.dumps(doc))
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    assert str(err.value) == (
        f"{json_path}: field 'object.density_kg_m3' is {float(density):.4g} kg/m^3, not a "
        "density an object has (10 to 25,000 kg/m^3); the file was edited or damaged: set it "
        "to the object's density (water is 1000)"
    )


@pytest.mark.parametrize("density", [10, 25_000, 1000.0])
def test_a_session_density_in_range_loads(session_doc, density):
    json_path, doc = session_doc
    doc["object"]["density_kg_m3"] = density
    json_path.write_text(json.dumps(doc))
    assert load_session(json_path).density_kg_m3 == density


@pytest.mark.parametrize(
    ("field", "value", "shown", "expected"),
    [
        ("wall_time_s", -5, "-5.0", "a finite time >= 0 in seconds"),
        ("wall_time_s", "Infinity", "inf", "a finite time >= 0 in seconds"),
        ("grip_force1_n", "Infinity", "inf", "a finite force in N"),
        ("grip_force2_n", "-Infinity", "-inf", "a finite force in N"),
    ],
)
def test_a_saved_result_outside_its_range_is_refused(session_doc, field, value, shown, expected):
    """Found: a saved trial result with wall_time_s = -5 (or infinite forces) loaded."""
    json_path, doc = session_doc
    doc["results"][1]["result"] = {"trial": 1, "success": True, "reason": "lifted", field: value}
    json_path.write_text(json.dumps(doc))
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    assert str(err.value) == (
        f"{json_path}: results[1]: result field {field!r} is {shown}, not {expected}; the file "
        "was edited or damaged"
    )


def test_a_saved_result_not_measured_loads(session_doc):
    json_path, doc = session_doc
    doc["results"][1]["result"] = {
        "trial": 1, "success": False, "reason": "x", "wall_time_s": "NaN", "grip_force1_n": -0.5
    }  # fmt: skip
    json_path.write_text(json.dumps(doc))
    result = load_session(json_path).trials[1].result
    assert result is not None and result.grip_force1_n == -0.5


ROW = {"task_key": "k", "model": "ipc", "grasp_id": "g", "trial": "2", "success": "True",
       "frames": "40", "wall_time_s": "1.5", "grip_force_1": "3.0"}  # fmt: skip


@pytest.mark.parametrize(
    ("column", "cell", "expected"),
    [
        ("success", "yes", "true or false"),  # issue 42: read as a failure
        ("success", "", "true or false"),
        ("frames", "3.7", "a whole number >= 0"),  # read as 3
        ("frames", "-4", "a whole number >= 0"),  # read as -4
        ("trial", "1e3", "a whole number >= 0"),  # read as 1000
        ("wall_time_s", "-1", "a finite number >= 0"),
        ("wall_time_s", "inf", "a finite number >= 0"),
        ("grip_force_1", "abc", "a number"),  # read as NaN
        ("squeeze_balanced", "maybe", "true or false"),  # read as False
        ("intersection_free", "no", "true or false"),  # read as True
    ],
)
def test_a_results_cell_outside_its_type_is_refused_naming_row_and_column(column, cell, expected):
    """trial_result_from_row (the data-set browser's replay) refuses what it coerced before."""
    with pytest.raises(ParameterError) as err:
        trial_result_from_row({**ROW, column: cell})
    trial = cell if column == "trial" else "2"
    assert str(err.value) == (
        f"results row of grasp 'g', model 'ipc', trial {trial} (task_key 'k'): column "
        f"{column!r} is {cell!r}, not {expected}; the file was edited or damaged: restore the "
        "row or run its task again"
    )


def test_results_cells_as_rows_write_them_read_back():
    r = trial_result_from_row({**ROW, "success": "false", "psi1": "nan", "min_lift_grip": "inf"})
    assert (r.success, r.frames, r.trial, r.wall_time_s, r.grip_force1_n) == (
        False, 40, 2, 1.5, 3.0
    )  # fmt: skip
    assert r.min_lift_grip_n == float("inf") and r.squeeze_balanced is False


def _rewrite_frames(path, change, rehash: bool) -> None:
    """The frames file at `path` with `change(arrays)` applied, zipped again (valid CRCs), its
    meta's checksum recomputed when `rehash`."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    change(arrays)
    if rehash:
        meta["arrays_sha256"] = arrays_digest(arrays)
    with open(path, "wb") as f:
        np.savez_compressed(f, meta=np.array(json.dumps(meta)), **arrays)


def test_a_frames_file_whose_arrays_do_not_match_their_checksum_is_refused(tmp_path):
    """Found: a value changed inside a frames file (zipped again) loaded, so the app's replay
    showed it; only a resumed batch compared the checksum."""
    path = _save_frames(tmp_path / "f.npz")
    _rewrite_frames(path, lambda a: a["t0/psi"].__setitem__((0, 0), 7.0), rehash=False)
    with pytest.raises(FramesError) as err:
        load_frames(path)
    assert str(err.value) == (
        f"{path}: its arrays do not match their checksum (meta arrays_sha256): the file was "
        "changed or damaged after it was written; write it again (a batch run again with the "
        "same --frames recomputes the trial)"
    )
    assert frames_file_damage(path).startswith("unreadable (")


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("object_faces", 99, "array object_faces indexes vertices outside 0..7 (the file is damaged)"),
        ("object_faces", -1, "array object_faces indexes vertices outside 0..7 (the file is damaged)"),
        ("pad_tets", 4, "array pad_tets indexes vertices outside 0..3 (the file is damaged)"),
        ("pad_surface_faces", 9, "array pad_surface_faces indexes vertices outside 0..3 (the file is damaged)"),
        ("object_vertices", np.nan, "array object_vertices holds NaN or infinite values"),
    ],
)  # fmt: skip
def test_shared_meshes_that_do_not_index_their_vertices_are_refused(tmp_path, name, value, problem):
    """Found: a frames file (its checksum consistent) whose object_faces named vertex 99 of 8
    loaded."""
    path = _save_frames(tmp_path / "f.npz")
    _rewrite_frames(path, lambda a: a[name].reshape(-1).__setitem__(0, value), rehash=True)
    with pytest.raises(FramesError) as err:
        load_frames(path)
    assert str(err.value) == f"{path}: {problem}"


def test_a_frames_file_without_its_shared_meshes_is_refused(tmp_path):
    path = _save_frames(tmp_path / "f.npz")
    _rewrite_frames(path, lambda a: a.pop("object_vertices"), rehash=True)
    with pytest.raises(FramesError) as err:
        load_frames(path)
    assert str(err.value) == (
        f"{path}: array object_vertices is missing; expected (n, 3) numbers (the file is damaged)"
    )
    assert load_frames(_save_frames(tmp_path / "g.npz"))[0]["trials"] == [0]


def test_a_session_grasp_axis_whose_length_overflows_is_refused(session_doc):
    """Found: an axis [1, 0, -7.7e262] loaded as the zero vector (its length overflows to inf
    and the normalised axis is [0, 0, -0])."""
    json_path, doc = session_doc
    doc["grasp"]["axis"] = [1.0, 0.0, -7.7e262]
    json_path.write_text(json.dumps(doc))
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    assert str(err.value) == (
        f"{json_path}: field 'grasp.axis' [1.0, 0.0, -7.7e+262] is too long to be a direction "
        "(its length overflows); give a unit direction such as [1, 0, 0]"
    )
    doc["grasp"]["axis"] = [0.0, 0.0, -1e150]  # long but its length is finite: a direction
    json_path.write_text(json.dumps(doc))
    assert load_session(json_path).grasp.axis.tolist() == [0.0, 0.0, -1.0]


def test_an_obj_face_naming_vertex_0_is_refused_with_its_line(tmp_path):
    """Found by the OBJ cases of test_mesh_header_counts' oracle: OBJ numbers vertices from 1,
    and trimesh reads vertex 0 as the last vertex; on a 5,120-face sphere the wrong triangle's
    hole was filled by the repair and the mesh loaded ('filled 1 hole')."""
    lines = trimesh.creation.icosphere(subdivisions=4, radius=2.0).export(file_type="obj")
    lines = lines.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("f ")][5]
    parts = lines[at].split()
    parts[1] = "0"
    lines[at] = " ".join(parts)
    path = tmp_path / "sphere.obj"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MeshError) as err:
        load_object_mesh(path, unit="cm")
    assert str(err.value) == (
        f"{path} line {at + 1}: face {lines[at]!r} uses vertex 0, but OBJ numbers vertices from "
        "1 (negative numbers count back from the last): the file is damaged; re-export it"
    )
    parts[1] = "-1"  # relative: the last vertex, a valid number (the face is then wrong)
    lines[at] = " ".join(parts)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(MeshError, match=r"not watertight|intersects itself"):
        load_object_mesh(path, unit="cm")


def _cube_lines(file_type: str, **kw: object) -> tuple[str, list[str], list[str]]:
    """A 3 cm cube (in cm) as trimesh writes it: (header, vertex lines, face lines)."""
    data = trimesh.creation.box(extents=(3.0, 3.0, 3.0)).export(file_type=file_type, **kw)
    text = data.decode() if isinstance(data, bytes) else data
    if file_type == "ply":
        head, body = text.split("end_header\n")
        head += "end_header\n"
    else:
        first, counts, body = text.split("\n", 2)
        head = f"{first}\n{counts}\n"
    lines = [line for line in body.splitlines() if line.strip()]
    return head, lines[:8], lines[8:]


@pytest.mark.parametrize(("file_type", "kw"), [("ply", {"encoding": "ascii"}), ("off", {})])
def test_a_vertex_line_among_the_faces_is_refused_though_the_counts_agree(tmp_path, file_type, kw):
    """Found by test_mesh_header_counts' oracle: the last vertex line repeated and the face
    count raised by one, so the header's counts equal the lines; trimesh skipped the odd
    'face' and the cube loaded."""
    head, verts, faces = _cube_lines(file_type, **kw)
    head = head.replace("element face 12", "element face 13").replace("8 12 0", "8 13 0")
    path = tmp_path / f"cube.{file_type}"
    path.write_text(head + "\n".join([*verts, verts[-1], *faces]) + "\n")
    with pytest.raises(MeshError) as err:
        load_object_mesh(path, unit="cm")
    assert str(err.value) == (
        f"{path}: face 0 of its 13 ({verts[-1]!r}) is not 'k i1 .. ik' with k >= 3 vertex "
        "numbers: the file is damaged or was edited (a vertex line among the faces?); re-export "
        "it"
    )


def test_faces_with_more_properties_after_their_indices_load(tmp_path):
    """A face element with a colour after its index list (MeshLab writes such files)."""
    head, verts, faces = _cube_lines("ply", encoding="ascii")
    head = head.replace(
        "property list uchar int vertex_indices\n",
        "property list uchar int vertex_indices\nproperty uchar red\n",
    )
    path = tmp_path / "coloured.ply"
    path.write_text(head + "\n".join([*verts, *(f"{f} 255" for f in faces)]) + "\n")
    assert len(load_object_mesh(path, unit="cm").faces) == 12
