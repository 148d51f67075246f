"""`--disturb`: the grip strength measured after a trial's hold travels with the trial's result
into rows, sessions and a resumed batch (issue 41), and the trials it measures keep their
outcome. The 300 g cube held through its centre by the YuMi's 20 N jaws (mu 0.4) slips when
pulled down at 2 mu F - m g = 13.05 N (tests/engine/grasp/test_disturbance.py checks the law)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.grasp.frames import TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.grip_measures import rotation_angle
from engine.grasp.params import SimulationParams
from engine.grasp.strength import DIRECTIONS, Strength, disturb_directions
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.io.results_csv import OUTCOME_COLUMNS, result_row, trial_result_from_row
from engine.io.session import load_session, save_session
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object
from tests.engine.io.test_session_validation import make_session

MASS_KG = 0.3


@pytest.mark.slow
def test_a_disturbed_trial_records_the_pull_down_at_slip_and_keeps_its_outcome():
    obj = rest_object(builtin_cube(0.03), mass_kg=MASS_KG)
    grasp = Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0)
    (planned,) = plan_trials(grasp, TrialSpec(1, 0))
    plain = run_trial(obj, planned, SimulationParams())
    disturbed = run_trial(obj, planned, SimulationParams(disturb="down"))
    assert plain.success and disturbed.success and plain.strength == {}
    # The trial itself is the same: the disturbance continues from its held state.
    assert disturbed.newton_iterations == plain.newton_iterations
    assert disturbed.frames == plain.frames
    law = 2 * 0.4 * disturbed.grip_force_n - MASS_KG * 9.81
    assert list(disturbed.strength) == ["down"]
    assert disturbed.strength["down"] == pytest.approx(law, rel=0.05)
    weight = MASS_KG * 9.81
    assert disturbed.strength_weights["down"] == pytest.approx(disturbed.strength["down"] / weight)
    assert disturbed.strength_held == ""


def _measured() -> TrialResult:
    r = TrialResult(trial=0, success=True, reason="lifted", grip_force1_n=20.0, grip_force2_n=20.0)
    r.record_strength(
        [
            Strength("down", 13.2, 4.49, False, 11, 44),
            Strength("tilt", 0.61, 16.3, True, 30, 58),
        ]
    )
    return r


def test_rows_carry_the_strength_columns_and_read_them_back():
    r = _measured()
    row = {k: str(v) for k, v in result_row({}, r).items()}
    assert {f"strength_{d}" for d in DIRECTIONS} <= set(OUTCOME_COLUMNS)
    assert row["strength_down"] == "13.2" and row["strength_tilt_weights"] == "16.3"
    assert row["strength_up"] == "" and row["strength_held"] == "tilt"
    back = trial_result_from_row(row)
    assert back.strength == r.strength and back.strength_weights == r.strength_weights
    assert back.strength_held == "tilt"
    plain = {k: str(v) for k, v in result_row({}, TrialResult(0, True, "lifted")).items()}
    assert trial_result_from_row(plain).strength == {}


@pytest.mark.parametrize(
    ("column", "cell"),
    [("strength_down", "-3"), ("strength_down", "strong"), ("strength_held", "up")],
)
def test_a_damaged_strength_cell_is_refused_naming_its_column(column, cell):
    row = {k: str(v) for k, v in result_row({}, _measured()).items()}
    row[column] = cell
    with pytest.raises(ParameterError, match=column):
        trial_result_from_row(row)


def test_sessions_keep_the_measured_strength(tmp_path):
    session = make_session()
    rec = session.trials[0]
    done = dataclasses.replace(rec, status="done", result=_measured())
    json_path, _ = save_session(
        tmp_path / "s", dataclasses.replace(session, trials=[done, *session.trials[1:]])
    )
    back = load_session(json_path).trials[0].result
    assert back is not None
    assert back.strength == {"down": 13.2, "tilt": 0.61} and back.strength_held == "tilt"
    assert back.strength_weights == {"down": 4.49, "tilt": 16.3}


def test_disturb_choices_name_the_directions():
    assert disturb_directions("off") == ()
    assert disturb_directions("all") == DIRECTIONS
    assert disturb_directions("twist") == ("twist",)
    with pytest.raises(ParameterError, match="--disturb"):
        SimulationParams(disturb="sideways").validate()


def test_the_rotation_of_a_strained_still_body_is_zero():
    """The object is an affine body: under a 20 N grip its 3x3 part holds a strain of ~1e-5.
    acos((trace - 1) / 2) read that as a 0.4 deg turn; the angle is the rotation's only."""
    strained = (
        np.eye(3) + np.diag([2e-5, -1e-5, 0.0]) + 1e-5 * np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    )
    assert rotation_angle(np.eye(3), strained) < 1e-9
    turn = np.array(
        [[math.cos(0.3), -math.sin(0.3), 0], [math.sin(0.3), math.cos(0.3), 0], [0, 0, 1]]
    )
    assert rotation_angle(np.eye(3), turn) == pytest.approx(0.3, abs=1e-12)
    assert rotation_angle(strained, strained @ turn) == pytest.approx(0.3, abs=1e-4)
    assert rotation_angle(np.eye(3), np.diag([1.0, -1.0, -1.0])) == pytest.approx(math.pi)


@pytest.mark.slow
def test_batch_rows_carry_the_strength_and_a_resumed_batch_keeps_them(tmp_path):
    """The 3 g cube at 20 N: pulled down it slips at 2 mu F - m g = 15.97 N (within 5 %)."""
    from engine.cli.main import main
    from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps

    out = tmp_path / "r.csv"
    args = ["--out", str(out), "--models", "ipc", "--trials", "1", "--disturb", "down"]
    one = write_grasps(tmp_path / "one.csv", [["a", *CUBE_ROW]])
    assert main(["batch", str(one), *args, "--workers", "0", "--quiet"]) == 0
    (first,) = read_rows(out)
    assert first["param_disturb"] == "down"
    law = 2 * 0.4 * float(first["grip_force"]) - 0.003 * 9.81
    assert float(first["strength_down"]) == pytest.approx(law, rel=0.05)
    # The same table with a second grasp: the first row is kept as it was, the second added.
    two = write_grasps(
        tmp_path / "one.csv", [["a", *CUBE_ROW], ["b", *CUBE_ROW[:3], "0.012", *CUBE_ROW[4:]]]
    )
    before = out.read_bytes()
    assert main(["batch", str(two), *args, "--workers", "0", "--quiet"]) == 0
    assert out.read_bytes().startswith(before)
    kept, added = read_rows(out)
    assert kept == first and trial_result_from_row(kept).strength == {
        "down": float(first["strength_down"])
    }
    assert added["grasp_id"] == "b" and float(added["strength_down"]) > 0


@pytest.mark.slow
def test_analyze_gives_the_measured_margin_beside_the_models(capsys):
    """The 3 g cube through its centre at the YuMi's 20 N and the models' mu: Soft Point's margin
    is Coulomb's 2 mu F / (m g); the measured one ((pull down at slip + weight) / weight) is
    the same law. Measured: 429 against 408 (5 %: the onset is found within one refined ramp
    step of the slip, and the jaws' servo presses a little harder while the cube is pulled)."""
    import json

    from engine.cli.main import main

    args = ["analyze", "--object", "cube", "--models", "soft_point", "--samples", "1"]
    assert main([*args, "--measured", "--json"]) == 0
    rows = {r["model"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    soft, measured = rows["soft_point"], rows["ipc_measured"]
    assert measured["success"] is True and measured["grip_force"] == pytest.approx(20.0, rel=0.01)
    assert measured["margin"] == pytest.approx(soft["margin"], rel=0.06)
