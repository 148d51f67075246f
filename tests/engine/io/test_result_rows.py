"""Result rows read back: engine.schema.from_row (the inverse of to_row) and the readers of
engine.io.results_csv (the inverse of its writer), through real CSV text."""

from __future__ import annotations

import csv
import io

import pytest

from engine import schema
from engine.analytic.params import AnalyticParams
from engine.errors import ParameterError
from engine.grasp.frames import TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.io.results_csv import (
    context_columns,
    params_from_row,
    result_row,
    trial_result_from_row,
)


def _through_csv(row: dict[str, object]) -> dict[str, str]:
    """`row` written by csv.DictWriter and read back: every cell as the file holds it."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(row))
    writer.writeheader()
    writer.writerow(row)
    return next(csv.DictReader(io.StringIO(text.getvalue())))


# Values other than the defaults, an optional field set and one left None, ints and choices.
SIM = SimulationParams.for_gripper(
    "franka_hand",
    youngs_modulus_pa=3.3e7,
    mu=0.55,
    squeeze_force_n=42.5,
    pad_layers=3,
    hold="position",
    max_steps=1234,
)
ANALYTIC = AnalyticParams(
    mu=0.35, closing_force_n=61.0, pad="reach_hexagon", cone_edges=12, torsion_model="none"
)


@pytest.mark.parametrize("params", [SIM, SimulationParams(), ANALYTIC, AnalyticParams()])
def test_to_row_then_from_row_gives_the_parameters_back(params):
    """Every declared field survives a CSV row: floats, ints, choices, None as an empty cell."""
    cells = _through_csv(schema.to_row(params))
    assert all(isinstance(v, str) for v in cells.values())
    assert schema.from_row(type(params), cells) == params
    assert schema.from_row(type(params), schema.to_row(params)) == params  # values, not text


def test_a_bad_cell_names_its_column():
    """Not a number, out of range, not an integer, not a choice, empty where required."""
    good = _through_csv(schema.to_row(SIM))
    cases = {
        "param_mu": ("abc", "not a number"),
        "param_youngs_modulus_pa": ("-5", "must be in"),
        "param_max_steps": ("2.5", "integer"),
        "param_pad": ("hexagonal", "one of"),
        "param_open_width_m": ("", "must be given"),
        "param_dhat_m": ("nan", "finite"),
    }
    for column, (cell, why) in cases.items():
        with pytest.raises(ParameterError, match=f"column {column}: .*{why}"):
            schema.from_row(SimulationParams, {**good, column: cell})


def test_unknown_and_missing_columns_are_handled_as_from_dict():
    """Missing columns take their defaults; unknown ones with the prefix are reported; other
    columns are not the parameters'."""
    unknown: list[str] = []
    row = {"param_mu": "0.7", "param_from_the_future": "1", "grasp_center_x": "0.1"}
    got = schema.from_row(SimulationParams, row, unknown=unknown)
    assert got == SimulationParams(mu=0.7)
    assert unknown == ["param_from_the_future"]
    assert schema.from_row(AnalyticParams, {"a_mu": "0.2"}, prefix="a_") == AnalyticParams(mu=0.2)


def test_a_results_row_gives_back_its_trial_and_parameters():
    """engine.io.results_csv's readers invert its writer (context columns + outcome columns)."""
    result = TrialResult(
        trial=3, success=True, reason="lifted", psi1_j=1.5e-4, psi2_j=1.25e-4,
        grip_force1_n=19.5, grip_force2_n=20.25, squeeze_balanced=True, lift_height_m=0.021,
        slip1_m=3e-4, slip2_m=1.5e-4, rotation_rad=0.02, min_lift_grip_n=19.25, frames=88, newton_iterations=412, rollbacks=2, wall_time_s=1.75, min_distance_m=2e-5,
        intersection_free=True, perturbation={"dx": 0.001, "rz": -0.002}, error="",
    )  # fmt: skip
    context = context_columns("builtin:cube", None, 0, Grasp([0, 0, 0.015], [1, 0, 0]), SIM, 7)
    cells = _through_csv(result_row(context, result))
    assert trial_result_from_row(cells) == result
    assert params_from_row(cells) == SIM
    assert params_from_row({"model": "reach"}) is None  # no parameter columns
    assert params_from_row({**cells, "param_mu": "slippery"}) is None  # another version's
