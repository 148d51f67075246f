"""Grasp tables: CSV rows and REACH JSON records become grasps; bad rows name line and field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.batch.grasp_scene import REACH_JAW_CENTER_Z_M, build_scene
from engine.batch.grasp_spec import GraspTableError
from engine.batch.grasp_table import read_grasp_table
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from tests.engine.batch.conftest import CSV_HEADER, CUBE_ROW, write_grasps


def test_csv_rows_become_grasps_with_row_parameters(tmp_path):
    header = [*CSV_HEADER, "approach_angle", "mass", "E", "mu", "psi_th"]
    path = write_grasps(
        tmp_path / "g.csv",
        [
            ["a", *CUBE_ROW, "0.1", "0.004", "1e7", "0.5", "2e-9"],
            ["b", *CUBE_ROW, "", "", "", "", ""],
        ],
        header,
    )
    table = read_grasp_table(path)
    assert table.kind == "csv" and len(table.grasps) == 2 and not table.errors
    a, b = table.grasps
    assert a.grasp_id == "a" and a.source_row == "line 2"
    assert a.approach_angle_rad == pytest.approx(0.1) and a.mass_kg == pytest.approx(0.004)
    assert a.params == {"youngs_modulus_pa": 1e7, "mu": 0.5, "psi_th_j": 2e-9}
    assert b.params == {} and b.approach_angle_rad == 0.0
    obj, mesh, grasp = build_scene(a)
    assert mesh.source == "builtin:cube" and obj.mass_kg == pytest.approx(0.004)
    assert np.allclose(grasp.center, [0, 0, 0.015])


def test_simulate_csv_column_names_are_accepted(tmp_path):
    header = ["object", "grasp_center_x", "grasp_center_y", "grasp_center_z"]
    header += ["grasp_axis_x", "grasp_axis_y", "grasp_axis_z"]
    table = read_grasp_table(write_grasps(tmp_path / "g.csv", [CUBE_ROW], header))
    assert table.grasps[0].grasp_id == "row1" and not table.errors


@pytest.mark.parametrize(
    "row, message",
    [
        (
            ["bad", "cube", "0", "abc", "0.015", "1", "0", "0"],
            "line 3 (row 2), field 'center_y': 'abc' is not a number",
        ),
        (["bad", "cube", "0", "0", "", "1", "0", "0"], "field 'center_z': is empty"),
        (["bad", "cube", "0", "0", "0.015", "0", "0", "0"], "field 'axis_x'"),
        (["bad", "", "0", "0", "0.015", "1", "0", "0"], "field 'object'"),
        (["bad", "cube", "0", "0", "inf", "1", "0", "0"], "not a finite number"),
        (["bad", "cube", "0"], "3 fields, the header has 8"),
    ],
)
def test_a_malformed_row_is_kept_as_an_error_naming_line_and_field(tmp_path, row, message):
    path = write_grasps(tmp_path / "g.csv", [["ok", *CUBE_ROW], row])
    table = read_grasp_table(path)
    assert len(table.grasps) == 2
    assert not table.grasps[0].error
    assert message in table.grasps[1].error and "line 3" in table.grasps[1].error


def test_duplicate_grasp_ids_are_reported(tmp_path):
    table = read_grasp_table(write_grasps(tmp_path / "g.csv", [["x", *CUBE_ROW], ["x", *CUBE_ROW]]))
    assert "grasp_id 'x' already used on line 2" in table.grasps[1].error


def test_missing_columns_and_missing_files_are_table_errors(tmp_path):
    with pytest.raises(GraspTableError, match="lacks column"):
        read_grasp_table(write_grasps(tmp_path / "g.csv", [["cube", "0"]], ["object", "center_x"]))
    with pytest.raises(GraspTableError, match="not found"):
        read_grasp_table(tmp_path / "nope.csv")
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(GraspTableError, match="not valid JSON"):
        read_grasp_table(tmp_path / "bad.json")
    (tmp_path / "obj.json").write_text("{}")
    with pytest.raises(GraspTableError, match="expected a JSON list"):
        read_grasp_table(tmp_path / "obj.json")


def test_limit_keeps_the_first_grasps(tmp_path):
    path = write_grasps(tmp_path / "g.csv", [[str(i), *CUBE_ROW] for i in range(5)])
    assert [g.grasp_id for g in read_grasp_table(path, limit=2).grasps] == ["0", "1"]


def test_reach_records_group_into_grasps(reach_json):
    table = read_grasp_table(reach_json)
    assert table.kind == "reach" and len(table.grasps) == 25 and not table.errors
    g0 = table.grasps[0]
    assert g0.grasp_id == "cube_3cm/0" and g0.source_row == "record 0"
    assert g0.mass_kg == pytest.approx(0.003)  # from the per-object mass table
    assert g0.object.endswith("cube_3cm.obj")
    assert read_grasp_table(reach_json, mass_kg=0.005).grasps[0].mass_kg == 0.005


def test_reach_attempt_0_jaw_centre_is_on_the_cube_and_the_grasp_closes_on_it(reach_json):
    spec = read_grasp_table(reach_json, limit=1).grasps[0]
    obj, _, grasp = build_scene(spec)
    lo, hi = obj.vertices.min(axis=0), obj.vertices.max(axis=0)
    assert np.allclose(hi - lo, [0.0307, 0.0307, 0.030], atol=1e-3)  # yawed 1.4 degrees, flat
    assert np.all(grasp.center >= lo - 0.005) and np.all(grasp.center <= hi + 0.005)
    # Approach from above (gripper z down), closing roughly horizontally.
    pose = grasp.pose()
    assert pose[2, 2] < -0.99 and abs(pose[2, 0]) < 0.1
    # The world-frame relation is kept: the jaw centre is the tooltip midpoint.
    record = json.loads(reach_json.read_text())[0]
    world = np.asarray(record["grasp"]) @ [0, 0, REACH_JAW_CENTER_Z_M, 1]
    cube_centre_world = np.asarray(record["pose"])[:3, 3]
    cube_centre_rest = obj.center_of_mass
    assert np.allclose(world[:3] - cube_centre_world, grasp.center - cube_centre_rest, atol=0.5e-3)
    # The simulator accepts it: the open jaws clear the cube and closing would not miss.
    GraspSimulation(obj, pose, SimulationParams(), pad=build_pad(SimulationParams()))


def test_reach_record_errors_name_record_and_field(tmp_path, reach_json):
    records = json.loads(reach_json.read_text())[:10]
    del records[5]["grasp"]  # attempt 1, first record
    records[7]["attempt"] = "x"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(records))
    table = read_grasp_table(path)
    errors = {g.grasp_id: g.error for g in table.grasps if g.error}
    assert "record 5, field 'grasp': is missing" in errors["cube_3cm/1"]
    assert "record 7, field 'attempt'" in errors["record7"]
