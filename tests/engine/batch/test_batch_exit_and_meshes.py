"""A batch's exit status and its checks before the first task: non-zero when any task ended in
an error row (saying how many and how to rerun them), every mesh the grasp table names loaded
before the first task with all bad ones listed, and a REACH JSON's missing mesh named with
exactly where to put it."""

from __future__ import annotations

import json

import pytest
import trimesh

from engine.batch.grasp_table import read_grasp_table
from engine.batch.mesh_check import check_meshes
from engine.batch.runner import EXIT_ERROR_ROWS, BatchSummary
from engine.cli.main import main
from engine.errors import GraspError, IpcGraspError
from tests.engine.batch.conftest import CSV_HEADER, CUBE_ROW, read_rows, write_grasps

POSE = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def _batch(*args: str) -> int:
    return main(["batch", *args, "--models", "reach", "--workers", "0", "--quiet"])


def test_exit_status_counts_this_runs_and_earlier_runs_error_rows():
    assert BatchSummary(4, 0, 4, 0, False).exit_status == 0
    assert BatchSummary(4, 0, 4, 1, False).exit_status == EXIT_ERROR_ROWS == 1
    assert BatchSummary(4, 4, 0, 0, False, earlier_errors=2).exit_status == 1
    assert BatchSummary(4, 0, 2, 1, True, stop_signal=15).exit_status == 143


def test_a_batch_whose_tasks_all_fail_exits_non_zero_and_says_how_to_rerun(
    tmp_path, monkeypatch, capsys
):
    import engine.analytic.pipeline as pipeline

    def fails(*args, **kwargs):
        raise GraspError("the grasp misses the object (stand-in)")

    monkeypatch.setattr(pipeline, "analyze_grasp", fails)  # every task ends in an error row
    grasps = write_grasps(
        tmp_path / "g.csv",
        [[f"g{k}", "cube", "0", "0", "0.015", "1", "0", "0"] for k in range(3)],
    )
    out = tmp_path / "r.csv"
    assert _batch(str(grasps), "--out", str(out)) == 1
    assert [r["status"] for r in read_rows(out)] == ["error"] * 3
    err = capsys.readouterr().err
    assert "3 of 3 tasks ended in an error row (exit status 1)" in err
    assert "run the same command with --retry-errors to run just them again" in err
    # Resuming runs nothing and still says the batch holds error rows.
    assert _batch(str(grasps), "--out", str(out)) == 1
    assert "3 of 3 tasks ended in an error row, 3 of them in an earlier run" in (
        capsys.readouterr().err
    )


def test_every_bad_mesh_is_listed_before_the_first_task(tmp_path, fake_analytic, capsys):
    (tmp_path / "empty.obj").write_text("# no triangles\n")
    can = trimesh.creation.cylinder(radius=3.3, height=11.5)  # centimetres, given as metres
    can.export(tmp_path / "can_cm.stl")
    grasps = write_grasps(
        tmp_path / "g.csv",
        [
            ["good", *CUBE_ROW],
            ["a", "missing.obj", "0", "0", "0.015", "1", "0", "0"],
            ["b", "missing.obj", "0", "0", "0.015", "1", "0", "0"],
            ["c", "empty.obj", "0", "0", "0.015", "1", "0", "0"],
            ["d", "can_cm.stl", "0", "0", "0.015", "1", "0", "0"],
        ],
    )
    table = read_grasp_table(grasps)
    check = check_meshes(table)
    assert check.unusable == 4 and check.checked == 5
    assert len(check.problems) == 3
    missing, empty, can_cm = check.problems
    assert "missing.obj (2 grasps (a, b))" in missing and "not found" in missing
    assert "empty.obj (1 grasp (c))" in empty and "contains no triangles" in empty
    assert "can_cm.stl (1 grasp (d))" in can_cm and "--unit cm" in can_cm
    assert check.objects == (
        "object cube (1 grasp): 30 x 30 x 30 mm (mesh read in metres), mass 3 g, density "
        "111.1 kg/m^3",
    )
    # The batch says all of it before the first task, then runs the good grasp.
    out = tmp_path / "r.csv"
    assert _batch(str(grasps), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert "4 of 5 grasps cannot run" in err
    for problem in check.problems:
        assert problem in err
    assert err.index("cannot run") < err.index("tasks run in")
    assert {r["grasp_id"]: r["status"] for r in read_rows(out)}["good"] == "ok"


def test_a_mass_no_object_has_is_listed_before_the_first_task(tmp_path):
    grasps = write_grasps(
        tmp_path / "g.csv",
        [["light", *CUBE_ROW, "0.003"], ["heavy", *CUBE_ROW, "5"]],
        [*CSV_HEADER, "mass"],
    )
    check = check_meshes(read_grasp_table(grasps))
    (problem,) = check.problems
    assert problem.startswith("grasp heavy (line 3): a mass of 5000 g in 27 cm^3")
    assert "more than any object" in problem


def test_a_table_none_of_whose_meshes_loads_is_refused_before_writing_anything(
    tmp_path, fake_analytic, capsys
):
    grasps = write_grasps(
        tmp_path / "g.csv", [["a", "missing.obj", "0", "0", "0.015", "1", "0", "0"]]
    )
    out = tmp_path / "r.csv"
    assert _batch(str(grasps), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "none of the 1 grasps" in err and "missing.obj" in err and "not found" in err
    assert not out.exists()


def _reach_json(path, obj: str):
    record = {"obj": obj, "attempt": 0, "trial": 0, "result": True, "grasp": POSE, "pose": POSE}
    path.write_text(json.dumps([record]))
    return path


def test_a_reach_objects_missing_mesh_says_exactly_where_to_put_it(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    reach = _reach_json(data / "mugs.json", "mug")
    with pytest.raises(IpcGraspError) as err:
        check_meshes(read_grasp_table(reach))
    assert (
        f"REACH object 'mug' (1 grasp (mug/0)): its mesh mug.obj is not in {data}: put mug.obj "
        "there, or pass --mesh-dir with the folder that holds it"
    ) in str(err.value)
    assert _batch(str(reach), "--out", str(tmp_path / "r.csv")) == 2
    assert "put mug.obj there" in capsys.readouterr().err


def test_a_reach_json_finds_the_built_in_cube_without_its_file(tmp_path):
    table = read_grasp_table(_reach_json(tmp_path / "cube.json", "cube_3cm"))
    assert table.grasps[0].object == "cube" and not table.errors
    assert any("the grasps of cube_3cm use the built-in 'cube'" in w for w in table.warnings)
    assert check_meshes(table).problems == ()
