"""What loading repaired, and which body of a file was used, is in every result row (simulate
and analyze CSVs, batch rows) and in sessions, and a session or a batch loads the same body."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.batch.grasp_scene import build_scene
from engine.batch.grasp_table import read_grasp_table
from engine.cli.main import main
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io.session import Session, load_session, resolve_object, save_session
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object
from tests.engine.batch.conftest import fake_analytic, read_rows, write_grasps

__all__ = ["fake_analytic"]  # the batch tests' fixture, used here too


def _two_bodies_with_a_sliver(path):
    """A 40 x 20 x 20 mm box and a 16 mm ball 60 mm away, plus one stray triangle."""
    box = trimesh.creation.box(extents=[0.04, 0.02, 0.02])
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.008).apply_translation([0.06, 0, 0])
    sliver = trimesh.Trimesh([[0, 0.03, 0], [1e-3, 0.03, 0], [0, 0.031, 0]], [[0, 1, 2]])
    trimesh.util.concatenate([box, ball, sliver]).export(path)
    return path


def test_analyze_rows_name_the_body_and_the_repair(tmp_path, capsys):
    mesh = _two_bodies_with_a_sliver(tmp_path / "parts.obj")
    out = tmp_path / "a.csv"
    assert main(["analyze", "--object", str(mesh), "--models", "soft_point"]) == 2
    assert "holds 2 separate bodies" in capsys.readouterr().err
    code = main(
        ["analyze", "--object", str(mesh), "--body", "0", "--models", "soft_point",
         "--samples", "0", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    (row,) = read_rows(out)
    assert row["object_body"] == "0 of 2"
    assert row["object_repair"].startswith("removed 1 detached fragment of 1 face")
    assert "kept body 0 of 2" in row["object_repair"]


def test_batch_reads_the_body_column_and_records_the_repair(tmp_path, fake_analytic):
    mesh = _two_bodies_with_a_sliver(tmp_path / "parts.obj")
    header = ["grasp_id", "object", "body", "center_x", "center_y", "center_z", "axis_x",
              "axis_y", "axis_z"]  # fmt: skip
    grasps = write_grasps(
        tmp_path / "g.csv",
        [["ball", "parts.obj", "1", "0", "0", "0.008", "1", "0", "0"],
         ["none", "parts.obj", "", "0", "0", "0.01", "0", "1", "0"]],
        header,
    )  # fmt: skip
    table = read_grasp_table(grasps)
    obj, loaded, _ = build_scene(table.grasps[0])
    assert loaded.repair.body == "1 of 2" and obj.volume_m3 == pytest.approx(2.0e-6, rel=0.1)
    out = tmp_path / "r.csv"
    assert main(["batch", str(grasps), "--out", str(out), "--models", "reach", "--workers", "0",
                 "--quiet"]) == 1  # fmt: skip
    # (exit status 1: the error row of "none")
    rows = {r["grasp_id"]: r for r in read_rows(out)}
    assert rows["ball"]["status"] == "ok" and rows["ball"]["object_body"] == "1 of 2"
    assert "removed 1 detached fragment" in rows["ball"]["object_repair"]
    assert rows["none"]["status"] == "error" and "--body" in rows["none"]["error"]
    assert mesh.exists()


def test_a_bad_body_cell_is_an_error_row(tmp_path):
    header = ["object", "body", "center_x", "center_y", "center_z", "axis_x", "axis_y", "axis_z"]
    grasps = write_grasps(tmp_path / "g.csv", [["cube", "first", "0", "0", "0", "1", "0", "0"]],
                          header)  # fmt: skip
    (spec,) = read_grasp_table(grasps).grasps
    assert "field 'body'" in spec.error and "--body must be a body number" in spec.error


def test_sessions_keep_the_repair_and_reload_the_same_body(tmp_path):
    path = _two_bodies_with_a_sliver(tmp_path / "parts.obj")
    mesh = load_object_mesh(path, body=1)
    obj = rest_object(mesh)
    session = Session(
        object_source=mesh.source,
        object_sha256=mesh.sha256,
        object_unit=None,
        stable_pose=0,
        density_kg_m3=obj.density_kg_m3,
        grasp=Grasp(np.array([0, 0, 0.008]), np.array([1.0, 0, 0])),
        params=SimulationParams(),
        spec=TrialSpec(1, 0),
        mesh=mesh,
        object_name=mesh.name,
        object_repair=mesh.repair,
    )
    json_path, _ = save_session(tmp_path / "s", session)
    assert '"body": "1"' in json_path.read_text()
    loaded = load_session(json_path)
    assert loaded.object_repair == mesh.repair
    again, note = resolve_object(loaded, json_path)
    assert note == "" and again.repair == mesh.repair
    assert np.allclose(again.vertices, mesh.vertices)
    # Without the file, the embedded copy carries the same record.
    path.unlink()
    copy, note = resolve_object(loaded, json_path)
    assert "not found" in note and copy.repair == mesh.repair
