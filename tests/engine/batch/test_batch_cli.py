"""`ipcgrasp batch`: rows per task, resume without loss or duplicates, errors that do not stop it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from engine.batch.tasks import RESULT_COLUMNS
from engine.cli.main import main
from tests.conftest import REPO
from tests.engine.batch.conftest import CUBE_ROW, finite, read_rows, write_grasps


def batch(*args: str) -> int:
    return main(["batch", *args, "--quiet"])


def test_analytic_rows_carry_inputs_versions_and_seeds(tmp_path, fake_analytic):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW], ["b", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach,6dfc", "--samples", "7"]
    assert batch(*args, "--workers", "0", "--seed", "3", "--mu", "0.6") == 0
    rows = read_rows(out)
    assert list(rows[0]) == list(RESULT_COLUMNS)
    assert [(r["grasp_id"], r["model"]) for r in rows] == [
        ("a", "reach"),
        ("a", "6dfc"),
        ("b", "reach"),
        ("b", "6dfc"),
    ]
    for r in rows:
        assert r["status"] == "ok" and finite(r["robustness"]) and r["samples"] == "7"
        assert r["seed"] == "3" and r["grasp_seed"] and r["ipcgrasp_version"]
        assert r["numpy_version"] and r["python_version"] and r["object"] == "builtin:cube"
        assert r["param_mu"] == "0.6" and '"mu": 0.6' in r["analytic_params"]
        assert r["grasp_center_z"] == "0.015"
    # The same seed list for every model of a grasp; different grasps get different seeds.
    assert rows[0]["grasp_seed"] == rows[1]["grasp_seed"] != rows[2]["grasp_seed"]
    assert len({r["task_key"] for r in rows}) == 4
    # Running again resumes: nothing to do, nothing duplicated.
    before = out.read_bytes()
    assert batch(*args, "--workers", "0", "--seed", "3", "--mu", "0.6") == 0
    assert out.read_bytes() == before
    # Another seed is another set of tasks, appended to the same file.
    assert batch(*args, "--workers", "0", "--seed", "4", "--mu", "0.6") == 0
    assert len(read_rows(out)) == 8 and out.read_bytes().startswith(before)


def test_bad_rows_and_missing_meshes_become_error_rows_and_the_batch_goes_on(
    tmp_path, fake_analytic, capsys
):
    grasps = write_grasps(
        tmp_path / "g.csv",
        [
            ["good", *CUBE_ROW],
            ["nomesh", "missing.obj", "0", "0", "0.015", "1", "0", "0"],
            ["bad", "cube", "0", "zero", "0.015", "1", "0", "0"],
            ["good2", *CUBE_ROW],
        ],
    )
    out = tmp_path / "r.csv"
    code = batch(str(grasps), "--out", str(out), "--models", "reach", "--workers", "0")
    assert code == 1  # error rows: the batch went on, and its exit status says so
    err = capsys.readouterr().err
    assert "line 4 (row 3), field 'center_y': 'zero' is not a number" in err
    # The missing mesh is named before the first task, and the end says how to rerun.
    assert "1 of 3 grasps cannot run" in err and "missing.obj (1 grasp (nomesh))" in err
    assert "2 of 4 tasks ended in an error row (exit status 1)" in err
    assert "run the same command with --retry-errors" in err
    rows = {r["grasp_id"]: r for r in read_rows(out)}
    assert rows["good"]["status"] == rows["good2"]["status"] == "ok"
    assert rows["nomesh"]["status"] == "error"
    assert rows["nomesh"]["reason"] == "bad or missing mesh"
    assert "missing.obj" in rows["nomesh"]["error"] and "not found" in rows["nomesh"]["error"]
    assert rows["bad"]["status"] == "error" and rows["bad"]["reason"] == "bad input"
    assert "field 'center_y'" in rows["bad"]["error"]
    assert "1 errors" not in err and "2 errors" in err
    # Errors count as done; --retry-errors runs them again (still failing, so a new error row).
    before = out.read_bytes()
    assert batch(str(grasps), "--out", str(out), "--models", "reach", "--workers", "0") == 1
    assert out.read_bytes() == before
    err = capsys.readouterr().err
    assert "2 of 4 tasks ended in an error row, 2 of them in an earlier run" in err
    args = [str(grasps), "--out", str(out), "--models", "reach", "--workers", "0"]
    assert batch(*args, "--retry-errors") == 1
    assert len(read_rows(out)) == 6 and out.read_bytes().startswith(before)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--models", "ipc,foo"],
            "unknown model 'foo'; valid models: ipc, soft_point, reach, 6dfc, exact",
        ),
        (["--models", "6dls"], "nominal grasp only"),
        (["--trials", "0"], "n_trials (--trials) must be in [1, 100000] (got 0)"),
        (["--E", "-5"], "youngs_modulus_pa (--E) must be in [10000, 1e+12] Pa (got -5.0)"),
        (["--limit", "0"], "--limit must be >= 1"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(tmp_path, capsys, args, message):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    assert batch(str(grasps), "--out", str(out), *args) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_unwritable_output_and_foreign_files_are_refused_without_damage(tmp_path, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    blocker = tmp_path / "file"
    blocker.write_text("keep me")
    assert batch(str(grasps), "--out", str(blocker / "r.csv")) == 2
    assert "cannot write results to" in capsys.readouterr().err
    assert batch(str(grasps), "--out", str(blocker)) == 2
    assert "not an ipcgrasp batch results file" in capsys.readouterr().err
    assert blocker.read_text() == "keep me"


def test_a_half_written_row_is_repaired_on_resume(tmp_path, fake_analytic, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [[str(i), *CUBE_ROW] for i in range(4)])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach", "--workers", "0"]
    assert batch(*args) == 0
    full = out.read_bytes()
    lines = full.splitlines(keepends=True)
    # Simulate a kill while the third row was being written.
    out.write_bytes(b"".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    assert batch(*args) == 0
    assert "half-written row" in capsys.readouterr().err
    rows = read_rows(out)
    assert Counter(r["grasp_id"] for r in rows) == Counter({"0": 1, "1": 1, "2": 1, "3": 1})
    assert out.read_bytes().startswith(b"".join(lines[:3]))


@pytest.mark.slow
def test_a_failing_ipc_trial_does_not_stop_the_batch(tmp_path):
    grasps = write_grasps(
        tmp_path / "g.csv",
        [
            ["miss", "cube", "0", "0.05", "0.015", "1", "0", "0"],  # closes beside the cube
            ["nomesh", "missing.obj", "0", "0", "0.015", "1", "0", "0"],
            ["good", *CUBE_ROW],
        ],
    )
    out = tmp_path / "r.csv"
    # N = 2: perturbed poses. A pose the simulator refuses is a failed trial, not an error.
    assert batch(str(grasps), "--out", str(out), "--trials", "2", "--workers", "0") == 1
    rows = {(r["grasp_id"], r["trial"]): r for r in read_rows(out)}
    assert rows["miss", "0"]["status"] == "ok" and rows["miss", "0"]["success"] == "False"
    assert rows["miss", "0"]["reason"] == "invalid perturbed grasp"
    assert "misses the object" in rows["miss", "1"]["error"]
    assert rows["nomesh", "0"]["status"] == "error"
    assert rows["good", "0"]["status"] == "ok" and rows["good", "0"]["success"] == "True"
    assert finite(rows["good", "1"]["psi1"]) and finite(rows["good", "1"]["perturbation_dx"])
    # N = 1 runs the nominal grasp: a nominal grasp that misses is the input's error.
    out1 = tmp_path / "r1.csv"
    assert batch(str(grasps), "--out", str(out1), "--trials", "1", "--workers", "0") == 1
    rows1 = {r["grasp_id"]: r for r in read_rows(out1)}
    assert rows1["miss"]["status"] == "error" and rows1["miss"]["reason"] == "invalid grasp"
    assert "misses the object" in rows1["miss"]["error"]
    assert rows1["good"]["success"] == "True" and rows1["good"]["perturbation_dx"] == ""


def _wait_for_rows(path, n, proc, timeout=240.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and len(read_rows(path)) >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"batch ended early with status {proc.returncode}")
        time.sleep(0.2)
    pytest.fail(f"no {n} rows in {path} after {timeout} s")


@pytest.mark.slow
def test_interrupt_and_kill_then_resume_loses_and_duplicates_nothing(tmp_path):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    cmd = [sys.executable, "-m", "engine.cli.main", "batch", str(grasps), "--out", str(out)]
    cmd += ["--trials", "4", "--workers", "1", "--progress-interval", "0"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = tmp_path / "stderr.txt"

    def start():
        with log.open("w") as err:
            return subprocess.Popen(cmd, cwd=REPO, env=env, stderr=err, start_new_session=True)

    # Ctrl+C after the first row: clean stop, exit 130, the row is kept.
    proc = start()
    _wait_for_rows(out, 1, proc)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(60) == 130
    assert "run the same command to resume" in log.read_text()
    first = read_rows(out)
    assert 1 <= len(first) < 4

    # SIGKILL of the driver and its worker after one more row.
    proc = start()
    _wait_for_rows(out, len(first) + 1, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(60)
    second = read_rows(out)
    assert second[: len(first)] == first

    # Resume to the end.
    proc = start()
    assert proc.wait(300) == 0, log.read_text()
    assert "resuming" in log.read_text()
    rows = read_rows(out)
    assert sorted(int(r["trial"]) for r in rows) == [0, 1, 2, 3]
    assert all(r["status"] == "ok" for r in rows)
    assert rows[: len(second)] == second  # finished rows untouched


def test_reach_json_without_its_cube_file_uses_the_built_in_cube(
    tmp_path, reach_json, fake_analytic, capsys
):
    """The README's REACH command works with the JSON alone: cube_3cm.obj holds the built-in
    cube's 8 vertices, so the built-in cube stands in for it (and a note says so)."""
    out = tmp_path / "r.csv"
    args = [str(reach_json), "--out", str(out), "--models", "reach", "--limit", "2"]
    assert batch(*args, "--mesh-dir", str(tmp_path), "--workers", "0") == 0
    err = capsys.readouterr().err
    assert f"cube_3cm.obj is not in {tmp_path}: the grasps of cube_3cm use the built-in" in err
    rows = read_rows(out)
    assert [r["grasp_id"] for r in rows] == ["cube_3cm/0", "cube_3cm/1"]
    assert all(r["status"] == "ok" and r["object"] == "builtin:cube" for r in rows)
    # With the JSON's own folder the file is used; the grasps are other tasks and run.
    assert batch(*args, "--workers", "0") == 0
    rows = read_rows(out)
    assert [r["status"] for r in rows] == ["ok"] * 4
    assert rows[2]["object"].endswith("cube_3cm.obj")
    assert rows[2]["object_rotation"] and rows[2]["object_mass_kg"] == "0.003"
    for key in ("robustness", "object_rotation", "grasp_center_x", "grasp_axis_y"):
        assert rows[0][key] == rows[2][key], key  # the same cube, the same grasp


def test_real_analytic_models_share_the_perturbation_seed(tmp_path):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "soft_point,reach,exact", "--samples", "3"]
    assert batch(*args, "--workers", "0", "--analytic-mu", "0.5") == 0
    rows = read_rows(out)
    assert [r["model"] for r in rows] == ["soft_point", "reach", "exact"]
    for r in rows:
        assert r["status"] == "ok", r["error"]
        assert r["samples"] == "3" and 0.0 <= float(r["robustness"]) <= 1.0
        assert '"mu": 0.5' in r["analytic_params"] and r["param_mu"] == "0.4"
    assert len({r["grasp_seed"] for r in rows}) == 1


def test_a_soft_pad_under_a_strong_gripper_is_warned_about_when_ipc_runs(tmp_path, capsys):
    # engine.grasp.pad_strain's advice, before the table is read (here: a missing one); the
    # analytic models alone never press a pad, so they get none.
    missing = str(tmp_path / "missing.csv")
    soft = ["--gripper", "robotiq_2f85", "--E", "1e6", "--out", str(tmp_path / "r.csv")]
    assert batch(missing, *soft, "--models", "ipc,reach") == 2
    err = capsys.readouterr().err
    assert "ipcgrasp batch: warning: pads of E = 1 MPa pressed with up to 235 N" in err
    assert batch(missing, *soft, "--models", "reach") == 2
    assert "warning: pads" not in capsys.readouterr().err
