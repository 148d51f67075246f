"""`ipcgrasp analyze`: JSON lines, table, CSV rows, and errors that say what to do (exit 2)."""

from __future__ import annotations

import csv
import json

import pytest

from engine.cli.main import main
from engine.constants import GRAVITY_M_S2

KEYS = {"model", "success", "margin", "robustness", "reason", "time_s"}


def test_analyze_json_lines_and_csv(tmp_path, capsys):
    out = tmp_path / "a.csv"
    code = main(
        [
            "analyze",
            "--object",
            "cube",
            "--mass",
            "0.02",
            "--grasp-center",
            "0",
            "0",
            "0.015",
            "--grasp-axis",
            "1",
            "0",
            "0",
            "--approach-angle",
            "0",
            "--mu",
            "0.3",
            "--closing-force",
            "20",
            "--models",
            "soft_point,reach,6dfc,exact",
            "--samples",
            "3",
            "--seed",
            "2",
            "--json",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert [rec["model"] for rec in lines] == ["soft_point", "reach", "6dfc", "exact"]
    for rec in lines:
        assert rec.keys() >= KEYS
        assert rec["success"] is True and rec["reason"] == ""
        assert rec["margin"] == pytest.approx(61.16, rel=0.01)
        assert rec["robustness"] == 1.0 and rec["samples"] == 3
        # The forces each model holds the 20 g cube with, centred: each jaw presses with the
        # grip and its friction carries half the weight (by symmetry), m g / 2 = 0.0981 N (g = 9.81 m/s^2, engine.constants).
        assert rec["forces_normal_n"] == pytest.approx([20.0, 20.0], rel=1e-6)
        assert rec["forces_friction_n"] == pytest.approx([0.02 * GRAVITY_M_S2 / 2] * 2, rel=1e-6)
        assert rec["forces_scale"] == 1.0 and 0 < rec["forces_cone_use"] < 1
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["model"] for r in rows] == ["soft_point", "reach", "6dfc", "exact"]
    assert rows[0]["object"] == "builtin:cube" and rows[0]["seed"] == "2"
    assert rows[0]["param_mu"] == "0.3" and rows[0]["grasp_axis_x"] == "1.0"


def test_analyze_table_with_default_grasp(capsys):
    code = main(["analyze", "--models", "soft_point,exact", "--samples", "2"])
    assert code == 0
    text = capsys.readouterr().out
    assert "robustness [95% CI]" in text
    assert "soft_point" in text and "exact" in text and "1.00 [" in text
    assert "soft_point: normal 20 N per jaw, friction" in text
    assert "exact: normal 20 N per jaw, friction" in text and "torsion" not in text


def test_analyze_failure_reason_in_json(capsys):
    args = ["analyze", "--grasp-center", "0", "0.08", "0.015", "--grasp-axis", "1", "0", "0"]
    assert main([*args, "--models", "exact", "--samples", "0", "--json"]) == 0
    (rec,) = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert rec["success"] is False and rec["reason"].startswith("no contact on a jaw")
    assert rec["robustness"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--models", "soft_point,bogus"], "soft_point, reach, 6dfc, 6dls, exact"),
        (["--mu", "-1"], "mu (--mu) must be in [0, 3] (got -1.0)"),
        (["--closing-force", "0"], "closing_force_n (--closing-force) must be in (0, 10000] N"),
        (["--samples", "-2"], "samples (--samples) must be in [0, 10000] (got -2)"),
        (["--object", "/no/such/mesh.obj"], "not found"),
        (["--grasp-center", "0", "0", "0.01"], "give both --grasp-center and --grasp-axis"),
    ],
)
def test_analyze_errors_exit_2(args, message, capsys):
    assert main(["analyze", *args]) == 2
    err = capsys.readouterr().err
    # After the object line (size, mass, density) when the object loaded.
    assert err.splitlines()[-1].startswith("ipcgrasp analyze: error:") and message in err
