"""Batch rows of the analytic models use the simulated gripper's opening and grip force.

The bug (issue 38): `ipcgrasp batch --gripper franka_hand --squeeze-force 50` ran the analytic
models at AnalyticParams' YuMi defaults, a 50 mm opening and 20 N, so a box 54 mm wide along the
closing axis was "too wide: the object is wider than the 50 mm opening" (margin 0) while the
Franka Hand's 80 mm stroke takes it and the simulator lifts it.
"""

from __future__ import annotations

import csv
import json

import pytest
import trimesh

from engine.cli.main import main
from engine.constants import GRAVITY_M_S2

MASS_KG = 0.05
WIDTH_M = 0.054  # along the closing axis: wider than the YuMi's 50 mm, within the Franka's 80


def test_franka_batch_rows_hold_a_54_mm_box_by_coulombs_law(tmp_path):
    """Checks the analytic rows of a Franka Hand batch (--squeeze-force 50, --workers 1) on a
    generated 54 x 30 x 30 mm box of 50 g grasped across its 54 mm: every row is a success
    (no "too wide", no invalid input) whose margin is Coulomb's law for two flat parallel pads,
    s* = 2 mu F / (m g) = 2 * 0.4 * 50 / (0.05 * 9.81) = 81.5 (with the old 20 N it would be
    32.6, with the old 50 mm opening 0), and the row records the 80 mm opening and 50 N."""
    box = tmp_path / "box54.obj"
    trimesh.creation.box(extents=(WIDTH_M, 0.03, 0.03)).export(box)
    grasps = tmp_path / "grasps.csv"
    grasps.write_text(
        "grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z,mass\n"
        f"box54,{box},0,0,0.015,1,0,0,{MASS_KG}\n"
    )
    out = tmp_path / "results.csv"
    argv = ["batch", str(grasps), "--out", str(out), "--models", "soft_point,reach"]
    argv += ["--gripper", "franka_hand", "--squeeze-force", "50", "--mu", "0.4"]
    assert main([*argv, "--samples", "3", "--workers", "1", "--quiet"]) == 0
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["model"] for r in rows) == ["reach", "soft_point"]
    coulomb = 2 * 0.4 * 50.0 / (MASS_KG * GRAVITY_M_S2)
    for r in rows:
        assert r["status"] == "ok", r["error"]
        assert "wide" not in r["reason"] and "invalid" not in r["reason"], r["reason"]
        assert r["success"] == "True" and float(r["robustness"]) == 1.0, r["reason"]
        assert float(r["margin"]) == pytest.approx(coulomb, rel=1e-6), r["model"]
        used = json.loads(r["analytic_params"])
        assert (used["open_width_m"], used["closing_force_n"]) == (0.08, 50.0)
        assert used["pad"] == "rectangular" and used["mu"] == 0.4
