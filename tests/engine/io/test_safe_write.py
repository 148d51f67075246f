"""Writers never destroy a user's file: existing outputs are refused unless --force, and every
write is atomic (temporary file + rename), so a failure leaves the old file whole."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.cli.main import main
from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io.frames_npz import CONTACT_COLUMNS, load_frames, save_frames
from engine.io.results_csv import open_results_writer
from engine.io.safe_write import (
    OutputExistsError,
    atomic_path,
    atomic_write_text,
    open_new_text,
)
from engine.io.session import Session, SessionError, load_session, save_session
from engine.io.vtk_series import write_vtk_series
from engine.scene.object_mesh import builtin_cube

USER_DATA = "someone's data\n1,2,3\n"


def _user_file(path):
    path.write_text(USER_DATA)
    return path


def _no_temp_files(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")]


# --- the helper ---------------------------------------------------------------------------------
def test_atomic_write_refuses_existing_and_replaces_only_when_told(tmp_path):
    p = _user_file(tmp_path / "out.txt")
    with pytest.raises(OutputExistsError, match=r"already exists.*--force"):
        atomic_write_text(p, "new")
    assert p.read_text() == USER_DATA
    atomic_write_text(p, "new", overwrite=True)
    assert p.read_text() == "new"
    assert _no_temp_files(tmp_path) == []


def test_a_failing_write_leaves_the_old_file_and_no_temporary(tmp_path):
    p = _user_file(tmp_path / "out.txt")
    with pytest.raises(RuntimeError), atomic_path(p, overwrite=True) as tmp:
        tmp.write_text("half a fi")
        raise RuntimeError("crash while writing")
    assert p.read_text() == USER_DATA
    assert _no_temp_files(tmp_path) == []


def test_a_file_created_meanwhile_is_not_replaced(tmp_path):
    p = tmp_path / "out.txt"
    with pytest.raises(OutputExistsError), atomic_path(p) as tmp:
        tmp.write_text("mine")
        _user_file(p)  # another program creates it while we write
    assert p.read_text() == USER_DATA


def test_streamed_rows_replace_the_old_file_only_when_closed(tmp_path):
    p = _user_file(tmp_path / "rows.csv")
    with pytest.raises(OutputExistsError):
        open_new_text(p)
    f = open_new_text(p, overwrite=True)
    f.write("a,b\n")
    f.flush()
    assert p.read_text() == USER_DATA  # still the old content while rows stream
    f.close()
    assert p.read_text() == "a,b\n"
    g = open_new_text(p, overwrite=True)
    g.write("half")
    g.discard()  # a failed run keeps the previous file
    assert p.read_text() == "a,b\n"
    assert _no_temp_files(tmp_path) == []


def test_results_writer_refuses_an_existing_csv(tmp_path):
    p = _user_file(tmp_path / "results.csv")
    with pytest.raises(OutputExistsError, match="--force"):
        open_results_writer(p, ["a"])
    assert p.read_text() == USER_DATA


# --- commands -----------------------------------------------------------------------------------
@pytest.mark.parametrize("option", ["--out", "--frames"])
def test_simulate_refuses_existing_outputs_before_running(tmp_path, capsys, option):
    p = _user_file(tmp_path / ("results.csv" if option == "--out" else "frames.npz"))
    assert main(["simulate", "--object", "cube", option, str(p)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and "trial" not in err
    assert p.read_text() == USER_DATA


def test_simulate_writes_nothing_without_out(tmp_path, monkeypatch):
    # (the trial itself fails at once: a grasp far outside the object)
    monkeypatch.chdir(tmp_path)
    main(["simulate", "--object", "cube", "--grasp-center", "1", "1", "1", "--grasp-axis", "1", "0", "0"])  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_analyze_refuses_an_existing_out(tmp_path, capsys):
    p = _user_file(tmp_path / "a.csv")
    assert main(["analyze", "--object", "cube", "--samples", "0", "--out", str(p)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert p.read_text() == USER_DATA


def _evaluate_case(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("grasp_id,result\ng0,true\ng0,false\n")
    results = tmp_path / "results.csv"
    results.write_text(
        "task_key,status,model,grasp_id,trial,config,success\nk,ok,ipc,g0,0,c,True\n"
    )
    return results, labels


@pytest.mark.parametrize("option", ["--plot", "--json"])
def test_evaluate_refuses_existing_plot_and_json_unless_force(tmp_path, capsys, option):
    results, labels = _evaluate_case(tmp_path)
    p = _user_file(tmp_path / ("pr.png" if option == "--plot" else "scores.json"))
    args = ["evaluate", str(results), "--labels", str(labels), option, str(p)]
    assert main(args) == 2
    assert "already exists" in capsys.readouterr().err
    assert p.read_text() == USER_DATA
    assert main([*args, "--force"]) == 0
    data = p.read_bytes()
    assert data.startswith(b"\x89PNG") if option == "--plot" else json.loads(data)
    assert _no_temp_files(tmp_path) == []


def test_grid_refuses_to_replace_tables_in_a_folder_that_is_not_a_grid(tmp_path, capsys):
    grasps = tmp_path / "g.csv"
    grasps.write_text(
        "object,center_x,center_y,center_z,axis_x,axis_y,axis_z\ncube,0,0,0.015,1,0,0\n"
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("grasp_id,result\nrow1,true\n")
    out = tmp_path / "mine"
    out.mkdir()
    table = _user_file(out / "grid.md")
    args = ["grid", str(grasps), "--labels", str(labels), "--out", str(out), "--workers", "0"]
    assert main(args) == 2
    assert "grid.md already exists" in capsys.readouterr().err
    assert table.read_text() == USER_DATA
    assert not (out / "results.csv").exists()


# --- file formats -------------------------------------------------------------------------------
def _frame() -> Frame:
    pad = np.zeros((4, 3), dtype=np.float32)
    return Frame(
        index=0, time_s=0.0, phase="squeeze", pad_vertices=(pad, pad + 1.0),
        object_pose=np.eye(4), plate_travel_m=0.0, plate_lift_m=0.0, psi_j=(0.0, 0.0),
        grip_force_n=(0.0, 0.0), contacts=dict.fromkeys(CONTACT_COLUMNS, 0), min_distance_m=1.0, object_min_z_m=0.0,
        newton_iterations=1, intersection_free=True,
    )  # fmt: skip


def _save_frames(path, overwrite=False):
    cube = builtin_cube()
    tets = np.array([[0, 1, 2, 3]])
    faces = np.array([[0, 1, 2]])
    return save_frames(
        path, {0: [_frame()]}, tets, faces, cube.vertices, cube.faces, overwrite=overwrite
    )


def test_frames_file_refused_then_replaced_atomically(tmp_path):
    p = _user_file(tmp_path / "f.npz")
    with pytest.raises(OutputExistsError):
        _save_frames(p)
    assert p.read_text() == USER_DATA
    _save_frames(p, overwrite=True)
    meta, arrays = load_frames(p)
    assert meta["trials"] == [0] and arrays["t0/pad1"].shape == (1, 4, 3)
    assert _save_frames(tmp_path / "g") == tmp_path / "g.npz"  # suffix added as numpy did
    assert _no_temp_files(tmp_path) == []


def test_vtk_series_refused_then_replaced(tmp_path):
    cube = builtin_cube()
    pvd = _user_file(tmp_path / "s.pvd")
    faces = np.array([[0, 1, 2]])
    with pytest.raises(OutputExistsError):
        write_vtk_series(pvd, [_frame()], cube.vertices, cube.faces, faces)
    assert pvd.read_text() == USER_DATA
    assert not (tmp_path / "s_frames").exists()
    write_vtk_series(pvd, [_frame()], cube.vertices, cube.faces, faces, overwrite=True)
    assert "frame_00000.vtp" in pvd.read_text()
    assert sorted(p.name for p in (tmp_path / "s_frames").iterdir()) == [
        ".ipcgrasp-series.json",  # the manifest: what the export may replace (test_writer_safety)
        "frame_00000.vtp",
    ]
    assert _no_temp_files(tmp_path) == []


def _session() -> Session:
    cube = builtin_cube()
    return Session(
        "builtin:cube", None, None, 0, 1000.0,
        Grasp(np.array([0.0, 0.0, 0.015]), np.array([1.0, 0.0, 0.0]), 0.0),
        SimulationParams(), TrialSpec(1, 0), [], mesh=cube, object_name="cube",
    )  # fmt: skip


def test_session_refuses_existing_files_unless_overwrite(tmp_path):
    json_path = _user_file(tmp_path / "s.ipcgrasp.json")
    with pytest.raises(SessionError, match="already exists"):
        save_session(tmp_path / "s", _session())
    assert json_path.read_text() == USER_DATA
    assert not (tmp_path / "s.ipcgrasp.npz").exists()
    save_session(tmp_path / "s", _session(), overwrite=True)
    assert load_session(json_path).object_name == "cube"
    # Saving again over its own files (the app's Ctrl+S) needs overwrite too.
    with pytest.raises(SessionError, match="already exists"):
        save_session(json_path, _session())
    assert _no_temp_files(tmp_path) == []


@pytest.mark.slow
def test_simulate_force_replaces_both_outputs(tmp_path, capsys):
    out = _user_file(tmp_path / "results.csv")
    frames = _user_file(tmp_path / "frames.npz")
    args = ["simulate", "--object", "cube", "--out", str(out), "--frames", str(frames), "--force"]
    assert main(args) == 0
    assert (
        out.read_text().startswith("ipcgrasp_version,") and len(out.read_text().splitlines()) == 2
    )
    assert load_frames(frames)[0]["trials"] == [0]
    assert _no_temp_files(tmp_path) == []
