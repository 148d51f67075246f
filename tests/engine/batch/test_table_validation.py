"""Grasp tables, labels and results CSVs are validated when read: a bad row is an error row with
its reason (reported before the batch runs), a misspelled column names the closest known one,
and hostile files (deep JSON, huge fields, paths outside the mesh folder, BOMs) get a clear
answer instead of a traceback."""

from __future__ import annotations

import json
import os

import pytest

from engine.batch.grasp_spec import GraspTableError
from engine.batch.grasp_table import read_grasp_table
from engine.batch.results_store import ResultsStore, read_results
from engine.cli.main import main
from engine.errors import ParameterError
from engine.evaluation.labels import load_labels
from tests.engine.batch.conftest import CSV_HEADER, CUBE_ROW, read_rows, write_grasps

PARAM_HEADER = [*CSV_HEADER, "E", "mu", "psi_th"]


def _param_table(tmp_path):
    return write_grasps(
        tmp_path / "g.csv",
        [
            ["ok", *CUBE_ROW, "1e8", "0.4", ""],
            ["badE", *CUBE_ROW, "-1", "", ""],
            ["badmu", *CUBE_ROW, "", "-3", ""],
            ["badpsi", *CUBE_ROW, "", "", "-1"],
            ["ok2", *CUBE_ROW, "", "", ""],
        ],
        PARAM_HEADER,
    )


def test_bad_row_parameters_are_error_rows_at_read_time(tmp_path):
    table = read_grasp_table(_param_table(tmp_path))
    errors = {g.grasp_id: g.error for g in table.errors}
    assert set(errors) == {"badE", "badmu", "badpsi"}
    assert "field 'e': youngs_modulus_pa (--E) must be in [10000, 1e+12] Pa" in errors["badE"]
    assert "field 'mu': mu (--mu) must be" in errors["badmu"]
    assert "field 'psi_th'" in errors["badpsi"] and "psi_th_j" in errors["badpsi"]
    assert table.invalid_summary().startswith("3 of 5 rows are invalid")


def test_batch_reports_invalid_rows_first_and_records_them_as_errors(
    tmp_path, fake_analytic, capsys
):
    out = tmp_path / "r.csv"
    args = [str(_param_table(tmp_path)), "--out", str(out), "--models", "reach"]
    assert main(["batch", *args, "--workers", "0", "--quiet"]) == 1  # 3 error rows
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert "3 of 5 rows are invalid" in first and "field 'e'" in first
    rows = {r["grasp_id"]: r for r in read_rows(out)}
    for gid in ("badE", "badmu", "badpsi"):
        assert rows[gid]["status"] == "error" and rows[gid]["reason"] == "bad input"
        assert rows[gid]["success"] == ""
    assert rows["ok"]["status"] == rows["ok2"]["status"] == "ok"


def test_a_misspelled_column_names_the_closest_known_one(tmp_path):
    path = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW, "1e-9"]], [*CSV_HEADER, "psi_thh"])
    with pytest.raises(GraspTableError, match=r"column 'psi_thh'.*did you mean 'psi_th'"):
        read_grasp_table(path)


def test_unknown_columns_are_noted_and_results_columns_are_carried(tmp_path):
    header = [*CSV_HEADER, "notes", "param_mu", "success", "ipcgrasp_version"]
    path = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW, "x", "0.4", "True", "v"]], header)
    table = read_grasp_table(path)
    assert not table.errors
    assert len(table.warnings) == 1 and "'notes'" in table.warnings[0]


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (
            ["a", "cube", "0", "0", "0.015", "1e308", "1e308", "0"],
            "field 'axis_x': 1e+308 is too large for a direction",
        ),
        (["a", "cube", "0", "0", "0.015", "1e-320", "0", "0"], "zero vector"),
        (["a", "cube", "1e300", "0", "0.015", "1", "0", "0"], "far outside any object"),
        (["a", "x\0y.obj", "0", "0", "0.015", "1", "0", "0"], "NUL character"),
        (["a", "m" * 5000 + ".obj", "0", "0", "0.015", "1", "0", "0"], "5004 characters"),
    ],
)
def test_bad_rows_fail_alone(tmp_path, row, match):
    path = write_grasps(tmp_path / "g.csv", [row, ["b", *CUBE_ROW]])
    table = read_grasp_table(path)
    assert [g.grasp_id for g in table.errors] == ["a"]
    assert match in table.errors[0].error


def test_a_symlink_loop_in_an_object_cell_fails_only_its_row(tmp_path):
    os.symlink(tmp_path / "loop.obj", tmp_path / "loop.obj")
    path = write_grasps(
        tmp_path / "g.csv",
        [["a", "loop.obj", "0", "0", "0.015", "1", "0", "0"], ["b", *CUBE_ROW]],
    )
    table = read_grasp_table(path)
    assert [g.grasp_id for g in table.grasps] == ["a", "b"]
    assert [g.grasp_id for g in table.errors] == ["a"]
    assert (
        "field 'object'" in table.errors[0].error and "not a usable path" in table.errors[0].error
    )


def test_a_huge_csv_field_is_one_bad_row(tmp_path):
    path = write_grasps(
        tmp_path / "g.csv",
        [["a", "cube" + " " * 200_000, "0", "0", "0.015", "1", "0", "0"], ["b", *CUBE_ROW]],
    )
    table = read_grasp_table(path)
    assert len(table.errors) == 1 and "field larger than field limit" in table.errors[0].error


def _reach(tmp_path, obj):
    record = {"obj": obj, "attempt": 0, "trial": 0, "result": True}
    pose = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    record.update(grasp=pose, pose=pose)
    p = tmp_path / "reach.json"
    p.write_text(json.dumps([record]))
    return p


@pytest.mark.parametrize("obj", ["../../x", "a/b", "..", "/etc/passwd", "~root"])
def test_reach_object_names_cannot_leave_the_mesh_folder(tmp_path, obj):
    meshes = tmp_path / "meshes"
    meshes.mkdir()
    table = read_grasp_table(_reach(tmp_path, obj), mesh_dir=meshes)
    assert len(table.errors) == 1 and "field 'obj'" in table.errors[0].error


def test_reach_mesh_symlinked_outside_the_mesh_folder_is_refused(tmp_path):
    meshes = tmp_path / "meshes"
    meshes.mkdir()
    (tmp_path / "secret.obj").write_text("v 0 0 0\n")
    (meshes / "x.obj").symlink_to(tmp_path / "secret.obj")
    table = read_grasp_table(_reach(tmp_path, "x"), mesh_dir=meshes)
    assert "links outside --mesh-dir" in table.errors[0].error
    (meshes / "cube_3cm.obj").write_text("v 0 0 0\n")
    table = read_grasp_table(_reach(tmp_path, "cube_3cm"), mesh_dir=meshes)
    assert not table.errors and table.grasps[0].object == str(meshes.resolve() / "cube_3cm.obj")


def test_deeply_nested_json_is_a_clear_error(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GraspTableError, match="nested too deeply"):
        read_grasp_table(p)
    with pytest.raises(ParameterError, match="nested too deeply"):
        load_labels([str(p)])
    results = tmp_path / "r.csv"
    results.write_text("task_key,status\n")
    assert main(["evaluate", str(results), "--labels", str(p)]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_byte_order_marks_are_accepted(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_bytes(b"\xef\xbb\xbfgrasp_id,result\ng0,true\n")
    assert load_labels([str(labels)])["g0"].outcomes == (True,)
    reach = _reach(tmp_path, "cube_3cm")
    reach.write_bytes(b"\xef\xbb\xbf" + reach.read_bytes())
    assert load_labels([str(reach)])["cube_3cm/0"].outcomes == (True,)
    assert read_grasp_table(reach).kind == "reach"
    results = tmp_path / "results.csv"
    results.write_bytes(b"\xef\xbb\xbftask_key,status,model\nk1,ok,ipc\n")
    assert [r["task_key"] for r in read_results([results])] == ["k1"]
    with ResultsStore(results, ["task_key", "status", "model"]) as store:
        assert store.info.ok_keys == {"k1"}


def test_huge_fields_and_trial_counts_in_labels_and_results(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("grasp_id,result\n" + "g" * 200_000 + ",true\n")
    with pytest.raises(ParameterError, match="line 2: not a valid CSV row"):
        load_labels([str(labels)])
    labels.write_text("grasp_id,successes,trials\ng0,1,10000000000\n")
    with pytest.raises(ParameterError, match="more than 1,000,000 physical trials in all"):
        load_labels([str(labels)])
    results = tmp_path / "results.csv"
    results.write_text("task_key,status\n" + "k" * 200_000 + ",ok\nk2,ok\n")
    assert [r["task_key"] for r in read_results([results])] == ["k2"]
    with ResultsStore(results, ["task_key", "status"]) as store:
        assert store.info.ok_keys == {"k2"} and store.info.unreadable_rows == [2]
