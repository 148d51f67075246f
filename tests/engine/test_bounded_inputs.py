"""Absurd values are refused with their range, never a confident label or a traceback
(issue 42, points 8 and 10). Each command exits 2 with one line naming the problem and the fix.
"""

from __future__ import annotations

import json

import pytest

from engine.batch.grasp_table import GraspTableError, read_grasp_table
from engine.cli.main import main
from engine.errors import ParameterError
from engine.evaluation.labels import load_labels, predictions_from_rows
from engine.grasp.params import SimulationParams
from engine.io.session import SessionError, load_session, save_session
from tests.engine.batch.conftest import CUBE_ROW, write_grasps
from tests.engine.io.test_session_validation import make_session

GIANT = "1" + "0" * 5000


def _refused(capsys, *argv: str) -> str:
    """The one error line of a command that must exit 2 before it does any work."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith(f"ipcgrasp {argv[0]}: error:"), err
    return err[-1]


# --- point 8: plausibility ranges ----------------------------------------------------------------
@pytest.mark.parametrize("mass", ["1e300", "1e-300"])
def test_an_absurd_mass_is_refused_by_the_density_check(capsys, mass, tmp_path):
    """Covered by the density range that landed with issue 40 (45ee542); kept as a test."""
    line = _refused(capsys, "simulate", "--mass", mass, "--out", str(tmp_path / "r.csv"))
    assert "kg/m^3" in line and "check the mesh's unit (--unit) and the mass" in line


@pytest.mark.parametrize(
    ("flag", "what", "slowest"),
    [
        ("--closing-speed", "close the jaws", "0.00125"),
        ("--lift-speed", "lift the object", "0.001"),
    ],
)
def test_a_speed_that_cannot_finish_within_the_step_limit_is_refused(
    capsys, tmp_path, flag, what, slowest
):
    """Before: --closing-speed 1e-300 ran its 2000 steps and labelled the grasp a failure."""
    line = _refused(capsys, "simulate", flag, "1e-300", "--out", str(tmp_path / "r.csv"))
    assert f"cannot {what} within the trial's step limit" in line
    assert f"Give a speed in [{slowest}, 1] m/s, or more steps (--max-steps)" in line


def test_the_step_limit_rule_follows_the_other_parameters():
    # 25 mm at 2.5 mm/s is 10 s; 1000 steps of 10 ms are 10 s: just enough.
    SimulationParams(closing_speed_m_s=0.0025, max_steps=1000).validate()
    with pytest.raises(ParameterError, match=r"in \[0.0025, 1\] m/s"):
        SimulationParams(closing_speed_m_s=0.0025, max_steps=999).validate()


@pytest.fixture
def grasps(tmp_path):
    return str(write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mass", "nan"], "--mass must be a finite mass in kg > 0 (got nan)"),
        (["--analytic-mu", "-1"], "--analytic-mu must be in [0, 3] (got -1.0)"),
        (["--samples", "99999999999"], "samples (--samples) must be in [0, 10000]"),
        (["--workers", "99999999999"], "--workers must be 0 (in this process) to 1024"),
    ],
)
def test_batch_refuses_absurd_flags_before_the_first_task(capsys, tmp_path, grasps, args, message):
    """Before: --mass nan was refused as 'a density of nan kg/m^3, less than any object',
    --analytic-mu -1 named --mu, --samples never ended, --workers was an OverflowError."""
    out = tmp_path / "r.csv"
    line = _refused(capsys, "batch", grasps, "--out", str(out), "--models", "reach", *args)
    assert message in line and not out.exists()


def test_analyze_refuses_too_many_samples(capsys):
    line = _refused(capsys, "analyze", "--samples", "99999999999")
    assert "samples (--samples) must be in [0, 10000] (got 99999999999)" in line


def _row(**cells):
    base = {"model": "ipc", "config": "c", "grasp_id": "g", "status": "ok", "trial": "0",
            "task_key": "k1", "success": "true", "robustness": ""}  # fmt: skip
    return {**base, **cells}


@pytest.mark.parametrize(
    ("row", "column"),
    [
        (_row(success="yes"), "success"),
        (_row(model="reach", trial="", robustness="5"), "robustness"),
        (_row(model="reach", trial="", robustness="-0.1"), "robustness"),
        (_row(model="reach", trial="", robustness="high"), "robustness"),
    ],
)
def test_results_cells_outside_their_type_or_range_are_refused(row, column):
    """Before: success=yes counted as a failure, robustness=5 as 1.0, 'high' as a failure."""
    with pytest.raises(ParameterError) as err:
        predictions_from_rows([row])
    text = str(err.value)
    assert f"column {column!r} is {row[column]!r}, not " in text
    assert "grasp 'g'" in text and "task_key 'k1'" in text


def test_a_copied_reach_record_is_refused(tmp_path):
    """Before: the copy counted as another physical trial (robustness 2/3 instead of 1/2)."""
    rec = {"obj": "c", "attempt": 0, "trial": 0, "result": True}
    other = {**rec, "trial": 1, "result": False}
    path = tmp_path / "reach.json"
    path.write_text(json.dumps([rec, other, rec]))
    with pytest.raises(ParameterError, match=r"record 2 is a copy of .*record 0"):
        load_labels([str(path)])
    path.write_text(json.dumps([rec, other]))
    assert load_labels([str(path)])["c/0"].robustness == 0.5


# --- point 10: clear errors instead of tracebacks -------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--time-step", "1e-300"], "time_step_s (--time-step) must be in [1e-06, 0.1] s"),
        (["--dhat", "1e-300"], "dhat_m (--dhat) must be in [1e-08, 0.005] m"),
        (["--density", "1e300"], "more than any object (25,000 kg/m^3"),
        (["--object", "cube:²"], "expected 'cube' or 'cube:N' with N a vertex count"),
        (["--body", "²"], "--body must be a body number (0 = the largest) or 'all', got '²'"),
    ],
)
def test_simulate_refuses_with_a_message_not_a_traceback(capsys, tmp_path, args, message):
    """Before: ZeroDivisionError (time step, dhat) and ValueError ('²') tracebacks."""
    assert message in _refused(capsys, "simulate", *args, "--out", str(tmp_path / "r.csv"))


def test_a_superscript_digit_in_a_body_cell_is_a_clear_row_error(tmp_path):
    """Before: a ValueError traceback ended the batch (int('²'))."""
    header = ["grasp_id", "object", "body", "center_x", "center_y", "center_z", "axis_x",
              "axis_y", "axis_z"]  # fmt: skip
    path = write_grasps(tmp_path / "g.csv", [["a", "cube", "²", "0", "0", "0.015", "1", "0", "0"]],
                        header)  # fmt: skip
    table = read_grasp_table(str(path))
    (spec,) = table.errors
    assert "field 'body': --body must be a body number" in spec.error


def test_a_giant_integer_in_a_session_is_a_session_error(tmp_path):
    json_path, _ = save_session(tmp_path / "s", make_session())
    text = json_path.read_text()
    json_path.write_text(text.replace('"stable_pose": 0', f'"stable_pose": {GIANT}', 1))
    with pytest.raises(SessionError, match="an integer of 5001 digits"):
        load_session(json_path)


def test_a_giant_integer_in_reach_records_and_labels_is_refused(tmp_path):
    path = tmp_path / "reach.json"
    path.write_text(f'[{{"obj": "c", "attempt": {GIANT}, "trial": 0, "result": true}}]')
    with pytest.raises(GraspTableError, match="an integer of 5001 digits"):
        read_grasp_table(str(path))
    with pytest.raises(ParameterError, match="an integer of 5001 digits"):
        load_labels([str(path)])
