"""`ipcgrasp simulate`: JSON per trial, CSV rows, frames file, and errors that say what to do."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from engine.cli.main import main
from engine.io.frames_npz import load_frames

REQUIRED_JSON = {
    "success",
    "psi1",
    "psi2",
    "grip_force",
    "lift_height",
    "frames",
    "newton_iterations",
    "wall_time_s",
    "min_distance",
    "intersection_free",
}


@pytest.mark.slow
def test_simulate_json_csv_and_frames(tmp_path, capsys):
    out, frames = tmp_path / "r.csv", tmp_path / "f.npz"
    code = main(
        [
            "simulate",
            "--object",
            "cube",
            "--trials",
            "2",
            "--seed",
            "4",
            "--json",
            "--out",
            str(out),
            "--frames",
            str(frames),
        ]
    )
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert len(lines) == 2
    for rec in lines:
        assert REQUIRED_JSON <= rec.keys()
        assert rec["intersection_free"] is True
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["trial"]) for r in rows] == [0, 1]
    assert rows[0]["param_youngs_modulus_pa"] == "100000000.0" and rows[0]["seed"] == "4"
    assert {r["success"] for r in rows} <= {"True", "False"}
    meta, arrays = load_frames(frames)
    assert meta["trials"] == [0, 1]
    n = lines[0]["frames"]
    assert arrays["t0/time_s"].shape == (n,) and arrays["t0/pad1"].shape[0] == n
    assert np.all(np.diff(arrays["t0/time_s"]) > 0)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--object", "/nonexistent/mesh.obj"], "not found"),
        (["--E", "nan"], "nan"),
        (["--E", "-1"], "youngs_modulus_pa (--E) must be in [10000, 1e+12] Pa (got -1.0)"),
        (["--mu", "-0.2"], "mu (--mu) must be in [0, 3] (got -0.2)"),
        (
            ["--grasp-center", "0", "0.05", "0.015", "--grasp-axis", "1", "0", "0"],
            "misses the object",
        ),
        (["--grasp-center", "0", "0", "0.015"], "give both --grasp-center and --grasp-axis"),
        (["--trials", "0"], "n_trials (--trials) must be in [1, 100000] (got 0)"),
    ],
)
def test_simulate_bad_input_exits_2_with_a_message(tmp_path, capsys, args, message):
    code = main(["simulate", "--out", str(tmp_path / "r.csv"), *args])
    assert code == 2
    err = capsys.readouterr().err
    assert "error:" in err and message in err


def test_non_mesh_file_is_rejected(tmp_path, capsys):
    junk = tmp_path / "junk.stl"
    junk.write_text("this is not a mesh")
    assert main(["simulate", "--object", str(junk), "--out", str(tmp_path / "r.csv")]) == 2
    assert "error:" in capsys.readouterr().err


def test_unwritable_output_is_reported(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["simulate", "--out", str(blocker / "sub" / "r.csv")])
    assert code == 2
    assert "choose a writable --out path" in capsys.readouterr().err


@pytest.mark.slow
def test_json_stdout_stays_clean_when_the_solver_falls_back(tmp_path, capfd):
    """The slipping cube makes the unprojected Newton matrix indefinite (CHOLMOD complains on C
    stdio); stdout must still hold only JSON lines."""
    code = main(
        ["simulate", "--mu", "0.05", "--psi-th", "1e-9", "--json", "--out", str(tmp_path / "r.csv")]
    )
    assert code == 0
    out = capfd.readouterr().out.strip().splitlines()
    assert len(out) == 1
    assert json.loads(out[0])["success"] is False


def test_a_soft_pad_under_a_strong_gripper_is_warned_about_before_anything_runs(tmp_path, capsys):
    # An existing output refuses the run right after the parameters are read: the warning
    # (engine.grasp.pad_strain) comes first, and the default pad gets none.
    existing = tmp_path / "r.csv"
    existing.write_text("kept\n")
    soft = ["--gripper", "robotiq_2f85", "--E", "1e6"]
    assert main(["simulate", "--out", str(existing), *soft]) == 2
    err = capsys.readouterr().err
    assert "warning: pads of E = 1 MPa pressed with up to 235 N" in err
    assert "E >= 4.3 MPa" in err and "already exists" in err
    assert main(["simulate", "--out", str(existing), "--gripper", "robotiq_2f85"]) == 2
    assert "warning" not in capsys.readouterr().err
    assert existing.read_text() == "kept\n"
