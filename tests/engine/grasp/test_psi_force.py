"""The grip force a Psi_th stop implies (engine.grasp.calibration.force_at_psi), in the engine
and in the `simulate` and `calibrate-psi` output."""

from __future__ import annotations

import re

import pytest

from engine.cli.main import main
from engine.grasp.calibration import force_at_psi
from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

pytestmark = pytest.mark.slow

PSI_TH = 1e-7  # J: about 2 N per pad on the cube's default grasp at E = 1e8 Pa


@pytest.fixture(scope="module")
def cube():
    obj = rest_object(builtin_cube(), 0)
    params = SimulationParams()
    pad = build_pad(params)
    return obj, default_grasp(obj, pad.outline), pad


def test_the_force_equals_what_a_full_trial_reports_at_the_end_of_its_squeeze(cube):
    """force_at_psi runs the simulator's own squeeze: its force per pad is the trial's
    squeeze-end grip force (the trial then lifts with it)."""
    obj, grasp, pad = cube
    params = SimulationParams(psi_th_j=PSI_TH)
    end = force_at_psi(obj, grasp, params, pad=pad)
    (planned,) = plan_trials(grasp, TrialSpec(1, 0))
    trial = run_trial(obj, planned, params, pad=pad)
    assert end.stopped_by == "psi" and end.reason == ""
    assert end.grip_force_n is not None and end.psi_j is not None
    assert end.grip_force_n == pytest.approx((trial.grip_force1_n, trial.grip_force2_n), rel=1e-9)
    assert end.psi_j == pytest.approx((trial.psi1_j, trial.psi2_j), rel=1e-9)
    assert min(end.psi_j) >= PSI_TH
    assert 0.5 < end.grip_mean_n < 10.0  # a grip, not the pads' own weight
    # A force stop given in the parameters is replaced by the Psi_th asked for.
    other = force_at_psi(obj, grasp, SimulationParams(squeeze_force_n=3.0), PSI_TH, pad=pad)
    assert other.grip_force_n == pytest.approx(end.grip_force_n, rel=1e-9)


def test_the_gripper_force_reached_first_is_the_answer_with_its_reason(cube):
    """The YuMi presses with at most 20 N: a Psi_th it cannot reach ends the squeeze there."""
    obj, grasp, pad = cube
    end = force_at_psi(obj, grasp, SimulationParams(), 1e-3, pad=pad)
    assert end.stopped_by == "gripper"
    assert end.grip_force_n is not None and end.psi_j is not None
    assert end.grip_force_n == pytest.approx((20.0, 20.0), rel=0.02)
    assert max(end.psi_j) < 1e-3
    assert "maximum force" in end.reason
    assert "needs more than 20 N per jaw" in end.describe()


def test_a_psi_th_the_pads_reach_before_gripping_gives_no_force_and_the_fix(cube):
    obj, grasp, pad = cube
    end = force_at_psi(obj, grasp, SimulationParams(), 1e-15, pad=pad)
    assert end.stopped_by == "" and end.grip_force_n is None
    assert "before gripping" in end.reason and "raise Psi_th" in end.reason
    assert end.describe().startswith("no grip force at Psi_th = 1e-15 J")


def test_simulate_and_calibrate_print_the_force_psi_th_implies(capsys):
    assert main(["simulate", "--object", "cube", "--psi-th", str(PSI_TH)]) == 0
    out = capsys.readouterr().out
    line = re.search(
        r"trial 0: squeeze stopped at Psi_th = 1e-07 J: grip ([\d.]+) / ([\d.]+) N per pad "
        r"\(the force this Psi_th implies on this grasp\)",
        out,
    )
    assert line, out
    grip = re.search(r"trial 0: SUCCESS .* grip=([\d.]+) N", out)
    assert grip, out
    mean = 0.5 * (float(line.group(1)) + float(line.group(2)))
    assert mean == pytest.approx(float(grip.group(1)), abs=0.01)
    # The line comes when the squeeze ends, before the trial's outcome.
    assert out.index("squeeze stopped") < out.index("SUCCESS")

    assert main(["calibrate-psi", "--object", "cube", "--psi-th", str(PSI_TH), "1e-3"]) == 0
    table = capsys.readouterr().out
    rows = [r for r in table.splitlines() if r.startswith("| 1e-07") or r.startswith("| 0.001")]
    assert len(rows) == 2, table
    assert float(rows[0].split("|")[2]) == pytest.approx(float(line.group(1)), abs=0.01)
    assert rows[0].rstrip().endswith("| Psi_th |")
    assert rows[1].rstrip().endswith("| gripper's 20 N |")
    assert "fit:" not in table  # only the Psi_th values were asked for
